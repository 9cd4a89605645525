# logit_gibbs(): Polya-Gamma, Holmes-Held and Student-t auxiliary variables,
# against the exact moments of PG(1, z) draws (series), the exact posterior
# of a one-coefficient model (numerical integration) and simulation-based
# calibration; predict() and the prior arguments refuse bad input.

# Exact moments of PG(1, z): mean tanh(z/2) / (2z), and the variance from
# the series PG(1, z) = sum_k g_k / (2 pi^2 ((k - 1/2)^2 + z^2 / (4 pi^2))),
# g_k ~ Exp(1), i.e. var = sum_k 1 / (4 pi^4 ((k - 1/2)^2 + z^2/(4 pi^2))^2),
# checked against the closed form (sinh z - z) / (4 z^3 cosh^2(z/2)).
pg_mean <- function(z) if (z == 0) 1 / 4 else tanh(z / 2) / (2 * z)
pg_var_series <- function(z) {
  k <- seq_len(2e5)
  sum(1 / (4 * pi^4 * ((k - 0.5)^2 + z^2 / (4 * pi^2))^2))
}

test_that("rpolyagamma matches the exact mean and variance of PG(1, z)", {
  set.seed(11)
  n <- 20000
  for (z in c(0, 0.5, 2, -3, 10, 50)) {
    v <- pg_var_series(z)
    # Var PG(1, z) = (sinh|z| - |z|) / (4 |z|^3 cosh^2(z/2)), 1/24 at z = 0
    v_exact <- if (z == 0) 1 / 24 else
      (sinh(abs(z)) - abs(z)) / (4 * abs(z)^3 * cosh(z / 2)^2)
    expect_equal(v, v_exact, tolerance = 1e-4)
    x <- rpolyagamma(n, z)
    expect_true(all(x > 0))
    expect_lt(abs(mean(x) - pg_mean(z)), 5 * sqrt(v / n))
    se_var <- stats::sd((x - mean(x))^2) / sqrt(n)
    expect_lt(abs(stats::var(x) - v), 5 * se_var)
  }
  expect_equal(pg_var_series(0), 1 / 24, tolerance = 1e-6)
})

test_that("the Holmes-Held mixing variance leaves the logistic law invariant", {
  # e ~ logistic, lambda | e from the KS-mixture conditional, e' ~ N(0, lambda):
  # e' is again logistic, and E[lambda] = pi^2 / 3.
  set.seed(12)
  n <- 20000
  e <- stats::rlogis(n)
  lam <- mcmix:::rks_mixing(n, e)
  expect_true(all(lam > 0))
  expect_lt(abs(mean(lam) - pi^2 / 3), 5 * stats::sd(lam) / sqrt(n))
  e2 <- stats::rnorm(n, 0, sqrt(lam))
  expect_gt(suppressWarnings(stats::ks.test(e2, "plogis")$p.value), 0.001)
})

test_that("each scheme agrees with numerical integration of a one-coefficient posterior", {
  x <- c(-1, 0.5, 1, 2, -0.3, 1.5, -2, 0.2)
  y <- c(0, 1, 0, 1, 1, 1, 0, 1)
  s8 <- pi * sqrt(6 / 24)
  links <- list(polya_gamma = stats::plogis, holmes_held = stats::plogis,
                student_t = function(e) stats::pt(e / s8, 8))
  set.seed(13)
  for (m in names(links)) {
    lk <- links[[m]]
    post <- function(b) stats::dnorm(b, 0, 2) *
      vapply(b, function(bb) prod(lk((2 * y - 1) * x * bb)), 0)
    Z <- stats::integrate(post, -Inf, Inf)$value
    m1 <- stats::integrate(function(b) b * post(b), -Inf, Inf)$value / Z
    m2 <- stats::integrate(function(b) b^2 * post(b), -Inf, Inf)$value / Z
    fit <- logit_gibbs(matrix(x), y, method = m, prior_cov = 4, iter = 20000,
                       burnin = 100, progress = FALSE)
    b <- fit$chains[[1]]$traces[, 1]
    expect_lt(abs(mean(b) - m1), 5 * batch_se(b))
    expect_lt(abs(mean(b^2) - m2), 5 * batch_se(b^2))
  }
})

test_that("the three schemes agree with each other and with a long MH run on MASS::Pima.tr", {
  require_suggested("MASS")
  d <- MASS::Pima.tr
  X <- stats::model.matrix(type ~ ., d)
  y <- as.integer(d$type == "Yes")
  # MH on the exact log posterior (prior N(0, 100 I)), normal independence
  # proposal with twice the covariance of the maximum likelihood estimate
  g <- stats::glm(type ~ ., data = d, family = stats::binomial)
  lp <- function(b) {
    eta <- as.vector(X %*% b)
    sum(y * eta - log1p(exp(eta))) - sum(b^2) / 200
  }
  set.seed(14)
  mh <- sample_mh(lp, init = stats::coef(g), iter = 40000, burnin = 1000,
                  proposal = proposal_independent(mean = stats::coef(g),
                                                  cov = 2 * stats::vcov(g)),
                  progress = FALSE)
  ref <- mh$chains[[1]]$traces
  post_sd <- apply(ref, 2, stats::sd)
  fits <- lapply(c("polya_gamma", "holmes_held", "student_t"), function(m)
    logit_gibbs(type ~ ., data = d, method = m, prior_cov = 100, iter = 8000, burnin = 500,
                progress = FALSE)$chains[[1]]$traces)
  names(fits) <- c("polya_gamma", "holmes_held", "student_t")
  se <- function(tr) apply(tr, 2, batch_se)
  for (m in c("polya_gamma", "holmes_held")) {
    tr <- fits[[m]]
    z <- (colMeans(tr) - colMeans(ref)) / sqrt(se(tr)^2 + se(ref)^2)
    expect_true(all(abs(z) < 4.5), info = m)
    expect_true(all(abs(apply(tr, 2, stats::sd) / post_sd - 1) < 0.15), info = m)
  }
  zpg <- (colMeans(fits$polya_gamma) - colMeans(fits$holmes_held)) /
    sqrt(se(fits$polya_gamma)^2 + se(fits$holmes_held)^2)
  expect_true(all(abs(zpg) < 4.5))
  # the Student-t link approximates the logistic: means within 0.25
  # posterior standard deviations of the logit posterior
  expect_true(all(abs(colMeans(fits$student_t) - colMeans(ref)) / post_sd < 0.25))
  # and the Student-t scheme is exact for its own (t link) posterior
  s8 <- pi * sqrt(6 / 24)
  lp_t <- function(b) {
    eta <- as.vector(X %*% b) / s8
    sum(stats::pt(ifelse(y == 1, eta, -eta), 8, log.p = TRUE)) - sum(b^2) / 200
  }
  set.seed(15)
  mh_t <- sample_mh(lp_t, init = stats::coef(g), iter = 40000, burnin = 1000,
                    proposal = proposal_independent(mean = stats::coef(g),
                                                    cov = 2 * stats::vcov(g)),
                    progress = FALSE)$chains[[1]]$traces
  z <- (colMeans(fits$student_t) - colMeans(mh_t)) /
    sqrt(se(fits$student_t)^2 + se(mh_t)^2)
  expect_true(all(abs(z) < 4.5))
})

# SBC design: n = 12 points, intercept and slope; L = 19 thinned draws;
# 200 replications of `one()` (returning the ranks of k parameters).
sbc_X <- cbind(1, seq(-1.5, 1.5, length.out = 12))
sbc_L <- 19L
logit_sbc <- function(k, one) t(vapply(seq_len(200L), function(r) one(), numeric(k)))

test_that("Polya-Gamma (with the inverse-gamma prior on v0) is calibrated (SBC)", {
  skip_on_cran()
  set.seed(2025)
  X <- sbc_X; n <- nrow(X); L <- sbc_L
  ranks <- logit_sbc(3, function() {
    v0 <- 1 / stats::rgamma(1, 4, 3)
    beta <- stats::rnorm(2, 0, sqrt(v0))
    y <- stats::rbinom(n, 1, stats::plogis(X %*% beta))
    fit <- logit_gibbs(X, y, prior_var = c(4, 3), iter = L * 4, burnin = 20,
                       thin = 4, progress = FALSE)
    sbc_rank(fit$chains[[1]]$traces, c(beta, v0))
  })
  expect_true(all(sbc_pvalues(ranks, L) > 0.001))
})

test_that("Holmes-Held and Student-t with nu on a grid are calibrated (SBC)", {
  skip_on_cran()
  set.seed(2026)
  X <- sbc_X; n <- nrow(X); L <- sbc_L
  ranks <- logit_sbc(2, function() {
    beta <- stats::rnorm(2)
    y <- stats::rbinom(n, 1, stats::plogis(X %*% beta))
    fit <- logit_gibbs(X, y, method = "holmes_held", prior_cov = 1,
                       iter = L * 5, burnin = 20, thin = 5, progress = FALSE)
    sbc_rank(fit$chains[[1]]$traces, beta)
  })
  expect_true(all(sbc_pvalues(ranks, L) > 0.001))
  # robit model with nu ~ uniform on a grid (eq. 24.92), unit scale
  grid <- c(1, 2, 4, 8, 16)
  ranks <- logit_sbc(3, function() {
    beta <- stats::rnorm(2)
    nu <- sample(grid, 1)
    y <- stats::rbinom(n, 1, stats::pt(X %*% beta, nu))
    fit <- logit_gibbs(X, y, method = "student_t", nu = grid, prior_cov = 1,
                       iter = L * 5, burnin = 20, thin = 5, progress = FALSE)
    tr <- fit$chains[[1]]$traces
    # rank of a discrete parameter: uniform among the tied positions
    c(sbc_rank(tr[, 1:2], beta),
      sum(tr[, 3] < nu) + sample.int(sum(tr[, 3] == nu) + 1L, 1L) - 1L)
  })
  expect_true(all(sbc_pvalues(ranks, L) > 0.001))
})

test_that("logit_gibbs: extend() equals one longer run, predict() gives probabilities", {
  d <- data.frame(x = c(-2, -1, -0.5, 0, 0.5, 1, 2, 3),
                  g = factor(c("a", "b", "a", "b", "a", "b", "a", "b")),
                  y = c(0, 0, 1, 0, 1, 1, 1, 1))
  for (m in c("polya_gamma", "holmes_held", "student_t")) {
    set.seed(5)
    a <- logit_gibbs(y ~ x + g, data = d, method = m, iter = 30, burnin = 7,
                     thin = 2, chains = 2, progress = FALSE)
    a <- extend(a, 40)
    set.seed(5)
    b <- logit_gibbs(y ~ x + g, data = d, method = m, iter = 70, burnin = 7,
                     thin = 2, chains = 2, progress = FALSE)
    expect_identical(a$chains[[2]]$traces, b$chains[[2]]$traces)
  }
  expect_equal(colnames(b$chains[[1]]$traces), c("(Intercept)", "x", "gb"))
  set.seed(6)
  fit <- logit_gibbs(y ~ x + g, data = d, iter = 400, burnin = 50, progress = FALSE)
  nd <- data.frame(x = c(-1, 0, 4), g = c("a", "b", "b"))
  p <- predict(fit, newdata = nd, level = 0.9)
  expect_equal(dim(p), c(3L, 3L))
  expect_true(all(p$lower <= p$upper & p$lower >= 0 & p$upper <= 1))
  B <- fit$chains[[1]]$traces
  Xn <- cbind(1, nd$x, nd$g == "b")
  pr <- stats::plogis(B %*% t(Xn))
  expect_equal(p$fit, colMeans(pr), tolerance = 1e-12)
  expect_equal(p$lower, apply(pr, 2, stats::quantile, 0.05, names = FALSE),
               tolerance = 1e-12)
  lk <- predict(fit, newdata = nd, type = "link")
  expect_equal(lk$fit, as.vector(Xn %*% colMeans(B)), tolerance = 1e-10)
  expect_equal(nrow(predict(fit)), nrow(d))
  # the t link with nu sampled on a grid: predict() uses each draw's nu
  set.seed(7)
  ft <- logit_gibbs(y ~ x + g, data = d, method = "student_t", nu = c(2, 8, 32),
                    iter = 200, burnin = 20, progress = FALSE)
  Bt <- ft$chains[[1]]$traces
  expect_true(all(Bt[, "nu"] %in% c(2, 8, 32)))
  expect_equal(predict(ft, nd)$fit,
               colMeans(stats::pt(Bt[, 1:3] %*% t(Xn), df = Bt[, "nu"])),
               tolerance = 1e-12)
  r <- unserialize(serialize(fit, NULL))
  expect_equal(predict(r, nd, level = 0.9), p)
})

test_that("logit_gibbs refuses bad input, naming the argument", {
  X <- cbind(1, 1:4)
  expect_error(logit_gibbs(X, c(0, 1, 2, 1)), "`y`")
  expect_error(logit_gibbs(X, c(0, 1, 1, 0), method = "gibbs"), "`method`")
  expect_error(logit_gibbs(X, c(0, 1, 1, 0), prior_cov = -1), "`prior_cov`")
  expect_error(logit_gibbs(X, c(0, 1, 1, 0), prior_var = c(1, -1)), "`prior_var`")
  expect_error(logit_gibbs(X, c(0, 1, 1, 0), method = "student_t", nu = -2), "`nu`")
  expect_error(logit_gibbs(X, c(0, 1, 1, 0), method = "student_t", t_scale = 0),
               "`t_scale`")
  expect_error(logit_gibbs(X, c(0, 1, 1, 0), iter = 0), "`iter`")
  expect_error(logit_gibbs(X, c(0, 1, 1, 0), foo = 1), "`foo`")
  expect_error(logit_gibbs(y ~ x, data = data.frame(x = 1:3, y = c(0, 1, NA))),
               "`data`")
  fit <- logit_gibbs(X, c(0, 1, 1, 0), iter = 20, burnin = 0, progress = FALSE)
  expect_error(predict(fit, newdata = matrix(1, 2, 3)), "`newdata`")
  expect_error(predict(fit, level = 2), "`level`")
  expect_error(rpolyagamma(-1), "`n`")
  expect_error(rpolyagamma(2, NA), "`z`")
})

test_that("PG(1, z) draws have the exact mean and variance at new z", {
  set.seed(101)
  n <- 20000
  for (z in c(0.3, 2.5, -7, 40)) {
    x <- rpolyagamma(n, z)
    a <- abs(z)
    m <- tanh(a / 2) / (2 * a)
    v <- (sinh(a) - a) / (4 * a^3 * cosh(a / 2)^2)
    expect_lt(abs(mean(x) - m), 4.5 * sqrt(v / n))
    # the variance of the sample variance from the fourth moment (a bound)
    expect_lt(abs(var(x) / v - 1), 0.08)
    expect_true(all(x > 0))
  }
})

# The exact posterior mean and sd of a one-coefficient logistic regression
# by numerical integration.
logit_exact_1d <- function(x, y, prior_sd) {
  lp <- function(b) vapply(b, function(bb) {
    eta <- bb * x
    sum(y * eta - log1p(exp(eta))) + stats::dnorm(bb, 0, prior_sd, log = TRUE)
  }, 0)
  grid_max <- stats::optimize(lp, c(-20, 20), maximum = TRUE)$objective
  f <- function(b, k) b^k * exp(lp(b) - grid_max)
  Z <- stats::integrate(f, -30, 30, k = 0)$value
  m <- stats::integrate(f, -30, 30, k = 1)$value / Z
  m2 <- stats::integrate(f, -30, 30, k = 2)$value / Z
  c(mean = m, sd = sqrt(m2 - m^2))
}

test_that("logit_gibbs matches the exact posterior of a one-coefficient model", {
  set.seed(102)
  x <- c(-1.5, -0.7, -0.2, 0.1, 0.4, 0.9, 1.3, 2, -2.2, 0.6, 1.1, -0.4)
  y <- c(0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0)
  ex <- logit_exact_1d(x, y, prior_sd = 2)
  for (m in c("polya_gamma", "holmes_held")) {
    fit <- logit_gibbs(y ~ x - 1, data = data.frame(x = x, y = y), method = m,
                       prior_cov = 4, iter = 6000, burnin = 500)
    b <- fit$chains[[1]]$traces[, "x"]
    n_eff <- ess(b)
    expect_lt(abs(mean(b) - ex[["mean"]]), 4.5 * ex[["sd"]] / sqrt(n_eff))
    expect_lt(abs(sd(b) / ex[["sd"]] - 1), 0.1)
  }
})

test_that("predict() of a logit fit refuses NA rows in newdata instead of dropping them", {
  set.seed(103)
  d <- data.frame(y = c(0, 1, 1, 0, 1, 0, 1, 1), x = c(-1, 2, 0.5, -0.3, 1, -2, 0.2, 3))
  fit <- logit_gibbs(y ~ x, data = d, iter = 50, burnin = 10)
  expect_equal(nrow(predict(fit, newdata = data.frame(x = c(0, 1, 2)))), 3L)
  expect_error(predict(fit, newdata = data.frame(x = c(0, NA))), "newdata")
})

test_that("logit_gibbs refuses prior_cov together with prior_var instead of ignoring it", {
  d <- data.frame(y = c(0, 1, 1, 0, 1, 0), x = c(-1, 2, 0.5, -0.3, 1, -2))
  expect_error(logit_gibbs(y ~ x, data = d, prior_cov = 4, prior_var = c(2, 2), iter = 10),
               "prior_cov")
  set.seed(109)
  fit <- logit_gibbs(y ~ x, data = d, prior_var = c(2, 2), iter = 20, burnin = 5)
  expect_true(all(fit$chains[[1]]$traces[, "v0"] > 0))
})
