# Calibration of credible balls (credible_ball(), R/credible_ball.R) with
# the MCMC sampler: data sets drawn from the prior of a DP mixture of
# Bernoulli-Beta components, fitted with sample_posterior(); the fraction
# of data sets whose 90% ball contains the true partition is compared with
# the average posterior mass of the balls (exact, by enumeration of the
# partitions), which it must equal up to Monte Carlo error
# (E[1(truth in B(x))] = E[P(B(x) | x)] for any ball built from the data).
# Also the SALSO-style and greedy searches of partition() on each fit.
#
# Usage: Rscript bench/bench-credible-ball.R [n_sets]   (default 200)
library(mcmix)
args <- commandArgs(trailingOnly = TRUE)
n_sets <- if (length(args)) as.integer(args[[1L]]) else 200L
N <- 7
parts <- function(n) {
  out <- matrix(1L, 1L, 1L)
  for (i in 2:n) out <- do.call(rbind, lapply(seq_len(nrow(out)), function(r) {
    a <- out[r, ]
    t(vapply(seq_len(max(a) + 1L), function(v) c(a, v), integer(i)))
  }))
  out
}
P <- parts(N)
key <- function(z) paste(match(z, unique(z)), collapse = "")
keys <- apply(P, 1L, key)
lml <- function(X) {
  s <- colSums(X)
  sum(lbeta(1 + s, 1 + nrow(X) - s) - lbeta(1, 1))
}
lprior <- apply(P, 1L, function(z) {
  nk <- tabulate(z)
  length(nk) * log(1) + sum(lgamma(nk)) + lgamma(1) - lgamma(1 + N)
})
set.seed(2026)
res <- t(vapply(seq_len(n_sets), function(r) {
  truth <- rcrp(N, 1)
  pr <- matrix(stats::rbeta(4 * max(truth), 1, 1), ncol = 4)
  x <- matrix(stats::rbinom(4 * N, 1, pr[truth, ]), ncol = 4)
  ll <- apply(P, 1L, function(z) sum(vapply(split(seq_len(N), z),
                                            function(i) lml(x[i, , drop = FALSE]), 0)))
  lp <- ll + lprior
  post <- exp(lp - max(lp)); post <- post / sum(post)
  fit <- sample_posterior(dp_mixture(bernoulli_beta(), alpha = 1), x, iter = 1000,
                          burnin = 200, progress = FALSE)
  g <- partition(fit, method = "greedy")
  s <- partition(fit)
  b <- credible_ball(fit, estimate = s, level = 0.9)
  d <- .Call(mcmix:::C_ffi_partition_dists, as.integer(b$estimate), P, 1L)
  inside <- d <= b$radius + 1e-9
  c(cover = inside[match(key(truth), keys)], mass = sum(post[inside]),
    salso = s$loss, greedy = g$loss)
}, numeric(4)))
cat(sprintf("data sets: %d, N = %d, 90%% VI balls\n", n_sets, N))
cat(sprintf("coverage of the truth: %.3f (s.e. %.3f); average exact ball mass: %.3f\n",
            mean(res[, "cover"]), sqrt(mean(res[, "cover"]) * (1 - mean(res[, "cover"])) / n_sets),
            mean(res[, "mass"])))
cat(sprintf("SALSO expected VI <= greedy on %d of %d fits (mean %.4f vs %.4f)\n",
            sum(res[, "salso"] <= res[, "greedy"] + 1e-10), n_sets,
            mean(res[, "salso"]), mean(res[, "greedy"])))
