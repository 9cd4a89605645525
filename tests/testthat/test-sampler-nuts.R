# sample_nuts(): multinomial NUTS with Stan's windowed adaptation, against
# the exact moments of Gaussians (up to 100 dimensions, condition number
# 1e4) and a 5-D Student t; its class, print() and gradient errors.

# z-scores of the means and variances of the columns of `tr` against the
# exact means `mu` and variances `v`, with Monte Carlo errors from the
# bulk ESS of x and of (x - mu)^2.
nuts_z <- function(tr, mu, v) {
  ess_col <- function(m) apply(m, 2, ess)
  zm <- (colMeans(tr) - mu) / sqrt(v / ess_col(tr))
  sq <- sweep(tr, 2, mu)^2
  zv <- (colMeans(sq) - v) / (apply(sq, 2, stats::sd) / sqrt(ess_col(sq)))
  c(zm, zv)
}

gauss100_sd <- exp(seq(0, log(100), length.out = 100))   # condition number 1e4
gauss100 <- target(function(x) -0.5 * sum((x / gauss100_sd)^2),
                   gradient = function(x) -x / gauss100_sd^2)

test_that("NUTS has the exact moments of a 100-dimensional Gaussian with condition number 1e4", {
  set.seed(31)
  fit <- sample_nuts(gauss100, init = rep(0.5, 100), iter = 1000, burnin = 1000,
                     progress = FALSE)
  z <- nuts_z(fit$chains[[1]]$traces, 0, gauss100_sd^2)
  expect_lt(max(abs(z)), 4.5)
  expect_lt(mean(z^2), 1.5)
  dg <- nuts_diagnostics(fit)
  expect_equal(dg$divergent, 0)
  expect_equal(dg$max_treedepth_hits, 0)
  expect_gt(dg$ebfmi, 0.3)
  # the adapted diagonal inverse metric estimates the variances
  im <- fit$chains[[1]]$state$inv_metric
  expect_true(all(abs(log(im / gauss100_sd^2)) < log(2)))
})

test_that("NUTS with a dense metric has the exact moments of a rotated ill-conditioned Gaussian", {
  set.seed(32)
  d <- 10
  Q <- qr.Q(qr(matrix(stats::rnorm(d * d), d)))
  S <- Q %*% diag(exp(seq(0, log(1e4), length.out = d))) %*% t(Q)
  P <- solve(S)
  mu <- seq(-2, 2, length.out = d)
  tg <- target(function(x) -0.5 * sum((x - mu) * (P %*% (x - mu))),
               gradient = function(x) -as.vector(P %*% (x - mu)))
  fit <- sample_nuts(tg, init = rep(0, d), iter = 1500, burnin = 1000,
                     metric = "dense", progress = FALSE)
  tr <- fit$chains[[1]]$traces
  z <- nuts_z(tr, mu, diag(S))
  expect_lt(max(abs(z)), 4.5)
  # the adapted dense metric whitens the target: its condition number
  # relative to S is small
  M <- matrix(fit$chains[[1]]$state$inv_metric, d)
  ev <- eigen(solve(M, S), only.values = TRUE)$values
  expect_lt(max(Re(ev)) / min(Re(ev)), 5)
  expect_lt(nuts_diagnostics(fit)$mean_treedepth, 4)
})

test_that("NUTS has the exact moments of the banana, compiled (finite differences) and R targets", {
  # x1 ~ N(0, a^2), x2 = v + b x1^2 - a^2 b with v ~ N(0, 1):
  # E x = 0, var x1 = a^2, var x2 = 1 + 2 a^4 b^2, E x1^3 = 0
  a <- 1
  b <- 1
  lb <- function(x) -0.5 * ((x[1] / a)^2 + (x[2] - b * x[1]^2 + a^2 * b)^2)
  gb <- function(x) {
    v <- x[2] - b * x[1]^2 + a^2 * b
    c(-x[1] / a^2 + 2 * b * x[1] * v, -v)
  }
  v <- c(a^2, 1 + 2 * a^4 * b^2)
  set.seed(33)
  fit <- sample_nuts(target(lb, gradient = gb), init = c(0, 0), iter = 4000,
                     burnin = 1000, progress = FALSE)
  expect_lt(max(abs(nuts_z(fit$chains[[1]]$traces, c(0, 0), v))), 4.5)
  ns <- install_test_plugin("mcmixtarget")
  xp <- ns$banana_target(a, b)
  set.seed(34)
  fit <- sample_nuts(xp, init = c(0, 0), iter = 4000, burnin = 1000,
                     progress = FALSE)
  expect_lt(max(abs(nuts_z(fit$chains[[1]]$traces, c(0, 0), v))), 4.5)
  # compiled target with its own gradient
  S <- matrix(c(1, 0.8, 0.8, 2), 2)
  set.seed(35)
  fit <- sample_nuts(ns$gauss2_target(c(1, 2), S), init = c(0, 0), iter = 3000,
                     burnin = 500, metric = "dense", progress = FALSE)
  expect_lt(max(abs(nuts_z(fit$chains[[1]]$traces, c(1, 2), diag(S)))), 4.5)
})

test_that("NUTS is calibrated (simulation-based calibration)", {
  skip_on_cran()
  # mu ~ N(0, 1), log sigma ~ N(0, 0.5^2), y_1..y_5 ~ N(mu, sigma^2)
  set.seed(2027)
  n <- 5
  L <- 19L
  ranks <- t(vapply(seq_len(200L), function(r) {
    th <- c(stats::rnorm(1), stats::rnorm(1, 0, 0.5))
    y <- stats::rnorm(n, th[1], exp(th[2]))
    lp <- function(t) {
      s2 <- exp(2 * t[2])
      -t[1]^2 / 2 - 2 * t[2]^2 - n * t[2] - sum((y - t[1])^2) / (2 * s2)
    }
    gr <- function(t) {
      s2 <- exp(2 * t[2])
      c(-t[1] + sum(y - t[1]) / s2, -4 * t[2] - n + sum((y - t[1])^2) / s2)
    }
    fit <- sample_nuts(target(lp, gradient = gr), init = c(0, 0), iter = L * 3,
                       burnin = 100, thin = 3, progress = FALSE)
    sbc_rank(fit$chains[[1]]$traces, th)
  }, numeric(2)))
  expect_true(all(sbc_pvalues(ranks, L) > 0.001))
})

test_that("NUTS needs at least 5x fewer gradients per effective draw than fixed-path HMC", {
  # counts of gradient evaluations, not time: HMC uses n_steps per iteration
  set.seed(36)
  nuts <- sample_nuts(gauss100, init = rep(0.5, 100), iter = 1000, burnin = 1000,
                      progress = FALSE)
  set.seed(37)
  hmc <- sample_hmc(gauss100, init = rep(0.5, 100), iter = 1000, burnin = 1000,
                    n_steps = 20, progress = FALSE)
  min_ess <- function(fit) min(apply(fit$chains[[1]]$traces, 2, ess))
  per_grad_nuts <- min_ess(nuts) / nuts_diagnostics(nuts)$n_leapfrog
  per_grad_hmc <- min_ess(hmc) / (1000 * 20)
  expect_gt(per_grad_nuts / per_grad_hmc, 5)
})

test_that("NUTS: chunking and extend() give one longer run; support boundaries are divergences", {
  tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
  set.seed(7)
  a <- sample_nuts(tg, init = c(1, -1), iter = 30, burnin = 160, thin = 2,
                   chains = 2, progress = FALSE)
  a <- extend(a, 40)
  set.seed(7)
  b <- sample_nuts(tg, init = c(1, -1), iter = 70, burnin = 160, thin = 2,
                   chains = 2, progress = FALSE)
  expect_identical(a$chains[[2]]$traces, b$chains[[2]]$traces)
  expect_identical(a$chains[[1]]$state, b$chains[[1]]$state)
  # an exponential(1) target: trajectories leaving x > 0 are divergent and
  # stop, the draws are still exact (mean 1, variance 1)
  set.seed(8)
  ex <- sample_nuts(function(x) if (x > 0) -x else -Inf, init = 1, iter = 6000,
                    burnin = 500, progress = FALSE)
  x <- ex$chains[[1]]$traces[, 1]
  expect_gt(nuts_diagnostics(ex)$divergent, 0)
  expect_lt(abs(mean(x) - 1), 5 / sqrt(ess(x)))
  expect_lt(abs(stats::var(x) - 1), 5 * stats::sd((x - 1)^2) / sqrt(ess((x - 1)^2)))
  out <- utils::capture.output(print(ex))
  expect_true(any(grepl("NUTS diagnostics", out)))
  expect_true(any(grepl("divergent transition", out)))
  out <- utils::capture.output(print(summary(b)))
  expect_true(any(grepl("E-BFMI|ebfmi", out)))
  expect_s3_class(summary(b), "summary.mcmix_nuts_fit")
})

test_that("NUTS without adaptation keeps its step size and metric; short warm-ups tune the step size only", {
  tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
  set.seed(9)
  f <- sample_nuts(tg, init = c(0, 0), iter = 200, burnin = 50, adapt = FALSE,
                   step_size = 0.3, inv_metric = c(1, 2), progress = FALSE)
  expect_equal(nuts_diagnostics(f)$step_size, 0.3)
  expect_equal(f$chains[[1]]$state$inv_metric, c(1, 2))
  f <- sample_nuts(tg, init = c(0, 0), iter = 200, burnin = 15, progress = FALSE)
  expect_equal(f$chains[[1]]$state$inv_metric, c(1, 1))
  expect_gt(f$chains[[1]]$state$da_counter, 0)
  # Stan's windows for 1000 and 100 warm-up iterations
  w <- mcmix:::nuts_windows(1000L)
  expect_equal(unlist(w[c("init_buffer", "base_window", "term_buffer")]),
               c(init_buffer = 75, base_window = 25, term_buffer = 50))
  w <- mcmix:::nuts_windows(100L)
  expect_equal(unlist(w[c("init_buffer", "base_window", "term_buffer")]),
               c(init_buffer = 15, base_window = 75, term_buffer = 10))
})

test_that("sample_nuts refuses bad input, naming the argument", {
  tg <- target(function(x) -sum(x^2) / 2)
  expect_error(sample_nuts(tg, init = 0, max_treedepth = 0), "`max_treedepth`")
  expect_error(sample_nuts(tg, init = 0, max_treedepth = 25), "`max_treedepth`")
  expect_error(sample_nuts(tg, init = 0, metric = "full"), "`metric`")
  tg_g <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
  expect_error(sample_nuts(tg_g, init = double(3000), metric = "dense", iter = 1,
                           burnin = 0, max_treedepth = 2), "`metric`")
  expect_error(sample_nuts(tg_g, init = double(1e6), max_treedepth = 20, iter = 1,
                           burnin = 0), "`max_treedepth`")
  expect_error(sample_nuts(tg, init = 0, target_accept = 1), "`target_accept`")
  expect_error(sample_nuts(tg, init = c(0, 0), inv_metric = c(1, -1)), "`inv_metric`")
  expect_error(sample_nuts(tg, init = c(0, 0), metric = "dense",
                           inv_metric = matrix(c(1, 2, 2, 1), 2)), "`inv_metric`")
  expect_error(sample_nuts(tg, init = 0, step_size = 0), "`step_size`")
  expect_error(sample_nuts(tg, init = 0, iter = 0), "`iter`")
  expect_error(sample_nuts(function(x) NaN, init = 0, iter = 5), "NaN")
  expect_error(nuts_diagnostics(sample_hmc(tg, init = 0, iter = 5, progress = FALSE)),
               "`fit`")
})

test_that("NUTS rejects points where the log density is NaN (step-size search included) and samples the truncated density", {
  tg <- target(trunc_ld, gradient = trunc_gr)
  # a first step of size 10 leaves |x1| < 1.5: the step-size search at the
  # first warm-up iteration meets NaN and halves the step
  set.seed(71)
  one <- sample_nuts(tg, init = c(0, 0), iter = 1, burnin = 1, step_size = 10, progress = FALSE)
  expect_gte(one$chains[[1]]$state$n_nonfinite, 1)
  expect_lt(exp(one$chains[[1]]$state$log_step_size), 10)
  set.seed(72)
  fit <- sample_nuts(tg, init = c(1.4, 0), iter = 6000, burnin = 500, step_size = 10,
                     progress = FALSE)
  expect_trunc_moments(fit$chains[[1]]$traces)
  dg <- nuts_diagnostics(fit)
  expect_gt(dg$nonfinite, 0)
  # rejected points end trajectories as divergences (those of the step-size
  # search are trial steps, not transitions: counted in `nonfinite` only)
  expect_gt(dg$divergent, 0)
  np <- nuts_params_fit(fit)
  expect_equal(sum(np$Value[np$Parameter == "divergent__"]), dg$divergent)
  out <- capture.output(print(fit))
  expect_true(any(grepl("non-finite log density or gradient were rejected", out)))
  expect_true(any(grepl("^Rejected: ", out)))
  out <- capture.output(print(summary(fit)))
  expect_true(any(grepl("^Rejected: ", out)))
  # a non-finite gradient is rejected the same way
  g_bad <- target(function(x) -sum(x^2) / 2,
                  gradient = function(x) if (abs(x[1]) < trunc_r) -x else c(Inf, 0))
  set.seed(73)
  fit <- sample_nuts(g_bad, init = c(0, 0), iter = 300, burnin = 100, progress = FALSE)
  expect_true(all(abs(fit$chains[[1]]$traces[, 1]) < trunc_r))
  expect_gt(nuts_diagnostics(fit)$nonfinite, 0)
  # and with the gradient by finite differences (which cannot be computed
  # where both neighbours are NaN: the point is rejected too)
  set.seed(74)
  fit <- sample_nuts(trunc_ld, init = c(0, 0), iter = 300, burnin = 100, progress = FALSE)
  expect_true(all(abs(fit$chains[[1]]$traces[, 1]) < trunc_r))
  expect_gt(nuts_diagnostics(fit)$nonfinite, 0)
})

test_that("a NaN or a non-finite gradient at the initial values is a classed error naming `init`", {
  e <- tryCatch(sample_nuts(trunc_ld, init = c(2, 0), iter = 5, progress = FALSE),
                error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "init")
  # (the function given as `target` is named so)
  expect_match(conditionMessage(e), "`init` is not a valid starting point: `target` returned NaN at \\(2, 0\\)")
  e <- tryCatch(sample_nuts(function(x) Inf, init = 0, iter = 5, progress = FALSE),
                error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
  e <- tryCatch(sample_nuts(target(function(x) -x^2, gradient = function(x) NaN), init = 0,
                            iter = 5, progress = FALSE), error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
  expect_match(conditionMessage(e), "`gradient` returned a non-finite value \\(NaN in coordinate 1\\)")
  e <- tryCatch(sample_nuts(target(trunc_vg, gradient = TRUE), iter = 5, progress = FALSE,
                            init = list(c(0, 0), c(3, 0)), chains = 2), error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
  expect_identical(e$arg, "init")
  expect_match(conditionMessage(e), "returned NaN at \\(3, 0\\)")
})

test_that("one function for the log density and its gradient gives the draws of two functions", {
  two <- target(trunc_ld, gradient = trunc_gr)
  one <- target(trunc_vg, gradient = TRUE)
  one_list <- target(function(x) {
    v <- trunc_vg(x)
    if (is.nan(v)) NaN else list(value = as.vector(v), gradient = attr(v, "gradient"))
  }, gradient = TRUE)
  runs <- lapply(list(two, one, one_list), function(tg) {
    set.seed(74)
    sample_nuts(tg, init = c(0.5, 0), iter = 300, burnin = 200, chains = 2, progress = FALSE)
  })
  for (k in 2:3) {
    expect_identical(runs[[k]]$chains[[1]]$traces, runs[[1]]$chains[[1]]$traces)
    expect_identical(runs[[k]]$chains[[2]]$state$theta, runs[[1]]$chains[[2]]$state$theta)
    expect_identical(nuts_diagnostics(runs[[k]]), nuts_diagnostics(runs[[1]]))
  }
  # one R call per evaluation instead of two
  calls <- c(two = 0, one = 0)
  cnt_two <- target(function(x) { calls[["two"]] <<- calls[["two"]] + 1; trunc_ld(x) },
                    gradient = function(x) { calls[["two"]] <<- calls[["two"]] + 1; trunc_gr(x) })
  cnt_one <- target(function(x) { calls[["one"]] <<- calls[["one"]] + 1; trunc_vg(x) },
                    gradient = TRUE)
  set.seed(75); sample_nuts(cnt_two, init = c(0.5, 0), iter = 50, burnin = 50, progress = FALSE)
  set.seed(75); f1 <- sample_nuts(cnt_one, init = c(0.5, 0), iter = 50, burnin = 50,
                                  progress = FALSE)
  dg <- nuts_diagnostics(f1)
  # every leapfrog step, and every trial step of the step-size search, is
  # one call; the two-function form calls twice where the value is finite
  expect_gte(calls[["one"]], dg$n_leapfrog + dg$warmup_leapfrog)
  # (the check of fixed initial values asks for the value only)
  expect_equal(calls[["two"]] - calls[["one"]],
               calls[["one"]] - 1 - f1$chains[[1]]$state$n_nonfinite)
  # print() says so; a bad return value is refused with what was expected
  expect_output(print(one), "one call for both")
  expect_error(sample_nuts(target(function(x) -sum(x^2), gradient = TRUE), init = c(0, 0),
                           iter = 5, progress = FALSE),
               "number with attribute \"gradient\"")
  expect_error(target(function(x) 1, gradient = "a"), "`gradient`")
})

test_that("a sleepstudy-like hierarchical model (non-centred, LKJ) overflowing in the tails runs without error", {
  # with this seed the first iterations reach points where exp() overflows
  # and the log density is NaN (a chain that used to stop with an error)
  tg <- sleep_target(sleep_data(), "one")
  set.seed(4)
  fit <- sample_nuts(tg, iter = 5, burnin = 5, progress = FALSE)
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
  expect_true(all(is.finite(fit$chains[[1]]$traces)))
  # and the two forms of the target give the same chain
  set.seed(4)
  fit2 <- sample_nuts(sleep_target(sleep_data(), "two"), iter = 5, burnin = 5, progress = FALSE)
  expect_identical(fit2$chains[[1]]$traces, fit$chains[[1]]$traces)
  if (identical(Sys.getenv("MCMIX_NUTS_SLEEPSTUDY"), "full")) {
    # Stan's setting: 20 chains from uniform(-2, 2) initial values
    set.seed(2024)
    fit <- sample_nuts(tg, iter = 1000, burnin = 1000, chains = 20, progress = FALSE)
    expect_length(fit$chains, 20L)
    expect_false(fit$interrupted)
  }
})

test_that("the warm-up and sampling time of each chain are recorded", {
  set.seed(76)
  fit <- sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 100, burnin = 100,
                     chains = 2, progress = FALSE)
  tm <- elapsed_time(fit)
  expect_identical(dimnames(tm), list(c("chain:1", "chain:2"), c("warmup", "sample")))
  expect_true(all(tm >= 0))
  expect_lte(sum(tm), fit$timing[["elapsed"]] + 0.05)
  ext <- extend(fit, 50, progress = FALSE)
  expect_true(all(elapsed_time(ext)[, "sample"] >= tm[, "sample"]))
  expect_identical(elapsed_time(ext)[, "warmup"], tm[, "warmup"])
  expect_output(print(fit), "Time: .*per chain: warm-up .*sampling")
  expect_error(elapsed_time(1), class = "mcmix_error_input")
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
