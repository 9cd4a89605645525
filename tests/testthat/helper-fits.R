# One small fit of every sampler of the package (for the tests of fit
# methods: printing, conversion to coda/posterior/bayesplot). Two chains
# each, so that R-hat and gelman.diag() apply; fixed seeds.
fits_of_every_sampler <- function() {
  ld <- function(x) -sum(x^2) / 2
  set.seed(11)
  x3 <- c(rnorm(15, -4), rnorm(15, 0), rnorm(15, 4))
  rho <- 0.5
  cond <- list(function(th) rnorm(1, rho * th[2], sqrt(1 - rho^2)),
               function(th) rnorm(1, rho * th[1], sqrt(1 - rho^2)))
  g <- rep(1:4, each = 8)
  xg <- rnorm(32)
  yg <- 1 + 2 * xg + rnorm(4)[g] + rnorm(32, sd = 0.5)
  xp <- rnorm(40)
  yp <- as.integer(xp + rnorm(40) > 0)
  docs <- list(c(1, 1, 2, 1, 2), c(3, 3, 4, 4), c(4, 3, 3, 4, 3), c(1, 2, 2, 1))
  groups <- list(a = c(rnorm(10, -4), rnorm(10)), b = c(rnorm(10), rnorm(10, 4)))
  k <- new_kernel("iid_normal", init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = matrix(rnorm(length(keep)), ncol = 1,
                                                       dimnames = list(NULL, "x"))))
    }, trace_names = "x")
  run <- function(expr) { set.seed(7); expr }   # lazy: the seed is set first
  # the environment of the calls goes with the fits, for update() (its
  # calls are evaluated there)
  structure(env = environment(), list(
    kernel = run(run_kernel(k, iter = 60, burnin = 20, chains = 2, progress = FALSE)),
    mh = run(sample_mh(ld, init = c(a = 0, b = 0), adapt = adapt_haario(),
                       iter = 60, burnin = 20, chains = 2, progress = FALSE)),
    slice = run(sample_slice(ld, init = c(0, 0), iter = 60, burnin = 20, chains = 2,
                             progress = FALSE)),
    hmc = run(sample_hmc(ld, init = c(0, 0), iter = 60, burnin = 20, chains = 2,
                         progress = FALSE)),
    gibbs = run(sample_gibbs(cond, init = c(x = 0, y = 0), iter = 60, burnin = 20, chains = 2,
                             progress = FALSE)),
    tempering = run(sample_tempering(function(x) -x^2 / 2, function(x) 0, init = 0,
                                     temperatures = c(1, 0.5), iter = 60, burnin = 20,
                                     chains = 2, progress = FALSE)),
    probit = run(probit_gibbs(cbind(1, xp), yp, iter = 60, burnin = 20, chains = 2,
                              progress = FALSE)),
    gp_classify = run(gp_classify(xp[1:12], yp[1:12], keep_f = FALSE, iter = 60,
                                  burnin = 20, chains = 2, progress = FALSE)),
    ising = run(ising_gibbs(8, 8, J = 0.3, iter = 60, burnin = 20, chains = 2,
                            progress = FALSE)),
    ising_sw = run(ising_swendsen_wang(8, 8, J = 0.3, iter = 60, burnin = 20, chains = 2,
                                       progress = FALSE)),
    hier_lm = run(hier_lm_gibbs(cbind(1, xg), yg, g, keep_beta = FALSE, iter = 60,
                                burnin = 20, chains = 2, progress = FALSE)),
    finite = run(sample_posterior(finite_mixture(gaussian_niw(), K = 3), x3, iter = 60,
                                  burnin = 20, chains = 2, progress = FALSE)),
    dp = run(sample_posterior(dp_mixture(gaussian_niw()), x3, iter = 60, burnin = 20,
                              chains = 2, progress = FALSE)),
    dp_slice = run(sample_posterior(dp_mixture(gaussian_niw()), x3, algorithm = "slice",
                                    iter = 60, burnin = 20, chains = 2, progress = FALSE)),
    hdp = run(sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)), groups,
                               iter = 60, burnin = 20, chains = 2, progress = FALSE)),
    lda = run(sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs, iter = 60,
                               burnin = 20, chains = 2, progress = FALSE)),
    nuts = run(sample_nuts(ld, init = c(0, 0), iter = 60, burnin = 20, chains = 2,
                           progress = FALSE)),
    logit = run(logit_gibbs(y ~ x, data = data.frame(x = xp, y = yp), iter = 60,
                            burnin = 20, chains = 2, progress = FALSE)),
    rj = run(sample_posterior(rj_mixture(k_max = 5), x3, iter = 60, burnin = 20,
                              chains = 2, progress = FALSE)),
    bayes_net = run(sample_posterior(bayes_net_asia(), list(dysp = "yes"), iter = 60,
                                     burnin = 20, chains = 2, progress = FALSE)),
    lca = run(lca(data.frame(q1 = rep(c("yes", "no"), 20), q2 = rep(c("a", "b", "b", "a"), 10)),
                  K = 2, iter = 60, burnin = 20, chains = 2, progress = FALSE))
  ))
}

# print() output without the run time (the only line that varies).
print_without_time <- function(lines) sub("^Time: .*$", "Time:      <elapsed>", lines)
