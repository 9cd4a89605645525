# Weighted particle results (sample_smc(), ais(); R/smc.R): plots and the
# weighted summaries shared with sample_abc() (R/abc.R). Their draws
# conversion to posterior's formats is in R/convert.R.

# Weighted mean, sd and quantiles of the columns of x (weights w >= 0).
weighted_stats <- function(x, w, probs = c(0.025, 0.5, 0.975)) {
  w <- w / sum(w)
  out <- t(apply(x, 2L, function(v) {
    m <- sum(w * v)
    o <- order(v)
    cw <- cumsum(w[o])
    q <- vapply(probs, function(p) v[o][min(which(cw >= p - 1e-12))], 0)
    c(m, sqrt(sum(w * (v - m)^2)), q)
  }))
  colnames(out) <- c("mean", "sd", paste0(vapply(100 * probs, format, ""), "%"))
  out
}

# Kish's effective sample size of normalised weights.
weights_ess <- function(w) sum(w)^2 / sum(w^2)

# Weighted densities of the columns of `x`, one panel each, on pages of
# `per_page` panels; reflection at 0 for non-negative columns (as in
# plot.mcmix_fit()). `extra(panels_left)` may draw further panels first.
plot_weighted_draws <- function(x, w, main, per_page = 4L, extra = NULL, ...) {
  per_page <- check_count(per_page, "per_page", 1L)
  nm <- colnames(x)
  if (is.null(nm)) nm <- paste0("theta[", seq_len(ncol(x)), "]")
  n_extra <- if (is.null(extra)) 0L else extra(NULL)
  n_panels <- length(nm) + n_extra
  cols <- min(2L, n_panels)
  rows <- ceiling(min(n_panels, per_page) / cols)
  old <- graphics::par(mfrow = c(rows, cols), mar = c(3.2, 3.6, 2, 0.8), mgp = c(2, 0.6, 0))
  on.exit(graphics::par(old))
  if (n_extra) extra(TRUE)
  w <- w / sum(w)
  for (j in seq_along(nm)) {
    v <- x[, j]
    lower <- if (all(v >= 0)) 0 else -Inf
    d <- if (length(unique(v)) > 1L) weighted_density(v, w, lower) else NULL
    yr <- if (is.null(d)) c(0, 1) else c(0, max(d$y) * 1.04)
    xr <- if (is.null(d)) range(v) + c(-1, 1) else range(d$x, v)
    graphics::plot(NA, xlim = xr, ylim = yr, xlab = nm[j], ylab = "density",
                   main = paste(main, nm[j]), ...)
    if (!is.null(d)) graphics::lines(d, lwd = 1.5)
    if (length(v) <= 1000L) graphics::rug(v, col = "grey50")
  }
  invisible(NULL)
}

# Weighted Gaussian kernel density estimate, bandwidth from the effective
# sample size (bw.nrd0 rule with n = ESS), reflected at `lower` when the
# kernels would spill over it (see support_density() in R/plot.R).
weighted_density <- function(v, w, lower = -Inf) {
  m <- sum(w * v)
  s <- sqrt(sum(w * (v - m)^2))
  n <- weights_ess(w)
  o <- order(v); cw <- cumsum(w[o])
  iqr <- v[o][min(which(cw >= 0.75))] - v[o][min(which(cw >= 0.25))]
  bw <- 0.9 * min(s, if (iqr > 0) iqr / 1.34 else s) * n^(-1 / 5)
  if (!(bw > 0)) bw <- max(abs(m), 1) * 1e-3
  reflect <- is.finite(lower) && min(v) - 3 * bw < lower
  from <- if (reflect) lower else min(v) - 3 * bw
  d <- stats::density(if (reflect) c(v, 2 * lower - v) else v,
                      weights = if (reflect) c(w, w) / 2 else w,
                      bw = bw, from = from, to = max(v) + 3 * bw)
  if (reflect) d$y <- 2 * d$y
  d
}

#' Plot the particles of a sequential Monte Carlo or AIS run
#'
#' Weighted kernel density estimates of every parameter from the final
#' weighted particles (bandwidth from the effective sample size of the
#' weights; reflected at 0 for parameters whose particles are all
#' non-negative). For [sample_smc()] the first panels show the tempering
#' schedule and the effective sample size after each reweighting.
#'
#' @param x An `mcmix_smc` or `mcmix_ais` result.
#' @param per_page Largest number of panels per page.
#' @param ... Graphical parameters passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' y <- rnorm(20, 1)
#' res <- sample_smc(function(th) sum(dnorm(y, th, 1, log = TRUE)),
#'                   function(th) dnorm(th, 0, 2, log = TRUE),
#'                   function(n) rnorm(n, 0, 2), n_particles = 200)
#' plot(res)
#' summary(res)
#' @export
plot.mcmix_smc <- function(x, per_page = 4, ...) {
  extra <- function(draw) {
    if (is.null(draw)) return(2L)
    st <- seq_along(x$schedule) - 1L
    graphics::plot(st, x$schedule, type = "b", pch = 20, xlab = "stage",
                   ylab = "temperature", main = "Tempering schedule", ylim = c(0, 1))
    graphics::plot(seq_along(x$ess), x$ess, type = "b", pch = 20, xlab = "stage",
                   ylab = "ESS", main = "ESS after reweighting",
                   ylim = c(0, max(x$ess, x$n_particles)))
    graphics::abline(h = x$n_particles, lty = 3)
  }
  plot_weighted_draws(x$particles, x$weights, "Posterior of", per_page, extra, ...)
  invisible(x)
}

#' @rdname plot.mcmix_smc
#' @export
plot.mcmix_ais <- function(x, per_page = 4, ...) {
  w <- exp(x$log_weights - max(x$log_weights))
  extra <- function(draw) {
    if (is.null(draw)) return(1L)
    graphics::hist(x$log_weights - max(x$log_weights), breaks = 30,
                   main = "Log weights (max = 0)", xlab = "log weight")
  }
  plot_weighted_draws(x$particles, w, "Posterior of", per_page, extra, ...)
  invisible(x)
}

#' Summaries of an annealed importance sampling run
#'
#' @param object An `mcmix_ais` result of [ais()].
#' @param probs Quantiles of the weighted particles to report.
#' @param ... Unused.
#' @return An object of class `summary.mcmix_ais`: `stats` (weighted
#'   posterior mean, sd and quantiles of every parameter), `log_evidence`,
#'   `se`, `ess`.
#' @examples
#' set.seed(1)
#' y <- rnorm(10, 1)
#' a <- ais(function(th) sum(dnorm(y, th, 1, log = TRUE)),
#'          function(th) dnorm(th, 0, 2, log = TRUE),
#'          function(n) rnorm(n, 0, 2), temperatures = 20, n_runs = 100)
#' summary(a)
#' @export
summary.mcmix_ais <- function(object, probs = c(0.025, 0.5, 0.975), ...) {
  probs <- check_probs(probs)   # R/checks.R
  w <- exp(object$log_weights - max(object$log_weights))
  structure(list(stats = weighted_stats(object$particles, w, probs),
                 log_evidence = object$log_evidence, se = object$se,
                 ess = weights_ess(w), n_runs = object$n_runs),
            class = "summary.mcmix_ais")
}

#' @export
print.summary.mcmix_ais <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("Annealed importance sampling, ", x$n_runs, " runs: log evidence ",
      format(x$log_evidence, digits = digits + 2), " (s.e. ", format(x$se, digits = 3),
      "), ESS of the weights ", format(x$ess, digits = digits), "\n", sep = "")
  cat("Weighted posterior summaries:\n")
  print(x$stats, digits = digits)
  invisible(x)
}
