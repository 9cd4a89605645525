# sample_slice() against exact moments of a correlated Gaussian and the
# exact probabilities of a five-state distribution (integer slice
# sampler), extend() against one longer run, and NaN log densities.

test_that("sample_slice reproduces the moments of a correlated 2-D Gaussian", {
  skip_on_cran()
  set.seed(21)
  fit <- sample_slice(gauss_ld, c(0, 0), iter = 20000, burnin = 500, width = 2)
  expect_gauss_moments(fit$chains[[1]]$traces)
  expect_gt(fit$chains[[1]]$state$n_eval, 2 * 20500)
})

test_that("the integer slice sampler samples the five-state distribution", {
  skip_on_cran()
  set.seed(22)
  n <- 30000
  fit <- sample_slice(five_ld, init = 0, iter = n, burnin = 100, discrete = TRUE,
                      width = 2)
  x <- fit$chains[[1]]$traces[, 1]
  expect_true(all(x %in% 0:4))
  for (k in 0:4) {
    ind <- as.numeric(x == k)
    expect_lt(abs(mean(ind) - five_pi[k + 1]), 5 * bm_se(ind))
  }
  # mixed: one discrete and one continuous coordinate (independent)
  ld <- function(x) five_ld(x[1]) + dnorm(x[2], 3, 1, log = TRUE)
  fit <- sample_slice(ld, init = c(2, 0), iter = 10000, discrete = 1)
  tr <- fit$chains[[1]]$traces
  expect_true(all(tr[, 1] %in% 0:4))
  ind <- as.numeric(tr[, 1] == 2)
  expect_lt(abs(mean(ind) - five_pi[3]), 5 * bm_se(ind))
  expect_lt(abs(mean(tr[, 2]) - 3), 5 * bm_se(tr[, 2]))
})

test_that("slice: extend() equals one longer run; bad arguments are refused", {
  expect_extend_matches(function(iter)
    sample_slice(gauss_ld, c(0, 0), iter = iter, burnin = 10, thin = 2),
    iter = 100, more = 60, seed = 4)
  expect_error(sample_slice(gauss_ld, c(0, 0), width = 0), "`width`")
  expect_error(sample_slice(gauss_ld, c(0, 0), width = c(1, 2, 3)), "`width`")
  expect_error(sample_slice(gauss_ld, c(0, 0), max_steps = 0), "`max_steps`")
  expect_error(sample_slice(gauss_ld, c(0, 0), discrete = 3), "`discrete`")
  expect_error(sample_slice(five_ld, 0.5, discrete = TRUE), "`init`")
})

test_that("slice sampling takes points where the log density is NaN as outside the slice, and counts them", {
  set.seed(23)
  fit <- sample_slice(trunc_ld, init = c(0, 0), iter = 10000, burnin = 200, width = 2,
                      progress = FALSE)
  expect_trunc_moments(fit$chains[[1]]$traces)
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
  e <- tryCatch(sample_slice(trunc_ld, init = c(2, 0), progress = FALSE), error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
})
