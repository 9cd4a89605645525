# Benchmark: sample_mh() on an R-function target against mcmc::metrop() on
# the same target, and the same model as a compiled target (the test plugin
# package inst/plugins/mcmixtarget).
#
# Run from the repository root, with mcmix installed:
#   Rscript bench/bench-mh.R [scale]
# Goals: R-function sample_mh() at most 1.1x the time per iteration of
# metrop(); the compiled target at least 30x faster than the R-function run.
# Fair comparison: for each model the three runs use the same density, the
# same random-walk proposal (metrop's `scale` = proposal_rw(scale =)), the
# same number of iterations (n_iter below, times `scale`), one chain, no
# burn-in, every iteration kept.  The three are timed in turn within each
# repetition (so load changes on the machine hit all three alike) and the
# median CPU time is reported.  A compiled run is short, so it is repeated
# until a timing covers at least 0.5 s (the time per run is divided back).
suppressPackageStartupMessages({
  library(mcmix)
  if (!requireNamespace("mcmc", quietly = TRUE))
    stop("install mcmc first: Rscript tools/install-deps.R bench")
})
args <- commandArgs(trailingOnly = TRUE)
scale_n <- if (length(args)) as.numeric(args[[1]]) else 1
reps <- 5L


# the compiled version of the same density, from the example plugin package
tmp <- tempfile("bench-")
lib <- file.path(tmp, "lib")
dir.create(lib, recursive = TRUE)
invisible(file.copy("inst/plugins/mcmixtarget", tmp, recursive = TRUE))
out <- system2(file.path(R.home("bin"), "R"),
               c("CMD", "INSTALL", "--no-test-load", paste0("--library=", lib),
                 file.path(tmp, "mcmixtarget")), stdout = TRUE, stderr = TRUE)
if (!is.null(attr(out, "status"))) stop(paste(out, collapse = "\n"))
plugin <- loadNamespace("mcmixtarget", lib.loc = lib)

# Model 1: the correlated 2-D Gaussian of the tests.
mu <- c(1, 2)
S <- matrix(c(1, 0.8, 0.8, 2), 2)
P <- solve(S)
# Model 2: normal data (n = 200) with unknown mean and log sd, flat priors.
set.seed(2)
y <- rnorm(200, 3, 2)
# Model 3: GARCH(1,1) likelihood of n = 200 returns.  The variance recursion
# s2_t = omega + alpha r_{t-1}^2 + beta s2_{t-1} is written as a loop: the
# recursive stats::filter() version is slower here (about 107 vs 85 us per
# call, the function's own checks and ts conversions).
r <- local({
  s2 <- 1; out <- double(200); prev <- 0
  for (t in 1:200) {
    s2 <- 0.1 + 0.1 * prev^2 + 0.8 * s2
    out[t] <- prev <- rnorm(1, 0, sqrt(s2))
  }
  out
})
v0 <- var(r)
garch_ld <- function(x) {
  omega <- x[1]; alpha <- x[2]; beta <- x[3]
  if (omega <= 0 || alpha < 0 || beta < 0 || alpha + beta >= 1) return(-Inf)
  s2 <- v0
  ll <- 0
  for (t in seq_along(r)) {
    if (t > 1) s2 <- omega + alpha * r[t - 1]^2 + beta * s2
    ll <- ll - 0.5 * (log(s2) + r[t]^2 / s2)
  }
  ll
}
# Model 4: logistic regression, n = 200, intercept and two covariates,
# prior N(0, 10^2 I); the R density is vectorised (X %*% beta).
set.seed(3)
X <- cbind(1, matrix(rnorm(400), 200))
yb <- rbinom(200, 1, plogis(drop(X %*% c(-0.5, 1, -1))))
logit_ld <- function(b) {
  eta <- drop(X %*% b)
  sum(yb * eta - log1p(exp(eta))) - sum(b^2) / 200
}
models <- list(
  gauss2d = list(ld = function(x) -0.5 * sum((x - mu) * (P %*% (x - mu))),
                 xp = plugin$gauss2_target(mu, S), init = c(0, 0), scale = 1,
                 n_iter = 2e5),
  normal_data = list(ld = function(x) -length(y) * x[2] -
                       0.5 * sum((y - x[1])^2) * exp(-2 * x[2]),
                     xp = plugin$normal_data_target(y), init = c(3, log(2)),
                     scale = 0.1, n_iter = 2e5),
  garch = list(ld = garch_ld, xp = plugin$garch_target(r), init = c(0.1, 0.1, 0.8),
               scale = 0.02, n_iter = 2e4),
  logistic = list(ld = logit_ld, xp = plugin$logistic_target(X, yb),
                  init = c(0, 0, 0), scale = 0.15, n_iter = 1e5))

cpu <- function(expr) {
  tm <- system.time(expr, gcFirst = TRUE)
  tm[["user.self"]] + tm[["sys.self"]]  # CPU time: robust to other load
}

bench_model <- function(m) {
  stopifnot(abs(target_eval(m$ld, m$init) - target_eval(m$xp, m$init)) < 1e-8)
  n <- as.integer(round(scale_n * m$n_iter))
  prop <- proposal_rw(scale = m$scale)
  run_metrop <- function() mcmc::metrop(m$ld, initial = m$init, nbatch = n,
                                        scale = m$scale)
  run_mh <- function(tg) sample_mh(tg, init = m$init, iter = n, burnin = 0,
                                   proposal = prop, progress = FALSE)
  set.seed(1)
  # repetitions of the compiled run per timing: enough for >= 0.5 s
  t1 <- max(cpu(run_mh(m$xp)), 1e-3)
  k <- max(1L, ceiling(0.5 / t1))
  t <- replicate(reps, c(
    metrop = cpu(run_metrop()),
    mh_r = cpu(run_mh(m$ld)),
    mh_compiled = cpu(for (i in seq_len(k)) run_mh(m$xp)) / k))
  per <- 1e6 * apply(t, 1, stats::median) / n
  c(n_iter = n, metrop_us = per[["metrop"]], mh_r_us = per[["mh_r"]],
    mh_compiled_us = per[["mh_compiled"]],
    ratio_vs_metrop = per[["mh_r"]] / per[["metrop"]],
    speedup_compiled = per[["mh_r"]] / per[["mh_compiled"]])
}

res <- t(vapply(models, bench_model, numeric(6)))
cat(sprintf("median CPU time of %d runs per method; microseconds per iteration\n\n", reps))
print(signif(res, 3))
cat("\ngoals: ratio_vs_metrop <= 1.1; speedup_compiled >= 30\n")
invisible(res)
