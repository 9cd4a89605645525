# Defaults of sample_posterior() for DP mixtures at large N: the labels of
# the kept draws are stored only within the memory budget (a message says
# when they are not), and a request beyond it names `labels`.

test_that("labels are kept by default only within the memory budget", {
  set.seed(1)
  x <- matrix(rnorm(400), 200, 2)
  m <- dp_mixture(gaussian_niw())
  withr::local_options(mcmix.memory_budget = 1e5)   # labels: 50 x 200 x 8 = 80 kB
  expect_message(fit <- sample_posterior(m, x, iter = 50, burnin = 5, progress = FALSE),
                 "Cluster labels are not stored")
  expect_false(fit$settings$labels)
  expect_null(fit$chains[[1]]$labels)
  expect_length(fit$chains[[1]]$state$labels, 200L)   # the final partition is kept
  expect_equal(nrow(fit$chains[[1]]$traces), 50L)
  # within the budget (half of it) nothing is said and the labels are kept
  expect_silent(fit2 <- sample_posterior(m, x, iter = 20, burnin = 5, progress = FALSE))
  expect_true(fit2$settings$labels)
  expect_equal(dim(partition_draws(fit2)), c(20L, 200L))
  # asked for explicitly beyond the budget: an error naming `labels`
  expect_error(sample_posterior(m, x, iter = 100, burnin = 5, labels = TRUE, progress = FALSE),
               "`labels` asks for the cluster labels")
})
