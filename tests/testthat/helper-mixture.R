# Exact answers for the mixture tests, computed in R independently of the
# C code: set partitions by restricted growth strings, closed-form marginal
# likelihoods, partition priors, and the Monte Carlo bound on the
# total-variation distance between sampled and exact partition frequencies.

# All set partitions of n items as restricted growth strings (one per row):
# a[1] = 1, a[i] <= max(a[1..i-1]) + 1.
mx_partitions <- function(n) {
  out <- matrix(1L, 1L, 1L)
  if (n == 1L) return(out)
  for (i in 2:n) {
    rows <- lapply(seq_len(nrow(out)), function(r) {
      a <- out[r, ]
      m <- max(a)
      t(vapply(seq_len(m + 1L), function(v) c(a, v), integer(i)))
    })
    out <- do.call(rbind, rows)
  }
  storage.mode(out) <- "integer"
  out
}

# Canonical key of a label vector (relabelled by first appearance).
mx_key <- function(z) paste(match(z, unique(z)), collapse = "")
mx_keys <- function(Z) apply(Z, 1L, mx_key)

# ---- log marginal likelihoods of one cluster (closed forms) ----------------

# Normal-inverse-Wishart (Murphy 2007, eq. 266), X: n x d matrix.
mx_lml_niw <- function(X, m0, kappa, nu, Psi) {
  X <- as.matrix(X)
  n <- nrow(X)
  d <- ncol(X)
  if (n == 0L) return(0)
  xbar <- colMeans(X)
  S <- crossprod(sweep(X, 2L, xbar))
  kn <- kappa + n
  nun <- nu + n
  Psin <- Psi + S + kappa * n / kn * tcrossprod(xbar - m0)
  lmg <- function(a) d * (d - 1) / 4 * log(pi) + sum(lgamma(a - (seq_len(d) - 1) / 2))
  -n * d / 2 * log(pi) + lmg(nun / 2) - lmg(nu / 2) +
    nu / 2 * as.numeric(determinant(as.matrix(Psi))$modulus) -
    nun / 2 * as.numeric(determinant(Psin)$modulus) + d / 2 * log(kappa / kn)
}

# Poisson-Gamma(shape, rate), one count per row (independent columns).
mx_lml_poisson <- function(X, shape, rate) {
  X <- as.matrix(X)
  n <- nrow(X)
  if (n == 0L) return(0)
  s <- colSums(X)
  sum(shape * log(rate) - lgamma(shape) + lgamma(shape + s) -
        (shape + s) * log(rate + n)) - sum(lgamma(X + 1))
}

# Bernoulli-Beta(a, b) per column.
mx_lml_bernoulli <- function(X, a, b) {
  X <- as.matrix(X)
  n <- nrow(X)
  if (n == 0L) return(0)
  s <- colSums(X)
  sum(lbeta(a + s, b + n - s) - lbeta(a, b))
}

# log p(x | partition) for every partition (rows of P), x an n x d matrix.
mx_log_lik_partitions <- function(P, x, lml) {
  x <- as.matrix(x)
  apply(P, 1L, function(z)
    sum(vapply(split(seq_along(z), z), function(idx) lml(x[idx, , drop = FALSE]),
               numeric(1))))
}

# ---- priors over partitions -------------------------------------------------

mx_sizes <- function(z) as.vector(table(z))

# Dirichlet process (Ewens): alpha^K prod (n_k - 1)! Gamma(alpha) / Gamma(alpha + n)
mx_lprior_dp <- function(z, alpha) {
  nk <- mx_sizes(z)
  length(nk) * log(alpha) + sum(lgamma(nk)) + lgamma(alpha) - lgamma(alpha + length(z))
}

# Pitman-Yor EPPF: prod_{i=1}^{K-1} (alpha + i d) / (alpha + 1)_{n-1}
#                  * prod_k (1 - d)_{n_k - 1}
mx_lprior_py <- function(z, alpha, d) {
  nk <- mx_sizes(z)
  K <- length(nk)
  n <- length(z)
  sum(log(alpha + seq_len(K - 1L) * d)) - (lgamma(alpha + n) - lgamma(alpha + 1)) +
    sum(lgamma(nk - d) - lgamma(1 - d))
}

# Finite mixture, K components, symmetric Dirichlet(a): partitions are
# label vectors up to relabelling, so
#   p(partition) = K! / (K - k)! * Gamma(K a) / Gamma(K a + n) prod_j Gamma(a + n_j) / Gamma(a)
mx_lprior_finite <- function(z, K, a) {
  nk <- mx_sizes(z)
  k <- length(nk)
  if (k > K) return(-Inf)
  lfactorial(K) - lfactorial(K - k) + lgamma(K * a) - lgamma(K * a + length(z)) +
    sum(lgamma(a + nk) - lgamma(a))
}

# Normalised posterior over the partitions P (named by key).
# Exact posterior over the partitions of the rows of x under a DP(alpha)
# prior, with `lml` the log marginal likelihood of one cluster's data.
mx_exact_dp <- function(x, lml, alpha) {
  P <- mx_partitions(NROW(x))
  mx_posterior(P, mx_log_lik_partitions(P, x, lml),
               apply(P, 1L, mx_lprior_dp, alpha = alpha))
}

mx_posterior <- function(P, loglik, logprior) {
  lp <- loglik + logprior
  p <- exp(lp - max(lp))
  stats::setNames(p / sum(p), mx_keys(P))
}

# Sampled frequencies of the kept labels, over the keys of `p`.
mx_freq <- function(labels, p) {
  k <- mx_keys(labels)
  f <- table(factor(k, levels = names(p)))
  stopifnot(sum(f) == nrow(labels))    # every sampled partition is a valid key
  as.vector(f) / nrow(labels)
}

mx_tv <- function(f, p) 0.5 * sum(abs(f - p))

# Bound on the TV distance of S draws: E[TV] <= 0.5 sum sqrt(p (1 - p) / S)
# for independent draws; `mult` covers the tail and the autocorrelation left
# after thinning.
mx_tv_bound <- function(p, S, mult = 3) mult * 0.5 * sum(sqrt(p * (1 - p) / S))

# Run a sampler and return its TV distance to `p` and the bound.
mx_check <- function(model, x, p, iter, thin = 3, algorithm = "collapsed", mult = 3,
                     seed = 1, ...) {
  set.seed(seed)
  fit <- sample_posterior(model, x, iter = iter, burnin = 200, thin = thin,
                          algorithm = algorithm, progress = FALSE, ...)
  z <- partition_draws(fit)
  f <- mx_freq(z, p)
  list(tv = mx_tv(f, p), bound = mx_tv_bound(p, nrow(z), mult), fit = fit)
}
