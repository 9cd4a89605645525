# gp_classify(): probit GP classification by Gibbs sampling.

se_k <- function(a, b, ell = 1, s2 = 1) s2 * exp(-0.5 * outer(a, b, "-")^2 / ell^2)

test_that("gp_classify matches the exact one-point posterior", {
  # One training point t = 1 with prior variance k: the auxiliary y ~ N(0, k + 1),
  # E[f | t = 1] = k / sqrt(k + 1) * sqrt(2 / pi), and
  # P(t* = 1 | t = 1) = 1/2 + asin(rho) / pi with
  # rho = k(x, x*) / sqrt((k + 1)(k** + 1)).
  s2 <- 2
  xs <- c(0.3, 1.5)
  set.seed(7)
  fit <- gp_classify(0, 1, lengthscale = 0.8, variance = s2, x_test = xs,
                     iter = 20000, burnin = 100, progress = FALSE)
  f <- fit$chains[[1]]$traces[, "f[1]"]
  expect_lt(abs(mean(f) - s2 / sqrt(s2 + 1) * sqrt(2 / pi)), 5 * batch_se(f))
  ks <- se_k(0, xs, 0.8, s2)
  exact <- 0.5 + asin(ks / sqrt((s2 + 1) * (s2 + 1))) / pi
  # the Monte Carlo error of the averaged probabilities is about 0.001
  expect_lt(max(abs(predict(fit) - exact)), 0.005)
  expect_lt(max(abs(predict(fit, newdata = xs) - exact)), 0.005)
})

test_that("gp_classify matches exact orthant probabilities with two points", {
  # t = (1, 0) at x = (0, 1): with the auxiliaries u = (y1, -y2, y*) ~ N(0, R),
  # P(t* = 1 | t) = P(u > 0) / P(u1 > 0, u2 > 0), both orthant probabilities
  # in closed form (Sheppard): 1/4 + asin(r12) / (2 pi) and
  # 1/8 + (asin r12 + asin r13 + asin r23) / (4 pi).
  x <- c(0, 1)
  xs <- c(-1, 0.5, 2)
  set.seed(8)
  fit <- gp_classify(x, c(1, 0), lengthscale = 1, variance = 1.5, x_test = xs,
                     iter = 20000, burnin = 100, progress = FALSE)
  exact <- vapply(xs, function(s) {
    C <- se_k(c(x, s), c(x, s), 1, 1.5) + diag(3)
    D <- diag(c(1, -1, 1))
    R <- stats::cov2cor(D %*% C %*% D)
    p2 <- 1 / 4 + asin(R[1, 2]) / (2 * pi)
    p3 <- 1 / 8 + (asin(R[1, 2]) + asin(R[1, 3]) + asin(R[2, 3])) / (4 * pi)
    p3 / p2
  }, 0)
  # 20000 correlated draws: the Monte Carlo error is about 0.001
  expect_lt(max(abs(predict(fit) - exact)), 0.005)
  expect_lt(max(abs(predict(fit, newdata = xs) - exact)), 0.008)
})

test_that("gp_classify separates separable 1-D data", {
  x <- c(seq(-3, -0.5, length.out = 8), seq(0.5, 3, length.out = 8))
  y <- rep(c(0, 1), each = 8)
  set.seed(9)
  fit <- gp_classify(x, y, lengthscale = 1, x_test = c(-2, -1, 1, 2),
                     iter = 1000, burnin = 200, progress = FALSE)
  p <- predict(fit)
  expect_true(all(p[1:2] < 0.5) && all(p[3:4] > 0.5))
  expect_true(all(diff(p) > 0))
})

test_that("gp_classify: extend() equals one longer run; bad input is refused", {
  x <- matrix(c(0, 1, 2, 0, 1, 0), ncol = 2)
  set.seed(3)
  a <- extend(gp_classify(x, c(0, 1, 1), x_test = x, iter = 20, burnin = 5,
                          progress = FALSE), 30)
  set.seed(3)
  b <- gp_classify(x, c(0, 1, 1), x_test = x, iter = 50, burnin = 5,
                   progress = FALSE)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  expect_identical(predict(a), predict(b))
  expect_error(gp_classify(x, c(0, 1)), "`y`")
  expect_error(gp_classify(x, c(0, 1, 1), lengthscale = 0), "`lengthscale`")
  expect_error(gp_classify(x, c(0, 1, 1), variance = -2), "`variance`")
  expect_error(gp_classify(x, c(0, 1, 1), x_test = 1:3), "`x_test`")
  expect_error(gp_classify(x, c(0, 1, 1), keep_f = NA), "`keep_f`")
  nf <- gp_classify(x, c(0, 1, 1), keep_f = FALSE, iter = 5, progress = FALSE)
  expect_equal(colnames(nf$chains[[1]]$traces), "log_lik")
  expect_error(predict(nf, x), "keep_f")
})
