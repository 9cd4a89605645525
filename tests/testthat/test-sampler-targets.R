# target() objects: their checks, and the checks of the values an R target
# returns (the message names the value, the iteration and theta); an
# argument vector kept by the user's function is never modified.

test_that("target() builds and checks targets", {
  tg <- target(gauss_ld, gradient = gauss_gr, init = c(0, 0))
  expect_s3_class(tg, "mcmix_target")
  expect_equal(tg$dim, 2L)
  expect_output(print(tg), "R function, dimension 2, with gradient")
  expect_equal(target_eval(tg, c(1, 2)), 0)
  expect_equal(target_eval(tg, c(0, 0), gradient = TRUE), gauss_gr(c(0, 0)))
  # finite differences agree with the exact gradient
  expect_equal(target_eval(gauss_ld, c(0.3, -1), gradient = TRUE),
               gauss_gr(c(0.3, -1)), tolerance = 1e-6)
  f <- function(x, s) -sum(x^2) / (2 * s)
  expect_equal(target_eval(target(f, s = 2), c(2, 0)), -1)
  expect_error(target(3), "`log_density`")
  expect_error(target(gauss_ld, gradient = 1), "`gradient`")
  expect_error(target(gauss_ld, dim = 0), "`dim`")
  expect_error(target(gauss_ld, init = c(0, 0, 0), dim = 2), "`init`")
})

test_that("further arguments of target() reach the functions as given, without a wrapper", {
  f <- function(x, s, m = 0) -sum((x - m)^2) / (2 * s)
  g <- function(x, s, m = 0) -(x - m) / s
  tg <- target(f, gradient = g, m = 1, s = 2)
  # the user's own functions are called (no R closure around them)
  expect_identical(tg$log_density, f)
  expect_identical(tg$gradient, g)
  expect_equal(target_eval(tg, c(2, 0)), -0.5)
  expect_equal(target_eval(tg, c(2, 0), gradient = TRUE), c(-0.5, 0.5))
  expect_equal(target_eval(target(function(x, a, b) a - b, b = 2, a = 5), 0), 3)
  # values are passed as they are: a symbol or a formula is not evaluated
  fo <- local(y ~ x)
  h <- function(x, form, e) {
    stopifnot(identical(environment(form), environment(fo)), identical(e, quote(abc)))
    -sum(x^2)
  }
  expect_equal(target_eval(target(h, form = fo, e = quote(abc)), c(1, 1)), -2)
  # a combined target takes them too, and a sampler gets the same draws
  vg <- function(x, s) list(value = -sum(x^2) / (2 * s), gradient = -x / s)
  set.seed(3)
  a <- sample_nuts(target(vg, gradient = TRUE, s = 2), init = c(0, 0), iter = 50,
                   burnin = 50, progress = FALSE)
  set.seed(3)
  b <- sample_nuts(target(function(x) -sum(x^2) / 4, gradient = function(x) -x / 2),
                   init = c(0, 0), iter = 50, burnin = 50, progress = FALSE)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  expect_error(target_eval(target(f, q = 2), c(1, 2)), "unused argument \\(q = 2\\)")
})

test_that("bad values of an R target are refused with the value, the iteration and theta", {
  expect_error(target_eval(function(x) NaN, c(0.1, 2)),
               "`log_density` returned NaN at the initial value \\(theta = 0.1, 2\\)")
  expect_error(target_eval(function(x) Inf, 1), "returned Inf")
  expect_error(target_eval(function(x) c(1, 2), 1), "numeric vector of length 2")
  expect_error(target_eval(function(x) "a", 1), "character string \"a\"")
  expect_error(target_eval(function(x) NULL, 1), "returned NULL")
  expect_error(target_eval(function(x) NA, 1), "returned NA")
  expect_error(target_eval(function(x) stop("boom"), c(0.1, 2)),
               "`log_density` failed at the initial value \\(theta = 0.1, 2\\): boom")
  expect_equal(target_eval(function(x) -Inf, 1), -Inf)
  # during sampling a NaN rejects the point (counted); an error of the
  # function names the iteration
  ld <- function(x) if (x[1] > 0.5) NaN else -sum(x^2)
  set.seed(1)
  fit <- sample_mh(ld, c(0, 0), iter = 1000, burnin = 0)
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
  expect_true(all(fit$chains[[1]]$traces[, 1] <= 0.5))
  cnt <- 0
  ld2 <- function(x) { cnt <<- cnt + 1; if (cnt == 17) stop("no luck"); -sum(x^2) }
  expect_error(sample_mh(ld2, c(0, 0), iter = 100, burnin = 0),
               "`log_density` failed at iteration [0-9]+ \\(theta = .*\\): no luck")
  ld3 <- function(x) if (x[1] > 0.5) c(1, 2) else -sum(x^2)
  expect_error(sample_slice(ld3, c(0, 0), iter = 100), "at iteration")
  expect_error(sample_hmc(target(gauss_ld, gradient = function(x) c(NaN, 1)), c(0, 0),
                          iter = 10), "gradient")
  expect_error(sample_hmc(target(gauss_ld, gradient = function(x) 1), c(0, 0),
                          iter = 10), "`gradient` must return a numeric vector of length 2")
  # the session survives and the RNG still works
  expect_length(stats::runif(2), 2)
})

test_that("an argument vector kept by the user's function is never modified", {
  kept <- list()
  ld <- function(x) { kept[[length(kept) + 1L]] <<- x; -sum(x^2) }
  set.seed(1)
  fit <- sample_mh(ld, c(0, 0), iter = 20, burnin = 0)
  expect_equal(length(unique(lapply(kept, identity))) > 5, TRUE)
  expect_equal(kept[[1]], c(0, 0))
})
