# The families' leave-one-out predictive slot (log_predictive_loo, plugin
# ABI 4): log p(x_i | the other members) read from the full cluster's
# statistics must equal, up to rounding, the host's path (copy the stats,
# remove x_i, log_predictive), and both must equal the closed form
# log p(X) - log p(X without x_i) computed from log marginals.

# Both columns for the rows of x (the family prepared on x: default
# hyperparameters may depend on the data, so every evaluation below uses
# that one preparation).
loo_both <- function(family, x) mcmix:::.family_eval(fam_prepare(family, x), NULL, "loo")

# log p(x_i | X_{-i}) as a difference of log marginal likelihoods (the
# marginal of one row is its prior predictive).
loo_by_marginals <- function(family, x) {
  prep <- fam_prepare(family, x)
  ev <- function(data, op, arg = NULL) mcmix:::.family_eval(prep, data, op, arg)
  full <- ev(x, "log_marginal")
  vapply(seq_len(nrow(x)), function(i) {
    rest <- x[-i, , drop = FALSE]
    full - if (nrow(rest) >= 2) ev(rest, "log_marginal")
           else ev(x[0, , drop = FALSE], "log_predictive", rest)
  }, 0)
}

expect_loo_exact <- function(family, x, tol = 1e-10, label = "") {
  r <- loo_both(family, x)
  expect_false(anyNA(r[, 1]), label = paste(label, "has the slot"))
  expect_equal(r[, 1], r[, 2], tolerance = tol, label = paste(label, "slot vs copy-remove"))
  expect_equal(r[, 1], loo_by_marginals(family, x), tolerance = 1e-8,
               label = paste(label, "slot vs marginals"))
}

test_that("gaussian_niw's leave-one-out predictive equals copy-remove-predictive", {
  set.seed(81)
  x <- matrix(stats::rnorm(40, 3), 20, 2)
  expect_loo_exact(gaussian_niw(), x, label = "niw D = 2")
  expect_loo_exact(gaussian_niw(prior_mean = c(3, 3), kappa = 0.3, df = 5,
                                scale = matrix(c(2, 0.5, 0.5, 1), 2)), x[1:3, ],
                   label = "niw D = 2, n = 3")
  x3 <- matrix(stats::rnorm(45), 15, 3) %*% matrix(c(1, 0.8, 0, 0, 1, 0.3, 0, 0, 1), 3)
  expect_loo_exact(gaussian_niw(), x3, label = "niw D = 3")
  expect_loo_exact(gaussian_niw(), matrix(stats::rnorm(12, 100, 0.01), 12, 1),
                   label = "niw D = 1 far from 0")
  # an outlier that dominates the scatter: the rank-one update cancels and
  # the slot takes its fallback (a downdated copy of the factor)
  xo <- rbind(x[1:5, ], c(1e6, -1e6))
  r <- loo_both(gaussian_niw(), xo)
  expect_equal(r[, 1], r[, 2], tolerance = 1e-8)
})

test_that("gaussian_diag and gaussian_iso leave-one-out predictives equal copy-remove", {
  set.seed(82)
  x <- matrix(stats::rnorm(60, c(-2, 0, 5)), 20, 3, byrow = TRUE)
  expect_loo_exact(gaussian_diag(), x, label = "diag")
  expect_loo_exact(gaussian_diag(prior_mean = 1, kappa = 2, shape = 0.7, rate = 3), x[1:2, ],
                   label = "diag n = 2")
  expect_loo_exact(gaussian_iso(), x, label = "iso")
  expect_loo_exact(gaussian_iso(prior_mean = 1, kappa = 0.2, shape = 1.5, rate = 0.5), x[1:2, ],
                   label = "iso n = 2")
  xh <- matrix(stats::rnorm(5 * 64), 5, 64)
  expect_loo_exact(gaussian_iso(), xh, label = "iso D = 64")
  expect_loo_exact(gaussian_diag(), xh, label = "diag D = 64")
})

test_that("discrete families' leave-one-out predictives equal copy-remove", {
  set.seed(83)
  xb <- matrix(stats::rbinom(60, 1, 0.3), 15, 4)
  expect_loo_exact(bernoulli_beta(0.5, 2), xb, label = "bernoulli")
  xp <- matrix(stats::rpois(30, c(0.5, 4, 40)), 10, 3, byrow = TRUE)
  expect_loo_exact(poisson_gamma(shape = 2, rate = 0.5), xp, label = "poisson")
  xc <- t(stats::rmultinom(8, 5, c(0.1, 0.2, 0.3, 0.4)))
  xc[2, 3] <- 30
  expect_loo_exact(categorical_dirichlet(c(0.5, 1, 2, 0.3)), xc, label = "multinomial")
  f <- factor(sample(c("a", "b", "c"), 12, TRUE), levels = c("a", "b", "c"))
  r <- loo_both(categorical_dirichlet(c(1, 2, 3)), f)
  expect_equal(r[, 1], r[, 2], tolerance = 1e-12, label = "one-hot")
})

test_that("the product family combines its parts' leave-one-out predictives, missing blocks too", {
  df <- tb_mixed(10, 12)
  df$x1[4] <- NA
  df$x2[c(1, 4, 8)] <- NA
  df$cat[6] <- NA
  fam <- product_family(num = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                        cat = categorical_dirichlet(), bin = bernoulli_beta(),
                        .columns = list(num = c("x1", "x2")))
  prep <- fam_prepare(fam, df)
  r <- mcmix:::.family_eval(prep, NULL, "loo")
  expect_false(anyNA(r[, 1]))
  expect_equal(r[, 1], r[, 2], tolerance = 1e-10)
  # a block seen in one row only: that row's part is back to the prior
  # (rows 1 and 4 of the first prepared data lack x2 and x1 or cat)
  prep2 <- fam_prepare(fam, df)
  x2 <- mcmix:::.family_eval(prep2, df[c(1, 2, 6), ], "loo")
  expect_equal(x2[, 1], x2[, 2], tolerance = 1e-10)
})

test_that("gaussian_mean's leave-one-out predictive equals copy-remove (D = 1 closed form, D = 2)", {
  set.seed(84)
  expect_loo_exact(gaussian_mean(cov = 2, prior_mean = 1, prior_cov = 9),
                   matrix(stats::rnorm(8, 3), 8, 1), label = "mean D = 1")
  expect_loo_exact(gaussian_mean(cov = matrix(c(1, 0.3, 0.3, 2), 2), prior_cov = 4 * diag(2)),
                   matrix(stats::rnorm(10), 5, 2), label = "mean D = 2")
})

test_that("the collapsed sampler with the slot matches the host's copy-remove path", {
  # a plugin family without the slot (ABI 1, the poisson_gamma functions)
  # and the built-in with it give the same draws (the allocation
  # probabilities agree to rounding) for the collapsed and split-merge scans
  .Call(mcmix:::C_ffi_dpx_register_abi1)
  xp <- c(0, 1, 1, 4, 6, 7, 2, 9, 3, 0)
  f <- mcmix_family("poisson_gamma_abi1", hyper = c(2, 0.5), dim = 1, data_type = "count")
  g <- poisson_gamma(shape = 2, rate = 0.5)
  for (alg in c("collapsed", "split_merge")) {
    set.seed(5)
    a <- sample_posterior(dp_mixture(f), xp, iter = 200, algorithm = alg, progress = FALSE)
    set.seed(5)
    b <- sample_posterior(dp_mixture(g), xp, iter = 200, algorithm = alg, progress = FALSE)
    expect_equal(a$chains[[1]]$traces, b$chains[[1]]$traces, tolerance = 1e-12, label = alg)
  }
})
