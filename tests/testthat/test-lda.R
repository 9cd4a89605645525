# LDA (R/lda.R, src/model_lda.c, src/model_lda_sparse.c): exact log joint,
# exact posterior of z for both samplers, topic recovery,
# Geweke joint-distribution test, extend(), accessors and bad input.

# log p(w, z) computed directly from the Dirichlet-multinomial formulas.
lda_log_joint_r <- function(docs, z, K, W, alpha, beta) {
  word <- unlist(docs)
  doc <- rep(seq_along(docs), lengths(docs))
  nwk <- table(factor(z, 1:K), factor(word, 1:W))
  ndk <- table(factor(doc, seq_along(docs)), factor(z, 1:K))
  lw <- sum(lgamma(W * beta) - lgamma(rowSums(nwk) + W * beta) +
              rowSums(lgamma(nwk + beta) - lgamma(beta)))
  lz <- sum(lgamma(K * alpha) - lgamma(rowSums(ndk) + K * alpha) +
              rowSums(lgamma(ndk + alpha) - lgamma(alpha)))
  lw + lz
}

test_that("the log_lik trace is the exact collapsed log p(w, z)", {
  set.seed(11)
  # word ids increasing within a document: the order the corpus is read in,
  # so z lines up with unlist(docs)
  docs <- list(c(1, 2, 2, 3), c(3, 3), c(1, 2, 4, 4, 4))
  m <- lda_model(K = 3, alpha = 0.7, beta = 0.3)
  corpus <- mcmix:::lda_corpus(docs, NULL)
  for (r in 1:5) {
    z <- sample.int(3, length(corpus$word), replace = TRUE)
    expect_equal(mcmix:::lda_log_joint(m, corpus, z - 1L),
                 lda_log_joint_r(docs, z, 3, 4, 0.7, 0.3), tolerance = 1e-10)
  }
  fit <- sample_posterior(m, docs, iter = 20, burnin = 0, progress = FALSE)
  st <- fit$chains[[1]]$state
  expect_equal(unname(fit$chains[[1]]$traces[20, "log_lik"]),
               lda_log_joint_r(docs, st$z + 1L, 3, 4, 0.7, 0.3), tolerance = 1e-10)
  # posterior means are distributions
  expect_equal(unname(rowSums(topic_word(fit))), rep(1, 3), tolerance = 1e-12)
  expect_equal(unname(rowSums(doc_topic(fit))), rep(1, 3), tolerance = 1e-12)
})

test_that("the sampler reproduces the exact posterior of z on a tiny corpus", {
  skip_on_cran()
  docs <- list(c(1, 1, 2), c(2, 3))     # ids increasing: the corpus order
  K <- 2; alpha <- 0.6; beta <- 0.4
  zs <- as.matrix(expand.grid(rep(list(1:K), 5)))      # all 32 assignments
  lp <- apply(zs, 1, function(z) lda_log_joint_r(docs, z, K, 3, alpha, beta))
  post <- exp(lp - max(lp)); post <- post / sum(post)
  set.seed(8)
  m <- lda_model(K, alpha = alpha, beta = beta)
  corpus <- mcmix:::lda_corpus(docs, NULL)
  state <- list(z = integer(5), phi_sum = matrix(0, K, 3), theta_sum = matrix(0, 2, K),
                n_draws = 0)
  n <- 50000
  key <- integer(n)
  for (g in seq_len(n)) {
    state <- mcmix:::lda_step_c(m, corpus, state, 1L, 1L, g - 1L, TRUE)
    key[g] <- sum(state$z * 2^(0:4)) + 1L     # row of zs (z - 1 in base 2)
  }
  freq <- tabulate(key, 32) / n
  # twice the expected total-variation error of n / 4 independent draws
  # (about 0.043; a sampler using 1.5 alpha gives about 0.07)
  expect_lt(0.5 * sum(abs(freq - post)), 2 * 0.5 * sum(sqrt(post * (1 - post) / (n / 4))))
})

# The exact samplers of this file (lda_exact_tested, helper-lda.R: the
# SparseLDA buckets and the dense loop) against the exact
# posterior of z with K = 3: the word repeated in document 1 puts mass in
# the word bucket, the document topics in the document bucket, and alpha,
# beta near 1 give the smoothing bucket a large share.
test_that("sparse and dense samplers reproduce the exact posterior of z (K = 3)", {
  skip_on_cran()
  docs <- list(c(1, 1, 2), c(2, 3))     # ids increasing: the corpus order
  K <- 3; alpha <- 0.5; beta <- 0.7
  zs <- as.matrix(expand.grid(rep(list(1:K), 5)))      # all 243 assignments
  lp <- apply(zs, 1, function(z) lda_log_joint_r(docs, z, K, 3, alpha, beta))
  post <- exp(lp - max(lp)); post <- post / sum(post)
  m <- lda_model(K, alpha = alpha, beta = beta)
  corpus <- mcmix:::lda_corpus(docs, NULL)
  n <- 40000
  for (alg in lda_exact_tested[["test-lda.R"]]) {
    set.seed(81)
    state <- list(z = integer(5), phi_sum = matrix(0, K, 3), theta_sum = matrix(0, 2, K),
                  n_draws = 0)
    key <- integer(n)
    for (g in seq_len(n)) {
      state <- mcmix:::lda_step_c(m, corpus, state, 1L, 1L, g - 1L, TRUE, alg)
      key[g] <- sum(state$z * 3^(0:4)) + 1L    # row of zs (z - 1 in base 3)
    }
    freq <- tabulate(key, 243) / n
    # marginal of the topic of each token: exact, within 5 standard errors
    # of n / 4 independent draws
    for (t in 1:5) {
      pm <- tapply(post, zs[, t], sum)
      fm <- tapply(freq, zs[, t], sum)
      expect_lt(max(abs(fm - pm) / sqrt(pm * (1 - pm) / (n / 4))), 5, label = paste(alg, t))
    }
    # joint: twice the expected total-variation error of n / 4 draws
    expect_lt(0.5 * sum(abs(freq - post)),
              2 * 0.5 * sum(sqrt(post * (1 - post) / (n / 4))), label = alg)
  }
})

test_that("a document-term matrix gives the same corpus as word-id vectors", {
  dtm <- matrix(c(2, 1, 1, 0, 3, 1), nrow = 2, byrow = TRUE,
                dimnames = list(c("d1", "d2"), c("a", "b", "c")))
  cp <- mcmix:::lda_corpus(dtm, NULL)
  expect_equal(cp$word + 1L, c(1L, 1L, 2L, 3L, 2L, 2L, 2L, 3L))
  expect_equal(cp$doc_start, c(0L, 4L, 8L))
  expect_equal(cp$vocab, c("a", "b", "c"))
  cl <- mcmix:::lda_corpus(list(c(1, 1, 2, 3), c(2, 2, 2, 3)), c("a", "b", "c"))
  expect_equal(cl[c("word", "doc_start", "W", "D", "vocab")],
               cp[c("word", "doc_start", "W", "D", "vocab")])
})

test_that("LDA recovers the topics of synthetic data", {
  skip_on_cran()
  set.seed(2024)
  rd <- lda_recovery_data()   # helper-lda.R
  W <- rd$W; K <- rd$K; phi <- rd$phi; docs <- rd$docs
  fit <- sample_posterior(lda_model(K, alpha = 1, beta = 1), docs,
                          vocab = letters[1:5], iter = 400, burnin = 200,
                          progress = FALSE)
  est <- topic_word(fit)
  perms <- rbind(c(1, 2, 3), c(1, 3, 2), c(2, 1, 3), c(2, 3, 1), c(3, 1, 2), c(3, 2, 1))
  err <- apply(perms, 1, function(p) max(abs(est[p, ] - phi)))
  # Each topic has ~1700 tokens, but with W = 5 words topics and document
  # proportions trade off: over repeated data sets the largest error of the
  # 15 entries ranges 0.02-0.06 (posterior sd ~0.02 per entry), so 0.1 is
  # about 4 sd; a sampler that does not learn (z uniform) errs by ~0.4.
  expect_lt(min(err), 0.1)
  best <- perms[which.min(err), ]
  tt <- top_terms(fit, n = 2)
  expect_equal(dim(tt), c(2L, 3L))
  expect_equal(tt[1, ], letters[apply(phi[order(best), ], 1, which.max)],
               ignore_attr = TRUE)
})

# Geweke (2004) successive-conditional simulator on a tiny corpus: alternate
# one Gibbs sweep of z given w with a draw of w from p(w | z) (Polya urn per
# topic). The pairs (z, w) seen right after the Gibbs sweep must follow the
# joint prior. Statistics: the number of tokens in topic 1 (exact
# distribution: a sum of independent beta-binomials) and the number of
# tokens of word 1 in topic 1 (compared with forward simulation).
# Power: the same test run with the sampler's alpha or beta off by a factor
# 1.6 (data simulated with the true values) fails.
test_that("LDA passes a Geweke joint-distribution test", {
  skip_on_cran()
  set.seed(77)
  lda_geweke_corpus()   # helper-lda.R: K, W, alpha, beta, len, doc, N, m, draw_z
  draw_w <- function(z) {               # sequential Polya urn given z
    cnt <- matrix(0, K, W); w <- integer(N)
    for (t in seq_len(N)) {
      p <- cnt[z[t], ] + beta
      w[t] <- sample.int(W, 1, prob = p)
      cnt[z[t], w[t]] <- cnt[z[t], w[t]] + 1
    }
    w
  }
  # topic-1 tokens, word-1 tokens in topic 1, and the concentrations
  # sum n_kw^2 (words within topics) and sum n_dk^2 (topics within documents)
  stats_of <- function(z, w) c(sum(z == 1), sum(z == 1 & w == 1),
                               sum(table(z, w)^2), sum(table(doc, z)^2))
  # forward (marginal-conditional) simulation
  n_fwd <- 20000
  fwd <- t(replicate(n_fwd, { z <- draw_z(); stats_of(z, draw_w(z)) }))
  # exact distribution of the number of tokens in topic 1
  bb <- function(n) {
    k <- 0:n
    exp(lchoose(n, k) + lbeta(k + alpha, n - k + alpha) - lbeta(alpha, alpha))
  }
  exact <- Reduce(function(a, b) stats::convolve(a, rev(b), type = "open"),
                  lapply(len, bb))
  # successive-conditional chain
  thin <- 5; n_keep <- 3000
  sc <- lda_geweke_successive(m, K, W, len, draw_z, draw_w, stats_of, n_keep, thin)
  # topic-1 counts against the exact law (chi-square, sparse cells pooled)
  obs <- tabulate(sc[, 1] + 1L, N + 1L)
  pool <- function(o, p) {
    g <- integer(length(p)); acc <- 0; id <- 1L
    for (i in seq_along(p)) { g[i] <- id; acc <- acc + p[i]
      if (acc * n_keep >= 20) { id <- id + 1L; acc <- 0 } }
    g[g == id & id > 1L] <- id - 1L
    list(o = tapply(o, g, sum), p = tapply(p, g, sum))
  }
  pp <- pool(obs, exact)
  chi <- sum((pp$o - n_keep * pp$p)^2 / (n_keep * pp$p))
  expect_gt(stats::pchisq(chi, length(pp$o) - 1L, lower.tail = FALSE), 1e-3)
  # the forward simulator agrees with the exact law too (checks the test)
  expect_lt(max(abs(tabulate(fwd[, 1] + 1L, N + 1L) / n_fwd - exact)), 0.02)
  # word-1-in-topic-1 counts: two-sample chi-square, chain vs forward
  lv <- 0:N
  tab <- rbind(table(factor(sc[, 2], lv)), table(factor(fwd[, 2], lv)))
  tab <- tab[, colSums(tab) > 0, drop = FALSE]
  keep <- colSums(tab) >= 30
  tab <- cbind(tab[, keep, drop = FALSE], rest = rowSums(tab[, !keep, drop = FALSE]))
  tab <- tab[, colSums(tab) > 0, drop = FALSE]
  expect_gt(suppressWarnings(stats::chisq.test(tab)$p.value), 1e-3)
  # concentrations: means compared with a z-score, the chain's standard
  # error from batch means (batches of 100 kept draws) to allow for the
  # remaining autocorrelation
  for (j in 3:4) {
    bm <- colMeans(matrix(sc[, j], 100))
    se <- sqrt(stats::var(bm) / length(bm) + stats::var(fwd[, j]) / n_fwd)
    expect_lt(abs(mean(sc[, j]) - mean(fwd[, j])) / se, 4)
  }
})

test_that("extend() equals a longer run", {
  docs <- list(c(1, 2, 2, 3, 1), c(3, 3, 4), c(1, 4, 4, 2))
  m <- lda_model(K = 2, alpha = 0.5, beta = 0.2)
  set.seed(5)
  a <- sample_posterior(m, docs, iter = 30, burnin = 10, thin = 2, progress = FALSE)
  a <- extend(a, 40, progress = FALSE)
  set.seed(5)
  b <- sample_posterior(m, docs, iter = 70, burnin = 10, thin = 2, progress = FALSE)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  expect_identical(a$chains[[1]]$state, b$chains[[1]]$state)
  expect_equal(topic_word(a), topic_word(b))
})

test_that("bad input is refused with messages naming the argument", {
  expect_error(lda_model(0), "`K`")
  expect_error(lda_model(2.5), "`K`")
  expect_error(lda_model(3, alpha = -1), "`alpha`")
  expect_error(lda_model(3, beta = 0), "`beta`")
  expect_error(lda_model(3, beta = c(1, 2)), "`beta`")
  m <- lda_model(2)
  expect_error(sample_posterior(m, list(c(1, 2.5)), progress = FALSE), "`data`")
  expect_error(sample_posterior(m, list(c(1, 0)), progress = FALSE), "`data`")
  expect_error(sample_posterior(m, list(integer()), progress = FALSE), "`data`")
  expect_error(sample_posterior(m, "text", progress = FALSE), "`data`")
  expect_error(sample_posterior(m, matrix(c(1, -1), 1), progress = FALSE), "`data`")
  expect_error(sample_posterior(m, list(c(1, 3)), vocab = c("a", "b"),
                                progress = FALSE), "`vocab`")
  expect_error(sample_posterior(m, matrix(1, 2, 2), vocab = "a",
                                progress = FALSE), "`vocab`")
  expect_error(sample_posterior(m, list(1:2), iter = 0, progress = FALSE), "`iter`")
  expect_error(sample_posterior(m, list(1:2), bogus = 1, progress = FALSE), "`bogus`")
  set.seed(1)
  fit <- sample_posterior(m, list(1:3, c(1, 1)), iter = 5, progress = FALSE)
  expect_error(top_terms(fit, n = 0), "`n`")
  expect_error(topic_word(fit, chain = 2), "`chain`")
  expect_error(doc_topic(list()), "`fit`")
  expect_output(print(fit), "LDA fit")
  expect_output(print(m), "K = 2")
})

test_that("the blocked sampler gives identical draws for any number of threads", {
  set.seed(5)
  docs <- lapply(1:120, function(i) sample.int(60, rpois(1, 20) + 1, TRUE))
  m <- lda_model(6, alpha = 0.1, beta = 0.05)
  run <- function(iter = 12, ...) {
    set.seed(3)
    sample_posterior(m, docs, iter = iter, burnin = 3, progress = FALSE, ...)
  }
  # one block (the corpus is below the block size): the sequential sweep
  expect_identical(run(algorithm = "blocked", threads = 2)$chains,
                   run(algorithm = "sparse")$chains)
  # 4 x 4 cells (document group, word group), 4 epochs of 4 cells
  withr::local_options(mcmix.lda_block_tokens = 150, mcmix.threads_adapt = FALSE)
  expect_equal(mcmix:::lda_blocks(length(mcmix:::lda_corpus(docs, NULL)$word), 150), 4L)
  one <- run(algorithm = "blocked", threads = 1)
  expect_identical(run(algorithm = "blocked", threads = 2)$chains, one$chains)
  expect_identical(run(algorithm = "blocked", threads = 3)$chains, one$chains)
  expect_identical(run(algorithm = "blocked", threads = 4)$chains, one$chains)
  expect_false(identical(one$chains, run(algorithm = "sparse")$chains))
  # 8 x 8 cells: a free thread may run up to six cells ahead of another,
  # which never changes what a cell starts from
  withr::with_options(list(mcmix.lda_block_tokens = 30), {
    expect_equal(mcmix:::lda_blocks(length(mcmix:::lda_corpus(docs, NULL)$word), 30), 8L)
    expect_identical(run(algorithm = "blocked", threads = 2)$chains,
                     run(algorithm = "blocked", threads = 1)$chains)
  })
  # the merged counts are those of z: the trace is the exact log p(w, z)
  st <- one$chains[[1]]$state
  expect_equal(unname(one$chains[[1]]$traces[12, "log_lik"]),
               mcmix:::lda_log_joint(m, one$data, st$z), tolerance = 1e-10)
  # extend() on another thread count equals the longer run
  set.seed(3)
  e <- sample_posterior(m, docs, iter = 5, burnin = 3, progress = FALSE,
                        algorithm = "blocked", threads = 2)
  e <- extend(e, 7, progress = FALSE)
  expect_identical(e$chains[[1]]$state, st)
  expect_identical(e$chains[[1]]$traces, one$chains[[1]]$traces)
  expect_error(run(algorithm = "blocked", threads = 0), "`threads`",
               class = "mcmix_error_input")
})

# More topics than one 64-bit word of a document's topic set (K = 70): the
# exact posterior of the partition of the tokens into topics.  With
# symmetric priors p(w, z) depends on z through its partition only, and a
# partition of b blocks is made by K (K - 1) ... (K - b + 1) labellings,
# so its probability is that times p(w, z) of any one of them; the trace
# log p(w, z) is a function of the partition, and its distribution over
# the kept sweeps is compared with the exact one.  alpha small and beta
# large make the document bucket carry the joins of different words of a
# document.  Power: see the next test.
lda_partition_law_check <- function(docs, K, W, alpha, beta, algs, n = 40000) {
  # the set partitions of the tokens as restricted growth strings
  N <- length(unlist(docs))
  rgs <- list(1L)
  for (i in seq_len(N - 1L)) rgs <- unlist(lapply(rgs, function(a)
    lapply(seq_len(max(a) + 1L), function(v) c(a, v))), recursive = FALSE)
  expect_length(rgs, 52L)
  lp <- vapply(rgs, function(z) sum(log(K - seq_len(max(z)) + 1)) +
                 lda_log_joint_r(docs, z, K, W, alpha, beta), numeric(1))
  ll <- vapply(rgs, function(z) lda_log_joint_r(docs, z, K, W, alpha, beta), numeric(1))
  post <- tapply(exp(lp - max(lp)), round(ll, 6), sum)
  post <- post / sum(post)
  m <- lda_model(K, alpha = alpha, beta = beta)
  for (alg in algs) {
    set.seed(70)
    fit <- sample_posterior(m, docs, iter = n, burnin = 200, progress = FALSE,
                            algorithm = alg)
    seen <- round(fit$chains[[1]]$traces[, "log_lik"], 6)
    expect_true(all(seen %in% as.numeric(names(post))), label = alg)
    freq <- table(factor(seen, levels = names(post))) / n
    # each value of log p(w, z) within 5 standard errors of n / 4 draws
    se <- sqrt(post * (1 - post) / (n / 4))
    expect_lt(max(abs(freq - post) / se), 5, label = alg)
  }
}

test_that("sparse and dense samplers reproduce the exact partition law (K = 70)", {
  skip_on_cran()
  lda_partition_law_check(list(c(1, 2, 3), c(1, 4)), K = 70, W = 4, alpha = 0.05,
                          beta = 0.5, algs = c("sparse", "dense"))
})

# The partitioned sampler on 2 x 2 cells (each document loaded once per
# word group, its topic set carried between its segments): it differs
# from collapsed Gibbs only in n_k lagging by less than two epochs, a relative change
# of at most 1 / (n_k + W beta) < 1e-4 in a conditional with W beta =
# 1e4, far below the Monte Carlo error; the large beta leaves the joins
# of a document's tokens to the document bucket.  Power (checked by
# hand): the topic set not updated when a token enters a topic fails with
# a z-score of 100 (80 for "sparse" in the test above).
test_that("the partitioned sampler reproduces the partition law when n_k's lag is negligible", {
  skip_on_cran()
  withr::local_options(mcmix.lda_block_tokens = 1)
  docs <- list(c(1, 2, 3), c(1, 4))
  expect_equal(mcmix:::lda_blocks(5, 1), 2L)
  lda_partition_law_check(docs, K = 70, W = 4, alpha = 0.05, beta = 2500,
                          algs = "blocked")
})
