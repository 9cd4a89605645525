# stats_combine (plugin ABI 4) of every built-in conjugate family: the
# statistics of two disjoint sets combined equal, up to rounding, those of
# all members added one by one (and so do the log marginal and the log
# predictive read from them, including the cached factors and constants).

expect_combine_exact <- function(family, x, tol = 1e-9) {
  n <- NROW(x)
  for (m in unique(c(0, 1, n %/% 3, n - 1, n))) {
    r <- fam_eval(family, x, "combine", m)
    expect_equal(r[2, ], r[1, ], tolerance = tol, label = sprintf("combined at m = %d", m))
  }
}

test_that("Gaussian families combine partial statistics exactly", {
  set.seed(1)
  x3 <- matrix(rnorm(120, 10), 40)          # far from the prior mean
  expect_combine_exact(gaussian_niw(prior_mean = c(0, 1, 2), kappa = 0.3, df = 6,
                                    scale = diag(3) + 0.2), x3)
  expect_combine_exact(gaussian_niw(prior_mean = 1, kappa = 2, df = 3, scale = 1),
                       rnorm(30, 3))
  expect_combine_exact(gaussian_diag(prior_mean = c(0, 1, 2), kappa = c(0.5, 1, 2),
                                     shape = 2, rate = c(1, 2, 3)), x3)
  expect_combine_exact(gaussian_iso(prior_mean = c(0, 1, 2), kappa = 0.7, shape = 3,
                                    rate = 2), x3)
  expect_combine_exact(gaussian_mean(cov = diag(3) + 0.3, prior_mean = c(0, 1, 2),
                                     prior_cov = 4 * diag(3)), x3)
  # two points (one per side) and the degenerate df of the niw prior
  expect_combine_exact(gaussian_niw(prior_mean = c(0, 0), kappa = 0.5, df = 1.5,
                                    scale = diag(2)), matrix(rnorm(4), 2))
})

test_that("discrete families combine partial statistics exactly", {
  set.seed(2)
  expect_combine_exact(poisson_gamma(shape = c(2, 1), rate = c(0.5, 3)),
                       matrix(rpois(60, 4), 30))
  expect_combine_exact(bernoulli_beta(a = c(0.5, 2, 1), b = c(0.5, 1, 3)),
                       matrix(rbinom(90, 1, 0.3), 30))
  expect_combine_exact(categorical_dirichlet(c(0.7, 1, 2)), sample(3, 40, replace = TRUE))
})

test_that("the product family combines through its parts, missing blocks included", {
  set.seed(3)
  df <- data.frame(x1 = rnorm(20), x2 = rnorm(20, 5), k = factor(sample(c("a", "b"), 20, TRUE)),
                   b = rbinom(20, 1, 0.4))
  df$x1[c(2, 7)] <- NA
  df$b[3] <- NA
  fam <- product_family(num = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                        cat = categorical_dirichlet(), bin = bernoulli_beta(),
                        .columns = list(num = c("x1", "x2"), cat = "k", bin = "b"))
  prep <- fam_prepare(fam, df)
  for (m in c(0, 5, 19, 20)) {
    r <- fam_eval(prep, NULL, "combine", m)
    expect_equal(r[2, ], r[1, ], tolerance = 1e-9)
  }
})
