# The main error messages of every exported constructor and sampler, as
# snapshots: a change of wording shows up in review. Snapshots run in every
# test run, not only where NOT_CRAN is set (restored at the end of the file).
not_cran <- Sys.getenv("NOT_CRAN", NA)
Sys.setenv(NOT_CRAN = "true")

tg <- function(x) -sum(x^2) / 2
X <- cbind(1, c(-1, -0.5, 0.5, 1))
y <- c(0, 0, 1, 1)

test_that("prior simulators", {
  set.seed(1)   # rdp() draws the number of values asked of `base`
  expect_snapshot(error = TRUE, {
    rcrp(-1, alpha = 1)
    rcrp(10, alpha = 0)
    rcrp(10, alpha = 1, discount = 1)
    rdp(5, alpha = 1, base = "normal")
    rdp(5, alpha = 1, base = function(n) matrix(0, n + 1, 2))
    rstick(0, alpha = 1)
    rstick(alpha = 1, tol = 2)
    rstick(3, alpha = 1, tol = 0.1)
    rpolyagamma(-1)
  })
})

test_that("component families and priors", {
  expect_snapshot(error = TRUE, {
    gaussian_niw(kappa = -1)
    gaussian_niw(scale = matrix(c(1, 2, 2, 1), 2))
    gaussian_mean(cov = matrix(c(1, 0.5, 0, 1), 2))
    gaussian_diag(shape = c(1, NA))
    gaussian_nonconj(prior_mean = "a")
    bernoulli_beta(a = c(1, 2), b = c(1, 2, 3))
    categorical_dirichlet(alpha = 0)
    poisson_gamma(rate = -1)
    product_family()
    r_family(log_lik = 1)
    gamma_prior(-1, 1)
    beta_prior(1, 0)
    rg_prior(xi = "a")
  })
})

test_that("mixture models", {
  expect_snapshot(error = TRUE, {
    finite_mixture(gaussian_niw(), K = 0)
    finite_mixture("gaussian", K = 2)
    dp_mixture(gaussian_niw(), alpha = -1)
    dp_mixture(gaussian_niw(), discount = 1)
    dp_control(m = 0)
    hdp_mixture(gaussian_niw(), gamma = 0)
    lda_model(K = 0)
    rj_mixture(k_max = 0)
    sample_posterior(finite_mixture(gaussian_niw(), K = 2), matrix(1, 1, 1))
    sample_posterior(dp_mixture(gaussian_niw()), matrix(c(1, 2, NA, 4), 4),
                     algorithm = "gibbs")
    sample_posterior(dp_mixture(gaussian_niw()), c(1, 2, 3), iter = -1)
    sample_posterior(dp_mixture(gaussian_niw()), c(1, 2, 3), foo = 1)
  })
})

test_that("generic samplers", {
  expect_snapshot(error = TRUE, {
    target("f")
    new_kernel(1, init = function(chain) 0, step = identity, trace_names = "x")
    sample_mh(tg, init = 0, iter = -1)
    sample_mh(tg, init = 0, burnin = 1.5)
    sample_mh(tg, init = 0, proposal = "rw")
    proposal_rw(scale = 1, cov = 1)
    adapt_scale(target_accept = 2)
    sample_slice(tg, init = 0, thin = 0)
    sample_hmc(tg, init = 0, chains = 0)
    sample_nuts(tg, init = 0, max_treedepth = 0)
    sample_gibbs(init = 0, conditionals = "a")
    sample_tempering(tg, tg, init = 0, temperatures = c(1, -1))
    sample_smc(tg, tg, prior_sampler = 1)
    sample_abc(function() 0, function(p) 0, observed = 0, quantile = 2)
    ais(tg, tg, prior_sampler = function(n) rnorm(n), n_runs = 0)
    anneal(tg, init = 0, iter = 0)
    anneal(tg, init = 0, t0 = -1)
  })
})

test_that("model samplers", {
  expect_snapshot(error = TRUE, {
    probit_gibbs(X, y, prior_cov = -1)
    probit_gibbs(X, c(0, 2, 1, 1))
    probit_gibbs(X, y, foo = 1)
    logit_gibbs(X, y, method = "probit")
    gp_classify(X[, 2], y, variance = 0)
    gp_classify(X[, 2], y[-1])
    hier_lm_gibbs(X, c(y, 1), 1:4)
    hier_lm_gibbs(X, y, 1:4, eta0 = 0.5)
    ising_gibbs(0, 3)
    ising_swendsen_wang(3, 3, J = -1)
    lca(data.frame(a = factor(c("x", "y"))), K = 0)
    bayes_net(list())
    factor_model(list())
  })
})

test_that("fits, diagnostics and partitions", {
  expect_snapshot(error = TRUE, {
    extend(1, iter = 10)
    rhat("a")
    ess(1:3)
    psm("a")
    partition("a")
    credible_ball("a")
    map_partition(1, 1)
  })
})

if (is.na(not_cran)) Sys.unsetenv("NOT_CRAN") else Sys.setenv(NOT_CRAN = not_cran)
