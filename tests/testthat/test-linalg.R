# The compiled linear algebra (src/linalg.c) against base R.

la <- function(what, a, b = numeric()) mcmix:::.linalg_test(what, a, b)

random_spd <- function(d) {
  X <- matrix(stats::rnorm(d * (d + 3)), d + 3, d)
  crossprod(X) / d + diag(0.1, d)
}

test_that("Cholesky, solves, log-determinant, quadratic form and inverse agree with base R", {
  set.seed(201)
  for (d in c(1, 2, 3, 8, 20)) {
    S <- random_spd(d)
    L <- la("chol", S)
    expect_identical(attr(L, "info"), 0L)
    attr(L, "info") <- NULL
    expect_equal(L, t(chol(S)), tolerance = 1e-10)
    expect_true(all(L[upper.tri(L)] == 0))
    v <- stats::rnorm(d)
    expect_equal(la("trsv", L, v), forwardsolve(L, v), tolerance = 1e-10)
    expect_equal(la("trsv_t", L, v), backsolve(t(L), v), tolerance = 1e-10)
    expect_equal(la("logdet", L),
                 as.numeric(determinant(S, logarithm = TRUE)$modulus), tolerance = 1e-10)
    expect_equal(la("quad", L, v), drop(t(v) %*% solve(S, v)), tolerance = 1e-10)
    Si <- la("inverse", L)
    expect_equal(Si, solve(S), tolerance = 1e-10)
    expect_identical(Si, t(Si))
    B <- matrix(stats::rnorm(d * d), d)
    expect_equal(la("matmul", S, B), S %*% B, tolerance = 1e-12)
  }
})

test_that("Cholesky reports the column where a matrix is not positive definite", {
  A <- diag(3)
  A[3, 3] <- -1
  expect_identical(attr(la("chol", A), "info"), 3L)
  A <- matrix(c(1, 2, 2, 1), 2)          # indefinite: fails at column 2
  expect_identical(attr(la("chol", A), "info"), 2L)
  A <- matrix(c(1, 1, 1, 1), 2)          # singular
  expect_identical(attr(la("chol", A), "info"), 2L)
  expect_identical(attr(la("chol", matrix(NaN)), "info"), 1L)
})

test_that("rank-one update and downdate match a fresh factorisation", {
  set.seed(202)
  for (d in c(1, 3, 8, 20)) {
    S <- random_spd(d)
    L <- t(chol(S))
    x <- stats::rnorm(d)
    U <- la("update", L, x)
    expect_equal(U, t(chol(S + tcrossprod(x))), tolerance = 1e-10)
    D <- la("downdate", U, x)
    expect_identical(attr(D, "info"), 0L)
    attr(D, "info") <- NULL
    expect_equal(D, L, tolerance = 1e-10)
    # downdate of a fresh factor
    # scaled so that S - y y' keeps eigenvalues >= half the smallest of S
    y <- stats::rnorm(d)
    y <- y * sqrt(0.5 * min(eigen(S, symmetric = TRUE)$values) / sum(y^2))
    D2 <- la("downdate", L, y)
    attr(D2, "info") <- NULL
    expect_equal(D2, t(chol(S - tcrossprod(y))), tolerance = 1e-10)
  }
})

test_that("long sequences of updates and downdates return to the start", {
  # the pattern of stats_add / stats_remove in the families: 2000 random
  # observations added one by one, then removed in random order
  set.seed(203)
  d <- 5
  S <- random_spd(d)
  L0 <- t(chol(S))
  X <- matrix(stats::rnorm(2000 * d, sd = 2), ncol = d)
  L <- L0
  for (i in seq_len(nrow(X))) L <- la("update", L, X[i, ])
  expect_equal(L, t(chol(S + crossprod(X))), tolerance = 1e-9)
  info <- integer(nrow(X))
  for (i in sample.int(nrow(X))) {
    L <- la("downdate", L, X[i, ])
    info[i] <- attr(L, "info")
    attr(L, "info") <- NULL
  }
  expect_true(all(info == 0L))
  expect_equal(L, L0, tolerance = 1e-9)
})

test_that("downdate detects a result that is not positive definite", {
  L <- diag(3)
  expect_identical(attr(la("downdate", L, c(1.5, 0, 0)), "info"), 1L)
  expect_identical(attr(la("downdate", L, c(1, 0, 0)), "info"), 1L)     # singular
  # fails only at the third column: I - x x' with |x| > 1 along (0, .6, .9)
  expect_identical(attr(la("downdate", L, c(0, 0.6, 0.9)), "info"), 3L)
  set.seed(204)
  S <- random_spd(4)
  L <- t(chol(S))
  # S - c x x' is PD iff c x' S^{-1} x < 1
  x <- stats::rnorm(4)
  q <- drop(t(x) %*% solve(S, x))
  expect_identical(attr(la("downdate", L, x * sqrt(0.99 / q)), "info"), 0L)
  expect_true(attr(la("downdate", L, x * sqrt(1.01 / q)), "info") > 0L)
})
