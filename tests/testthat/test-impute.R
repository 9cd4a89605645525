# Missing values: imputation of joint Gaussian coordinates (R/impute.R,
# src/mixture_impute.c) and clustering with missing entries.

# Exact conditional of coordinate 2 given coordinate 1 of a new point in a
# cluster with complete data X under the NIW posterior predictive, a
# bivariate t_nu(m, V) (Murphy 2007, eq. 258): x2 | x1 is t_{nu+1} with
# location m2 + V21 / V11 (x1 - m1) and squared scale
# (nu + (x1 - m1)^2 / V11) / (nu + 1) (V22 - V21^2 / V11).
niw_conditional <- function(X, x1, m0, kappa, nu, Psi) {
  n <- nrow(X); D <- 2
  xb <- colMeans(X)
  S <- crossprod(sweep(X, 2, xb))
  kn <- kappa + n; nun <- nu + n
  mn <- (kappa * m0 + n * xb) / kn
  Psin <- Psi + S + kappa * n / kn * tcrossprod(xb - m0)
  df <- nun - D + 1
  V <- Psin * (kn + 1) / (kn * df)
  loc <- mn[2] + V[2, 1] / V[1, 1] * (x1 - mn[1])
  s2 <- (df + (x1 - mn[1])^2 / V[1, 1]) / (df + 1) * (V[2, 2] - V[2, 1]^2 / V[1, 1])
  c(mean = loc, var = s2 * (df + 1) / (df - 1))
}

test_that("imputed Gaussian coordinates follow their exact conditional given the cluster", {
  set.seed(31)
  mu <- rbind(c(-6, -6), c(0, 6), c(6, -6))
  Sig <- matrix(c(1, 0.7, 0.7, 1), 2)
  truth <- rep(1:3, each = 30)
  x <- mu[truth, ] + matrix(stats::rnorm(180), 90) %*% chol(Sig)
  miss <- c(5, 40, 77)               # one row per cluster loses coordinate 2
  x1 <- x[miss, 1]
  x[miss, 2] <- NA
  m0 <- c(0, 0); kappa <- 0.1; nu <- 4; Psi <- diag(2)
  fam <- gaussian_niw(prior_mean = m0, kappa = kappa, df = nu, scale = Psi)
  fit <- sample_posterior(dp_mixture(fam, alpha = 0.5), x, iter = 3000, burnin = 300,
                          progress = FALSE)
  z <- partition_draws(fit)
  # the clusters are far apart: most kept partitions are the truth; the
  # imputed values of those draws follow p(x_mis | z = truth, x_obs)
  at_truth <- apply(z, 1L, function(zz) mx_key(zz) == mx_key(truth))
  expect_gt(mean(at_truth), 0.5)
  d <- imputed_draws(fit)
  expect_identical(colnames(d), sprintf("x2[%d]", miss))
  d <- d[at_truth, , drop = FALSE]
  for (j in seq_along(miss)) {
    k <- truth[miss[j]]
    members <- setdiff(which(truth == k), miss[j])
    ex <- niw_conditional(x[members, ], x1[j], m0, kappa, nu, Psi)
    e <- ess(d[, j])
    expect_lt(abs(mean(d[, j]) - ex[["mean"]]), 4 * sqrt(ex[["var"]] / e))
    # variance: s.e. of a sample variance, sqrt(2 / ess) relative (near-normal)
    expect_lt(abs(stats::var(d[, j]) / ex[["var"]] - 1), 4 * sqrt(2 / e) + 0.02)
  }
  # a chunked run equals one long run
  set.seed(2); a <- sample_posterior(dp_mixture(fam), x[1:40, ], iter = 40, progress = FALSE)
  set.seed(2); b <- sample_posterior(dp_mixture(fam), x[1:40, ], iter = 20, burnin = 20,
                                     progress = FALSE)
  b <- extend(b, 20)
  expect_identical(unname(imputed_draws(a)), unname(imputed_draws(b)))
  expect_error(imputed_draws(sample_posterior(dp_mixture(fam), x[-miss, ], iter = 5,
                                              progress = FALSE)), "imputed no values")
})

test_that("with 20% missing entries the complete rows cluster as well as with full data", {
  require_suggested("mcclust")
  set.seed(32)
  n <- 150
  truth <- rep(1:3, each = n / 3)
  df <- data.frame(a = stats::rnorm(n, c(-3, 0, 3)[truth]),
                   b = stats::rnorm(n, c(0, 3, -3)[truth]),
                   cat = factor(c("x", "y", "z")[ifelse(stats::runif(n) < 0.8, truth,
                                                         sample(3, n, TRUE))]),
                   bin = stats::runif(n) < c(0.1, 0.5, 0.9)[truth])
  dm <- df
  for (j in names(dm)) dm[[j]][stats::runif(n) < 0.2] <- NA
  complete <- stats::complete.cases(dm)
  fam_diag <- product_family(a = gaussian_diag(), b = gaussian_diag(),
                             cat = categorical_dirichlet(), bin = bernoulli_beta())
  fam_niw <- product_family(ab = gaussian_niw(), cat = categorical_dirichlet(),
                            bin = bernoulli_beta(), .columns = list(ab = c("a", "b")))
  ari <- function(fam, data) {
    set.seed(1)
    fit <- sample_posterior(dp_mixture(fam, alpha = 1), data, iter = 400, progress = FALSE)
    z <- partition_draws(fit)
    # posterior expected adjusted Rand index on the complete rows, with its s.e.
    a <- apply(z, 1L, function(zz) mcclust::arandi(zz[complete], truth[complete]))
    c(mean = mean(a), se = stats::sd(a) / sqrt(ess(a)))
  }
  for (fam in list(fam_diag, fam_niw)) {
    full <- ari(fam, df)
    part <- ari(fam, dm)
    expect_gt(full[["mean"]], 0.8)
    expect_gt(part[["mean"]], full[["mean"]] - 3 * sqrt(full[["se"]]^2 + part[["se"]]^2) - 0.02)
  }
})
