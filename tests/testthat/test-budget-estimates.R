# The memory budget counts what a run stores, and names the argument that
# asks for it (R/chains_budget.R). The estimates against measured peaks of
# 15 large calls: tools/budget-check.R (bench/RESULTS-notes.md).

expect_budget_error <- function(expr, arg) {
  e <- tryCatch(expr, error = identity)
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, arg)
  expect_match(conditionMessage(e), "mcmix.memory_budget", fixed = TRUE)
  invisible(e)
}

test_that("a target whose dimension cannot fit 1000 draws names `init`, not `iter`", {
  tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
  e <- expect_budget_error(sample_nuts(tg, init = rep(1, 1e6), progress = FALSE), "init")
  expect_match(conditionMessage(e), "dimension 1,000,000", fixed = TRUE)
  withr::local_options(mcmix.memory_budget = 1e6)
  # 1000 draws of 10 values fit: a long run is blamed on `iter`
  expect_budget_error(sample_mh(function(x) -sum(x^2) / 2, init = rep(0, 10), iter = 1e5,
                                progress = FALSE), "iter")
  # 1000 draws of 100 values do not: the dimension is at fault
  expect_budget_error(sample_mh(function(x) -sum(x^2) / 2, init = rep(0, 100), iter = 1e5,
                                progress = FALSE), "init")
})

test_that("ising_gibbs(keep_spins = TRUE) counts the stored spins and names keep_spins", {
  withr::local_options(mcmix.memory_budget = 1e7)
  # 100 x 100 spins x 1000 draws x 4 bytes = 40 MB stored (the traces: 48 kB)
  expect_budget_error(ising_gibbs(100, 100, keep_spins = TRUE, iter = 1000, progress = FALSE),
                      "keep_spins")
  set.seed(1)
  f <- ising_gibbs(100, 100, keep_spins = FALSE, iter = 20, burnin = 0, progress = FALSE)
  expect_s3_class(f, "mcmix_fit")
})

test_that("LDA runs are checked against the memory budget, per chain, naming data", {
  set.seed(1)
  docs <- lapply(1:20, function(i) sample.int(500, 10, TRUE))
  m <- lda_model(K = 50)
  # 50 topics x (500 words + 20 documents): some 26,000 cells; 1 chain
  # needs 46 bytes a cell, 2 chains 60
  withr::local_options(mcmix.memory_budget = 1.4e6)
  f <- sample_posterior(m, docs, iter = 2, burnin = 0, chains = 1, progress = FALSE)
  expect_s3_class(f, "mcmix_lda_fit")
  e <- expect_budget_error(sample_posterior(m, docs, iter = 2, burnin = 0, chains = 2,
                                            progress = FALSE), "data")
  expect_match(conditionMessage(e), "50 topics", fixed = TRUE)
})
