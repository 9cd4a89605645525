# Mixture models: finite Bayesian mixtures and Dirichlet process mixtures,
# the finite samplers (src/mixture_finite.c through src/ffi_mixture.c; the
# DP ones are in R/mixture_dp.R) and the fit object they produce.
#
# Sampler state of one finite-mixture chain (a plain list, see
# finite_kernel()):
#   labels   integer vector (N), component of each observation, 0-based;
#   weights  finite "gibbs": last mixture weights drawn (else NULL);
#   params   finite "gibbs" / "collapsed_weights": last component
#            parameters drawn, a param_size x K matrix (else NULL);
#   stats    the clusters' sufficient-statistics blocks as raw bytes (in the
#            family's own layout), so the next chunk continues bit for bit;
#            NULL in a fresh state (computed from the labels). The engine
#            recomputes them from scratch every 64 sweeps (numerical
#            stability; a rule on the iteration number, not on chunks).
# Traces: n_clusters (occupied clusters) and log_lik: log p(x | z, theta)
# for the samplers that draw theta ("gibbs", "collapsed_weights"), the
# collapsed log p(x | partition) = sum over
# clusters of the family's log marginal likelihood otherwise.

# ---------------------------------------------------------------------------
# Priors on the concentration
# ---------------------------------------------------------------------------

#' Gamma prior on a concentration parameter
#'
#' A Gamma(shape, rate) prior (mean `shape / rate`) for the concentration
#' `alpha` of [dp_mixture()]; `alpha` is then sampled with the
#' auxiliary-variable update of Escobar and West (1995).
#'
#' @param shape,rate Positive numbers.
#' @return An object of class `mcmix_gamma_prior`.
#' @examples
#' gamma_prior(2, 4)
#' dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1))
#' @export
gamma_prior <- function(shape, rate) {
  check_positive(shape, "shape")
  check_positive(rate, "rate")
  structure(list(shape = as.double(shape), rate = as.double(rate)),
            class = "mcmix_gamma_prior")
}

#' @export
print.mcmix_gamma_prior <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.mcmix_gamma_prior <- function(x, ...) {
  sprintf("Gamma(shape = %s, rate = %s)", format(x$shape), format(x$rate))
}

# A short description of a bad value for error messages.
check_family <- function(family) {
  if (!inherits(family, "mcmix_family"))
    stop(sprintf("`family` must be a component family such as gaussian_niw(), not %s.",
                 describe_value(family)), call. = FALSE)
  family
}

family_label <- function(family) {
  f <- tryCatch(format(family), error = function(e) NULL)
  if (is.character(f) && length(f) == 1L && !grepl("^list\\(", f)) return(f)
  if (!is.null(family$name)) family$name else class(family)[1L]
}

# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------

#' Finite Bayesian mixture model
#'
#' A mixture of `K` components from a conjugate component `family` (a
#' non-conjugate family needs [dp_mixture()] with `algorithm = "neal8"`), with
#' mixture weights `w ~ Dirichlet(alpha / K, ..., alpha / K)` (or
#' `Dirichlet(alpha)` when `alpha` is a vector of length `K`). Fit it with
#' [sample_posterior()].
#'
#' @param family A component family, e.g. [gaussian_niw()].
#' @param K Number of components (a whole number between 1 and 10000).
#' @param alpha A positive number (the total concentration of a symmetric
#'   Dirichlet prior, each weight getting `alpha / K`), or a vector of `K`
#'   positive Dirichlet parameters.
#' @return An object of class `mcmix_finite_mixture`.
#' @seealso [dp_mixture()], [sample_posterior()]
#' @examples
#' finite_mixture(gaussian_niw(), K = 3)
#' finite_mixture(poisson_gamma(), K = 2, alpha = c(1, 4))
#' @export
finite_mixture <- function(family, K, alpha = 1) {
  check_family(family)
  K <- check_count_max(K, "K", 1L, 1e4, "components")
  if (!is.numeric(alpha) || !(length(alpha) %in% c(1L, K)) || anyNA(alpha) ||
      any(!is.finite(alpha)) || any(alpha <= 0))
    stop(sprintf("`alpha` must be a positive number or a vector of K = %d positive numbers, not %s.",
                 K, describe_value(alpha)), call. = FALSE)
  dir <- if (length(alpha) == 1L) rep(alpha / K, K) else as.double(alpha)
  structure(list(family = family, K = K, alpha = dir,
                 symmetric = length(alpha) == 1L),
            class = c("mcmix_finite_mixture", "mcmix_mixture_model", "mcmix_model"))
}

#' Dirichlet process mixture model
#'
#' An infinite mixture of components from a component `family` (conjugate
#' for every algorithm of [sample_posterior()], or non-conjugate with
#' `algorithm = "neal8"`) with a Dirichlet process prior of concentration
#' `alpha` (a number, or
#' a [gamma_prior()] under which `alpha` is sampled). Fit it with
#' [sample_posterior()].
#'
#' With `discount > 0` the prior is the two-parameter Pitman-Yor process:
#' a new observation joins cluster k with probability proportional to
#' `n_k - discount` and opens a new one with probability proportional to
#' `alpha + discount * K`. A [beta_prior()] on the discount makes it random
#' (sampled by slice sampling on its conditional given the partition).
#'
#' @param family A component family, e.g. [gaussian_niw()], a non-conjugate
#'   [gaussian_nonconj()] or an [r_family()] (these two with
#'   `algorithm = "neal8"` only).
#' @param alpha A positive number, or `gamma_prior(shape, rate)` (then
#'   `discount` must be 0). With a fixed `discount > 0`, any number greater
#'   than `-discount`; with a random discount, a positive number.
#' @param discount The Pitman-Yor discount: a number in `[0, 1)` (0, the
#'   default, is the Dirichlet process) or `beta_prior(a, b)`.
#' @return An object of class `mcmix_dp_mixture`.
#' @seealso [finite_mixture()], [sample_posterior()], [rcrp()]
#' @examples
#' dp_mixture(gaussian_niw(), alpha = 1)
#' dp_mixture(poisson_gamma(), alpha = gamma_prior(2, 1))
#' dp_mixture(gaussian_niw(), alpha = 1, discount = 0.25)
#' dp_mixture(gaussian_niw(), alpha = 1, discount = beta_prior(1, 3))
#' @export
dp_mixture <- function(family, alpha = 1, discount = 0) {
  check_family(family)
  discount <- check_discount(discount, alpha)   # R/mixture_dp.R
  if (!(is.numeric(discount) && discount > 0))
    alpha <- check_conc_or_prior(alpha, "alpha")
  if (is.numeric(alpha)) alpha <- as.double(alpha)
  structure(list(family = family, alpha = alpha, discount = discount),
            class = c("mcmix_dp_mixture", "mcmix_mixture_model", "mcmix_model"))
}

#' @export
print.mcmix_finite_mixture <- function(x, ...) {
  cat("Finite mixture model with K = ", x$K, " components\n", sep = "")
  cat("  family:  ", family_label(x$family), "\n", sep = "")
  if (isTRUE(x$symmetric))
    cat("  weights: symmetric Dirichlet(", format(x$alpha[1L]), ")\n", sep = "")
  else
    cat("  weights: Dirichlet(", paste(format(x$alpha), collapse = ", "), ")\n", sep = "")
  invisible(x)
}

#' @export
print.mcmix_dp_mixture <- function(x, ...) {
  py <- !is.numeric(x$discount) || x$discount > 0
  cat(if (py) "Pitman-Yor" else "Dirichlet process", "mixture model\n")
  cat("  family: ", family_label(x$family), "\n", sep = "")
  cat("  alpha:  ", if (inherits(x$alpha, "mcmix_gamma_prior"))
    format(x$alpha) else format(x$alpha), "\n", sep = "")
  if (py) cat("  discount: ", format(x$discount), "\n", sep = "")
  invisible(x)
}

# ---------------------------------------------------------------------------
# The run verb
# ---------------------------------------------------------------------------

#' Sample from the posterior of a model
#'
#' The one verb that fits every model of the package by Markov chain Monte
#' Carlo. Methods exist for [finite_mixture()] and [dp_mixture()] models
#' (and for the other models of the package).
#'
#' @param model A model object, e.g. from [dp_mixture()].
#' @param data The data: a numeric vector (one observation per element), a
#'   numeric matrix or data frame (one observation per row), or what the
#'   family needs (binary or count matrices); for a [product_family()] or
#'   [auto_family()], a data frame with columns of any type. Missing values
#'   (`NA`) are modelled with a conjugate family: integrated out exactly,
#'   or, for partly missing rows of a joint Gaussian family, imputed at each
#'   sweep (see [imputed_draws()]). Non-finite values, a wrong number of
#'   columns or fewer than 2 observations are refused.
#' @param iter Number of iterations per chain kept after burn-in (before
#'   thinning).
#' @param burnin Number of burn-in iterations per chain, run before the kept ones
#'   and not kept (default `floor(iter / 2)`; see [mcmix-run-settings]).
#' @param thin Keep every `thin`-th iteration.
#' @param chains Number of chains.
#' @param algorithm The sampler. Finite mixtures: `"collapsed"` (weights and
#'   component parameters integrated out; the default), `"collapsed_weights"`
#'   (weights integrated out, component parameters sampled) or `"gibbs"`
#'   (assignments, weights and parameters in turn). Dirichlet process
#'   mixtures: `"collapsed"` (Chinese restaurant process Gibbs sampler),
#'   `"neal8"` (Neal's algorithm 8 with auxiliary components; the one for
#'   non-conjugate families), `"slice"` (slice sampler on the stick-breaking
#'   representation, Kalli, Griffin and Walker 2011) or `"split_merge"`
#'   (split-merge moves between collapsed Gibbs scans, proposed by Jain and
#'   Neal's restricted Gibbs scans or by Dahl's sequential allocation, see
#'   `dp_control(proposal = )`) or `"subcluster"` (the parallel sub-cluster split-merge
#'   sampler after Chang and Fisher 2013: restricted Gibbs over the
#'   instantiated clusters, parallel over observations, with split and
#'   merge proposals from two sub-clusters of each cluster); see
#'   [dp_control()] for their settings. `"slice"` is the cheapest per sweep
#'   but, like every conditional sampler that moves one label at a time
#'   given the component parameters, mixes slowly over the number of
#'   clusters on large data: started from one cluster it opens a new
#'   cluster only when a parameter drawn from the prior suits some points
#'   better than the big cluster (at N = 1e4 it can take hundreds of sweeps
#'   to separate well-separated clusters), and started from a prior draw
#'   two clusters that should be one merge only when one of them empties
#'   point by point; prefer `"subcluster"` or `"collapsed"` there. When `algorithm` is not given, a
#'   Dirichlet process mixture of a conjugate family with at least
#'   `getOption("mcmix.subcluster_min_n", 20000)` observations uses
#'   `"subcluster"`, smaller data `"split_merge"` (one sequentially
#'   allocated split-merge proposal, Dahl 2003, before each collapsed Gibbs
#'   scan). The number of
#'   sticks the slice sampler instantiates is bounded by the options
#'   `mcmix.work_budget` and `mcmix.memory_budget` (see [run_kernel()]):
#'   an `alpha`, `discount` or `kappa` that needs more is refused.
#' @param control For Dirichlet process mixtures, settings of the
#'   algorithm from [dp_control()].
#' @param init Initial clustering: `"prior"` (a draw from the prior over
#'   partitions; the default, except for `algorithm = "subcluster"`, see
#'   below), `"one"` (every observation in one cluster), `"subsample"`
#'   (Dirichlet process mixtures of a conjugate family: the partition that
#'   `algorithm = "split_merge"` reaches in
#'   `getOption("mcmix.warm_start_sweeps", 100)` sweeps from one cluster on
#'   an evenly spaced subsample of `getOption("mcmix.warm_start_m", 20000)`
#'   observations, its clusters of at least 5 members (and 0.1% of the
#'   subsample) kept, and every observation allocated to the cluster of
#'   largest size times posterior predictive density; drawn from each
#'   chain's own random stream, so the same for any number of threads or
#'   cores, and recorded in `fit$settings$init`), an integer vector of
#'   labels (one per observation; for a finite mixture values in `1..K`
#'   are used as the components), or a `function(chain)` returning such a
#'   vector. `algorithm = "subcluster"` grows clusters by splits and starts
#'   by default from `"one"`, or from `"subsample"` with at least
#'   `getOption("mcmix.warm_start_n", 50000)` observations: from one
#'   cluster its first splits cut true clusters that lie between others,
#'   and on large data the pieces can stay apart for hundreds of sweeps.
#'   Only the starting state differs; the sampler is the same.
#' @param labels Keep the cluster labels of every kept iteration (needed by
#'   [partition_draws()], `predict()`, [cluster_profiles()]; with `FALSE`
#'   only the traces and each chain's final partition are kept). For a DP
#'   mixture, also `"online"`: keep (a) the labels of an evenly spaced
#'   subsample of the observations at every kept draw (observations
#'   `round(seq(1, N, length.out = S))`, with `S` at most
#'   `getOption("mcmix.label_subsample", 2000)` and within a quarter of the
#'   memory budget; in `fit$settings$label_subset`), on which [psm()],
#'   [partition()], [credible_ball()] and [plot_coclustering()] work, saying
#'   so; and (b) an online point estimate of the partition of all
#'   observations, a relabelled mode with the frequency of each
#'   observation's cluster ([online_partition()]). Neither changes the
#'   draws. The functions that need every label refuse such a fit with an
#'   error naming `labels`. When `labels` is not given and the labels of
#'   all kept draws (8 bytes per observation and draw) would take more than
#'   half of `getOption("mcmix.memory_budget")` (4e9 bytes), a DP mixture
#'   uses `"online"` and a message says so; `labels = TRUE` given
#'   explicitly beyond the budget is an error naming `labels`.
#' @param psm Accumulate the posterior similarity matrix while sampling
#'   (a dense `N x N` matrix: refused before sampling when its `8 N^2` bytes
#'   exceed `getOption("mcmix.psm_max_bytes", 1e9)`, see [psm()]).
#' @param cores,backend,progress Run settings, as every sampler takes them
#'   (see [mcmix-run-settings] and [run_kernel()]): the number of chains run
#'   at the same time (option `mcmix.cores`), how they run in parallel
#'   (option `mcmix.backend`), and whether to report progress (default
#'   `interactive()`).
#' @param threads Number of threads (OpenMP) for the data-parallel parts of
#'   a sweep within each chain (`algorithm = "subcluster"`; the other
#'   algorithms are sequential). The draws do not depend on it: random
#'   numbers in parallel regions come from fixed blocks of observations,
#'   each with its own stream seeded from R's generator. Default
#'   `getOption("mcmix.threads", 1)`. On Linux a run starts no more
#'   threads than there are idle cores when it starts (measured over 50
#'   ms), since a thread waiting for a core held by another process slows
#'   every sweep; `options(mcmix.threads_adapt = FALSE)` keeps `threads`
#'   as given.
#' @param cl Dirichlet process mixtures: run one chain over the workers of
#'   this cluster, the data cut into shards that stay on the workers (see
#'   "Data larger than one machine" below): a cluster from
#'   [parallel::makePSOCKcluster()] or `parallelly::makeClusterPSOCK()`
#'   (on this machine or on other hosts), or `"future"` for the workers of
#'   the current `future::plan(cluster, workers = cl)`. `NULL` (the
#'   default) runs in this session; with `shards` or a [shard_source()] the
#'   same sharded sampler runs in process, with the same draws.
#' @param shards With `cl`, the number of shards an in-memory `data` matrix
#'   is cut into (default: shards of `getOption("mcmix.shard_rows")` rows).
#'   The draws depend on the shards, never on the number of workers.
#' @param ... Passed to methods; unknown arguments are refused.
#' @section Data larger than one machine:
#'   With `cl` (or `shards`, or `data` a [shard_source()]), one chain of a
#'   Dirichlet or Pitman-Yor process mixture (a Gaussian family, a fixed
#'   discount) runs over shards of the data held by the workers of an R
#'   cluster for the whole run. Each shard is loaded once on its worker:
#'   from an in-memory matrix (cut and sent once), or from its source, files
#'   read by a reader or a function of the shard index, so that data larger
#'   than the session's memory never pass through it. Per sweep the session
#'   sends the clusters' parameters and weights and receives per-cluster
#'   sufficient statistics (O(K D^2) per shard); the labels stay on the
#'   workers ([shard_labels()] collects the last ones). The sampler is
#'   restricted Gibbs over the instantiated clusters, exact site by site,
#'   with sequentially allocated split / merge proposals (Dahl 2003) whose
#'   allocation visits the shards in order; every random number comes from
#'   the stream of a fixed block of observations and every statistic is
#'   combined in shard order, so the draws are the same for any number of
#'   workers and in process. A worker that dies ends the run with an error
#'   of class `mcmix_error_worker` naming it, whose fit keeps the draws made
#'   so far; `extend(fit, iter, cl = new_cluster)` continues on new workers
#'   (the shards reloaded from their sources). Ctrl-C is served between
#'   sweeps and returns the fit so far. To start workers on other hosts:
#'   `cl <- parallel::makePSOCKcluster(c("host1", "host2"))` (ssh access and
#'   mcmix installed on each host; `parallelly::makeClusterPSOCK()` offers
#'   more options); each worker may use `threads` OpenMP threads. A
#'   sharded sweep makes a dozen calls on the workers, so each call's
#'   latency counts: `parallelly::makeClusterPSOCK()` turns off the delay of
#'   small packets (TCP no-delay) on both ends; with
#'   `parallel::makePSOCKcluster()` set `options(socketOptions = "no-delay")`
#'   before it and pass `rscript_args = c("-e",
#'   shQuote("options(socketOptions = 'no-delay')"))`, or every call that
#'   answers more than a packet waits about 40 ms. See the
#'   vignette "Dirichlet process mixtures" for a worked example.
#' @return An `mcmix_fit` (class `mcmix_mixture_fit` for mixtures). Its
#'   traces are `n_clusters` (number of occupied clusters), `alpha` (when it
#'   has a prior) and `log_lik`: for `"gibbs"` and `"collapsed_weights"` the
#'   log-likelihood `log p(x | z, theta)` at the sampled parameters, for
#'   `"collapsed"` the marginal log-likelihood `log p(x | partition)` with
#'   the parameters integrated out.
#' @seealso [partition_draws()], [extend()]
#' @examples
#' set.seed(1)
#' x <- c(rnorm(30, -3), rnorm(30, 3))
#' fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 200,
#'                         progress = FALSE)
#' table(as.matrix(fit)[, "n_clusters"])
#' summary(fit)$n_clusters   # posterior of the number of clusters
#' fit2 <- sample_posterior(finite_mixture(gaussian_niw(), K = 2), x,
#'                          iter = 200, algorithm = "gibbs", progress = FALSE)
#' @export
sample_posterior <- function(model, data, ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  UseMethod("sample_posterior")
}

#' @export
sample_posterior.default <- function(model, data, ...) {
  stop(sprintf("`model` must be a model object such as dp_mixture(), not %s.",
               describe_value(model)), call. = FALSE)
}

#' @rdname sample_posterior
#' @export
sample_posterior.mcmix_finite_mixture <- function(
    model, data, iter = 1000, burnin = floor(iter / 2), thin = 1, chains = 1,
    algorithm = c("collapsed", "collapsed_weights", "gibbs"), init = "prior",
    progress = interactive(), labels = TRUE, psm = FALSE,
    cores = mcmix_option("cores"), backend = mcmix_option("backend"), ...) {
  check_dots(list(...))   # R/checks.R
  algorithm <- check_algorithm(algorithm, c("collapsed", "collapsed_weights", "gibbs"))
  mixture_run(model, data, iter, burnin, thin, chains, algorithm, init, progress,
              labels, psm, cores, backend, call = match.call())
}

#' @rdname sample_posterior
#' @export
sample_posterior.mcmix_dp_mixture <- function(
    model, data, iter = 1000, burnin = floor(iter / 2), thin = 1, chains = 1,
    algorithm = c("split_merge", "subcluster", "collapsed", "neal8", "slice"),
    init = "prior",
    progress = interactive(), labels = TRUE, psm = FALSE,
    cores = mcmix_option("cores"), control = dp_control(),
    threads = mcmix_option("threads"), backend = mcmix_option("backend"), cl = NULL,
    shards = NULL, ...) {
  check_dots(list(...))   # R/checks.R
  if (!is.null(cl) || !is.null(shards) || inherits(data, "mcmix_shard_source")) {
    # one chain over shards of the data (R/mixture_sharded.R)
    if (!is.null(control) && !inherits(control, "mcmix_dp_control"))
      stop_input(sprintf("`control` must come from dp_control(), not %s.",
                         describe_value(control)), "control")
    if (!missing(algorithm))
      stop_input("A sharded run has its own sampler: leave `algorithm` out.", "algorithm")
    if (check_count(cores, "cores", 1L) > 1L)
      stop_input(paste0("A sharded run's chains run one after another on the workers of `cl`: ",
                        "leave `cores` at 1."), "cores")
    return(sharded_run(model, data, cl, shards, iter, burnin, thin, chains,
                       if (missing(init)) NULL else init, check_flag(progress, "progress"),
                       control, check_threads(threads), call = match.call()))
  }
  algorithm <- dp_default_algorithm(algorithm, missing(algorithm), model, data)  # R/mixture_dp.R
  if (!inherits(control, "mcmix_dp_control"))
    stop(sprintf("`control` must come from dp_control(), not %s.", describe_value(control)),
         call. = FALSE)
  control$threads <- run_threads(threads)   # R/models.R
  # the sub-cluster sampler grows clusters by splits: start it from one
  # cluster (Chang and Fisher 2013) unless told otherwise
  # cluster (Chang and Fisher 2013) unless told otherwise; on large data
  # from the clusters found on a subsample (R/mixture_warm.R)
  if (missing(init) && algorithm == "subcluster")
    init <- if (warm_start_default(NROW(data))) warm_start_mark("subsample") else "one"
  # labels kept by default only within the memory budget, else those of a
  # subsample and an online estimate (R/chains_budget.R, R/mixture_online.R)
  labels <- labels_default(labels, !missing(labels), psm, chains, iter, thin, NROW(data))
  online <- identical(labels, "online")
  if (!online && !(is.logical(labels) && length(labels) == 1L && !is.na(labels)))
    stop_input(sprintf("`labels` must be TRUE, FALSE or \"online\", not %s.",
                       describe_value(labels)), "labels")
  control$online <- NULL
  if (online) {
    # (the settings checked before sizing the subsample)
    control$online <- online_settings(max(1, NROW(data)), check_count(chains, "chains", 1L),
                                      check_count(iter, "iter", 1L),
                                      check_count(thin, "thin", 1L))
    labels <- FALSE
  }
  control$store_labels <- !isFALSE(labels) || isTRUE(psm)
  fit <- mixture_run(model, data, iter, burnin, thin, chains, algorithm, init, progress,
                     labels, psm, cores, backend, call = match.call(), control = control)
  if (online) fit$settings$label_subset <- control$online$subset
  if (!is.null(fit$kernel$init_label)) fit$settings$init <- fit$kernel$init_label
  fit
}

mixture_run <- function(model, data, iter, burnin, thin, chains, algorithm, init,
                        progress, labels, psm, cores, backend, call, control = NULL) {
  check_family_algorithm(model, algorithm)   # R/mixture_dp.R
  prepared <- family_prepare(model$family, data, missing = TRUE)
  x <- prepared$x
  if (!is.matrix(x) || nrow(x) < 2L)
    stop("mcmix internal error: family_prepare() must return a matrix with >= 2 rows.",
         call. = FALSE)
  if (isTRUE(psm)) psm_check_budget(nrow(x), nrow(x), online = TRUE)  # before sampling
  blocks <- impute_blocks(prepared)                    # R/impute.R
  init <- warm_start_check(init, model, length(blocks) > 0L)   # R/mixture_warm.R
  kernel <- if (inherits(model, "mcmix_dp_mixture"))
    dp_kernel(model, prepared, algorithm, init, control)   # R/mixture_dp.R
  else finite_kernel(model, prepared, algorithm, init,
                     store_labels = !isFALSE(labels) || isTRUE(psm))
  if (length(blocks)) kernel <- impute_kernel(kernel, x, blocks)
  mixture <- if (inherits(model, "mcmix_dp_mixture")) "dp" else "finite"
  fit <- run_fit(kernel, iter = iter, burnin = burnin, thin = thin,
                 chains = chains, cores = cores, backend = backend,
                 progress = progress, labels = labels, psm = psm,
                 model = model, data = x, call = call,
                 kind = mixture, class = "mcmix_mixture_fit")   # R/models.R
  prepared$x <- NULL
  fit$family <- prepared
  fit$N <- nrow(x)
  fit$row_names <- data_row_names(data, nrow(x))
  fit$algorithm <- algorithm
  fit$mixture <- mixture
  fit
}

# The row names of the data of a fit (a data frame's unless automatic, a
# matrix's, a vector's names), kept for the memberships and classes of
# predict(); NULL when there are none.
data_row_names <- function(data, N) {
  rn <- if (is.data.frame(data)) {
    if (.row_names_info(data) > 0L) rownames(data)
  } else if (is.matrix(data)) rownames(data) else if (is.atomic(data)) names(data)
  if (length(rn) == N) as.character(rn)
}

# The kernel of a mixture (see R/chains.R for the contract), holding no
# data: a saved fit stores them once, in `fit$data`. `step_on(xe, rows)`
# makes the step reading the data as the engine does (the `x` and `rows`
# of mixture_engine_data()); the field `bind(data)` gives the step on
# `data` (the fit's, see fit_kernel() in R/chains.R). `...`: the other
# fields.
mixture_kernel <- function(name, init, step_on, ..., init_on = NULL) {
  new_kernel(name, init = init, step = unbound_step, ..., step_on = step_on,
             bind = function(data) {
               if (!is.matrix(data))
                 stop_input(sprintf(paste0("`data` must be the data matrix of the fit ",
                                           "(`fit$data`), not %s."), describe_value(data)),
                            "data")
               xe <- mixture_engine_data(data)
               # a start made on the data (`init_on(x, rows)`, R/mixture_warm.R)
               c(list(step = step_on(xe$x, xe$rows)),
                 if (!is.null(init_on)) list(init = init_on(xe$x, xe$rows)))
             })
}

# The kernel of a finite mixture sampler.
finite_kernel <- function(model, prepared, algorithm, init, store_labels = TRUE) {
  N <- nrow(prepared$x)
  spec <- list(
    family = prepared$name, dim = as.integer(prepared$dim),
    hyper = as.double(prepared$hyper), algorithm = algorithm,
    alpha = as.double(model$alpha), K = as.integer(model$K),
    store_labels = store_labels)
  prepared <- NULL   # the kernel holds no data (mixture_kernel())
  init_fun <- mixture_init(model, N, init)
  mixture_kernel(
    name = paste0("finite_", algorithm),
    init = function(chain) {
      list(labels = init_fun(chain, NA_real_), weights = NULL, params = NULL, stats = NULL)
    },
    step_on = function(xe, xe_rows) function(state, n, thin, offset, warmup, workspace = NULL) {
      sp <- spec
      sp$x_rows <- xe_rows
      sp$workspace <- workspace   # memory held across chunks (R/chains_workspace.R)
      r <- .Call(C_ffi_finite_step, sp, xe, state, chunk_ctrl(n, thin, offset, warmup))
      extra <- NULL   # the weights and parameters drawn, when the algorithm draws them
      if (!is.null(r$params) && nrow(r$traces)) {
        K <- spec$K
        extra <- lapply(seq_len(nrow(r$traces)), function(s) list(
          weights = if (!is.null(r$weights)) r$weights[s, ],
          params = matrix(r$params[s, ], ncol = K)))
      }
      list(state = r$state,
           draws = list(traces = r$traces, labels = r$labels, extra = extra))
    },
    trace_names = c("n_clusters", "log_lik"),
    spec = spec, N = N, workspace = TRUE)
}

# The data as the engine reads them (src/mixture_state.h, mcx_mix_x()):
# the N x D matrix itself, not copied, when D <= mixture_in_place_max_dim
# (each observation is gathered from its D columns, which costs nothing
# noticeable for small D); else a transposed D x N copy, whose observations
# are contiguous (cheaper for large D, where D strided loads per observation
# would touch D cache lines). list(x, rows): rows TRUE for the matrix
# itself. Integer data are converted to double (one copy).
mixture_in_place_max_dim <- function() 16L
mixture_engine_data <- function(x) {
  rows <- ncol(x) <= mixture_in_place_max_dim()
  if (!rows) x <- t(x)
  if (!is.double(x)) storage.mode(x) <- "double"
  list(x = x, rows = rows)
}

# function(chain, alpha0) giving initial labels (0-based, internal order).
mixture_init <- function(model, N, init) {
  is_dp <- inherits(model, "mcmix_dp_mixture")
  K <- if (is_dp) N else model$K
  check_labels <- function(z) {
    if (!is.numeric(z) || length(z) != N || anyNA(z) || any(z != floor(z)))
      stop(sprintf("`init` must give one whole-number label per observation (%d), not %s.",
                   N, describe_value(z)), call. = FALSE)
    if (is_dp) return(match(z, unique(z)) - 1L)
    if (all(z >= 1 & z <= K)) return(as.integer(z) - 1L)
    u <- unique(z)
    if (length(u) > K)
      stop(sprintf("`init` has %d distinct labels but the model has K = %d components.",
                   length(u), K), call. = FALSE)
    match(z, u) - 1L
  }
  if (is.function(init)) return(function(chain, alpha0) check_labels(init(chain)))
  if (is.numeric(init)) {
    z <- check_labels(init)
    return(function(chain, alpha0) z)
  }
  if (!is.character(init) || length(init) != 1L || !init %in% c("prior", "one"))
    stop_input(sprintf("`init` must be %s, a label vector or a function, not %s.",
                       if (is_dp) "\"prior\", \"one\", \"subsample\"" else "\"prior\", \"one\"",
                       describe_value(init)), "init")
  if (init == "one") return(function(chain, alpha0) integer(N))
  if (is_dp)
    function(chain, alpha0) rcrp(N, alpha0, discount = model$discount) - 1L
  else
    function(chain, alpha0) {
      g <- stats::rgamma(K, model$alpha)
      w <- if (all(g == 0)) rep(1 / K, K) else g / sum(g)
      sample.int(K, N, replace = TRUE, prob = w) - 1L
    }
}

# ---------------------------------------------------------------------------
# Draws of the partition
# ---------------------------------------------------------------------------

#' Posterior draws of the partition
#'
#' The cluster labels kept by a mixture sampler: one row per kept iteration
#' (chains stacked in order), one column per observation. Labels are
#' arbitrary cluster identifiers (compare partitions, not label values); in
#' finite mixtures they are the component numbers `1..K`.
#'
#' @param fit A mixture fit from [sample_posterior()].
#' @return An integer matrix, draws x observations, with attribute `chain`
#'   (the chain of each row).
#' @examples
#' set.seed(2)
#' fit <- sample_posterior(dp_mixture(gaussian_niw()), c(rnorm(10), rnorm(10, 5)),
#'                         iter = 50, chains = 2, progress = FALSE)
#' z <- partition_draws(fit)
#' dim(z)
#' @export
partition_draws <- function(fit) {
  check_fit_arg(fit, "fit")
  # the chains with kept draws (after an interrupt, a chain that never
  # started holds no labels; fit_usable() says so, or that none has draws)
  use <- which(fit_draw_counts(fit) > 0L)   # R/summary.R
  if (length(use) < length(fit$chains)) fit_usable(fit)   # R/chains.R
  labs <- lapply(fit$chains[use], `[[`, "labels")
  if (any(vapply(labs, is.null, logical(1))) ||
      isFALSE(fit$settings$labels))
    stop_no_labels(fit, "partition_draws()", "fit")   # R/mixture_online.R
  out <- do.call(rbind, labs)
  storage.mode(out) <- "integer"
  attr(out, "chain") <- rep(use, vapply(labs, nrow, integer(1)))
  out
}
