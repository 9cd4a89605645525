# A component family added from outside: the small package under
# inst/plugins/mcmixexpgamma includes <mcmix.h>, registers
# "exponential_gamma" through R_GetCCallable("mcmix", ...) when its shared
# library is loaded, and is then used by name like a built-in family.
#
# The package is copied to a temporary directory, installed there with
# `R CMD INSTALL` of the running R, and loaded once per test run (its
# descriptor stays registered for the session, so it is never unloaded).

# Install (once, through install_test_plugin() in helper-plugins.R) and load
# the plugin; returns its namespace.
plugin_ns <- function() install_test_plugin("mcmixexpgamma")

family_names <- function() {
  f <- mcmix::mcmix_families()
  if (is.data.frame(f)) as.character(f$name) else as.character(f)
}

test_that("the plugin family is registered and listed by mcmix_families()", {
  plugin_ns()
  expect_true("exponential_gamma" %in% family_names())
  # the built-in families are still there
  expect_true(all(c("gaussian_niw", "poisson_gamma") %in% family_names()))
})

test_that("a plugin built for another ABI version is refused with a clear error", {
  ns <- plugin_ns()
  expect_error(ns$register_bad_abi(), "ABI version")
  expect_false("exponential_gamma_future" %in% family_names())
})

test_that("the plugin's R constructor validates its input and builds a family", {
  ns <- plugin_ns()
  fam <- ns$exponential_gamma(shape = 2, rate = 3)
  expect_s3_class(fam, "mcmix_family")
  expect_error(ns$exponential_gamma(shape = -1), "`shape`")
  expect_error(ns$exponential_gamma(rate = NA), "`rate`")
})

# The families' generic evaluation helper (.family_eval() in R/family.R,
# over ffi_family_eval() in src/ffi_family.c), which reaches a family
# through its C descriptor only.  `x` is the cluster's data (any length).
eg_eval <- function(hyper, x, op, arg = NULL) {
  fam <- plugin_ns()$exponential_gamma(shape = hyper[1], rate = hyper[2])
  prep <- mcmix:::family_prepare(fam, c(1, 2))
  mcmix:::.family_eval(prep, matrix(as.double(x), ncol = 1L), op, arg)
}

# closed forms, computed independently of the C code
eg_log_marginal <- function(x, a, b) {
  n <- length(x)
  a * log(b) - lgamma(a) + lgamma(a + n) - (a + n) * log(b + sum(x))
}
# Lomax posterior predictive, by numerical integration over the rate
eg_predictive_integral <- function(y, x, a, b) {
  an <- a + length(x); bn <- b + sum(x)
  stats::integrate(function(l) stats::dexp(y, l) * stats::dgamma(l, an, bn),
                   0, Inf, rel.tol = 1e-12)$value
}

test_that("the plugin family's log marginal and predictive match closed forms", {
  plugin_ns()
  set.seed(301)
  for (case in list(c(1, 1, 1), c(2.5, 0.7, 5), c(0.3, 4, 50))) {
    a <- case[1]; b <- case[2]; n <- case[3]
    x <- stats::rexp(n, stats::rgamma(1, a, b))
    expect_equal(eg_eval(c(a, b), x, "log_marginal"), eg_log_marginal(x, a, b),
                 tolerance = 1e-10)
    y <- stats::rexp(4, 1)
    lp <- eg_eval(c(a, b), x, "log_predictive", matrix(y, ncol = 1))
    # log predictive = difference of log marginals
    expect_equal(lp, vapply(y, function(yy) eg_log_marginal(c(x, yy), a, b) -
                              eg_log_marginal(x, a, b), 0), tolerance = 1e-10)
    expect_equal(exp(lp), vapply(y, eg_predictive_integral, 0, x = x, a = a, b = b),
                 tolerance = 1e-8)
  }
  # empty cluster: log marginal 0, prior predictive a b^a / (b + y)^(a + 1)
  expect_identical(eg_eval(c(2, 3), numeric(), "log_marginal"), 0)
  expect_equal(eg_eval(c(2, 3), numeric(), "log_predictive", matrix(1.5)),
               log(2) + 2 * log(3) - 3 * log(4.5), tolerance = 1e-12)
})

test_that("the plugin family's add/remove, parameter draws and likelihood are exact", {
  plugin_ns()
  set.seed(302)
  x <- stats::rexp(30, 2)
  ar <- eg_eval(c(2, 1), x, "add_remove", 10000)
  expect_lt(ar[["log_marginal"]], 1e-9)
  expect_lt(ar[["log_predictive"]], 1e-9)
  # posterior Gamma(a + n, b + sum x)
  a <- 2; b <- 1; an <- a + length(x); bn <- b + sum(x)
  th <- eg_eval(c(a, b), x, "param_draw", 20000)
  expect_equal(dim(th), c(20000L, 1L))
  m <- an / bn; v <- an / bn^2
  expect_lt(abs(mean(th) - m), 5 * sqrt(v / 20000))
  # variance: s.e. from the Gamma fourth central moment 3 a (a + 2) / rate^4
  se_v <- sqrt((3 * an * (an + 2) / bn^4 - v^2) / 20000)
  expect_lt(abs(stats::var(th[, 1]) - v), 5 * se_v)
  # prior draws when the cluster is empty
  th0 <- eg_eval(c(a, b), numeric(), "param_draw", 5000)
  expect_gt(stats::ks.test(th0[, 1], "pgamma", a, b)$p.value, 1e-3)
  expect_equal(eg_eval(c(a, b), x, "log_lik", 1.7), stats::dexp(x, 1.7, log = TRUE),
               tolerance = 1e-12)
})

test_that("the plugin family runs in a Dirichlet process mixture", {
  ns <- plugin_ns()
  mc <- asNamespace("mcmix")
  skip_if_not(exists("dp_mixture", mc) && exists("sample_posterior", mc),
              "the mixture samplers are not available")
  set.seed(303)
  x <- c(stats::rexp(20, 0.5), stats::rexp(20, 20))
  fit <- mcmix::sample_posterior(mcmix::dp_mixture(ns$exponential_gamma(), alpha = 1),
                                 data = x, iter = 200, chains = 1, progress = FALSE)
  expect_s3_class(fit, "mcmix_fit")
  expect_equal(nrow(fit$chains[[1]]$traces), 200L)
  expect_true(all(is.finite(fit$chains[[1]]$traces)))
})
