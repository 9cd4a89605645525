# Exact answers for the HDP tests (test-hdp.R, test-exact-sweep-models.R):
# the collapsed marginal of a partition of 1-D gaussian_mean data and the
# prior over partitions of grouped data under the Chinese restaurant
# franchise.

# Collapsed log p(x | partition) for gaussian_mean in 1-D: within a cluster
# x ~ N(m0 1, s2 I + s0 11').
hdp_log_marginal_r <- function(x, z, s2, m0, s0) {
  sum(vapply(split(x, z), function(v) {
    n <- length(v)
    S <- diag(s2, n) + s0
    L <- chol(S)
    q <- backsolve(L, v - m0, transpose = TRUE)
    -0.5 * n * log(2 * pi) - sum(log(diag(L))) - 0.5 * sum(q^2)
  }, numeric(1)))
}

# Exact posterior over partitions for fixed concentrations. The prior
# probability of a partition z of grouped data under the Chinese restaurant
# franchise sums over the table counts m_jk in 1..n_jk (Teh et al. 2006;
# Antoniak 1974):
#   p(z) = sum_m prod_j [alpha^{m_j.} Gamma(alpha) / Gamma(alpha + n_j)]
#          prod_jk s(n_jk, m_jk) gamma^K Gamma(gamma) / Gamma(gamma + m_..)
#          prod_k Gamma(m_.k),
# s the unsigned Stirling numbers of the first kind.
set_partitions <- function(n) {
  out <- list(1L)
  for (i in seq_len(n - 1L) + 1L) {
    nxt <- list()
    for (p in out) for (k in seq_len(max(p) + 1L)) nxt[[length(nxt) + 1L]] <- c(p, k)
    out <- nxt
  }
  out
}
stirling1 <- function(n, m) {
  S <- matrix(0, n + 1, n + 1); S[1, 1] <- 1
  for (i in seq_len(n)) for (j in seq_len(i))
    S[i + 1, j + 1] <- S[i, j] + (i - 1) * S[i, j + 1]
  S[n + 1, m + 1]
}
hdp_log_prior_r <- function(z, grp, gamma, alpha) {
  K <- max(z); J <- max(grp)
  njk <- table(factor(grp, 1:J), factor(z, 1:K))
  cells <- which(njk > 0)
  grid <- as.matrix(expand.grid(lapply(cells, function(c) seq_len(njk[c]))))
  lps <- apply(grid, 1, function(g) {
    m <- matrix(0, J, K); m[cells] <- g
    sum(log(mapply(stirling1, njk[cells], m[cells]))) +
      sum(rowSums(m) * log(alpha) + lgamma(alpha) - lgamma(alpha + rowSums(njk))) +
      K * log(gamma) + lgamma(gamma) - lgamma(gamma + sum(m)) + sum(lgamma(colSums(m)))
  })
  max(lps) + log(sum(exp(lps - max(lps))))
}
