# ais() at its defaults with n_runs = 100 against exact log evidences
# (problems in helper-evidence.R).
#
# Tolerances: R independent replications give estimates e_1..e_R. Their
# mean must be within 4 standard errors sd(e) / sqrt(R) of the exact value
# (the estimator is consistent; the bias of log Z-hat, about -se^2 / 2, is
# far below that). The reported `se` must describe the spread: the ratio of
# sd(e) to the root-mean-square reported se must lie in [1/2, 2] (with R = 8
# the sampling error of sd(e) alone is about 25%).

test_that("ais() is unbiased in 10 dimensions (equicorrelated Gaussian, log Z = -32.284)", {
  skip_on_cran()
  p <- ev_gauss10
  expect_equal(p$exact, -32.284, tolerance = 1e-3, ignore_attr = TRUE)
  set.seed(101)
  # 6 replications: one run costs 100 runs x 1000 temperatures x 2 moves
  r <- ev_replicate(6, function() ais(p$ll, p$lp, p$rp, n_runs = 100))
  ev_check_spread(r, p$exact)
})

test_that("ais() on a bimodal mixture likelihood and a Beta-Binomial", {
  skip_on_cran()
  for (p in list(ev_mix1, ev_betabin)) {
    set.seed(102)
    r <- ev_replicate(8, function() ais(p$ll, p$lp, p$rp, n_runs = 100))
    ev_check_spread(r, p$exact)
  }
})

test_that("ais() reports the ESS of the weights and warns when it is small", {
  p <- ev_gauss10
  set.seed(103)
  expect_warning(a <- ais(p$ll, p$lp, p$rp, n_runs = 20, temperatures = 5),
                 "effective sample size")
  expect_lt(a$ess, 2)
  expect_output(print(a), "ESS of the weights")
})

test_that("ais() checks its new arguments", {
  p <- ev_betabin
  expect_error(ais(p$ll, p$lp, p$rp, n_runs = 10, n_pilot = 1), "n_pilot")
  expect_error(ais(p$ll, p$lp, p$rp, n_runs = 10, temperatures = c(0, 0.5)), "temperatures")
  set.seed(104)
  a <- ais(p$ll, p$lp, p$rp, n_runs = 50, n_pilot = 10)
  expect_length(a$temperatures, 101L)   # default 100 d steps, d = 1
  expect_true(is.finite(a$se) && a$se > 0)
})

test_that("ais() is unbiased with an honest error on a correlated 3-D Gaussian", {
  skip_on_cran()
  p <- ev_gauss3   # helper-evidence.R
  ev_check_unbiased(ev_replicate_seeded(6, 200, function() ais(p$ll, p$lp, p$rp, n_runs = 100)),
                    p$exact)
})
