test_that("sample_hmc reproduces the moments of a correlated 2-D Gaussian", {
  skip_on_cran()
  set.seed(31)
  fit <- sample_hmc(target(gauss_ld, gauss_gr), c(0, 0), iter = 8000, burnin = 1000,
                    n_steps = 10, step_size = 0.05)
  expect_gauss_moments(fit$chains[[1]]$traces)
  st <- fit$chains[[1]]$state
  # dual averaging tunes the step size so that the mean acceptance
  # probability is near 0.65 (the averaged step is a little smaller)
  rate <- st$sum_accept_prob / st$n_prop
  expect_true(rate > 0.55 && rate < 0.9)
  expect_equal(hmc_divergences(fit), 0)
  expect_true(hmc_step_size(fit) > 0.05)
  # gradient by finite differences, diagonal mass matrix
  set.seed(32)
  fit <- sample_hmc(gauss_ld, c(0, 0), iter = 6000, burnin = 1000, n_steps = 8,
                    mass = 1 / diag(gauss_S))
  expect_gauss_moments(fit$chains[[1]]$traces)
})

test_that("HMC counts divergences with a far too large step", {
  set.seed(33)
  fit <- sample_hmc(target(gauss_ld, gauss_gr), c(1, 2), iter = 50, burnin = 0,
                    step_size = 5, n_steps = 20)
  expect_gt(hmc_divergences(fit), 40)
})

test_that("hmc: extend() equals one longer run; bad arguments are refused", {
  expect_extend_matches(function(iter)
    sample_hmc(gauss_ld, c(0, 0), iter = iter, burnin = 30, n_steps = 5),
    iter = 50, more = 40, seed = 5)
  expect_error(sample_hmc(gauss_ld, c(0, 0), step_size = -1), "`step_size`")
  expect_error(sample_hmc(gauss_ld, c(0, 0), n_steps = 0), "`n_steps`")
  expect_error(sample_hmc(gauss_ld, c(0, 0), adapt = NA), "`adapt`")
  expect_error(sample_hmc(gauss_ld, c(0, 0), target_accept = 1), "`target_accept`")
  expect_error(sample_hmc(gauss_ld, c(0, 0), mass = c(1, 0)), "`mass`")
  expect_error(hmc_step_size(1), "`fit`")
})
