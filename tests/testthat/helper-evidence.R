# Three evidence problems with exact answers, shared by test-evidence-*.R:
# each has log_lik, log_prior (normalised), prior_sampler, exact log Z and
# exact posterior draws (rpost).

# 10-D Gaussian likelihood N(theta; mu, S), S equicorrelated (0.9), prior
# N(0, 100 I): Z = N(mu; 0, S + 100 I), log Z = -32.284.
ev_gauss10 <- local({
  d <- 10L
  mu <- seq(-1, 1, length.out = d)
  S <- matrix(0.9, d, d) + diag(0.1, d)
  # S^-1 = 10 (I - (0.9 / 9.1) 11'), log|S| = log(9.1) + 9 log(0.1)
  c_ll <- -0.5 * (log(9.1) + 9 * log(0.1)) - d / 2 * log(2 * pi)
  c_lp <- -d / 2 * log(2 * pi * 100)
  C <- S + 100 * diag(d)
  Pn <- solve(S) + diag(d) / 100
  Vn <- solve(Pn)
  mn <- as.vector(Vn %*% solve(S, mu))
  list(name = "10-D Gaussian", d = d,
       exact = as.numeric(-0.5 * determinant(2 * pi * C)$modulus -
                            0.5 * crossprod(mu, solve(C, mu))),
       ll = function(th) {
         r <- th - mu
         c_ll - 5 * (sum(r^2) - 0.9 / 9.1 * sum(r)^2)
       },
       lp = function(th) c_lp - sum(th^2) / 200,
       rp = function(n) matrix(stats::rnorm(n * d, 0, 10), n, d),
       rpost = function(n) t(mn + t(chol(Vn)) %*% matrix(stats::rnorm(n * d), d, n)))
})

# Symmetric two-component mixture likelihood in one parameter:
# y_i ~ (N(theta, 1) + N(-theta, 1)) / 2, theta ~ N(0, 3^2); bimodal
# posterior.  Z by expanding the product into 2^n Gaussian integrals.
ev_mix1 <- local({
  y <- c(2.5, 3.1, 2.2, 2.8)
  n <- length(y)
  tau2 <- 9
  signs <- as.matrix(expand.grid(rep(list(c(-1, 1)), n)))
  # for one sign pattern s: prod N(y_i; s_i theta, 1) N(theta; 0, tau2) integrates
  # to N(y; 0, I + tau2 s s'); the posterior given s is normal
  comp <- t(apply(signs, 1L, function(s) {
    K <- diag(n) + tau2 * tcrossprod(s)
    lz <- as.numeric(-0.5 * determinant(2 * pi * K)$modulus - 0.5 * crossprod(y, solve(K, y)))
    prec <- n + 1 / tau2
    c(lz = lz - n * log(2), mean = sum(s * y) / prec, sd = sqrt(1 / prec))
  }))
  mx <- max(comp[, "lz"])
  exact <- mx + log(sum(exp(comp[, "lz"] - mx)))
  list(name = "1-D mixture likelihood", d = 1L, exact = exact,
       ll = function(th) sum(log(0.5 * stats::dnorm(y, th) + 0.5 * stats::dnorm(y, -th))),
       lp = function(th) stats::dnorm(th, 0, 3, log = TRUE),
       rp = function(n) stats::rnorm(n, 0, 3),
       rpost = function(m) {
         k <- sample.int(nrow(comp), m, replace = TRUE, prob = exp(comp[, "lz"] - mx))
         matrix(stats::rnorm(m, comp[k, "mean"], comp[k, "sd"]), ncol = 1L)
       })
})

# Beta-Binomial: y = 7 of 20, theta ~ Beta(2, 3):
# Z = choose(20, 7) B(9, 16) / B(2, 3).
ev_betabin <- local({
  y <- 7; n <- 20; a <- 2; b <- 3
  list(name = "Beta-Binomial", d = 1L,
       exact = lchoose(n, y) + lbeta(a + y, b + n - y) - lbeta(a, b),
       ll = function(th) stats::dbinom(y, n, th, log = TRUE),
       lp = function(th) stats::dbeta(th, a, b, log = TRUE),
       rp = function(m) stats::rbeta(m, a, b),
       # on the logit scale phi (for bridge sampling): the posterior of phi
       # with the Jacobian theta (1 - theta)
       lpost_logit = function(phi) {
         th <- stats::plogis(phi)
         stats::dbinom(y, n, th, log = TRUE) + stats::dbeta(th, a, b, log = TRUE) +
           log(th) + log1p(-th)
       },
       rpost_logit = function(m) matrix(stats::qlogis(stats::rbeta(m, a + y, b + n - y)),
                                        ncol = 1L))
})

ev_problems <- list(gauss10 = ev_gauss10, mix1 = ev_mix1, betabin = ev_betabin)

# Replicate an estimator R times: a matrix with columns est and se.
ev_replicate <- function(R, f) {
  t(vapply(seq_len(R), function(r) {
    e <- f()
    c(est = e$log_evidence, se = e$se)
  }, c(est = 0, se = 0)))
}

# The acceptance checks on R independent estimates (columns est, se): their
# mean within 4 sd / sqrt(R) of the exact value, and sd over the runs within
# a factor 2 of the root-mean-square reported se.
ev_check_spread <- function(r, exact) {
  R <- nrow(r)
  expect_lt(abs(mean(r[, "est"]) - exact), 4 * stats::sd(r[, "est"]) / sqrt(R))
  ratio <- stats::sd(r[, "est"]) / sqrt(mean(r[, "se"]^2))
  expect_gt(ratio, 0.5)
  expect_lt(ratio, 2)
}

# A correlated 3-D Gaussian likelihood N(mu, S) under N(0, 25 I) priors:
# the evidence is the density N(mu; 0, S + 25 I).
ev_gauss3 <- local({
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

# R estimates (log evidence and its reported se), run s with seed seed + s.
ev_replicate_seeded <- function(R, seed, f) {
  t(vapply(seq_len(R), function(s) {
    set.seed(seed + s)
    r <- f()
    c(est = r$log_evidence, se = r$se)
  }, numeric(2)))
}

# mean within 4 standard errors of the exact value, and the reported se
# within a factor 2 of the spread over runs
ev_check_unbiased <- function(r, exact) {
  sdv <- stats::sd(r[, "est"])
  expect_lt(abs(mean(r[, "est"]) - exact), 4 * sdv / sqrt(nrow(r)))
  expect_gt(mean(r[, "se"]) / sdv, 0.5)
  expect_lt(mean(r[, "se"]) / sdv, 2)
}
