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

test_that("a fit saved before a setting was added continues with that setting's default", {
  # A fit keeps the kernel spec it was built with; settings added to the
  # sub-cluster row since (sc_fit_max, sc_gather, sc_sams, ...) are missing
  # from it and must read as their defaults, so extend() equals a longer run.
  set.seed(4)
  x <- rbind(matrix(rnorm(120, -3), 60), matrix(rnorm(120, 3), 60))
  run <- function(iter) {
    set.seed(5)
    sample_posterior(dp_mixture(gaussian_niw()), x, algorithm = "subcluster",
                     iter = iter, burnin = 0, progress = FALSE)
  }
  long <- run(30)
  old <- run(15)
  e <- environment(old$kernel$step_on)
  for (nm in c("sc_record", "sc_thin", "sc_sams", "sc_fit_max", "sc_gather"))
    e$spec$control[[nm]] <- NULL
  cont <- extend(old, 15)
  expect_identical(as.matrix(cont$chains[[1]]$traces), as.matrix(long$chains[[1]]$traces))
})
