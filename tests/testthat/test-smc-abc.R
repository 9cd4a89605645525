# sample_abc(): exact posterior of the coin example with tolerance zero.

test_that("rejection ABC with tolerance zero gives the exact Beta posterior", {
  # h heads in n tosses, theta ~ U(0, 1): accepting simulated data with exactly
  # h heads keeps draws from Beta(1 + h, 1 + n - h); the acceptance
  # probability is the prior predictive P(H = h) = 1 / (n + 1).
  n_toss <- 12; h <- 9
  set.seed(91)
  r <- sample_abc(function(n) stats::runif(n), function(p) stats::rbinom(1, n_toss, p),
                  observed = h, tolerance = 0, n = 20000)
  expect_s3_class(r, "mcmix_abc")
  acc <- r$accepted[, 1]
  expect_gt(stats::ks.test(acc, "pbeta", 1 + h, 1 + n_toss - h)$p.value, 0.001)
  p <- 1 / (n_toss + 1)
  expect_lt(abs(r$acceptance_rate - p), 4 * sqrt(p * (1 - p) / 20000))
  expect_equal(nrow(r$accepted), sum(r$distances == 0))
  expect_output(print(r), "accepted")
  # the same with the data as a vector of tosses and the number of heads as
  # the (sufficient) summary statistic
  set.seed(92)
  obs <- c(rep(1, h), rep(0, n_toss - h))
  r2 <- sample_abc(function(n) matrix(stats::runif(n), ncol = 1, dimnames = list(NULL, "p")),
                   function(p) stats::rbinom(n_toss, 1, p), observed = obs,
                   summary = sum, tolerance = 0, n = 20000)
  expect_equal(colnames(r2$accepted), "p")
  expect_gt(stats::ks.test(r2$accepted[, 1], "pbeta", 1 + h, 1 + n_toss - h)$p.value, 0.001)
})

test_that("sample_abc keeps a quantile of the distances and uses a custom distance", {
  set.seed(93)
  r <- sample_abc(function(n) stats::rnorm(n), function(m) stats::rnorm(5, m),
                  observed = c(0.1, 0.5, -0.2, 0.3, 0.4), summary = mean,
                  distance = function(a, b) abs(a - b), quantile = 0.05, n = 2000)
  expect_equal(nrow(r$accepted), 100L)
  expect_equal(r$tolerance, sort(r$distances)[100])
  expect_equal(r$acceptance_rate, 0.05)
})

test_that("sample_abc refuses bad input, naming the argument", {
  ps <- function(n) stats::runif(n)
  sim <- function(p) stats::rbinom(1, 5, p)
  expect_error(sample_abc(ps, sim, 3), "`tolerance` and `quantile`")
  expect_error(sample_abc(ps, sim, 3, tolerance = 0, quantile = 0.1), "`tolerance` and `quantile`")
  expect_error(sample_abc(ps, sim, 3, tolerance = -1), "`tolerance`")
  expect_error(sample_abc(ps, sim, 3, quantile = 0), "`quantile`")
  expect_error(sample_abc(ps, "sim", 3, tolerance = 0), "`simulator`")
  expect_error(sample_abc(ps, sim, 3, summary = 1, tolerance = 0), "`summary`")
  expect_error(sample_abc(ps, sim, 3, distance = "l1", tolerance = 0), "`distance`")
  expect_error(sample_abc(ps, sim, 3, tolerance = 0, n = 0), "`n`")
  expect_error(sample_abc(function(n) 1, sim, 3, tolerance = 0, n = 5), "`prior_sampler")
  expect_error(sample_abc(ps, function(p) "x", 3, tolerance = 0, n = 5), "summary")
  expect_error(sample_abc(ps, sim, 3, distance = function(a, b) -1, tolerance = 0, n = 5),
               "`distance`")
})
