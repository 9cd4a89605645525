# Distributional tests of the compiled RNG helpers (src/rng.c) against exact
# distributions.  Every test uses a fixed seed; KS / chi-square tests use
# p > 1e-3 and moment checks 5 Monte Carlo standard errors.

rng <- function(what, n, args) mcmix:::.rng_test(what, n, args)
lower_chol <- function(S) t(chol(S))
p_min <- 1e-3

test_that("categorical draws from log-weights match the normalised weights", {
  cases <- list(
    c(0, log(2), log(3), log(4)),
    c(-1000, -1000 + log(3), -Inf, -1001),      # would underflow naively
    c(1000, 1001, 999),                          # would overflow naively
    c(-Inf, 5, -Inf)
  )
  set.seed(101)
  for (lw in cases) {
    n <- 20000
    x <- rng("cat_log", n, lw)
    expect_true(all(x %in% seq_along(lw)))
    p <- exp(lw - max(lw))
    p <- p / sum(p)
    counts <- tabulate(x, length(lw))
    expect_equal(counts[p == 0], rep(0L, sum(p == 0)))
    # one category of positive probability: every draw is that category
    pos <- p > 0
    p_value <- if (sum(pos) > 1)
      suppressWarnings(stats::chisq.test(counts[pos], p = p[pos])$p.value)
    else as.numeric(all(x == which(pos)))
    expect_gt(p_value, p_min)
  }
})

test_that("categorical draws refuse all -Inf or NaN log-weights", {
  expect_error(rng("cat_log", 1, c(-Inf, -Inf)), "internal")
  expect_error(rng("cat_log", 1, c(0, NaN)), "internal")
})

test_that("gamma and beta draws follow their distributions", {
  set.seed(102)
  for (par in list(c(0.1, 1), c(1, 3), c(4.5, 0.2))) {
    x <- rng("gamma", 5000, par)
    expect_gt(suppressWarnings(stats::ks.test(x, "pgamma", shape = par[1],
                                              rate = par[2])$p.value), p_min)
  }
  for (par in list(c(0.3, 0.7), c(2, 5), c(50, 1))) {
    x <- rng("beta", 5000, par)
    expect_gt(suppressWarnings(stats::ks.test(x, "pbeta", par[1], par[2])$p.value), p_min)
  }
})

test_that("log-gamma draws are exact for tiny shapes (no underflow)", {
  # P(log G <= t) = pgamma(exp(t), a); for exp(t) below the double range use
  # the leading term of the series, exp(a t) / Gamma(a + 1), exact there.
  log_gamma_cdf <- function(t, a) {
    ifelse(t > -700, stats::pgamma(exp(t), a),
           exp(a * t - lgamma(a + 1)))
  }
  set.seed(103)
  for (a in c(1e-3, 0.05, 0.7, 3)) {
    x <- rng("log_gamma", 5000, a)
    expect_true(all(is.finite(x)))
    expect_gt(suppressWarnings(stats::ks.test(x, log_gamma_cdf, a = a)$p.value), p_min)
  }
  # with a = 1e-3 most draws are far below log(.Machine$double.xmin)
  x <- rng("log_gamma", 1000, 1e-3)
  expect_gt(mean(x < -745), 0.3)
})

# exact CDF of N(mu, sd^2) truncated to (a, Inf), stable far in the tail:
# 1 - F(x) = S(x) / S(a) with S the normal survival function, in logs
ptnorm_lower <- function(x, mu, sd, a) {
  ls <- function(q) stats::pnorm((q - mu) / sd, lower.tail = FALSE, log.p = TRUE)
  ifelse(x <= a, 0, -expm1(ls(x) - ls(a)))
}

test_that("lower-truncated normal draws are exact, including the far tail", {
  set.seed(104)
  cases <- list(c(0, 1, -2), c(0, 1, 0.3), c(0, 1, 0.5), c(0, 1, 2),
                c(0, 1, 8), c(0, 1, 20), c(0, 1, 40), c(1, 2, 1 + 2 * 20),
                c(-3, 0.5, -3 + 0.5 * 10))
  for (par in cases) {
    x <- rng("tnorm_lower", 4000, par)
    expect_true(all(x > par[3]))
    p <- suppressWarnings(stats::ks.test(x, ptnorm_lower, mu = par[1],
                                         sd = par[2], a = par[3])$p.value)
    expect_gt(p, p_min, label = paste("KS p-value for", toString(par)))
  }
})

test_that("upper-truncated normal draws are exact, including the far tail", {
  set.seed(105)
  # X < b  <=>  -X > -b
  cases <- list(c(0, 1, 1), c(0, 1, -0.2), c(0, 1, -8), c(0, 1, -20),
                c(0, 1, -40), c(2, 3, 2 - 3 * 20))
  for (par in cases) {
    x <- rng("tnorm_upper", 4000, par)
    expect_true(all(x < par[3]))
    p <- suppressWarnings(stats::ks.test(-x, ptnorm_lower, mu = -par[1],
                                         sd = par[2], a = -par[3])$p.value)
    expect_gt(p, p_min, label = paste("KS p-value for", toString(par)))
  }
})

test_that("the far-tail KS check has power against a slightly wrong tail", {
  # the exact excess over a = 20 is close to Exp(20.05); Exp(23) must fail
  set.seed(106)
  x <- 20 + stats::rexp(4000, 23)
  p <- suppressWarnings(stats::ks.test(x, ptnorm_lower, mu = 0, sd = 1, a = 20)$p.value)
  expect_lt(p, p_min)
})

test_that("multivariate normal draws have the right mean and covariance", {
  S <- matrix(c(2, 0.5, 0.3, 0.5, 1, -0.2, 0.3, -0.2, 1.5), 3)
  mu <- c(1, -2, 3)
  n <- 20000
  check <- function(x, mu, S) {
    se_mean <- sqrt(diag(S) / n)
    expect_true(all(abs(colMeans(x) - mu) < 5 * se_mean))
    se_cov <- sqrt((S^2 + outer(diag(S), diag(S))) / n)
    expect_true(all(abs(stats::cov(x) - S) < 5 * se_cov))
  }
  set.seed(107)
  check(rng("mvnorm_chol", n, c(mu, lower_chol(S))), mu, S)
  # from the Cholesky factor of the precision
  Q <- solve(S)
  check(rng("mvnorm_prec_chol", n, c(mu, lower_chol(Q))), mu, S)
  # d = 1: a univariate normal
  x <- rng("mvnorm_chol", 5000, c(2, 3))[, 1]
  expect_gt(stats::ks.test(x, "pnorm", 2, 3)$p.value, p_min)
})

wishart_cases <- list(
  list(nu = 7, S = matrix(c(2, 0.5, 0.3, 0.5, 1, -0.2, 0.3, -0.2, 1.5), 3)),
  list(nu = 3.5, S = matrix(c(1, 0.4, 0.4, 0.5), 2)),
  list(nu = 2.2, S = matrix(1.7))
)

test_that("Wishart draws have mean nu S and the exact variances", {
  set.seed(108)
  n <- 20000
  for (cs in wishart_cases) {
    S <- cs$S; nu <- cs$nu; d <- nrow(S)
    W <- rng("wishart", n, c(nu, lower_chol(S)))
    expect_equal(ncol(W), d * d)
    m <- matrix(colMeans(W), d)
    v <- nu * (S^2 + outer(diag(S), diag(S)))     # Var(W_ij)
    expect_true(all(abs(m - nu * S) < 5 * sqrt(v / n)))
    expect_equal(W[, as.vector(t(matrix(seq_len(d * d), d))), drop = FALSE], W)   # symmetric
    # W_11 / S_11 ~ chi^2(nu)
    expect_gt(stats::ks.test(W[1:5000, 1] / S[1, 1], "pchisq", nu)$p.value, p_min)
  }
})

test_that("inverse-Wishart draws have mean Psi / (nu - d - 1) and the exact variances", {
  set.seed(109)
  n <- 20000
  cases <- list(list(nu = 11, P = wishart_cases[[1]]$S),
                list(nu = 9.5, P = wishart_cases[[2]]$S),
                list(nu = 8, P = matrix(0.7)))
  for (cs in cases) {
    P <- cs$P; nu <- cs$nu; d <- nrow(P)
    X <- rng("invwishart", n, c(nu, lower_chol(P)))
    m <- matrix(colMeans(X), d)
    v <- ((nu - d + 1) * P^2 + (nu - d - 1) * outer(diag(P), diag(P))) /
      ((nu - d) * (nu - d - 1)^2 * (nu - d - 3))
    expect_true(all(abs(m - P / (nu - d - 1)) < 5 * sqrt(v / n)))
    # P_11 / Sigma_11 ~ chi^2(nu - d + 1)
    expect_gt(stats::ks.test(P[1, 1] / X[1:5000, 1], "pchisq", nu - d + 1)$p.value, p_min)
    # symmetric and positive definite
    S1 <- matrix(X[1, ], d)
    expect_equal(S1, t(S1))
    expect_true(all(eigen(S1, symmetric = TRUE)$values > 0))
  }
})

test_that("Dirichlet draws are safe for tiny alpha and have the right means", {
  set.seed(110)
  n <- 20000
  x <- rng("dirichlet", n, rep(1e-3, 4))
  expect_false(anyNA(x))
  expect_true(all(x >= 0))
  expect_equal(rowSums(x), rep(1, n), tolerance = 1e-12)
  a <- rep(1e-3, 4); a0 <- sum(a)
  se <- sqrt(a * (a0 - a) / (a0^2 * (a0 + 1)) / n)
  expect_true(all(abs(colMeans(x) - a / a0) < 5 * se))
  # marginals of a moderate Dirichlet are Beta(a_i, a0 - a_i)
  a <- c(0.5, 2, 3)
  x <- rng("dirichlet", 5000, a)
  for (i in seq_along(a))
    expect_gt(stats::ks.test(x[, i], "pbeta", a[i], sum(a) - a[i])$p.value, p_min)
  # a zero parameter gives a zero coordinate
  x <- rng("dirichlet", 100, c(1, 0, 2))
  expect_true(all(x[, 2] == 0))
})

test_that("random permutations are uniform", {
  set.seed(111)
  x <- rng("perm", 12000, 4)
  expect_true(all(apply(x, 1, function(r) all(sort(r) == 1:4))))
  key <- factor(apply(x, 1, paste, collapse = ""))
  expect_equal(nlevels(key), 24L)
  expect_gt(stats::chisq.test(table(key))$p.value, p_min)
})

test_that("set.seed() reproduces every helper", {
  S <- matrix(c(1, 0.4, 0.4, 0.5), 2)
  calls <- list(
    list("cat_log", c(0, -1, -Inf)), list("dirichlet", c(1e-3, 1, 2)),
    list("gamma", c(0.3, 2)), list("beta", c(0.5, 0.5)),
    list("log_gamma", 0.01), list("mvnorm_chol", c(0, 1, lower_chol(S))),
    list("mvnorm_prec_chol", c(0, 1, lower_chol(S))),
    list("wishart", c(4, lower_chol(S))), list("invwishart", c(5, lower_chol(S))),
    list("tnorm_lower", c(0, 1, 30)), list("tnorm_upper", c(0, 1, 0)),
    list("perm", 7)
  )
  for (cl in calls) {
    set.seed(7); a <- rng(cl[[1]], 50, cl[[2]])
    set.seed(7); b <- rng(cl[[1]], 50, cl[[2]])
    b2 <- rng(cl[[1]], 50, cl[[2]])
    expect_identical(a, b)
    expect_false(identical(a, b2))
  }
})
