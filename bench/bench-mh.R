# Benchmark: sample_mh() on an R-function target against mcmc::metrop() on
# the same target, and the same model as a compiled target (the test plugin
# package tests/testthat/plugins/mcmixtarget).
#
# Run from the repository root, with mcmix installed:
#   Rscript bench/bench-mh.R [n_iter]
# Goals: R-function sample_mh() at most 1.1x the time per iteration of
# metrop(); the compiled target at least 30x faster than the R-function run.
suppressPackageStartupMessages({
  library(mcmix)
  if (!requireNamespace("mcmc", quietly = TRUE))
    stop("install mcmc first: Rscript tools/install-deps.R bench")
})
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args)) as.integer(args[[1]]) else 50000L
reps <- 5L


# the compiled version of the same density, from the test plugin package
tmp <- tempfile("bench-")
lib <- file.path(tmp, "lib")
dir.create(lib, recursive = TRUE)
invisible(file.copy("tests/testthat/plugins/mcmixtarget", tmp, recursive = TRUE))
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
# Model 3: GARCH(1,1) likelihood of n = 200 returns; the variance recursion
# needs a loop in R (cannot be vectorised).
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
models <- list(
  gauss2d = list(ld = function(x) -0.5 * sum((x - mu) * (P %*% (x - mu))),
                 xp = plugin$gauss2_target(mu, S), init = c(0, 0), scale = 1),
  normal_data = list(ld = function(x) -length(y) * x[2] -
                       0.5 * sum((y - x[1])^2) * exp(-2 * x[2]),
                     xp = plugin$normal_data_target(y), init = c(3, log(2)),
                     scale = 0.1),
  garch = list(ld = garch_ld, xp = plugin$garch_target(r), init = c(0.1, 0.1, 0.8),
               scale = 0.02))

time_it <- function(f) {
  t <- replicate(reps, {
    gc(FALSE)
    tm <- system.time(f())
    tm[["user.self"]] + tm[["sys.self"]]  # CPU time: robust to other load
  })
  stats::median(t)
}

bench_model <- function(m) {
  stopifnot(abs(target_eval(m$ld, m$init) - target_eval(m$xp, m$init)) < 1e-8)
  set.seed(1)
  t_metrop <- time_it(function() mcmc::metrop(m$ld, initial = m$init, nbatch = n,
                                              scale = m$scale))
  t_mh_r <- time_it(function() sample_mh(m$ld, init = m$init, iter = n, burnin = 0,
                                         proposal = proposal_rw(scale = m$scale),
                                         progress = FALSE))
  n_c <- 10L * n
  t_mh_c <- time_it(function() sample_mh(m$xp, init = m$init, iter = n_c, burnin = 0,
                                         proposal = proposal_rw(scale = m$scale),
                                         progress = FALSE))
  per <- 1e6 * c(t_metrop / n, t_mh_r / n, t_mh_c / n_c)
  c(metrop_us = per[1], mh_r_us = per[2], mh_compiled_us = per[3],
    ratio_vs_metrop = per[2] / per[1], speedup_compiled = per[2] / per[3])
}

res <- t(vapply(models, bench_model, numeric(5)))
cat(sprintf("n = %d iterations (R targets), %d (compiled); median CPU time of %d runs\n\n",
            n, 10L * n, reps))
print(round(res, 3))
cat("\ngoals: ratio_vs_metrop <= 1.1; speedup_compiled >= 30\n")
invisible(res)
