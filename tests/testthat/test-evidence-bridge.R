# bridge_evidence() against exact log evidences on exact posterior draws,
# and against the bridgesampling package on the same draws.
#
# Tolerances: the mean of R = 8 independent estimates must be within
# 4 sd / sqrt(R) of the exact value, and sd over the runs divided by the
# root-mean-square reported `se` must lie in [1/2, 2] (normal proposal; the
# warp3 error estimate is only required to be conservative, at most 4 times
# the spread).

bridge_setup <- function(p) {
  if (!is.null(p$lpost_logit)) list(f = p$lpost_logit, rpost = p$rpost_logit)
  else list(f = function(th) p$ll(th) + p$lp(th), rpost = p$rpost)
}

test_that("bridge_evidence() recovers the exact log evidence with an honest error", {
  skip_on_cran()
  for (p in ev_problems) {
    b <- bridge_setup(p)
    set.seed(301)
    r <- ev_replicate(8, function() bridge_evidence(b$rpost(2000), b$f))
    expect_lt(abs(mean(r[, "est"]) - p$exact), 4 * stats::sd(r[, "est"]) / sqrt(8))
    ratio <- stats::sd(r[, "est"]) / sqrt(mean(r[, "se"]^2))
    expect_gt(ratio, 0.5)
    expect_lt(ratio, 2)
    set.seed(302)
    r <- ev_replicate(8, function() bridge_evidence(b$rpost(2000), b$f, method = "warp3"))
    expect_lt(abs(mean(r[, "est"]) - p$exact), 4 * stats::sd(r[, "est"]) / sqrt(8))
    expect_gt(stats::sd(r[, "est"]) / sqrt(mean(r[, "se"]^2)), 0.25)
  }
})

test_that("bridge_evidence() agrees with the bridgesampling package on the same draws", {
  skip_on_cran()
  for (p in ev_problems) {
    b <- bridge_setup(p)
    set.seed(303)
    dr <- b$rpost(2000)
    colnames(dr) <- paste0("x", seq_len(ncol(dr)))
    mine <- bridge_evidence(dr, b$f)
    lb <- stats::setNames(rep(-Inf, ncol(dr)), colnames(dr))
    theirs <- bridgesampling::bridge_sampler(dr, log_posterior = function(pars, data)
      b$f(unname(pars)), data = NULL, lb = lb, ub = -lb, silent = TRUE)
    # same draws and same split: only the proposal draws differ, so the two
    # estimates differ by at most the Monte Carlo error of both
    expect_lt(abs(mine$log_evidence - theirs$logml), 4 * sqrt(2) * mine$se)
  }
})

test_that("bridge_evidence() takes fits of targets, mcmc lists and checks its input", {
  skip_on_cran()
  p <- ev_betabin
  set.seed(304)
  fit <- sample_mh(target(p$lpost_logit, dim = 1), init = 0, iter = 3000, burnin = 500,
                   chains = 2, proposal = proposal_rw(1.5))
  e <- bridge_evidence(fit)
  expect_s3_class(e, "mcmix_evidence")
  expect_lt(abs(e$log_evidence - p$exact), 4 * e$se + 0.01)
  e2 <- bridge_evidence(coda::as.mcmc.list(fit), p$lpost_logit)
  expect_equal(e2$n_post, e$n_post)
  expect_output(print(e), "bridge sampling")
  expect_error(bridge_evidence("a", p$lpost_logit), class = "mcmix_error_input")
  expect_error(bridge_evidence(matrix(1, 10, 1), p$lpost_logit), "singular")
  expect_error(bridge_evidence(matrix(rnorm(20), 10, 2)), class = "mcmix_error_input")
  expect_error(bridge_evidence(matrix(rnorm(20), 10, 2), function(th) NA), "log_posterior")
  expect_error(bridge_evidence(matrix(rnorm(20), 10, 2), sum, method = "x"), "method")
})

test_that("bridge_evidence() matches 2-D quadrature and the bridgesampling package", {
  skip_on_cran()
  set.seed(9)
  x <- seq(-1, 1, length.out = 15)
  yy <- stats::rpois(15, exp(0.5 + 0.7 * x))
  lpost <- function(b) sum(stats::dpois(yy, exp(b[1] + b[2] * x), log = TRUE)) +
    sum(stats::dnorm(b, 0, 1, log = TRUE))
  f <- function(b1, b2) exp(lpost(c(b1, b2)) + 30)
  inner <- function(b1) vapply(b1, function(a)
    stats::integrate(Vectorize(function(b2) f(a, b2)), -6, 6, rel.tol = 1e-10)$value, 0)
  exact <- log(stats::integrate(inner, -6, 6, rel.tol = 1e-9)$value) - 30
  fit <- sample_mh(target(lpost, dim = 2), init = c(0, 0), iter = 6000, burnin = 1000,
                   chains = 2, progress = FALSE)
  r <- ev_replicate_seeded(6, 10, function() bridge_evidence(fit))
  expect_lt(abs(mean(r[, "est"]) - exact), 4 * max(r[, "se"]))
  dr <- do.call(rbind, lapply(fit$chains, function(ch) ch$traces))
  colnames(dr) <- c("b1", "b2")
  set.seed(1)
  b <- bridge_evidence(dr, lpost)
  expect_lt(abs(b$log_evidence - exact), 4 * b$se)
  bs <- bridgesampling::bridge_sampler(dr, log_posterior = function(s, data) lpost(s),
                                       data = NULL, lb = c(b1 = -Inf, b2 = -Inf),
                                       ub = c(b1 = Inf, b2 = Inf), silent = TRUE)
  expect_lt(abs(b$log_evidence - bs$logml), 4 * b$se)
})
