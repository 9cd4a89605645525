# Conventions an R user relies on: the labels of a partition one call away,
# observation labels on the co-clustering heatmap, a short print() of a fit
# with many traces, and perplexity() reachable when topicmodels masks it.

small_dp_fit <- function() {
  x <- c(a = -5.2, b = -5, c = -4.8, d = 4.9, e = 5, f = 5.3)
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.05, df = 3, scale = 0.1)
  withr::with_seed(5, sample_posterior(dp_mixture(fam, alpha = 1), x, iter = 100,
                                       progress = FALSE))
}

test_that("as.integer() and as.vector() of a partition give its labels, named by the data", {
  fit <- small_dp_fit()
  p <- partition(fit)
  lab <- as.integer(p)
  expect_identical(unname(lab), p$labels)
  expect_identical(names(lab), letters[1:6])
  expect_identical(as.vector(p), lab)
  expect_identical(as.vector(p, "numeric"), as.numeric(lab))
  # the two groups of the data are two clusters
  expect_identical(unname(lab), rep(1:2, each = 3))
  expect_equal(as.vector(table(as.integer(p))), c(3L, 3L))
  # a label matrix has no names to give
  draws <- rbind(c(1, 1, 2), c(1, 1, 2), c(2, 2, 1))
  expect_identical(as.integer(partition(draws)), c(1L, 1L, 2L))
})

test_that("a partition is its labels vector: table(), as.factor(), length(), [ work as on mclust's", {
  fit <- small_dp_fit()
  p <- partition(fit)
  # table() of the object itself: the cluster sizes, as mclust users type
  tab <- table(p)
  expect_identical(as.vector(tab), c(3L, 3L))
  expect_identical(names(tab), c("1", "2"))
  expect_identical(as.vector(table(p, rep(c("x", "y"), each = 3))), c(3L, 0L, 0L, 3L))
  f <- as.factor(p)
  expect_s3_class(f, "factor")
  expect_identical(levels(f), c("1", "2"))
  expect_identical(names(f), letters[1:6])
  expect_identical(length(p), 6L)
  # subsetting and comparisons give plain (named) integer / logical vectors
  expect_identical(p[2:4], c(b = 1L, c = 1L, d = 2L))
  expect_identical(p[[4]], 2L)
  expect_identical(unname(p == 2L), rep(c(FALSE, TRUE), each = 3))
  expect_null(attr(p == 2L, "class"))
  expect_identical(as.vector(tapply(1:6, p, sum)), c(6L, 15L))
  expect_identical(split(1:6, p), list(`1` = 1:3, `2` = 4:6))
  d <- data.frame(v = 1:6, cluster = p)
  expect_identical(unname(d$cluster), rep(1:2, each = 3))
  expect_null(attr(d$cluster, "class"))
  # the summary fields stay one `$` away, unchanged
  expect_identical(p$labels, rep(1:2, each = 3))
  expect_identical(p$row_names, letters[1:6])
  expect_identical(p$sizes, c(3L, 3L))
  expect_identical(p$n_clusters, 2L)
  expect_identical(p[["n_clusters"]], 2L)
  expect_true(is.numeric(p$loss) && p$loss >= 0)
  expect_output(print(p), "^Partition point estimate")
  p$labels <- rep(2:1, each = 3)
  expect_identical(as.integer(p), c(a = 2L, b = 2L, c = 2L, d = 1L, e = 1L, f = 1L))
  expect_identical(p$sizes, c(3L, 3L))
})

test_that("plot_coclustering() labels the observations by row names, a given vector or none", {
  fit <- small_dp_fit()
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  r <- plot_coclustering(fit)
  expect_setequal(r$labels, letters[1:6])
  expect_identical(r$labels, letters[1:6][r$order])
  expect_null(plot_coclustering(fit, labels = FALSE)$labels)
  own <- paste0("obs", 1:6)
  expect_identical(plot_coclustering(fit, labels = own)$labels, own[r$order])
  # a label matrix: no stored names, so none by default, numbers with TRUE
  draws <- rbind(c(1, 1, 2), c(1, 1, 2), c(2, 2, 1))
  expect_null(plot_coclustering(draws)$labels)
  r3 <- plot_coclustering(draws, labels = TRUE)
  expect_identical(r3$labels, as.character(r3$order))
  # more than 60 observations: none by default
  big <- matrix(rep(rep(1:2, each = 35), 3), nrow = 3, byrow = TRUE)
  P <- psm(big)
  dimnames(P) <- list(paste0("r", 1:70), paste0("r", 1:70))
  expect_null(plot_coclustering(P)$labels)
  expect_length(plot_coclustering(P, labels = TRUE)$labels, 70L)
  e <- expect_error(plot_coclustering(fit, labels = c("a", "b")), class = "mcmix_error_input")
  expect_match(conditionMessage(e), "`labels`")
})

test_that("print() of a fit with many traces lists only the first few", {
  nm <- paste0("theta[", 1:200, "]")
  k <- new_kernel("many",
    init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = matrix(0, length(keep), length(nm),
                                                         dimnames = list(NULL, nm))))
    }, trace_names = nm)
  fit <- withr::with_seed(1, run_kernel(k, iter = 5, chains = 1, progress = FALSE))
  out <- capture.output(suppressWarnings(print(fit)))
  line <- grep("^Traces:", out, value = TRUE)
  expect_length(line, 1L)
  expect_match(line, "theta[1], theta[2]", fixed = TRUE)
  expect_match(line, "and 190 more", fixed = TRUE)
  expect_false(grepl("theta[200]", line, fixed = TRUE))
  expect_lt(nchar(line), 200L)
})

test_that("perplexity(fit) works with topicmodels attached after mcmix", {
  skip_if_not_installed("topicmodels")
  docs <- list(c(1, 2, 1, 2, 1, 2), c(3, 4, 4, 3, 3, 4), c(1, 2, 2, 1))
  fit <- withr::with_seed(1, sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1),
                                              docs, iter = 30, progress = FALSE))
  new <- list(c(1, 2, 1, 2), c(4, 3, 4, 3))
  ref_new <- mcmix::perplexity(fit, new)
  ref_own <- mcmix::perplexity(fit)
  suppressPackageStartupMessages(library(topicmodels))
  on.exit(detach("package:topicmodels"), add = TRUE)
  # as typed at the console: `perplexity` found on the search path
  user <- list2env(list(fit = fit, new = new), parent = globalenv())
  generic <- get("perplexity", envir = user)
  expect_true(methods::is(generic, "standardGeneric"))
  expect_identical(generic@package, "topicmodels")
  expect_identical(evalq(perplexity(fit, new), user), ref_new)
  expect_identical(evalq(perplexity(fit), user), ref_own)
  expect_identical(evalq(perplexity(fit, new, chain = 1), user), ref_new)
})
