# The samplers of Dirichlet process and Pitman-Yor mixtures: the table of
# algorithms (one row per algorithm, matching the C table of
# src/mixture_dp.h), the Pitman-Yor discount and its Beta prior, the
# algorithms' settings, and the one kernel that runs them all through
# src/ffi_mixture_dp.c.
#
# Sampler state of one chain (a plain list):
#   labels    integer vector (N), 0-based clusters in the engine's internal
#             order; for "slice" the stick of each observation (sticks may
#             be empty), so that the state is exactly the chain's state;
#   alpha, discount  current values;
#   params    "neal8": the psize x K parameters of the clusters (NULL in a
#             fresh state: drawn given the members);
#   aux       an integer block of the algorithms that need one (NULL
#             otherwise and in a fresh state);
#   stats     the clusters' stats blocks as raw bytes (NULL when fresh);
#   n_accept, n_prop  acceptance counters of the rows with `counters`
#             (zero, and ignored by acceptance(), for the other algorithms);
#   online    labels = "online": the online point estimate (NULL when
#             fresh and otherwise; R/mixture_online.R).
# Traces: n_clusters, alpha (Gamma prior), discount (Beta prior), log_lik
# (the collapsed log p(x | partition) for conjugate families, and
# log p(x | z, theta) for non-conjugate ones under "neal8").

# One row per DP algorithm; the C side has the matching row in
# MCX_DP_ALGORITHMS (src/mixture_dp.h). Adding an algorithm: one engine file,
# one row there and one row here.
#   control          function(ctl, model, N) of a dp_control() object, the
#                    model and the number of observations, giving the row's
#                    settings as a named numeric vector (the names of the C
#                    row's control_names; handed to C as a list); it may
#                    refuse settings with an error naming the argument;
#   conjugate_only   refuses non-conjugate families;
#   random_discount  samples a beta_prior() discount;
#   counters         counts accepted proposals (read by acceptance());
#   params           keeps the clusters' parameters across sweeps
#                    (state$params, one column per engine cluster): missing
#                    cells are then imputed given them (R/impute.R).
dp_algorithm <- function(control = function(ctl, model, N) numeric(), conjugate_only = TRUE,
                         random_discount = TRUE, counters = FALSE, params = FALSE) {
  list(control = control, conjugate_only = conjugate_only,
       random_discount = random_discount, counters = counters, params = params)
}

dp_algorithms <- list(
  collapsed = dp_algorithm(),
  neal8 = dp_algorithm(control = function(ctl, model, N) c(m_aux = ctl$m),
                       conjugate_only = FALSE, params = TRUE),
  slice = dp_algorithm(control = function(ctl, model, N) {
                         budget <- slice_budget(model, ctl, N)
                         c(geometric = as.double(ctl$xi == "geometric"), kappa = ctl$kappa,
                           memory_budget = budget[1L], work_budget = budget[2L])
                       }, random_discount = FALSE),
  split_merge = dp_algorithm(control = function(ctl, model, N)
                               c(t = ctl$t, moves = ctl$moves,
                                 sams = as.double(identical(ctl$proposal, "sams"))),
                             counters = TRUE),
  subcluster = dp_algorithm(control = function(ctl, model, N)
                              c(sc_moves = if (is.null(ctl$sc_moves)) 4 else ctl$sc_moves,
                                threads = if (is.null(ctl$threads)) 1 else ctl$threads,
                                # tests only: the last sequentially allocated move in state$params
                                sc_record = if (isTRUE(ctl$sc_record)) 1 else 0,
                                # tests only: union size above which the split / merge
                                # moves are thinned (< 0: the default)
                                sc_thin = if (is.null(ctl$sc_thin)) -1 else ctl$sc_thin,
                                # tests only: 0 leaves out the sequentially allocated moves
                                sc_sams = if (isFALSE(ctl$sc_sams)) 0 else 1,
                                # tests only (< 1: the defaults): the members the 2-means
                                # sub-clusters are fitted to at most (16384), and gathered
                                # at a time by the sequential allocation (2048)
                                sc_fit_max = if (is.null(ctl$sc_fit_max)) -1 else ctl$sc_fit_max,
                                sc_gather = if (is.null(ctl$sc_gather)) -1 else ctl$sc_gather),
                            counters = TRUE))

# "a", "a or b", "a, b or c" (quoted names)
or_list <- function(x) {
  x <- dQuote(x, FALSE)
  if (length(x) < 2L) return(x)
  paste(paste(x[-length(x)], collapse = ", "), "or", x[length(x)])
}

#' Beta prior on a Pitman-Yor discount
#'
#' A Beta(a, b) prior for the `discount` of [dp_mixture()]; the discount is
#' then sampled, by slice sampling on its conditional given the partition,
#' \deqn{p(d \mid K, n_{1..K}) \propto p(d) \prod_{j=1}^{K-1} (\alpha + j d)
#'   \prod_{k=1}^{K} \Gamma(n_k - d) / \Gamma(1 - d)}
#' (from the Pitman-Yor exchangeable partition probability function).
#'
#' @param a,b Positive numbers.
#' @return An object of class `mcmix_beta_prior`.
#' @examples
#' beta_prior(1, 3)
#' dp_mixture(gaussian_niw(), alpha = 1, discount = beta_prior(1, 3))
#' @export
beta_prior <- function(a, b) {
  check_positive(a, "a")
  check_positive(b, "b")
  structure(list(a = as.double(a), b = as.double(b)), class = "mcmix_beta_prior")
}

#' @export
print.mcmix_beta_prior <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.mcmix_beta_prior <- function(x, ...) {
  sprintf("Beta(a = %s, b = %s)", format(x$a), format(x$b))
}

# Validate the discount (and alpha against it); returns the discount.
check_discount <- function(discount, alpha) {
  if (inherits(discount, "mcmix_beta_prior")) {
    if (inherits(alpha, "mcmix_gamma_prior"))
      stop("`alpha` must be a fixed number when `discount` has a beta_prior() ",
           "(a gamma_prior() on `alpha` needs `discount = 0`).", call. = FALSE)
    m <- discount$a / (discount$a + discount$b)
    if (!(m > 0 && m < 1))   # e.g. beta_prior(1e300, 1): all its mass rounds to 1
      stop(sprintf(paste0("`discount` = %s has its mass at %s in floating point (mean ",
                          "a / (a + b) = %s); give `a` and `b` of comparable size."),
                   format(discount), if (is.finite(m) && m <= 0) "0" else "1",
                   format(m)), call. = FALSE)
    return(discount)
  }
  if (!is.numeric(discount) || length(discount) != 1L || is.na(discount) ||
      !is.finite(discount) || discount < 0 || discount >= 1)
    stop(sprintf("`discount` must be a number in [0, 1) or beta_prior(a, b), not %s.",
                 describe_value(discount)), call. = FALSE)
  discount <- as.double(discount)
  if (discount > 0) {
    if (inherits(alpha, "mcmix_gamma_prior"))
      stop("a gamma_prior() on `alpha` needs `discount = 0`.", call. = FALSE)
    if (!is.numeric(alpha) || length(alpha) != 1L || is.na(alpha) ||
        !is.finite(alpha) || alpha <= -discount)
      stop(sprintf("`alpha` must be a number greater than -discount = %s, not %s.",
                   format(-discount), describe_value(alpha)), call. = FALSE)
  }
  discount
}

#' Settings of the Dirichlet process mixture samplers
#'
#' @param m `"neal8"`: number of auxiliary components (Neal 2000,
#'   algorithm 8), a whole number between 1 and 1000.
#' @param xi `"slice"`: the decreasing sequence \eqn{\xi_j} of the slice
#'   sampler of Kalli, Griffin and Walker (2011). `"dependent"` uses the
#'   stick-breaking weights themselves (\eqn{\xi_j = w_j}, Walker 2007);
#'   `"geometric"` the deterministic \eqn{\xi_j = (1 - \kappa)\kappa^{j-1}}.
#' @param kappa `"slice"` with `xi = "geometric"`: the rate, in (0, 1).
#' @param t `"split_merge"` with `proposal = "restricted_gibbs"`:
#'   intermediate restricted Gibbs scans building the launch state (Jain and
#'   Neal 2004), between 0 and 1000. With `t = 0` the launch state is the
#'   random split itself, which is still a valid Metropolis-Hastings
#'   proposal (mixing is usually worse). Unused by `proposal = "sams"`.
#' @param moves `"split_merge"`: split-merge proposals before each
#'   collapsed Gibbs scan, between 0 and 1000; `moves = 0` turns the
#'   split-merge moves off (plain collapsed Gibbs sampling).
#' @param proposal `"split_merge"`: how a split is proposed for two
#'   observations `i` and `j` drawn at random (`j` among the other members
#'   of `i`'s cluster half of the time, so that splits are proposed often
#'   also when there are many clusters), the other members of their
#'   clusters being placed with `i` or with `j`. `"sams"` (the default):
#'   the sequentially allocated proposal of Dahl (2003), the members placed
#'   one at a time in a random order, each with probability proportional to
#'   the size of a side (less the discount) times its predictive density
#'   given the members placed there so far. For [gaussian_niw()] in two or
#'   more dimensions, half of these proposals use instead the predictive of
#'   the prior's marginal per coordinate (a [gaussian_diag()] model): in
#'   high dimension, with a full-covariance prior scaled to the whole data,
#'   the first members would otherwise be placed almost at random (five
#'   clusters in 50 dimensions were then never separated). Every proposal's
#'   probability enters the Metropolis-Hastings ratio, so the posterior is
#'   unchanged. `"restricted_gibbs"`: the
#'   restricted Gibbs sampling proposal of Jain and Neal (2004), a random
#'   launch split refined by `t` restricted Gibbs scans, the proposal being
#'   one more scan. SAMS needs one pass over the members of the two
#'   clusters per proposal instead of `t + 2`; on the galaxy data (N = 82)
#'   it gave about three times the effective sample size of the number of
#'   clusters per CPU second of either Jain and Neal's proposal or plain
#'   collapsed Gibbs sampling (`bench/RESULTS.md` in the sources). A merge
#'   whose prior and likelihood ratio alone already reject it is rejected
#'   without the proposal pass (exact, as the pass's probability is at most
#'   1), so merges of well-separated clusters cost O(1).
#' @param sc_moves `"subcluster"`: split / merge proposals per sweep (each
#'   costs one pass over the members of the clusters involved), between 0
#'   and 1000. Each comes with four singleton split / merge proposals (one
#'   point split off as a new cluster, or a one-point cluster merged into
#'   another; O(K) each), which let clusters that the restricted Gibbs pass
#'   has reduced to one point dissolve. A split proposal of a cluster of
#'   \eqn{n > 32768} observations is made with probability \eqn{32768 / n}
#'   and otherwise skipped (the 2-means split only when its sub-clusters
#'   say the cluster is one; the sequentially allocated split always), a
#'   sequentially allocated merge of clusters of \eqn{n} observations
#'   together with probability \eqn{(32768 / n)^{1/2}}; the factors enter
#'   the acceptance ratios, so the sampler stays exact. This keeps the cost of
#'   the moves per sweep nearly independent of N, while clusters that hold
#'   several and the pieces of a cut cluster are split and merged as
#'   readily as before.
#' @return An object of class `mcmix_dp_control`.
#' @references
#' Jain, S. and Neal, R. M. (2004). A split-merge Markov chain Monte Carlo
#' procedure for the Dirichlet process mixture model. *Journal of
#' Computational and Graphical Statistics*, 13, 158--182.
#'
#' Dahl, D. B. (2003). An improved merge-split sampler for conjugate
#' Dirichlet process mixture models. Technical Report 1086, Department of
#' Statistics, University of Wisconsin--Madison.
#'
#' Dahl, D. B. and Newcomb, S. (2022). Sequentially allocated merge-split
#' samplers for conjugate Bayesian nonparametric models. *Journal of
#' Statistical Computation and Simulation*, 92, 1487--1511.
#' @seealso [sample_posterior()]
#' @examples
#' dp_control(m = 5)
#' dp_control(xi = "geometric", kappa = 0.7)
#' dp_control(proposal = "sams", moves = 2)
#' @export
dp_control <- function(m = 3, xi = c("dependent", "geometric"), kappa = 0.5,
                       t = 5, moves = 1, sc_moves = 4,
                       proposal = c("sams", "restricted_gibbs")) {
  m <- check_count_max(m, "m", 1L, 1000, "auxiliary components")
  xi <- match_choice(xi, c("dependent", "geometric"), "xi")
  kappa <- check_prob(kappa, "kappa")
  t <- check_count_max(t, "t", 0L, 1000, "restricted Gibbs scans")
  moves <- check_count_max(moves, "moves", 0L, 1000, "split-merge proposals per scan")
  sc_moves <- check_count_max(sc_moves, "sc_moves", 0L, 1000, "split / merge proposals per sweep")
  proposal <- match_choice(proposal, c("sams", "restricted_gibbs"), "proposal")
  structure(list(m = m, xi = xi, kappa = as.double(kappa), t = t, moves = moves,
                 sc_moves = sc_moves, proposal = proposal),
            class = "mcmix_dp_control")
}

#' @export
format.mcmix_dp_control <- function(x, ...) {
  c(sprintf("neal8:       m = %d auxiliary components", x$m),
    sprintf("slice:       xi = %s%s", dQuote(x$xi, FALSE),
            if (x$xi == "geometric") sprintf(", kappa = %s", format(x$kappa)) else ""),
    if (identical(x$proposal, "sams"))
      sprintf("split_merge: sequentially allocated (SAMS) proposals, moves = %d per scan",
              x$moves)
    else sprintf("split_merge: t = %d restricted Gibbs scans, moves = %d per scan", x$t, x$moves),
    sprintf("subcluster:  sc_moves = %d split / merge proposals per sweep",
            if (is.null(x$sc_moves)) 4L else x$sc_moves))
}

#' @export
print.mcmix_dp_control <- function(x, ...) {
  cat("DP mixture sampler settings\n", paste0("  ", format(x), "\n"), sep = "")
  invisible(x)
}

# Does the family have a closed-form predictive (all samplers) or only a
# parameter update (the DP algorithms without `conjugate_only`)?
# (registered families are asked through the registry, so that plugin
# families and mcmix_family() objects are classified too)
family_is_conjugate <- function(family) {
  if (isTRUE(family$nonconjugate)) return(FALSE)
  if (is.character(family$name) && length(family$name) == 1L &&
      family$name %in% mcmix_families())
    return(.Call(C_ffi_family_conjugate, family$name))
  TRUE
}

check_family_algorithm <- function(model, algorithm) {
  is_dp <- inherits(model, "mcmix_dp_mixture")
  row <- if (is_dp) dp_algorithms[[algorithm]]
  if (family_is_conjugate(model$family)) {
    if (is_dp && !row$random_discount && inherits(model$discount, "mcmix_beta_prior"))
      stop(sprintf(paste0("`algorithm = \"%s\"` does not sample the discount: give ",
                          "`discount` a fixed value, or use %s."), algorithm,
                   or_list(names(Filter(function(r) r$random_discount, dp_algorithms)))),
           call. = FALSE)
    return(invisible())
  }
  if (!is_dp || row$conjugate_only)
    stop(sprintf(paste0("the non-conjugate family %s needs a dp_mixture() and ",
                        "`algorithm = %s`, not %s."),
                 family_label(model$family),
                 or_list(names(Filter(function(r) !r$conjugate_only, dp_algorithms))),
                 if (is_dp) dQuote(algorithm, FALSE) else "a finite mixture"), call. = FALSE)
  invisible()
}

# The budget of the slice sampler: c(bytes, label evaluations per sweep)
# (options `mcmix.memory_budget` and `mcmix.work_budget`, ?run_kernel); the
# engine refuses to instantiate more than
# min(bytes / bytes per stick, max(1000, work / N)) sticks. Settings that
# need more sticks whatever the data are refused here, before sampling:
# about alpha log(alpha N) sticks for a DP with fixed alpha > 1 (the smallest
# slice is about min weight / N, the weights about 1 / alpha), log(N) /
# (1 - kappa) with geometric slices.
slice_budget <- function(model, control, N) {
  budget <- c(memory_budget(), work_budget())
  sticks <- max(1000, budget[2L] / N)
  refuse <- function(arg, need)
    stop(sprintf(paste0("%s needs about %s sticks of the slice sampler, beyond the budget ",
                        "of %s (option `mcmix.work_budget` = %.3g label evaluations per ",
                        "sweep, over N = %d observations): lower %s, use another ",
                        "`algorithm`, or raise the option."),
                 arg, format_count(need), format_count(sticks), budget[2L], N, arg),
         call. = FALSE)
  if (is.numeric(model$alpha) && model$alpha * log(max(model$alpha, 1) * (N + 1)) > sticks)
    refuse("`alpha`", model$alpha * log(max(model$alpha, 1) * (N + 1)))
  if (identical(control$xi, "geometric") && log(N + 1) / (1 - control$kappa) > sticks)
    refuse("dp_control(kappa = )", log(N + 1) / (1 - control$kappa))
  # Pitman-Yor: the mass beyond stick J is about J^(-(1 - d) / d), so the
  # sticks reach mass 1 - 1/N only from J = N^(d / (1 - d))
  d <- model$discount
  if (is.numeric(d) && d > 0 && !identical(control$xi, "geometric") &&
      d / (1 - d) * log(N + 1) > log(sticks))
    refuse("`discount`", exp(min(700, d / (1 - d) * log(N + 1))))
  budget
}

dp_kernel <- function(model, prepared, algorithm, init, control) {
  if (is.null(control)) control <- dp_control()
  row <- dp_algorithms[[algorithm]]
  N <- nrow(prepared$x)
  hyper <- prepared$hyper
  random_alpha <- inherits(model$alpha, "mcmix_gamma_prior")
  random_d <- inherits(model$discount, "mcmix_beta_prior")
  spec <- list(
    family = prepared$name, dim = as.integer(prepared$dim),
    hyper = if (is.list(hyper)) hyper else as.double(hyper), algorithm = algorithm,
    alpha_prior = if (random_alpha) c(model$alpha$shape, model$alpha$rate) else numeric(),
    discount_prior = if (random_d) c(model$discount$a, model$discount$b) else numeric(),
    control = c(as.list(vapply(row$control(control, model, N), as.double, 0)),
                # tests only (dp_control_testing()): verify the state after every move
                if (isTRUE(control$check_moves)) list(check_moves = 1)),
    # labels of the kept draws are returned only when the fit keeps them
    # (N integers per kept draw: 4 MB each at N = 1e6)
    store_labels = !isFALSE(control$store_labels),
    # labels = "online": list(subset, max_slots) (R/mixture_online.R)
    online = control$online)
  prepared <- NULL   # the kernel holds no data (mixture_kernel(), R/mixture.R)
  alpha0 <- if (random_alpha) model$alpha$shape / model$alpha$rate else as.double(model$alpha)
  d0 <- if (random_d) model$discount$a / (model$discount$a + model$discount$b)
        else model$discount
  model0 <- model
  model0$discount <- d0
  state0 <- function(labels)
    list(labels = labels, alpha = alpha0, discount = d0,
         params = NULL, aux = NULL, stats = NULL, n_accept = 0, n_prop = 0, online = NULL)
  # init = "subsample": the start is made on the data (R/mixture_warm.R)
  warm <- if (is_warm_start(init)) warm_start_settings(N)
  init_on <- if (!is.null(warm))
    warm_start_init_on(spec, state0,
                       as.list(vapply(dp_algorithms$split_merge$control(control, model, warm$m),
                                      as.double, 0)), warm)
  init_fun <- if (is.null(warm)) mixture_init(model0, N, init)
  trace_names <- c("n_clusters", if (random_alpha) "alpha", if (random_d) "discount",
                   "log_lik")
  mixture_kernel(
    name = paste0("dp_", algorithm),
    init = if (is.null(warm)) function(chain) state0(init_fun(chain, alpha0))
           else function(chain) unbound_step(),
    init_on = init_on,
    init_label = warm$label,
    init_deferred = !is.null(warm),   # a chain an interrupt never reached: R/chains.R
    step_on = function(xe, xe_rows) function(state, n, thin, offset, warmup, workspace = NULL) {
      sp <- spec
      sp$x_rows <- xe_rows
      sp$workspace <- workspace   # memory held across chunks (R/chains_workspace.R)
      # OpenMP's thread pool does not survive fork(): a forked chain (cores > 1)
      # runs its parallel passes on one thread (same draws, see in_forked_child())
      if (isTRUE(sp$control$threads > 1) && in_forked_child()) sp$control$threads <- 1
      if (!"online" %in% names(state)) state["online"] <- list(NULL)   # a state saved before it
      r <- .Call(C_ffi_dp_step, sp, xe, state, chunk_ctrl(n, thin, offset, warmup))
      list(state = r$state, draws = list(traces = r$traces, labels = r$labels,
                                         labels_subset = r$labels_subset, extra = NULL))
    },
    trace_names = trace_names,
    spec = spec, N = N,
    workspace = !is.list(hyper),   # not for R-function families (callbacks into R)
    # only some algorithms accept or reject proposals; the others carry
    # zero counters in their state (read by acceptance())
    counters = row$counters,
    carried_params = row$params)
}

# TRUE in a process forked by the parallel package (mclapply, mcparallel,
# future's multicore backend), where OpenMP threads must not be started:
# libgomp's pool of the parent is not carried into the child and a parallel
# region there can hang.
in_forked_child <- function() {
  is_child <- tryCatch(utils::getFromNamespace("isChild", "parallel"),
                       error = function(e) function() FALSE)
  isTRUE(is_child())
}

# Number of OpenMP threads of a chain (argument `threads`).
check_threads <- function(threads) {
  check_count_max(threads, "threads", 1L, 1024, "threads")
}

# The threads a run starts: at most `threads`, and no more than the cores
# idle when it starts (Linux: /proc/stat over 50 ms; elsewhere `threads`).
# Why: OpenMP threads wait at the ~70 barriers of a sub-cluster sweep by
# spinning, and a thread whose core is held by another process turns each
# barrier into a wait for the scheduler (10x slower than one thread on a
# 2-core machine with one core busy); the wait policy cannot be changed
# once OpenMP has started.  The draws do not depend on the thread count.
# Option `mcmix.threads_adapt = FALSE` keeps `threads` as given.
# Without OpenMP (a build with SHLIB_OPENMP_CFLAGS empty, or
# `options(mcmix.openmp = FALSE)`) a run has one thread, and the session is
# told once (a message of class "mcmix_message_threads").
threads_available <- function(threads) {
  if (threads > 1L && !openmp_available()) {
    if (!isTRUE(threads_told$no_openmp)) {
      threads_told$no_openmp <- TRUE
      msg <- sprintf(paste0("mcmix was built without OpenMP: `threads` = %d runs on one ",
                            "thread (the draws are the same). This message is shown once ",
                            "per session.\n"), threads)
      message(structure(list(message = msg, call = NULL),
                        class = c("mcmix_message_threads", "message", "condition")))
    }
    return(1L)
  }
  if (threads <= 1L || !mcmix_option("threads_adapt")) return(threads)
  idle <- idle_cores()
  if (is.na(idle)) return(threads)
  max(1L, min(threads, as.integer(floor(idle + 0.25))))
}

threads_told <- new.env(parent = emptyenv())

# Whether the package was built with OpenMP (and `mcmix.openmp` is TRUE).
openmp_available <- function() isTRUE(.Call(C_ffi_openmp)) && mcmix_option("openmp")

# Cores idle over `wait` seconds (NA where /proc/stat cannot be read, or
# with `options(mcmix.proc_stat = FALSE)`).
idle_cores <- function(wait = 0.05) {
  if (!mcmix_option("proc_stat")) return(NA_real_)
  snap <- function() {
    l <- tryCatch(readLines("/proc/stat", n = 1L, warn = FALSE), error = function(e) "")
    v <- suppressWarnings(as.numeric(strsplit(trimws(l), "[[:space:]]+")[[1L]][-1L]))
    if (length(v) < 5L || anyNA(v[1:5])) return(NULL)
    c(idle = v[4L] + v[5L], total = sum(v[1:min(8L, length(v))]))
  }
  a <- snap()
  if (is.null(a)) return(NA_real_)
  Sys.sleep(wait)
  b <- snap()
  ncores <- tryCatch(parallel::detectCores(logical = TRUE), error = function(e) NA)
  if (is.null(b) || is.na(ncores) || b[["total"]] <= a[["total"]]) return(NA_real_)
  ncores * (b[["idle"]] - a[["idle"]]) / (b[["total"]] - a[["total"]])
}

# The DP algorithm: the one given, or by default, for a conjugate family,
# "subcluster" for large data (at least mcmix_option("subcluster_min_n"),
# 20000 by default, observations) and "split_merge" (SAMS proposals between collapsed
# Gibbs scans) for smaller data; "collapsed" otherwise (which refuses a
# non-conjugate family, naming the algorithms that take it).
dp_default_algorithm <- function(algorithm, missing, model, data) {
  if (!missing) return(check_algorithm(algorithm, names(dp_algorithms)))
  n <- NROW(data)
  big <- is.numeric(n) && length(n) == 1L &&
    n >= mcmix_option("subcluster_min_n")
  if (!family_is_conjugate(model$family)) return("collapsed")
  if (big) "subcluster" else "split_merge"
}
