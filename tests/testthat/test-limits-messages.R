# Lengths and sizes a user controls are bounded by the budgets, and every
# error names the argument the user gave (R/chains_budget.R, R/checks.R).

expect_input_error <- function(expr, arg, pattern = NULL) {
  e <- tryCatch(expr, error = identity)
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, arg)
  expect_false(grepl("internal|TRUE/FALSE", conditionMessage(e)))
  if (!is.null(pattern)) expect_match(conditionMessage(e), pattern)
}

test_that("burnin and iter are checked against the work budget", {
  expect_input_error(sample_mh(function(x) -x^2 / 2, init = 0, iter = 10, burnin = 1e9),
                     "burnin", "mcmix.work_budget")
  withr::local_options(mcmix.work_budget = 1e4)
  expect_input_error(sample_slice(function(x) -x^2 / 2, init = 0, iter = 2e4, burnin = 0),
                     "iter", "work budget")
  set.seed(1)
  f <- sample_slice(function(x) -x^2 / 2, init = 0, iter = 100, burnin = 50, progress = FALSE)
  expect_input_error(extend(f, 1e4), "iter", "work budget")
})

test_that("rpolyagamma(n) is checked against the memory budget", {
  withr::local_options(mcmix.memory_budget = 1e6)
  expect_input_error(rpolyagamma(1e6), "n", "memory budget")
  expect_length(rpolyagamma(10, 1), 10L)
})

test_that("map_partition(): init = NA, the singletons start and the search are budgeted", {
  x <- c(-2.1, -1.9, -2.3, 1.8, 2.2, 2.0)
  m <- dp_mixture(gaussian_niw())
  expect_input_error(map_partition(m, x, init = NA_character_), "init")
  withr::local_options(mcmix.work_budget = 30)
  expect_input_error(map_partition(m, x, init = "singletons", restarts = 1, schedule = 1,
                                   max_icm = 1), "init", "singletons")
  withr::local_options(mcmix.work_budget = 1e3)
  expect_input_error(map_partition(m, x, restarts = 10, max_icm = 100), "restarts")
})

test_that("annealing schedules refuse finite values that overflow", {
  expect_input_error(bn_map(bayes_net_asia(), evidence = list(xray = "yes"), schedule = 1e308,
                            method = "anneal"), "schedule", "Inf")
  expect_input_error(map_partition(dp_mixture(gaussian_niw()), c(-1, 1, 2, 3),
                                   schedule = c(1, 1e200)), "schedule")
})

test_that("predict() and perplexity() name newdata", {
  x <- c(-2.1, -1.9, -2.3, 1.8, 2.2, 2.0, 2.4, -1.7)
  set.seed(2)
  fr <- sample_posterior(rj_mixture(k_max = 4), x, iter = 20, progress = FALSE)
  expect_input_error(predict(fr, newdata = "a"), "newdata")
  groups <- list(a = c(-4.2, -3.9, 0.1, 0.3), b = c(0.2, -0.1, 3.8, 4.1))
  fh <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)), groups,
                         iter = 10, progress = FALSE)
  expect_input_error(predict(fh, newdata = "a"), "newdata")
  docs <- list(c(1, 1, 2, 2, 1), c(3, 4, 4, 3), c(1, 2, 3, 4, 1, 2))
  fl <- sample_posterior(lda_model(K = 2), docs, vocab = c("a", "b", "c", "d"), iter = 10,
                         progress = FALSE)
  expect_input_error(perplexity(fl, newdata = "x"), "newdata")
})

test_that("lca() names prior; logit_gibbs() names nu and t_scale", {
  lc <- data.frame(q1 = rep(c("yes", "no"), 10), q2 = rep(c("a", "b"), each = 10))
  expect_input_error(lca(lc, K = 2, prior = 1e308, iter = 10, progress = FALSE), "prior")
  expect_input_error(lca(data.frame(), K = 2, iter = 10, progress = FALSE), "data")
  d <- data.frame(xp = seq(-2, 2, length.out = 30), yp = rep(0:1, each = 15))
  expect_input_error(logit_gibbs(yp ~ xp, data = d, method = "student_t", nu = 1e-300,
                                 iter = 10), "nu")
  expect_input_error(logit_gibbs(yp ~ xp, data = d, method = "student_t", t_scale = 1e300,
                                 iter = 10), "t_scale")
})

test_that("bridge_evidence() on draws too large in magnitude names x", {
  lpost <- function(th) stats::dnorm(th, 0, 1, log = TRUE)
  set.seed(3)
  draws <- stats::rnorm(200)
  expect_input_error(bridge_evidence(draws * 1e300, lpost), "x", "rescale")
  expect_input_error(bridge_evidence(draws * 1e300, lpost, method = "warp3"), "x")
})
