# LDA at the limits of its input (R/lda.R, R/lda_predict.R,
# src/model_lda*.c): the range of alpha and beta, the log joint at its ends
# against the closed form log p(w, z) as sums of logs (exact in R), the
# fold-in's sweep counts (64-bit, bounded by the work budget, interruptible
# inside the sweeps: a real SIGINT, helper-interrupt.R), new documents
# without a known word and missing counts of unknown terms.

lda_limit_docs <- function() {
  set.seed(1)
  lapply(1:20, function(d) sample.int(30, 15, replace = TRUE))
}

# log Gamma(x + n) - log Gamma(x) as sum_{i < n} log(x + i): exact for
# every x, however large or small.
lda_rise_r <- function(n, x) vapply(n, function(m) sum(log(x + (seq_len(m) - 1))), 0)

# log p(w, z) (Griffiths and Steyvers 2004, eqs. 2-3) from rising factorials.
lda_log_joint_rise <- function(docs, z, K, W, alpha, beta) {
  word <- unlist(docs)
  doc <- rep(seq_along(docs), lengths(docs))
  nwk <- table(factor(z, 1:K), factor(word, 1:W))
  ndk <- table(factor(doc, seq_along(docs)), factor(z, 1:K))
  -sum(lda_rise_r(rowSums(nwk), W * beta)) + sum(lda_rise_r(c(nwk), beta)) -
    sum(lda_rise_r(rowSums(ndk), K * alpha)) + sum(lda_rise_r(c(ndk), alpha))
}

test_that("alpha and beta outside [1e-100, 1e100] are refused naming the argument", {
  for (v in c(1e308, 1e101, 1e-101, 1e-320)) {
    e <- expect_error(lda_model(K = 3, alpha = v), "between 1e-100 and 1e100",
                      class = "mcmix_error_input")
    expect_identical(e$arg, "alpha")
    e <- expect_error(lda_model(K = 3, beta = v), "between 1e-100 and 1e100",
                      class = "mcmix_error_input")
    expect_identical(e$arg, "beta")
  }
  # a model edited by hand is checked too (alpha = 1e308 crashed the "mh"
  # sampler: K alpha overflowed and a topic was read out of bounds)
  docs <- lda_limit_docs()
  for (nm in c("alpha", "beta")) {
    m <- lda_model(K = 3)
    m[[nm]] <- 1e308
    e <- expect_error(sample_posterior(m, docs, iter = 10, algorithm = "mh", progress = FALSE),
                      class = "mcmix_error_input")
    expect_identical(e$arg, nm)
  }
})

test_that("at the ends of the range every sampler runs and log_lik is the exact log p(w, z)", {
  docs <- lda_limit_docs()
  corpus <- mcmix:::lda_corpus(docs, NULL)
  sorted <- lapply(docs, sort)      # the token order of the corpus
  N <- length(corpus$word)
  # both ends, and above the threshold (1e6) of the Stirling differences
  settings <- list(c(1e100, 1e100), c(1e-100, 1e-100), c(1e7, 1e6), c(1e-100, 1e6),
                   c(0.5, 1e100))
  for (i in seq_along(settings)) {
    v <- settings[[i]]
    m <- lda_model(K = 3, alpha = v[1], beta = v[2])
    set.seed(3)
    for (r in 1:3) {
      z <- sample.int(3, N, replace = TRUE)
      expect_equal(mcmix:::lda_log_joint(m, corpus, z - 1L),
                   lda_log_joint_rise(sorted, z, 3, 30, v[1], v[2]), tolerance = 1e-12,
                   label = sprintf("log p(w, z) at alpha = %g, beta = %g", v[1], v[2]))
    }
    for (alg in if (i <= 3) c("sparse", "dense", "mh", "blocked")) {
      set.seed(4)
      fit <- sample_posterior(m, docs, iter = 6, algorithm = alg, progress = FALSE)
      st <- fit$chains[[1]]$state
      expect_equal(unname(fit$chains[[1]]$traces[6, "log_lik"]),
                   lda_log_joint_rise(sorted, st$z + 1L, 3, 30, v[1], v[2]),
                   tolerance = 1e-12, label = sprintf("%s at alpha = %g, beta = %g", alg,
                                                      v[1], v[2]))
      expect_equal(unname(rowSums(doc_topic(fit))), rep(1, 20), tolerance = 1e-12)
      expect_equal(unname(rowSums(topic_word(fit))), rep(1, 3), tolerance = 1e-12)
      th <- predict(fit, docs[1:2], iter = 4)
      expect_equal(unname(rowSums(th)), c(1, 1), tolerance = 1e-12)
      expect_true(is.finite(perplexity(fit, docs[1:4])))
    }
  }
  # alpha = beta = 1e100: every topic equally likely for every token, so
  # the topics and proportions are uniform and the perplexity is W
  fit <- sample_posterior(lda_model(K = 3, alpha = 1e100, beta = 1e100), docs, iter = 4,
                          progress = FALSE)
  expect_equal(unname(doc_topic(fit)), matrix(1 / 3, 20, 3), tolerance = 1e-12)
  expect_equal(c(perplexity(fit, docs[1:4])), 30, tolerance = 1e-12)
})

test_that("predict() bounds the fold-in's sweeps by the work budget and by 2^31 - 1", {
  docs <- lda_limit_docs()
  set.seed(5)
  fit <- sample_posterior(lda_model(K = 3), docs, iter = 20, progress = FALSE)
  # each of these returned all-zero proportions at once (burnin + iter
  # overflowed an int) or ran for hours
  for (a in list(list(iter = .Machine$integer.max), list(iter = 2e9, burnin = 2e8),
                 list(iter = 1e9), list(burnin = .Machine$integer.max),
                 list(iter = 1e8, burnin = 1e8))) {
    e <- expect_error(do.call(predict, c(list(fit, docs[1:2]), a)),
                      class = "mcmix_error_input")
    expect_true(e$arg %in% c("iter", "burnin"))
  }
  e <- expect_error(predict(fit, docs[1:2], iter = 1e9), "mcmix.work_budget",
                    class = "mcmix_error_input")
  expect_identical(e$arg, "iter")
  e <- expect_error(predict(fit, docs[1:2], iter = 10, burnin = 2e8), "mcmix.work_budget",
                    class = "mcmix_error_input")
  expect_identical(e$arg, "burnin")
  withr::local_options(mcmix.work_budget = 1e3)
  expect_error(predict(fit, docs[1:2], iter = 1000), "mcmix.work_budget",
               class = "mcmix_error_input")
  expect_error(perplexity(fit, docs[1:2], max_iter = 2000), "mcmix.work_budget",
               class = "mcmix_error_input")
  expect_identical(dim(predict(fit, docs[1:2], iter = 600)), c(2L, 3L))
})

test_that("the fold-in is interrupted inside its sweeps, whatever their number", {
  skip_on_os("windows")
  skip_on_cran()
  docs <- lda_limit_docs()
  set.seed(6)
  fit <- sample_posterior(lda_model(K = 3), docs, iter = 20, progress = FALSE)
  # 2^31 - 1 sweeps of one short document (the budget lifted): the
  # interrupt lands inside them (it was checked once per document, before
  # its sweeps)
  long_predict <- function() {
    options(mcmix.work_budget = Inf)
    predict(fit, docs[1], iter = .Machine$integer.max, burnin = 0)
  }
  expect_identical(interrupt_long_call(long_predict), "interrupted")
  # 2 x (2^31 - 1) sweeps through the glue: 64-bit counts (in int, the
  # sum overflowed and no sweep ran)
  corpus <- mcmix:::lda_corpus(docs[1], NULL)
  phi <- unname(topic_word(fit))
  glue <- function() .Call(mcmix:::C_ffi_lda_fold_in, corpus$word, corpus$doc_start, phi,
                           c(3, 30, fit$model$alpha, 2^31 - 1, 2^31 - 1))
  expect_identical(interrupt_long_call(glue), "interrupted")
})

test_that("new documents without a known word get the prior mean; missing counts are refused", {
  x <- matrix(c(1, 2, 0, 3, 1, 1), 2, dimnames = list(NULL, c("a", "b", "c")))
  set.seed(7)
  fit <- sample_posterior(lda_model(K = 3), x, iter = 10, progress = FALSE)
  unknown <- matrix(c(1, 2), 1, dimnames = list("new", c("zz", "yy")))
  expect_warning(th <- predict(fit, unknown), class = "mcmix_warning_vocabulary")
  expect_identical(dimnames(th), list("new", c("topic1", "topic2", "topic3")))
  expect_equal(unname(th[1, ]), rep(1 / 3, 3))
  expect_equal(unname(predict(fit, list(integer(0)))[1, ]), rep(1 / 3, 3))
  expect_equal(unname(predict(fit, Matrix::Matrix(0, 2, 3, sparse = TRUE,
                                                  dimnames = list(NULL, colnames(x))))),
               matrix(1 / 3, 2, 3))
  # perplexity() has no token to score
  e <- expect_error(suppressWarnings(perplexity(fit, unknown)), "no token",
                    class = "mcmix_error_input")
  expect_identical(e$arg, "newdata")
  # a missing count, in a known or in an unknown term's column
  for (j in c("a", "zz")) {
    m <- Matrix::sparseMatrix(i = c(1, 1), j = c(1, 2), x = c(1, 1), dims = c(1, 2),
                              dimnames = list("d", c("a", "zz")))
    m[1, j] <- NA
    e <- expect_error(suppressWarnings(predict(fit, m)), "whole-number counts",
                      class = "mcmix_error_input")
    expect_identical(e$arg, "newdata")
    e <- expect_error(suppressWarnings(perplexity(fit, m)), "whole-number counts",
                      class = "mcmix_error_input")
    expect_identical(e$arg, "newdata")
  }
})

test_that("the messages of the limits", {
  docs <- lda_limit_docs()
  set.seed(8)
  fit <- sample_posterior(lda_model(K = 3), docs, iter = 10, progress = FALSE)
  expect_snapshot(error = TRUE, {
    lda_model(K = 3, alpha = 1e308)
    lda_model(K = 3, beta = 1e-101)
    predict(fit, docs[1:2], iter = 1e9)
    predict(fit, docs[1:2], iter = .Machine$integer.max)
    perplexity(fit, list(integer(0)))
    hdp_mixture(gaussian_niw(), gamma = gamma_prior(1e300, 1e-300))
  })
})
