# Convergence diagnostics (src/diag_*.c): R-hat, effective sample sizes,
# Monte Carlo standard errors, autocorrelations and acceptance rates.
#
# Every function accepts the same inputs, turned by diag_input() into a
# named list of iterations x chains matrices, one per quantity:
# an mcmix_fit (one quantity per trace), a coda mcmc or mcmc.list, an
# iterations x chains x variables array, an iterations x chains matrix, or a
# numeric vector (one chain).

# Codes of src/diag.h
diag_codes <- c(rhat = 1L, rhat_classic = 2L, ess_bulk = 3L, ess_tail = 4L,
                ess_basic = 5L, mcse_mean = 6L, rhat_bulk = 7L, rhat_tail = 8L,
                mean = 9L, sd = 10L)

# Common number of kept draws over the chains of a fit; a note when the
# chains differ (an interrupted run).
fit_common_draws <- function(fit, quiet = FALSE) {
  n <- fit_draw_counts(fit)   # R/summary.R
  if (length(unique(n)) > 1L && !quiet)
    message(sprintf(paste0("Chains have different numbers of draws (%s), ",
                           "e.g. after an interrupt; using the first %d of each. ",
                           "extend(fit, iter = 0) completes the run."),
                    paste(n, collapse = ", "), min(n)))
  min(n)
}

# The traces of a fit that are draws: all columns of the chains' traces
# but those the kernel declares fixed (`fixed_traces`, e.g. a concentration
# held constant), which carry no information and would make coda's
# diagnostics fail. fit_trace_index() gives their columns.
fit_trace_index <- function(fit) {
  nm <- fit_all_trace_names(fit)
  which(!nm %in% fit$kernel$fixed_traces)
}

fit_all_trace_names <- function(fit) {
  nm <- colnames(fit$chains[[1L]]$traces)
  if (is.null(nm)) nm <- fit$kernel$trace_names
  nm
}

fit_trace_names <- function(fit) fit_all_trace_names(fit)[fit_trace_index(fit)]

diag_input <- function(x, arg = "x", quiet = FALSE) {
  if (inherits(x, "draws") && requireNamespace("posterior", quietly = TRUE))
    x <- unclass(posterior::as_draws_array(x))
  if (inherits(x, "mcmix_fit")) {
    x <- fit_usable(x, quiet)  # R/chains.R: the chains with draws
    n <- fit_common_draws(x, quiet)
    nm <- fit_trace_names(x)
    idx <- fit_trace_index(x)
    out <- lapply(idx, function(j)
      vapply(x$chains, function(ch) as.double(ch$traces[seq_len(n), j]),
             numeric(n)))
    out <- lapply(out, function(m) { dim(m) <- c(n, length(x$chains)); m })
    names(out) <- nm
    return(out)
  }
  if (inherits(x, "mcmc.list")) {
    n <- min(vapply(x, NROW, integer(1)))
    m <- lapply(x, as.matrix)
    nm <- colnames(m[[1L]])
    if (is.null(nm)) nm <- paste0("var", seq_len(ncol(m[[1L]])))
    out <- lapply(seq_along(nm), function(j)
      matrix(vapply(m, function(ch) as.double(ch[seq_len(n), j]), numeric(n)),
             nrow = n))
    names(out) <- nm
    return(out)
  }
  if (inherits(x, "mcmc")) {
    m <- as.matrix(x)
    nm <- colnames(m)
    if (is.null(nm)) nm <- paste0("var", seq_len(ncol(m)))
    out <- lapply(seq_len(ncol(m)), function(j) matrix(as.double(m[, j]), ncol = 1L))
    names(out) <- nm
    return(out)
  }
  if (is.array(x) && length(dim(x)) == 3L && is.numeric(x)) {
    nm <- dimnames(x)[[3L]]
    if (is.null(nm)) nm <- paste0("var", seq_len(dim(x)[3L]))
    out <- lapply(seq_len(dim(x)[3L]), function(j) {
      v <- x[, , j]
      storage.mode(v) <- "double"
      matrix(v, nrow = dim(x)[1L])
    })
    names(out) <- nm
    return(out)
  }
  if (is.matrix(x) && (is.numeric(x) || is.logical(x))) {
    storage.mode(x) <- "double"
    return(list(x = unname(x)))
  }
  if (is.numeric(x) && is.null(dim(x)))
    return(list(x = matrix(as.double(x), ncol = 1L)))
  stop(sprintf(paste0("`%s` must be an mcmix fit, a coda mcmc or mcmc.list, ",
                      "a posterior draws object, an iterations x chains matrix, ",
                      "an iterations x chains x variables array or a numeric ",
                      "vector, not %s."),
               arg, describe_value(x)), call. = FALSE)
}

# Run the C diagnostics `codes` on every quantity of `x`: a matrix with one
# row per quantity.
# `min_draws` draws per chain are needed (an error naming `x` otherwise);
# non-finite values are refused. Values beyond 1e150 in magnitude are scaled
# by a power of two (exact) so that sums of squares do not overflow; the
# location/scale statistics are scaled back.
diag_table <- function(x, codes, min_draws = 4L) {
  q <- diag_input(x)
  check_diag_draws(q, min_draws)
  scaled <- c("mcse_mean", "mean", "sd")
  out <- vapply(q, function(m) {
    s <- diag_scale(m)
    v <- .Call(C_ffi_diag_stats, m / s, unname(diag_codes[codes]))
    ifelse(codes %in% scaled, v * s, v)
  }, numeric(length(codes)))
  out <- matrix(out, nrow = length(codes), dimnames = list(codes, names(q)))
  t(out)
}

# A power of two bringing huge draws down to about 1 (1 when not needed).
diag_scale <- function(m) {
  big <- max(abs(m))
  if (big > 1e150) 2^floor(log2(big)) else 1
}

# Every quantity has `min_draws` draws per chain and only finite values.
check_diag_draws <- function(q, min_draws, arg = "x") {
  n <- nrow(q[[1L]])
  if (n < min_draws)
    stop(sprintf("`%s` must have at least %d draws per chain, not %d.",
                 arg, min_draws, n), call. = FALSE)
  for (j in seq_along(q))
    check_finite_draws(q[[j]], arg,
                       if (length(q) > 1L || names(q)[j] != "x")
                         paste0("quantity \"", names(q)[j], "\"") else NULL)
  invisible(q)
}

# A single quantity gives a single number, several a named vector.
diag_simplify <- function(v, x) {
  if (!inherits(x, c("mcmix_fit", "mcmc", "mcmc.list", "draws")) &&
      !(is.array(x) && length(dim(x)) == 3L)) return(unname(v))
  v
}

#' Potential scale reduction factor (R-hat)
#'
#' The rank-normalised split R-hat of Vehtari et al. (2021) (the maximum of
#' the bulk and the folded-tail versions; the default), or the classic
#' Gelman--Rubin potential scale reduction factor. Values near 1 (below
#' about 1.01) indicate that the chains agree.
#'
#' @param x An `mcmix_fit` (one value per trace), a coda `mcmc.list` or
#'   `mcmc`, a posterior draws object, an iterations x chains x variables array, an iterations x
#'   chains matrix, or a numeric vector (one chain).
#' @param type `"rank"` (rank-normalised split R-hat, equal to
#'   `posterior::rhat()`), or `"classic"` (equal to the point estimate of
#'   `coda::gelman.diag(x, autoburnin = FALSE)`, needs two chains or more).
#' @param ... Unused for the inputs above. A posterior `rvar` is passed
#'   with `...` to `posterior::rhat()`, so
#'   `rhat()` accepts whatever posterior's does, whichever of the two
#'   packages was attached last; with posterior or bayesplot attached after
#'   mcmix, their `rhat()` generics dispatch to the same method for fits.
#' @return A number, or a named vector with one value per quantity. `NA`
#'   for a quantity whose draws are all equal (a constant chain; as the
#'   posterior package). Draws containing `NA`, `NaN` or infinite values are
#'   an error naming the first such value, and so are chains with fewer than
#'   4 draws (2 for `type = "classic"`, which also needs two chains or more).
#' @references Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and
#'   Buerkner, P.-C. (2021). Rank-normalization, folding, and localization: an
#'   improved R-hat for assessing convergence of MCMC. *Bayesian Analysis*
#'   16(2), 667--718. Gelman, A. and Rubin, D. B. (1992). Inference from
#'   iterative simulation using multiple sequences. *Statistical Science*
#'   7(4), 457--472.
#' @seealso [ess()], [mcse()], [summary.mcmix_fit()]
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(4000), ncol = 4)  # 1000 iterations, 4 chains
#' rhat(x)
#' rhat(x, type = "classic")
#' @export
rhat <- function(x, type = c("rank", "classic"), ...) {
  if (inherits(x, "rvar") && requireNamespace("posterior", quietly = TRUE))
    return(posterior::rhat(x, ...))   # what posterior::rhat() takes beyond the above
  mcmix_rhat(x, type, ...)
}

# rhat() proper; also the method registered for posterior's and bayesplot's
# rhat() generics (R/convert.R).
mcmix_rhat <- function(x, type = c("rank", "classic"), ...) {
  check_no_dots(...)
  type <- match_choice(type, c("rank", "classic"), "type")
  code <- if (type == "rank") "rhat" else "rhat_classic"
  if (type == "classic" && ncol(diag_input(x, quiet = TRUE)[[1L]]) < 2L)
    stop("`x` must have two chains or more for `type = \"classic\"`.", call. = FALSE)
  tab <- diag_table(x, code, if (type == "rank") 4L else 2L)
  diag_simplify(tab[, 1L], x)
}

check_no_dots <- function(...) check_dots(list(...))   # R/checks.R

#' Effective sample size
#'
#' Effective sample sizes from autocorrelations (computed by FFT or by direct
#' sums for short lags) with Geyer's initial monotone sequence, on split
#' chains, as in Vehtari et al. (2021).
#'
#' @inheritParams rhat
#' @param type `"bulk"` (rank-normalised; for the centre of the
#'   distribution), `"tail"` (the minimum of the ESS of the 5% and 95%
#'   quantile indicators) or `"basic"` (the classic ESS of the mean on split
#'   chains). They equal `posterior::ess_bulk()`, `ess_tail()` and
#'   `ess_basic()`.
#' @return A number, or a named vector with one value per quantity. `NA`
#'   for a quantity whose draws are all equal (a constant chain). Draws
#'   containing `NA`, `NaN` or infinite values, or fewer than 6 draws per
#'   chain, are an error.
#' @inherit rhat references
#' @examples
#' set.seed(1)
#' x <- matrix(as.numeric(stats::filter(rnorm(4000), 0.8, "recursive")), ncol = 4)
#' ess(x)
#' ess(x, "tail")
#' @export
ess <- function(x, type = c("bulk", "tail", "basic")) {
  type <- match_choice(type, c("bulk", "tail", "basic"), "type")
  tab <- diag_table(x, paste0("ess_", type), 6L)
  diag_simplify(tab[, 1L], x)
}

#' Monte Carlo standard error of the posterior mean
#'
#' The standard deviation of the draws divided by the square root of the
#' basic effective sample size, as `posterior::mcse_mean()`.
#'
#' @inheritParams rhat
#' @return A number, or a named vector with one value per quantity. `NA`
#'   for a quantity whose draws are all equal (a constant chain). Draws
#'   containing `NA`, `NaN` or infinite values, or fewer than 6 draws per
#'   chain, are an error.
#' @examples
#' set.seed(2)
#' mcse(matrix(rnorm(2000), ncol = 2))
#' @export
mcse <- function(x) {
  tab <- diag_table(x, "mcse_mean", 6L)
  diag_simplify(tab[, 1L], x)
}

#' Autocorrelations of chains
#'
#' `chain_acf()` gives the autocorrelations of every chain of every
#' quantity. It replaces `autocorr()`, whose name clashes with
#' [coda::autocorr()]: `autocorr()` is deprecated; given a coda `mcmc` or
#' `mcmc.list` it now behaves exactly as `coda::autocorr()` (so attaching
#' mcmix after coda changes nothing for coda users), otherwise it warns and
#' calls `chain_acf()`.
#'
#' @inheritParams rhat
#' @param lag.max Largest lag; by default `10 * log10(n)` for `n` draws per
#'   chain, as [stats::acf()].
#' @param ... For `autocorr()` on coda objects: `lags` and `relative` of
#'   `coda::autocorr()`.
#' @return An array `lags x chains x quantities` (lags `0:lag.max`), or a
#'   `lags x chains` matrix for a matrix or vector input. Each chain is
#'   centred at its own mean; the values equal those of [stats::acf()].
#'   `NA` for a constant chain. Draws containing `NA`, `NaN` or infinite
#'   values, or fewer than 2 draws per chain, are an error.
#' @examples
#' set.seed(3)
#' x <- as.numeric(stats::filter(rnorm(1000), 0.5, "recursive"))
#' chain_acf(x, lag.max = 3)
#' # coda objects go to coda::autocorr()
#' autocorr(coda::mcmc(x), lags = 0:3)
#' @export
chain_acf <- function(x, lag.max = NULL) {
  q <- diag_input(x)
  check_diag_draws(q, 2L)
  n <- nrow(q[[1L]])
  if (is.null(lag.max)) lag.max <- floor(10 * log10(n))
  lag.max <- check_count(lag.max, "lag.max", 0L)
  lag.max <- min(lag.max, n - 1L)
  res <- lapply(q, function(m) .Call(C_ffi_diag_autocorr, m / diag_scale(m), lag.max))
  single <- identical(diag_simplify(c(a = 1), x), 1)
  if (single) {
    out <- res[[1L]]
    dimnames(out) <- list(lag = 0:lag.max, chain = seq_len(ncol(out)))
    return(out)
  }
  out <- array(unlist(res), dim = c(lag.max + 1L, ncol(q[[1L]]), length(q)),
               dimnames = list(lag = 0:lag.max, chain = seq_len(ncol(q[[1L]])),
                               variable = names(q)))
  out
}

#' @rdname chain_acf
#' @export
autocorr <- function(x, lag.max = NULL, ...) {
  if (inherits(x, c("mcmc", "mcmc.list"))) return(coda::autocorr(x, ...))
  .Deprecated("chain_acf", package = "mcmix",
              msg = "mcmix::autocorr() is deprecated (its name clashes with coda::autocorr()); use chain_acf().")
  chain_acf(x, lag.max = lag.max)
}

#' Acceptance rates of Metropolis-type steps
#'
#' Reads the acceptance counters that Metropolis--Hastings-type samplers
#' keep in their state (`n_accept` and `n_prop`, one value per block of
#' updates). It is an error to ask it of a sampler that keeps no counters,
#' such as a Gibbs or slice sampler (for example the `"collapsed"`,
#' `"neal8"` and `"slice"` algorithms of [dp_mixture()]; `"split_merge"`
#' counts its split-merge proposals).
#'
#' @param fit An `mcmix_fit`.
#' @return A matrix with one row per chain and one column per block:
#'   accepted / proposed over the iterations the sampler counts (see the
#'   sampler's documentation; the Metropolis samplers count the sampling
#'   phase, after burn-in), `NA` for a block never proposed.
#' @examples
#' k <- new_kernel("rw_normal",
#'   init = function(chain) list(x = 0, n_accept = 0, n_prop = 0),
#'   step = function(state, n, thin, offset, warmup) {
#'     keep <- numeric()
#'     for (g in seq_len(n)) {
#'       y <- state$x + stats::rnorm(1)
#'       state$n_prop <- state$n_prop + 1
#'       if (log(stats::runif(1)) < (state$x^2 - y^2) / 2) {
#'         state$x <- y
#'         state$n_accept <- state$n_accept + 1
#'       }
#'       if (!warmup && (offset + g) %% thin == 0) keep <- c(keep, state$x)
#'     }
#'     list(state = state,
#'          draws = list(traces = matrix(keep, ncol = 1, dimnames = list(NULL, "x"))))
#'   }, trace_names = "x")
#' set.seed(1)
#' acceptance(run_kernel(k, iter = 200, chains = 2))
#' @export
acceptance <- function(fit) {
  check_fit_arg(fit, "fit")
  if (isFALSE(fit$kernel$counters))
    stop(sprintf("the %s sampler has no accept/reject step and keeps no acceptance counters.",
                 dQuote(fit$kernel$name, FALSE)), call. = FALSE)
  rates <- lapply(fit$chains, function(ch) {
    a <- ch$state$n_accept
    p <- ch$state$n_prop
    if (is.null(a) || is.null(p)) return(NULL)
    r <- ifelse(p > 0, a / p, NA_real_)
    names(r) <- names(a)
    r
  })
  if (any(vapply(rates, is.null, logical(1))))
    stop("this fit's sampler keeps no acceptance counters (`n_accept`, `n_prop`).",
         call. = FALSE)
  out <- do.call(rbind, rates)
  rownames(out) <- paste0("chain", seq_along(rates))
  if (is.null(colnames(out)))
    colnames(out) <- if (ncol(out) == 1L) "acceptance" else paste0("block", seq_len(ncol(out)))
  out
}
