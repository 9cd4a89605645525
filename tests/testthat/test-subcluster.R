# The sub-cluster split-merge sampler (algorithm = "subcluster",
# src/mixture_subcluster*.c) against the exact posterior over the partitions
# of tiny data sets (enumeration, helper-mixture.R / helper-dp-algorithms.R), and
# against collapsed Gibbs on the galaxy data.

xs <- c(-1.2, -0.9, 0.1, 1.4, 1.6)                       # N = 5
niw_s <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
P5s <- mx_partitions(5)
ll5s <- mx_log_lik_partitions(P5s, xs, function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1)))

# seven points: the local order of the sequential moves allocates the 4
# (or 16, ...) members nearest to the launch point of side B after putting
# the others on side A, which needs more than 4 other members
x7 <- c(-2.1, -1.7, -1.5, -1.2, 0.9, 1.3, 3.4)
P7 <- mx_partitions(7)
ll7 <- mx_log_lik_partitions(P7, x7, function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1)))

test_that("subcluster matches the exact DP and Pitman-Yor posteriors", {
  skip_on_cran()
  p <- mx_posterior(P5s, ll5s, apply(P5s, 1L, mx_lprior_dp, alpha = 0.8))
  r <- mx_check(dp_mixture(niw_s, alpha = 0.8), xs, p, iter = exact_iter(30000),
                algorithm = "subcluster", seed = 21)
  expect_lt(r$tv, r$bound)
  # split / merge proposals are made and some accepted
  acc <- acceptance(r$fit)
  expect_gt(acc[1, 1], 0.05)
  p <- mx_posterior(P5s, ll5s, apply(P5s, 1L, mx_lprior_py, alpha = 0.5, d = 0.35))
  r <- mx_check(dp_mixture(niw_s, alpha = 0.5, discount = 0.35), xs, p, iter = exact_iter(30000),
                algorithm = "subcluster", seed = 22)
  expect_lt(r$tv, r$bound)
})

test_that("subcluster matches the exact posterior at N = 7 (local order with a fixed part)", {
  skip_on_cran()
  p <- mx_posterior(P7, ll7, apply(P7, 1L, mx_lprior_dp, alpha = 0.7))
  r <- mx_check(dp_mixture(niw_s, alpha = 0.7), x7, p, iter = exact_iter(45000),
                algorithm = "subcluster", seed = 25, control = dp_control(sc_moves = 8))
  expect_lt(r$tv, r$bound)
})

test_that("subcluster matches the exact posterior with missing cells (product family, N = 7)", {
  skip_on_cran()
  # a missing cell is left out of its part's marginal likelihood; the
  # moves' orders measure distances without it (a NaN distance compared
  # false both ways, and the local order lost and duplicated members)
  xd <- data.frame(a = c(-2.1, NA, -1.5, -1.2, 0.9, 1.3, 3.4),
                   b = c(0.4, 0.1, NA, 0.2, -0.6, NA, -1.1))
  lml1 <- function(x) {          # gaussian_diag(0, 0.5, 2, 1), observed values only
    x <- x[!is.na(x)]
    n <- length(x)
    if (!n) return(0)
    kn <- 0.5 + n; an <- 2 + n / 2
    bn <- 1 + sum((x - mean(x))^2) / 2 + 0.5 * n * mean(x)^2 / (2 * kn)
    lgamma(an) - lgamma(2) - an * log(bn) + 0.5 * log(0.5 / kn) - n / 2 * log(2 * pi)
  }
  p <- mx_exact_dp(as.matrix(xd), function(X) lml1(X[, 1]) + lml1(X[, 2]), 0.7)
  part <- gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1)
  r <- mx_check(dp_mixture(product_family(a = part, b = part), alpha = 0.7), xd, p,
                iter = exact_iter(45000), algorithm = "subcluster", seed = 26,
                control = dp_control(sc_moves = 8))
  expect_lt(r$tv, r$bound)
})

test_that("subcluster runs on data frames with missing cells and finds the groups", {
  # 10% missing cells in every column: a cluster holding one missing cell
  # was never split (NaN proposals), and the local order corrupted the state
  set.seed(2)
  g <- rep(1:3, each = 100)
  df <- data.frame(num = rnorm(300, c(-3, 0, 3)[g]), col = factor(c("a", "b", "c")[g]),
                   cnt = rpois(300, c(1, 5, 10)[g]))
  for (j in 1:3) df[[j]][sample(300, 30)] <- NA
  fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE)), df, iter = 300,
                          algorithm = "subcluster", progress = FALSE)
  tab <- table(partition(fit)$labels, g)
  expect_identical(nrow(tab), 3L)
  expect_true(all(apply(tab, 2, max) >= 90))
})

# |mean K - E K| below 4 Monte Carlo standard errors (ESS-based), E K over
# the enumerated partitions P with posterior p.
expect_mean_k <- function(fit, P, p) {
  K <- apply(partition_draws(fit), 1L, function(z) length(unique(z)))
  EK <- sum(p * apply(P, 1L, function(z) length(unique(z))))
  expect_lt(abs(mean(K) - EK), 4 * sd(K) / sqrt(ess(K)))
}

test_that("subcluster matches the exact posterior with its splits thinned by cluster size", {
  skip_on_cran()
  # at large N a split of a cluster of n > t members (t = 32768) is made
  # with probability t / n (the 2-means split only when its sub-clusters
  # say one cluster), the factor compensated in the ratios, and the
  # sequentially allocated moves on such unions draw their allocation
  # order with other probabilities; with t = 2 every union of 3 or more
  # of these seven points is thinned.
  # Versions with a wrong compensation gave mean K 13 (sequential moves, no
  # compensation), 4.02 (merges thinned by sqrt(t / n), ratios as if by
  # t / n) and 22 (2-means moves alone, on the second data set)
  # standard errors off, with TV distances within their loose bounds
  p <- mx_posterior(P7, ll7, apply(P7, 1L, mx_lprior_dp, alpha = 0.7))
  ctl <- dp_control(sc_moves = 8)
  ctl$sc_thin <- 2
  r <- mx_check(dp_mixture(niw_s, alpha = 0.7), x7, p, iter = exact_iter(45000),
                algorithm = "subcluster", seed = 26, control = ctl)
  expect_lt(r$tv, r$bound)
  expect_mean_k(r$fit, P7, p)
  # the 2-means moves alone (no sequentially allocated ones), on points
  # spread evenly, whose sub-clusters mostly say one cluster
  xe <- c(-1.3, -0.9, -0.5, -0.2, 0.3, 0.8, 1.2)
  lle <- mx_log_lik_partitions(P7, xe, function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1)))
  p <- mx_posterior(P7, lle, apply(P7, 1L, mx_lprior_dp, alpha = 0.7))
  ctl$sc_sams <- FALSE
  r <- mx_check(dp_mixture(niw_s, alpha = 0.7), xe, p, iter = exact_iter(45000),
                algorithm = "subcluster", seed = 27, control = ctl)
  expect_lt(r$tv, r$bound)
  expect_mean_k(r$fit, P7, p)
})

test_that("subcluster matches the exact posterior with a Gamma prior on alpha", {
  skip_on_cran()
  lpz <- vapply(seq_len(nrow(P5s)), function(r) log(stats::integrate(function(a)
    vapply(a, function(al) exp(mx_lprior_dp(P5s[r, ], al)), 1) * stats::dgamma(a, 2, 2),
    0, Inf, rel.tol = 1e-10)$value), 1)
  p <- mx_posterior(P5s, ll5s, lpz)
  r <- mx_check(dp_mixture(niw_s, alpha = gamma_prior(2, 2)), xs, p, iter = exact_iter(30000),
                algorithm = "subcluster", seed = 23)
  expect_lt(r$tv, r$bound)
})

test_that("subcluster matches the exact posterior with a random discount", {
  skip_on_cran()
  ex <- py_posterior_random_discount(P5s, ll5s, 0.6, 2, 3)
  r <- mx_check(dp_mixture(niw_s, alpha = 0.6, discount = beta_prior(2, 3)), xs, ex$p,
                iter = exact_iter(30000), algorithm = "subcluster", seed = 24)
  expect_lt(r$tv, r$bound)
})

test_that("subcluster matches the exact posterior for discrete and 2-D families", {
  skip_on_cran()
  x2 <- cbind(c(-1, -0.8, 0.9, 1.2), c(0.5, 0.2, -0.4, -0.9))
  xb <- cbind(c(1, 1, 0, 0, 1), c(1, 0, 0, 1, 1))
  xp <- c(0, 1, 1, 4, 6, 7)
  xc <- c(1, 1, 2, 3, 3)
  cases <- list(
    list(fam = gaussian_niw(prior_mean = c(0, 0), kappa = 0.5, df = 4,
                            scale = matrix(c(1, 0.2, 0.2, 1), 2)), x = x2, alpha = 0.5,
         lml = function(X) mx_lml_niw(X, c(0, 0), 0.5, 4, matrix(c(1, 0.2, 0.2, 1), 2))),
    list(fam = poisson_gamma(2, 0.5), x = xp, alpha = 2,
         lml = function(X) mx_lml_poisson(X, 2, 0.5)),
    list(fam = bernoulli_beta(0.5, 0.5), x = xb, alpha = 1,
         lml = function(X) mx_lml_bernoulli(X, 0.5, 0.5)),
    # Dirichlet-multinomial, 3 categories, symmetric Dirichlet(0.7)
    list(fam = categorical_dirichlet(0.7), x = xc, alpha = 1,
         lml = function(X) {
           n <- tabulate(X, 3)
           lgamma(2.1) - lgamma(2.1 + sum(n)) + sum(lgamma(0.7 + n) - lgamma(0.7))
         }),
    list(fam = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1), x = x2,
         alpha = 1, lml = function(X) sum(vapply(1:2, function(j) {
           x <- X[, j]; n <- length(x); kn <- 0.5 + n; an <- 2 + n / 2
           bn <- 1 + sum((x - mean(x))^2) / 2 + 0.5 * n * mean(x)^2 / (2 * kn)
           lgamma(an) - lgamma(2) - an * log(bn) + 0.5 * log(0.5 / kn) - n / 2 * log(2 * pi)
         }, 1))))
  for (i in seq_along(cases)) {
    cs <- cases[[i]]
    p <- mx_exact_dp(cs$x, cs$lml, cs$alpha)
    r <- mx_check(dp_mixture(cs$fam, alpha = cs$alpha), cs$x, p, iter = exact_iter(20000),
                  algorithm = "subcluster", seed = 30 + i)
    expect_lt(r$tv, r$bound, label = paste("TV of case", i))
  }
})

test_that("subcluster agrees with collapsed Gibbs on the galaxy posterior of K", {
  skip_on_cran()
  x <- MASS::galaxies / 1000
  model <- dp_mixture(gaussian_niw(), alpha = 1)
  post <- lapply(c("collapsed", "subcluster"), function(alg) {
    set.seed(40)
    fit <- sample_posterior(model, x, iter = exact_iter(20000), burnin = 1000, algorithm = alg,
                            init = "one", labels = FALSE, progress = FALSE)
    k <- fit$chains[[1]]$traces[, "n_clusters"]
    c(mean = mean(k), se = stats::sd(k) / sqrt(ess(k)))
  })
  d <- post[[1]][["mean"]] - post[[2]][["mean"]]
  expect_lt(abs(d), 4 * sqrt(post[[1]][["se"]]^2 + post[[2]][["se"]]^2))
  expect_gt(post[[2]][["mean"]], 3)        # not stuck in the single start cluster
})

test_that("subcluster finds well-separated clusters from one cluster", {
  set.seed(50)
  mu <- rbind(c(-6, -6), c(-6, 6), c(6, -6), c(6, 6), c(0, 0))
  z <- rep(1:5, each = 400)
  x <- mu[z, ] + matrix(rnorm(4000), 2000)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 10, burnin = 20,
                          algorithm = "subcluster", init = "one", progress = FALSE)
  lab <- partition_draws(fit)
  # each true cluster is one estimated cluster; extra clusters (the posterior
  # has some mass on a few points of a tail forming their own cluster, also
  # under collapsed Gibbs; in about 1% of the sweeps one of 20-30 points)
  # hold at most a few dozen points
  tab <- table(lab[10, ], z)
  big <- rowSums(tab) >= 40
  expect_equal(sum(big), 5L)
  expect_true(all(rowSums(tab[big, , drop = FALSE] > 0) == 1))
  expect_true(all(colSums(tab[big, , drop = FALSE] > 0) == 1))
  expect_lt(sum(tab[!big, ]), 40)
})

test_that("clusters reduced to one point dissolve (singleton merge moves)", {
  # started with two extra clusters of one point each inside the two true
  # clusters, the sampler agrees with collapsed Gibbs on the posterior of K
  # (the restricted Gibbs pass alone never empties a cluster, and the
  # sub-cluster split of a union almost never proposes a single point as
  # one side, so without the singleton moves K stayed >= 4)
  set.seed(51)
  x <- c(rnorm(300, -4), rnorm(300, 4))
  init <- c(rep(1L, 300), rep(2L, 300))
  init[c(10, 400)] <- 3:4
  model <- dp_mixture(gaussian_niw(), alpha = 0.5)
  post <- lapply(c("collapsed", "subcluster"), function(alg) {
    set.seed(52)
    fit <- sample_posterior(model, x, iter = 3000, burnin = 200, algorithm = alg, init = init,
                            labels = FALSE, progress = FALSE)
    k <- fit$chains[[1]]$traces[, "n_clusters"]
    c(mean = mean(k), se = stats::sd(k) / sqrt(ess(k)))
  })
  d <- post[[1]][["mean"]] - post[[2]][["mean"]]
  expect_lt(abs(d), 4 * sqrt(post[[1]][["se"]]^2 + post[[2]][["se"]]^2))
  expect_lt(post[[2]][["mean"]], 3)
})

test_that("the default algorithm is subcluster for large data, split_merge below", {
  model <- dp_mixture(gaussian_niw())
  expect_identical(mcmix:::dp_default_algorithm(NULL, TRUE, model, matrix(0, 50, 2)),
                   "split_merge")
  expect_identical(sample_posterior(model, c(-1, 0, 1), iter = 2, progress = FALSE)$algorithm,
                   "split_merge")
  expect_identical(dp_control()$proposal, "sams")
  expect_identical(mcmix:::dp_default_algorithm(NULL, TRUE, model, matrix(0, 20000, 2)),
                   "subcluster")
  expect_identical(mcmix:::dp_default_algorithm("neal8", FALSE, model, matrix(0, 20000, 2)),
                   "neal8")
  expect_identical(mcmix:::dp_default_algorithm(NULL, TRUE, dp_mixture(gaussian_nonconj()),
                                                matrix(0, 20000, 2)), "collapsed")
  expect_error(sample_posterior(model, c(1, 2, 3), algorithm = "subcluster",
                                control = dp_control(sc_moves = -1)), "`sc_moves`")
  expect_error(dp_control(sc_moves = 2000), "`sc_moves`")
})
