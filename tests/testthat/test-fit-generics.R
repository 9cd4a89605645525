# The stats generics, log_lik()/posterior_predict(), tidy()/glance(), loo
# and bayesplot on a fit of every kind (helper-fits.R), checked against
# values computed here from the draws (medians, covariances, quantiles,
# closed-form likelihoods), and update() on every kind.

fits <- fits_of_every_sampler()
env <- attr(fits, "env")

targets <- c("kernel", "mh", "slice", "hmc", "gibbs", "tempering", "nuts")
regressions <- c("logit", "probit")
mixtures <- c("finite", "dp", "dp_slice")
# Which generics answer on which kind: "ok", "refuse" (mcmix_error_generic),
# or the argument named by an input error (the fit lacks stored draws).
generic_table <- function(kind) {
  g <- c("coef", "vcov", "confint", "posterior_interval", "tidy", "fitted",
         "residuals", "nobs", "formula", "logLik", "log_lik", "posterior_predict")
  out <- stats::setNames(rep("refuse", length(g)), g)
  par <- c("coef", "vcov", "confint", "posterior_interval", "tidy")
  obs <- c("fitted", "residuals", "logLik", "log_lik", "posterior_predict")
  if (kind %in% c(targets, regressions, "hier_lm", "finite")) out[par] <- "ok"
  if (kind %in% c(regressions, "gp_classify", "hier_lm", mixtures, "hdp", "rj", "lca"))
    out["nobs"] <- "ok"
  if (kind %in% regressions) out[obs] <- "ok"
  if (kind == "logit") out["formula"] <- "ok"   # probit was fitted from a matrix
  if (kind %in% mixtures) out[c("logLik", "log_lik", "posterior_predict")] <- "ok"
  if (kind == "lca") out[c("logLik", "log_lik")] <- "ok"
  if (kind == "gp_classify") out[obs] <- "keep_f"
  if (kind == "hier_lm") out[obs] <- "keep_beta"
  out
}

call_generic <- function(g, fit) switch(g,
  tidy = generics::tidy(fit), posterior_predict = posterior_predict(fit, ndraws = 4),
  get(g)(fit))

test_that("every generic answers or refuses with a classed error, on every kind of fit", {
  require_suggested("generics")
  expect_setequal(names(fits), c(targets, regressions, mixtures, "gp_classify", "ising",
                                 "ising_sw", "hier_lm", "hdp", "lda", "rj", "bayes_net", "lca"))
  for (kind in names(fits)) {
    tab <- generic_table(kind)
    for (g in names(tab)) {
      set.seed(1)
      res <- tryCatch(call_generic(g, fits[[kind]]), error = function(e) e)
      info <- paste(kind, g)
      if (tab[[g]] == "ok") {
        expect_false(inherits(res, "error"), info = paste(info, if (inherits(res, "error")) conditionMessage(res)))
        expect_false(is.null(res), info = info)
      } else if (tab[[g]] == "refuse") {
        expect_s3_class(res, "mcmix_error_generic")
        expect_match(conditionMessage(res), "use ", info = info)
      } else {
        expect_s3_class(res, "mcmix_error_input")
        expect_identical(res$arg, tab[[g]], info = info)
      }
    }
  }
})

# the parameter draws each kind reports, taken here from the traces
param_columns <- function(kind, fit) {
  m <- as.matrix(fit)
  switch(kind, logit = , probit = m[, c(1, 2), drop = FALSE],
         hier_lm = { p <- m[, c("mu[x1]", "mu[xg]")]; colnames(p) <- c("x1", "xg"); p },
         m)
}

test_that("coef, vcov, confint, posterior_interval and tidy are the posterior summaries of the parameters", {
  require_suggested("generics")
  for (kind in c(targets, regressions, "hier_lm")) {
    fit <- fits[[kind]]
    d <- param_columns(kind, fit)
    expect_equal(coef(fit), apply(d, 2, median), info = kind)
    expect_equal(vcov(fit), cov(d), info = kind)
    ci <- confint(fit, level = 0.8)
    expect_equal(unname(ci), unname(t(apply(d, 2, quantile, c(0.1, 0.9)))), info = kind)
    expect_identical(colnames(ci), c("10 %", "90 %"))
    expect_identical(colnames(posterior_interval(fit)), c("5%", "95%"))
    td <- generics::tidy(fit)
    expect_identical(names(td), c("term", "estimate", "std.error", "conf.low", "conf.high",
                                  "rhat", "ess_bulk"))
    expect_identical(td$term, colnames(d))
    expect_equal(td$std.error, unname(apply(d, 2, sd)))
    expect_equal(td$conf.low, unname(confint(fit)[, 1]))
    r <- rhat(fit)
    rn <- if (kind == "hier_lm") c("mu[x1]", "mu[xg]") else colnames(d)
    expect_equal(td$rhat, unname(if (length(r) == 1L) r else r[rn]), info = kind)
    e <- ess(fit)
    expect_equal(td$ess_bulk, unname(if (length(e) == 1L) e else e[rn]), info = kind)
  }
  expect_error(confint(fits$mh, parm = "zz"), class = "mcmix_error_input")
  expect_equal(rownames(confint(fits$mh, parm = "b")), "b")
  # finite mixtures: component-level (ECR-relabelled) parameters
  set.seed(2)
  cf <- coef(fits$finite)
  set.seed(2)
  cd <- component_draws(fits$finite)
  expect_identical(names(cf), c(sprintf("weight[%d]", 1:3), sprintf("mean[%d]", 1:3),
                                sprintf("cov[%d]", 1:3)))
  expect_equal(unname(cf[4:6]), unname(apply(cd$params$mean[, , 1], 2, median)))
  gl <- generics::glance(fits$logit)
  expect_identical(names(gl), c("algorithm", "chains", "draws", "nobs", "max_rhat",
                                "min_ess_bulk", "elapsed"))
  expect_identical(gl$draws, 120L)
  expect_identical(generics::glance(fits$mh)$nobs, NA_integer_)
})

test_that("fitted, residuals, nobs, log_lik and logLik of regressions match the likelihood", {
  for (kind in regressions) {
    fit <- fits[[kind]]
    X <- fit$data$X
    y <- fit$data$y
    eta <- as.matrix(fit)[, colnames(X)] %*% t(X)
    cdf <- if (kind == "logit") plogis else pnorm
    expect_equal(fitted(fit), colMeans(cdf(eta)), info = kind)
    expect_equal(residuals(fit), y - colMeans(cdf(eta)), info = kind)
    expect_identical(nobs(fit), 40L)
    ll <- matrix(dbinom(rep(y, each = nrow(eta)), 1, cdf(eta), log = TRUE), nrow(eta))
    expect_equal(unclass(log_lik(fit))[, ], ll, info = kind)
    expect_identical(attr(log_lik(fit), "chain_id"), rep(1:2, each = 60))
    l <- logLik(fit)
    expect_equal(as.numeric(l), sum(log(colMeans(exp(ll)))))
    expect_equal(attr(l, "df"), sum(apply(ll, 2, var)))
    expect_equal(AIC(l), -2 * as.numeric(l) + 2 * attr(l, "df"))
  }
  expect_equal(formula(fits$logit), y ~ x, ignore_attr = TRUE)
  expect_error(formula(fits$probit), class = "mcmix_error_generic")
  expect_identical(nobs(fits$hier_lm), 32L)
  expect_identical(nobs(fits$dp), 45L)
  # glm's type names
  p <- predict(fits$logit, type = "prob")
  expect_identical(predict(fits$logit, type = "response"), p)
})

test_that("hier_lm_gibbs() and gp_classify() with their draws stored answer fitted() and log_lik()", {
  set.seed(3)
  g <- rep(1:3, each = 5)
  x <- rnorm(15)
  y <- 1 + x + rnorm(3)[g] + rnorm(15, sd = 0.3)
  X <- cbind(1, x)
  fit <- hier_lm_gibbs(X, y, g, iter = 40, burnin = 10, progress = FALSE)
  m <- as.matrix(fit)
  b <- function(j) m[, sprintf("beta[%d,%s]", j, c("x1", "x"))]
  mu <- sapply(1:15, function(i) b(g[i]) %*% X[i, ])
  expect_equal(fitted(fit), colMeans(mu))
  ll <- matrix(dnorm(rep(y, each = nrow(m)), mu, sqrt(m[, "sigma2"]), log = TRUE), nrow(m))
  expect_equal(unclass(log_lik(fit))[, ], ll)
  yrep <- posterior_predict(fit)
  expect_identical(dim(yrep), c(40L, 15L))
  gp <- gp_classify(x, as.integer(y > 1), iter = 30, burnin = 10, progress = FALSE)
  f <- as.matrix(gp)[, paste0("f[", 1:15, "]")]
  expect_equal(fitted(gp), colMeans(pnorm(f)))
})

test_that("log_lik() of mixtures sums the allocation out, given the drawn cluster parameters", {
  for (kind in mixtures) {
    fit <- fits[[kind]]
    x <- fit$data[, 1]
    set.seed(4)
    cd <- component_draws(fit, relabel = "none")
    set.seed(4)
    ll <- log_lik(fit)
    a <- fit$family$family$args
    # the prior predictive of the Normal-inverse-Wishart family (D = 1):
    # Student t, df nu, location m0, scale^2 Psi (kappa + 1) / (kappa nu)
    s0 <- sqrt(c(a$scale) * (a$kappa + 1) / (a$kappa * a$df))
    p0 <- dt((x - a$prior_mean) / s0, a$df) / s0
    ref <- t(vapply(seq_len(nrow(cd$weights)), function(s) {
      w <- cd$weights[s, ]
      k <- which(!is.na(w))
      dens <- vapply(k, function(j) w[j] * dnorm(x, cd$params$mean[s, j, 1],
                                                  sqrt(cd$params$cov[s, j, 1, 1])), numeric(length(x)))
      rowSums(matrix(dens, length(x))) + if (is.null(cd$rest)) 0 else cd$rest[s] * p0
    }, numeric(length(x))))
    expect_equal(unclass(ll)[, ], log(ref), tolerance = 1e-10, info = kind)
  }
})

test_that("posterior_predict() replicates the data: regression means and mixture moments", {
  fit <- fits$probit
  set.seed(5)
  yrep <- posterior_predict(fit)
  expect_identical(dim(yrep), c(120L, 40L))
  p <- fitted(fit)
  z <- (colMeans(yrep) - p) / sqrt(pmax(p * (1 - p), 1e-3) / 120)
  expect_lt(max(abs(z)), 4.5)
  expect_identical(dim(posterior_predict(fit, newdata = cbind(1, c(-1, 0, 1)), ndraws = 7)),
                   c(7L, 3L))
  # finite mixture: the mean of the replicates is the mixture mean of the
  # drawn parameters, sum_k w_k mu_k, within Monte Carlo error
  mix <- fits$finite
  set.seed(6)
  cd <- component_draws(mix, relabel = "none")
  set.seed(6)
  yr <- posterior_predict(mix)
  expect_identical(dim(yr), c(120L, 45L))
  m_s <- rowSums(cd$weights * cd$params$mean[, , 1])
  v_s <- rowSums(cd$weights * (cd$params$cov[, , 1, 1] + cd$params$mean[, , 1]^2)) - m_s^2
  se <- sqrt(sum(v_s * 45)) / length(yr)
  expect_lt(abs(mean(yr) - mean(m_s)), 4 * se)
  expect_error(posterior_predict(fits$dp, newdata = 1), class = "mcmix_error_input")
})

test_that("loo(), waic() and pp_check() work on a regression and a mixture fit", {
  require_suggested("loo")
  require_suggested("bayesplot")
  for (kind in c("logit", "finite")) {
    set.seed(7)
    l <- suppressWarnings(loo::loo(fits[[kind]]))
    expect_s3_class(l, "psis_loo")
    expect_identical(dim(l$pointwise)[1], nobs(fits[[kind]]))
    w <- suppressWarnings(loo::waic(fits[[kind]]))
    expect_s3_class(w, "waic")
    set.seed(7)
    p <- bayesplot::pp_check(fits[[kind]], ndraws = 10)
    expect_s3_class(p, "ggplot")
  }
  expect_s3_class(bayesplot::pp_check(fits$logit, type = "bars"), "ggplot")
  expect_error(bayesplot::pp_check(fits$logit, type = "nonsense"), class = "mcmix_error_input")
  # loo on the matrix agrees with loo on the fit (same relative efficiencies)
  ll <- log_lik(fits$logit)
  r <- loo::relative_eff(exp(ll), chain_id = attr(ll, "chain_id"))
  expect_equal(suppressWarnings(loo::loo(unclass(ll)[, ], r_eff = r))$estimates,
               suppressWarnings(loo::loo(fits$logit))$estimates)
})

test_that("bayesplot's diagnostic generics: log_posterior(), neff_ratio(), rhat()", {
  require_suggested("bayesplot")
  lp <- bayesplot::log_posterior(fits$nuts)
  expect_identical(names(lp), c("Chain", "Iteration", "Value"))
  th <- fits$nuts$chains[[2]]$traces
  expect_equal(lp$Value[lp$Chain == 2], -rowSums(th^2) / 2)
  expect_equal(bayesplot::neff_ratio(fits$nuts), ess(fits$nuts) / 120)
  expect_equal(bayesplot::rhat(fits$nuts), rhat(fits$nuts))
  expect_error(bayesplot::log_posterior(fits$logit), class = "mcmix_error_generic")
})

test_that("update() re-runs every kind of fit from its call, stored under the exported name", {
  exported <- getNamespaceExports("mcmix")
  for (kind in names(fits)) {
    cl <- update(fits[[kind]], iter = 30, evaluate = FALSE)
    expect_true(as.character(cl[[1L]]) %in% exported, info = kind)
    set.seed(8)
    new <- suppressWarnings(eval(cl, env))
    expect_identical(class(new), class(fits[[kind]]), info = kind)
    expect_identical(nrow(as.matrix(new)), 60L, info = kind)
  }
  expect_match(capture.output(print(fits$dp))[3], "^Call: +sample_posterior\\(model = ")
})

test_that("window() keeps the draws of a range of iterations", {
  fit <- fits$mh
  w <- window(fit, start = 41, end = 70, thin = 3)
  its <- as.data.frame(w)$.iteration
  expect_equal(its[1:10], c(41, 44, 47, 50, 53, 56, 59, 62, 65, 68))
  expect_identical(w$chains[[2]]$traces, fit$chains[[2]]$traces[c(21, 24, 27, 30, 33, 36, 39, 42, 45, 48), ])
  expect_identical(dim(as.array(w)), c(10L, 2L, 2L))
  expect_identical(window(fit)$chains, fit$chains)
  expect_error(extend(w, 10), "window")
  expect_error(window(fit, start = 90), class = "mcmix_error_input")
  expect_error(window(fit, start = 50, end = 40), class = "mcmix_error_input")
  wl <- window(fits$dp, start = 50)
  expect_identical(dim(partition_draws(wl)), c(62L, 45L))
})

test_that("random initial values when init is missing; the print names the gradient", {
  ld <- function(x) -sum(x^2) / 2
  tg <- target(ld, dim = 2)
  for (f in list(sample_mh, sample_nuts, sample_slice, sample_hmc)) {
    set.seed(9)
    a <- f(tg, iter = 20, burnin = 5, chains = 2, progress = FALSE)
    set.seed(9)
    b <- f(tg, init = function(chain) runif(2, -2, 2), iter = 20, burnin = 5, chains = 2,
           progress = FALSE)
    expect_identical(a$chains, b$chains)
  }
  e <- tryCatch(sample_nuts(ld, iter = 10), error = function(e) e)
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "init")
  expect_match(format(fits$nuts), "gradient by central finite differences")
  g <- sample_nuts(target(ld, gradient = function(x) -x), init = c(0, 0), iter = 10,
                   progress = FALSE)
  expect_match(format(g), "analytic gradient")
})

test_that("sample_gibbs(conditionals, init) passes a named state; the former order is deprecated", {
  cond <- list(function(th) rnorm(1, 0.5 * th[["y"]], 1), function(th) rnorm(1, 0.5 * th[["x"]], 1))
  set.seed(10)
  new <- sample_gibbs(cond, init = c(x = 0, y = 0), iter = 30, progress = FALSE)
  set.seed(10)
  expect_warning(old <- sample_gibbs(c(x = 0, y = 0), cond, iter = 30, progress = FALSE),
                 class = "mcmix_deprecated")
  expect_identical(old$chains, new$chains)
  expect_identical(names(old$call)[2:3], c("conditionals", "init"))
  expect_error(sample_gibbs(cond), "`init`")
})

test_that("x is the design matrix everywhere; X and X_test still work, deprecated", {
  set.seed(11)
  x <- rnorm(8)
  y <- rep(0:1, 4)
  set.seed(12)
  a <- gp_classify(x, y, x_test = c(-1, 1), iter = 10, progress = FALSE)
  set.seed(12)
  expect_warning(expect_warning(
    b <- gp_classify(X = x, y = y, X_test = c(-1, 1), iter = 10, progress = FALSE),
    class = "mcmix_deprecated"), class = "mcmix_deprecated")
  expect_identical(a$chains, b$chains)
  expect_setequal(names(b$call), c("", "x", "y", "x_test", "iter", "progress"))
  g <- rep(1:2, each = 4)
  set.seed(13)
  h1 <- hier_lm_gibbs(cbind(1, x), x + rnorm(8), g, iter = 10, progress = FALSE)
  set.seed(13)
  expect_warning(h2 <- hier_lm_gibbs(X = cbind(1, x), y = x + rnorm(8), group = g, iter = 10,
                                     progress = FALSE), class = "mcmix_deprecated")
  expect_identical(h1$chains[[1]]$traces, h2$chains[[1]]$traces)
  expect_identical(names(formals(logit_gibbs))[1], "x")
  expect_identical(names(formals(probit_gibbs))[1], "x")
  expect_identical(names(formals(gp_classify))[1], "x")
  expect_identical(names(formals(hier_lm_gibbs))[1], "x")
})

test_that("nuts_params() gives bayesplot the sampler parameters of every kept NUTS iteration", {
  require_suggested("bayesplot")
  fit <- fits$nuts
  np <- bayesplot::nuts_params(fit)
  expect_identical(names(np), c("Chain", "Iteration", "Parameter", "Value"))
  expect_identical(levels(np$Parameter), c("accept_stat__", "stepsize__", "treedepth__",
                                           "n_leapfrog__", "divergent__", "energy__"))
  expect_identical(nrow(np), 2L * 60L * 6L)
  dg <- nuts_diagnostics(fit)
  for (i in 1:2) {
    v <- function(p) np$Value[np$Chain == i & np$Parameter == p]
    expect_equal(sum(v("n_leapfrog__")), dg$n_leapfrog[i])
    expect_equal(sum(v("divergent__")), dg$divergent[i])
    expect_equal(mean(v("accept_stat__")), dg$accept_stat[i])
    expect_true(all(v("stepsize__") == dg$step_size[i]))
  }
  expect_s3_class(bayesplot::mcmc_nuts_energy(np), "ggplot")
  # window() and extend() keep them in step with the draws
  w <- window(fit, start = 31, thin = 2)
  expect_identical(nrow(bayesplot::nuts_params(w)), 2L * 25L * 6L)
  set.seed(3)
  e <- extend(sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 20,
                          burnin = 10, progress = FALSE), 15)
  expect_identical(nrow(bayesplot::nuts_params(e)), 35L * 6L)
})

test_that("bayesplot's divergence plot takes nuts_params() with the log posterior", {
  # mcmc_nuts_divergence() arranges its panels with gridExtra (a bayesplot Suggests)
  require_suggested("bayesplot")
  require_suggested("gridExtra")
  fit <- fits$nuts
  np <- bayesplot::nuts_params(fit)
  lp <- bayesplot::log_posterior(fit)
  expect_identical(nrow(lp), 2L * 60L)
  expect_s3_class(bayesplot::mcmc_nuts_divergence(np, lp), "bayesplot_grid")
})

test_that("rstantools' generics find the methods; glm's type names for predict()", {
  require_suggested("rstantools")
  set.seed(14)
  a <- rstantools::posterior_predict(fits$logit, ndraws = 5)
  set.seed(14)
  expect_identical(a, posterior_predict(fits$logit, ndraws = 5))
  expect_identical(rstantools::log_lik(fits$probit), log_lik(fits$probit))
  expect_identical(rstantools::posterior_interval(fits$probit, prob = 0.5),
                   posterior_interval(fits$probit, prob = 0.5))
  # gp_classify(): "response" (probabilities) and "link" (the latent mean)
  set.seed(15)
  x <- c(-2, -1, 1, 2)
  gp <- gp_classify(x, c(0, 0, 1, 1), iter = 30, burnin = 10, progress = FALSE)
  expect_identical(predict(gp, newdata = 0.5, type = "response"), predict(gp, newdata = 0.5))
  lk <- predict(gp, newdata = 0.5, type = "link")
  expect_length(lk, 1L)
  expect_error(predict(gp, type = "link"), class = "mcmix_error_input")
})

test_that("log_lik() of the Student-t logit uses the sampled degrees of freedom", {
  set.seed(16)
  d <- data.frame(x = rnorm(30))
  d$y <- rbinom(30, 1, plogis(d$x))
  fit <- logit_gibbs(y ~ x, data = d, method = "student_t", nu = c(4, 8, 16), iter = 40,
                     burnin = 10, progress = FALSE)
  m <- as.matrix(fit)
  eta <- m[, c("(Intercept)", "x")] %*% t(cbind(1, d$x))
  p <- pt(eta, df = m[, "nu"])
  ll <- matrix(dbinom(rep(d$y, each = nrow(m)), 1, p, log = TRUE), nrow(m))
  expect_equal(unclass(log_lik(fit))[, ], ll)
})

test_that("the package's generics refuse what is no fit, and bad `parm` or `newdata`, naming the argument", {
  for (g in list(log_lik, posterior_predict, posterior_interval))
    for (v in list(matrix(1:4, 2), factor("a"), as.Date("2020-01-01"), function(...) NULL))
      expect_error(g(v), "^`object` must be a fit", class = "mcmix_error_input")
  expect_error(formula(fits$probit), "`x`", class = "mcmix_error_generic")
  for (parm in list(function(...) NULL, rep(1, 1e6), c(1, 1), NA, character(), 3))
    expect_error(confint(fits$logit, parm = parm), "^`parm` must be", class = "mcmix_error_input")
  expect_identical(rownames(confint(fits$logit, parm = 2)), "x")
  for (fit in list(fits$logit, fits$probit)) {
    expect_error(predict(fit, newdata = data.frame(x = numeric(0))), "^`newdata`")
    expect_error(predict(fit, newdata = data.frame(x = c(NA_real_, NA))), "^`newdata`")
  }
})
