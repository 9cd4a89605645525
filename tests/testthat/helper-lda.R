# The recovery data of the LDA tests (test-lda.R, test-lda-mh.R): 100
# documents of 50 tokens over 5 words from 3 topics `phi`, drawn from R's
# generator as it stands (the callers set the seed).
lda_recovery_data <- function() {
  W <- 5; K <- 3
  phi <- rbind(c(0.60, 0.30, 0.05, 0.03, 0.02),
               c(0.02, 0.08, 0.60, 0.25, 0.05),
               c(0.05, 0.02, 0.03, 0.30, 0.60))
  docs <- lapply(1:100, function(d) {
    th <- stats::rgamma(K, 1); th <- th / sum(th)
    z <- sample.int(K, 50, replace = TRUE, prob = th)
    vapply(z, function(k) sample.int(W, 1, prob = phi[k, ]), integer(1))
  })
  list(docs = docs, phi = phi, W = W, K = K)
}

# The tiny corpus of the LDA Geweke tests (test-lda.R, test-lda-mh.R): its
# sizes, document of each token, model and a draw of the topics z from
# their prior, put into the caller's environment.
lda_geweke_corpus <- function(env = parent.frame()) {
  K <- 2; W <- 3; alpha <- 0.8; beta <- 0.25
  len <- c(4L, 3L, 5L)
  draw_z <- function() unlist(lapply(len, function(n) {
    th <- stats::rgamma(K, alpha)
    sample.int(K, n, replace = TRUE, prob = th)
  }))
  list2env(list(K = K, W = W, alpha = alpha, beta = beta, len = len,
                doc = rep(seq_along(len), len), N = sum(len),
                m = lda_model(K, alpha = alpha, beta = beta), draw_z = draw_z), env)
  invisible(NULL)
}

# The successive-conditional chain of a Geweke test on that corpus: from
# z ~ prior and w | z, `n_keep` rows of stats_of(z, w), one every `thin`
# alternations of a sweep of z given w (lda_step_c(), arguments `...`) and
# a draw of w given z by draw_w().
lda_geweke_successive <- function(m, K, W, len, draw_z, draw_w, stats_of, n_keep, thin, ...) {
  z <- draw_z(); w <- draw_w(z)
  D <- length(len)
  state <- list(z = z - 1L, phi_sum = matrix(0, K, W), theta_sum = matrix(0, D, K),
                n_draws = 0)
  sc <- matrix(0, n_keep, length(stats_of(z, w)))
  for (g in seq_len(n_keep * thin)) {
    corpus <- list(word = w - 1L, doc_start = c(0L, cumsum(len)), W = W, D = D)
    state <- mcmix:::lda_step_c(m, corpus, state, 1L, 1L, g - 1L, TRUE, ...)
    if (g %% thin == 0) sc[g / thin, ] <- stats_of(state$z + 1L, w)
    w <- draw_w(state$z + 1L)
  }
  sc
}

# ---- exact posterior of z on tiny corpora (test-lda-mh.R, test-exact-sweep-models.R)

# log p(w, z) computed directly from the Dirichlet-multinomial formulas.
mh_log_joint_r <- function(word, doc, z, K, W, alpha, beta) {
  nwk <- table(factor(z, 1:K), factor(word, 1:W))
  ndk <- table(factor(doc, sort(unique(doc))), factor(z, 1:K))
  sum(lgamma(W * beta) - lgamma(rowSums(nwk) + W * beta) +
        rowSums(lgamma(nwk + beta) - lgamma(beta))) +
    sum(lgamma(K * alpha) - lgamma(rowSums(ndk) + K * alpha) +
          rowSums(lgamma(ndk + alpha) - lgamma(alpha)))
}

# Run `n` single sweeps of the "mh" sampler (or `algorithm`) on `corpus`
# from z = 0 and return the assignment after each, as its row of
# expand.grid(1:K, ...).
mh_keys <- function(model, corpus, n, steps, seed, algorithm = "mh") {
  K <- model$K
  N <- length(corpus$word)
  set.seed(seed)
  state <- list(z = integer(N), phi_sum = matrix(0, K, corpus$W),
                theta_sum = matrix(0, corpus$D, K), n_draws = 0)
  key <- integer(n)
  for (g in seq_len(n)) {
    state <- mcmix:::lda_step_c(model, corpus, state, 1L, 1L, g - 1L, TRUE, algorithm,
                                mh_steps = steps)
    key[g] <- sum(state$z * K^(seq_len(N) - 1L)) + 1L
  }
  key
}

# The chain's assignments `key` against the exact posterior `ex`:
# (1) for every pair of tokens, the probability that they share a topic
# (the token marginals are 1 / K by the symmetry of the labels, so the
# pairs carry the information), as a z-score with a batch-means standard
# error (100 batches), below 4.5 (the sampler gives at most 2.3 over the
# corpora below); (2) the total-variation distance of the empirical
# distribution, below twice the expected one of n / 4 independent draws.
# `label` names the combination in a failure.
mh_expect_exact <- function(ex, key, label = "") {
  n <- length(key)
  N <- ncol(ex$zs)
  for (s in seq_len(N - 1L)) for (t in seq.int(s + 1L, N)) {
    same <- ex$zs[, s] == ex$zs[, t]
    x <- same[key]
    se <- sqrt(stats::var(colMeans(matrix(x, n / 100))) / 100)
    expect_lt(abs(mean(x) - sum(ex$post[same])) / se, 4.5,
              label = sprintf("%stokens %d and %d in one topic", label, s, t))
  }
  freq <- tabulate(key, length(ex$post)) / n
  expect_lt(0.5 * sum(abs(freq - ex$post)),
            2 * 0.5 * sum(sqrt(ex$post * (1 - ex$post) / (n / 4))),
            label = sprintf("%sTV distance", label))
}

# Exact posterior p(z | w) by enumerating the K^N assignments.
mh_exact_posterior <- function(corpus, K, alpha, beta) {
  N <- length(corpus$word)
  doc <- rep(seq_len(corpus$D), diff(corpus$doc_start))
  zs <- as.matrix(expand.grid(rep(list(seq_len(K)), N)))
  lp <- apply(zs, 1, function(z) mh_log_joint_r(corpus$word + 1L, doc, z, K, corpus$W,
                                                alpha, beta))
  post <- exp(lp - max(lp))
  list(zs = zs, post = post / sum(post))
}

# Where each exact LDA sampler (a row of `lda_samplers` with exact = TRUE,
# R/lda.R) is compared with the exact posterior of z, by test file: the
# exact tests of those files loop over these names, and test-recipes.R
# checks that every exact row is here (an approximate row is documented
# as approximate instead).
lda_exact_tested <- list("test-lda.R" = c("sparse", "dense"), "test-lda-mh.R" = "mh")
