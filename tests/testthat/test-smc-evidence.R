# sample_smc() and ais() against the closed-form log evidence of conjugate
# Gaussian models, and harmonic_mean_evidence().

# y_i ~ N(theta, sigma^2), theta ~ N(m0, s0^2): y ~ N(m0 1, sigma^2 I + s0^2 11').
conj_data <- local({
  set.seed(4242)
  y <- stats::rnorm(20, 1.3, 1)
  m0 <- 0.5; s0 <- 2; sigma <- 1
  S <- sigma^2 * diag(length(y)) + s0^2
  r <- y - m0
  exact <- as.numeric(-0.5 * determinant(2 * pi * S)$modulus - 0.5 * crossprod(r, solve(S, r)))
  prec <- length(y) / sigma^2 + 1 / s0^2
  list(y = y, m0 = m0, s0 = s0, sigma = sigma, exact = exact,
       post_mean = (sum(y) / sigma^2 + m0 / s0^2) / prec, post_sd = sqrt(1 / prec),
       ll = function(th) sum(stats::dnorm(y, th, sigma, log = TRUE)),
       lp = function(th) stats::dnorm(th, m0, s0, log = TRUE),
       rp = function(n) stats::rnorm(n, m0, s0))
})

test_that("sample_smc recovers the exact log evidence and posterior (adaptive schedule)", {
  skip_on_cran()
  cd <- conj_data
  set.seed(1)
  est <- vapply(1:20, function(r)
    sample_smc(cd$ll, cd$lp, cd$rp, n_particles = 300)$log_evidence, 0)
  # Monte Carlo error of the mean of 20 independent estimates; the bias of
  # log Z-hat (about -var / 2) is far smaller
  expect_lt(abs(mean(est) - cd$exact), 4 * stats::sd(est) / sqrt(20) + stats::var(est))
  expect_lt(stats::sd(est), 0.2)
  set.seed(2)
  res <- sample_smc(cd$ll, cd$lp, cd$rp, n_particles = 2000)
  expect_s3_class(res, "mcmix_smc")
  expect_equal(sum(res$weights), 1)
  expect_equal(res$schedule[c(1, length(res$schedule))], c(0, 1))
  expect_true(all(diff(res$schedule) > 0))
  ess <- 1 / sum(res$weights^2)
  m <- sum(res$weights * res$particles[, 1])
  v <- sum(res$weights * (res$particles[, 1] - m)^2)
  expect_lt(abs(m - cd$post_mean), 5 * cd$post_sd / sqrt(ess / 5))
  expect_lt(abs(v / cd$post_sd^2 - 1), 0.15)
  expect_output(print(res), "log evidence")
  expect_output(print(summary(res)), "theta")
})

test_that("sample_smc with a fixed schedule and a 2-D prior", {
  skip_on_cran()
  # two independent normal-mean problems: the log evidence is the sum
  set.seed(3)
  y1 <- stats::rnorm(8, -1); y2 <- stats::rnorm(8, 2)
  ex1 <- function(y, m0, s0) {
    S <- diag(length(y)) + s0^2
    as.numeric(-0.5 * determinant(2 * pi * S)$modulus -
                 0.5 * crossprod(y - m0, solve(S, y - m0)))
  }
  exact <- ex1(y1, 0, 1.5) + ex1(y2, 1, 3)
  ll <- function(th) sum(stats::dnorm(y1, th[1], 1, log = TRUE)) +
    sum(stats::dnorm(y2, th[2], 1, log = TRUE))
  lp <- function(th) stats::dnorm(th[1], 0, 1.5, log = TRUE) +
    stats::dnorm(th[2], 1, 3, log = TRUE)
  rp <- function(n) cbind(a = stats::rnorm(n, 0, 1.5), b = stats::rnorm(n, 1, 3))
  est <- vapply(1:10, function(r)
    sample_smc(ll, lp, rp, n_particles = 200, schedule = seq(0, 1, length.out = 30)^3,
               n_moves = 3)$log_evidence, 0)
  expect_lt(abs(mean(est) - exact), 4 * stats::sd(est) / sqrt(10) + stats::var(est))
  # one big step from the prior: most particles die at the first
  # resampling, and the warning says the standard error is unreliable
  expect_warning(res <- sample_smc(ll, lp, rp, n_particles = 50, schedule = c(0, 0.5, 1)),
                 "descend from only")
  expect_equal(colnames(res$particles), c("a", "b"))
  expect_length(res$ess, 2L)
})

test_that("sample_smc handles a hard constraint (log likelihood -Inf)", {
  # L(theta) = 1{theta > 0.3}, theta ~ N(0, 1): Z = 1 - Phi(0.3); every
  # particle inside keeps weight one, so Z-hat is a binomial proportion
  set.seed(11)
  N <- 2000
  res <- sample_smc(function(th) if (th > 0.3) 0 else -Inf,
                    function(th) stats::dnorm(th, log = TRUE),
                    function(n) stats::rnorm(n), n_particles = N)
  p <- 1 - stats::pnorm(0.3)
  expect_lt(abs(exp(res$log_evidence) - p), 4 * sqrt(p * (1 - p) / N))
  expect_true(all(res$particles > 0.3))
  expect_lt(abs(mean(res$particles) - stats::dnorm(0.3) / p), 0.05)
})

test_that("ais recovers the exact log evidence within its standard error", {
  skip_on_cran()
  cd <- conj_data
  set.seed(4)
  a <- ais(cd$ll, cd$lp, cd$rp, temperatures = 100, n_runs = 400)
  expect_s3_class(a, "mcmix_ais")
  expect_lt(abs(a$log_evidence - cd$exact), 4 * a$se + 0.01)
  expect_lt(a$se, 0.1)
  # fixed proposal (independent runs), and a user schedule
  set.seed(5)
  b <- ais(cd$ll, cd$lp, cd$rp, temperatures = seq(0, 1, length.out = 151)^5,
           n_runs = 400, proposal_cov = cd$post_sd^2 * 2)
  expect_lt(abs(b$log_evidence - cd$exact), 4 * b$se + 0.01)
  # replicate estimates: their spread agrees with the delta-method s.e.
  set.seed(6)
  reps <- replicate(10, {
    r <- ais(cd$ll, cd$lp, cd$rp, temperatures = 50, n_runs = 100)
    c(r$log_evidence, r$se)
  })
  expect_lt(abs(mean(reps[1, ]) - cd$exact), 4 * mean(reps[2, ]) / sqrt(10) + 0.01)
  expect_output(print(a), "s.e.")
})

test_that("compiled targets run in sample_smc and ais", {
  ns <- install_test_plugin("mcmixtarget")
  # likelihood exp(-(theta - m)' P (theta - m) / 2) (unnormalised Gaussian),
  # prior N(0, s^2 I): Z = 2 pi sqrt(det C) N(m; 0, C + s^2 I)
  m <- c(1, -0.5); C <- matrix(c(0.5, 0.2, 0.2, 0.3), 2); s <- 2
  xp <- ns$gauss2_target(m, C)
  Cs <- C + s^2 * diag(2)
  exact <- log(2 * pi) + 0.5 * log(det(C)) - log(2 * pi) - 0.5 * log(det(Cs)) -
    0.5 * sum(m * solve(Cs, m))
  lp <- function(th) sum(stats::dnorm(th, 0, s, log = TRUE))
  rp <- function(n) matrix(stats::rnorm(2 * n, 0, s), n, 2)
  set.seed(7)
  est <- vapply(1:10, function(r) sample_smc(xp, lp, rp, n_particles = 300)$log_evidence, 0)
  expect_lt(abs(mean(est) - exact), 4 * stats::sd(est) / sqrt(10) + stats::var(est))
  set.seed(8)
  a <- ais(xp, lp, rp, temperatures = 60, n_runs = 300)
  expect_lt(abs(a$log_evidence - exact), 4 * a$se + 0.01)
  # the same density as an R function gives the same particles
  P <- solve(C)
  ll_r <- function(th) -0.5 * sum((th - m) * (P %*% (th - m)))
  set.seed(9)
  r1 <- sample_smc(xp, lp, rp, n_particles = 100)
  set.seed(9)
  r2 <- sample_smc(ll_r, lp, rp, n_particles = 100)
  expect_equal(r1$particles, r2$particles, tolerance = 1e-8)
})

test_that("harmonic_mean_evidence warns and computes the harmonic mean", {
  expect_warning(v <- harmonic_mean_evidence(c(-1, -1, -1)), "infinite variance")
  expect_equal(v, -1)
  ll <- c(-2, -5, -3)
  expect_equal(suppressWarnings(harmonic_mean_evidence(ll)), -log(mean(exp(-ll))))
  expect_error(harmonic_mean_evidence("a"), "`log_lik_draws`")
  expect_error(harmonic_mean_evidence(c(1, NA)), "`log_lik_draws`")
})

test_that("sample_smc and ais refuse bad targets and arguments", {
  cd <- conj_data
  set.seed(10)
  expect_error(sample_smc(function(th) NaN, cd$lp, cd$rp, n_particles = 20),
               "`log_lik` returned NaN")
  expect_error(sample_smc(function(th) "a", cd$lp, cd$rp, n_particles = 20), "`log_lik`")
  expect_error(sample_smc(function(th) c(1, 2), cd$lp, cd$rp, n_particles = 20), "`log_lik`")
  expect_error(sample_smc(function(th) stop("boom"), cd$lp, cd$rp, n_particles = 20),
               "`log_lik` failed.*boom")
  expect_error(sample_smc(cd$ll, function(th) Inf, cd$rp, n_particles = 20), "`log_prior`")
  expect_error(sample_smc(cd$ll, function(th) -Inf, cd$rp, n_particles = 20),
               "outside the support")
  expect_error(sample_smc(function(th) -Inf, cd$lp, cd$rp, n_particles = 20),
               "zero weight")
  expect_error(sample_smc(cd$ll, cd$lp, cd$rp, n_particles = 1), "`n_particles`")
  expect_error(sample_smc(cd$ll, cd$lp, cd$rp, schedule = c(0.1, 1)), "`schedule`")
  expect_error(sample_smc(cd$ll, cd$lp, cd$rp, schedule = "fast"), "`schedule`")
  expect_error(sample_smc(cd$ll, cd$lp, cd$rp, cess = 1), "`cess`")
  expect_error(sample_smc(cd$ll, cd$lp, cd$rp, resample_threshold = 2), "`resample_threshold`")
  expect_error(sample_smc(cd$ll, cd$lp, cd$rp, n_moves = -1), "`n_moves`")
  expect_error(sample_smc(cd$ll, cd$lp, cd$rp, scale = 0), "`scale`")
  expect_error(sample_smc(cd$ll, cd$lp, function(n) rnorm(n + 1)), "`prior_sampler")
  expect_error(sample_smc(cd$ll, cd$lp, "rnorm"), "`prior_sampler`")
  expect_error(sample_smc("ll", cd$lp, cd$rp), "`log_lik`")
  expect_error(ais(cd$ll, cd$lp, cd$rp, temperatures = c(0, 0.5, 0.4, 1)), "`temperatures`")
  expect_error(ais(cd$ll, cd$lp, cd$rp, n_runs = 1), "`n_runs`")
  expect_error(ais(cd$ll, cd$lp, cd$rp, proposal_cov = -1), "`proposal_cov`")
  expect_error(ais(cd$ll, cd$lp, cd$rp, scale = 1, proposal_cov = 1), "`scale`")
})
