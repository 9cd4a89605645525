# Reversible-jump mixtures (R/rjmcmc.R): the posterior of K against the
# exact one, p(K | y) prop. to p(K) p(y | K), with p(y | K) computed by
# enumerating every allocation of N = 8 points to K <= 4 components
# (grouped by set partition) and, for Richardson and Green's priors,
# integrating the component parameters numerically; Richardson and Green's
# published p(K | y) of the galaxy data (1997, Table 1).

# ---- exact p(y | K) under Richardson-Green priors ---------------------------
# Given beta, a cluster S integrates mu analytically (y_S | s2 is
# N(xi 1, s2 I + 11' / kappa)) and s2 ~ InvGamma(alpha, beta) by the
# trapezoid rule on log s2; beta ~ Gamma(g, h) by the trapezoid rule on
# log beta, outside the sum over partitions (beta is shared).
rg_exact_pk <- function(y, kmax, xi, kappa, alpha, g, h, delta, nu = 600, nb = 500,
                        urange = c(-25, 12), trange = c(-30, 8)) {
  n <- length(y)
  u <- seq(urange[1], urange[2], length.out = nu); du <- diff(u)[1]
  s2 <- exp(u)
  subsets <- lapply(1:(2^n - 1), function(b) which(bitwAnd(b, 2^(0:(n-1))) > 0))
  c0 <- 1 / kappa
  # log likelihood of each subset at each s2
  LL <- t(vapply(subsets, function(S) {
    m <- length(S); r <- y[S] - xi; SS <- sum(r^2); T <- sum(r)
    -m/2 * log(2*pi) - (m-1)/2 * log(s2) - 0.5 * log(s2 + m * c0) -
      0.5 / s2 * (SS - c0 * T^2 / (s2 + m * c0))
  }, numeric(nu)))
  t <- seq(trange[1], trange[2], length.out = nb); dt <- diff(t)[1]
  beta <- exp(t)
  # log IG weight (per du) for each (u, beta): log[beta^a/Gamma(a) s2^-a exp(-beta/s2)]
  LW <- outer(-alpha * u, alpha * t - lgamma(alpha), `+`) - outer(1 / s2, beta)
  # log m_S(beta) = logsumexp_u(LL + LW) + log du
  mx1 <- apply(LL, 1, max); mx2 <- apply(LW, 2, max)
  M <- log(exp(LL - mx1) %*% exp(sweep(LW, 2, mx2))) + outer(mx1, mx2, `+`) + log(du)
  # partitions with <= kmax blocks
  P <- mx_partitions(n)
  P <- P[apply(P, 1, max) <= kmax, , drop = FALSE]
  key <- function(idx) sum(2^(idx - 1))
  inc <- matrix(0, nrow(P), length(subsets))
  for (r in seq_len(nrow(P))) for (cl in split(seq_len(n), P[r, ])) inc[r, key(cl)] <- 1
  LP <- inc %*% M            # partitions x beta: log prod m_S
  lprior_beta <- g * log(h) - lgamma(g) + g * t - h * beta  # includes dbeta = beta dt
  lpk <- vapply(1:kmax, function(K) {
    lw <- apply(P, 1, function(z) mx_lprior_finite(z, K, delta))
    ok <- is.finite(lw)
    A <- LP[ok, , drop = FALSE] + lw[ok]
    col <- apply(A, 2, function(a) { m <- max(a); m + log(sum(exp(a - m))) }) + lprior_beta
    m <- max(col); m + log(sum(exp(col - m))) + log(dt)
  }, numeric(1))
  lpk
}

rj_norm <- function(l) { p <- exp(l - max(l)); p / sum(p) }

rj_y <- c(-3.1, -2.6, -2.2, 0.3, 1.9, 2.4, 2.9, 3.4)

test_that("the quadrature of one cluster's marginal agrees with integrate()", {
  y <- rj_y[c(2, 5, 6)]
  xi <- 0.15; kappa <- 0.03; alpha <- 2; beta <- 0.7
  f <- function(s2) vapply(s2, function(v) {
    Sig <- v * diag(3) + matrix(1 / kappa, 3, 3)
    r <- y - xi
    exp(-1.5 * log(2 * pi) - 0.5 * determinant(Sig)$modulus - 0.5 * sum(r * solve(Sig, r))) *
      exp(alpha * log(beta) - lgamma(alpha) - (alpha + 1) * log(v) - beta / v)
  }, numeric(1))
  ref <- integrate(f, 0, Inf, rel.tol = 1e-10)$value
  # the same integral from the quadrature used below, for one beta:
  # a one-point Gamma "hyperprior" is emulated by a narrow beta range
  u <- seq(-25, 12, length.out = 600)
  s2 <- exp(u)
  r <- y - xi
  ll <- -1.5 * log(2 * pi) - log(s2) - 0.5 * log(s2 + 3 / kappa) -
    0.5 / s2 * (sum(r^2) - sum(r)^2 / kappa / (s2 + 3 / kappa))
  lw <- alpha * log(beta) - lgamma(alpha) - alpha * u - beta / s2
  expect_equal(sum(exp(ll + lw)) * diff(u)[1], ref, tolerance = 1e-6)
})

test_that("Richardson-Green RJMCMC gives the exact posterior of K", {
  y <- rj_y
  R <- diff(range(y))
  lpk <- rg_exact_pk(y, 4, xi = mean(range(y)), kappa = 1 / R^2, alpha = 2, g = 0.2,
                     h = 10 / R^2, delta = 1)
  p <- rj_norm(lpk)
  # refining the quadrature does not move the answer
  p_fine <- rj_norm(rg_exact_pk(y, 4, mean(range(y)), 1 / R^2, 2, 0.2, 10 / R^2, 1,
                                nu = 1000, nb = 800, urange = c(-35, 16),
                                trange = c(-45, 10)))
  expect_equal(p, p_fine, tolerance = 1e-8)
  set.seed(3)
  fit <- sample_posterior(rj_mixture(k_max = 4), y, iter = exact_iter(30000), burnin = 2000,
                          progress = FALSE)
  pk <- posterior_k(fit)
  expect_equal(pk$K, 1:4)
  expect_true(all(abs(pk$prob - p) < 4 * pk$mcse + 0.002))
  expect_true(all(summary(fit)$moves$accepted > 0))
})

test_that("the Richardson-Green sampler respects a non-uniform prior on K", {
  y <- rj_y
  R <- diff(range(y))
  prior <- c(0.1, 0.2, 0.3, 0.4)
  lpk <- rg_exact_pk(y, 4, mean(range(y)), 2 / R^2, 3, 0.5, 5 / R^2, 2) + log(prior)
  p <- rj_norm(lpk)
  set.seed(7)
  fit <- sample_posterior(rj_mixture(rg_prior(kappa = 2 / R^2, alpha = 3, g = 0.5, h = 5 / R^2),
                                     k_max = 4, k_prior = prior, delta = 2),
                          y, iter = exact_iter(30000), burnin = 2000, progress = FALSE)
  pk <- posterior_k(fit)
  expect_true(all(abs(pk$prob - p) < 4 * pk$mcse + 0.002))
})

test_that("collapsed RJMCMC gives the exact posterior of K for conjugate families", {
  P <- mx_partitions(8L)
  P <- P[apply(P, 1L, max) <= 4L, ]
  exact <- function(ll, delta, prior) {
    lpk <- vapply(1:4, function(K) {
      lw <- apply(P, 1L, mx_lprior_finite, K = K, a = delta) + ll
      lw <- lw[is.finite(lw)]
      max(lw) + log(sum(exp(lw - max(lw))))
    }, numeric(1))
    rj_norm(lpk + log(prior))
  }
  # univariate Normal-inverse-gamma
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
  ll <- mx_log_lik_partitions(P, matrix(rj_y), function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1)))
  p <- exact(ll, 1, rep(0.25, 4))
  set.seed(11)
  fit <- sample_posterior(rj_mixture(fam, k_max = 4), rj_y, iter = exact_iter(20000), burnin = 1000,
                          progress = FALSE)
  pk <- posterior_k(fit)
  expect_equal(pk$K, 1:4)
  expect_true(all(abs(pk$prob - p) < 4 * pk$mcse + 0.002))
  # Poisson-Gamma counts with a Poisson prior on K and delta = 0.5
  x <- c(0, 1, 1, 4, 5, 9, 10, 12)
  ll <- mx_log_lik_partitions(P, matrix(x), function(X) mx_lml_poisson(X, 1, 0.2))
  prior <- dpois(1:4, 2)
  p <- exact(ll, 0.5, prior)
  set.seed(12)
  fit <- sample_posterior(rj_mixture(poisson_gamma(1, 0.2), k_max = 4, k_prior = prior,
                                     delta = 0.5), x, iter = exact_iter(20000), burnin = 1000,
                          chains = 2, progress = FALSE)
  pk <- posterior_k(fit)
  expect_true(all(abs(pk$prob - p) < 4 * pk$mcse + 0.002))
  # binary vectors, Beta-Bernoulli per coordinate
  B <- matrix(c(1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1), 8, 2)
  ll <- mx_log_lik_partitions(P, B, function(X) mx_lml_bernoulli(X, 0.5, 0.5))
  p <- exact(ll, 1, rep(0.25, 4))
  set.seed(13)
  fit <- sample_posterior(rj_mixture(bernoulli_beta(0.5, 0.5), k_max = 4), B,
                          iter = exact_iter(20000), burnin = 1000, progress = FALSE)
  pk <- posterior_k(fit)
  expect_true(all(abs(pk$prob - p) < 4 * pk$mcse + 0.002))
})

test_that("reversible-jump fits extend like one longer run and have methods", {
  for (m in list(rj_mixture(k_max = 6), rj_mixture(gaussian_niw(), k_max = 6))) {
    set.seed(5)
    a <- sample_posterior(m, rj_y, iter = 60, burnin = 10, progress = FALSE)
    a <- extend(a, 40)
    set.seed(5)
    b <- sample_posterior(m, rj_y, iter = 100, burnin = 10, progress = FALSE)
    expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
    expect_identical(a$chains[[1]]$labels, b$chains[[1]]$labels)
    s <- summary(b)
    expect_s3_class(s, "summary.mcmix_rj_fit")
    expect_equal(sum(s$K$prob), 1)
    expect_output(print(s), "number of components K")
    d <- predict(b, c(-3, 0, 3))
    expect_equal(dim(d), c(3L, 3L))
    expect_true(all(d$density > 0 & d$lower <= d$density & d$density <= d$upper))
    expect_equal(nrow(partition_draws(b)), 100L)
    grDevices::pdf(NULL)
    expect_no_error(plot(b))
    grDevices::dev.off()
    f <- tempfile(fileext = ".rds")
    saveRDS(b, f)
    expect_identical(extend(readRDS(f), 20)$chains[[1]]$traces,
                     extend(b, 20)$chains[[1]]$traces)
  }
  expect_output(print(rj_mixture()), "reversible jump")
})

test_that("the predictive density of a Richardson-Green fit integrates to 1", {
  set.seed(2)
  fit <- sample_posterior(rj_mixture(k_max = 5), rj_y, iter = 200, progress = FALSE)
  g <- seq(-40, 40, by = 0.02)
  expect_equal(sum(predict(fit, g)$density) * 0.02, 1, tolerance = 1e-3)
})

test_that("bad input to rj_mixture() and its sampler is refused with clear errors", {
  expect_error(rj_mixture(components = 3), "`components` must be")
  expect_error(rj_mixture(k_max = 0), "`k_max`")
  expect_error(rj_mixture(k_max = 2000), "`k_max` must be at most")
  expect_error(rj_mixture(k_max = 3, k_prior = c(1, 2)), "`k_prior`")
  expect_error(rj_mixture(k_max = 2, k_prior = c(0, 0)), "`k_prior`")
  expect_error(rj_mixture(delta = -1), "`delta`")
  expect_error(rg_prior(alpha = 0), "`alpha`")
  expect_error(rg_prior(xi = NA), "`xi`")
  expect_error(rg_prior(h = "a"), "`h`")
  expect_error(sample_posterior(rj_mixture(), matrix(1:10, 5)), "univariate")
  expect_error(sample_posterior(rj_mixture(), c(1, NA, 3)), "data")
  expect_error(sample_posterior(rj_mixture(k_max = 3), rj_y, k_init = 4), "`k_init`")
  expect_error(sample_posterior(rj_mixture(gaussian_nonconj()), rj_y), "conjugate")
  expect_error(sample_posterior(rj_mixture(), rj_y, foo = 1), "unknown argument")
  expect_error(posterior_k(1), "`fit`")
})

test_that("collapsed RJMCMC matches p(K | y) by enumerating all allocations (Poisson-gamma)", {
  skip_on_cran()
  y <- c(0, 1, 3, 2, 8, 10, 9, 15); sh <- 2; rt <- 0.3; kmax <- 4; delta <- 0.7
  kp <- c(0.1, 0.2, 0.3, 0.4)
  lmp <- function(v) {
    n <- length(v)
    if (!n) return(0)
    sh * log(rt) - lgamma(sh) + lgamma(sh + sum(v)) - (sh + sum(v)) * log(rt + n) -
      sum(lgamma(v + 1))
  }
  # p(y | K) = sum over labelled allocations of Dirichlet-multinomial times
  # the Poisson-gamma marginals
  lpk <- vapply(seq_len(kmax), function(K) {
    Z <- as.matrix(expand.grid(rep(list(seq_len(K)), length(y))))
    a <- rep(delta, K)
    lz <- apply(Z, 1L, function(z) {
      n <- tabulate(z, K)
      lgamma(sum(a)) - lgamma(sum(a) + length(y)) + sum(lgamma(a + n) - lgamma(a)) +
        sum(vapply(seq_len(K), function(k) lmp(y[z == k]), 0))
    })
    max(lz) + log(sum(exp(lz - max(lz))))
  }, 0)
  lpost <- lpk + log(kp)
  ex <- exp(lpost - max(lpost)); ex <- ex / sum(ex)
  set.seed(5)
  fit <- sample_posterior(rj_mixture(poisson_gamma(sh, rt), k_max = kmax, k_prior = kp,
                                     delta = delta), y,
                          iter = exact_iter(10000), burnin = 1000, chains = 2, progress = FALSE)
  pk <- posterior_k(fit)
  est <- pk$prob[match(seq_len(kmax), pk$K)]
  est[is.na(est)] <- 0
  se <- pk$mcse[match(seq_len(kmax), pk$K)]
  se[is.na(se)] <- 0
  expect_true(all(abs(est - ex) < 4 * se + 0.005))
})

test_that("Richardson-Green sampler reproduces the published galaxy p(K) (RG 1997, Table 1)", {
  skip_on_cran()
  y <- MASS::galaxies / 1000
  set.seed(11)
  fit <- sample_posterior(rj_mixture(), y, iter = 15000, burnin = 3000, progress = FALSE)
  pk <- posterior_k(fit)
  p <- stats::setNames(pk$prob, pk$K)
  # Table 1 of Richardson and Green (1997), galaxy data, uniform p(K) on 1..30
  rg <- c(`3` = 0.061, `4` = 0.128, `5` = 0.182, `6` = 0.199, `7` = 0.160, `8` = 0.109)
  expect_true(as.integer(names(p)[which.max(p)]) %in% 5:7)
  expect_true(all(abs(p[names(rg)] - rg) < 0.06))
  expect_lt(sum(p[as.integer(names(p)) <= 2]), 0.01)
})

test_that("Richardson-Green RJMCMC matches p(K | y) by enumeration and quadrature (other data, priors)", {
  skip_on_cran()
  y <- c(-1.2, -0.8, 0.9, 1.4, 3.1); N <- length(y)
  xi <- 0.5; kappa <- 0.2; al <- 2; g <- 0.5; h <- 1; delta <- 1; kmax <- 4
  # one cluster's marginal given the precision tau: N(v; xi 1, I / tau + 11' / kappa)
  lm_tau <- function(v, tau) {
    n <- length(v); s2 <- 1 / tau; t2 <- 1 / kappa; r <- v - xi
    -0.5 * n * log(2 * pi) - 0.5 * ((n - 1) * log(s2) + log(s2 + n * t2)) -
      0.5 * (sum(r^2) - t2 * sum(r)^2 / (s2 + n * t2)) / s2
  }
  # ... integrated over tau ~ Gamma(alpha, beta) on a log grid
  m_beta <- function(v, beta) {
    if (!length(v)) return(1)
    uu <- seq(log(al / beta) - 20, log(al / beta) + 20, length.out = 4001)
    lf <- stats::dgamma(exp(uu), al, beta, log = TRUE) + lm_tau(v, exp(uu)) + uu
    lf[!is.finite(lf)] <- -Inf
    sum(exp(lf - max(lf))) * (uu[2] - uu[1]) * exp(max(lf))
  }
  subsets <- lapply(0:(2^N - 1), function(b) which(bitwAnd(b, 2^(0:(N - 1))) > 0))
  allocs <- lapply(seq_len(kmax), function(K) as.matrix(expand.grid(rep(list(seq_len(K)), N))))
  key <- function(idx) sum(2^(idx - 1)) + 1
  # each allocation z of N points to K components, once: its Dirichlet-
  # multinomial weight and the subset of the points of each component
  terms <- lapply(seq_len(kmax), function(K) {
    a <- rep(delta, K)
    z <- allocs[[K]]
    list(w = exp(apply(z, 1L, function(zz) {
           n <- tabulate(zz, K)
           lgamma(sum(a)) - lgamma(sum(a) + N) + sum(lgamma(a + n) - lgamma(a))
         })),
         keys = matrix(apply(z, 1L, function(zz) vapply(seq_len(K), function(k)
           key(which(zz == k)), 0)), ncol = K, byrow = TRUE))
  })
  # p(y | K, beta) = sum over z of weight(z) prod_k m(y[z == k] | beta)
  pyk_beta <- function(beta) {
    ms <- vapply(subsets, function(S) m_beta(y[S], beta), 0)
    vapply(terms, function(tm) {
      pr <- tm$w
      for (k in seq_len(ncol(tm$keys))) pr <- pr * ms[tm$keys[, k]]
      sum(pr)
    }, 0)
  }
  # ... and over beta ~ Gamma(g, h) on a log grid
  lb <- seq(log(1e-6), log(1e3), length.out = 300)
  vals <- t(vapply(exp(lb), function(b) pyk_beta(b) * stats::dgamma(b, g, h) * b, numeric(kmax)))
  ex <- colSums(vals) / sum(vals)
  set.seed(21)
  fit <- sample_posterior(rj_mixture(rg_prior(xi = xi, kappa = kappa, alpha = al, g = g, h = h),
                                     k_max = kmax, delta = delta), y,
                          iter = exact_iter(15000), burnin = 2000, progress = FALSE)
  pk <- posterior_k(fit)
  expect_equal(pk$K, 1:4)
  expect_true(all(abs(pk$prob - ex) < 4 * pk$mcse + 0.005))
})
