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
