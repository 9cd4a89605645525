# The conventions of stats and rstantools model objects on the regression
# fits: update() with a formula, terms(), model.frame(), model.matrix(),
# nobs()/sigma() with their generics' arguments, posterior_epred(),
# posterior_linpred(), predictive_interval(), prior_summary(), and
# predict() on every kind of fit. Checked against lm()/glm()'s answers on
# the same data and against values computed here from the draws.

glm_data <- function(n = 80) {
  set.seed(3)
  d <- data.frame(x = rnorm(n), z = rnorm(n), g = gl(2, n / 2, labels = c("a", "b")))
  d$y <- rbinom(n, 1, plogis(-0.3 + d$x - d$z))
  d
}

# three groups of ten rows with a common line y = 1 + x (seeded)
hier_toy <- function() {
  set.seed(4)
  g <- rep(1:3, each = 10)
  xg <- rnorm(30)
  list(g = g, xg = xg, yg = 1 + xg + rnorm(30, sd = 0.5))
}

test_that("update(fit, . ~ . + z) refits with the new formula, as the direct call does", {
  d <- glm_data()
  for (fitter in list(logit_gibbs, probit_gibbs)) {
    set.seed(5)
    fit <- fitter(y ~ x, data = d, iter = 60, progress = FALSE)
    set.seed(6)
    fit2 <- update(fit, . ~ . + z)
    set.seed(6)
    direct <- fitter(y ~ x + z, data = d, iter = 60, progress = FALSE)
    expect_equal(formula(fit2), y ~ x + z, ignore_attr = TRUE)
    expect_identical(names(coef(fit2)), c("(Intercept)", "x", "z"))
    expect_identical(as.matrix(fit2), as.matrix(direct))
    # `formula =` (partial matching of formula.) and other arguments at once
    cl <- update(fit, formula = . ~ . - x + g, iter = 30, evaluate = FALSE)
    expect_equal(cl$x, y ~ g, ignore_attr = TRUE)
    expect_identical(cl$iter, 30)
  }
})

test_that("update() with a formula works on the Pima example", {
  require_suggested("MASS")
  set.seed(1)
  fit <- logit_gibbs(type ~ glu + bmi, data = MASS::Pima.tr, iter = 40, progress = FALSE)
  fit2 <- update(fit, . ~ . + age)
  expect_identical(names(coef(fit2)), c("(Intercept)", "glu", "bmi", "age"))
  expect_identical(nobs(fit2, use.fallback = TRUE), 200L)
})

test_that("update(formula. = ) on a fit without a formula is a classed refusal", {
  set.seed(1)
  xm <- cbind(1, rnorm(30))
  ym <- rbinom(30, 1, 0.5)
  pfit <- probit_gibbs(xm, ym, iter = 20, progress = FALSE)
  e <- tryCatch(update(pfit, . ~ . + z), error = identity)
  expect_s3_class(e, "mcmix_error_generic")
  expect_identical(e$arg, "formula.")
  expect_match(conditionMessage(e), "x = ", fixed = TRUE)
  mh <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 20, progress = FALSE)
  expect_error(update(mh, . ~ .), class = "mcmix_error_generic")
  expect_error(update(pfit, 30), class = "mcmix_error_input")   # unnamed change
  expect_error(update(pfit, "y ~ x"), class = "mcmix_error_input")
})

test_that("terms(), model.frame() and model.matrix() are lm()'s on the same formula", {
  d <- glm_data()
  set.seed(2)
  fit <- logit_gibbs(y ~ x + g, data = d, iter = 20, progress = FALSE)
  ref <- lm(y ~ x + g, data = d)
  expect_equal(model.frame(fit), model.frame(ref))
  expect_equal(model.matrix(fit), model.matrix(ref))
  expect_equal(terms(fit), terms(ref))
  pfit <- probit_gibbs(y ~ x + g, data = d, iter = 20, progress = FALSE)
  expect_equal(model.frame(pfit), model.frame(ref))
  # a fit from a design matrix has a design matrix only
  xm <- cbind(1, d$x)
  mfit <- probit_gibbs(xm, d$y, iter = 20, progress = FALSE)
  expect_equal(unname(model.matrix(mfit)), xm)
  expect_error(model.frame(mfit), class = "mcmix_error_generic")
  expect_error(terms(mfit), class = "mcmix_error_generic")
  mh <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 20, progress = FALSE)
  for (g in list(model.frame, model.matrix, terms))
    expect_error(g(mh), class = "mcmix_error_generic")
})

test_that("nobs() and sigma() take their generics' arguments", {
  d <- glm_data()
  set.seed(2)
  fit <- logit_gibbs(y ~ x, data = d, iter = 20, progress = FALSE)
  expect_identical(nobs(fit, use.fallback = TRUE), 80L)
  expect_error(nobs(fit, use.fallback = NA), class = "mcmix_error_input")
  expect_error(sigma(fit), class = "mcmix_error_generic")
  d <- hier_toy()
  g <- d$g; xg <- d$xg; yg <- d$yg
  hfit <- hier_lm_gibbs(cbind(1, xg), yg, g, iter = 40, progress = FALSE)
  s2 <- as.matrix(hfit)[, "sigma2"]
  expect_equal(sigma(hfit), median(sqrt(s2)))
  expect_identical(nobs(hfit, use.fallback = FALSE), 30L)
})

test_that("posterior_epred() and posterior_linpred() are F(X beta) and X beta of every draw", {
  d <- glm_data()
  nd <- data.frame(x = c(-1, 0, 2), z = c(0, 1, -1))
  for (link in c("logit", "probit")) {
    set.seed(2)
    fit <- if (link == "logit") logit_gibbs(y ~ x + z, data = d, iter = 30, progress = FALSE)
           else probit_gibbs(y ~ x + z, data = d, iter = 30, progress = FALSE)
    B <- as.matrix(fit)[, c("(Intercept)", "x", "z")]
    Xn <- cbind(1, nd$x, nd$z)
    eta <- B %*% t(Xn)
    cdf <- if (link == "logit") plogis else pnorm
    expect_equal(posterior_linpred(fit, newdata = nd), unname(eta), tolerance = 1e-12)
    expect_equal(posterior_linpred(fit, transform = TRUE, newdata = nd), unname(cdf(eta)),
                 tolerance = 1e-12)
    expect_equal(posterior_epred(fit, newdata = nd), unname(cdf(eta)), tolerance = 1e-12)
    ep <- posterior_epred(fit)
    expect_identical(dim(ep), c(nrow(B), 80L))
    expect_equal(colMeans(ep), unname(fitted(fit)), tolerance = 1e-12)
    # the generics of rstantools reach the same methods
    require_suggested("rstantools")
    expect_identical(rstantools::posterior_epred(fit, newdata = nd),
                     posterior_epred(fit, newdata = nd))
    expect_identical(rstantools::posterior_linpred(fit, newdata = nd),
                     posterior_linpred(fit, newdata = nd))
  }
  mh <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 20, progress = FALSE)
  expect_error(posterior_epred(mh), class = "mcmix_error_generic")
  expect_error(posterior_linpred(mh), class = "mcmix_error_generic")
  expect_error(posterior_epred(1), class = "mcmix_error_input")
})

test_that("posterior_epred() of hier_lm is the group regression line of every draw", {
  d <- hier_toy()
  g <- d$g; xg <- d$xg; yg <- d$yg
  hfit <- hier_lm_gibbs(cbind(1, xg), yg, g, iter = 20, progress = FALSE)
  m <- as.matrix(hfit)
  i <- 25L   # an observation of group 3
  expect_equal(posterior_epred(hfit)[, i],
               unname(m[, "beta[3,x1]"] + m[, "beta[3,xg]"] * xg[i]), tolerance = 1e-12)
  expect_identical(posterior_linpred(hfit), posterior_epred(hfit))
  expect_error(posterior_epred(hfit, newdata = data.frame(x = 1)), class = "mcmix_error_input")
})

test_that("predictive_interval() holds the quantiles of posterior_predict()", {
  d <- glm_data()
  set.seed(2)
  fit <- logit_gibbs(y ~ x, data = d, iter = 50, progress = FALSE)
  nd <- data.frame(x = c(-3, 0, 3))
  set.seed(9)
  pi <- predictive_interval(fit, prob = 0.5, newdata = nd)
  set.seed(9)
  yrep <- posterior_predict(fit, newdata = nd)
  expect_identical(colnames(pi), c("25%", "75%"))
  expect_equal(unname(pi[, 1]), unname(apply(yrep, 2, quantile, 0.25)))
  expect_equal(unname(pi[, 2]), unname(apply(yrep, 2, quantile, 0.75)))
  expect_identical(dim(predictive_interval(fit)), c(80L, 2L))
  expect_error(predictive_interval(fit, prob = 2), class = "mcmix_error_input")
})

test_that("prior_summary() shows the prior used, scaled or given", {
  set.seed(1)
  d <- data.frame(x = rnorm(50, 2000, 10))
  d$y <- rbinom(50, 1, plogis((d$x - 2000) / 10))
  fit <- logit_gibbs(y ~ x, data = d, iter = 20, progress = FALSE)
  ps <- prior_summary(fit)
  # scaled default: the slope has sd 2.5 / sd(x), the intercept the sd
  # that gives the linear predictor at mean(x) sd 2.5
  expect_equal(ps$sd[2], 2.5 / sd(d$x), tolerance = 1e-12)
  a <- c(1, mean(d$x))
  expect_equal(drop(t(a) %*% attr(ps, "cov") %*% a), 2.5^2, tolerance = 1e-8)
  expect_equal(attr(ps, "centred")[["sd"]], 2.5, tolerance = 1e-8)
  expect_output(print(ps), "centred intercept): mean 0, sd 2.5", fixed = TRUE)
  expect_identical(ps$term, c("(Intercept)", "x"))
  expect_match(attr(ps, "label"), "scaled to the data")
  expect_output(print(ps), "Priors:")
  given <- prior_summary(probit_gibbs(y ~ x, data = d, prior_cov = c(100, 4), iter = 20,
                                     progress = FALSE))
  expect_equal(given$sd, c(10, 2))
  expect_match(attr(given, "label"), "prior_cov as given")
  require_suggested("rstantools")
  expect_identical(rstantools::prior_summary(fit), ps)
  mh <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 20, progress = FALSE)
  expect_error(prior_summary(mh), class = "mcmix_error_generic")
})

test_that("predict() of logit and probit fits names its columns fit, lower, upper", {
  d <- glm_data()
  nd <- data.frame(x = c(-1, 1), z = c(0, 0))
  set.seed(2)
  lfit <- logit_gibbs(y ~ x + z, data = d, iter = 30, progress = FALSE)
  pfit <- probit_gibbs(y ~ x + z, data = d, iter = 30, progress = FALSE)
  for (fit in list(lfit, pfit)) {
    p <- predict(fit, newdata = nd, level = 0.8)
    expect_identical(names(p), c("fit", "lower", "upper"))
    ep <- posterior_epred(fit, newdata = nd)
    expect_equal(p$fit, colMeans(ep), tolerance = 1e-12, ignore_attr = TRUE)
    expect_equal(p$lower, apply(ep, 2, quantile, 0.1, names = FALSE), tolerance = 1e-12)
    expect_error(predict(fit, newdata = data.frame(w = 1)), class = "mcmix_error_input")
  }
  # the former column name of logit predictions still works, deprecated
  p <- predict(lfit, newdata = nd)
  expect_warning(m <- p$mean, class = "mcmix_deprecated")
  expect_identical(m, p$fit)
})

test_that("predict() on hier_lm gives the group lines; on target samplers a classed refusal", {
  d <- hier_toy()
  g <- d$g; xg <- d$xg; yg <- d$yg
  hfit <- hier_lm_gibbs(cbind(1, xg), yg, g, iter = 30, progress = FALSE)
  m <- as.matrix(hfit)
  p <- predict(hfit, newdata = cbind(1, c(0, 2)), group = c(3, 1))
  expect_identical(names(p), c("fit", "lower", "upper"))
  expect_equal(p$fit, c(mean(m[, "beta[3,x1]"]), mean(m[, "beta[1,x1]"] + 2 * m[, "beta[1,xg]"])),
               tolerance = 1e-12)
  expect_equal(predict(hfit)$fit, unname(fitted(hfit)), tolerance = 1e-12)
  e <- tryCatch(predict(hfit, newdata = cbind(1, 0), group = 9), error = identity)
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "group")
  nob <- hier_lm_gibbs(cbind(1, xg), yg, g, keep_beta = FALSE, iter = 10, progress = FALSE)
  expect_error(predict(nob), class = "mcmix_error_input")
  set.seed(1)
  fits <- list(
    mh = sample_mh(function(x) -x^2 / 2, init = 0, iter = 20, progress = FALSE),
    nuts = sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 20, progress = FALSE),
    ising = ising_gibbs(4, 4, J = 0.3, iter = 10, progress = FALSE))
  for (k in names(fits)) {
    e <- tryCatch(predict(fits[[k]]), error = identity)
    expect_s3_class(e, "mcmix_error_generic")
    expect_match(conditionMessage(e), "use ", info = k)
  }
  expect_match(conditionMessage(tryCatch(predict(fits$mh), error = identity)), "as.matrix()",
               fixed = TRUE)
})

test_that("subset and na.action select the rows as lm() does; weights and offsets are refused, not ignored", {
  d <- glm_data()
  d$x[c(2, 7)] <- NA
  keep <- d$z > -0.5
  for (fitter in list(logit_gibbs, probit_gibbs)) {
    # the rows lm() uses
    ref <- stats::lm(y ~ x + z, data = d, subset = z > -0.5, na.action = na.omit)
    set.seed(8)
    fit <- fitter(y ~ x + z, data = d, subset = z > -0.5, na.action = na.omit, iter = 30,
                  progress = FALSE)
    expect_identical(nobs(fit), nobs(ref))
    expect_equal(unname(model.matrix(fit)), unname(model.matrix(ref)))
    expect_identical(as.integer(fit$data$na.action), as.integer(ref$na.action))
    # the same rows given directly: the same draws
    dd <- stats::na.omit(d[keep, ])
    set.seed(8)
    direct <- fitter(y ~ x + z, data = dd, iter = 30, progress = FALSE)
    expect_identical(as.matrix(fit), as.matrix(direct))
    # na.action by name; without one a missing value stops, naming the column
    set.seed(8)
    expect_identical(nobs(fitter(y ~ x, data = d, na.action = "na.omit", iter = 5,
                                 progress = FALSE)), 78L)
    expect_error(fitter(y ~ x, data = d, iter = 5, progress = FALSE), "column x")
    expect_error(fitter(y ~ x, data = d, na.action = 3, iter = 5, progress = FALSE),
                 class = "mcmix_error_input")
    # update() drops the subset
    expect_identical(nobs(update(fit, subset = NULL, na.action = na.omit, iter = 5)), 78L)
    # weights and offsets: classed refusals naming them
    e <- tryCatch(fitter(y ~ z, data = d, weights = rep(2, 80), iter = 5, progress = FALSE),
                  error = identity)
    expect_s3_class(e, "mcmix_error_input")
    expect_identical(e$arg, "weights")
    e <- tryCatch(fitter(y ~ z, data = d, offset = d$z, iter = 5, progress = FALSE),
                  error = identity)
    expect_identical(e$arg, "offset")
    e <- tryCatch(fitter(y ~ z + offset(x), data = d, iter = 5, progress = FALSE),
                  error = identity)
    expect_s3_class(e, "mcmix_error_input")
    expect_match(conditionMessage(e), "offset()", fixed = TRUE)
  }
  # a design matrix: subset selects its rows and those of y
  X <- cbind(1, d$z)
  set.seed(9)
  a <- logit_gibbs(X, d$y, subset = 1:40, iter = 20, progress = FALSE)
  set.seed(9)
  b <- logit_gibbs(X[1:40, ], d$y[1:40], iter = 20, progress = FALSE)
  expect_identical(as.matrix(a), as.matrix(b))
  set.seed(9)
  a <- logit_gibbs(X, d$y, subset = seq_len(nrow(X)) <= 40, iter = 20, progress = FALSE)
  expect_identical(as.matrix(a), as.matrix(b))
  # what is not a selection of rows is refused, naming `subset`
  for (bad in list(list(), function() 1, complex(1), data.frame(x = 1), rep(1, 1e6), c(1, NA),
                   c(-1, 2), 0, nrow(X) + 1, TRUE, 1.5))
    expect_error(probit_gibbs(X, d$y, subset = bad, iter = 5, progress = FALSE), "`subset`",
                 class = "mcmix_error_input")
  # and with a formula: the rows of the model frame, each once
  expect_error(logit_gibbs(y ~ z, data = d, subset = rep(1, 1e6), iter = 5, progress = FALSE),
               "`subset`", class = "mcmix_error_input")
  expect_error(hier_lm_gibbs(y ~ z, data = d, group = rep(1:4, length.out = nrow(d)),
                             subset = list(), iter = 5, progress = FALSE),
               "`subset`", class = "mcmix_error_input")
})

test_that("hier_lm_gibbs() takes a formula with data and group, as lm() does, and update() changes it", {
  h <- hier_toy()
  d <- data.frame(yy = h$yg, xx = h$xg, grp = h$g)
  set.seed(10)
  ff <- hier_lm_gibbs(yy ~ xx, data = d, group = grp, iter = 50, progress = FALSE)
  set.seed(10)
  fm <- hier_lm_gibbs(cbind(1, h$xg), h$yg, h$g, iter = 50, progress = FALSE)
  # the same draws as the matrix interface, named by the formula's columns
  expect_identical(unname(as.matrix(ff)), unname(as.matrix(fm)))
  expect_identical(names(coef(ff)), c("(Intercept)", "xx"))
  expect_identical(formula(ff), yy ~ xx)
  expect_identical(colnames(model.matrix(ff)), colnames(model.matrix(stats::lm(yy ~ xx, d))))
  expect_identical(names(model.frame(ff))[1:2], c("yy", "xx"))
  # group by name or one-sided formula; subset in data
  set.seed(10)
  expect_identical(as.matrix(hier_lm_gibbs(yy ~ xx, data = d, group = "grp", iter = 50,
                                           progress = FALSE)), as.matrix(ff))
  set.seed(10)
  expect_identical(as.matrix(hier_lm_gibbs(yy ~ xx, data = d, group = ~ grp, iter = 50,
                                           progress = FALSE)), as.matrix(ff))
  expect_identical(nobs(hier_lm_gibbs(yy ~ xx, data = d, group = grp, subset = xx > 0,
                                      iter = 5, progress = FALSE)), sum(d$xx > 0))
  # update() with a changed formula
  f2 <- update(ff, . ~ . + I(xx^2), iter = 20)
  expect_identical(names(coef(f2)), c("(Intercept)", "xx", "I(xx^2)"))
  # predict() on a data frame of new rows: the matrix fit's answer
  nd <- data.frame(xx = c(-1, 0, 1))
  expect_equal(predict(ff, nd, group = c(1, 2, 3)),
               predict(fm, cbind(1, nd$xx), group = c(1, 2, 3)), ignore_attr = TRUE)
  # missing values: an error naming the column, or left out with na.omit
  d$xx[3] <- NA
  expect_error(hier_lm_gibbs(yy ~ xx, data = d, group = grp, iter = 5, progress = FALSE),
               class = "mcmix_error_input")
  expect_identical(nobs(hier_lm_gibbs(yy ~ xx, data = d, group = grp, na.action = na.omit,
                                      iter = 5, progress = FALSE)), 29L)
  # data/subset with a design matrix: a classed refusal
  expect_error(hier_lm_gibbs(cbind(1, h$xg), h$yg, h$g, data = d, iter = 5, progress = FALSE),
               class = "mcmix_error_input")
})
