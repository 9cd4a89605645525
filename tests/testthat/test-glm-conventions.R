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
  set.seed(4)
  g <- rep(1:3, each = 10)
  xg <- rnorm(30)
  yg <- 1 + xg + rnorm(30, sd = 0.5)
  hfit <- hier_lm_gibbs(cbind(1, xg), yg, g, iter = 40, progress = FALSE)
  s2 <- as.matrix(hfit)[, "sigma2"]
  expect_equal(sigma(hfit), median(sqrt(s2)))
  expect_identical(nobs(hfit, use.fallback = FALSE), 30L)
})
