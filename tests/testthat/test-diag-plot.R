# Plots of fits render without error for 1, 2 and 4 chains and for 1 to 5
# dimensions; the 1-D predictive density of a mixture fit integrates to one
# (numerical quadrature).

render <- function(expr) {
  f <- tempfile(fileext = ".png")
  grDevices::png(f, width = 800, height = 600)
  on.exit({ grDevices::dev.off(); unlink(f) })
  force(expr)
  invisible(TRUE)
}

test_that("trace, density and acf plots render for 1, 2 and 4 chains", {
  for (m in c(1, 2, 4)) {
    set.seed(m)
    fit <- run_kernel(diag_ar_kernel(c(0.5, 0.9, 0.1)), iter = 150, burnin = 10, chains = m,
                      progress = FALSE)
    expect_no_warning(render(plot(fit)))
    expect_no_warning(render(plot(fit, per_page = 2)))
    expect_no_warning(render(plot_acf(fit)))
    mf <- diag_toy_mixture_fit(N = 20, chains = m)
    expect_no_warning(render(plot(mf)))
    expect_no_warning(render(plot_coclustering(mf)))
  }
  expect_error(plot(fit, traces = "nope"), "`traces`")
})

test_that("cluster plots render for D = 1, 2 and 5", {
  set.seed(9)
  mf <- diag_toy_mixture_fit(N = 30, K = 3, chains = 2)
  for (D in c(1, 2, 5)) {
    X <- matrix(rnorm(30 * D), 30) + rep(c(0, 4, 8), length.out = 30)
    expect_no_warning(render(plot_clusters(mf, data = X)))
  }
  expect_error(plot_clusters(mf, data = matrix(1, 3, 1)), "observations")
  expect_error(plot_clusters(1), "`x`")
})

test_that("the 1-D predictive density of a mixture fit integrates to one", {
  skip_if_not(exists("sample_posterior", asNamespace("mcmix")) &&
                exists("dp_mixture", asNamespace("mcmix")))
  set.seed(10)
  x <- c(rnorm(30, -3), rnorm(30, 3))
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 60, chains = 2,
                          progress = FALSE)
  grid <- seq(-400, 400, length.out = 8001)
  pd <- mcmix:::predictive_density_1d(fit, x, grid, draws = 20)
  expect_equal(sum(pd$mean) * diff(grid[1:2]), 1, tolerance = 2e-3)
  expect_true(all(pd$lower <= pd$mean + 1e-12 & pd$mean <= pd$upper + 1e-12))
  expect_no_warning(render(plot_clusters(fit)))
  expect_no_warning(render(plot(fit)))
})
