# Helpers for the tests of the model-specific samplers and of SMC/AIS/ABC.

# Monte Carlo standard error of mean(x) by batch means (for correlated draws).
batch_se <- function(x, n_batch = 40L) {
  b <- floor(length(x) / n_batch)
  m <- vapply(seq_len(n_batch), function(i) mean(x[(i - 1) * b + seq_len(b)]), 0)
  stats::sd(m) / sqrt(n_batch)
}

# Simulation-based calibration (Talts et al. 2018): `ranks` is a matrix of
# rank statistics in 0..L (one row per replication, one column per
# parameter); returns the chi-square p-value of each column's histogram
# against the uniform distribution on L + 1 values (pooled into `bins`).
sbc_pvalues <- function(ranks, L, bins = 10L) {
  apply(ranks, 2L, function(r) {
    b <- cut(r, breaks = seq(-0.5, L + 0.5, length.out = bins + 1L))
    stats::chisq.test(table(b), p = rep(1 / bins, bins))$p.value
  })
}

# Rank of each true value among the rows of `draws` (matrix, draws x params).
sbc_rank <- function(draws, truth) {
  vapply(seq_along(truth), function(k) sum(draws[, k] < truth[k]), 0)
}
