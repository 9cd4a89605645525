# Independent checks of logit_gibbs()/rpolyagamma(), sample_nuts(), product
# families with missing values, lca(), cluster_profiles(), credible_ball()
# and partition(method = "salso") against exact answers on new cases, and
# regression tests for the defects these checks found.

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
qa2_logit_exact <- function(x, y, prior_sd) {
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
  ex <- qa2_logit_exact(x, y, prior_sd = 2)
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

test_that("NUTS fits carry their class once and print the diagnostics once", {
  set.seed(104)
  fit <- sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 50, burnin = 50)
  expect_false(anyDuplicated(class(fit)) > 0)
  out <- capture.output(print(fit))
  expect_equal(sum(grepl("NUTS diagnostics", out)), 1L)
  out <- capture.output(print(summary(fit)))
  expect_equal(sum(grepl("NUTS diagnostics", out)), 1L)
})

test_that("NUTS reports a failing gradient at the start without an internal call", {
  tg <- target(function(x) -sum(x^2), gradient = function(x) c(NaN, 0))
  err <- tryCatch(sample_nuts(tg, init = c(0, 0), iter = 20, burnin = 20),
                  error = function(e) e)
  expect_s3_class(err, "error")
  expect_match(conditionMessage(err), "`gradient`")
  expect_null(conditionCall(err))
  # a flat target (zero gradient everywhere) is refused, not run forever
  expect_error(sample_nuts(function(x) 0, init = c(0, 0), iter = 50, burnin = 50,
                           max_treedepth = 5), "improper")
})

test_that("NUTS recovers the moments of a correlated Gaussian and a 5-D Student t", {
  set.seed(105)
  S <- matrix(c(4, 3.8, 0.5, 3.8, 4, 0.5, 0.5, 0.5, 1), 3)
  P <- solve(S)
  mu <- c(1, -2, 3)
  fit <- sample_nuts(target(function(x) -0.5 * sum((x - mu) * (P %*% (x - mu))),
                            gradient = function(x) -as.double(P %*% (x - mu))),
                     init = c(0, 0, 0), iter = 2000, burnin = 500, metric = "dense")
  M <- fit$chains[[1]]$traces
  n_eff <- apply(M, 2L, ess)
  expect_true(all(abs(colMeans(M) - mu) < 4.5 * sqrt(diag(S) / n_eff)))
  expect_lt(max(abs(cov(M) - S) / sqrt(outer(diag(S), diag(S)))), 0.15)
  s <- 1:5
  nu <- 7
  tfit <- sample_nuts(target(function(x) -(nu + 5) / 2 * log1p(sum((x / s)^2) / nu),
                             gradient = function(x) -(nu + 5) / (nu + sum((x / s)^2)) * x / s^2),
                      init = rep(0.1, 5), iter = 3000, burnin = 500)
  T <- tfit$chains[[1]]$traces
  v <- s^2 * nu / (nu - 2)
  n_eff <- apply(T, 2L, ess)
  expect_true(all(abs(colMeans(T)) < 4.5 * sqrt(v / n_eff)))
  expect_true(all(abs(apply(T, 2L, var) / v - 1) < 0.25))
  # extend() continues the run bit for bit
  lg <- function(x) -0.5 * sum((x - mu) * (P %*% (x - mu)))
  set.seed(9); a <- sample_nuts(lg, init = c(0, 0, 0), iter = 60, burnin = 40)
  set.seed(9); b <- extend(sample_nuts(lg, init = c(0, 0, 0), iter = 30, burnin = 40), 30)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
})

test_that("a Poisson + Bernoulli + categorical product with NA equals its closed forms", {
  df <- data.frame(cnt = c(0L, 3L, 1L, NA, 5L, 2L, 0L),
                   lgl = c(TRUE, NA, FALSE, TRUE, TRUE, FALSE, TRUE),
                   cat = factor(c("u", "v", "w", "u", NA, "w", "u"),
                                levels = c("u", "v", "w", "z")))
  fam <- product_family(cnt = poisson_gamma(shape = 2, rate = 0.5),
                        lgl = bernoulli_beta(a = 2, b = 3),
                        cat = categorical_dirichlet(alpha = 0.7))
  lml_pois <- function(x, a = 2, b = 0.5) {
    x <- x[!is.na(x)]
    a * log(b) - lgamma(a) + lgamma(a + sum(x)) - (a + sum(x)) * log(b + length(x)) -
      sum(lgamma(x + 1))
  }
  lml_cat <- function(cc, al = rep(0.7, 4))
    lgamma(sum(al)) - lgamma(sum(al) + sum(cc)) + sum(lgamma(al + cc) - lgamma(al))
  z <- df$lgl[!is.na(df$lgl)]
  cc <- as.numeric(table(df$cat))
  exact <- lml_pois(df$cnt) + lbeta(2 + sum(z), 3 + sum(!z)) - lbeta(2, 3) + lml_cat(cc)
  prep <- mcmix:::family_prepare(fam, df)
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_marginal"), exact, tolerance = 1e-10)
  # the predictive of a new row with a missing logical and an unseen category
  new <- data.frame(cnt = 4L, lgl = NA, cat = factor("z", levels = levels(df$cat)))
  cc2 <- cc + c(0, 0, 0, 1)
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_predictive", new),
               lml_pois(c(df$cnt, 4L)) - lml_pois(df$cnt) + lml_cat(cc2) - lml_cat(cc),
               tolerance = 1e-10)
  # an all-NA column is refused by name; an all-NA row is accepted
  d2 <- df
  d2$none <- NA_real_
  expect_error(auto_family(d2, quiet = TRUE), "none")
  d3 <- df
  d3[2, ] <- NA
  set.seed(106)
  f3 <- sample_posterior(dp_mixture(fam), d3, iter = 30, progress = FALSE)
  expect_length(partition(f3)$labels, nrow(d3))
})

test_that("lca() checks `prior` by its own name and profiles factor/logical columns", {
  tab <- data.frame(q1 = factor(c("y", "y", "n", "n", "y", "n")),
                    q2 = c(TRUE, TRUE, FALSE, FALSE, TRUE, FALSE),
                    q3 = c(1L, 1L, 2L, 2L, 1L, 3L))
  expect_error(lca(tab, K = 2, prior = -1), "`prior`")
  expect_error(lca(tab, K = 2, prior = NA), "`prior`")
  set.seed(107)
  fit <- lca(tab, K = 2, iter = 200, progress = FALSE)
  pr <- lca_probs(fit)
  for (m in pr$mean) expect_equal(unname(rowSums(m)), rep(1, nrow(m)), tolerance = 1e-10)
  # profiles: a logical column gives P(TRUE), a factor one row per level
  n <- 30
  g <- rep(1:2, each = 15)
  df <- data.frame(num = c(rnorm(15, 0), rnorm(15, 6)), yes = g == 1,
                   f = factor(ifelse(g == 1, "hi", "lo")))
  df$yes[4] <- NA
  fit <- sample_posterior(dp_mixture(auto_family(df, quiet = TRUE)), df, iter = 200,
                          progress = FALSE)
  prof <- cluster_profiles(fit, estimate = g, format = "long")
  yes <- prof[prof$column == "yes", ]
  expect_equal(yes$category, c("TRUE", "TRUE"))
  expect_equal(yes$observed, c(1, 0))
  f <- prof[prof$column == "f", ]
  expect_equal(f$observed, c(0, 1))   # P(second level "lo") by cluster
  expect_true(all(f$lower <= f$mean & f$mean <= f$upper))
})

qa2_enum <- function(n) {
  if (n == 1L) return(list(1L))
  out <- list()
  for (p in qa2_enum(n - 1L)) for (j in seq_len(max(p) + 1L)) out[[length(out) + 1L]] <- c(p, j)
  out
}
qa2_vi <- function(a, b) {
  t <- table(a, b) / length(a)
  pa <- rowSums(t); pb <- colSums(t)
  -sum(pa * log2(pa)) - sum(pb * log2(pb)) - 2 * sum(ifelse(t > 0, t * log2(t / outer(pa, pb)), 0))
}

test_that("partition() attains the exact minimum VI and Binder loss on small draws", {
  set.seed(108)
  for (rep in 1:6) {
    N <- sample(3:6, 1)
    L <- t(replicate(sample(4:12, 1), sample.int(sample(1:3, 1), N, TRUE)))
    parts <- qa2_enum(N)
    vi <- vapply(parts, function(p) mean(apply(L, 1L, function(r) qa2_vi(p, r))), 0)
    P <- psm(L)
    bi <- vapply(parts, function(p) sum(abs(outer(p, p, "==") - P)[upper.tri(P)]), 0)
    expect_equal(partition(L)$loss, min(vi), tolerance = 1e-9)
    pb <- partition(L, loss = "binder")
    expect_equal(sum(abs(outer(pb$labels, pb$labels, "==") - P)[upper.tri(P)]), min(bi),
                 tolerance = 1e-9)
  }
})

test_that("partition() and credible_ball() handle N = 1, N = 2, one cluster, singletons", {
  expect_equal(partition(matrix(1L, 5, 1))$labels, 1L)
  cb <- credible_ball(matrix(1L, 5, 1))
  expect_equal(cb$radius, 0)
  L2 <- rbind(matrix(1L, 6, 2), matrix(c(1L, 2L), 4, 2, byrow = TRUE))
  expect_equal(partition(L2)$labels, c(1L, 1L))
  cb <- credible_ball(L2, level = 0.5)
  expect_equal(cb$radius, 0)           # 60% of the draws equal the estimate
  cb <- credible_ball(L2, level = 0.95)
  expect_equal(cb$radius, 1)           # VI (log base 2) between {12} and {1}{2}
  expect_equal(cb$bounds$n_clusters, c(1, 2, 2))
  expect_equal(partition(matrix(1L, 8, 5))$labels, rep(1L, 5))
  expect_equal(partition(matrix(1:5, 8, 5, byrow = TRUE), loss = "binder")$labels, 1:5)
  # a similarity matrix given directly
  P <- matrix(c(1, .9, .1, .9, 1, .2, .1, .2, 1), 3)
  expect_equal(partition(P)$labels, c(1L, 1L, 2L))
  expect_equal(partition(P, loss = "binder")$labels, c(1L, 1L, 2L))
  expect_error(credible_ball(L2, estimate = c(1, NA)), "estimate")
  expect_error(partition(matrix(NA_integer_, 2, 2)), "`x`")
  expect_error(partition(L2, runs = 0), "runs")
})

test_that("logit_gibbs refuses prior_cov together with prior_var instead of ignoring it", {
  d <- data.frame(y = c(0, 1, 1, 0, 1, 0), x = c(-1, 2, 0.5, -0.3, 1, -2))
  expect_error(logit_gibbs(y ~ x, data = d, prior_cov = 4, prior_var = c(2, 2), iter = 10),
               "prior_cov")
  set.seed(109)
  fit <- logit_gibbs(y ~ x, data = d, prior_var = c(2, 2), iter = 20, burnin = 5)
  expect_true(all(fit$chains[[1]]$traces[, "v0"] > 0))
})
