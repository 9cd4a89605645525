# anneal(): simulated annealing for the mode.

test_that("anneal finds the global mode of a bimodal density", {
  # modes near (-2, -2) (weight 0.3) and (2, 2) (weight 0.7); start in the
  # lower mode
  f <- function(x) log(0.3 * exp(-sum((x + 2)^2)) + 0.7 * exp(-sum((x - 2)^2)))
  set.seed(101)
  a <- anneal(f, init = c(-2, -2), iter = 5000, t0 = 5, scale = 1.5)
  expect_s3_class(a, "mcmix_anneal")
  # the exact maximiser is (2, 2) up to exp(-32) corrections
  expect_lt(max(abs(a$par - 2)), 0.05)
  expect_equal(a$value, f(a$par))
  expect_equal(a$value, max(c(a$values, f(c(-2, -2)))))
  expect_equal(dim(a$path), c(5000L, 2L))
  expect_true(all(diff(a$temperatures) < 0))
  expect_equal(a$temperatures[5000], 1e-3)
  expect_output(print(a), "maximum")
})

test_that("anneal minimises an objective and accepts a temperature vector", {
  rosen <- function(x) (1 - x[1])^2 + 10 * (x[2] - x[1]^2)^2
  set.seed(102)
  a <- anneal(rosen, init = c(-1, 1), iter = 20000, scale = 0.05, minimize = TRUE,
              t0 = 0.5)
  expect_lt(a$value, 1e-3)
  expect_equal(a$value, rosen(unname(a$par)))
  expect_lt(max(abs(a$par - 1)), 0.1)
  set.seed(103)
  b <- anneal(function(x) -abs(x - 3), init = 0, temperatures = rep(0.01, 500), scale = 0.5)
  expect_lt(abs(b$par - 3), 0.05)
  expect_named(b$par, "theta")
})

test_that("anneal refuses bad input", {
  f <- function(x) -sum(x^2)
  expect_error(anneal(f, init = "a"), "`init`")
  expect_error(anneal(f, init = 0, iter = 0), "`iter`")
  expect_error(anneal(f, init = 0, t0 = -1), "`t0`")
  expect_error(anneal(f, init = 0, scale = c(1, 2)), "`scale`")
  expect_error(anneal(f, init = 0, temperatures = c(1, -1)), "`temperatures`")
  expect_error(anneal(function(x) -Inf, init = 0), "`init`")
  expect_error(anneal(function(x) NaN, init = 0), "`log_density`|NaN")
  expect_error(anneal(42, init = 0), "`target`")
  expect_error(anneal(f, init = 0, minimize = NA), "`minimize`")
})
