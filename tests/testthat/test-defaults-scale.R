# Defaults on the user's scale (R/scaled_prior.R, ?mcmix-defaults): the
# default priors of the regression samplers follow the units of the data.
# Checked against lme4's and glm()'s estimates on data whose units are far
# from 1 (reaction times in milliseconds, calendar years), against the
# closed form of the scaled prior, and by equivariance under a change of
# units (the same seed gives the same draws, rescaled). sample_mh() adapts
# its random-walk scale during burn-in by default (a target of scale 0.1).

# lme4's sleepstudy (Belenky et al. 2003): reaction time (ms) of 18
# subjects on days 0-9 of sleep deprivation, in the order of the data set.
sleep_reaction <- c(
  249.5600, 258.7047, 250.8006, 321.4398, 356.8519, 414.6901, 382.2038, 290.1486,
  430.5853, 466.3535, 222.7339, 205.2658, 202.9778, 204.7070, 207.7161, 215.9618,
  213.6303, 217.7272, 224.2957, 237.3142, 199.0539, 194.3322, 234.3200, 232.8416,
  229.3074, 220.4579, 235.4208, 255.7511, 261.0125, 247.5153, 321.5426, 300.4002,
  283.8565, 285.1330, 285.7973, 297.5855, 280.2396, 318.2613, 305.3495, 354.0487,
  287.6079, 285.0000, 301.8206, 320.1153, 316.2773, 293.3187, 290.0750, 334.8177,
  293.7469, 371.5811, 234.8606, 242.8118, 272.9613, 309.7688, 317.4629, 309.9976,
  454.1619, 346.8311, 330.3003, 253.8644, 283.8424, 289.5550, 276.7693, 299.8097,
  297.1710, 338.1665, 332.0265, 348.8399, 333.3600, 362.0428, 265.4731, 276.2012,
  243.3647, 254.6723, 279.0244, 284.1912, 305.5248, 331.5229, 335.7469, 377.2990,
  241.6083, 273.9472, 254.4907, 270.8021, 251.4519, 254.6362, 245.4523, 235.3110,
  235.7541, 237.2466, 312.3666, 313.8058, 291.6112, 346.1222, 365.7324, 391.8385,
  404.2601, 416.6923, 455.8643, 458.9167, 236.1032, 230.3167, 238.9256, 254.9220,
  250.7103, 269.7744, 281.5648, 308.1020, 336.2806, 351.6451, 256.2968, 243.4543,
  256.2046, 255.5271, 268.9165, 329.7247, 379.4445, 362.9184, 394.4872, 389.0527,
  250.5265, 300.0576, 269.8939, 280.5891, 271.8274, 304.6336, 287.7466, 266.5955,
  321.5418, 347.5655, 221.6771, 298.1939, 326.8785, 346.8555, 348.7402, 352.8287,
  354.4266, 360.4326, 375.6406, 388.5417, 271.9235, 268.4369, 257.2424, 277.6566,
  314.8222, 317.2135, 298.1353, 348.1229, 340.2800, 366.5131, 225.2640, 234.5235,
  238.9008, 240.4730, 267.5373, 344.1937, 281.1481, 347.5855, 365.1630, 372.2288,
  269.8804, 272.4428, 277.8989, 281.7895, 279.1705, 284.5120, 259.2658, 304.6306,
  350.7807, 369.4692, 269.4117, 273.4740, 297.5968, 310.6316, 287.1726, 329.6076,
  334.4818, 343.2199, 369.1417, 364.1236
)
sleep_subject <- factor(rep(c(308, 309, 310, 330, 331, 332, 333, 334, 335, 337, 349, 350, 351,
                              352, 369, 370, 371, 372), each = 10))
sleep_days <- rep(0:9, 18)
# lme4::fixef(lme4::lmer(Reaction ~ Days + (Days | Subject), sleepstudy))
sleep_fixef <- c(251.405105, 10.467286)

test_that("hier_lm_gibbs() defaults agree with lme4 on sleepstudy, with ESS of 100 or more", {
  X <- cbind("(Intercept)" = 1, Days = sleep_days)
  set.seed(1)
  fit <- hier_lm_gibbs(X, sleep_reaction, sleep_subject, keep_beta = FALSE, progress = FALSE)
  expect_no_warning(s <- summary(fit))
  tab <- s$table[c("mu[(Intercept)]", "mu[Days]"), ]
  expect_true(all(abs(tab$mean - sleep_fixef) < 3 * tab$sd))
  expect_true(all(tab$ess_bulk >= 100))
  out <- capture.output(print(fit))
  expect_match(out, "^Priors: +mu0, V0, S0, s0sq scaled to the data \\(sd\\(y\\) 56\\.[0-9]", all = FALSE)
})

test_that("the scaled prior is the documented one: centred intercept at mean(y), 2.5 sd(y) / sd(x)", {
  set.seed(2)
  x <- rnorm(30, 2000, 10)
  y <- rnorm(30, 5e4, 300)
  g <- rep(1:3, 10)
  fit <- hier_lm_gibbs(cbind(1, x), y, g, iter = 2, burnin = 0, progress = FALSE)
  m <- fit$model
  L <- rbind(c(1, mean(x)), c(0, 1))   # (beta_1, beta_2) -> (centred intercept, slope)
  expect_equal(as.vector(L %*% m$mu0), c(mean(y), 0))
  expect_equal(L %*% m$V0 %*% t(L), diag(c((2.5 * sd(y))^2, (2.5 * sd(y) / sd(x))^2)),
               tolerance = 1e-8)
  expect_equal(L %*% m$S0 %*% t(L), diag(c(sd(y)^2, (sd(y) / sd(x))^2)), tolerance = 1e-8)
  expect_equal(m$s0sq, var(y))
  # logit: centred intercept and slopes with scale 2.5 / sd(x); probit 2.5 * dlogis(0) / dnorm(0)
  yb <- rep(0:1, 15)
  lg <- logit_gibbs(cbind(1, x), yb, iter = 2, burnin = 0, progress = FALSE)$model
  expect_equal(L %*% lg$prior_cov %*% t(L), diag(c(2.5^2, (2.5 / sd(x))^2)), tolerance = 1e-8)
  pb <- probit_gibbs(cbind(1, x), yb, iter = 2, burnin = 0, progress = FALSE)$model
  sc <- 2.5 * dlogis(0) / dnorm(0)
  expect_equal(L %*% pb$prior_cov %*% t(L), diag(c(sc^2, (sc / sd(x))^2)), tolerance = 1e-8)
  # without an intercept column: the root mean square of each column
  nx <- logit_gibbs(cbind(x), yb, iter = 2, burnin = 0, progress = FALSE)$model
  expect_equal(drop(nx$prior_cov), (2.5 / sqrt(mean(x^2)))^2)
})

test_that("explicit priors are used as given, and print() says so", {
  X <- cbind(1, sleep_days)
  set.seed(3)
  fit <- hier_lm_gibbs(X, sleep_reaction, sleep_subject, mu0 = 0, V0 = 100, S0 = 1, s0sq = 1,
                       iter = 20, burnin = 0, progress = FALSE)
  expect_identical(fit$model$mu0, c(0, 0))
  expect_identical(fit$model$V0, diag(100, 2))
  expect_identical(fit$model$s0sq, 1)
  expect_match(suppressWarnings(capture.output(print(fit))),
               "^Priors: +mu0, V0, S0, s0sq as given$", all = FALSE)
  part <- hier_lm_gibbs(X, sleep_reaction, sleep_subject, V0 = 1e6, iter = 2, burnin = 0,
                        progress = FALSE)
  expect_identical(part$model$V0, diag(1e6, 2))
  expect_equal(part$model$mu0[1], mean(sleep_reaction))
  expect_match(mcmix:::fit_prior_label(part),
               "mu0, S0, s0sq scaled to the data .*; V0 as given")
  lg <- logit_gibbs(X, rep(0:1, 90), prior_cov = 100, iter = 2, burnin = 0, progress = FALSE)
  expect_identical(lg$model$prior_cov, diag(100, 2))
  expect_identical(mcmix:::fit_prior_label(lg), "prior_cov as given")
})

test_that("a change of units rescales the hier_lm_gibbs() draws and nothing else", {
  X <- cbind(1, sleep_days)
  set.seed(4)
  a <- hier_lm_gibbs(X, sleep_reaction, sleep_subject, iter = 50, burnin = 10, progress = FALSE)
  # seconds instead of milliseconds, hours instead of days
  set.seed(4)
  b <- hier_lm_gibbs(cbind(1, 24 * sleep_days), sleep_reaction / 1000, sleep_subject, iter = 50,
                     burnin = 10, progress = FALSE)
  ta <- unname(as.matrix(a))
  tb <- unname(as.matrix(b))
  # mu[1], mu[2], Sigma[1,1], Sigma[2,1], Sigma[2,2], sigma2
  expect_equal(tb[, 1] * 1000, ta[, 1], tolerance = 1e-6)
  expect_equal(tb[, 2] * 1000 * 24, ta[, 2], tolerance = 1e-6)
  expect_equal(tb[, 4] * 1e6 * 24, ta[, 4], tolerance = 1e-6)
  expect_equal(tb[, 6] * 1e6, ta[, 6], tolerance = 1e-6)
})

# A logistic regression on calendar years: glm's intercept is near -275.
year_data <- function() {
  set.seed(3)
  year <- round(runif(200, 1990, 2020))
  data.frame(y = rbinom(200, 1, plogis(0.15 * (year - 2005))), year = year)
}

test_that("logit_gibbs() and probit_gibbs() defaults agree with glm() on a covariate in the thousands", {
  d <- year_data()
  for (link in c("logit", "probit")) {
    g <- stats::glm(y ~ year, family = stats::binomial(link), data = d)
    set.seed(1)
    fit <- if (link == "logit") logit_gibbs(y ~ year, data = d, progress = FALSE)
           else probit_gibbs(y ~ year, data = d, progress = FALSE)
    expect_no_warning(s <- summary(fit))
    tab <- s$table
    expect_true(all(abs(tab$mean - stats::coef(g)) < 3 * tab$sd), label = link)
    expect_true(all(tab$ess_bulk >= 100), label = link)
    expect_match(capture.output(print(fit)), "^Priors: +prior_cov scaled to the data", all = FALSE)
  }
})

test_that("a change of units rescales the logit_gibbs() and probit_gibbs() draws", {
  d <- year_data()
  d$decades <- d$year / 10
  for (link in c("logit", "probit")) {
    run <- function(f) {
      set.seed(5)
      if (link == "logit") logit_gibbs(f, data = d, iter = 30, burnin = 5, progress = FALSE)
      else probit_gibbs(f, data = d, iter = 30, burnin = 5, progress = FALSE)
    }
    a <- as.matrix(run(y ~ year))
    b <- as.matrix(run(y ~ decades))
    expect_equal(b[, "decades"] / 10, a[, "year"], tolerance = 1e-6, label = link)
    expect_equal(b[, "(Intercept)"], a[, "(Intercept)"], tolerance = 1e-6, label = link)
  }
})

test_that("gp_classify()'s default lengthscale follows the units of x", {
  set.seed(6)
  x <- sort(runif(15, 0, 3))
  y <- as.integer(x + rnorm(15, sd = 0.5) > 1.5)
  run <- function(scale) {
    set.seed(7)
    gp_classify(x * scale, y, x_test = c(0.5, 2.5) * scale, iter = 40, burnin = 10,
                progress = FALSE)
  }
  a <- run(1)
  b <- run(1000)   # metres instead of kilometres
  expect_equal(b$model$kernel$lengthscale, 1000 * sd(x))
  expect_equal(predict(b), predict(a), tolerance = 1e-6)
  expect_match(mcmix:::fit_prior_label(b), "lengthscale scaled to the data")
})

test_that("sample_mh() adapts its scale during burn-in by default: a target of scale 0.1", {
  lp <- function(b) sum(dnorm(b, c(1, 2, 3), 0.1, log = TRUE))
  set.seed(1)
  f <- sample_mh(lp, init = c(0, 0, 0), progress = FALSE)
  expect_identical(f$model$adapt$kind, "scale")
  acc <- acceptance(f)[1, 1]
  expect_gt(acc, 0.05)
  expect_lt(acc, 0.95)
  m <- colMeans(as.matrix(f))
  expect_true(all(abs(m - c(1, 2, 3)) < 4 * mcse(f)))
  # the ESS of a random walk in 3 dimensions is about 10% of the draws:
  # the guard names exactly the coordinates below 100
  e <- ess(f)
  tab <- mcmix:::fit_guard_table(f)
  expect_setequal(tab$name, names(e)[e < 100])
  expect_lt(min(e), 100)
  expect_warning(summary(f), class = "mcmix_warning_mixing")
  # no adaptation asked for, or none possible: the proposal as given
  set.seed(1)
  expect_identical(sample_mh(lp, init = c(0, 0, 0), iter = 10, burnin = 0,
                             progress = FALSE)$model$adapt$kind, "none")
  mix <- proposal_mixture(list(proposal_rw(0.1), proposal_rw(1)))
  expect_identical(sample_mh(lp, init = c(0, 0, 0), iter = 10, proposal = mix,
                             progress = FALSE)$model$adapt$kind, "none")
  # the fixed default scale 2.38 / sqrt(3) on this target: the classed warning
  set.seed(1)
  f0 <- sample_mh(lp, init = c(0, 0, 0), adapt = adapt_none(), progress = FALSE)
  expect_warning(summary(f0), "acceptance rate of chain 1 \\(0\\.0", class = "mcmix_warning_mixing")
})

test_that("?mcmix-defaults lists every exported sampler and every family", {
  db <- tools::Rd_db("mcmix")
  rd <- db[["mcmix-defaults.Rd"]]
  expect_false(is.null(rd))
  txt <- paste(as.character(rd), collapse = "")
  ns <- asNamespace("mcmix")
  exports <- getNamespaceExports("mcmix")
  # the samplers: functions with run settings or particles, the sample_*
  # functions, the model constructors given to sample_posterior(), families
  is_sampler <- function(n) {
    f <- get(n, envir = ns)
    is.function(f) && (grepl("^sample_", n) ||
      any(c("iter", "n_particles", "n_runs") %in% names(formals(f))))
  }
  samplers <- setdiff(Filter(is_sampler, exports), c("run_kernel", "extend", "sample_posterior"))
  models <- c("dp_mixture", "finite_mixture", "hdp_mixture", "lda_model", "rj_mixture",
              "rg_prior", "lca", "bayes_net", "factor_model", "dp_control")
  expect_true(all(models %in% exports))
  fams <- mcmix_families()
  fams <- if (is.data.frame(fams)) fams[[1L]] else fams
  for (n in unique(c(samplers, models, intersect(fams, exports))))
    expect_match(txt, paste0("\\b", n, "\\("), label = n)
  expect_gt(length(samplers), 15L)
})
