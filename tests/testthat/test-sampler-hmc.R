# sample_hmc() against the exact moments of a correlated Gaussian (helper-
# sampler.R), its step-size adaptation and divergence count, extend()
# against one longer run (bit for bit), and NaN log densities as outside
# the support.

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

test_that("HMC rejects points where the log density is NaN and samples the truncated density", {
  set.seed(81)
  fit <- sample_hmc(target(trunc_ld, gradient = trunc_gr), init = c(1.4, 0), iter = 8000,
                    burnin = 500, n_steps = 5, step_size = 2, progress = FALSE)
  expect_trunc_moments(fit$chains[[1]]$traces)
  st <- fit$chains[[1]]$state
  expect_gt(st$n_nonfinite, 0)
  expect_gte(st$n_divergent + st$warmup_divergent, st$n_nonfinite)
  expect_equal(hmc_divergences(fit), st$n_divergent)
  # a non-finite gradient during sampling: rejected, never an error
  late <- target(function(x) -sum(x^2) / 2,
                 gradient = function(x) if (abs(x[1]) > 0.3) c(Inf, 0) else -x)
  set.seed(82)
  fit <- sample_hmc(late, init = c(0, 0), iter = 200, progress = FALSE)
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
  # at the initial values: a classed error naming `init`
  e <- tryCatch(sample_hmc(target(trunc_ld, gradient = trunc_gr), init = c(3, 0), iter = 5,
                           progress = FALSE), error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
  expect_identical(e$arg, "init")
})

test_that("HMC gives the same draws from one function for the value and gradient as from two", {
  run <- function(tg) {
    set.seed(83)
    sample_hmc(tg, init = c(0.5, 0), iter = 300, burnin = 100, n_steps = 5, progress = FALSE)
  }
  a <- run(target(trunc_ld, gradient = trunc_gr))
  b <- run(target(trunc_vg, gradient = TRUE))
  expect_identical(b$chains[[1]]$traces, a$chains[[1]]$traces)
  expect_identical(b$chains[[1]]$state, a$chains[[1]]$state)
})
