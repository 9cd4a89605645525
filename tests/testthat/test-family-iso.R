# gaussian_iso(): the isotropic Normal-inverse-gamma family, against
# closed forms written here from the model (not from the C code) and
# numerical integration, and in the DP samplers against the exact
# posterior over partitions.

# log p(X) with the mean integrated out in closed form (given s2, column j
# is N(m0_j 1, s2 (I + 11' / k0))) and s2 by numerical integration over
# t = log s2.
iso_lm_num <- function(X, m0, k0, a0, b0) {
  X <- as.matrix(X)
  n <- nrow(X)
  D <- ncol(X)
  m0 <- rep(m0, length.out = D)
  C <- diag(n) + 1 / k0
  R <- chol(C)
  q <- sum(backsolve(R, sweep(X, 2, m0), transpose = TRUE)^2)
  ldC <- 2 * sum(log(diag(R)))
  lf <- function(t) {
    s2 <- exp(t)
    -n * D / 2 * log(2 * pi * s2) - D / 2 * ldC - q / (2 * s2) +
      a0 * log(b0) - lgamma(a0) - (a0 + 1) * t - b0 / s2 + t
  }
  o <- stats::optimize(lf, c(-30, 30), maximum = TRUE)
  v <- stats::integrate(function(t) exp(lf(t) - o$objective), o$maximum - 30,
                        o$maximum + 30, rel.tol = 1e-11, subdivisions = 2000L)$value
  log(v) + o$objective
}

test_that("gaussian_iso log marginal agrees with numerical integration", {
  set.seed(41)
  for (D in c(1, 3)) for (n in c(2, 6)) {
    X <- matrix(rnorm(n * D, 1, 2), n)
    m0 <- rnorm(D); k0 <- 0.7; a0 <- 2.5; b0 <- 1.3
    fam <- gaussian_iso(m0, k0, a0, b0)
    expect_equal(fam_eval(fam, X, "log_marginal"), iso_lm_num(X, m0, k0, a0, b0),
                 tolerance = 1e-7)
  }
})

test_that("gaussian_iso log predictive is the difference of log marginals", {
  set.seed(42)
  D <- 4
  x <- matrix(rnorm(7 * D), 7)
  xnew <- matrix(rnorm(3 * D, 0, 3), 3)
  fam <- gaussian_iso(prior_mean = 0.2, kappa = 0.5, shape = 1.5, rate = 2)
  ref <- apply(xnew, 1, function(r)
    iso_lm_num(rbind(x, r), 0.2, 0.5, 1.5, 2) - iso_lm_num(x, 0.2, 0.5, 1.5, 2))
  expect_equal(fam_eval(fam, x, "log_predictive", xnew), unname(ref), tolerance = 1e-7)
})

test_that("gaussian_iso statistics return to their start after 10000 add/removes", {
  set.seed(43)
  fam <- gaussian_iso(kappa = 0.2, rate = 0.5)
  expect_add_remove_3d(fam)
})

test_that("gaussian_iso posterior draws have the right moments", {
  skip_on_cran()
  set.seed(44)
  x <- matrix(rnorm(60, c(0, 3, -1)), 20, byrow = TRUE)
  m0 <- c(0, 1, 0); k0 <- 0.5; a0 <- 2; b0 <- 1.5
  prep <- fam_prepare(gaussian_iso(m0, k0, a0, b0), x)
  n <- nrow(x); D <- ncol(x)
  kn <- k0 + n; an <- a0 + n * D / 2
  xbar <- colMeans(x)
  mn <- (k0 * m0 + n * xbar) / kn
  bn <- b0 + sum(sweep(x, 2, xbar)^2) / 2 + k0 * n * sum((xbar - m0)^2) / (2 * kn)
  d <- fam_eval(prep, NULL, "param_draw", 20000)
  expect_moments(d[, 4, drop = FALSE], bn / (an - 1), bn^2 / ((an - 1)^2 * (an - 2)))
  expect_moments(d[, 1:3], mn, rep(bn / (kn * (an - 1)), 3))
  th <- d[1, ]
  p <- fam_unpack(prep, th)
  expect_equal(fam_eval(prep, NULL, "log_lik", th),
               rowSums(dnorm(x, rep(p$mean, each = n), sqrt(p$var), log = TRUE)),
               tolerance = 1e-12)
})

test_that("gaussian_iso fills in its documented defaults and checks its arguments", {
  set.seed(45)
  x <- matrix(rnorm(30), 15)
  prep <- fam_prepare(gaussian_iso(), x)
  expect_equal(prep$hyper, c(colMeans(x), 0.01, 2, mean(apply(x, 2, var)) / 4),
               ignore_attr = TRUE)
  expect_error(gaussian_iso(kappa = c(1, 2)), "`kappa`")
  expect_error(gaussian_iso(shape = -1), "`shape`")
  expect_error(gaussian_iso(rate = NA), "`rate`")
  expect_error(fam_prepare(gaussian_iso(), matrix(1, 5, 2)), "`rate`")
  expect_error(fam_prepare(gaussian_iso(prior_mean = 1:3), x), "`prior_mean`")
})

test_that("DP mixtures of gaussian_iso match the exact posterior over partitions", {
  skip_on_cran()
  x <- rbind(c(-1, -0.8), c(-1.2, -1), c(0.2, 0), c(1.3, 1), c(1.5, 1.4))
  lml <- function(X) iso_lm_num(X, 0, 0.5, 2, 1)
  P <- mx_partitions(5)
  ll <- mx_log_lik_partitions(P, x, lml)
  p <- mx_posterior(P, ll, apply(P, 1L, mx_lprior_dp, alpha = 1))
  model <- dp_mixture(gaussian_iso(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1), alpha = 1)
  for (alg in c("collapsed", "subcluster")) {
    r <- mx_check(model, x, p, iter = 20000, algorithm = alg, seed = 46)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
  }
})
