# sample_tempering() against the exact mode masses of a well-separated
# bimodal mixture, extend() against one longer run, and NaN log
# likelihoods rejected and counted.

test_that("parallel tempering gets the mode masses of a well-separated bimodal mixture", {
  skip_on_cran()
  ll <- function(x) log(0.3 * dnorm(x, -10) + 0.7 * dnorm(x, 10))
  lp <- function(x) dnorm(x, 0, 100, log = TRUE)
  set.seed(51)
  fit <- sample_tempering(ll, lp, init = -10, temperatures = 0.5^(0:7),
                          iter = 30000, burnin = 2000)
  x <- fit$chains[[1]]$traces[, 1]
  ind <- as.numeric(x > 0)
  expect_lt(abs(mean(ind) - 0.7), 5 * bm_se(ind))
  # within the right mode: N(10, 1)
  xr <- x[x > 0]
  expect_lt(abs(mean(xr) - 10), 0.05)
  sr <- swap_rates(fit)
  expect_equal(nrow(sr), 7)
  expect_true(all(sr$rate > 0.2 & sr$rate <= 1))
  expect_equal(sum(sr$proposed), 30000)
  expect_length(attr(sr, "move_rates"), 8)
  # a plain random walk (fixed scale 1) started in the left mode never leaves it
  set.seed(51)
  f0 <- sample_mh(function(x) ll(x) + lp(x), -10, iter = 5000, proposal = proposal_rw(1),
                  adapt = adapt_none())
  expect_true(all(f0$chains[[1]]$traces < 0))
})

test_that("tempering: extend() equals one longer run; bad arguments are refused", {
  ll <- function(x) -sum(x^2) / 2
  lp <- function(x) 0
  expect_extend_matches(function(iter)
    sample_tempering(ll, lp, c(0, 0), c(1, 0.5, 0.2), iter = iter, burnin = 10),
    iter = 40, more = 30, seed = 7)
  expect_error(sample_tempering(ll, lp, 0, c(0.5, 1)), "`temperatures`")
  expect_error(sample_tempering(ll, lp, 0, c(1, 0)), "`temperatures`")
  expect_error(sample_tempering(ll, lp, 0, c(1, 0.5), scale = c(1, 2, 3)), "`scale`")
  expect_error(sample_tempering(3, lp, 0, c(1, 0.5)), "`log_lik`")
  expect_error(sample_tempering(ll, function(x) NaN, 0, c(1, 0.5)), "`log_prior` returned NaN")
  expect_error(sample_tempering(ll, lp, matrix(0, 1, 3), c(1, 0.5)), "`init`")
})

test_that("parallel tempering rejects and counts proposals where the log likelihood is NaN", {
  ll <- function(x) if (abs(x[1]) < trunc_r) 0 else NaN
  lp <- function(x) -sum(x^2) / 2
  set.seed(53)
  fit <- sample_tempering(ll, lp, init = c(0, 0), temperatures = c(1, 0.5), iter = 20000,
                          burnin = 500, scale = 1.5, progress = FALSE)
  # at every temperature the target is the truncated normal (ll is 0 or NaN)
  expect_trunc_moments(fit$chains[[1]]$traces)
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
  e <- tryCatch(sample_tempering(ll, lp, init = c(2, 0), temperatures = c(1, 0.5),
                                 progress = FALSE), error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
  expect_match(conditionMessage(e), "`log_lik` returned NaN")
})
