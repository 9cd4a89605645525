# Discrete component families (Bernoulli-Beta, Dirichlet-multinomial,
# Poisson-Gamma) against closed forms written fresh in R and numerical
# integration.

ref_lm_bb <- function(x, a, b) {
  n <- nrow(x); s <- colSums(x)
  sum(lbeta(a + s, b + n - s) - lbeta(a, b))
}
ref_lm_pg <- function(x, a, b) {
  n <- nrow(x); s <- colSums(x)
  sum(a * log(b) - lgamma(a) + lgamma(a + s) - (a + s) * log(b + n)) - sum(lfactorial(x))
}
ref_lm_dm <- function(x, alpha) {
  ck <- colSums(x)
  lgamma(sum(alpha)) - lgamma(sum(alpha) + sum(ck)) + sum(lgamma(alpha + ck) - lgamma(alpha))
}

# --- bernoulli_beta ---------------------------------------------------------

test_that("bernoulli_beta log marginal matches the closed form and integration", {
  set.seed(41)
  for (D in c(1, 3)) {
    x <- matrix(rbinom(9 * D, 1, 0.3), 9)
    a <- runif(D, 0.3, 3); b <- runif(D, 0.3, 3)
    expect_equal(fam_eval(bernoulli_beta(a, b), x, "log_marginal"), ref_lm_bb(x, a, b),
                 tolerance = 1e-10)
  }
  x <- c(1, 0, 1, 1, 0, 1)
  f <- function(p) vapply(p, function(q) prod(dbinom(x, 1, q)), 0) * dbeta(p, 0.7, 1.3)
  expect_equal(fam_eval(bernoulli_beta(0.7, 1.3), x, "log_marginal"),
               log(integrate(f, 0, 1, rel.tol = 1e-12)$value), tolerance = 1e-8)
  # logical data are accepted
  expect_equal(fam_eval(bernoulli_beta(), x == 1, "log_marginal"),
               fam_eval(bernoulli_beta(), x, "log_marginal"))
})

test_that("bernoulli_beta log predictive is the difference of log marginals", {
  set.seed(42)
  x <- matrix(rbinom(24, 1, 0.6), 8)
  xnew <- as.matrix(expand.grid(0:1, 0:1, 0:1))
  a <- c(1, 2, 0.5); b <- c(3, 1, 0.5)
  expect_equal(fam_eval(bernoulli_beta(a, b), x, "log_predictive", xnew),
               unname(ref_pred_by_difference(function(z) ref_lm_bb(z, a, b), x, xnew)),
               tolerance = 1e-10)
  # the predictive probabilities of all 2^D outcomes sum to one
  expect_equal(sum(exp(fam_eval(bernoulli_beta(a, b), x, "log_predictive", xnew))), 1)
})

test_that("bernoulli_beta statistics return to their start after 10000 add/removes", {
  set.seed(43)
  expect_add_remove_exact(bernoulli_beta(0.5, 2), matrix(rbinom(60, 1, 0.5), 20))
  expect_add_remove_exact(bernoulli_beta(), matrix(rbinom(6, 1, 0.5), 2), empties = TRUE)
})

test_that("bernoulli_beta posterior and prior draws have the right moments", {
  skip_on_cran()
  set.seed(44)
  x <- matrix(rbinom(30, 1, 0.3), 15)
  a <- c(1, 0.5); b <- c(2, 0.5)
  prep <- fam_prepare(bernoulli_beta(a, b), x)
  A <- a + colSums(x); B <- b + nrow(x) - colSums(x)
  d <- fam_eval(prep, NULL, "param_draw", 20000)
  expect_moments(d[, 1:2], A / (A + B), A * B / ((A + B)^2 * (A + B + 1)))
  d0 <- fam_eval(prep, x[0, , drop = FALSE], "param_draw", 20000)
  expect_moments(d0[, 1:2], a / (a + b), a * b / ((a + b)^2 * (a + b + 1)))
  th <- d[1, ]
  p <- fam_unpack(prep, th)$prob
  expect_equal(fam_eval(prep, NULL, "log_lik", th),
               rowSums(dbinom(x, 1, rep(p, each = nrow(x)), log = TRUE)), tolerance = 1e-12)
})

# --- poisson_gamma -----------------------------------------------------------

test_that("poisson_gamma log marginal matches the closed form and integration", {
  set.seed(51)
  for (D in c(1, 3)) {
    x <- matrix(rpois(10 * D, 4), 10)
    x[1, 1] <- 40   # a count beyond the short-product range
    a <- runif(D, 0.5, 3); b <- runif(D, 0.2, 2)
    expect_equal(fam_eval(poisson_gamma(a, b), x, "log_marginal"), ref_lm_pg(x, a, b),
                 tolerance = 1e-10)
  }
  x <- c(3, 0, 7, 2, 25)
  f <- function(l) vapply(l, function(q) exp(sum(dpois(x, q, log = TRUE)) + 20), 0) *
    dgamma(l, 2, 0.5)
  expect_equal(fam_eval(poisson_gamma(2, 0.5), x, "log_marginal"),
               log(integrate(f, 0, Inf, rel.tol = 1e-12)$value) - 20, tolerance = 1e-8)
})

test_that("poisson_gamma log predictive is the negative binomial and the difference of log marginals", {
  set.seed(52)
  x <- matrix(rpois(20, c(1, 8)), 10, byrow = TRUE)
  xnew <- cbind(c(0, 1, 5, 17, 60), c(2, 0, 12, 3, 100))
  a <- c(1.5, 0.5); b <- c(1, 2)
  got <- fam_eval(poisson_gamma(a, b), x, "log_predictive", xnew)
  expect_equal(got, unname(ref_pred_by_difference(function(z) ref_lm_pg(z, a, b), x, xnew)),
               tolerance = 1e-10)
  A <- a + colSums(x); B <- b + nrow(x)
  nb <- dnbinom(xnew[, 1], A[1], B[1] / (B[1] + 1), log = TRUE) +
    dnbinom(xnew[, 2], A[2], B[2] / (B[2] + 1), log = TRUE)
  expect_equal(got, nb, tolerance = 1e-10)
})

test_that("poisson_gamma statistics return to their start after 10000 add/removes", {
  set.seed(53)
  expect_add_remove_exact(poisson_gamma(2, 0.1), matrix(rpois(60, 30), 20))
  expect_add_remove_exact(poisson_gamma(), matrix(rpois(3, 2), 3), empties = TRUE)
})

test_that("poisson_gamma posterior and prior draws have the right moments", {
  skip_on_cran()
  set.seed(54)
  x <- matrix(rpois(24, 3), 12)
  a <- c(2, 0.5); b <- c(1, 0.1)
  prep <- fam_prepare(poisson_gamma(a, b), x)
  A <- a + colSums(x); B <- b + nrow(x)
  d <- fam_eval(prep, NULL, "param_draw", 20000)
  expect_moments(d[, 1:2], A / B, A / B^2)
  d0 <- fam_eval(prep, x[0, , drop = FALSE], "param_draw", 20000)
  expect_moments(d0[, 1:2], a / b, a / b^2)
  th <- d[1, ]
  lam <- fam_unpack(prep, th)$rate
  expect_equal(fam_eval(prep, NULL, "log_lik", th),
               rowSums(dpois(x, rep(lam, each = nrow(x)), log = TRUE)), tolerance = 1e-12)
})

# --- categorical_dirichlet ---------------------------------------------------

test_that("categorical_dirichlet log marginal matches the closed form (counts and factors)", {
  set.seed(61)
  alpha <- c(0.5, 1, 2, 0.3)
  x <- t(rmultinom(6, 5, c(0.1, 0.2, 0.3, 0.4)))
  x[2, 3] <- 30
  expect_equal(fam_eval(categorical_dirichlet(alpha), x, "log_marginal"),
               ref_lm_dm(x, alpha), tolerance = 1e-10)
  f <- factor(sample(c("a", "b", "c"), 12, TRUE), levels = c("a", "b", "c"))
  oh <- outer(as.integer(f), 1:3, "==") * 1
  expect_equal(fam_eval(categorical_dirichlet(c(1, 2, 3)), f, "log_marginal"),
               ref_lm_dm(oh, c(1, 2, 3)), tolerance = 1e-10)
  # category numbers and character vectors give the same
  expect_equal(fam_eval(categorical_dirichlet(c(1, 2, 3)), as.integer(f), "log_marginal"),
               ref_lm_dm(oh, c(1, 2, 3)), tolerance = 1e-10)
  expect_equal(fam_eval(categorical_dirichlet(c(1, 2, 3)), as.character(f), "log_marginal"),
               ref_lm_dm(oh, c(1, 2, 3)), tolerance = 1e-10)
})

test_that("categorical_dirichlet with K = 2 agrees with integration over the Beta prior", {
  x <- rbind(c(3, 1), c(0, 2), c(4, 4))
  # ordered-sequence likelihood: prod p^x1 (1-p)^x2, no multinomial coefficient
  f <- function(p) p^sum(x[, 1]) * (1 - p)^sum(x[, 2]) * dbeta(p, 0.8, 1.7)
  expect_equal(fam_eval(categorical_dirichlet(c(0.8, 1.7)), x, "log_marginal"),
               log(integrate(f, 0, 1, rel.tol = 1e-12)$value), tolerance = 1e-8)
})

test_that("categorical_dirichlet log predictive is the difference of log marginals", {
  set.seed(62)
  alpha <- c(0.5, 1, 2)
  x <- t(rmultinom(5, 3, c(0.2, 0.3, 0.5)))
  xnew <- rbind(diag(3), c(2, 0, 1), c(0, 0, 0), c(0, 25, 1))
  got <- fam_eval(categorical_dirichlet(alpha), x, "log_predictive", xnew)
  expect_equal(got, unname(ref_pred_by_difference(function(z) ref_lm_dm(z, alpha), x, xnew)),
               tolerance = 1e-10)
  expect_equal(sum(exp(got[1:3])), 1)
})

test_that("categorical_dirichlet statistics return to their start after 10000 add/removes", {
  set.seed(63)
  expect_add_remove_exact(categorical_dirichlet(0.5), t(rmultinom(20, 4, rep(0.25, 4))))
  expect_add_remove_exact(categorical_dirichlet(), factor(c("x", "y", "x")), empties = TRUE)
})

test_that("categorical_dirichlet posterior and prior draws have the right moments", {
  skip_on_cran()
  set.seed(64)
  alpha <- c(0.5, 1, 2)
  x <- t(rmultinom(6, 4, c(0.5, 0.3, 0.2)))
  prep <- fam_prepare(categorical_dirichlet(alpha), x)
  dir_mom <- function(a) list(m = a / sum(a), v = a * (sum(a) - a) / (sum(a)^2 * (sum(a) + 1)))
  m <- dir_mom(alpha + colSums(x))
  d <- fam_eval(prep, NULL, "param_draw", 20000)
  expect_moments(d[, 1:3], m$m, m$v)
  expect_equal(rowSums(d[, 1:3]), rep(1, 20000))
  m0 <- dir_mom(alpha)
  d0 <- fam_eval(prep, x[0, , drop = FALSE], "param_draw", 20000)
  expect_moments(d0[, 1:3], m0$m, m0$v)
  th <- d[1, ]
  p <- fam_unpack(prep, th)$prob
  expect_equal(fam_eval(prep, NULL, "log_lik", th), as.vector(x %*% log(p)), tolerance = 1e-12)
})

test_that("categorical data are converted with the levels seen first", {
  prep <- fam_prepare(categorical_dirichlet(), factor(c("b", "a", "b"), levels = c("a", "b", "c")))
  expect_equal(prep$dim, 3L)
  expect_equal(prep$x, rbind(c(0, 1, 0), c(1, 0, 0), c(0, 1, 0)), ignore_attr = TRUE)
  # the data-scaled default alpha_k = K (n_k + 1/2) / (n + K/2), counts (1, 2, 0)
  alpha <- 3 * (c(1, 2, 0) + 0.5) / (3 + 1.5)
  expect_equal(prep$family$args$alpha, alpha)
  expect_equal(fam_eval(prep, factor("c"), "log_predictive", factor("c")),
               log((alpha[3] + 1) / (sum(alpha) + 1)), tolerance = 1e-12)
  prep1 <- fam_prepare(categorical_dirichlet(1), factor(c("b", "a", "b"), levels = c("a", "b", "c")))
  expect_equal(fam_eval(prep1, factor("c"), "log_predictive", factor("c")),
               log(2 / 4), tolerance = 1e-12)
  expect_error(fam_eval(prep, NULL, "log_predictive", factor("z")), "`data`.*\"z\"")
  expect_error(fam_prepare(categorical_dirichlet(alpha = c(1, 1)), c(1, 3, 2)),
               "`data`.*category 3")
})
