# Exact targets and Monte Carlo error helpers for the sampler tests.
gauss_mu <- c(1, 2)
gauss_S <- matrix(c(1, 0.8, 0.8, 2), 2)
gauss_P <- solve(gauss_S)
gauss_ld <- function(x) -0.5 * sum((x - gauss_mu) * (gauss_P %*% (x - gauss_mu)))
gauss_gr <- function(x) -as.vector(gauss_P %*% (x - gauss_mu))

# Batch-means standard error of the mean of x (n^(1/2) batches).
bm_se <- function(x) {
  n <- length(x)
  b <- floor(sqrt(n))
  m <- floor(n / b)
  means <- colMeans(matrix(x[seq_len(m * b)], b))
  sqrt(stats::var(means) / m)
}

# Means, variances and covariance of the draws agree with the exact
# moments of the 2-D Gaussian within 5 batch-means standard errors.
expect_gauss_moments <- function(tr, k = 5) {
  for (j in 1:2) {
    x <- tr[, j]
    testthat::expect_lt(abs(mean(x) - gauss_mu[j]), k * bm_se(x))
    v <- (x - gauss_mu[j])^2
    testthat::expect_lt(abs(mean(v) - gauss_S[j, j]), k * bm_se(v))
  }
  cxy <- (tr[, 1] - gauss_mu[1]) * (tr[, 2] - gauss_mu[2])
  testthat::expect_lt(abs(mean(cxy) - gauss_S[1, 2]), k * bm_se(cxy))
}

five_p <- c(0.1, 0.1, 0.4, 0.2, 0.1)
five_pi <- five_p / sum(five_p)
five_ld <- function(k) if (k < 0 || k > 4) -Inf else log(five_p[k + 1])

# With the seed `seed`, `run(iter)` continued by extend() for `more`
# iterations gives exactly the draws and final state of `run(iter + more)`;
# returns that longer run.
expect_extend_matches <- function(run, iter, more, seed) {
  set.seed(seed)
  f1 <- extend(run(iter), more)
  set.seed(seed)
  f2 <- run(iter + more)
  testthat::expect_identical(f1$chains[[1]]$traces, f2$chains[[1]]$traces)
  testthat::expect_identical(f1$chains[[1]]$state, f2$chains[[1]]$state)
  invisible(f2)
}

# N(0, I_2) truncated to |x1| < trunc_r, written as a density that is NaN
# outside (as one that overflows there): during sampling such points are
# rejected, so the chain samples the truncated density, whose exact moments
# are var(x1) = 1 - 2 r phi(r) / (2 Phi(r) - 1), P(|x1| > 1) =
# 2 (Phi(r) - Phi(1)) / (2 Phi(r) - 1), and x2 ~ N(0, 1).
trunc_r <- 1.5
trunc_ld <- function(x) if (abs(x[1]) < trunc_r) -sum(x^2) / 2 else NaN
trunc_gr <- function(x) -x
trunc_z <- 2 * stats::pnorm(trunc_r) - 1
trunc_var <- 1 - 2 * trunc_r * stats::dnorm(trunc_r) / trunc_z
trunc_tail <- 2 * (stats::pnorm(trunc_r) - stats::pnorm(1)) / trunc_z

# The draws `tr` (n x 2) have the exact moments above within k batch-means
# standard errors, and never leave |x1| < trunc_r.
expect_trunc_moments <- function(tr, k = 5) {
  x <- tr[, 1]
  testthat::expect_true(all(abs(x) < trunc_r))
  testthat::expect_lt(abs(mean(x)), k * bm_se(x))
  testthat::expect_lt(abs(mean(x^2) - trunc_var), k * bm_se(x^2))
  tail <- as.numeric(abs(x) > 1)
  testthat::expect_lt(abs(mean(tail) - trunc_tail), k * bm_se(tail))
  y <- tr[, 2]
  testthat::expect_lt(abs(mean(y)), k * bm_se(y))
  testthat::expect_lt(abs(mean(y^2) - 1), k * bm_se(y^2))
}

# The truncated target as one function returning the value with its
# gradient (as an attribute), for comparison with the two-function form.
trunc_vg <- function(x) if (abs(x[1]) < trunc_r) structure(-sum(x^2) / 2, gradient = -x) else NaN
