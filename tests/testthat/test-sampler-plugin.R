# Compiled targets from the example plugin package inst/plugins/mcmixtarget.
test_that("a compiled target from another package runs in sample_mh and sample_hmc", {
  ns <- install_test_plugin("mcmixtarget")
  xp <- ns$gauss2_target(gauss_mu, gauss_S)
  expect_s3_class(xp, "mcmix_target_ptr")
  tg <- target(xp)
  expect_equal(tg$dim, 2L)
  expect_true(tg$has_gradient)
  expect_equal(target_eval(xp, c(0.3, -1)), gauss_ld(c(0.3, -1)))
  expect_equal(target_eval(xp, c(0.3, -1), gradient = TRUE), gauss_gr(c(0.3, -1)))
  set.seed(61)
  fit <- sample_mh(xp, c(0, 0), iter = 30000, burnin = 1000,
                   proposal = proposal_rw(cov = gauss_S))
  expect_gauss_moments(fit$chains[[1]]$traces)
  # same draws as the R-function version of the same density
  set.seed(62)
  f_c <- sample_mh(xp, c(0, 0), iter = 200, proposal = proposal_rw(cov = gauss_S))
  set.seed(62)
  f_r <- sample_mh(gauss_ld, c(0, 0), iter = 200, proposal = proposal_rw(cov = gauss_S))
  expect_equal(f_c$chains[[1]]$traces, f_r$chains[[1]]$traces, tolerance = 1e-10)
  set.seed(63)
  fit <- sample_hmc(xp, c(0, 0), iter = 6000, burnin = 1000, n_steps = 10)
  expect_gauss_moments(fit$chains[[1]]$traces)
})

test_that("the banana target (no gradient) has the exact moments", {
  ns <- install_test_plugin("mcmixtarget")
  a <- 1
  b <- 0.5
  xp <- ns$banana_target(a, b)
  expect_false(target(xp)$has_gradient)
  set.seed(64)
  fit <- sample_hmc(xp, c(0, 0), iter = 8000, burnin = 1000, n_steps = 10)
  tr <- fit$chains[[1]]$traces
  # x1 ~ N(0, a^2), x2 | x1 ~ N(b x1^2 - a^2 b, 1): E x2 = 0, Var x2 = 1 + 2 b^2 a^4
  expect_lt(abs(mean(tr[, 1])), 5 * bm_se(tr[, 1]))
  expect_lt(abs(mean(tr[, 2])), 5 * bm_se(tr[, 2]))
  v <- tr[, 2]^2
  expect_lt(abs(mean(v) - (1 + 2 * b^2 * a^4)), 5 * bm_se(v))
})

test_that("bad values of compiled targets and invalid pointers are refused", {
  ns <- install_test_plugin("mcmixtarget")
  # NaN for x1 > 1: rejected during sampling, so x1 ~ N(0, 1) truncated to
  # x1 <= 1, with mean -phi(1) / Phi(1)
  set.seed(65)
  fit <- sample_mh(ns$bad_target(), c(0, 0), iter = 20000, burnin = 200,
                   proposal = proposal_rw(scale = 1.5))
  x <- fit$chains[[1]]$traces[, 1]
  expect_true(all(x <= 1))
  expect_lt(abs(mean(x) + dnorm(1) / pnorm(1)), 5 * bm_se(x))
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
  expect_error(sample_mh(ns$bad_target(), c(2, 0)), class = "mcmix_error_init")
  expect_error(sample_mh(ns$gauss2_target(), c(0, 0, 0)), "dimension 2")
  expect_error(target(ns$gauss2_target(), gradient = function(x) x), "`gradient`")
  f <- tempfile(fileext = ".rds")
  saveRDS(ns$gauss2_target(), f)
  stale <- readRDS(f)
  expect_error(target(stale), "no longer valid")
})

test_that("a compiled target with the one-call slot gives the draws of its two functions", {
  ns <- install_test_plugin("mcmixtarget")
  set.seed(66)
  X <- cbind(1, matrix(rnorm(60), 30))
  y <- rbinom(30, 1, plogis(X %*% c(0.5, 1, -1)))
  two <- target(ns$logistic_target(X, y, gradient = "two"))
  one <- target(ns$logistic_target(X, y, gradient = "one"))
  expect_false(two$combined)
  expect_true(one$combined)
  expect_output(print(one), "one call for both")
  expect_equal(target_eval(one, c(0.1, 0.2, 0.3), gradient = TRUE),
               target_eval(two, c(0.1, 0.2, 0.3), gradient = TRUE))
  runs <- lapply(list(two, one), function(tg) {
    set.seed(67)
    sample_nuts(tg, init = c(0, 0, 0), iter = 200, burnin = 200, progress = FALSE)
  })
  expect_identical(runs[[2]]$chains[[1]]$traces, runs[[1]]$chains[[1]]$traces)
  expect_identical(runs[[2]]$chains[[1]]$state, runs[[1]]$chains[[1]]$state)
  # the analytic gradient agrees with finite differences of the log density
  none <- target(ns$logistic_target(X, y))
  expect_equal(target_eval(none, c(0.1, 0.2, 0.3), gradient = TRUE),
               target_eval(one, c(0.1, 0.2, 0.3), gradient = TRUE), tolerance = 1e-6)
})
