# Conversion of fits to coda's mcmc / mcmc.list and to the iterations x
# chains x variables arrays used by posterior and bayesplot.

#' @importFrom coda as.mcmc.list
#' @export
coda::as.mcmc.list

# as.mcmc() is not re-exported: R CMD check would take the re-exported
# as.mcmc.list() for an unregistered as.mcmc() method for lists. Both
# methods are registered, so coda::as.mcmc(fit) works, and so does
# as.mcmc(fit) once coda is attached.
#' @importFrom coda as.mcmc
NULL

# Per-chain trace matrices cut to the common number of draws.
fit_trace_matrices <- function(fit, quiet = FALSE) {
  fit <- fit_usable(fit, quiet)  # R/chains.R: the chains with draws
  n <- fit_common_draws(fit, quiet)
  nm <- fit_trace_names(fit)
  lapply(fit$chains, function(ch) {
    m <- ch$traces[seq_len(n), , drop = FALSE]
    storage.mode(m) <- "double"
    colnames(m) <- nm
    m
  })
}

# Iteration number (after burn-in counted as in the run) of the first kept
# draw: draws are iterations burnin + thin, burnin + 2 thin, ...
fit_mcmc_start <- function(fit) fit$settings$burnin + fit$settings$thin

#' Convert a fit for coda
#'
#' `as.mcmc.list()` gives one [coda::mcmc()] object per chain, with the
#' iteration numbers of the run (`start` = burn-in + thin, `thin` = thin),
#' so coda's `gelman.diag()`, `effectiveSize()`, `summary()` and `plot()`
#' apply. `as.mcmc()` gives one `mcmc` object: the chain chosen with
#' `chain` (by default the only chain: with several chains it is an error
#' pointing to `as.mcmc.list()`, since stacking chains would hide their
#' disagreement from coda's diagnostics). Only the traces (label-invariant
#' quantities) are converted, never the cluster labels.
#'
#' When chains have different numbers of draws (an interrupted run), every
#' chain is cut to the shortest, with a message.
#'
#' @param x An `mcmix_fit`.
#' @param chain For `as.mcmc()`: the chain to convert; `NULL` (the
#'   default) for a fit with one chain.
#' @param ... Unused.
#' @return An `mcmc.list` or an `mcmc` object.
#' @seealso [as.array.mcmix_fit()]
#' @examples
#' k <- new_kernel("iid_normal",
#'   init = function(chain) list(),
#'   step = function(state, n, thin, offset, warmup) {
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state, draws = list(traces = matrix(stats::rnorm(length(keep)),
#'       ncol = 1, dimnames = list(NULL, "x"))))
#'   }, trace_names = "x")
#' set.seed(1)
#' fit <- run_kernel(k, iter = 200, burnin = 50, chains = 2)
#' ml <- as.mcmc.list(fit)
#' coda::gelman.diag(ml)
#' coda::effectiveSize(coda::as.mcmc(fit, chain = 1))
#' @name as.mcmc.list.mcmix_fit
#' @method as.mcmc.list mcmix_fit
#' @export
as.mcmc.list.mcmix_fit <- function(x, ...) {
  mats <- fit_trace_matrices(x)
  coda::mcmc.list(lapply(mats, function(m)
    coda::mcmc(m, start = fit_mcmc_start(x), thin = x$settings$thin)))
}

#' @rdname as.mcmc.list.mcmix_fit
#' @method as.mcmc mcmix_fit
#' @export
as.mcmc.mcmix_fit <- function(x, chain = NULL, ...) {
  x <- fit_usable(x)  # R/chains.R
  nch <- length(x$chains)
  if (is.null(chain)) {
    if (nch > 1L)
      stop(sprintf(paste0("`x` has %d chains; as.mcmc() would glue them together. ",
                          "Use as.mcmc.list(x) for all chains, or as.mcmc(x, chain = 1) ",
                          "for one."), nch), call. = FALSE)
    chain <- 1L
  }
  chain <- check_count(chain, "chain", 1L, nch)
  m <- x$chains[[chain]]$traces
  storage.mode(m) <- "double"
  colnames(m) <- fit_trace_names(x)
  coda::mcmc(m, start = fit_mcmc_start(x), thin = x$settings$thin)
}

# Iteration numbers of the kept draws 1..n of a fit (burn-in counted).
fit_iterations <- function(fit, n) fit$settings$burnin + fit$settings$thin * seq_len(n)

#' Draws of a fit as an array, matrix or data frame
#'
#' `as.array()` gives the iterations x chains x variables array expected by
#' posterior and bayesplot (dimnames `iteration`, `chain`, `variable`; the
#' iteration names are the iteration numbers of the run, burn-in counted).
#' `as.matrix()` stacks the chains: one row per draw, one column per
#' variable. `as.data.frame()` adds the columns `.chain`, `.iteration` (the
#' iteration number in the run: burn-in + thin, burn-in + 2 thin, ...) and
#' `.draw`. Only the traces are converted, never cluster labels.
#'
#' @param x An `mcmix_fit`.
#' @param row.names,optional Ignored (as for other `as.data.frame()` methods).
#' @param ... Unused.
#' @return A numeric array, a numeric matrix or a data frame. Chains of
#'   unequal length (interrupted run) are cut to the shortest, with a
#'   message.
#' @seealso [as_draws.mcmix_fit] for posterior's draws objects,
#'   [as.mcmc.list.mcmix_fit] for coda.
#' @examples
#' k <- new_kernel("iid_normal",
#'   init = function(chain) list(),
#'   step = function(state, n, thin, offset, warmup) {
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state, draws = list(traces = matrix(stats::rnorm(2 * length(keep)),
#'       ncol = 2, dimnames = list(NULL, c("a", "b")))))
#'   }, trace_names = c("a", "b"))
#' set.seed(1)
#' fit <- run_kernel(k, iter = 100, burnin = 50, chains = 3)
#' dim(as.array(fit))
#' head(as.data.frame(fit))
#' dim(as.matrix(fit))
#' @name as.array.mcmix_fit
#' @export
as.array.mcmix_fit <- function(x, ...) {
  mats <- fit_trace_matrices(x)
  n <- nrow(mats[[1L]])
  nm <- fit_trace_names(x)
  out <- array(NA_real_, dim = c(n, length(mats), length(nm)),
               dimnames = list(iteration = as.character(fit_iterations(x, n)),
                               chain = as.character(seq_along(mats)),
                               variable = nm))
  for (c in seq_along(mats)) out[, c, ] <- mats[[c]]
  out
}

#' @rdname as.array.mcmix_fit
#' @export
as.matrix.mcmix_fit <- function(x, ...) {
  out <- do.call(rbind, fit_trace_matrices(x))
  rownames(out) <- NULL
  out
}

#' @rdname as.array.mcmix_fit
#' @export
as.data.frame.mcmix_fit <- function(x, row.names = NULL, optional = FALSE, ...) {
  mats <- fit_trace_matrices(x)
  n <- nrow(mats[[1L]])
  out <- as.data.frame(do.call(rbind, mats), optional = TRUE)
  out$.chain <- rep(seq_along(mats), each = n)
  out$.iteration <- rep(fit_iterations(x, n), length(mats))
  out$.draw <- seq_len(nrow(out))
  out
}

# ---------------------------------------------------------------------------
# posterior's draws formats (posterior is suggested: the methods are
# registered when posterior is loaded, see s3_register() in R/zzz.R)
# ---------------------------------------------------------------------------

#' Fits as posterior draws objects
#'
#' Methods for the `as_draws*()` generics of the posterior package, so that
#' every posterior function, and bayesplot, takes a fit directly:
#' `posterior::summarise_draws(fit)`, `bayesplot::mcmc_trace(fit)`. The
#' draws of an `mcmix_fit` are its traces, chain by chain. The results of
#' [sample_smc()] and [ais()] give weighted draws (posterior's
#' `weight_draws()`, the normalised importance weights) and [sample_abc()]
#' its accepted draws (equal weights).
#'
#' posterior numbers the iterations of a draws object `1, 2, ...`; the
#' iteration numbers of the run (burn-in and thinning counted) are in
#' `as.data.frame(fit)$.iteration` and the dimnames of `as.array(fit)`, and
#' bayesplot's trace plots show them with
#' `iter1 = fit$settings$burnin` when `thin` is 1.
#'
#' The methods are registered when posterior is loaded, whatever the order
#' in which posterior, bayesplot and mcmix are attached.
#'
#' @param x An `mcmix_fit`, `mcmix_smc`, `mcmix_ais` or `mcmix_abc`.
#' @param ... Passed to the posterior conversion.
#' @return A posterior draws object of the requested format.
#' @examples
#' if (requireNamespace("posterior", quietly = TRUE)) {
#'   set.seed(1)
#'   fit <- sample_mh(function(x) -sum(x^2) / 2, init = c(a = 0, b = 0),
#'                    iter = 500, chains = 2, progress = FALSE)
#'   posterior::summarise_draws(fit)
#'   posterior::as_draws_df(fit)
#' }
#' @name as_draws.mcmix_fit
NULL

draws_of_fit <- function(x, ...) posterior::as_draws_array(as.array(x))

# Weighted draws of a particle result: a draws_matrix with .log_weight.
draws_of_particles <- function(x, log_w) {
  d <- posterior::as_draws_matrix(x)
  if (is.null(log_w)) return(d)
  posterior::weight_draws(d, log_w, log = TRUE)
}

draws_of_result <- function(x) {
  if (inherits(x, "mcmix_abc")) return(draws_of_particles(x$accepted, NULL))
  draws_of_particles(x$particles, x$log_weights)
}

draws_method <- function(convert, of) {
  force(convert); force(of)
  function(x, ...) convert(of(x), ...)
}

# The posterior generics and the converter each one maps to; registered for
# the fit and the particle classes in .onLoad().
posterior_generics <- c("as_draws", "as_draws_array", "as_draws_df", "as_draws_list",
                        "as_draws_matrix", "as_draws_rvars")

register_posterior_methods <- function() {
  for (g in posterior_generics) {
    conv <- function(...) NULL
    # posterior::<g>(...), built as a call (a literal posterior::G would be
    # read by R CMD check as a reference to an object G)
    body(conv) <- as.call(list(call("::", as.name("posterior"), as.name(g)),
                               quote(...)))
    s3_register(paste0("posterior::", g), "mcmix_fit", draws_method(conv, draws_of_fit))
    for (cl in c("mcmix_smc", "mcmix_ais", "mcmix_abc"))
      s3_register(paste0("posterior::", g), cl, draws_method(conv, draws_of_result))
  }
  # posterior's and bayesplot's rhat() generics: rhat(fit) works whichever
  # of posterior, bayesplot and mcmix was attached last.
  s3_register("posterior::rhat", "mcmix_fit", function(x, ...) mcmix_rhat(x, ...))
  s3_register("bayesplot::rhat", "mcmix_fit", function(object, ...) mcmix_rhat(object, ...))
}
