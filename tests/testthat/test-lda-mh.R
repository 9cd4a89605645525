# LDA by Metropolis-Hastings cycles (algorithm = "mh", src/model_lda_mh.c):
# the exact posterior of z on tiny corpora (token lists and count matrices),
# a Geweke joint-distribution test, agreement with the dense collapsed
# sampler on the recovery data, reproducibility (seed, chunks, extend(),
# input forms), the consumers of a fit, and bad input.

# Both proposals are exercised: word 2 occurs in both documents (the word
# proposal reads the other document), word 3 twice in one; alpha and beta
# of order 1 give the uniform parts of the proposals a large share.
# Power (checked by hand, each change alone): dropping the topic-total
# factor (n_k + W beta) / (n_t + W beta) of the document acceptance ratio
# gives pair z-scores of 10-25, dropping it from the word acceptance ratio
# or doubling the uniform share of the word proposal fails both checks.
test_that("mh reproduces the exact posterior of z (token list, K = 2, one step)", {
  skip_on_cran()
  K <- 2; alpha <- 0.6; beta <- 0.4
  m <- lda_model(K, alpha = alpha, beta = beta)
  corpus <- mcmix:::lda_corpus(list(c(1, 1, 2), c(2, 3, 3)), NULL)
  ex <- mh_exact_posterior(corpus, K, alpha, beta)
  for (alg in lda_exact_tested[["test-lda-mh.R"]])   # (helper-lda.R)
    mh_expect_exact(ex, mh_keys(m, corpus, 40000, steps = 1L, seed = 8, algorithm = alg))
})

# A count matrix: counts above one are repeated tokens (the "other tokens"
# of a document and "other occurrences" of a word count them), K = 3.
test_that("mh reproduces the exact posterior of z (count matrix, K = 3, two steps)", {
  skip_on_cran()
  K <- 3; alpha <- 0.5; beta <- 0.2
  dtm <- matrix(c(2, 1, 0,
                  0, 1, 1), nrow = 2, byrow = TRUE)
  m <- lda_model(K, alpha = alpha, beta = beta)
  corpus <- mcmix:::lda_corpus(dtm, NULL)
  expect_equal(corpus$word + 1L, c(1L, 1L, 2L, 2L, 3L))
  ex <- mh_exact_posterior(corpus, K, alpha, beta)
  mh_expect_exact(ex, mh_keys(m, corpus, 40000, steps = 2L, seed = 81))
})

# Geweke (2004): alternate one "mh" sweep of z given w (one step per
# token) with a draw of w from p(w | z) (phi_k ~ Dir(beta), then the words); the pairs
# seen after the sweep must follow the joint prior, which is simulated
# forward.  Statistics: tokens in topic 1, tokens of word 1 in topic 1,
# sum n_kw^2 and sum n_dk^2 (concentration of words within topics and of
# topics within documents), means compared by z-scores with batch-means
# standard errors for the chain.  Power: either acceptance ratio without
# its topic-total factor, or a word proposal with twice its uniform share,
# fails.
test_that("mh passes a Geweke joint-distribution test", {
  skip_on_cran()
  set.seed(77)
  lda_geweke_corpus()   # helper-lda.R: K, W, alpha, beta, len, doc, N, m, draw_z
  draw_w <- function(z) {                 # words given topics: phi_k ~ Dir(beta)
    phi <- matrix(stats::rgamma(K * W, beta), K, W)
    vapply(z, function(k) sample.int(W, 1L, prob = phi[k, ]), integer(1))
  }
  stats_of <- function(z, w) c(sum(z == 1), sum(z == 1 & w == 1),
                               sum(table(factor(z, 1:K), factor(w, 1:W))^2),
                               sum(table(doc, factor(z, 1:K))^2))
  n_fwd <- 20000
  fwd <- t(replicate(n_fwd, { z <- draw_z(); stats_of(z, draw_w(z)) }))
  thin <- 3; n_keep <- 5000
  sc <- lda_geweke_successive(m, K, W, len, draw_z, draw_w, stats_of, n_keep, thin,
                              "mh", mh_steps = 1L)
  for (j in 1:4) {
    bm <- colMeans(matrix(sc[, j], 100))
    se <- sqrt(stats::var(bm) / length(bm) + stats::var(fwd[, j]) / n_fwd)
    expect_lt(abs(mean(sc[, j]) - mean(fwd[, j])) / se, 4, label = paste("statistic", j))
  }
})

# The recovery data of test-lda.R: "mh" and the dense collapsed Gibbs
# sampler target the same posterior, so their mean log p(w, z) over kept
# draws agree within Monte Carlo error (batch means), and both recover
# the topics.  Power: a wrong acceptance ratio moves the mean log p(w, z)
# by tens of standard errors.
test_that("mh agrees with the dense sampler on the recovery data", {
  skip_on_cran()
  set.seed(2024)
  rd <- lda_recovery_data()   # helper-lda.R
  W <- rd$W; K <- rd$K; phi <- rd$phi; docs <- rd$docs
  m <- lda_model(K, alpha = 1, beta = 1)
  fits <- lapply(c(dense = "dense", mh = "mh"), function(alg) {
    set.seed(5)
    sample_posterior(m, docs, vocab = letters[1:5], iter = 2000, burnin = 300,
                     progress = FALSE, algorithm = alg)
  })
  ll <- lapply(fits, function(f) f$chains[[1]]$traces[, "log_lik"])
  se <- vapply(ll, function(x) { bm <- colMeans(matrix(x, 50)); sqrt(stats::var(bm) / 40) },
               numeric(1))
  expect_lt(abs(mean(ll$mh) - mean(ll$dense)) / sqrt(sum(se^2)), 4)
  perms <- rbind(c(1, 2, 3), c(1, 3, 2), c(2, 1, 3), c(2, 3, 1), c(3, 1, 2), c(3, 2, 1))
  err <- apply(perms, 1, function(p) max(abs(topic_word(fits$mh)[p, ] - phi)))
  expect_lt(min(err), 0.1)
  # in-sample perplexity of the two fits within 2% of each other
  p <- vapply(fits, function(f) as.numeric(perplexity(f)), numeric(1))
  expect_lt(abs(p[["mh"]] / p[["dense"]] - 1), 0.02)
})

test_that("mh draws: seed, chunks, extend() and every corpus form", {
  docs <- list(c(1, 2, 2, 3, 1), c(3, 3, 4), c(1, 4, 4, 2), 2)
  m <- lda_model(K = 3, alpha = 0.5, beta = 0.2)
  run <- function(data = docs, ...) {
    set.seed(5)
    sample_posterior(m, data, progress = FALSE, algorithm = "mh", ...)
  }
  a <- run(iter = 30, burnin = 10, thin = 2)
  expect_identical(a$chains, run(iter = 30, burnin = 10, thin = 2)$chains)
  a <- extend(a, 40, progress = FALSE)
  b <- run(iter = 70, burnin = 10, thin = 2)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  expect_identical(a$chains[[1]]$state, b$chains[[1]]$state)
  # the same corpus as a count matrix: identical draws
  dtm <- t(vapply(docs, function(d) tabulate(d, 4), numeric(4)))
  expect_identical(run(dtm, iter = 20)$chains, run(iter = 20)$chains)
  # the number of steps changes the chain
  expect_false(identical(run(iter = 20, mh_steps = 3)$chains, run(iter = 20)$chains))
  # the trace is log p(w, z) of the state
  st <- b$chains[[1]]$state
  expect_equal(unname(b$chains[[1]]$traces[35, "log_lik"]),
               mcmix:::lda_log_joint(m, b$data, st$z), tolerance = 1e-10)
})

test_that("every LDA consumer works on an mh fit", {
  set.seed(4)
  docs <- list(a = c(1, 1, 2, 1, 2), b = c(3, 3, 4, 4), c = c(4, 3, 3, 4, 3), d = c(1, 2, 2, 1))
  fit <- sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
                          vocab = c("w", "x", "y", "z"), iter = 200, progress = FALSE,
                          algorithm = "mh", chains = 2)
  expect_equal(unname(rowSums(topic_word(fit))), rep(1, 2), tolerance = 1e-12)
  expect_equal(unname(rowSums(doc_topic(fit, chain = 2))), rep(1, 4), tolerance = 1e-12)
  expect_equal(dim(top_terms(fit, n = 2)), c(2L, 2L))
  th <- predict(fit, list(new1 = c(1, 2, 2), new2 = c(3, 4, 4, 4)))
  expect_equal(rownames(th), c("new1", "new2"))
  expect_equal(unname(rowSums(th)), c(1, 1), tolerance = 1e-12)
  px <- perplexity(fit, list(c(1, 2, 1, 2), c(3, 4, 4, 3)))
  expect_true(is.finite(px) && px > 1 && px < 4)
  expect_output(print(fit), "LDA fit")
  expect_s3_class(summary(fit), "summary.mcmix_fit")
})

test_that("bad mh_steps is refused naming the argument", {
  docs <- list(c(1, 2), c(2, 3))
  m <- lda_model(K = 2)
  for (bad in list(0, 1.5, -1, NA, "2", c(1, 2), 1001))
    expect_error(sample_posterior(m, docs, iter = 5, progress = FALSE, algorithm = "mh",
                                  mh_steps = bad), "`mh_steps`", class = "mcmix_error_input")
})

# The topics (n_wk + beta) / (n_k + W beta) of assignment z (0-based), K x W.
mh_phi_of_z <- function(corpus, z, K, beta) {
  n <- matrix(tabulate(z * corpus$W + corpus$word + 1L, K * corpus$W), corpus$W, K)
  t((n + beta) / rep(colSums(n) + corpus$W * beta, each = corpus$W))
}

test_that("mh on narrow and on int counts: the same draws, the counts read in step", {
  # K = 4: 8-bit topics, K = 300: 16-bit topics (16-bit counts both)
  for (K in c(4L, 300L)) {
    set.seed(11)
    docs <- lapply(1:40, function(d) sample.int(30, 25, replace = TRUE))
    m <- lda_model(K = K, alpha = 0.3, beta = 0.1)
    corpus <- mcmix:::lda_corpus(docs, NULL)
    N <- length(corpus$word)
    st0 <- list(z = sample.int(K, N, replace = TRUE) - 1L, phi_sum = matrix(0, K, corpus$W),
                theta_sum = matrix(0, corpus$D, K), n_draws = 0)
    run <- function(wide, n = 6L, thin = 2L) {
      set.seed(3)
      mcmix:::lda_step_c(m, corpus, st0, n, thin, 0L, FALSE, "mh", mh_wide = wide)
    }
    a <- run(FALSE)
    expect_identical(a, run(TRUE))
    expect_false(identical(a$z, st0$z))
    # a kept draw reads the counts of its own z (the 16-bit counts copied
    # back first): its log p(w, z) and its topics
    expect_equal(a$log_lik[3], mcmix:::lda_log_joint(m, corpus, a$z), tolerance = 1e-10)
    one <- run(FALSE, n = 3L, thin = 3L)
    expect_equal(one$phi_sum, mh_phi_of_z(corpus, one$z, K, 0.1), tolerance = 1e-12,
                 ignore_attr = TRUE)
  }
})

test_that("mh on a word of more than 65535 tokens runs on int counts", {
  # word 1 holds 66,500 of the 70,000 tokens: its counts overflow 16 bits
  set.seed(12)
  docs <- lapply(1:70, function(d) c(rep(1L, 950), sample(2:5, 50, replace = TRUE)))
  m <- lda_model(K = 2, alpha = 0.5, beta = 0.1)
  corpus <- mcmix:::lda_corpus(docs, NULL)
  N <- length(corpus$word)
  st0 <- list(z = sample.int(2, N, replace = TRUE) - 1L, phi_sum = matrix(0, 2, corpus$W),
              theta_sum = matrix(0, corpus$D, 2), n_draws = 0)
  set.seed(4)
  r <- mcmix:::lda_step_c(m, corpus, st0, 2L, 2L, 0L, FALSE, "mh")
  expect_equal(r$log_lik, mcmix:::lda_log_joint(m, corpus, r$z), tolerance = 1e-10)
  expect_equal(r$phi_sum, mh_phi_of_z(corpus, r$z, 2, 0.1), tolerance = 1e-12,
               ignore_attr = TRUE)
  set.seed(4)
  expect_identical(r, mcmix:::lda_step_c(m, corpus, st0, 2L, 2L, 0L, FALSE, "mh",
                                         mh_wide = TRUE))
})
