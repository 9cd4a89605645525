# Short runs of every sampler, for the interrupt sweep (test-interrupt.R,
# tools/interrupts.R): each entry builds a small fit whose kernel and run
# settings are then re-run with interrupts (helper-faults.R).
interrupt_cases <- function() {
  x1 <- c(-2.1, -1.9, -2.3, 1.8, 2.2, 2.0, 2.4, -1.7)
  tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
  rho <- 0.8
  cond <- list(function(th) stats::rnorm(1, rho * th[2], sqrt(1 - rho^2)),
               function(th) stats::rnorm(1, rho * th[1], sqrt(1 - rho^2)))
  xp <- seq(-2, 2, length.out = 30)
  yp <- rep(0:1, each = 15)
  gx <- rep(1:4, each = 6)
  xl <- seq(-1, 1, length.out = 24)
  yl <- 1 + 2 * xl + 0.1 * sin(1:24)
  docs <- list(c(1, 1, 2, 2, 1), c(3, 4, 4, 3), c(1, 2, 3, 4, 1, 2))
  groups <- list(a = c(-4.2, -3.9, 0.1, 0.3), b = c(0.2, -0.1, 3.8, 4.1))
  q <- function(expr) suppressWarnings(suppressMessages(expr))
  list(
    mh = function() q(sample_mh(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 60,
                                burnin = 20, thin = 2)),
    slice = function() q(sample_slice(function(x) -x^2 / 2, init = 0, iter = 60, burnin = 10)),
    hmc = function() q(sample_hmc(tg, init = c(1, 1), iter = 40, burnin = 20, n_steps = 3)),
    tempering = function() q(sample_tempering(function(x) -x^2 / 2, function(x) 0, init = 0,
                                              temperatures = c(1, 0.5), iter = 40, burnin = 10)),
    gibbs = function() q(sample_gibbs(c(x = 0, y = 0), cond, iter = 40, burnin = 10)),
    dp_collapsed = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                                 burnin = 10, psm = TRUE)),
    dp_neal8 = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                             burnin = 10, algorithm = "neal8")),
    dp_slice = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                             burnin = 10, algorithm = "slice", psm = TRUE)),
    dp_split_merge = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                                   burnin = 10, algorithm = "split_merge")),
    finite = function() q(sample_posterior(finite_mixture(gaussian_niw(), K = 2), x1,
                                           iter = 40, burnin = 10, thin = 3)),
    hdp = function() q(sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)),
                                        groups, iter = 40, burnin = 10, progress = FALSE)),
    lda = function() q(sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
                                        vocab = c("a", "b", "c", "d"), iter = 40, burnin = 10,
                                        progress = FALSE)),
    probit = function() q(probit_gibbs(yp ~ xp, data = data.frame(xp = xp, yp = yp), iter = 40,
                                       burnin = 10)),
    gp_classify = function() q(gp_classify(xp, yp, iter = 40, burnin = 10)),
    ising = function() q(ising_swendsen_wang(4, 4, J = 0.5, iter = 40, burnin = 10)),
    hier_lm = function() q(hier_lm_gibbs(cbind(1, xl), yl, gx, iter = 40, burnin = 10))
  )
}

# The run settings of a fit, for run_kernel().
interrupt_settings <- function(fit, chains = 2L) {
  s <- fit$settings
  list(iter = s$iter, burnin = s$burnin, thin = s$thin, chains = chains,
       labels = s$labels, psm = s$psm, model = fit$model, data = fit$data)
}

# Interrupt `case` (a fit) at step call k (sequential or forked cores);
# returns a list of checks.
interrupt_check <- function(fit0, k, cores = 1L, where = "before", seed = 11L) {
  st <- interrupt_settings(fit0)
  set.seed(seed)
  ref <- do.call(run_kernel, c(list(fit0$kernel, progress = FALSE), st))
  f <- do.call(fault_interrupted_run, c(list(fit0$kernel, k, seed, where = where,
                                             cores = cores), st))
  g <- suppressWarnings(extend(f, 0, cores = cores, progress = FALSE))
  list(interrupted = isTRUE(f$interrupted), warned = !is.null(attr(f, "warning")),
       counters = fault_counters_ok(f), same = fault_same_fit(g, ref),
       completed = !isTRUE(g$interrupted), fit = f)
}
