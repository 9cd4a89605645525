# hier_lm_gibbs(): hierarchical linear regression.

test_that("hier_lm_gibbs is calibrated (simulation-based calibration)", {
  skip_on_cran()
  set.seed(77)
  p <- 2; m <- 4; nj <- 5
  eta0 <- 5; nu0 <- 4; s0sq <- 1
  g <- rep(seq_len(m), each = nj)
  L <- 19L
  reps <- 150L
  ranks <- t(vapply(seq_len(reps), function(r) {
    mu <- stats::rnorm(p)                                   # mu ~ N(0, I)
    Sigma <- solve(stats::rWishart(1, eta0, diag(p))[, , 1]) # IW(eta0, I)
    sigma2 <- nu0 * s0sq / stats::rchisq(1, nu0)            # IG(nu0/2, nu0 s0sq/2)
    beta <- mu + t(chol(Sigma)) %*% matrix(stats::rnorm(p * m), p, m)
    X <- cbind(1, stats::rnorm(m * nj))
    y <- rowSums(X * t(beta[, g])) + stats::rnorm(m * nj, sd = sqrt(sigma2))
    fit <- hier_lm_gibbs(X, y, g, mu0 = 0, V0 = 1, eta0 = eta0, S0 = 1,
                         nu0 = nu0, s0sq = s0sq, iter = L * 10, burnin = 100,
                         thin = 10, progress = FALSE)
    tr <- fit$chains[[1]]$traces
    sbc_rank(tr[, c(1, 2, 3, 5, 6, 7)],
             c(mu, Sigma[1, 1], Sigma[2, 2], sigma2, beta[1, 1]))
  }, numeric(6)))
  expect_true(all(sbc_pvalues(ranks, L) > 0.001))
})

test_that("hier_lm_gibbs with pinned hyperparameters gives the conjugate posterior", {
  # With mu pinned at mu0 (V0 tiny), Sigma concentrated at S0 / (eta0 - p - 1)
  # = I (eta0 huge) and sigma^2 concentrated at s0sq (nu0 huge), each group's
  # coefficients have the conjugate normal posterior N(m, V),
  # V = (I + X'X / s0sq)^{-1}, m = V (mu0 + X'y / s0sq).
  set.seed(12)
  X <- cbind(1, seq(-1, 1, length.out = 10))
  y <- c(0.3, -0.5, 0.1, 0.9, 0.4, 1.1, 0.6, 1.8, 1.2, 2.0)
  g <- rep(c("a", "b"), each = 5)
  mu0 <- c(0.5, -0.2)
  fit <- hier_lm_gibbs(X, y, g, mu0 = mu0, V0 = 1e-10, eta0 = 1e6,
                       S0 = 1e6 - 3, nu0 = 1e8, s0sq = 0.5,
                       iter = 20000, burnin = 100, progress = FALSE)
  for (grp in c("a", "b")) {
    r <- g == grp
    V <- solve(diag(2) + crossprod(X[r, ]) / 0.5)
    mref <- V %*% (mu0 + crossprod(X[r, ], y[r]) / 0.5)
    b <- fit$chains[[1]]$traces[, sprintf("beta[%s,x%d]", grp, 1:2)]
    for (k in 1:2) {
      expect_lt(abs(mean(b[, k]) - mref[k]), 5 * batch_se(b[, k]))
      # variance of the sample variance: about 2 V^2 / n for normal draws
      expect_lt(abs(stats::var(b[, k]) - V[k, k]), 5 * sqrt(2 / 20000) * V[k, k] * 2)
    }
    expect_lt(abs(stats::cov(b[, 1], b[, 2]) - V[1, 2]), 0.05 * sqrt(V[1, 1] * V[2, 2]))
  }
})

test_that("hier_lm_gibbs: extend() equals one longer run; names; bad input", {
  set.seed(1)
  g <- rep(c("u", "v", "w"), each = 6)
  X <- cbind(int = 1, x = stats::rnorm(18))
  y <- 1 + X[, 2] + stats::rnorm(18)
  set.seed(2)
  a <- extend(hier_lm_gibbs(X, y, g, iter = 15, burnin = 4, thin = 2,
                            progress = FALSE), 10)
  set.seed(2)
  b <- hier_lm_gibbs(X, y, g, iter = 25, burnin = 4, thin = 2, progress = FALSE)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  expect_equal(colnames(b$chains[[1]]$traces)[1:6],
               c("mu[int]", "mu[x]", "Sigma[int,int]", "Sigma[x,int]",
                 "Sigma[x,x]", "sigma2"))
  expect_true("beta[w,x]" %in% colnames(b$chains[[1]]$traces))
  nb <- hier_lm_gibbs(X, y, g, keep_beta = FALSE, iter = 5, progress = FALSE)
  expect_equal(ncol(nb$chains[[1]]$traces), 6L)
  expect_error(hier_lm_gibbs(X, y[-1], g), "`y`")
  expect_error(hier_lm_gibbs(X, y, g[-1]), "`group`")
  expect_error(hier_lm_gibbs("X", y, g), "`x`")
  expect_error(hier_lm_gibbs(X, y, g, eta0 = 0.5), "`eta0`")
  expect_error(hier_lm_gibbs(X, y, g, S0 = -1), "`S0`")
  expect_error(hier_lm_gibbs(X, y, g, V0 = matrix(1, 2, 2)), "`V0`")
  expect_error(hier_lm_gibbs(X, y, g, nu0 = 0), "`nu0`")
  expect_error(hier_lm_gibbs(X, y, g, s0sq = "a"), "`s0sq`")
  expect_error(hier_lm_gibbs(X, y, g, mu0 = 1:3), "`mu0`")
})
