# Every mixture sampler against the exact posterior over partitions of tiny
# data sets (enumerated, helper-mixture.R), with marginal likelihoods
# computed in closed form in R. The TV bound comes from the number of kept
# draws (see mx_tv_bound()); iterations are thinned to reduce the
# autocorrelation.

x1 <- c(-1.2, -0.9, 0.1, 1.4, 1.6)                   # D = 1, N = 5
x2 <- cbind(c(-1, -0.8, 0.9, 1.2), c(0.5, 0.2, -0.4, -0.9))   # D = 2, N = 4
xb <- cbind(c(1, 1, 0, 0, 1), c(1, 0, 0, 1, 1))        # binary, D = 2, N = 5
xp <- c(0, 1, 1, 4, 6, 7)                               # counts, N = 6

niw1 <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
niw2 <- gaussian_niw(prior_mean = c(0, 0), kappa = 0.5, df = 4,
                     scale = matrix(c(1, 0.2, 0.2, 1), 2))
lml_niw1 <- function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1))
lml_niw2 <- function(X) mx_lml_niw(X, c(0, 0), 0.5, 4, matrix(c(1, 0.2, 0.2, 1), 2))
lml_bern <- function(X) mx_lml_bernoulli(X, 0.5, 0.5)
lml_pois <- function(X) mx_lml_poisson(X, 2, 0.5)

test_that("the enumeration and the finite-mixture partition prior are right", {
  expect_equal(nrow(mx_partitions(5)), 52L)             # Bell numbers
  expect_equal(nrow(mx_partitions(6)), 203L)
  expect_equal(anyDuplicated(mx_keys(mx_partitions(6))), 0L)
  # the K!/(K-k)! Dirichlet-multinomial formula = sum over all K^N labellings
  K <- 3; a <- 0.4; n <- 4
  P <- mx_partitions(n)
  lab <- as.matrix(expand.grid(rep(list(seq_len(K)), n)))
  ldm <- apply(lab, 1L, function(z) {
    nk <- tabulate(z, K)
    lgamma(K * a) - lgamma(K * a + n) + sum(lgamma(a + nk) - lgamma(a))
  })
  by_key <- tapply(exp(ldm), mx_keys(lab), sum)
  formula <- exp(apply(P, 1L, mx_lprior_finite, K = K, a = a))
  names(formula) <- mx_keys(P)
  expect_equal(sum(formula), 1)
  expect_equal(unname(formula[names(by_key)]), unname(as.vector(by_key)))
  # DP and Pitman-Yor priors sum to one
  expect_equal(sum(exp(apply(P, 1L, mx_lprior_dp, alpha = 0.7))), 1)
  expect_equal(sum(exp(apply(P, 1L, mx_lprior_py, alpha = 0.7, d = 0.4))), 1)
  # the closed-form NIW marginal agrees with the chain rule of predictives
  # through the family's own evaluation (a cross-check of the test's formula)
  X <- matrix(c(0.3, -1, 2.2, 0.4), ncol = 1)
  expect_equal(lml_niw1(X), mcmix:::.family_eval(
    mcmix:::family_prepare(niw1, c(0, 0)), X, "log_marginal"), tolerance = 1e-10)
})

test_that("the three finite-mixture samplers match the exact posterior (D = 1 Gaussian)", {
  skip_on_cran()
  K <- 3; alpha <- 1.5
  P <- mx_partitions(length(x1))
  p <- mx_posterior(P, mx_log_lik_partitions(P, x1, lml_niw1),
                    apply(P, 1L, mx_lprior_finite, K = K, a = alpha / K))
  for (alg in c("gibbs", "collapsed_weights", "collapsed")) {
    r <- mx_check(finite_mixture(niw1, K = K, alpha = alpha), x1, p, iter = 60000,
                  algorithm = alg)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
  }
})

test_that("the three finite-mixture samplers match the exact posterior (D = 2 binary)", {
  skip_on_cran()
  K <- 2; alpha <- 2
  fam <- bernoulli_beta(0.5, 0.5)
  P <- mx_partitions(nrow(xb))
  p <- mx_posterior(P, mx_log_lik_partitions(P, xb, lml_bern),
                    apply(P, 1L, mx_lprior_finite, K = K, a = alpha / K))
  for (alg in c("gibbs", "collapsed_weights", "collapsed")) {
    r <- mx_check(finite_mixture(fam, K = K, alpha = alpha), xb, p, iter = 60000,
                  algorithm = alg, seed = 2)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
  }
})

test_that("a finite mixture with a D = 2 Gaussian and asymmetric weights prior is exact", {
  skip_on_cran()
  K <- 3; a <- c(0.5, 1, 2)
  P <- mx_partitions(nrow(x2))
  # asymmetric prior: sum the Dirichlet-multinomial over all labellings
  lab <- as.matrix(expand.grid(rep(list(seq_len(K)), nrow(x2))))
  ldm <- apply(lab, 1L, function(z) {
    nk <- tabulate(z, K)
    lgamma(sum(a)) - lgamma(sum(a) + length(z)) + sum(lgamma(a + nk) - lgamma(a))
  })
  prior <- tapply(exp(ldm), mx_keys(lab), sum)[mx_keys(P)]
  prior[is.na(prior)] <- 0            # more than K blocks
  p <- mx_posterior(P, mx_log_lik_partitions(P, x2, lml_niw2), log(as.vector(prior)))
  for (alg in c("gibbs", "collapsed")) {
    r <- mx_check(finite_mixture(niw2, K = K, alpha = a), x2, p, iter = 40000,
                  algorithm = alg, seed = 3)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
  }
})

test_that("the DP collapsed sampler matches the exact DP posterior (fixed alpha)", {
  skip_on_cran()
  cases <- list(
    list(fam = niw1, x = x1, lml = lml_niw1, alpha = 1),
    list(fam = niw2, x = x2, lml = lml_niw2, alpha = 0.5),
    list(fam = poisson_gamma(2, 0.5), x = xp, lml = lml_pois, alpha = 2),
    list(fam = bernoulli_beta(0.5, 0.5), x = xb, lml = lml_bern, alpha = 1))
  for (i in seq_along(cases)) {
    cs <- cases[[i]]
    p <- mx_exact_dp(cs$x, cs$lml, cs$alpha)
    r <- mx_check(dp_mixture(cs$fam, alpha = cs$alpha), cs$x, p, iter = 50000,
                  seed = 10 + i)
    expect_lt(r$tv, r$bound, label = paste("TV of case", i))
  }
})

test_that("the DP sampler with a Gamma prior on alpha matches the exact posterior", {
  skip_on_cran()
  a <- 2; b <- 1.5
  P <- mx_partitions(length(x1))
  n <- length(x1)
  # p(partition) = prod (n_k - 1)! * int alpha^K Gamma(alpha)/Gamma(alpha + n) dGamma(alpha)
  wK <- vapply(seq_len(n), function(K) stats::integrate(function(al)
    exp(K * log(al) + lgamma(al) - lgamma(al + n) + stats::dgamma(al, a, b, log = TRUE)),
    0, Inf, rel.tol = 1e-10)$value, numeric(1))
  mK <- vapply(seq_len(n), function(K) stats::integrate(function(al)
    al * exp(K * log(al) + lgamma(al) - lgamma(al + n) + stats::dgamma(al, a, b, log = TRUE)),
    0, Inf, rel.tol = 1e-10)$value, numeric(1)) / wK        # E[alpha | K]
  K_of <- apply(P, 1L, max)
  lprior <- apply(P, 1L, function(z) sum(lgamma(mx_sizes(z)))) + log(wK[K_of])
  p <- mx_posterior(P, mx_log_lik_partitions(P, x1, lml_niw1), lprior)
  r <- mx_check(dp_mixture(niw1, alpha = gamma_prior(a, b)), x1, p, iter = 50000,
                seed = 21)
  expect_lt(r$tv, r$bound)
  # posterior mean of alpha = sum over partitions of p * E[alpha | K]
  al <- r$fit$chains[[1]]$traces[, "alpha"]
  exact <- sum(p * mK[K_of])
  # batch-means standard error
  bm <- colMeans(matrix(al[seq_len(50 * floor(length(al) / 50))], ncol = 50))
  se <- stats::sd(bm) / sqrt(50)
  expect_lt(abs(mean(al) - exact), 5 * se)
})

test_that("the engine's Pitman-Yor weights give the exact Pitman-Yor posterior", {
  skip_on_cran()
  alpha <- 0.5; d <- 0.4
  P <- mx_partitions(length(x1))
  p <- mx_posterior(P, mx_log_lik_partitions(P, x1, lml_niw1),
                    apply(P, 1L, mx_lprior_py, alpha = alpha, d = d))
  model <- dp_mixture(niw1, alpha = alpha)
  model$discount <- d                 # the user-facing argument comes later
  r <- mx_check(model, x1, p, iter = 50000, seed = 31)
  expect_lt(r$tv, r$bound)
})

test_that("the TV check detects a wrong posterior (negative control)", {
  skip_on_cran()
  # DP draws compared with the finite-mixture posterior must fail the bound
  P <- mx_partitions(length(x1))
  p_fin <- mx_posterior(P, mx_log_lik_partitions(P, x1, lml_niw1),
                        apply(P, 1L, mx_lprior_finite, K = 2, a = 0.5))
  r <- mx_check(dp_mixture(niw1, alpha = 1), x1, p_fin, iter = 20000, seed = 41)
  expect_gt(r$tv, r$bound)
  # and a slightly wrong concentration is detected too
  p_dp <- function(al) mx_posterior(P, mx_log_lik_partitions(P, x1, lml_niw1),
                                    apply(P, 1L, mx_lprior_dp, alpha = al))
  r <- mx_check(dp_mixture(niw1, alpha = 1), x1, p_dp(1.5), iter = 50000, seed = 42)
  expect_gt(r$tv, r$bound)
})
