# The further DP samplers: exact continuation (extend() equals one longer
# run), predictive densities against closed forms, and refusal of bad input.

dp_algorithms_data <- function() {
  set.seed(10)
  c(rnorm(12, -3), rnorm(12, 3))
}

test_that("extend() equals one longer run for every new algorithm", {
  x <- dp_algorithms_data()
  fam_r <- r_family(log_lik = function(x, theta) stats::dnorm(x, theta, 1, log = TRUE),
                    log_prior = function(theta) stats::dnorm(theta, 0, 3, log = TRUE),
                    prior_draw = function() stats::rnorm(1, 0, 3), dim_param = 1)
  cases <- list(
    list(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)), "neal8", 200),
    list(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)), "slice", 200),
    list(dp_mixture(gaussian_niw(), alpha = 1, discount = 0.3), "slice", 200),
    list(dp_mixture(gaussian_niw(), alpha = 1, discount = 0.2), "split_merge", 200),
    list(dp_mixture(gaussian_niw(), alpha = 1, discount = beta_prior(1, 2)), "collapsed", 200),
    list(dp_mixture(gaussian_niw(), alpha = 1, discount = beta_prior(1, 2)), "neal8", 200),
    list(dp_mixture(gaussian_nonconj(), alpha = 1), "neal8", 200),
    list(dp_mixture(fam_r, alpha = 1), "neal8", 10))
  for (cs in cases) {
    run <- function(iter) {
      set.seed(42)
      sample_posterior(cs[[1]], x, iter = iter, burnin = 20, thin = 2, chains = 2,
                       algorithm = cs[[2]], progress = FALSE)
    }
    it <- cs[[3]]
    a <- run(it)
    long <- run(2 * it)
    ext <- extend(a, it, progress = FALSE)
    for (ch in 1:2) {
      expect_identical(ext$chains[[ch]]$traces, long$chains[[ch]]$traces,
                       label = paste(cs[[2]], "traces"))
      expect_identical(ext$chains[[ch]]$labels, long$chains[[ch]]$labels)
      expect_identical(ext$chains[[ch]]$state, long$chains[[ch]]$state)
    }
  }
})

test_that("the state holds the split-merge counters and the neal8 parameters", {
  x <- dp_algorithms_data()
  set.seed(1)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 50, algorithm = "split_merge",
                          progress = FALSE)
  st <- fit$chains[[1]]$state
  expect_gt(st$n_prop, 0)
  expect_lte(st$n_accept, st$n_prop)
  fit <- sample_posterior(dp_mixture(gaussian_nonconj()), x, iter = 50, algorithm = "neal8",
                          progress = FALSE)
  st <- fit$chains[[1]]$state
  expect_equal(dim(st$params), c(2L, length(unique(st$labels))))
  expect_true(all(st$params[2, ] > 0))       # variances
})

test_that("predict(type = 'density') integrates to 1 and matches the one-cluster formula", {
  x <- c(-0.4, 0.3, 0.9, 1.2, 0.1)
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
  set.seed(2)
  fit <- sample_posterior(dp_mixture(fam, alpha = 1), x, iter = 40, progress = FALSE)
  f <- function(g) predict(fit, g)$density
  expect_equal(stats::integrate(f, -Inf, Inf, rel.tol = 1e-8)$value, 1, tolerance = 1e-6)
  # alpha tiny and one initial cluster: K = 1 in every draw, the predictive
  # is N/(alpha+N) p(x* | x) + alpha/(alpha+N) p(x*) (closed-form NIW marginals)
  alpha <- 1e-6
  set.seed(3)
  fit1 <- sample_posterior(dp_mixture(fam, alpha = alpha), x, iter = 30, init = "one",
                           progress = FALSE)
  expect_true(all(fit1$chains[[1]]$traces[, "n_clusters"] == 1))
  g <- c(-2, 0, 0.5, 3)
  lml <- function(X) mx_lml_niw(matrix(X, ncol = 1), 0, 0.5, 3, matrix(1))
  N <- length(x)
  exact <- vapply(g, function(v) N / (alpha + N) * exp(lml(c(x, v)) - lml(x)) +
                    alpha / (alpha + N) * exp(lml(v)), numeric(1))
  p <- predict(fit1, g, level = 0.9)
  expect_equal(p$density, exact, tolerance = 1e-10)
  expect_equal(p$lower, exact, tolerance = 1e-10)
  expect_equal(dim(attr(p, "draws")), c(30L, 4L))
  # Pitman-Yor with a random discount, a finite mixture: still densities
  set.seed(4)
  fit2 <- sample_posterior(dp_mixture(fam, alpha = 1, discount = beta_prior(1, 1)), x,
                           iter = 20, algorithm = "neal8", progress = FALSE)
  expect_equal(stats::integrate(function(g) predict(fit2, g)$density, -Inf, Inf,
                                rel.tol = 1e-8)$value, 1, tolerance = 1e-6)
  fit3 <- sample_posterior(finite_mixture(fam, K = 3), x, iter = 20, progress = FALSE)
  expect_equal(stats::integrate(function(g) predict(fit3, g)$density, -Inf, Inf,
                                rel.tol = 1e-8)$value, 1, tolerance = 1e-6)
})

test_that("predict(type = 'membership') gives the membership probabilities", {
  x <- c(-5.2, -5, -4.8, 4.9, 5, 5.3)
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.05, df = 3, scale = 0.1)
  set.seed(5)
  fit <- sample_posterior(dp_mixture(fam, alpha = 1), x, iter = 200, progress = FALSE)
  m <- predict(fit, c(-5, 5, 40), type = "membership")
  est <- attr(m, "partition")$labels
  left <- est[1]
  expect_equal(dim(m), c(3L, 3L))
  expect_gt(m[1, left], 0.8)
  expect_lt(m[1, 3 - left], 0.01)
  expect_gt(m[2, 3 - left], 0.8)
  expect_gt(m[3, "new"], 0.95)                # far away: a new cluster
  expect_true(all(m >= 0))
  expect_equal(unname(rowSums(m)), rep(1, 3), tolerance = 1e-12)
})

test_that("bad input is refused with a clear message", {
  expect_error(dp_mixture(gaussian_niw(), discount = 1), "`discount`")
  expect_error(dp_mixture(gaussian_niw(), discount = -0.1), "`discount`")
  expect_error(dp_mixture(gaussian_niw(), discount = "a"), "`discount`")
  expect_error(dp_mixture(gaussian_niw(), alpha = -0.5, discount = 0.3), "`alpha`")
  expect_error(dp_mixture(gaussian_niw(), alpha = -0.5), "`alpha`")
  expect_error(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1), discount = 0.2),
               "gamma_prior")
  expect_error(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1),
                          discount = beta_prior(1, 1)), "`alpha`")
  expect_error(dp_mixture(gaussian_niw(), alpha = -0.5, discount = beta_prior(1, 1)), "`alpha`")
  expect_error(beta_prior(0, 1), "`a`")
  expect_error(beta_prior(1, NA), "`b`")
  expect_error(dp_control(m = 0), "`m`")
  expect_error(dp_control(xi = "linear"), "`xi`")
  expect_error(dp_control(kappa = 1), "`kappa`")
  expect_error(dp_control(t = -1), "`t`")
  expect_error(dp_control(moves = 1.5), "`moves`")
  expect_error(dp_control(proposal = "gibbs"), "`proposal` must be one of")
  expect_error(dp_control(proposal = NA), "`proposal`")
  x <- dp_algorithms_data()
  expect_error(sample_posterior(dp_mixture(gaussian_niw()), x, algorithm = "neal9"),
               "`algorithm`")
  expect_error(sample_posterior(dp_mixture(gaussian_niw()), x, control = list(m = 2)),
               "`control`")
  expect_error(sample_posterior(dp_mixture(gaussian_niw(), discount = beta_prior(1, 1)), x,
                                algorithm = "slice", progress = FALSE), "slice")
  expect_error(sample_posterior(dp_mixture(gaussian_nonconj()), x, progress = FALSE),
               "neal8")
  expect_error(sample_posterior(finite_mixture(gaussian_nonconj(), K = 2), x,
                                progress = FALSE), "neal8")
  expect_error(gaussian_nonconj(prior_var = 0), "`prior_var`")
  expect_error(gaussian_nonconj(shape = -1), "`shape`")
  expect_error(gaussian_nonconj(prior_mean = NA), "`prior_mean`")
  expect_error(sample_posterior(dp_mixture(gaussian_nonconj()), cbind(x, x),
                                algorithm = "neal8", progress = FALSE), "one column")
  ll <- function(x, theta) stats::dnorm(x, theta, log = TRUE)
  lp <- function(theta) stats::dnorm(theta, log = TRUE)
  pd <- function() stats::rnorm(1)
  expect_error(r_family(1, lp, pd, 1), "`log_lik`")
  expect_error(r_family(function(x) 0, lp, pd, 1), "`log_lik`")
  expect_error(r_family(ll, NULL, pd, 1), "`log_prior`")
  expect_error(r_family(ll, lp, "a", 1), "`prior_draw`")
  expect_error(r_family(ll, lp, pd, 0), "`dim_param`")
  expect_error(r_family(ll, lp, pd, 1, update = "gibbs"), "`update`")
  expect_error(r_family(ll, lp, pd, 1, width = 0), "`width`")
  expect_error(r_family(ll, lp, pd, 1, n_update = 0), "`n_update`")
  # user functions returning bad values
  bad <- r_family(function(x, theta) "a", lp, pd, 1)
  expect_error(sample_posterior(dp_mixture(bad), x[1:4], iter = 2, algorithm = "neal8",
                                progress = FALSE), "log_lik")
  bad <- r_family(ll, lp, function() c(1, 2), 1)
  expect_error(sample_posterior(dp_mixture(bad), x[1:4], iter = 2, algorithm = "neal8",
                                progress = FALSE), "prior_draw")
  bad <- r_family(function(x, theta) NaN, lp, pd, 1)
  expect_error(sample_posterior(dp_mixture(bad), x[1:4], iter = 2, algorithm = "neal8",
                                progress = FALSE), "log_lik")
  # predict
  set.seed(1)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 10, progress = FALSE)
  expect_error(predict(fit, 0, type = "mean"), "`type`")
  expect_error(predict(fit, 0, level = 1), "`level`")
  expect_error(predict(fit), "`newdata`")
  expect_error(predict(fit, cbind(0, 1)), "column")
  expect_error(predict(fit, NA_real_), "data")
  nofit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 10, labels = FALSE,
                            progress = FALSE)
  expect_error(predict(nofit, 0), "labels")
  nc <- sample_posterior(dp_mixture(gaussian_nonconj()), x, iter = 10, algorithm = "neal8",
                         progress = FALSE)
  expect_error(predict(nc, 0), "conjugate")
  expect_error(mcmix:::.family_eval(gaussian_nonconj(), x, "log_marginal"), "conjugate")
})

test_that("a non-conjugate family built by mcmix_family() is recognised", {
  f <- mcmix_family("gaussian_nonconj", hyper = c(0, 4, 2, 1), dim = 1)
  x <- dp_algorithms_data()
  expect_error(sample_posterior(dp_mixture(f), x, progress = FALSE), "neal8")
  set.seed(1)
  fit <- sample_posterior(dp_mixture(f), x, iter = 20, algorithm = "neal8", progress = FALSE)
  expect_equal(nrow(fit$chains[[1]]$traces), 20L)
  expect_true("gaussian_nonconj" %in% mcmix_families())
})

test_that("a version-1 plugin descriptor (no param_update slot) still works", {
  .Call(mcmix:::C_ffi_dpx_register_abi1)
  expect_true("poisson_gamma_abi1" %in% mcmix_families())
  f <- mcmix_family("poisson_gamma_abi1", hyper = c(2, 0.5), dim = 1, data_type = "count")
  xp <- c(0, 1, 1, 4, 6, 7)
  # the same draws as the built-in family it copies, for every DP algorithm
  g <- poisson_gamma(shape = 2, rate = 0.5)
  for (alg in c("collapsed", "neal8", "slice", "split_merge")) {
    set.seed(3)
    a <- sample_posterior(dp_mixture(f), xp, iter = 30, algorithm = alg, progress = FALSE)
    set.seed(3)
    b <- sample_posterior(dp_mixture(g), xp, iter = 30, algorithm = alg, progress = FALSE)
    expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces, label = alg)
  }
})

test_that("ABI 1 and 2 descriptors (sizes in bytes) give the ABI 3 family's draws", {
  # ABI 3 counts every size slot in doubles; the older descriptors count
  # hyper_size and stats_size in bytes and are converted by the registry
  .Call(mcmix:::C_ffi_dpx_register_abi1)
  xp <- c(0, 1, 1, 4, 6, 7, 2)
  g <- poisson_gamma(shape = 2, rate = 0.5)
  info <- mcmix:::.family_eval(g, xp, "info")
  for (name in c("poisson_gamma_abi1", "poisson_gamma_abi2")) {
    f <- mcmix_family(name, hyper = c(2, 0.5), dim = 1, data_type = "count")
    expect_identical(mcmix:::.family_eval(f, xp, "info"), info, label = name)
    for (fm in list(dp_mixture(f), finite_mixture(f, K = 2))) {
      set.seed(4)
      a <- sample_posterior(fm, xp, iter = 20, chains = 2, progress = FALSE)
      set.seed(4)
      fg <- if (inherits(fm, "mcmix_dp_mixture")) dp_mixture(g) else finite_mixture(g, K = 2)
      b <- sample_posterior(fg, xp, iter = 20, chains = 2, progress = FALSE)
      expect_identical(lapply(a$chains, `[[`, "state"), lapply(b$chains, `[[`, "state"),
                       label = name)
    }
  }
  # the sizes are in doubles: a poisson_gamma cluster with D = 1 keeps
  # n, sum log x!, sum x and two cached numbers per dimension (3 + 2 D)
  expect_identical(info[["stats_size"]], 5)
})

test_that("predict(type = 'membership') matches the formula, takes `estimate`, rows sum to 1", {
  x <- c(0, 1, 0, 9, 11, 10, 2)
  a <- 2; b <- 0.5; alpha <- 0.7
  set.seed(11)
  fit <- sample_posterior(dp_mixture(poisson_gamma(shape = a, rate = b), alpha = alpha),
                          x, iter = 60, progress = FALSE)
  z <- partition_draws(fit)
  newx <- c(0, 5, 10)
  # Poisson-Gamma predictive: negative binomial (independent of the code)
  pred <- function(y, members) {
    stats::dnbinom(y, size = a + sum(members), prob = (b + length(members)) /
                     (b + length(members) + 1))
  }
  by_hand <- function(est) {
    C <- max(est)
    out <- matrix(0, length(newx), C + 1L)
    for (s in seq_len(nrow(z))) {
      zs <- z[s, ]
      ks <- unique(zs)
      for (j in seq_along(newx)) {
        w <- vapply(ks, function(k) sum(zs == k) * pred(newx[j], x[zs == k]), 0)
        q0 <- alpha * pred(newx[j], numeric())
        q <- w / (sum(w) + q0)
        for (c in seq_len(C)) {
          # the share of the draw's cluster k that is in estimated cluster c
          share <- vapply(ks, function(k) mean(est[zs == k] == c), 0)
          out[j, c] <- out[j, c] + sum(q * share) / nrow(z)
        }
        out[j, C + 1L] <- out[j, C + 1L] + q0 / (sum(w) + q0) / nrow(z)
      }
    }
    out
  }
  est <- c(1L, 1L, 1L, 2L, 2L, 2L, 1L)
  m <- predict(fit, newx, type = "membership", estimate = est)
  expect_equal(unname(m[, ]), by_hand(est), tolerance = 1e-10, ignore_attr = TRUE)
  expect_equal(attr(m, "partition")$labels, est)
  expect_equal(unname(rowSums(m)), rep(1, length(newx)), tolerance = 1e-12)
  # every observation its own estimated cluster: rows still sum to 1
  single <- seq_along(x)
  ms <- predict(fit, newx, type = "membership", estimate = single)
  expect_equal(unname(ms[, ]), by_hand(single), tolerance = 1e-10, ignore_attr = TRUE)
  expect_equal(unname(rowSums(ms)), rep(1, length(newx)), tolerance = 1e-12)
  # a partition() result is accepted as is; labels are relabelled 1..C
  p <- partition(fit)
  expect_equal(attr(predict(fit, newx, type = "membership", estimate = p), "partition")$labels,
               p$labels)
  expect_equal(unname(predict(fit, newx, type = "membership", estimate = c("b", "b", "b",
                                                                          "a", "a", "a", "b"))[, ]),
               by_hand(est), tolerance = 1e-10, ignore_attr = TRUE)
  expect_error(predict(fit, newx, type = "membership", estimate = 1:3), "`estimate`")
  expect_error(predict(fit, newx, type = "membership", labels = est), "`labels`")
})

test_that("DP samplers without accept/reject steps refuse acceptance(); settings print", {
  set.seed(2)
  x <- c(stats::rnorm(10, -3), stats::rnorm(10, 3))
  fs <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 20, algorithm = "slice",
                         progress = FALSE)
  expect_error(acceptance(fs), "no acceptance counters")
  fm <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 20, algorithm = "split_merge",
                         progress = FALSE)
  a <- acceptance(fm)
  expect_equal(dim(a), c(1L, 1L))
  expect_true(a[1, 1] >= 0 && a[1, 1] <= 1)
  out <- capture.output(print(fm))
  model_line <- grep("^Model:", out, value = TRUE)
  expect_match(model_line, "alpha: 1", fixed = TRUE)
  expect_false(grepl(":  ", sub("^Model: +", "", model_line)))
  expect_output(print(dp_control(m = 4, xi = "geometric", kappa = 0.3)),
                "m = 4.*kappa = 0.3.*SAMS.*moves = 1")
  expect_output(print(dp_control(proposal = "restricted_gibbs", t = 3)),
                "t = 3 restricted Gibbs scans")
  s <- capture.output(print(summary(fm)$n_clusters))
  expect_false(any(grepl("[0-9]\\.[0-9]{4}", s)))
})

# A fresh neal8 state draws its clusters' parameters inside the .Call's RNG
# bracket, from the chain's own stream: a future worker (whose generator
# state before the .Call differs from the sequential run's) gives the same
# draws, for a non-conjugate family too.
test_that("neal8 under future::multisession gives the sequential draws", {
  skip_on_cran()
  x <- c(-2.2, -1.9, -2.1, 1.8, 2.3, 2.0, 0.1)
  run <- function() {
    set.seed(22)
    f <- sample_posterior(dp_mixture(gaussian_nonconj()), x, iter = 30, burnin = 5,
                          chains = 2, algorithm = "neal8", progress = FALSE)
    lapply(f$chains, function(ch) list(ch$traces, ch$labels))
  }
  ref <- run()
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  expect_identical(run(), ref)
})
