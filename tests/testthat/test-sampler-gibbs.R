# exact full conditionals of the 2-D Gaussian
gauss_cond <- list(
  function(th) rnorm(1, gauss_mu[1] + gauss_S[1, 2] / gauss_S[2, 2] * (th[2] - gauss_mu[2]),
                     sqrt(gauss_S[1, 1] - gauss_S[1, 2]^2 / gauss_S[2, 2])),
  function(th) rnorm(1, gauss_mu[2] + gauss_S[1, 2] / gauss_S[1, 1] * (th[1] - gauss_mu[1]),
                     sqrt(gauss_S[2, 2] - gauss_S[1, 2]^2 / gauss_S[1, 1])))

test_that("sample_gibbs with exact conditionals reproduces the Gaussian moments", {
  skip_on_cran()
  for (scan in c("systematic", "random")) {
    set.seed(41)
    fit <- sample_gibbs(gauss_cond, init = c(a = 0, b = 0), scan = scan, iter = 10000,
                        burnin = 200)
    tr <- fit$chains[[1]]$traces
    expect_equal(colnames(tr), c("a", "b"))
    expect_gauss_moments(tr)
  }
})

test_that("MH-within-Gibbs steps and blocks", {
  skip_on_cran()
  set.seed(42)
  cond <- list(gauss_cond[[1]], mh_step(gauss_ld, scale = 1.5))
  fit <- sample_gibbs(cond, init = c(0, 0), iter = 15000, burnin = 500)
  expect_gauss_moments(fit$chains[[1]]$traces)
  st <- fit$chains[[1]]$state
  expect_equal(unname(st$n_prop), c(0, 15000))
  expect_gt(st$n_accept[[2]], 0)
  # one block of both coordinates, drawn jointly
  L <- t(chol(gauss_S))
  fit <- sample_gibbs(init = c(0, 0), conditionals = list(function(th) gauss_mu + as.vector(L %*% rnorm(2))),
                      blocks = list(1:2), iter = 5000)
  expect_gauss_moments(fit$chains[[1]]$traces)
})

test_that("gibbs: extend() equals one longer run; bad arguments are refused", {
  set.seed(6)
  f1 <- extend(sample_gibbs(gauss_cond, init = c(0, 0), iter = 50, burnin = 5, scan = "random"), 30)
  set.seed(6)
  f2 <- sample_gibbs(gauss_cond, init = c(0, 0), iter = 80, burnin = 5, scan = "random")
  expect_identical(f1$chains[[1]]$traces, f2$chains[[1]]$traces)
  expect_error(sample_gibbs(gauss_cond, init = c(0, 0), scan = "zigzag"), "`scan`")
  expect_error(sample_gibbs(list(1, 2), init = c(0, 0)), "`conditionals\\[\\[1\\]\\]`")
  expect_error(sample_gibbs(gauss_cond, init = c(0, 0, 0)), "`blocks`")
  expect_error(sample_gibbs(gauss_cond, init = c(0, 0), blocks = list(1, 5)), "`blocks\\[\\[2\\]\\]`")
  expect_error(sample_gibbs(init = c(0, 0), conditionals = list(function(th) "a", gauss_cond[[2]]), iter = 5),
               "`conditionals\\[\\[1\\]\\]` at iteration 1 must return 1")
  expect_error(sample_gibbs(init = c(0, 0), conditionals = list(function(th) stop("oops"), gauss_cond[[2]]), iter = 5),
               "`conditionals\\[\\[1\\]\\]` at iteration 1 failed: oops")
  expect_error(mh_step(1), "`log_density`")
})
