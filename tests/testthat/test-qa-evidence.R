# Independent checks of the evidence estimators against exact answers on
# problems other than those of helper-evidence.R.

qa_gauss3 <- local({
  d <- 3L
  mu <- c(1, -0.5, 2)
  S <- matrix(c(1, 0.8, 0.3, 0.8, 1, 0.5, 0.3, 0.5, 1), 3L)
  Si <- solve(S)
  ldS <- as.numeric(determinant(S)$modulus)
  C <- S + 25 * diag(d)
  list(ll = function(th) {
         r <- th - mu
         -0.5 * d * log(2 * pi) - 0.5 * ldS - 0.5 * sum(r * (Si %*% r))
       },
       lp = function(th) sum(stats::dnorm(th, 0, 5, log = TRUE)),
       rp = function(n) matrix(stats::rnorm(n * d, 0, 5), n, d),
       # log N(mu; 0, S + 25 I)
       exact = -0.5 * d * log(2 * pi) - 0.5 * as.numeric(determinant(C)$modulus) -
         0.5 * sum(mu * solve(C, mu)))
})

qa_replicate <- function(R, seed, f) {
  t(vapply(seq_len(R), function(s) {
    set.seed(seed + s)
    r <- f()
    c(est = r$log_evidence, se = r$se)
  }, numeric(2)))
}

# mean within 4 standard errors of the exact value, and the reported se
# within a factor 2 of the spread over runs
qa_check_replicates <- function(r, exact) {
  sdv <- stats::sd(r[, "est"])
  expect_lt(abs(mean(r[, "est"]) - exact), 4 * sdv / sqrt(nrow(r)))
  expect_gt(mean(r[, "se"]) / sdv, 0.5)
  expect_lt(mean(r[, "se"]) / sdv, 2)
}

test_that("ais() and sample_smc() are unbiased with honest errors on a correlated 3-D Gaussian", {
  skip_on_cran()
  p <- qa_gauss3
  qa_check_replicates(qa_replicate(6, 200, function() ais(p$ll, p$lp, p$rp, n_runs = 100)),
                      p$exact)
  qa_check_replicates(qa_replicate(10, 200, function()
    suppressWarnings(sample_smc(p$ll, p$lp, p$rp, n_particles = 100))), p$exact)
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

test_that("bridge_evidence() matches 2-D quadrature and the bridgesampling package", {
  skip_on_cran()
  set.seed(9)
  x <- seq(-1, 1, length.out = 15)
  yy <- stats::rpois(15, exp(0.5 + 0.7 * x))
  lpost <- function(b) sum(stats::dpois(yy, exp(b[1] + b[2] * x), log = TRUE)) +
    sum(stats::dnorm(b, 0, 1, log = TRUE))
  f <- function(b1, b2) exp(lpost(c(b1, b2)) + 30)
  inner <- function(b1) vapply(b1, function(a)
    stats::integrate(Vectorize(function(b2) f(a, b2)), -6, 6, rel.tol = 1e-10)$value, 0)
  exact <- log(stats::integrate(inner, -6, 6, rel.tol = 1e-9)$value) - 30
  fit <- sample_mh(target(lpost, dim = 2), init = c(0, 0), iter = 6000, burnin = 1000,
                   chains = 2, progress = FALSE)
  r <- qa_replicate(6, 10, function() bridge_evidence(fit))
  expect_lt(abs(mean(r[, "est"]) - exact), 4 * max(r[, "se"]))
  dr <- do.call(rbind, lapply(fit$chains, function(ch) ch$traces))
  colnames(dr) <- c("b1", "b2")
  set.seed(1)
  b <- bridge_evidence(dr, lpost)
  expect_lt(abs(b$log_evidence - exact), 4 * b$se)
  bs <- bridgesampling::bridge_sampler(dr, log_posterior = function(s, data) lpost(s),
                                       data = NULL, lb = c(b1 = -Inf, b2 = -Inf),
                                       ub = c(b1 = Inf, b2 = Inf), silent = TRUE)
  expect_lt(abs(b$log_evidence - bs$logml), 4 * b$se)
})
