# Gaussian component families against closed forms written fresh in R and
# numerical integration (D = 1).

# --- references ------------------------------------------------------------

# gaussian_mean: the stacked data vector is jointly normal.
ref_lm_gmean <- function(x, Sig, m0, S0) {
  n <- nrow(x)
  V <- kronecker(diag(n), Sig) + kronecker(matrix(1, n, n), S0)
  ref_dmvnorm(as.vector(t(x)), rep(m0, n), V)
}

# Normal-inverse-Wishart posterior (batch form).
ref_niw_post <- function(x, m0, k0, nu0, Psi0) {
  n <- nrow(x)
  xbar <- colMeans(x)
  S <- crossprod(sweep(x, 2, xbar))
  kn <- k0 + n
  list(k = kn, nu = nu0 + n, m = (k0 * m0 + n * xbar) / kn,
       Psi = Psi0 + S + k0 * n / kn * tcrossprod(xbar - m0))
}
lmvgamma <- function(a, d) d * (d - 1) / 4 * log(pi) + sum(lgamma(a - (seq_len(d) - 1) / 2))
ref_lm_niw <- function(x, m0, k0, nu0, Psi0) {
  n <- nrow(x)
  d <- ncol(x)
  p <- ref_niw_post(x, m0, k0, nu0, Psi0)
  -n * d / 2 * log(pi) + lmvgamma(p$nu / 2, d) - lmvgamma(nu0 / 2, d) +
    nu0 / 2 * as.numeric(determinant(Psi0)$modulus) - p$nu / 2 * as.numeric(determinant(p$Psi)$modulus) +
    d / 2 * log(k0 / p$k)
}
# The same marginal by the chain rule of Student-t predictives.
ref_lm_niw_chain <- function(x, m0, k0, nu0, Psi0) {
  d <- ncol(x)
  total <- 0
  post <- list(k = k0, nu = nu0, m = m0, Psi = Psi0)
  for (i in seq_len(nrow(x))) {
    df <- post$nu - d + 1
    total <- total + ref_dmvt(x[i, ], df, post$m, post$Psi * (post$k + 1) / (post$k * df))
    post <- ref_niw_post(x[seq_len(i), , drop = FALSE], m0, k0, nu0, Psi0)
  }
  total
}

# Normal-inverse-gamma, one column (shape a0, rate b0).
ref_lm_nig <- function(x, m0, k0, a0, b0) {
  n <- length(x)
  xbar <- mean(x)
  kn <- k0 + n
  an <- a0 + n / 2
  bn <- b0 + sum((x - xbar)^2) / 2 + k0 * n * (xbar - m0)^2 / (2 * kn)
  lgamma(an) - lgamma(a0) + a0 * log(b0) - an * log(bn) + 0.5 * log(k0 / kn) -
    n / 2 * log(2 * pi)
}

# log of int int prod N(x | mu, s2) N(mu | m0, s2/k0) IG(s2 | a0, b0), offset c.
num_lm_nig <- function(x, m0, k0, a0, b0, c) {
  inner <- function(s2) {
    f <- function(mu) exp(colSums(matrix(dnorm(rep(x, length(mu)), rep(mu, each = length(x)),
                                                sqrt(s2), log = TRUE), length(x))) +
                            dnorm(mu, m0, sqrt(s2 / k0), log = TRUE) +
                            a0 * log(b0) - lgamma(a0) - (a0 + 1) * log(s2) - b0 / s2 - c)
    integrate(f, -Inf, Inf, rel.tol = 1e-10)$value
  }
  # integrate over log(s2) for a smoother integrand
  g <- function(t) vapply(exp(t), inner, numeric(1)) * exp(t)
  c + log(integrate(g, -30, 30, rel.tol = 1e-10, subdivisions = 500L)$value)
}

# --- gaussian_mean -----------------------------------------------------------

test_that("gaussian_mean log marginal matches the joint normal (D = 1, 2, 3)", {
  set.seed(11)
  for (D in 1:3) {
    for (n in c(2, 7)) {
      x <- matrix(rnorm(n * D, 1, 2), n)
      Sig <- if (D == 1) 0.7 else crossprod(matrix(rnorm(D * D), D)) + diag(D)
      S0 <- if (D == 1) 3 else crossprod(matrix(rnorm(D * D), D)) + diag(D)
      m0 <- rnorm(D)
      fam <- gaussian_mean(cov = Sig, prior_mean = m0, prior_cov = S0)
      expect_equal(fam_eval(fam, x, "log_marginal"),
                   ref_lm_gmean(x, as.matrix(Sig), m0, as.matrix(S0)), tolerance = 1e-10)
    }
  }
})

test_that("gaussian_mean D = 1 log marginal agrees with numerical integration", {
  set.seed(12)
  x <- matrix(rnorm(5, 3), ncol = 1)
  fam <- gaussian_mean(cov = 0.8, prior_mean = 1, prior_cov = 2)
  lm <- fam_eval(fam, x, "log_marginal")
  f <- function(mu) exp(vapply(mu, function(m) sum(dnorm(x, m, sqrt(0.8), log = TRUE)), 0) +
                          dnorm(mu, 1, sqrt(2), log = TRUE) - lm)
  expect_equal(log(integrate(f, -Inf, Inf, rel.tol = 1e-12)$value), 0, tolerance = 1e-8)
})

test_that("gaussian_mean log predictive is the difference of log marginals", {
  set.seed(13)
  for (D in 1:3) {
    x <- matrix(rnorm(6 * D), 6)
    xnew <- matrix(rnorm(3 * D, 0.5), 3)
    Sig <- diag(0.5, D) + 0.1
    S0 <- diag(2, D)
    fam <- gaussian_mean(cov = Sig, prior_mean = 0, prior_cov = S0)
    ref <- ref_pred_by_difference(function(z) ref_lm_gmean(z, Sig, rep(0, D), S0), x, xnew)
    expect_equal(fam_eval(fam, x, "log_predictive", xnew), unname(ref), tolerance = 1e-10)
    # and with the C marginals themselves
    lm <- fam_eval(fam, x, "log_marginal")
    lm1 <- apply(xnew, 1, function(r) fam_eval(fam, rbind(x, r), "log_marginal"))
    expect_equal(fam_eval(fam, x, "log_predictive", xnew), unname(lm1 - lm), tolerance = 1e-10)
  }
})

test_that("gaussian_mean statistics return to their start after 10000 add/removes", {
  set.seed(14)
  fam <- gaussian_mean(cov = diag(2), prior_mean = 0, prior_cov = diag(3, 2))
  expect_add_remove_exact(fam, matrix(rnorm(60, 5), 30))
  expect_add_remove_exact(fam, matrix(rnorm(6), 3), empties = TRUE)
  expect_add_remove_exact(gaussian_mean(), matrix(rnorm(20), ncol = 1))
})

test_that("gaussian_mean posterior and prior draws have the right moments", {
  skip_on_cran()
  set.seed(15)
  x <- matrix(rnorm(16, 2), 8)
  Sig <- matrix(c(1, 0.3, 0.3, 0.5), 2)
  S0 <- matrix(c(2, -0.5, -0.5, 1), 2)
  m0 <- c(-1, 1)
  prep <- fam_prepare(gaussian_mean(Sig, m0, S0), x)
  P <- solve(S0) + nrow(x) * solve(Sig)
  V <- solve(P)
  mn <- V %*% (solve(S0) %*% m0 + solve(Sig) %*% colSums(x))
  d <- fam_eval(prep, NULL, "param_draw", 20000)
  expect_moments(d, mn, diag(V))
  # linear combination checks the covariance too
  expect_moments(d %*% c(1, 1), sum(mn), sum(V))
  d0 <- fam_eval(prep, x[0, , drop = FALSE], "param_draw", 20000)
  expect_moments(d0, m0, diag(S0))
})

test_that("gaussian_mean log_lik is the normal log density", {
  set.seed(16)
  x <- matrix(rnorm(10), 5)
  Sig <- matrix(c(1, 0.3, 0.3, 0.5), 2)
  prep <- fam_prepare(gaussian_mean(cov = Sig), x)
  th <- fam_eval(prep, NULL, "param_draw", 1)[1, ]
  expect_equal(fam_eval(prep, NULL, "log_lik", th),
               ref_dmvnorm(x, fam_unpack(prep, th)$mean, Sig), tolerance = 1e-12)
})

test_that("gaussian_mean fills in its documented defaults", {
  set.seed(17)
  x <- matrix(rnorm(40), 20)
  prep <- fam_prepare(gaussian_mean(), x)
  S <- cov(x)
  expect_equal(prep$hyper, c(S / 4, colMeans(x), S), ignore_attr = TRUE)
  expect_equal(prep$dim, 2L)
  prep1 <- fam_prepare(gaussian_mean(cov = 2, prior_cov = 5), x)
  expect_equal(prep1$hyper, c(diag(2, 2), colMeans(x), diag(5, 2)), ignore_attr = TRUE)
})

# --- gaussian_niw ------------------------------------------------------------

test_that("gaussian_niw log marginal matches closed form and chain rule (D = 1, 2, 3)", {
  set.seed(21)
  for (D in 1:3) {
    for (n in c(1, 3, 12)) {
      x <- matrix(rnorm(n * D, 2, 3), n)
      m0 <- rnorm(D)
      Psi0 <- crossprod(matrix(rnorm(D * D), D)) + diag(D)
      k0 <- 0.3
      nu0 <- D + 0.5
      fam <- gaussian_niw(prior_mean = m0, kappa = k0, df = nu0, scale = Psi0)
      ref <- ref_lm_niw(x, m0, k0, nu0, Psi0)
      expect_equal(ref_lm_niw_chain(x, m0, k0, nu0, Psi0), ref, tolerance = 1e-10)
      # one observation: prepare the family on two rows, evaluate on one
      prep <- if (n >= 2) fam else fam_prepare(fam, rbind(x, x))
      expect_equal(fam_eval(prep, x, "log_marginal"), ref, tolerance = 1e-10)
    }
  }
})

test_that("gaussian_niw D = 1 (Normal-inverse-gamma) agrees with numerical integration", {
  skip_on_cran()
  set.seed(22)
  x <- rnorm(4, 1, 2)
  # df = 2 a0, scale = 2 b0
  a0 <- 1.5; b0 <- 2; k0 <- 0.5; m0 <- 0.3
  fam <- gaussian_niw(prior_mean = m0, kappa = k0, df = 2 * a0, scale = 2 * b0)
  lm <- fam_eval(fam, x, "log_marginal")
  expect_equal(lm, ref_lm_nig(x, m0, k0, a0, b0), tolerance = 1e-10)
  expect_equal(num_lm_nig(x, m0, k0, a0, b0, c = lm), lm, tolerance = 1e-7)
})

test_that("gaussian_niw log predictive is the Student t and the difference of log marginals", {
  set.seed(23)
  for (D in 1:3) {
    x <- matrix(rnorm(8 * D), 8)
    xnew <- matrix(rnorm(4 * D, 1, 2), 4)
    m0 <- rep(0.2, D); Psi0 <- diag(1.5, D); k0 <- 0.05; nu0 <- D + 2
    fam <- gaussian_niw(m0, k0, nu0, Psi0)
    got <- fam_eval(fam, x, "log_predictive", xnew)
    ref <- ref_pred_by_difference(function(z) ref_lm_niw(z, m0, k0, nu0, Psi0), x, xnew)
    expect_equal(got, unname(ref), tolerance = 1e-10)
    p <- ref_niw_post(x, m0, k0, nu0, Psi0)
    df <- p$nu - D + 1
    expect_equal(got, ref_dmvt(t(xnew), df, p$m, p$Psi * (p$k + 1) / (p$k * df)),
                 tolerance = 1e-10)
  }
})

test_that("gaussian_niw statistics return to their start after 10000 add/removes", {
  set.seed(24)
  for (D in 1:3) {
    fam <- gaussian_niw(kappa = 0.1, scale = diag(0.5, D))
    expect_add_remove_exact(fam, matrix(rnorm(40 * D, 3), 40))
    expect_add_remove_exact(fam, matrix(rnorm(3 * D), 3), empties = TRUE)
  }
  # badly scaled data (large offset, tiny spread) still return exactly
  x <- matrix(rnorm(50, 1e3, 1e-2), 25)
  expect_add_remove_exact(gaussian_niw(), x)
})

test_that("gaussian_niw survives removing an outlier that swamps the scale matrix", {
  set.seed(28)
  f <- gaussian_niw(prior_mean = 0, kappa = 0.01, df = 4, scale = diag(2))
  x <- rbind(matrix(rnorm(20), 10), c(1e8, 1e8 + 1))
  r <- fam_eval(f, x, "add_remove", 2000)   # no error: the factor is rebuilt
  expect_true(all(is.finite(r)))
  # a moderate outlier keeps the statistics accurate
  x <- rbind(matrix(rnorm(20), 10), c(1e3, -1e3))
  expect_add_remove_exact(f, x, tol = 1e-6)
})

test_that("gaussian_niw posterior and prior draws have the right moments", {
  skip_on_cran()
  set.seed(25)
  D <- 2
  x <- matrix(rnorm(60, c(1, -1)), 30, byrow = TRUE)
  m0 <- c(0, 0.5); k0 <- 0.5; nu0 <- 5; Psi0 <- matrix(c(2, 0.5, 0.5, 1), 2)
  fam <- gaussian_niw(m0, k0, nu0, Psi0)
  prep <- fam_prepare(fam, x)
  iw_moments <- function(nu, Psi) {
    D <- nrow(Psi)
    E <- Psi / (nu - D - 1)
    V <- ((nu - D + 1) * Psi^2 + (nu - D - 1) * tcrossprod(diag(Psi))) /
      ((nu - D) * (nu - D - 1)^2 * (nu - D - 3))
    list(E = E, V = V)
  }
  check <- function(d, p) {
    mom <- iw_moments(p$nu, p$Psi)
    covs <- d[, 3:6]
    expect_moments(covs, as.vector(mom$E), as.vector(mom$V))
    expect_moments(d[, 1:2], p$m, diag(p$Psi) / (p$k * (p$nu - D - 1)))
    # draws are symmetric and the cache matches
    expect_equal(d[, 4], d[, 5])
  }
  d <- fam_eval(prep, NULL, "param_draw", 20000)
  check(d, ref_niw_post(x, m0, k0, nu0, Psi0))
  fam0 <- gaussian_niw(m0, k0, df = 12, Psi0)
  prep0 <- fam_prepare(fam0, x)
  d0 <- fam_eval(prep0, x[0, , drop = FALSE], "param_draw", 20000)
  check(d0, list(k = k0, nu = 12, m = m0, Psi = Psi0))
})

test_that("gaussian_niw log_lik is the normal log density at the drawn parameters", {
  set.seed(26)
  x <- matrix(rnorm(15), 5)
  prep <- fam_prepare(gaussian_niw(), x)
  th <- fam_eval(prep, NULL, "param_draw", 2)
  for (i in 1:2) {
    p <- fam_unpack(prep, th[i, ])
    expect_equal(fam_eval(prep, NULL, "log_lik", th[i, ]),
                 ref_dmvnorm(x, p$mean, p$cov), tolerance = 1e-10)
  }
  expect_equal(mcmix:::family_param_names(prep)[1:4],
               c("mean[1]", "mean[2]", "mean[3]", "cov[1,1]"))
})

test_that("gaussian_niw fills in its documented defaults", {
  set.seed(27)
  x <- matrix(rnorm(30), 10)
  prep <- fam_prepare(gaussian_niw(), x)
  expect_equal(prep$hyper, c(colMeans(x), 0.01, 5, cov(x) / 4), ignore_attr = TRUE)
  prep <- fam_prepare(gaussian_niw(df = 8), x)
  expect_equal(prep$hyper, c(colMeans(x), 0.01, 8, 4 * cov(x) / 4), ignore_attr = TRUE)
})

# --- gaussian_diag -----------------------------------------------------------

test_that("gaussian_diag log marginal is the product of Normal-inverse-gamma marginals", {
  set.seed(31)
  for (D in 1:3) {
    for (n in c(2, 9)) {
      x <- matrix(rnorm(n * D, 1, 2), n)
      m0 <- rnorm(D); k0 <- runif(D, 0.1, 2); a0 <- runif(D, 0.5, 3); b0 <- runif(D, 0.5, 3)
      fam <- gaussian_diag(m0, k0, a0, b0)
      ref <- sum(vapply(seq_len(D), function(j) ref_lm_nig(x[, j], m0[j], k0[j], a0[j], b0[j]), 0))
      expect_equal(fam_eval(fam, x, "log_marginal"), ref, tolerance = 1e-10)
    }
  }
})

test_that("gaussian_diag D = 1 agrees with numerical integration", {
  skip_on_cran()
  set.seed(32)
  x <- rnorm(5, -1)
  fam <- gaussian_diag(prior_mean = 0, kappa = 0.7, shape = 2.5, rate = 1.2)
  lm <- fam_eval(fam, x, "log_marginal")
  expect_equal(num_lm_nig(x, 0, 0.7, 2.5, 1.2, c = lm), lm, tolerance = 1e-7)
})

test_that("gaussian_diag log predictive is the difference of log marginals", {
  set.seed(33)
  D <- 3
  x <- matrix(rnorm(7 * D), 7)
  xnew <- matrix(rnorm(5 * D, 0, 3), 5)
  fam <- gaussian_diag(prior_mean = 0.1, kappa = c(0.5, 1, 2), shape = 1.5, rate = c(1, 2, 3))
  ref_lm <- function(z) sum(vapply(1:D, function(j)
    ref_lm_nig(z[, j], 0.1, c(0.5, 1, 2)[j], 1.5, c(1, 2, 3)[j]), 0))
  expect_equal(fam_eval(fam, x, "log_predictive", xnew),
               unname(ref_pred_by_difference(ref_lm, x, xnew)), tolerance = 1e-10)
})

test_that("gaussian_diag statistics return to their start after 10000 add/removes", {
  set.seed(34)
  fam <- gaussian_diag(kappa = 0.2, rate = 0.5)
  expect_add_remove_3d(fam)
})

test_that("gaussian_diag posterior draws have the right moments", {
  skip_on_cran()
  set.seed(35)
  x <- matrix(rnorm(40, c(0, 3), c(1, 2)), 20, byrow = TRUE)
  m0 <- c(0, 1); k0 <- c(1, 0.5); a0 <- c(2, 3); b0 <- c(1, 2)
  prep <- fam_prepare(gaussian_diag(m0, k0, a0, b0), x)
  n <- nrow(x)
  kn <- k0 + n; an <- a0 + n / 2
  xbar <- colMeans(x)
  mn <- (k0 * m0 + n * xbar) / kn
  bn <- b0 + colSums(sweep(x, 2, xbar)^2) / 2 + k0 * n * (xbar - m0)^2 / (2 * kn)
  d <- fam_eval(prep, NULL, "param_draw", 20000)
  expect_moments(d[, 3:4], bn / (an - 1), bn^2 / ((an - 1)^2 * (an - 2)))
  expect_moments(d[, 1:2], mn, bn / (kn * (an - 1)))
  th <- d[1, ]
  p <- fam_unpack(prep, th)
  expect_equal(fam_eval(prep, NULL, "log_lik", th),
               rowSums(dnorm(x, rep(p$mean, each = n), rep(sqrt(p$var), each = n), log = TRUE)),
               tolerance = 1e-12)
})

test_that("gaussian_diag fills in its documented defaults", {
  set.seed(36)
  x <- matrix(rnorm(30), 15)
  prep <- fam_prepare(gaussian_diag(), x)
  expect_equal(prep$hyper, c(colMeans(x), 0.01, 0.01, 2, 2, apply(x, 2, var) / 4),
               ignore_attr = TRUE)
})
