# chib_evidence() against exact log evidences: finite mixtures by
# enumerating every allocation, probit regression by 2-D numerical
# integration, the hierarchical linear model by its closed form in mu and
# 2-D numerical integration over (Sigma, sigma^2).
#
# Tolerance: 4 reported standard errors (the Monte Carlo error of the
# Rao-Blackwellised log ordinate, from the effective sample size) plus 0.01
# for the numerical integration and the O(1/G) bias of the log of a mean.

test_that("chib_evidence() is exact for finite mixtures (all allocations enumerated, K = 2, 3)", {
  skip_on_cran()
  y <- c(-2.1, -1.5, -2.6, 0.2, 1.8, 2.4, 2.2, 1.1)
  s2 <- 1; m0 <- 0; t2 <- 4
  # p(y) = sum_z p(z) prod_k m(y_k): Dirichlet-multinomial allocation
  # probability and the normal marginal N(y_k; m0 1, s2 I + t2 11')
  exact_mix <- function(K, alpha) {
    N <- length(y); a <- rep(alpha / K, K)
    Z <- as.matrix(expand.grid(rep(list(seq_len(K)), N)))
    lm1 <- function(v) {
      n <- length(v)
      if (!n) return(0)
      S <- diag(s2, n) + t2
      as.numeric(-0.5 * determinant(2 * pi * S)$modulus - 0.5 * sum((v - m0) * solve(S, v - m0)))
    }
    lz <- apply(Z, 1L, function(z) {
      n <- tabulate(z, K)
      lgamma(sum(a)) - lgamma(sum(a) + N) + sum(lgamma(a + n) - lgamma(a)) +
        sum(vapply(seq_len(K), function(k) lm1(y[z == k]), 0))
    })
    max(lz) + log(sum(exp(lz - max(lz))))
  }
  fam <- gaussian_mean(cov = s2, prior_mean = m0, prior_cov = t2)
  for (K in 2:3) {
    set.seed(400 + K)
    fit <- sample_posterior(finite_mixture(fam, K = K, alpha = 1), y, iter = 2000,
                            burnin = 200, algorithm = "gibbs", progress = FALSE)
    ch <- chib_evidence(fit)
    expect_s3_class(ch, "mcmix_evidence")
    expect_lt(abs(ch$log_evidence - exact_mix(K, 1)), 4 * ch$se + 0.01)
  }
  # a Poisson-gamma mixture with the collapsed sampler and asymmetric weights
  yc <- c(0, 1, 0, 2, 7, 9, 6, 8)
  a <- c(1, 2); sh <- 1; rt <- 0.5
  lmp <- function(v) {
    n <- length(v)
    sh * log(rt) - lgamma(sh) + lgamma(sh + sum(v)) - (sh + sum(v)) * log(rt + n) -
      sum(lgamma(v + 1))
  }
  Z <- as.matrix(expand.grid(rep(list(1:2), length(yc))))
  lz <- apply(Z, 1L, function(z) {
    n <- tabulate(z, 2)
    lgamma(sum(a)) - lgamma(sum(a) + length(yc)) + sum(lgamma(a + n) - lgamma(a)) +
      sum(vapply(1:2, function(k) lmp(yc[z == k]), 0))
  })
  set.seed(410)
  fit <- sample_posterior(finite_mixture(poisson_gamma(sh, rt), K = 2, alpha = a), yc,
                          iter = 2000, burnin = 200, progress = FALSE)
  ch <- chib_evidence(fit)
  expect_lt(abs(ch$log_evidence - (max(lz) + log(sum(exp(lz - max(lz)))))), 4 * ch$se + 0.01)
})

test_that("chib_evidence() matches 2-D numerical integration for probit regression", {
  skip_on_cran()
  set.seed(420)
  n <- 30
  x <- stats::rnorm(n)
  y <- stats::rbinom(n, 1, stats::pnorm(-0.3 + 0.8 * x))
  f <- function(b1, b2) exp(sum(stats::pnorm((2 * y - 1) * (b1 + b2 * x), log.p = TRUE)) +
                              sum(stats::dnorm(c(b1, b2), 0, 2, log = TRUE)) + 20)
  inner <- function(b1) vapply(b1, function(a)
    stats::integrate(Vectorize(function(b2) f(a, b2)), -Inf, Inf, rel.tol = 1e-10)$value, 0)
  exact <- log(stats::integrate(inner, -Inf, Inf, rel.tol = 1e-9)$value) - 20
  fit <- probit_gibbs(cbind(1, x), y, prior_mean = 0, prior_cov = 4, iter = 2000,
                      burnin = 200)
  ch <- chib_evidence(fit)
  expect_lt(abs(ch$log_evidence - exact), 4 * ch$se + 0.01)
  expect_equal(unname(ch$theta_star), unname(colMeans(fit$chains[[1]]$traces)))
})

test_that("chib_evidence() matches the closed form of the hierarchical linear model", {
  skip_on_cran()
  set.seed(430)
  m <- 5
  g <- rep(seq_len(m), each = 4)
  y <- stats::rnorm(m, 1, 1)[g] + stats::rnorm(20, 0, 0.7)
  mu0 <- 0; V0 <- 10; eta0 <- 3; S0 <- 1; nu0 <- 2; s0sq <- 1
  # random intercepts: y | Sigma, sigma2 ~ N(mu0 1, V0 11' + Sigma B + sigma2 I),
  # B the same-group indicator; Sigma ~ IG(eta0 / 2, S0 / 2) (the 1-D
  # inverse-Wishart), sigma2 ~ IG(nu0 / 2, nu0 s0sq / 2)
  ldig <- function(v, a, b) a * log(b) - lgamma(a) - (a + 1) * log(v) - b / v
  lmarg <- function(Sig, s2) {
    K <- V0 + Sig * outer(g, g, "==") + diag(s2, 20)
    as.numeric(-0.5 * determinant(2 * pi * K)$modulus - 0.5 * sum((y - mu0) * solve(K, y - mu0)))
  }
  h <- function(u, v) exp(lmarg(exp(u), exp(v)) + ldig(exp(u), eta0 / 2, S0 / 2) + u +
                            ldig(exp(v), nu0 / 2, nu0 * s0sq / 2) + v + 30)
  inner <- function(u) vapply(u, function(a)
    stats::integrate(Vectorize(function(v) h(a, v)), -8, 5, rel.tol = 1e-9)$value, 0)
  exact <- log(stats::integrate(inner, -10, 6, rel.tol = 1e-8)$value) - 30
  fit <- hier_lm_gibbs(matrix(1, 20, 1), y, g, mu0 = mu0, V0 = V0, eta0 = eta0, S0 = S0,
                       nu0 = nu0, s0sq = s0sq, keep_beta = FALSE, iter = 1000, burnin = 200)
  ch <- chib_evidence(fit, n_reduced = 1000)
  expect_lt(abs(ch$log_evidence - exact), 4 * ch$se + 0.01)
})

test_that("chib_evidence() refuses fits it does not apply to, with a classed error", {
  set.seed(440)
  fit <- sample_mh(target(function(th) -sum(th^2) / 2, dim = 1), init = 0, iter = 50,
                   burnin = 10)
  expect_error(chib_evidence(fit), class = "mcmix_error_chib_unsupported")
  expect_error(chib_evidence(list(a = 1)), class = "mcmix_error_chib_unsupported")
  y <- c(-2, -1.5, 1.8, 2.4)
  dp <- sample_posterior(dp_mixture(gaussian_mean(cov = 1, prior_mean = 0, prior_cov = 4)),
                         y, iter = 20, burnin = 5, progress = FALSE)
  expect_error(chib_evidence(dp), class = "mcmix_error_chib_unsupported")
  nolab <- sample_posterior(finite_mixture(gaussian_mean(cov = 1, prior_mean = 0,
                                                         prior_cov = 4), K = 2),
                            y, iter = 20, burnin = 5, labels = FALSE, progress = FALSE)
  expect_error(chib_evidence(nolab), class = "mcmix_error_chib_unsupported")
})

test_that("chib_evidence() and bridge_evidence() check their arguments", {
  set.seed(441)
  x <- stats::rnorm(20)
  fit <- probit_gibbs(cbind(1, x), as.integer(x > 0), iter = 50, burnin = 10)
  expect_error(chib_evidence(fit, n_candidates = 0), "n_candidates")
  g <- rep(1:2, each = 5)
  hfit <- hier_lm_gibbs(matrix(1, 10, 1), stats::rnorm(10), g, iter = 20, burnin = 5)
  expect_error(chib_evidence(hfit, n_reduced = 2), "n_reduced")
  d <- matrix(stats::rnorm(40), 20, 2)
  expect_error(bridge_evidence(d, function(th) 0, tol = -1), "tol")
  expect_error(bridge_evidence(d, function(th) 0, max_iter = 0), "max_iter")
  expect_error(bridge_evidence(d[1:3, ], function(th) 0), "at least 4 draws")
})

test_that("chib_evidence() is exact for Bernoulli-beta mixtures (all allocations enumerated)", {
  skip_on_cran()
  Y <- rbind(c(1, 1), c(1, 0), c(1, 1), c(1, 1), c(0, 0), c(0, 1), c(0, 0), c(0, 0))
  a0 <- 1.5; b0 <- 0.7
  lmb <- function(v) {
    if (!nrow(v)) return(0)
    s <- colSums(v)
    sum(lbeta(a0 + s, b0 + nrow(v) - s) - lbeta(a0, b0))
  }
  exact <- function(K, alpha) {
    Z <- as.matrix(expand.grid(rep(list(seq_len(K)), nrow(Y))))
    lz <- apply(Z, 1L, function(z) {
      n <- tabulate(z, K)
      lgamma(sum(alpha)) - lgamma(sum(alpha) + nrow(Y)) + sum(lgamma(alpha + n) - lgamma(alpha)) +
        sum(vapply(seq_len(K), function(k) lmb(Y[z == k, , drop = FALSE]), 0))
    })
    max(lz) + log(sum(exp(lz - max(lz))))
  }
  cases <- list(list(K = 2L, alpha = c(1, 2), alg = "gibbs"),
                list(K = 3L, alpha = rep(0.8, 3), alg = "collapsed"))
  for (cs in cases) {
    set.seed(77 + cs$K)
    fit <- sample_posterior(finite_mixture(bernoulli_beta(a0, b0), K = cs$K, alpha = cs$alpha),
                            Y, iter = 3000, burnin = 300, algorithm = cs$alg, progress = FALSE)
    ch <- chib_evidence(fit)
    expect_lt(abs(ch$log_evidence - exact(cs$K, cs$alpha)), 4 * ch$se + 0.01)
  }
})
