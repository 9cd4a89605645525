# Shared pieces of the Geweke (2004) joint-distribution tests
# (test-dp-algorithms-geweke.R, test-hdp.R), on the normal model with known variance
# s2 and a N(m0, s0) prior on each cluster mean.

# x | z with the cluster means integrated out: within each cluster, each
# x[i] from its predictive given the earlier members of the cluster.
geweke_draw_x <- function(z, s2, m0, s0) {
  x <- numeric(length(z))
  for (k in unique(z)) {
    idx <- which(z == k); sum_x <- 0; n <- 0
    for (i in idx) {
      prec <- 1 / s0 + n / s2
      mu <- (m0 / s0 + sum_x / s2) / prec
      x[i] <- stats::rnorm(1, mu, sqrt(s2 + 1 / prec))
      sum_x <- sum_x + x[i]; n <- n + 1
    }
  }
  x
}

# Within-cluster sum of squares (couples the partition with the data).
geweke_wss <- function(x, z) sum((x - stats::ave(x, z))^2)

# Chi-square p-value comparing the number of clusters (values 1..N) in the
# sampler's draws `k` with the forward draws `k_fwd`; only numbers of
# clusters seen at least `min_count` times in all are compared.
geweke_count_pvalue <- function(k, k_fwd, N, min_count = 1) {
  lv <- 1:N
  tab <- rbind(table(factor(k, lv)), table(factor(k_fwd, lv)))
  tab <- tab[, colSums(tab) >= min_count, drop = FALSE]
  suppressWarnings(stats::chisq.test(tab)$p.value)
}
