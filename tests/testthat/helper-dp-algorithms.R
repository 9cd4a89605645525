# Exact answers for the tests of the further DP samplers (test-dp-algorithms-*.R),
# computed in R independently of the C code.

# Log marginal likelihood of one cluster under the normal model with
# independent priors mu ~ N(m0, v0), s2 ~ InvGamma(a0, b0): mu integrated
# out in closed form (x | s2 ~ N(m0 1, s2 I + v0 11')), then s2 by
# numerical integration over t = log s2.
lml_normal_nonconjugate <- function(x, m0, v0, a0, b0) {
  x <- as.vector(x)
  n <- length(x)
  if (n == 0L) return(0)
  r <- x - m0
  lf <- function(t) {
    s2 <- exp(t)
    ldet <- (n - 1) * t + log(s2 + n * v0)
    Q <- (sum(r^2) - v0 * sum(r)^2 / (s2 + n * v0)) / s2
    ll <- -n / 2 * log(2 * pi) - ldet / 2 - Q / 2
    lp <- a0 * log(b0) - lgamma(a0) - (a0 + 1) * t - b0 / s2
    ll + lp + t
  }
  o <- stats::optimize(lf, c(-20, 20), maximum = TRUE)
  opt <- o$objective
  val <- stats::integrate(function(t) exp(lf(t) - opt), o$maximum - 30, o$maximum + 30,
                          rel.tol = 1e-10, subdivisions = 1000L)$value
  log(val) + opt
}

# Normal with known variance s2 and N(m0, v0) prior on the mean.
lml_normal_known_var <- function(x, s2, m0, v0) {
  x <- as.vector(x)
  n <- length(x)
  if (n == 0L) return(0)
  S <- diag(s2, n) + v0
  r <- x - m0
  -n / 2 * log(2 * pi) - as.numeric(determinant(S)$modulus) / 2 -
    sum(r * solve(S, r)) / 2
}

# Posterior over partitions with a Beta(a, b) prior on the Pitman-Yor
# discount (alpha fixed), the discount integrated out numerically; also
# the posterior mean of the discount.
py_posterior_random_discount <- function(P, loglik, alpha, a, b) {
  # p(z | d) p(d) as a function of d, for partition row r
  f <- function(r, g) {
    z <- P[r, ]
    vapply(g, function(d) exp(mx_lprior_py(z, alpha, d) + stats::dbeta(d, a, b, log = TRUE)),
           numeric(1))
  }
  m0 <- vapply(seq_len(nrow(P)), function(r)
    stats::integrate(function(g) f(r, g), 0, 1, rel.tol = 1e-10)$value, numeric(1))
  m1 <- vapply(seq_len(nrow(P)), function(r)
    stats::integrate(function(g) g * f(r, g), 0, 1, rel.tol = 1e-10)$value, numeric(1))
  w <- exp(loglik - max(loglik))
  p <- w * m0 / sum(w * m0)
  list(p = stats::setNames(p, mx_keys(P)), mean_d = sum(w * m1) / sum(w * m0))
}
