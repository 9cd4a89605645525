#' Rejection approximate Bayesian computation
#'
#' Draws parameters from the prior, simulates a data set for each, and keeps
#' the parameters whose simulated summary statistics are within `tolerance`
#' of the observed ones (Pritchard et al. 1999). With sufficient summaries
#' and `tolerance = 0` on discrete data the kept draws are exact posterior
#' draws. Alternatively `quantile` keeps that fraction of the draws with the
#' smallest distances. The cost is dominated by the user's simulator, so
#' the loop is in R.
#'
#' @param prior_sampler `function(n)` returning `n` prior draws (vector, or
#'   matrix with one row per draw).
#' @param simulator `function(theta)` simulating a data set from one
#'   parameter vector.
#' @param observed The observed data (passed through `summary`).
#' @param summary `function(data)` returning the numeric vector of summary
#'   statistics (default: the data themselves).
#' @param distance `function(s_sim, s_obs)` returning a non-negative number;
#'   the default is the Euclidean distance.
#' @param tolerance Keep draws with distance `<= tolerance`.
#' @param quantile Instead of `tolerance`: keep this fraction of the draws
#'   (those with the smallest distances).
#' @param n Number of prior draws (simulations; at most 1e8).
#' @return An object of class `mcmix_abc`: `accepted` (matrix of kept
#'   parameters, one row per draw), `distances` (all `n` distances),
#'   `tolerance` (used), `acceptance_rate`, `n`.
#' @references Pritchard, J. K. et al. (1999). Population growth of human
#'   Y chromosomes. *Mol. Biol. Evol.* 16, 1791-1798.
#' @examples
#' # coin: 7 heads in 10 tosses, uniform prior; exact posterior Beta(8, 4)
#' set.seed(1)
#' r <- sample_abc(function(n) runif(n), function(p) rbinom(1, 10, p),
#'                 observed = 7, tolerance = 0, n = 5000)
#' r
#' mean(r$accepted)   # about 8 / 12
#' @export
sample_abc <- function(prior_sampler, simulator, observed, summary = NULL,
                       distance = NULL, tolerance = NULL, quantile = NULL,
                       n = 10000) {
  call <- match.call()
  if (!is.function(simulator))
    stop(sprintf("`simulator` must be a function of theta, not %s.",
                 describe_value(simulator)), call. = FALSE)
  if (is.null(summary)) summary <- function(x) x
  if (!is.function(summary))
    stop(sprintf("`summary` must be NULL or a function, not %s.",
                 describe_value(summary)), call. = FALSE)
  if (is.null(distance)) distance <- function(a, b) sqrt(sum((a - b)^2))
  if (!is.function(distance))
    stop(sprintf("`distance` must be NULL or a function, not %s.",
                 describe_value(distance)), call. = FALSE)
  fa <- names(formals(distance))
  if (!is.primitive(distance) && length(fa) < 2L && !"..." %in% fa)
    stop(sprintf("`distance` must be a function of two arguments (s_sim, s_obs), not of %d.",
                 length(fa)), call. = FALSE)
  if (is.null(tolerance) == is.null(quantile))
    stop("exactly one of `tolerance` and `quantile` must be given.", call. = FALSE)
  if (!is.null(tolerance)) tolerance <- check_number(tolerance, "tolerance", 0)
  if (!is.null(quantile)) {
    quantile <- check_number(quantile, "quantile", 0, 1, open_lower = TRUE)
  }
  n <- check_count_max(n, "n", 1L, 1e8, "simulations")
  s_obs <- summary(observed)
  if (!is.numeric(s_obs) || !length(s_obs) || anyNA(s_obs))
    stop("`summary(observed)` must be a numeric vector without missing values.",
         call. = FALSE)
  if (!all(is.finite(s_obs)))   # every distance would be Inf: the prior comes back
    stop(sprintf("`observed` must give finite summaries; `summary(observed)` is %s.",
                 describe_value(s_obs)), call. = FALSE)
  pd <- prior_draws(prior_sampler, n)
  theta <- pd$theta
  dist <- numeric(n)
  for (i in seq_len(n)) {
    s <- summary(simulator(theta[, i]))
    if (!is.numeric(s) || length(s) != length(s_obs) || anyNA(s))
      stop(sprintf(paste0("`summary(simulator(theta))` must be a numeric vector of ",
                          "length %d like `summary(observed)`; draw %d gave %s."),
                   length(s_obs), i, describe_value(s)), call. = FALSE)
    dd <- distance(s, s_obs)
    if (!is.numeric(dd) || length(dd) != 1L || is.na(dd) || dd < 0)
      stop(sprintf("`distance` must return one non-negative number; draw %d gave %s.",
                   i, describe_value(dd)), call. = FALSE)
    dist[i] <- dd
  }
  if (!is.null(quantile)) {
    k <- max(1L, floor(quantile * n))
    tolerance <- sort(dist, partial = k)[k]
  }
  keep <- dist <= tolerance
  accepted <- t(theta[, keep, drop = FALSE])
  colnames(accepted) <- pd$names
  structure(list(accepted = accepted, distances = dist, tolerance = tolerance,
                 acceptance_rate = mean(keep), n = n, call = call),
            class = "mcmix_abc")
}

#' @export
print.mcmix_abc <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("Rejection ABC: ", nrow(x$accepted), " of ", x$n, " draws accepted (rate ",
      format(x$acceptance_rate, digits = 3), ", tolerance ",
      format(x$tolerance, digits = digits), ")\n", sep = "")
  if (nrow(x$accepted)) {
    s <- rbind(mean = colMeans(x$accepted),
               sd = apply(x$accepted, 2L, stats::sd))
    print(t(s), digits = digits)
  }
  invisible(x)
}

#' Summarise and plot a rejection ABC result
#'
#' `summary()` gives the mean, standard deviation and quantiles of every
#' parameter over the accepted draws (the ABC posterior), with the
#' tolerance and acceptance rate. `plot()` draws the density of every
#' parameter over the accepted draws and the distribution of all the
#' distances with the tolerance marked. The accepted draws convert to
#' posterior's draws objects (`posterior::as_draws_df(x)`, see
#' [as_draws.mcmix_fit]).
#'
#' @param object,x An `mcmix_abc` result of [sample_abc()].
#' @param probs Quantiles to report.
#' @param per_page Largest number of panels per page.
#' @param digits Significant digits to print.
#' @param ... Unused by `summary()`; graphical parameters for `plot()`.
#' @return `summary()`: an object of class `summary.mcmix_abc` with
#'   `stats` (one row per parameter; `NULL` when no draw was accepted),
#'   `n_accepted`, `n`, `tolerance`, `acceptance_rate`. `plot()`: `x`,
#'   invisibly.
#' @examples
#' set.seed(1)
#' r <- sample_abc(function(n) runif(n), function(p) rbinom(1, 10, p),
#'                 observed = 7, tolerance = 0, n = 2000)
#' summary(r)
#' plot(r)
#' @export
summary.mcmix_abc <- function(object, probs = c(0.025, 0.5, 0.975), ...) {
  probs <- check_probs(probs)   # R/checks.R
  acc <- object$accepted
  structure(list(stats = if (nrow(acc)) weighted_stats(acc, rep(1, nrow(acc)), probs),
                 n_accepted = nrow(acc), n = object$n, tolerance = object$tolerance,
                 acceptance_rate = object$acceptance_rate),
            class = "summary.mcmix_abc")
}

#' @rdname summary.mcmix_abc
#' @export
print.summary.mcmix_abc <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("Rejection ABC: ", x$n_accepted, " of ", x$n, " draws accepted (rate ",
      format(x$acceptance_rate, digits = 3), ", tolerance ",
      format(x$tolerance, digits = digits), ")\n", sep = "")
  if (is.null(x$stats)) cat("No draw accepted: raise `tolerance` or `n`.\n")
  else print(x$stats, digits = digits)
  invisible(x)
}

#' @rdname summary.mcmix_abc
#' @export
plot.mcmix_abc <- function(x, per_page = 4, ...) {
  acc <- x$accepted
  if (!nrow(acc))
    stop("`x` has no accepted draw to plot: raise `tolerance` or `n`.", call. = FALSE)
  extra <- function(draw) {
    if (is.null(draw)) return(1L)
    graphics::hist(x$distances, breaks = 40, main = "Distances of all simulations",
                   xlab = "distance")
    graphics::abline(v = x$tolerance, col = "red", lwd = 2)
  }
  plot_weighted_draws(acc, rep(1, nrow(acc)), "ABC posterior of", per_page, extra, ...)
  invisible(x)
}
