# Prior simulators (rcrp, rdp, rstick) and the concentration update against
# exact distributions.

# Exact distribution of the number of tables K_n of the CRP:
# P(K = k) = alpha^k |s(n, k)| / (alpha)_n, unsigned Stirling numbers of the
# first kind by |s(n+1, k)| = n |s(n, k)| + |s(n, k-1)|, in logs.
crp_k_dist <- function(n, alpha) {
  ls <- c(0, rep(-Inf, n))                  # log |s(0, k)|, k = 0..n
  for (m in 0:(n - 1)) {
    new <- rep(-Inf, n + 1)
    for (k in 1:(m + 1)) {
      a <- if (m > 0) log(m) + ls[k + 1] else -Inf
      new[k + 1] <- max(a, ls[k]) + log1p(exp(-abs(a - ls[k])))
      if (!is.finite(a) && !is.finite(ls[k])) new[k + 1] <- -Inf
    }
    ls <- new
  }
  k <- 1:n
  lp <- k * log(alpha) + ls[k + 1] - (lgamma(alpha + n) - lgamma(alpha))
  exp(lp)
}

test_that("rcrp matches the exact Ewens moments of the number of tables", {
  n <- 40; alpha <- 2.5; R <- 4000
  set.seed(11)
  K <- vapply(seq_len(R), function(r) max(rcrp(n, alpha)), numeric(1))
  i <- seq_len(n)
  EK <- sum(alpha / (alpha + i - 1))
  VK <- sum(alpha * (i - 1) / (alpha + i - 1)^2)
  pk <- crp_k_dist(n, alpha)
  expect_equal(sum(pk), 1, tolerance = 1e-10)
  expect_equal(sum(seq_len(n) * pk), EK, tolerance = 1e-10)
  mu4 <- sum((seq_len(n) - EK)^4 * pk)
  expect_lt(abs(mean(K) - EK), 4.5 * sqrt(VK / R))
  expect_lt(abs(stats::var(K) - VK), 4.5 * sqrt((mu4 - VK^2) / R))
  # the whole distribution of K: chi-square over cells with enough mass
  obs <- tabulate(K, n)
  keep <- pk * R >= 5
  o <- c(obs[keep], sum(obs[!keep]))
  e <- c(pk[keep], sum(pk[!keep])) * R
  expect_gt(stats::pchisq(sum((o - e)^2 / e), length(o) - 1, lower.tail = FALSE), 1e-3)
})

test_that("rcrp gives the exact partition probabilities for small n (DP and Pitman-Yor)", {
  P <- mx_partitions(4)
  R <- 40000
  for (case in list(c(alpha = 1.3, d = 0), c(alpha = 0.8, d = 0.5))) {
    set.seed(12)
    Z <- t(replicate(R, rcrp(4, case[["alpha"]], discount = case[["d"]])))
    p <- exp(apply(P, 1L, if (case[["d"]] == 0) function(z) mx_lprior_dp(z, case[["alpha"]])
                   else function(z) mx_lprior_py(z, case[["alpha"]], case[["d"]])))
    names(p) <- mx_keys(P)
    o <- mx_freq(Z, p) * R
    # labels are numbered by first appearance
    expect_true(all(apply(Z, 1L, function(z) identical(z, match(z, unique(z))))))
    expect_gt(stats::pchisq(sum((o - p * R)^2 / (p * R)), length(p) - 1,
                            lower.tail = FALSE), 1e-3)
  }
  expect_identical(rcrp(0, 1), integer())
  expect_identical(rcrp(1, 5), 1L)
})

test_that("rcrp, rdp and rstick reproduce with set.seed and refuse bad input", {
  set.seed(5); a <- rcrp(50, 1)
  set.seed(5); b <- rcrp(50, 1)
  expect_identical(a, b)
  expect_error(rcrp(-1, 1), "`n`")
  expect_error(rcrp(10, -1), "`alpha`")
  expect_error(rcrp(10, 0), "`alpha`")
  expect_error(rcrp(10, 1, discount = 1), "`discount`")
  expect_error(rcrp(10, -0.6, discount = 0.5), "`alpha`")
  expect_type(rcrp(10, -0.3, discount = 0.5), "integer")
  expect_error(rdp(10, 1, base = 3), "`base`")
  expect_error(rdp(10, 1, base = function(n) 1:2), "`base\\(")
  expect_error(rdp(10, NA, base = rnorm), "`alpha`")
  expect_error(rstick(alpha = 0), "`alpha`")
  expect_error(rstick(1, n = 0), "`n`")
  expect_error(rstick(alpha = 1, tol = 2), "`tol`")
  expect_error(rstick(1, n = 3, tol = 0.1), "only one")
})

test_that("rdp draws ties by the CRP and values from the base sampler", {
  set.seed(7)
  x <- rdp(200, 3, base = function(n) stats::rnorm(n, 10))
  z <- attr(x, "labels")
  expect_length(x, 200)
  expect_equal(length(unique(as.vector(x))), max(z))
  expect_true(all(tapply(as.vector(x), z, function(v) length(unique(v))) == 1))
  m <- rdp(30, 1, base = function(n) matrix(stats::runif(2 * n), n, 2))
  expect_equal(dim(m), c(30L, 2L))
  # the same seed gives the same partition as rcrp
  set.seed(8); z1 <- attr(rdp(100, 2, function(n) numeric(n)), "labels")
  set.seed(8); z2 <- rcrp(100, 2)
  expect_identical(z1, z2)
})

test_that("rstick weights have the stick-breaking means", {
  alpha <- 1.5; R <- 20000; n <- 4
  set.seed(9)
  W <- t(replicate(R, as.vector(rstick(alpha, n = n))))
  # E[w_k] = (1 / (1 + alpha)) (alpha / (1 + alpha))^(k - 1)
  Ew <- (1 / (1 + alpha)) * (alpha / (1 + alpha))^(seq_len(n) - 1)
  se <- apply(W, 2L, stats::sd) / sqrt(R)
  expect_true(all(abs(colMeans(W) - Ew) < 4.5 * se))
  w <- rstick(alpha, n = 10)
  expect_equal(sum(w) + attr(w, "remaining"), 1)
  w <- rstick(alpha = alpha, tol = 1e-4)
  expect_lt(attr(w, "remaining"), 1e-4)
  expect_gte(attr(w, "remaining") + w[length(w)], 1e-4)  # stopped at the first
  expect_equal(sum(w) + attr(w, "remaining"), 1)
  # Pitman-Yor: E[v_1] = (1 - d) / (1 + alpha)
  set.seed(10)
  v1 <- replicate(R, rstick(1, n = 1, discount = 0.5)[1])
  expect_lt(abs(mean(v1) - 0.5 / 2), 4.5 * stats::sd(v1) / sqrt(R))
})

# Exact conditional p(alpha | K, n) prop. to p(alpha) alpha^K Gamma(alpha) / Gamma(alpha + n)
alpha_cdf <- function(K, n, a, b) {
  f <- function(al) exp(K * log(al) + lgamma(al) - lgamma(al + n) +
                          stats::dgamma(al, a, b, log = TRUE))
  Z <- stats::integrate(f, 0, Inf, rel.tol = 1e-10)$value
  # cumulative integrals between the points of a fine log grid, interpolated
  grid <- c(0, exp(seq(log(1e-8), log(80), length.out = 4000)))
  pieces <- vapply(seq_len(length(grid) - 1L), function(j)
    stats::integrate(f, grid[j], grid[j + 1L], rel.tol = 1e-10)$value, numeric(1))
  G <- c(0, cumsum(pieces)) / Z
  stats::approxfun(grid, pmin(G, 1), yleft = 0, yright = 1, ties = "ordered")
}

test_that("the Escobar-West update leaves p(alpha | K, n) invariant", {
  skip_on_cran()
  for (case in list(c(K = 3, n = 50, a = 1, b = 1), c(K = 1, n = 10, a = 0.5, b = 2))) {
    K <- case[["K"]]; n <- case[["n"]]; a <- case[["a"]]; b <- case[["b"]]
    cdf <- alpha_cdf(K, n, a, b)
    # start from the exact conditional (inverse CDF on a fine grid), apply
    # one update to each: the results must follow the same distribution
    grid <- exp(seq(log(1e-8), log(80), length.out = 20000))
    G <- cdf(grid)
    set.seed(13)
    u <- stats::runif(3000, G[1], G[length(G)])
    start <- stats::approx(G, grid, u, ties = "ordered")$y
    one <- .Call(mcmix:::C_ffi_dp_alpha_update, start, as.integer(K), as.integer(n),
                 c(a, b), 1L)
    expect_gt(suppressWarnings(stats::ks.test(one, cdf)$p.value), 1e-3)
    # a long chain of updates (thinned) from a fixed start as well
    chain <- .Call(mcmix:::C_ffi_dp_alpha_update, rep(1, 2000), as.integer(K),
                   as.integer(n), c(a, b), 25L)
    expect_gt(suppressWarnings(stats::ks.test(chain, cdf)$p.value), 1e-3)
  }
  # negative control: the conditional for another K is rejected
  cdf_wrong <- alpha_cdf(5, 50, 1, 1)
  set.seed(14)
  draws <- .Call(mcmix:::C_ffi_dp_alpha_update, rep(1, 2000), 3L, 50L, c(1, 1), 25L)
  expect_lt(suppressWarnings(stats::ks.test(draws, cdf_wrong)$p.value), 1e-3)
})
