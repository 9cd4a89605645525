# Helpers for the component-family tests (test-family-*.R).  The reference
# values below are written directly from the textbook formulas in R and
# never call the package's C code.

fam_eval <- function(...) mcmix:::.family_eval(...)
fam_prepare <- function(...) mcmix:::family_prepare(...)
fam_unpack <- function(...) mcmix:::family_param_unpack(...)

# Log density of N(mean, S) at each row of x.
ref_dmvnorm <- function(x, mean, S) {
  x <- matrix(x, ncol = length(mean))
  R <- chol(S)
  z <- backsolve(R, t(x) - mean, transpose = TRUE)
  -0.5 * ncol(x) * log(2 * pi) - sum(log(diag(R))) - 0.5 * colSums(z^2)
}

# Log density of the multivariate Student t (df, location mu, scale S).
ref_dmvt <- function(x, df, mu, S) {
  d <- length(mu)
  R <- chol(S)
  z <- backsolve(R, matrix(x, nrow = d) - mu, transpose = TRUE)
  lgamma((df + d) / 2) - lgamma(df / 2) - d / 2 * log(df * pi) - sum(log(diag(R))) -
    (df + d) / 2 * log1p(colSums(z^2) / df)
}

# Check that the columns of `draws` have means `mu` and variances `v`,
# within `k` Monte Carlo standard errors (the s.e. of a sample variance
# from the sample fourth central moment).
expect_moments <- function(draws, mu, v, k = 5) {
  draws <- as.matrix(draws)
  n <- nrow(draws)
  m <- colMeans(draws)
  s2 <- apply(draws, 2, var)
  m4 <- colMeans(sweep(draws, 2, m)^4)
  se_m <- sqrt(v / n)
  se_v <- sqrt(pmax(m4 - s2^2, 0) / n)
  testthat::expect_true(all(abs(m - mu) < k * se_m),
                        info = paste("means", paste(signif(m, 4), collapse = " "),
                                     "expected", paste(signif(mu, 4), collapse = " ")))
  testthat::expect_true(all(abs(s2 - v) < k * se_v),
                        info = paste("variances", paste(signif(s2, 4), collapse = " "),
                                     "expected", paste(signif(v, 4), collapse = " ")))
}

# log p(x_new | x) as a difference of reference log marginals, per row.
ref_pred_by_difference <- function(ref_lm, x, xnew) {
  apply(xnew, 1, function(r) ref_lm(rbind(x, r)) - ref_lm(x))
}

# The add/remove check for any family: statistics return to their start.
expect_add_remove_exact <- function(family, x, n_ops = 10000, tol = 1e-9, empties = FALSE) {
  r <- fam_eval(family, x, "add_remove", n_ops)
  testthat::expect_lt(r[["log_marginal"]], tol)
  testthat::expect_lt(r[["log_predictive"]], tol)
  if (empties) testthat::expect_gt(r[["n_empty"]], 0)
  invisible(r)
}

# The add/remove round trip on 30 three-dimensional points far from the
# prior mean, and on 2 points with empty clusters in between.
expect_add_remove_3d <- function(fam) {
  expect_add_remove_exact(fam, matrix(rnorm(90, 10), 30))
  expect_add_remove_exact(fam, matrix(rnorm(6), 2), empties = TRUE)
}
