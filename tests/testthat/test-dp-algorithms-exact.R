# The further DP samplers ("neal8", "slice", "split_merge"; the collapsed
# sampler with a random discount) against the exact posterior over the
# partitions of tiny data sets (enumeration, helper-mixture.R), with
# marginal likelihoods computed in R (closed forms, numerical integration).

xd <- c(-1.2, -0.9, 0.1, 1.4, 1.6)                       # N = 5
niw <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
lml_niw <- function(X) mx_lml_niw(X, 0, 0.5, 3, matrix(1))
P5 <- mx_partitions(5)
ll5 <- mx_log_lik_partitions(P5, xd, lml_niw)

test_that("every DP algorithm matches the exact posterior (conjugate family, DP)", {
  skip_on_cran()
  alpha <- 0.8
  p <- mx_posterior(P5, ll5, apply(P5, 1L, mx_lprior_dp, alpha = alpha))
  for (alg in c("neal8", "slice", "split_merge")) {
    r <- mx_check(dp_mixture(niw, alpha = alpha), xd, p, iter = exact_iter(30000), algorithm = alg,
                  seed = 3)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
  }
  # the geometric slice sequence and more auxiliary components
  set.seed(4)
  for (ctl in list(dp_control(xi = "geometric", kappa = 0.6), dp_control(m = 1))) {
    alg <- if (ctl$m == 1) "neal8" else "slice"
    fit <- sample_posterior(dp_mixture(niw, alpha = alpha), xd, iter = exact_iter(30000), burnin = 200,
                            thin = 3, algorithm = alg, control = ctl, progress = FALSE)
    z <- partition_draws(fit)
    expect_lt(mx_tv(mx_freq(z, p), p), mx_tv_bound(p, nrow(z)), label = paste("TV of", alg, ctl$xi))
  }
})

test_that("every DP algorithm matches the exact posterior (Pitman-Yor, fixed discount)", {
  skip_on_cran()
  alpha <- 0.5; d <- 0.35
  p <- mx_posterior(P5, ll5, apply(P5, 1L, mx_lprior_py, alpha = alpha, d = d))
  for (alg in c("collapsed", "neal8", "slice", "split_merge")) {
    r <- mx_check(dp_mixture(niw, alpha = alpha, discount = d), xd, p, iter = exact_iter(30000),
                  algorithm = alg, seed = 5)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
  }
  # negative concentration (alpha > -discount)
  p <- mx_posterior(P5, ll5, apply(P5, 1L, mx_lprior_py, alpha = -0.2, d = 0.5))
  r <- mx_check(dp_mixture(niw, alpha = -0.2, discount = 0.5), xd, p, iter = exact_iter(30000),
                algorithm = "split_merge", seed = 6)
  expect_lt(r$tv, r$bound)
})

test_that("a random alpha works with neal8, slice and split_merge", {
  skip_on_cran()
  # p(z | x) with alpha ~ Gamma(2, 2) integrated out numerically
  lpz <- vapply(seq_len(nrow(P5)), function(r) log(stats::integrate(function(a)
    vapply(a, function(al) exp(mx_lprior_dp(P5[r, ], al)), 1) * stats::dgamma(a, 2, 2),
    0, Inf, rel.tol = 1e-10)$value), 1)
  p <- mx_posterior(P5, ll5, lpz)
  for (alg in c("neal8", "slice", "split_merge")) {
    r <- mx_check(dp_mixture(niw, alpha = gamma_prior(2, 2)), xd, p, iter = exact_iter(30000),
                  algorithm = alg, seed = 7)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
  }
})

test_that("neal8 with the compiled non-conjugate family matches the exact posterior", {
  skip_on_cran()
  fam <- gaussian_nonconj(prior_mean = 0, prior_var = 2, shape = 3, rate = 2)
  ll <- mx_log_lik_partitions(P5, xd, function(X) lml_normal_nonconjugate(X, 0, 2, 3, 2))
  for (d in c(0, 0.3)) {
    p <- mx_posterior(P5, ll, apply(P5, 1L, mx_lprior_py, alpha = 1, d = d))
    r <- mx_check(dp_mixture(fam, alpha = 1, discount = d), xd, p, iter = exact_iter(30000),
                  algorithm = "neal8", seed = 8, thin = 4)
    expect_lt(r$tv, r$bound, label = paste("TV, discount", d))
  }
  # the log_lik trace is log p(x | z, theta): finite, below the maximum
  expect_true(all(is.finite(r$fit$chains[[1]]$traces[, "log_lik"])))
})

test_that("neal8 with an R-function family matches the exact posterior", {
  skip_on_cran()
  x4 <- c(-1.5, -1.1, 0.9, 1.6)
  P4 <- mx_partitions(4)
  ll <- mx_log_lik_partitions(P4, x4, function(X) lml_normal_known_var(X, 0.5, 0, 4))
  fam <- r_family(log_lik = function(x, theta) stats::dnorm(x, theta, sqrt(0.5), log = TRUE),
                  log_prior = function(theta) stats::dnorm(theta, 0, 2, log = TRUE),
                  prior_draw = function() stats::rnorm(1, 0, 2), dim_param = 1, width = 2)
  for (d in c(0, 0.4)) {
    p <- mx_posterior(P4, ll, apply(P4, 1L, mx_lprior_py, alpha = 1, d = d))
    r <- mx_check(dp_mixture(fam, alpha = 1, discount = d), x4, p, iter = 2500,
                  algorithm = "neal8", seed = 9, thin = 1)
    expect_lt(r$tv, r$bound, label = paste("TV, discount", d))
  }
  # the Metropolis update
  fam_mh <- r_family(log_lik = function(x, theta) stats::dnorm(x, theta, sqrt(0.5), log = TRUE),
                     log_prior = function(theta) stats::dnorm(theta, 0, 2, log = TRUE),
                     prior_draw = function() stats::rnorm(1, 0, 2), dim_param = 1,
                     update = "mh", width = 1, n_update = 3)
  p <- mx_posterior(P4, ll, apply(P4, 1L, mx_lprior_dp, alpha = 1))
  r <- mx_check(dp_mixture(fam_mh, alpha = 1), x4, p, iter = 2500, algorithm = "neal8",
                seed = 10, thin = 1)
  expect_lt(r$tv, r$bound)
})

test_that("a random discount: exact posterior over partitions and of the discount", {
  skip_on_cran()
  alpha <- 0.6
  ex <- py_posterior_random_discount(P5, ll5, alpha, 2, 3)
  for (alg in c("collapsed", "neal8", "split_merge")) {
    r <- mx_check(dp_mixture(niw, alpha = alpha, discount = beta_prior(2, 3)), xd, ex$p,
                  iter = exact_iter(30000), algorithm = alg, seed = 11)
    expect_lt(r$tv, r$bound, label = paste("TV of", alg))
    dd <- r$fit$chains[[1]]$traces[, "discount"]
    se <- stats::sd(dd) / sqrt(ess(dd))
    expect_lt(abs(mean(dd) - ex$mean_d), 5 * se, label = paste("E[d | x] by", alg))
  }
})

test_that("the slice sampler's stick labels follow their exact posterior", {
  skip_on_cran()
  # the state of the slice sampler is the stick of each observation, with
  # p(z | x) prop. to p(x | partition) prod_j B(1 + n_j, alpha + m_j) / B(1, alpha),
  # m_j = sum_{l > j} n_l (the sticks integrated out)
  x3 <- c(-1, 0.2, 1.5)
  alpha <- 0.8
  lp_st <- function(z) {
    J <- max(z) + 1; n <- tabulate(z + 1, J); m <- rev(cumsum(rev(n))) - n
    sum(lbeta(1 + n, alpha + m) - lbeta(1, alpha))
  }
  grid <- as.matrix(expand.grid(0:9, 0:9, 0:9))
  lp <- apply(grid, 1L, function(z)
    lp_st(z) + sum(vapply(split(x3, z), function(v) lml_niw(matrix(v)), 1)))
  p <- exp(lp - max(lp))
  p <- p / sum(p)
  names(p) <- apply(grid, 1L, paste, collapse = ",")
  prep <- mcmix:::family_prepare(niw, x3)
  k <- mcmix:::dp_kernel(dp_mixture(niw, alpha = alpha), prep, "slice", "prior", dp_control())
  k <- mcmix:::fit_kernel(list(kernel = k, data = prep$x))   # bound to the data
  set.seed(12)
  st <- k$step(k$init(1), 100, 1, 0, TRUE)$state
  S <- 15000
  labs <- character(S)
  for (s in seq_len(S)) {
    st <- k$step(st, 1, 1, 100 + s - 1, TRUE)$state
    labs[s] <- paste(st$labels, collapse = ",")
  }
  f <- as.vector(table(factor(labs, levels = names(p)))) / S
  # mass beyond stick 9 (about 1e-3) is left out of the grid: it counts in the TV
  expect_lt(mx_tv(f, p) + 0.5 * mean(!labs %in% names(p)), mx_tv_bound(p, S, mult = 4))
})

test_that("split_merge with either proposal matches the exact posterior", {
  skip_on_cran()
  # several proposals per collapsed Gibbs scan, so that an error in the
  # split-merge move itself would show; besides the TV distance, E[K | x]
  # within 4 Monte Carlo standard errors (more sensitive: a SAMS merge
  # ratio without its proposal probability moves it by about 8 of them)
  K5 <- apply(P5, 1L, function(z) length(unique(z)))
  # alpha ~ Gamma(2, 2), integrated out numerically
  lpz <- vapply(seq_len(nrow(P5)), function(r) log(stats::integrate(function(a)
    vapply(a, function(al) exp(mx_lprior_dp(P5[r, ], al)), 1) * stats::dgamma(a, 2, 2),
    0, Inf, rel.tol = 1e-10)$value), 1)
  ex <- py_posterior_random_discount(P5, ll5, 0.6, 2, 3)   # a Beta(2, 3) discount
  cases <- list(
    list(model = dp_mixture(niw, alpha = 0.8),
         p = mx_posterior(P5, ll5, apply(P5, 1L, mx_lprior_dp, alpha = 0.8))),
    list(model = dp_mixture(niw, alpha = 0.5, discount = 0.35),
         p = mx_posterior(P5, ll5, apply(P5, 1L, mx_lprior_py, alpha = 0.5, d = 0.35))),
    list(model = dp_mixture(niw, alpha = -0.2, discount = 0.5),
         p = mx_posterior(P5, ll5, apply(P5, 1L, mx_lprior_py, alpha = -0.2, d = 0.5))),
    list(model = dp_mixture(niw, alpha = gamma_prior(2, 2)), p = mx_posterior(P5, ll5, lpz)),
    list(model = dp_mixture(niw, alpha = 0.6, discount = beta_prior(2, 3)), p = ex$p))
  for (prop in c("sams", "restricted_gibbs")) {
    ctl <- dp_control(proposal = prop, moves = 4, t = 2)
    for (i in seq_along(cases)) {
      what <- paste(prop, "case", i)
      r <- mx_check(cases[[i]]$model, xd, cases[[i]]$p, iter = exact_iter(30000),
                    algorithm = "split_merge", seed = 20 + i, control = ctl)
      expect_lt(r$tv, r$bound, label = paste("TV of", what))
      k <- r$fit$chains[[1]]$traces[, "n_clusters"]
      expect_lt(abs(mean(k) - sum(cases[[i]]$p * K5)), 4 * stats::sd(k) / sqrt(ess(k)),
                label = paste("E[K | x] error of", what))
      expect_gt(acceptance(r$fit)[1], 0.05)   # the moves are taken
    }
    dd <- r$fit$chains[[1]]$traces[, "discount"]   # the last case: E[d | x]
    expect_lt(abs(mean(dd) - ex$mean_d), 5 * stats::sd(dd) / sqrt(ess(dd)))
  }
})

test_that("split_merge (SAMS) agrees with collapsed Gibbs on the galaxy posterior of K", {
  skip_on_cran()
  # the prior of bench/bench-scale.R; SAMS mixes K several times better per draw
  x <- MASS::galaxies / 1000
  model <- dp_mixture(gaussian_niw(prior_mean = mean(x), kappa = 0.01, df = 3,
                                   scale = stats::var(x) / 4), alpha = 1)
  post <- lapply(c("collapsed", "split_merge"), function(alg) {
    set.seed(41)
    fit <- sample_posterior(model, x, iter = exact_iter(20000), burnin = 1000, algorithm = alg,
                            init = "one", labels = FALSE, progress = FALSE,
                            control = dp_control(proposal = "sams"))
    k <- fit$chains[[1]]$traces[, "n_clusters"]
    c(mean = mean(k), se = stats::sd(k) / sqrt(ess(k)), ess = ess(k))
  })
  d <- post[[1]][["mean"]] - post[[2]][["mean"]]
  expect_lt(abs(d), 4 * sqrt(post[[1]][["se"]]^2 + post[[2]][["se"]]^2))
  expect_gt(post[[2]][["ess"]], 2 * post[[1]][["ess"]])
})
