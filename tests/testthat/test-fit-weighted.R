# Results of sample_smc(), ais() and sample_abc(): summaries, plots and
# weighted draws for posterior; the input mistakes of issue "fits for
# daily use"; densities that respect the support of a parameter.

test_that("SMC, AIS and ABC results give weighted summaries, plots and draws", {
  set.seed(41)
  y <- rnorm(20, 1)
  ll <- function(th) sum(dnorm(y, th, 1, log = TRUE))
  lp <- function(th) dnorm(th, 0, 2, log = TRUE)
  smc <- sample_smc(ll, lp, function(n) rnorm(n, 0, 2), n_particles = 500)
  # conjugate normal posterior
  post_var <- 1 / (20 + 1 / 4)
  post_mean <- post_var * sum(y)
  d <- posterior::as_draws_df(smc)
  expect_equal(posterior::ndraws(d), 500L)
  w <- exp(d$.log_weight)
  expect_equal(w / sum(w), smc$weights / sum(smc$weights))
  expect_equal(sum(w * d$theta) / sum(w), summary(smc)$stats[1, "mean"])
  expect_lt(abs(summary(smc)$stats[1, "mean"] - post_mean), 4 * sqrt(post_var / 100))
  expect_true(posterior::is_draws(posterior::as_draws(smc)))
  # summarise_draws() honours the weights (deterministic resampling)
  sw <- posterior::summarise_draws(smc)
  expect_lt(abs(as.numeric(sw$mean) - summary(smc)$stats[1, "mean"]),
            summary(smc)$stats[1, "sd"] * 5 / 500)
  expect_identical(posterior::summarise_draws(smc), sw)
  expect_equal(posterior::ndraws(posterior::resample_draws(posterior::as_draws(smc))), 500L)
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(smc), smc)
  a <- ais(ll, lp, function(n) rnorm(n, 0, 2), temperatures = 20, n_runs = 200)
  s <- summary(a)
  expect_s3_class(s, "summary.mcmix_ais")
  wa <- exp(a$log_weights - max(a$log_weights))
  expect_equal(s$stats[1, "mean"], sum(wa * a$particles[, 1]) / sum(wa))
  expect_output(print(s), "log evidence")
  expect_equal(posterior::ndraws(posterior::as_draws_matrix(a)), 200L)
  expect_identical(plot(a), a)
  # ABC: Beta(8, 4) posterior of a coin with 7 heads in 10 tosses
  abc <- sample_abc(function(n) runif(n), function(p) rbinom(1, 10, p), observed = 7,
                    tolerance = 0, n = 4000)
  sa <- summary(abc)
  expect_equal(sa$stats[1, "mean"], mean(abc$accepted))
  expect_lt(abs(sa$stats[1, "mean"] - 8 / 12), 4 * sqrt(8 * 4 / (144 * 13) / sa$n_accepted))
  expect_equal(unname(sa$stats[1, "50%"]), unname(quantile(abc$accepted, 0.5, type = 1)))
  expect_output(print(sa), "draws accepted")
  da <- posterior::as_draws_df(abc)
  expect_equal(da$theta, as.numeric(abc$accepted))
  expect_identical(plot(abc), abc)
  none <- sample_abc(function(n) runif(n), function(p) rbinom(1, 10, p), observed = 11,
                     tolerance = 0, n = 10)   # 11 heads in 10 tosses: nothing accepted
  expect_error(plot(none), "no accepted")
  expect_output(print(summary(none)), "No draw accepted")
  expect_error(summary(abc, probs = 2), "`probs`")
})

test_that("input mistakes are refused with messages naming the argument", {
  ld <- function(x) -sum(x^2) / 2
  expect_error(sample_mh(ld, init = 0, iter = 5, thin = 10), "`thin` \\(10\\) must be at most `iter` \\(5\\)")
  expect_error(run_kernel(new_kernel("k", function(chain) list(), function(...) NULL, "x"),
                          iter = 3, thin = 4), "`thin`")
  # init as a function without dim: the dimension comes from init(1)
  set.seed(42)
  before <- .Random.seed
  fit <- sample_hmc(ld, init = function(chain) rnorm(3), iter = 20, burnin = 5,
                    progress = FALSE)
  expect_equal(ncol(fit$chains[[1]]$traces), 3L)
  set.seed(42)
  fit2 <- sample_hmc(ld, init = function(chain) rnorm(3), iter = 20, burnin = 5,
                     progress = FALSE)
  expect_identical(fit$chains[[1]]$traces, fit2$chains[[1]]$traces)
  expect_error(sample_hmc(ld, init = function(chain) "a", iter = 5), "`init`")
  expect_error(sample_slice(ld, init = function(chain) stop("no"), iter = 5), "`init`")
  # partition() / psm() of a fit that does not cluster
  mh <- sample_mh(ld, init = 0, iter = 10, burnin = 0, progress = FALSE)
  expect_error(partition(mh), "does not cluster the data")
  expect_error(psm(mh), "does not cluster the data")
  set.seed(43)
  mix <- sample_posterior(dp_mixture(gaussian_niw()), rnorm(10), iter = 5, labels = FALSE,
                          progress = FALSE)
  expect_error(partition(mix), "labels = TRUE")
})

test_that("densities respect the support, and plot axes follow the draws", {
  set.seed(44)
  y <- rexp(2000)
  d <- mcmix:::support_density(y, 0)
  expect_gte(min(d$x), 0)
  expect_equal(sum(d$y) * diff(d$x[1:2]), 1, tolerance = 0.02)
  # no boundary bias: the density at 0 is near the exponential's 1 (the
  # plain kernel estimate is near 1/2 there)
  expect_gt(d$y[1], 0.8)
  expect_lt(stats::density(y, from = 0, to = 1)$y[1], 0.65)
  # away from the boundary the estimate is the plain one
  z <- rnorm(500, 10)
  expect_identical(mcmix:::support_density(z, 0)$y, stats::density(z)$y)
  w <- mcmix:::weighted_density(y, rep(1 / 2000, 2000), 0)
  expect_gte(min(w$x), 0)
  expect_gt(w$y[1], 0.8)
  # the density panel's y axis: from the draws, not at least 0.01
  k <- new_kernel("tiny", init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = matrix(1e4 + 1000 * rnorm(length(keep)),
                                                       ncol = 1, dimnames = list(NULL, "x"))))
    }, trace_names = "x")
  fit <- run_kernel(k, iter = 300, progress = FALSE)
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  plot(fit)
  usr <- graphics::par("usr")    # the last panel: the density
  expect_lt(usr[4], 0.002)
  expect_gt(usr[4], 2e-4)
})

test_that("bayesplot draws every kind of plot from a fit", {
  set.seed(45)
  fit <- sample_mh(function(x) -sum(x^2) / 2, init = c(a = 1, b = -1), iter = 200,
                   chains = 2, progress = FALSE)
  for (f in list(bayesplot::mcmc_trace, bayesplot::mcmc_dens_overlay,
                 bayesplot::mcmc_hist, bayesplot::mcmc_rank_overlay))
    expect_s3_class(f(fit), "ggplot")
  expect_s3_class(bayesplot::mcmc_intervals(fit), "ggplot")
  p <- bayesplot::mcmc_trace(fit, iter1 = fit$settings$burnin)
  expect_equal(range(p$data$iteration), c(101, 300))
})
