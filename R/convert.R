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
#' `chain`, or all chains stacked one after another (then the iteration
#' numbers are just `1, 2, ...`). Only the traces (label-invariant
#' quantities) are converted, never the cluster labels.
#'
#' When chains have different numbers of draws (an interrupted run), every
#' chain is cut to the shortest, with a message.
#'
#' @param x An `mcmix_fit`.
#' @param chain For `as.mcmc()`: the chain to convert, or `NULL` (the
#'   default) to stack all chains.
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
#' coda::effectiveSize(coda::as.mcmc(fit))
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
  if (!is.null(chain)) {
    chain <- check_count(chain, "chain", 1L, nch)
    m <- x$chains[[chain]]$traces
    storage.mode(m) <- "double"
    colnames(m) <- fit_trace_names(x)
    return(coda::mcmc(m, start = fit_mcmc_start(x), thin = x$settings$thin))
  }
  if (nch == 1L) return(as.mcmc.mcmix_fit(x, chain = 1L))
  m <- do.call(rbind, lapply(x$chains, function(ch) ch$traces))
  storage.mode(m) <- "double"
  colnames(m) <- fit_trace_names(x)
  coda::mcmc(m)
}

#' Draws of a fit as an iterations x chains x variables array
#'
#' The layout expected by `posterior::as_draws_array()` and by bayesplot's
#' `mcmc_*()` functions (dimnames `iteration`, `chain`, `variable`).
#'
#' @param x An `mcmix_fit`.
#' @param ... Unused.
#' @return A numeric array. Chains of unequal length (interrupted run) are
#'   cut to the shortest, with a message.
#' @examples
#' k <- new_kernel("iid_normal",
#'   init = function(chain) list(),
#'   step = function(state, n, thin, offset, warmup) {
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state, draws = list(traces = matrix(stats::rnorm(2 * length(keep)),
#'       ncol = 2, dimnames = list(NULL, c("a", "b")))))
#'   }, trace_names = c("a", "b"))
#' set.seed(1)
#' a <- as.array(run_kernel(k, iter = 100, chains = 3))
#' dim(a)
#' @export
as.array.mcmix_fit <- function(x, ...) {
  mats <- fit_trace_matrices(x)
  n <- nrow(mats[[1L]])
  nm <- fit_trace_names(x)
  out <- array(NA_real_, dim = c(n, length(mats), length(nm)),
               dimnames = list(iteration = as.character(seq_len(n)),
                               chain = as.character(seq_along(mats)),
                               variable = nm))
  for (c in seq_along(mats)) out[, c, ] <- mats[[c]]
  out
}
