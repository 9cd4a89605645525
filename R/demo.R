# The demo run by `make demo`: a Dirichlet process mixture of normals fitted
# to the galaxy velocities of MASS::galaxies.

#' Run the package demo
#'
#' Fits `dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1))` to
#' `MASS::galaxies / 1000` (velocities in 1000 km/s) with two chains of the
#' default sampler (split-merge; long enough for every R-hat to be below
#' 1.01), prints the summary (traces with R-hat and ESS, posterior of the
#' number of clusters) and the point estimate of the partition, and writes four PNG
#' files to `outdir`: traces, autocorrelations, the co-clustering heatmap and
#' the data with the posterior predictive density.
#'
#' @param outdir Directory for the plots (created if needed).
#' @param iter,thin,chains Sampler settings.
#' @return The fit, invisibly.
#' @noRd
run_demo <- function(outdir = "demo-output", iter = 10000, thin = 5, chains = 2) {
  if (!requireNamespace("MASS", quietly = TRUE))
    stop("the demo needs the MASS package (a recommended package).", call. = FALSE)
  dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
  x <- MASS::galaxies / 1000
  cat("Dirichlet process mixture of normals for MASS::galaxies / 1000 (n = ",
      length(x), ")\n\n", sep = "")
  model <- dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1))
  print(model)
  set.seed(2024)
  fit <- sample_posterior(model, x, iter = iter, burnin = iter %/% 2, thin = thin,
                          chains = chains, progress = FALSE)
  cat("\n")
  print(summary(fit))

  est <- partition(fit)
  cat("\n")
  print(est)

  files <- file.path(outdir, c("traces.png", "autocorrelation.png",
                               "coclustering.png", "clusters.png"))
  draw <- function(file, width, height, f) {
    grDevices::png(file, width = width, height = height, res = 110)
    on.exit(grDevices::dev.off())
    f()
  }
  draw(files[1], 1000, 800, function() plot(fit))
  draw(files[2], 1000, 600, function() plot_acf(fit))
  draw(files[3], 800, 800, function() plot_coclustering(fit, estimate = est))
  draw(files[4], 1000, 650, function() plot_clusters(fit, x, estimate = est))
  cat("\nPlots written to:\n", paste0("  ", files, collapse = "\n"), "\n", sep = "")
  invisible(fit)
}
