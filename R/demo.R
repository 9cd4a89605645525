# The demo run by `make demo`: a Dirichlet process mixture of normals fitted
# to the galaxy velocities of MASS::galaxies.

#' Run the package demo
#'
#' Fits `dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1))` to
#' `MASS::galaxies / 1000` (velocities in 1000 km/s), prints the posterior
#' distribution of the number of clusters and of alpha, and writes two PNG
#' files to `outdir`: the histogram of the data with the posterior mean
#' density and the cluster means of the last draws, and the trace of the
#' number of clusters.
#'
#' @param outdir Directory for the plots (created if needed).
#' @param iter,chains Sampler settings.
#' @return The fit, invisibly.
#' @noRd
run_demo <- function(outdir = "demo-output", iter = 2000, chains = 2) {
  if (!requireNamespace("MASS", quietly = TRUE))
    stop("the demo needs the MASS package (a recommended package).", call. = FALSE)
  dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
  x <- MASS::galaxies / 1000
  cat("Dirichlet process mixture of normals for MASS::galaxies / 1000 (n = ",
      length(x), ")\n", sep = "")
  model <- dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1))
  print(model)
  set.seed(2024)
  t0 <- proc.time()[[3L]]
  fit <- sample_posterior(model, x, iter = iter, burnin = iter %/% 2,
                          chains = chains, algorithm = "collapsed", progress = FALSE)
  cat(sprintf("\n%d chains x %d iterations (after %d burn-in) in %.2f s\n",
              chains, iter, iter %/% 2, proc.time()[[3L]] - t0))
  tr <- do.call(rbind, lapply(fit$chains, `[[`, "traces"))
  K <- tr[, "n_clusters"]
  cat("\nPosterior of the number of clusters:\n")
  pk <- table(K) / length(K)
  print(round(pk, 3))
  cat(sprintf("Posterior mean of K: %.2f; of alpha: %.2f (95%% interval %.2f-%.2f)\n",
              mean(K), mean(tr[, "alpha"]), stats::quantile(tr[, "alpha"], 0.025),
              stats::quantile(tr[, "alpha"], 0.975)))

  # Posterior mean density: average over kept draws of the collapsed
  # predictive p(y | partition), using the closed-form Student-t predictive
  # of the Normal-inverse-gamma prior (D = 1) for each cluster.
  h <- fit$family$family$args
  grid <- seq(min(x) - 2, max(x) + 2, length.out = 400)
  Z <- partition_draws(fit)
  use <- unique(round(seq(1, nrow(Z), length.out = min(400, nrow(Z)))))
  alpha <- tr[, "alpha"]
  dens <- numeric(length(grid))
  cm_last <- NULL
  for (s in use) {
    z <- Z[s, ]
    n <- length(x)
    f <- (alpha[s] / (alpha[s] + n)) * demo_student_pred(grid, numeric(), h)
    for (k in unique(z)) {
      xk <- x[z == k]
      f <- f + (length(xk) / (alpha[s] + n)) * demo_student_pred(grid, xk, h)
    }
    dens <- dens + f / length(use)
  }
  zl <- Z[nrow(Z), ]
  cm_last <- tapply(x, zl, mean)

  f1 <- file.path(outdir, "galaxies-density.png")
  grDevices::png(f1, width = 900, height = 600)
  graphics::hist(x, breaks = 40, freq = FALSE, col = "grey85", border = "white",
                 main = "Galaxy velocities: DP mixture of normals",
                 xlab = "velocity (1000 km/s)", ylim = c(0, max(dens) * 1.15))
  graphics::lines(grid, dens, lwd = 2, col = "steelblue")
  graphics::rug(cm_last, col = "firebrick", lwd = 2, ticksize = 0.05)
  graphics::legend("topright", c("posterior mean density", "cluster means (last draw)"),
                   col = c("steelblue", "firebrick"), lwd = 2, bty = "n")
  grDevices::dev.off()

  f2 <- file.path(outdir, "galaxies-nclusters.png")
  grDevices::png(f2, width = 900, height = 500)
  op <- graphics::par(mfrow = c(1, 2))
  cols <- c("steelblue", "firebrick", "darkgreen", "orange")
  graphics::plot(NULL, xlim = c(1, nrow(fit$chains[[1]]$traces)), ylim = range(K),
                 xlab = "kept iteration", ylab = "number of clusters",
                 main = "Trace of the number of clusters")
  for (c in seq_along(fit$chains))
    graphics::lines(fit$chains[[c]]$traces[, "n_clusters"],
                    col = cols[(c - 1) %% 4 + 1])
  graphics::barplot(pk, xlab = "number of clusters", ylab = "posterior probability",
                    main = "Posterior of the number of clusters", col = "grey70")
  graphics::par(op)
  grDevices::dev.off()
  cat("\nPlots written to", f1, "and", f2, "\n")
  invisible(fit)
}

# Posterior predictive density of the Normal-inverse-gamma model (Murphy
# 2007, eq. 100): Student t with nu_n degrees of freedom, location m_n and
# scale^2 = Psi_n (kappa_n + 1) / (kappa_n nu_n), where in the NIW
# parametrisation of gaussian_niw() Psi is the inverse-Wishart scale.
demo_student_pred <- function(y, xk, h) {
  n <- length(xk)
  m0 <- h$prior_mean; k0 <- h$kappa; nu0 <- h$df; psi0 <- as.numeric(h$scale)
  xb <- if (n) mean(xk) else 0
  kn <- k0 + n
  nun <- nu0 + n
  mn <- (k0 * m0 + n * xb) / kn
  psin <- psi0 + (if (n) sum((xk - xb)^2) else 0) + k0 * n / kn * (xb - m0)^2
  s <- sqrt(psin * (kn + 1) / (kn * nun))
  stats::dt((y - mn) / s, df = nun) / s
}
