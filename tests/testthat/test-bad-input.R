# Bad input gets a clear R error naming the argument, never a crash, a hang,
# a silent NaN or a corrupted result. A sweep over the exported functions of
# the finished areas (families, mixtures and priors, models and SMC, the chain
# driver), plus regressions for the holes a systematic fuzz found.

# Values that no numeric, logical, count or function argument accepts.
bad_values <- list(NA, NaN, Inf, "a", list(1), factor("a"), 1i)

# Call `fun` with `args`, replacing `arg` by each bad value in turn, and
# expect an error whose message names `arg` in backquotes.
expect_refused <- function(fun, args, arg, values = bad_values) {
  for (v in values) {
    a <- args
    a[arg] <- list(v)
    label <- sprintf("%s(%s = %s)", deparse(substitute(fun)), arg,
                     paste(deparse(v), collapse = " "))
    err <- tryCatch({ do.call(fun, a); NULL }, error = function(e) e,
                    warning = function(w) w)
    expect(inherits(err, "error"),
           sprintf("%s did not fail with an error (got %s)", label,
                   if (is.null(err)) "a result" else class(err)[1L]))
    if (inherits(err, "error"))
      expect(grepl(sprintf("`%s`", arg), conditionMessage(err), fixed = TRUE),
             sprintf("%s: the message does not name `%s`: %s", label, arg,
                     conditionMessage(err)))
  }
}

sweep_args <- function(fun, args, which = names(args), values = bad_values) {
  for (arg in which) expect_refused(fun, args, arg, values)
}

test_that("family constructors refuse bad hyperparameters, naming them", {
  sweep_args(gaussian_mean, list(cov = 1, prior_mean = 0, prior_cov = 10))
  sweep_args(gaussian_niw, list(prior_mean = 0, kappa = 0.1, df = 3, scale = 1))
  sweep_args(gaussian_diag, list(prior_mean = 0, kappa = 1, shape = 2, rate = 1))
  sweep_args(bernoulli_beta, list(a = 1, b = 1))
  sweep_args(categorical_dirichlet, list(alpha = 1))
  sweep_args(poisson_gamma, list(shape = 1, rate = 1))
  sweep_args(mcmix_family, list(name = "poisson_gamma", hyper = c(2, 1), dim = 1,
                                data_type = "count"))
})

test_that("mcmix_family() refuses a dimension beyond the integer range (no coercion warning)", {
  for (d in c(1e12, 1e308, 2^31))
    expect_error(mcmix_family("poisson_gamma", hyper = c(2, 1), dim = d,
                              data_type = "count"), "`dim`")
})

test_that("mixture and prior constructors refuse bad values, naming them", {
  sweep_args(gamma_prior, list(shape = 1, rate = 1))
  sweep_args(finite_mixture, list(family = gaussian_niw(), K = 2, alpha = 1))
  sweep_args(dp_mixture, list(family = gaussian_niw(), alpha = 1), "family")
  sweep_args(dp_mixture, list(family = gaussian_niw(), alpha = 1), "alpha",
             values = bad_values[-6L])
  sweep_args(rcrp, list(n = 10, alpha = 1))
  sweep_args(rdp, list(n = 10, alpha = 1, base = function(n) stats::rnorm(n)))
  sweep_args(rstick, list(alpha = 1, n = 10))
  sweep_args(rstick, list(alpha = 1, tol = 0.01), "tol")
  for (n in c(-1, 1.5, 1e12)) {
    expect_error(rcrp(n, 1), "`n`")
    expect_error(rstick(1, n = n), "`n`")
  }
  expect_error(finite_mixture(gaussian_niw(), K = 0), "`K`")
  expect_error(finite_mixture(gaussian_niw(), K = 2, alpha = c(1, 2, 3)), "`alpha`")
})

test_that("rstick() with a tolerance needing absurdly many sticks fails fast", {
  t0 <- proc.time()[[3]]
  expect_error(rstick(alpha = 1e100, tol = 1e-3), "`tol`.*sticks")
  expect_error(rstick(alpha = 1e7, tol = 1e-300), "`tol`.*sticks")
  expect_lt(proc.time()[[3]] - t0, 15)
  # the bound leaves ordinary truncations alone, with the same draws as before
  set.seed(4)
  w <- rstick(alpha = 2, tol = 1e-8)
  expect_gt(length(w), 10)
  expect_equal(sum(w) + attr(w, "remaining"), 1)
  expect_lt(attr(w, "remaining"), 1e-8)
  set.seed(4)
  v <- stats::rbeta(length(w), 1, 2)
  expect_equal(w[1:3], c(v[1], v[2] * (1 - v[1]), v[3] * (1 - v[1]) * (1 - v[2])))
})

test_that("sample_posterior() refuses bad sampler settings and data, naming them", {
  x <- c(-3.1, -2.9, -3.3, 2.8, 3.2, 3.0)
  base <- list(model = dp_mixture(gaussian_niw()), data = x, iter = 20,
               burnin = 5, thin = 1, chains = 1, progress = FALSE)
  sweep_args(sample_posterior, base, c("iter", "burnin", "thin", "chains", "progress"))
  sweep_args(sample_posterior, base, "data", values = list(NULL, "a", list(1), factor("a"),
                                                           function(x) x, numeric(0)))
  for (v in list(1e12, -1, 1.5, 0)) expect_error(do.call(sample_posterior,
    utils::modifyList(base, list(iter = v))), "`iter`")
  bad_data <- list(rep(NA_real_, 6), c(Inf, x), c(NaN, x), x[1],
                   data.frame(a = letters[1:6], b = x))
  for (d in bad_data)
    expect_error(do.call(sample_posterior, utils::modifyList(base, list(data = d))), "`data`")
  fin <- utils::modifyList(base, list(model = finite_mixture(gaussian_niw(), K = 2)))
  sweep_args(sample_posterior, fin, c("iter", "data"), values = list("a", list(1), NA))
})

test_that("data too large in magnitude is refused instead of overflowing to NaN", {
  x <- c(-3.1, -2.9, -3.3, 2.8, 3.2, 3.0)
  fams <- list(gaussian_niw(), gaussian_mean(cov = 1), gaussian_diag(), poisson_gamma())
  for (f in fams) {
    d <- if (inherits(f, "mcmix_family_poisson_gamma")) c(1e308, 1, 2, 3) else c(1e308, x)
    expect_error(sample_posterior(dp_mixture(f), d, iter = 5, progress = FALSE),
                 "`data` has a value too large in magnitude")
  }
  expect_error(sample_posterior(dp_mixture(gaussian_niw()), cbind(x, c(x[-1], -1e200)),
                                iter = 5, progress = FALSE), "`data`.*row 6, column 2")
  # large but representable data still works
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x * 1e50, iter = 5, progress = FALSE)
  expect_false(anyNA(fit$chains[[1]]$traces))
})

test_that("a vague Gamma(0.001, 0.001) prior on alpha does not stop the sampler (alpha underflowed to 0)", {
  set.seed(5)
  x <- stats::rnorm(30)
  fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = gamma_prior(0.001, 0.001)), x,
                          iter = 400, progress = FALSE)
  a <- fit$chains[[1]]$traces[, "alpha"]
  expect_true(all(is.finite(a) & a > 0))
})

test_that("a tiny Beta hyperparameter gives no NaN in the Bernoulli family (b + n - s lost b)", {
  set.seed(6)
  xb <- matrix(c(rep(1, 12), stats::rbinom(12, 1, 0.5)), 12)
  for (alg in c("collapsed", "gibbs")) {
    fit <- sample_posterior(finite_mixture(bernoulli_beta(1, 1e-20), K = 2), xb, iter = 30,
                            algorithm = alg, progress = FALSE)
    expect_false(anyNA(fit$chains[[1]]$traces))
  }
  fit <- sample_posterior(dp_mixture(bernoulli_beta(1e-50, 1)), xb, iter = 30, progress = FALSE)
  expect_false(anyNA(fit$chains[[1]]$traces))
})

test_that("hyperparameters too large in magnitude are refused, naming them", {
  expect_error(gaussian_niw(prior_mean = 1e300), "`prior_mean` has a value too large")
  expect_error(gaussian_mean(cov = 1e300), "`cov`")
  expect_error(gaussian_mean(prior_cov = diag(c(1, 1e300))), "`prior_cov`")
  expect_error(gaussian_diag(rate = c(1, 1e300)), "`rate`")
  expect_error(poisson_gamma(shape = 1e300), "`shape`")
  expect_error(bernoulli_beta(b = 1e300), "`b`")
  expect_error(sample_posterior(dp_mixture(poisson_gamma()), c(1e20, 1, 2), iter = 5,
                                progress = FALSE), "`data`.*1e\\+20")
})

test_that("categorical data: empty input and absurd category numbers are refused", {
  fam <- dp_mixture(categorical_dirichlet())
  expect_error(sample_posterior(fam, numeric(0), iter = 5, progress = FALSE), "`data`")
  for (k in c(1e12, 1e308, 2^31))
    expect_error(sample_posterior(fam, c(1, 2, k), iter = 5, progress = FALSE),
                 "`data`.*row 3")
  expect_error(sample_posterior(fam, c(1, 2, 2e8), iter = 5, progress = FALSE),
               "`data` has category number")
})

test_that("the chain driver refuses bad kernels, fits and settings, naming them", {
  k <- new_kernel("iid", init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = matrix(stats::rnorm(length(keep)),
        ncol = 1, dimnames = list(NULL, "x"))))
    }, trace_names = "x")
  step <- k$step
  init <- k$init
  sweep_args(new_kernel, list(name = "k", init = init, step = step, trace_names = "x"),
             values = list(NULL, NA, 1, list(1)))
  sweep_args(run_kernel, list(kernel = k, iter = 20, burnin = 5, thin = 1, chains = 1,
                              cores = 1, progress = FALSE),
             c("iter", "burnin", "thin", "chains", "cores", "progress"))
  expect_error(run_kernel(k, iter = 1e12, progress = FALSE), "`iter`")
  fit <- run_kernel(k, iter = 10, progress = FALSE)
  for (v in list(NULL, NA, 1, "a", list(1)))
    expect_error(extend(v, 10), "`fit` must be an mcmix_fit")
  sweep_args(extend, list(fit = fit, iter = 10, progress = FALSE), c("iter", "progress"))
  expect_error(extend(fit, -1), "`iter`")
  expect_error(extend(structure(list(), class = "mcmix_fit"), 5), "`fit`")
  for (b in list("gpu", 1, NA, c("auto", "future"), NULL))
    expect_error(run_kernel(k, iter = 5, backend = b, progress = FALSE), "`backend`")
  expect_error(run_kernel(k, iter = 1e9, burnin = 2e9, progress = FALSE), "`iter` \\+ `burnin`")
})

test_that("a kernel whose step() breaks the contract is named, not silently stored", {
  mk <- function(step) new_kernel("broken", init = function(chain) list(), step = step,
                                  trace_names = "x")
  rows <- function(n, thin, offset, warmup)
    if (warmup) 0L else sum((offset + seq_len(n)) %% thin == 0)
  expect_error(run_kernel(mk(function(state, n, thin, offset, warmup) NULL), iter = 5,
                          progress = FALSE), "`kernel` 'broken'.*`state`")
  expect_error(run_kernel(mk(function(state, n, thin, offset, warmup)
    list(state = state, draws = list(traces = "a"))), iter = 5, progress = FALSE),
    "`kernel` 'broken'.*numeric matrix")
  expect_error(run_kernel(mk(function(state, n, thin, offset, warmup)
    list(state = state, draws = list(traces = matrix(0, 1000, 1)))), iter = 5,
    progress = FALSE), "`kernel` 'broken'.*1000 rows")
  expect_error(run_kernel(mk(function(state, n, thin, offset, warmup)
    list(state = state, draws = list(traces = matrix(0, rows(n, thin, offset, warmup), 1),
                                     labels = matrix(1L, 1000, 3)))), iter = 5,
    progress = FALSE), "`kernel` 'broken'.*labels")
  ok <- run_kernel(mk(function(state, n, thin, offset, warmup)
    list(state = state, draws = list(traces = matrix(0, rows(n, thin, offset, warmup), 1,
                                                     dimnames = list(NULL, "x"))))),
    iter = 10, burnin = 3, thin = 3, progress = FALSE)
  expect_equal(nrow(ok$chains[[1]]$traces), 3L)
})

test_that("mcmix_family() checks hyper against the family and data_type for built-ins", {
  expect_error(mcmix_family("poisson_gamma", hyper = c(1, 2, 3), dim = 1, data_type = "count"),
               "`hyper`")
  expect_error(mcmix_family("poisson_gamma", hyper = c(-1, 2), dim = 1, data_type = "count"),
               "`hyper`")
  expect_error(mcmix_family("poisson_gamma", hyper = c(1, 2), dim = 1, data_type = "real"),
               "`data_type`")
  fam <- mcmix_family("poisson_gamma", hyper = c(1, 2, 3), data_type = "count")
  expect_error(sample_posterior(dp_mixture(fam), c(1, 2, 3), iter = 5, progress = FALSE),
               "`hyper`")
  fam <- mcmix_family("poisson_gamma", hyper = c(2, 1), data_type = "count")
  fit <- sample_posterior(dp_mixture(fam), c(1, 2, 3, 7), iter = 5, progress = FALSE)
  expect_s3_class(fit, "mcmix_fit")
})

test_that("mcmix_family() checks data_type for the non-conjugate built-in too", {
  expect_error(mcmix_family("gaussian_nonconj", hyper = c(0, 1, 2, 1), data_type = "count",
                            dim = 1), "`data_type`")
  fam <- mcmix_family("gaussian_nonconj", hyper = c(0, 1, 2, 1), data_type = "real", dim = 1)
  expect_s3_class(fam, "mcmix_family")
})

test_that("models refuse bad data and hyperparameters, naming them", {
  set.seed(1)
  X <- cbind(1, stats::rnorm(12))
  y <- rep(0:1, 6)
  sweep_args(probit_gibbs, list(x = X, y = y, prior_mean = 0, prior_cov = 100,
                                iter = 20, burnin = 5, thin = 1, chains = 1))
  gx <- seq(-2, 2, length.out = 8)
  gy <- rep(0:1, each = 4)
  sweep_args(gp_classify, list(x = gx, y = gy, lengthscale = 1, variance = 1,
                               x_test = c(0, 1), keep_f = FALSE, iter = 20, burnin = 5))
  g <- rep(1:3, each = 4)
  sweep_args(hier_lm_gibbs, list(y = stats::rnorm(12), x = X, group = g, mu0 = 0,
                                 V0 = 100, eta0 = 4, S0 = 1, nu0 = 1, s0sq = 1,
                                 keep_beta = TRUE, iter = 20, burnin = 5))
  sweep_args(ising_gibbs, list(nrow = 4, ncol = 4, J = 0.2, h = 0, periodic = TRUE,
                               keep_spins = FALSE, iter = 20, burnin = 5))
  sweep_args(ising_swendsen_wang, list(nrow = 4, ncol = 4, J = 0.2, h = 0, iter = 20,
                                       burnin = 5))
  expect_error(ising_mean(list()), "`fit`")
  expect_error(hier_lm_gibbs(X, stats::rnorm(12), as.list(g), iter = 20, burnin = 5), "`group`")
  df <- data.frame(y = y, x = X[, 2])
  df_na <- df
  df_na$x[3] <- NA
  expect_error(probit_gibbs(y ~ x, data = df_na, iter = 20, burnin = 5),
               "`data` has missing values.*column x")
  df_inf <- df
  df_inf$x[2] <- 1e308
  expect_error(probit_gibbs(y ~ x, data = df_inf, iter = 20, burnin = 5), "`data`")
  expect_error(probit_gibbs(y ~ not_a_column, data = df, iter = 20, burnin = 5), "`x`")
})

test_that("values near the largest double are refused by the models instead of hanging or giving NaN", {
  set.seed(2)
  X <- cbind(1, stats::rnorm(12))
  y <- rep(0:1, 6)
  t0 <- proc.time()[[3]]
  expect_error(probit_gibbs(X, y, prior_mean = 1e308, iter = 20, burnin = 5),
               "`prior_mean` has a value too large")
  expect_error(probit_gibbs(X, y, prior_cov = 1e200, iter = 20, burnin = 5), "`prior_cov`")
  expect_error(probit_gibbs(cbind(1, c(1e308, X[-1, 2])), y, iter = 20, burnin = 5), "`x`")
  expect_lt(proc.time()[[3]] - t0, 10)
  gx <- seq(-2, 2, length.out = 8)
  gy <- rep(0:1, each = 4)
  expect_error(gp_classify(gx, gy, variance = 1e308, iter = 20, burnin = 5), "`variance`")
  expect_error(gp_classify(gx, gy, x_test = 1e308, iter = 20, burnin = 5), "`x_test`")
  expect_error(gp_classify(gx, gy, lengthscale = 1e-308, iter = 20, burnin = 5),
               "`lengthscale`")
  expect_error(gp_classify(gx, gy, lengthscale = 1e-200, x_test = 0, iter = 20, burnin = 5),
               "`lengthscale`")
  g <- rep(1:3, each = 4)
  expect_error(hier_lm_gibbs(X, c(1e308, stats::rnorm(11)), g, iter = 20, burnin = 5), "`y`")
  expect_error(hier_lm_gibbs(X, stats::rnorm(12), g, mu0 = 1e308, iter = 20, burnin = 5),
               "`mu0`")
  expect_error(ising_gibbs(4, 4, J = 1e308, iter = 20), "`J`")
})

test_that("SMC, AIS, annealing and ABC refuse bad settings, naming them", {
  ll <- function(x) stats::dnorm(1, x, 1, log = TRUE)
  lp <- function(x) stats::dnorm(x, log = TRUE)
  ps <- function(n) stats::rnorm(n)
  sweep_args(sample_smc, list(log_lik = ll, log_prior = lp, prior_sampler = ps,
                              n_particles = 50, cess = 0.9, resample_threshold = 0.5,
                              n_moves = 2, scale = 1, max_stages = 50),
             c("n_particles", "cess", "resample_threshold", "n_moves", "scale", "max_stages"))
  sweep_args(ais, list(log_lik = ll, log_prior = lp, prior_sampler = ps,
                       temperatures = 5, n_runs = 10, n_moves = 2, scale = 1),
             c("temperatures", "n_runs", "n_moves", "scale"))
  for (s in c(1e-308, 1e308)) {
    expect_error(sample_smc(ll, lp, ps, n_particles = 50, scale = s), "`scale`")
    expect_error(ais(ll, lp, ps, temperatures = 5, n_runs = 10, scale = s), "`scale`")
  }
  expect_error(sample_smc(ll, lp, ps, n_particles = 1e12), "`n_particles`")
  expect_error(ais(ll, lp, ps, n_runs = 1e12), "`n_runs`")
  ld <- function(x) -sum(x^2) / 2
  sweep_args(anneal, list(target = ld, init = c(1, 1), iter = 50, t0 = 1, t_final = 1e-3,
                          scale = 0.1, minimize = FALSE),
             c("init", "iter", "t0", "t_final", "scale", "minimize"))
  expect_error(anneal(ld, init = 1, iter = 1e12), "`iter`")
  sim <- function(p) stats::rbinom(1, 10, p)
  sweep_args(sample_abc, list(prior_sampler = stats::runif, simulator = sim, observed = 7,
                              tolerance = 0, n = 50), c("tolerance", "n"))
  expect_error(sample_abc(stats::runif, sim, 7, quantile = 2, n = 50), "`quantile`")
  expect_error(sample_abc(stats::runif, sim, 7, distance = function(x) x, tolerance = 0,
                          n = 50), "`distance` must be a function of two arguments")
  expect_error(sample_abc(stats::runif, sim, 7, tolerance = 0, n = 1e12), "`n`")
})

test_that("harmonic_mean_evidence() refuses bad draws and gives -Inf, not NaN, for zero likelihoods", {
  for (v in list(NULL, NA, NaN, Inf, "a", list(1), numeric(0)))
    expect_error(suppressWarnings(harmonic_mean_evidence(v)), "`log_lik_draws`")
  expect_identical(suppressWarnings(harmonic_mean_evidence(-Inf)), -Inf)
  expect_identical(suppressWarnings(harmonic_mean_evidence(c(-1, -Inf, -2))), -Inf)
  # closed form: minus the log of the mean of exp(-l)
  l <- c(-1, -2, -3)
  expect_equal(suppressWarnings(harmonic_mean_evidence(l)), -log(mean(exp(-l))))
})

test_that("diagnostics refuse non-finite draws and short chains, naming `x`", {
  set.seed(1)
  x <- matrix(rnorm(400), 100, 4)
  y <- x
  y[7, 3] <- Inf
  for (f in list(rhat, ess, mcse, chain_acf)) {
    expect_error(f(c(1, NA, 3:10)), "`x`.*draw 2 of chain 1")
    expect_error(f(y), "`x`.*draw 7 of chain 3")
    expect_error(f(c(1, NaN, 3:10)), "`x`")
    expect_error(f(1), "`x` must have at least")
  }
  expect_error(ess(1:5), "at least 6 draws")
  expect_true(is.finite(ess(as.double(1:6))))
  expect_error(rhat(x[, 1], type = "classic"), "`x` must have two chains")
  # a constant chain gives NA (documented), not an error
  expect_identical(rhat(rep(1, 50)), NA_real_)
  expect_identical(ess(rep(1, 50)), NA_real_)
  expect_identical(mcse(rep(1, 50)), NA_real_)
  # huge values: no overflow (scale-free statistics unchanged, mcse scales)
  expect_equal(rhat(x * 1e307), rhat(x))
  expect_equal(ess(x * 1e307), ess(x))
  expect_equal(mcse(x * 1e307) / 1e307, mcse(x))
  expect_equal(unclass(chain_acf(x * 1e307, lag.max = 3)), unclass(chain_acf(x, lag.max = 3)))
})

test_that("choice arguments name themselves; labels must be positive", {
  x <- matrix(rnorm(40), 20, 2)
  expect_error(rhat(x, type = "x"), "`type` must be one of \"rank\", \"classic\"")
  expect_error(ess(x, type = "x"), "`type` must be one of \"bulk\", \"tail\", \"basic\"")
  expect_error(partition(matrix(1:4, 2), loss = "x"), "`loss` must be one of \"VI\", \"binder\"")
  expect_error(rhat(x, type = NA_character_), "`type`")
  expect_error(psm(-1), "`x` must contain positive integer")
  expect_error(psm(matrix(c(1, 0, 1, 1), 2)), "draw 2 is 0")
  expect_error(partition(matrix(c(1, -2, 1, 1), 2)), "`x`")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_error(plot_coclustering(matrix(c(1, -3, 1, 1), 2)), "`x`")
})

test_that("samplers bound their work per iteration and refuse matrix scales", {
  ld <- function(x) -sum(x^2) / 2
  expect_error(sample_hmc(ld, init = 0, n_steps = 1e9), "`n_steps` must be at most")
  expect_error(sample_slice(ld, init = 0, max_steps = 1e9), "`max_steps` must be at most")
  expect_error(sample_slice(ld, init = 0, width = 1e-300), "`width`")
  expect_error(sample_slice(ld, init = 0, width = 1e300), "`width`")
  expect_error(proposal_rw(scale = matrix(1, 2, 3)), "`scale`.*`cov`")
  expect_error(proposal_rw(scale = matrix(c(1, 2, 2, 1), 2)), "`scale`.*matrix")
  expect_error(mh_step(ld, scale = diag(2)), "`scale`.*matrix")
})

test_that("size arguments have upper bounds with clear messages", {
  ll <- function(x) stats::dnorm(1, x, 1, log = TRUE)
  lp <- function(x) stats::dnorm(x, log = TRUE)
  ps <- function(n) stats::rnorm(n)
  expect_error(rcrp(2e9, 1), "`n` must be at most")
  expect_error(rdp(2e9, 1, function(n) rnorm(n)), "`n` must be at most")
  expect_error(rstick(1, n = 2e9), "`n` must be at most")
  expect_error(anneal(function(x) -x^2, init = 0, iter = 2e9), "`iter` must be at most")
  expect_error(sample_abc(stats::runif, function(p) 1, 1, tolerance = 0, n = 2e9),
               "`n` must be at most")
  expect_error(ais(ll, lp, ps, temperatures = 1e9), "`temperatures` must be at most")
  expect_error(ais(ll, lp, ps, n_moves = 1e9), "`n_moves` must be at most")
  expect_error(sample_smc(ll, lp, ps, n_moves = 1e9), "`n_moves` must be at most")
  expect_error(finite_mixture(gaussian_mean(cov = 1), K = 1e9), "`K` must be at most")
  expect_error(dp_control(m = 1e9), "`m` must be at most")
  expect_error(dp_control(t = 1e9), "`t` must be at most")
  expect_error(dp_control(moves = 1e9), "`moves` must be at most")
  expect_s3_class(dp_control(t = 0, moves = 0), "mcmix_dp_control")
})

test_that("LDA refuses huge vocabularies, token counts and topic numbers", {
  expect_error(lda_model(K = 1e9), "`K` must be at most")
  fit_lda <- function(docs, K = 2)
    sample_posterior(lda_model(K), docs, iter = 2, progress = FALSE)
  expect_error(fit_lda(list(c(1, 1e308))), "`data` uses word id")
  expect_error(fit_lda(list(c(1, 1e9))), "`data` uses word id")
  expect_error(fit_lda(matrix(c(1e9, 1, 2, 3), 2)), "mcmix.lda_max_bytes")
  expect_error(fit_lda(matrix(c(3e9, 1, 2, 3), 2)), "`data` must hold at most")
  expect_error(fit_lda(list(1:1e4), K = 1e5), "mcmix.lda_max_bytes")
})

test_that("mixtures: psm budget before sampling, `newdata` named, vague HDP priors", {
  set.seed(1)
  x <- rnorm(30)
  old <- options(mcmix.psm_max_bytes = 1000)
  on.exit(options(old))
  expect_error(sample_posterior(dp_mixture(gaussian_mean(cov = 1)), x, iter = 2,
                                psm = TRUE, progress = FALSE),
               "`psm = TRUE`.*mcmix.psm_max_bytes")
  options(old)
  fit <- sample_posterior(dp_mixture(gaussian_mean(cov = 1)), x, iter = 5, progress = FALSE)
  expect_error(predict(fit, newdata = "a"), "`newdata`")
  expect_error(predict(fit, newdata = c(NA, 1)), "`newdata`")
  # Gamma(0.001, 0.001) concentrations: the draws never underflow to 0
  g <- rep(1:3, each = 10)
  for (s in 1:5) {
    set.seed(s)
    f <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1),
                                      gamma = gamma_prior(0.001, 0.001),
                                      alpha = gamma_prior(0.001, 0.001)),
                          x, group = g, iter = 30, progress = FALSE)
    tr <- f$chains[[1]]$traces
    expect_true(all(tr[, "gamma"] > 0 & tr[, "alpha"] > 0))
  }
  for (s in 1:3) {
    set.seed(s)
    f <- sample_posterior(dp_mixture(gaussian_mean(cov = 1), alpha = gamma_prior(0.001, 0.001)),
                          x, algorithm = "slice", iter = 30, progress = FALSE)
    expect_true(all(f$chains[[1]]$traces[, "alpha"] > 0))
  }
})

# ---------------------------------------------------------------------------
# Budgets: sizes a user controls are refused before anything is allocated
# ---------------------------------------------------------------------------

test_that("the slice sampler's sticks are bounded: huge alpha, discount or kappa are refused up front", {
  withr::local_preserve_seed()
  x <- seq(-2, 2, length.out = 30)
  dp <- function(...) sample_posterior(dp_mixture(gaussian_niw(), ...), x,
                                       algorithm = "slice", iter = 2, progress = FALSE)
  expect_error(dp(alpha = 1e300), "`alpha`.*mcmix.work_budget")
  expect_error(dp(alpha = 1e6), "`alpha`.*mcmix.work_budget")
  expect_error(dp(alpha = 1, discount = 0.999999), "`discount`.*mcmix.work_budget")
  expect_error(sample_posterior(dp_mixture(gaussian_niw()), x, algorithm = "slice", iter = 2,
                                control = dp_control(xi = "geometric", kappa = 0.999999),
                                progress = FALSE),
               "kappa.*mcmix.work_budget")
  # the budget is an option: lowered, a model that runs by default is refused
  expect_error(dp(alpha = 200), NA)
  old <- options(mcmix.work_budget = 6000)
  on.exit(options(old))
  expect_error(dp(alpha = 200), "`alpha`.*mcmix.work_budget")
})

test_that("the engine stops a slice sampler whose sticks outgrow the budget, naming the remedy", {
  withr::local_preserve_seed()
  # a random alpha escapes the up-front check; the engine's cap catches it
  old <- options(mcmix.work_budget = 2e4)
  on.exit(options(old))
  x <- seq(-1, 1, length.out = 20)
  expect_error(sample_posterior(dp_mixture(gaussian_niw(), alpha = gamma_prior(1e6, 1)), x,
                                algorithm = "slice", iter = 5, progress = FALSE),
               "more than 1000 sticks.*mcmix.work_budget")
})

test_that("chains, particles, runs and dimensions beyond the memory budget are refused", {
  withr::local_preserve_seed()
  k <- new_kernel("nothing", function(chain) list(), function(state, n, thin, offset, warmup)
    list(state = state, draws = list(traces = matrix(0, if (warmup) 0 else n, 1))), "x")
  expect_error(run_kernel(k, chains = .Machine$integer.max), "`chains`.*mcmix.memory_budget")
  expect_error(run_kernel(k, iter = 2e9, chains = 2), "`iter`.*mcmix.memory_budget")
  prior <- function(n) matrix(stats::rnorm(n), 1)
  expect_error(sample_smc(function(x) 0, function(x) 0, prior,
                          n_particles = .Machine$integer.max), "`n_particles`.*mcmix.memory_budget")
  expect_error(ais(function(x) 0, function(x) 0, prior, n_runs = .Machine$integer.max),
               "`n_runs`.*mcmix.memory_budget")
  expect_error(sample_mh(function(x) -sum(x^2), init = rep(0, 1e5)), "`init`.*mcmix.memory_budget")
  old <- options(mcmix.memory_budget = -1)
  on.exit(options(old))
  expect_error(run_kernel(k, iter = 10), "mcmix.memory_budget")
})

# ---------------------------------------------------------------------------
# Numerical hygiene
# ---------------------------------------------------------------------------

test_that("diagnostics are scale-free: tiny but varying draws are not constant", {
  withr::local_preserve_seed()
  set.seed(12)
  x <- matrix(stats::rnorm(800), 400, 2)
  for (s in c(1e-17, 1e17)) {
    expect_equal(ess(s * x, type = "tail"), ess(x, type = "tail"))
    expect_equal(ess(s * x, type = "basic"), ess(x, type = "basic"))
    expect_equal(mcse(s * x) / s, mcse(x))
    expect_equal(rhat(s * x), rhat(x))
  }
  expect_true(is.na(ess(matrix(1e-17, 400, 2))))
})

test_that("HMC refuses a step size or mass that cannot move the chain", {
  withr::local_preserve_seed()
  tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
  expect_error(sample_hmc(tg, init = c(1, 1), iter = 10, step_size = 1e-300), "`step_size`")
  expect_error(sample_hmc(tg, init = c(1, 1), iter = 10, mass = 1e300), "`mass`")
  expect_error(sample_hmc(tg, init = c(1, 1), iter = 10, mass = 1e-300), "`mass`")
})

test_that("ABC refuses non-finite observations", {
  withr::local_preserve_seed()
  prior <- function(n) matrix(stats::rnorm(n), 1)
  for (obs in list(Inf, c(1, -Inf)))
    expect_error(sample_abc(prior, function(t) stats::rnorm(1, t), observed = obs,
                            tolerance = 1, n = 10), "`observed`")
})

test_that("former internal messages are argument-named errors", {
  withr::local_preserve_seed()
  x <- c(-1.2, 0.3, 0.8, 2.1, -0.4, 1.7)
  expect_error(gaussian_nonconj(prior_mean = 1e300), "`prior_mean`")
  expect_error(dp_mixture(gaussian_niw(), discount = beta_prior(1e300, 1)), "`discount`")
  expect_error(sample_tempering(function(x) -x^2, function(x) 0, init = matrix(0, 0, 2),
                                temperatures = c(1, 0.5), iter = 5), "`init`")
  k <- new_kernel("w", function(chain) list(i = 0), function(state, n, thin, offset, warmup) {
    state$i <- state$i + 1
    list(state = state, draws = list(traces = matrix(0, if (warmup) 0 else n, state$i)))
  }, "x")
  expect_error(run_kernel(k, iter = 10, progress = FALSE), "`kernel`.*columns")
  set.seed(1)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, algorithm = "slice", iter = 5,
                          control = dp_control(xi = "geometric", kappa = 1e-300),
                          progress = FALSE)
  expect_false(anyNA(fit$chains[[1]]$traces))
})

test_that("user-controlled sizes of GP classification, pilot runs and predictions are budgeted", {
  withr::local_preserve_seed()
  withr::local_options(mcmix.memory_budget = 1e9, mcmix.work_budget = 1e7)
  x <- c(-2, -1.5, -1, 1, 1.5, 2)
  y <- c(0, 0, 0, 1, 1, 1)
  expect_error(gp_classify(x, y, x_test = rep(1, 1e6), iter = 10),
               "`x_test`.*mcmix.work_budget")
  expect_error(gp_classify(rep(1, 1e5), rep(0:1, 5e4), iter = 10), "`x`.*mcmix.memory_budget")
  set.seed(1)
  fit <- gp_classify(x, y, iter = 20, burnin = 5, progress = FALSE)
  expect_identical(predict(fit, newdata = numeric(0)), numeric(0))
  expect_error(predict(fit, newdata = rep(1, 1e6)), "`newdata`.*mcmix.work_budget")
  prior <- function(n) stats::rnorm(n)
  expect_error(ais(function(x) 0, function(x) 0, prior, n_runs = 10,
                   n_pilot = .Machine$integer.max), "`n_pilot`.*mcmix.memory_budget")
  expect_error(sample_smc(function(x) 0, function(x) 0, prior, n_particles = 10,
                          n_pilot = .Machine$integer.max), "`n_pilot`.*mcmix.memory_budget")
  set.seed(2)
  mix <- sample_posterior(dp_mixture(gaussian_mean()), x, iter = 50, progress = FALSE)
  expect_error(predict(mix, rep(1, 1e6)), "`newdata`.*mcmix.memory_budget")
})

test_that("errors of a user's gradient name the function and where, without the helper's call", {
  withr::local_preserve_seed()
  set.seed(1)
  bad_len <- target(function(x) -sum(x^2) / 2, gradient = function(x) c(1, 2, 3))
  e <- tryCatch(sample_hmc(bad_len, init = c(0, 0), iter = 5, progress = FALSE),
                error = function(e) e)
  expect_match(conditionMessage(e), "`gradient` must return a numeric vector of length 2")
  expect_match(conditionMessage(e), "at the initial value")
  expect_null(conditionCall(e))
  non_finite <- target(function(x) -sum(x^2) / 2, gradient = function(x) c(NaN, 0))
  e <- tryCatch(sample_hmc(non_finite, init = c(0, 0), iter = 5, progress = FALSE),
                error = function(e) e)
  expect_match(conditionMessage(e), "`gradient` returned a non-finite value")
  expect_false(grepl("iteration 0", conditionMessage(e), fixed = TRUE))
  expect_null(conditionCall(e))
  expect_s3_class(e, "mcmix_error_init")
  # after the initial values a non-finite gradient rejects the point (counted)
  late <- target(function(x) -sum(x^2) / 2,
                 gradient = function(x) if (abs(x[1]) > 0.3) c(Inf, 0) else -x)
  fit <- sample_hmc(late, init = c(0, 0), iter = 200, progress = FALSE)
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
})

test_that("messages describe classed vectors by class and name the argument", {
  expect_match(tryCatch(sample_posterior(dp_mixture(gaussian_mean()), as.Date("2020-01-01") + 0:3,
                                         iter = 5, progress = FALSE),
                        error = conditionMessage), "a Date vector")
  k <- new_kernel("iid_normal", init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) list(state = state,
      draws = list(traces = matrix(0, if (warmup) 0 else n, 1, dimnames = list(NULL, "x")))),
    trace_names = "x")
  fit <- run_kernel(k, iter = 10, progress = FALSE)
  expect_error(chib_evidence(fit), "`fit` must be a Gibbs fit .* not a fit of run_kernel")
  expect_error(chib_evidence(1), "`fit` must be a Gibbs fit")
  for (d in list(NA, "a", 0, 1e6, -1, list(), 2.5))
    expect_error(print(summary(fit), digits = d), "`digits`")
  prof <- cluster_profiles(sample_posterior(dp_mixture(gaussian_mean()), c(-2, -1, 1, 2),
                                            iter = 20, progress = FALSE))
  for (cols in list(numeric(0), character(0), NA_character_, function(x) x))
    expect_error(plot(prof, columns = cols), "`columns`")
})

test_that("a credible ball at a tiny level holds at least the closest draw", {
  draws <- rbind(c(1, 1, 2, 2), c(1, 1, 1, 2), c(1, 2, 2, 2), c(1, 1, 2, 2))
  cb <- credible_ball(draws, level = 1e-300)
  expect_equal(cb$radius, 0)
  expect_gt(cb$mass, 0)
})

test_that("annealing schedules, NUTS step sizes and lca_probs() fits are checked by name", {
  withr::local_preserve_seed()
  x <- c(-2, -1.5, -1, 1, 1.5, 2)
  expect_error(map_partition(dp_mixture(gaussian_mean(), alpha = 1), x, schedule = rep(1, 1e6)),
               "`schedule`.*at most 1e5")
  expect_error(bn_map(bayes_net_asia(), method = "anneal", schedule = rep(1, 1e6)),
               "`schedule`.*at most 1e5")
  expect_error(sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 5,
                           step_size = 1e300), "`step_size`")
  set.seed(3)
  expect_error(sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 20,
                           inv_metric = 1e-300, progress = FALSE), "`inv_metric`")
  set.seed(1)
  mix <- sample_posterior(finite_mixture(gaussian_mean(), K = 2), x, iter = 20,
                          progress = FALSE)
  expect_error(lca_probs(mix), "`fit` must be a fit of lca\\(\\)")
  expect_error(sample_posterior(hdp_mixture(gaussian_mean()), list(a = 1:3, b = list(1)),
                                iter = 5, progress = FALSE), "`data` must be a list of groups")
})

test_that("messages show the first few of the user's values and how many more", {
  e <- expect_error(sample_mh(function(th) -Inf, init = seq(0.5, 25, by = 0.5), iter = 10,
                              progress = FALSE), class = "mcmix_error_input")
  expect_match(conditionMessage(e),
               "at (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, ... and 42 more) is -Inf.",
               fixed = TRUE)
  expect_identical(mcmix:::list_some(letters[1:3]), "a, b, c")
  expect_identical(mcmix:::list_some(as.character(1:1010)),
                   "1, 2, 3, 4, 5, 6, 7, 8, ... and 1,002 more")
})
