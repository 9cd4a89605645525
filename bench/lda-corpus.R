## The synthetic LDA corpora of bench/bench-lda.R and bench/bench-lda-target.R
## (sourced by both): D documents of `len` tokens over W words from an LDA
## with K topics drawn from Dirichlet(0.05) and proportions from
## Dirichlet(0.2), as word-id vectors.
make_corpus <- function(D, len, W, K, seed) {
  set.seed(seed)
  phi <- matrix(stats::rgamma(K * W, 0.05), K, W)
  phi <- phi / rowSums(phi)
  z <- unlist(lapply(seq_len(D), function(d) {
    th <- stats::rgamma(K, 0.2)
    sample.int(K, len, replace = TRUE, prob = th)
  }))
  w <- integer(length(z))
  for (k in seq_len(K)) {
    i <- which(z == k)
    w[i] <- sample.int(W, length(i), replace = TRUE, prob = phi[k, ])
  }
  unname(split(w, rep(seq_len(D), each = len)))
}
