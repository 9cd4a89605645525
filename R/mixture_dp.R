# Further samplers for Dirichlet process and Pitman-Yor mixtures
# (src/mixture_neal8.c, src/mixture_slice.c, src/mixture_splitmerge.c,
# src/mixture_discount.c through src/ffi_mixture_dp.c): the Pitman-Yor
# discount and its Beta prior, the algorithms' settings, and their kernel.
#
# Sampler state of one chain (a plain list):
#   labels    integer vector (N), 0-based clusters in the engine's internal
#             order; for "slice" the stick of each observation (sticks may
#             be empty), so that the state is exactly the chain's state;
#   alpha, discount  current values;
#   params    "neal8": the psize x K parameters of the clusters (NULL in a
#             fresh state: drawn given the members);
#   stats     the clusters' stats blocks as raw bytes (NULL when fresh);
#   n_accept, n_prop  split-merge acceptance counters (zero, and ignored by
#             acceptance(), for the other algorithms).
# Traces: n_clusters, alpha (Gamma prior), discount (Beta prior), log_lik
# (the collapsed log p(x | partition) for conjugate families, and
# log p(x | z, theta) for non-conjugate ones under "neal8").

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
#' @param t `"split_merge"`: intermediate restricted Gibbs scans building
#'   the launch state (Jain and Neal 2004), between 0 and 1000. With `t = 0`
#'   the launch state is the random split itself, which is still a valid
#'   Metropolis-Hastings proposal (mixing is usually worse).
#' @param moves `"split_merge"`: split-merge proposals before each
#'   collapsed Gibbs scan, between 0 and 1000; `moves = 0` turns the
#'   split-merge moves off (plain collapsed Gibbs sampling).
#' @param sc_moves `"subcluster"`: split / merge proposals per sweep (each
#'   costs one pass over the members of the clusters involved), between 0
#'   and 1000.
#' @return An object of class `mcmix_dp_control`.
#' @seealso [sample_posterior()]
#' @examples
#' dp_control(m = 5)
#' dp_control(xi = "geometric", kappa = 0.7)
#' @export
dp_control <- function(m = 3, xi = c("dependent", "geometric"), kappa = 0.5,
                       t = 5, moves = 1, sc_moves = 4) {
  m <- check_count_max(m, "m", 1L, 1000, "auxiliary components")
  xi <- match_choice(xi, c("dependent", "geometric"), "xi")
  kappa <- check_prob(kappa, "kappa")
  t <- check_count_max(t, "t", 0L, 1000, "restricted Gibbs scans")
  moves <- check_count_max(moves, "moves", 0L, 1000, "split-merge proposals per scan")
  sc_moves <- check_count_max(sc_moves, "sc_moves", 0L, 1000, "split / merge proposals per sweep")
  structure(list(m = m, xi = xi, kappa = as.double(kappa), t = t, moves = moves,
                 sc_moves = sc_moves),
            class = "mcmix_dp_control")
}

#' @export
format.mcmix_dp_control <- function(x, ...) {
  c(sprintf("neal8:       m = %d auxiliary components", x$m),
    sprintf("slice:       xi = %s%s", dQuote(x$xi, FALSE),
            if (x$xi == "geometric") sprintf(", kappa = %s", format(x$kappa)) else ""),
    sprintf("split_merge: t = %d restricted Gibbs scans, moves = %d per scan", x$t, x$moves),
    sprintf("subcluster:  sc_moves = %d split / merge proposals per sweep",
            if (is.null(x$sc_moves)) 4L else x$sc_moves))
}

#' @export
print.mcmix_dp_control <- function(x, ...) {
  cat("DP mixture sampler settings\n", paste0("  ", format(x), "\n"), sep = "")
  invisible(x)
}

# Does the family have a closed-form predictive (all samplers) or only a
# parameter update (DP "neal8")?
# (registered families are asked through the registry, so that plugin
# families and mcmix_family() objects are classified too)
family_is_conjugate <- function(family) {
  if (isTRUE(family$nonconjugate)) return(FALSE)
  if (identical(family$name, "r_family")) return(FALSE)
  if (is.character(family$name) && length(family$name) == 1L &&
      family$name %in% mcmix_families())
    return(.Call(C_ffi_family_conjugate, family$name))
  TRUE
}

check_family_algorithm <- function(model, algorithm) {
  if (family_is_conjugate(model$family)) {
    if (inherits(model, "mcmix_dp_mixture") && algorithm == "slice" &&
        inherits(model$discount, "mcmix_beta_prior"))
      stop("`algorithm = \"slice\"` does not sample the discount: give `discount` ",
           "a fixed value, or use \"collapsed\", \"neal8\" or \"split_merge\".",
           call. = FALSE)
    return(invisible())
  }
  if (!inherits(model, "mcmix_dp_mixture") || algorithm != "neal8")
    stop(sprintf(paste0("the non-conjugate family %s needs a dp_mixture() and ",
                        "`algorithm = \"neal8\"`, not %s."),
                 family_label(model$family),
                 if (inherits(model, "mcmix_dp_mixture")) dQuote(algorithm, FALSE)
                 else "a finite mixture"), call. = FALSE)
  invisible()
}

# The samplers of this file serve everything but the plain collapsed DP
# sampler with a fixed discount (mixture_kernel(), R/mixture.R).
dpx_needed <- function(model, algorithm) {
  inherits(model, "mcmix_dp_mixture") &&
    (algorithm != "collapsed" || inherits(model$discount, "mcmix_beta_prior"))
}

dpx_kernel <- function(model, prepared, algorithm, init, control) {
  if (is.null(control)) control <- dp_control()
  xt <- t(prepared$x)   # the only copy of the data (family_prepare() makes none)
  if (!is.double(xt)) storage.mode(xt) <- "double"
  N <- ncol(xt)
  random_alpha <- inherits(model$alpha, "mcmix_gamma_prior")
  random_d <- inherits(model$discount, "mcmix_beta_prior")
  spec <- list(
    family = prepared$name, dim = as.integer(prepared$dim),
    hyper = as.double(prepared$hyper), algorithm = algorithm,
    alpha_prior = if (random_alpha) c(model$alpha$shape, model$alpha$rate) else numeric(),
    discount_prior = if (random_d) c(model$discount$a, model$discount$b) else numeric(),
    m_aux = as.integer(control$m), geometric = as.integer(control$xi == "geometric"),
    kappa = control$kappa, t = as.integer(control$t), moves = as.integer(control$moves),
    sc_moves = as.integer(if (is.null(control$sc_moves)) 4L else control$sc_moves),
    threads = as.integer(if (is.null(control$threads)) 1L else control$threads),
    # labels of the kept draws are returned only when the fit keeps them
    # (N integers per kept draw: 4 MB each at N = 1e6)
    store_labels = !isFALSE(control$store_labels))
  rfam <- if (identical(prepared$name, "r_family")) r_family_spec(prepared$family) else NULL
  alpha0 <- if (random_alpha) model$alpha$shape / model$alpha$rate else as.double(model$alpha)
  d0 <- if (random_d) model$discount$a / (model$discount$a + model$discount$b)
        else model$discount
  model0 <- model
  model0$discount <- d0
  init_fun <- mixture_init(model0, N, init)
  trace_names <- c("n_clusters", if (random_alpha) "alpha", if (random_d) "discount",
                   "log_lik")
  new_kernel(
    name = paste0("dp_", algorithm),
    init = function(chain) {
      list(labels = init_fun(chain, alpha0), alpha = alpha0, discount = d0,
           params = NULL, stats = NULL, n_accept = 0, n_prop = 0)
    },
    step = function(state, n, thin, offset, warmup) {
      sp <- spec
      # OpenMP's thread pool does not survive fork(): a forked chain (cores > 1)
      # runs its parallel passes on one thread (same draws, see check_threads())
      if (sp$threads > 1L && in_forked_child()) sp$threads <- 1L
      r <- .Call(C_ffi_dpx_step, sp, xt, state, as.integer(n), as.integer(thin),
                 as.integer(offset), as.logical(warmup), rfam)
      list(state = r$state, draws = list(traces = r$traces, labels = r$labels, extra = NULL))
    },
    trace_names = trace_names,
    spec = spec, N = N,
    # only split-merge proposals are accepted or rejected; the other
    # algorithms carry zero counters in their state (read by acceptance())
    counters = algorithm %in% c("split_merge", "subcluster"))
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

# The DP algorithm: the one given, or by default "subcluster" for large
# data (a conjugate family, at least getOption("mcmix.subcluster_min_n",
# 20000) observations), else "collapsed".
dp_default_algorithm <- function(algorithm, missing, model, data) {
  choices <- c("collapsed", "neal8", "slice", "split_merge", "subcluster")
  if (!missing) return(check_algorithm(algorithm, choices))
  n <- NROW(data)
  big <- is.numeric(n) && length(n) == 1L &&
    n >= getOption("mcmix.subcluster_min_n", 20000)
  if (big && family_is_conjugate(model$family)) "subcluster" else "collapsed"
}
