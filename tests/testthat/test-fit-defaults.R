# Defaults that work: adapt_haario() on a correlated 8-coefficient logistic
# regression, anneal() out of a local optimum of the Rastrigin function.

test_that("adapt_haario() with the default burn-in samples the Pima logistic regression", {
  d <- MASS::Pima.tr
  X <- cbind(1, as.matrix(d[, 1:7]))
  y <- as.integer(d$type == "Yes")
  ld <- function(b) { eta <- X %*% b; sum(y * eta - log1p(exp(eta))) - sum(b^2) / 200 }
  # reference posterior means: self-normalised importance sampling from a
  # multivariate t(4) around the mode (100000 draws; its Monte Carlo error
  # is below a tenth of the chain's)
  o <- optim(rep(0, 8), function(b) -ld(b), method = "BFGS", hessian = TRUE,
             control = list(maxit = 1000))
  set.seed(51)
  L <- t(chol(1.5 * solve(o$hessian)))
  n_is <- 1e5
  zz <- matrix(rnorm(8 * n_is), 8) / rep(sqrt(rchisq(n_is, 4) / 4), each = 8)
  B <- o$par + L %*% zz
  eta <- X %*% B
  logp <- colSums(y * eta - log1p(exp(eta))) - colSums(B^2) / 200
  logq <- -(4 + 8) / 2 * log1p(colSums(zz^2) / 4)
  lw <- logp - logq
  w <- exp(lw - max(lw))
  ref <- as.vector(B %*% w) / sum(w)
  set.seed(52)
  fit <- sample_mh(ld, init = rep(0, 8), iter = 4000, adapt = adapt_haario(),
                   progress = FALSE)
  m <- colMeans(as.matrix(fit))
  e <- ess(fit)
  expect_true(all(e > 80))                       # was 5 with the old defaults
  expect_true(all(abs(m - ref) < 4.5 * mcse(fit)))
  expect_error(adapt_haario(initial = "mode"), "`initial`")
})

test_that("anneal() with its defaults leaves the local minimum of Rastrigin at 3.3", {
  rastrigin <- function(x) 10 + x^2 - 10 * cos(2 * pi * x)
  for (s in 1:10) {
    set.seed(s)
    a <- anneal(rastrigin, init = 3.3, minimize = TRUE)
    expect_lt(abs(a$par), 0.05)                  # the global minimum at 0
    expect_lt(a$value, 0.01)
  }
  expect_gt(a$temperatures[1], 1)                # set from the problem
  # the old defaults (t0 = 1, fixed scale 0.1) stay in the basin at 3
  set.seed(1)
  old <- anneal(rastrigin, init = 3.3, minimize = TRUE, iter = 1000, t0 = 1, scale = 0.1)
  expect_lt(abs(old$par - 3), 0.1)
})

test_that("the README's first example runs clean (no R-hat warning)", {
  # 20,000 iterations per chain: with 10,000 the traces' ESS is about 350
  # per chain and R-hat's own sampling spread reaches 1.01 for some seeds
  x <- MASS::galaxies / 1000
  set.seed(1)
  fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)),
                          x, iter = 20000, chains = 2, progress = FALSE)
  out <- capture.output(print(summary(fit)))
  expect_false(any(grepl("R-hat above", out)))
  expect_true(all(summary(fit)$table$rhat < 1.01))
})
