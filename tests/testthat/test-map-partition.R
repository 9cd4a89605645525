# MAP partitions by annealed Gibbs and ICM (R/map_partition.R) against the
# exact MAP found by enumerating every set partition (helper-mixture.R),
# also for Bernoulli-beta mixtures by brute force.

map_exact <- function(x, lml, lprior) {
  P <- mx_partitions(NROW(x))
  lp <- mx_log_lik_partitions(P, x, lml) + apply(P, 1L, lprior)
  list(key = mx_key(P[which.max(lp), ]), log_post = max(lp),
       second = sort(lp, decreasing = TRUE)[2L])
}

map_check <- function(model, x, ex, inits) {
  for (i in seq_along(inits)) {
    set.seed(100 + i)
    mp <- map_partition(model, x, restarts = 1, init = inits[[i]])
    expect_identical(mx_key(mp$labels), ex$key)
    expect_equal(mp$log_post, ex$log_post, tolerance = 1e-8)
  }
}

test_that("annealing finds the exact MAP partition of DP and Pitman-Yor mixtures", {
  x <- c(-2.1, -1.7, -1.5, 0.4, 1.2, 1.5, 3.9)
  lml <- function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1))
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
  inits <- list("prior", "prior", "one", "singletons", c(1, 2, 1, 2, 1, 2, 1))
  ex <- map_exact(matrix(x), lml, function(z) mx_lprior_dp(z, 1))
  expect_gt(ex$log_post - ex$second, 1e-3)       # a unique MAP
  map_check(dp_mixture(fam, alpha = 1), x, ex, inits)
  ex <- map_exact(matrix(x), lml, function(z) mx_lprior_py(z, 0.5, 0.3))
  map_check(dp_mixture(fam, alpha = 0.5, discount = 0.3), x, ex, inits)
  # counts
  y <- c(0, 1, 1, 5, 6, 7, 15)
  ex <- map_exact(matrix(y), function(X) mx_lml_poisson(X, 1, 0.2),
                  function(z) mx_lprior_dp(z, 0.7))
  map_check(dp_mixture(poisson_gamma(1, 0.2), alpha = 0.7), y, ex, inits)
})

test_that("annealing finds the exact MAP partition of finite mixtures", {
  X <- matrix(c(1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0), 7, 3)
  ex <- map_exact(X, function(X) mx_lml_bernoulli(X, 0.5, 0.5),
                  function(z) mx_lprior_finite(z, 3, 2 / 3))
  map_check(finite_mixture(bernoulli_beta(0.5, 0.5), K = 3, alpha = 2), X, ex,
            list("prior", "prior", "one", c(1, 2, 3, 1, 2, 3, 1)))
  x <- c(-2.1, -1.7, -1.5, 0.4, 1.2, 1.5, 3.9)
  ex <- map_exact(matrix(x), function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1)),
                  function(z) mx_lprior_finite(z, 2, 0.5))
  map_check(finite_mixture(gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1),
                           K = 2, alpha = 1), x, ex, list("prior", "prior", "one"))
})

test_that("ICM alone never lowers the posterior and restarts keep the best run", {
  set.seed(4)
  x <- c(rnorm(15, -2), rnorm(15, 2))
  mp <- map_partition(dp_mixture(gaussian_niw(), alpha = 1), x, schedule = numeric(0),
                      restarts = 4)
  for (tr in mp$traces) expect_true(all(diff(tr) >= 0))
  expect_equal(mp$log_post, max(mp$runs))
  expect_length(mp$labels, 30L)
  expect_output(print(mp), "MAP partition")
})

test_that("bad input to map_partition() is refused", {
  fam <- gaussian_niw()
  expect_error(map_partition(fam, 1:5), "`model`")
  expect_error(map_partition(finite_mixture(fam, 2, alpha = c(1, 2)), rnorm(5)), "symmetric")
  expect_error(map_partition(dp_mixture(fam, alpha = gamma_prior(1, 1)), rnorm(5)), "fixed")
  expect_error(map_partition(dp_mixture(fam), rnorm(5), schedule = -1), "`schedule`")
  expect_error(map_partition(dp_mixture(fam), rnorm(5), schedule = c(1, NA)), "`schedule`")
  expect_error(map_partition(dp_mixture(fam), rnorm(5), restarts = 0), "`restarts`")
  expect_error(map_partition(dp_mixture(fam), rnorm(5), init = "bad"), "`init`")
  expect_error(map_partition(dp_mixture(fam), c(1, NA, 2)), "data")
  expect_error(map_partition(dp_mixture(gaussian_nonconj()), rnorm(5)), "conjugate")
  expect_error(map_partition(finite_mixture(fam, 2), rnorm(5), init = 1:5), "K = 2")
})

test_that("restarts from a fixed start begin from different partitions", {
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
  set.seed(1)
  x <- c(stats::rnorm(6, -3), stats::rnorm(6, 3))
  z0 <- rep(1:2, 6)   # a poor partition
  model <- dp_mixture(fam, alpha = 1)
  # no sweeps: each run ends where it started
  still <- function(init, restarts)
    map_partition(model, x, schedule = numeric(0), max_icm = 0, restarts = restarts,
                  init = init)$runs
  set.seed(2)
  lp <- still(z0, 5)
  expect_identical(lp[1], still(z0, 1))            # run 1 from the start given
  expect_identical(lp[2], still("one", 1))         # run 2 from one cluster
  expect_gte(length(unique(lp)), 4L)               # the others from the prior
  expect_gte(length(unique(still("one", 5))), 4L)
  expect_gte(length(unique(still("singletons", 5))), 4L)
  # a function chooses every run's start
  expect_length(unique(still(function(r) z0, 3)), 1L)
})

test_that("map_partition() finds the exact MAP of Bernoulli-beta mixtures (brute force)", {
  Y <- rbind(c(1, 1, 0), c(1, 1, 1), c(1, 0, 0), c(1, 1, 0), c(0, 0, 1), c(0, 1, 1),
             c(0, 0, 1), c(0, 0, 0), c(1, 1, 1))
  a0 <- 0.5; b0 <- 0.5; K <- 3; alpha <- 1.5; N <- nrow(Y)
  rgs <- function(n) {
    out <- list(1L)
    for (i in 2:n) out <- unlist(lapply(out, function(z) lapply(seq_len(max(z) + 1L),
                                                                function(k) c(z, k))),
                                 recursive = FALSE)
    do.call(rbind, out)
  }
  P <- rgs(N)
  lml <- function(v) {
    s <- colSums(v); n <- nrow(v)
    sum(lbeta(a0 + s, b0 + n - s) - lbeta(a0, b0))
  }
  score <- function(z, fin) {
    j <- max(z); n <- tabulate(z)
    ll <- sum(vapply(seq_len(j), function(k) lml(Y[z == k, , drop = FALSE]), 0))
    if (fin) {
      if (j > K) return(-Inf)
      ll + lfactorial(K) - lfactorial(K - j) + lgamma(alpha) - lgamma(alpha + N) +
        sum(lgamma(alpha / K + n) - lgamma(alpha / K))
    } else ll + j * log(alpha) + sum(lgamma(n)) + lgamma(alpha) - lgamma(alpha + N)
  }
  for (fin in c(TRUE, FALSE)) {
    lp <- apply(P, 1L, score, fin = fin)
    best <- P[which.max(lp), ]
    expect_gt(max(lp) - sort(lp, decreasing = TRUE)[2L], 1e-3)
    model <- if (fin) finite_mixture(bernoulli_beta(a0, b0), K = K, alpha = alpha) else
      dp_mixture(bernoulli_beta(a0, b0), alpha = alpha)
    inits <- list("prior", "one", "singletons", rep(1:3, 3))
    for (s in seq_along(inits)) {
      set.seed(s)
      mp <- map_partition(model, Y, restarts = 1, init = inits[[s]])
      expect_identical(as.integer(mp$labels), as.integer(best))
      expect_equal(mp$log_post, max(lp), tolerance = 1e-8)
    }
  }
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(mp), mp)
})
