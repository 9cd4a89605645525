# probit_gibbs(): Albert-Chib data augmentation.

test_that("probit_gibbs agrees with the exact posterior of a one-observation model", {
  # One observation y = 1 with x = 1 and beta ~ N(0, 1): the posterior is
  # skew-normal, p(beta | y) = 2 phi(beta) Phi(beta), with mean
  # sqrt(1/pi) and variance 1 - 1/pi.
  set.seed(101)
  fit <- probit_gibbs(matrix(1), 1, prior_mean = 0, prior_cov = 1,
                      iter = 20000, burnin = 100, progress = FALSE)
  b <- fit$chains[[1]]$traces[, 1]
  expect_lt(abs(mean(b) - sqrt(1 / pi)), 5 * batch_se(b))
  expect_lt(abs(mean(b^2) - (1 - 1 / pi + 1 / pi)), 5 * batch_se(b^2))
  # P(beta < 0) = 2 * int_{-Inf}^0 phi Phi = 2 * (1/8) = 1/4
  expect_lt(abs(mean(b < 0) - 0.25), 5 * batch_se(as.numeric(b < 0)))
})

test_that("probit_gibbs agrees with numerical integration of a one-coefficient posterior", {
  # p(beta | y) propto N(beta; 0.5, 2^2) prod_i Phi((2 y_i - 1) x_i beta)
  x <- c(-1, 0.5, 1, 2, -0.3, 1.5, -2)
  y <- c(0, 1, 0, 1, 1, 1, 0)
  post <- function(b) stats::dnorm(b, 0.5, 2) *
    vapply(b, function(bb) prod(stats::pnorm((2 * y - 1) * x * bb)), 0)
  Z <- stats::integrate(post, -Inf, Inf)$value
  m1 <- stats::integrate(function(b) b * post(b), -Inf, Inf)$value / Z
  m2 <- stats::integrate(function(b) b^2 * post(b), -Inf, Inf)$value / Z
  p0 <- stats::integrate(post, -Inf, 0)$value / Z
  set.seed(102)
  fit <- probit_gibbs(matrix(x), y, prior_mean = 0.5, prior_cov = 4,
                      iter = 20000, burnin = 200, progress = FALSE)
  b <- fit$chains[[1]]$traces[, 1]
  expect_lt(abs(mean(b) - m1), 5 * batch_se(b))
  expect_lt(abs(mean(b^2) - m2), 5 * batch_se(b^2))
  expect_lt(abs(mean(b < 0) - p0), 5 * batch_se(as.numeric(b < 0)))
})

test_that("probit_gibbs is calibrated (simulation-based calibration)", {
  skip_on_cran()
  set.seed(2024)
  n <- 15
  X <- cbind(1, seq(-1.5, 1.5, length.out = n))
  L <- 19L
  reps <- 200L
  ranks <- t(vapply(seq_len(reps), function(r) {
    beta <- stats::rnorm(2)
    y <- stats::rbinom(n, 1, stats::pnorm(X %*% beta))
    fit <- probit_gibbs(X, y, prior_mean = 0, prior_cov = 1, iter = L * 10,
                        burnin = 50, thin = 10, progress = FALSE)
    sbc_rank(fit$chains[[1]]$traces, beta)
  }, numeric(2)))
  expect_true(all(sbc_pvalues(ranks, L) > 0.001))
})

test_that("probit_gibbs: formula interface, extend() equals one longer run", {
  d <- data.frame(x = c(-2, -1, -0.5, 0, 0.5, 1, 2, 3),
                  y = c(0, 0, 1, 0, 1, 1, 1, 1))
  set.seed(5)
  a <- probit_gibbs(y ~ x, data = d, iter = 30, burnin = 7, thin = 2,
                    chains = 2, progress = FALSE)
  a <- extend(a, 40)
  set.seed(5)
  b <- probit_gibbs(y ~ x, data = d, iter = 70, burnin = 7, thin = 2,
                    chains = 2, progress = FALSE)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  expect_identical(a$chains[[2]]$traces, b$chains[[2]]$traces)
  expect_equal(colnames(b$chains[[1]]$traces), c("(Intercept)", "x"))
  expect_equal(nrow(b$chains[[1]]$traces), 35L)
})

test_that("probit_gibbs refuses bad input, naming the argument", {
  X <- cbind(1, 1:4)
  expect_error(probit_gibbs(X, c(0, 1, 2, 1)), "`y`")
  expect_error(probit_gibbs(X, c(0, 1, 1)), "`y`")
  expect_error(probit_gibbs(X, c(0, 1, NA, 1)), "`y`")
  expect_error(probit_gibbs("a", 1), "`x`")
  expect_error(probit_gibbs(X, c(0, 1, 0, 1), prior_cov = -1), "`prior_cov`")
  expect_error(probit_gibbs(X, c(0, 1, 0, 1), prior_cov = matrix(c(1, 2, 2, 1), 2)),
               "`prior_cov`")
  expect_error(probit_gibbs(X, c(0, 1, 0, 1), prior_mean = c(1, 2, 3)), "`prior_mean`")
  expect_error(probit_gibbs(X, c(0, 1, 0, 1), iter = 0), "`iter`")
  expect_error(probit_gibbs(X, c(0, 1, 0, 1), thin = 1.5), "`thin`")
  expect_error(probit_gibbs(X, c(0, 1, 0, 1), bogus = 1), "`bogus`")
})

test_that("model samplers give the same draws on a future backend", {
  skip_on_cran()
  require_suggested("future.apply")
  old <- future::plan("multisession", workers = 2)
  on.exit(future::plan(old), add = TRUE)
  X <- cbind(1, 1:6)
  y <- c(0, 0, 1, 0, 1, 1)
  set.seed(21)
  a <- probit_gibbs(X, y, iter = 20, chains = 2, backend = "future", progress = FALSE)
  set.seed(21)
  b <- probit_gibbs(X, y, iter = 20, chains = 2, backend = "sequential", progress = FALSE)
  expect_identical(a$chains[[2]]$traces, b$chains[[2]]$traces)
  set.seed(22)
  a <- ising_swendsen_wang(4, 4, J = 0.5, iter = 20, chains = 2, backend = "future",
                           progress = FALSE)
  set.seed(22)
  b <- ising_swendsen_wang(4, 4, J = 0.5, iter = 20, chains = 2, progress = FALSE)
  expect_identical(ising_mean(a), ising_mean(b))
})
