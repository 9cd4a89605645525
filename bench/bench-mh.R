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
n <- if (length(args)) as.integer(args[[1]]) else 200000L
reps <- 5L

mu <- c(1, 2)
S <- matrix(c(1, 0.8, 0.8, 2), 2)
P <- solve(S)
ld <- function(x) -0.5 * sum((x - mu) * (P %*% (x - mu)))
scale <- 1

# the compiled version of the same density, from the test plugin package
lib <- tempfile("bench-lib-")
dir.create(lib)
out <- system2(file.path(R.home("bin"), "R"),
               c("CMD", "INSTALL", "--no-test-load", paste0("--library=", lib),
                 "tests/testthat/plugins/mcmixtarget"), stdout = TRUE, stderr = TRUE)
plugin <- loadNamespace("mcmixtarget", lib.loc = lib)
xp <- plugin$gauss2_target(mu, S)

time_it <- function(f) {
  t <- replicate(reps, {
    gc(FALSE)
    tm <- system.time(f())
    tm[["user.self"]] + tm[["sys.self"]]  # CPU time: robust to other load
  })
  stats::median(t)
}
set.seed(1)
t_metrop <- time_it(function() mcmc::metrop(ld, initial = c(0, 0), nbatch = n,
                                            scale = scale))
t_mh_r <- time_it(function() sample_mh(ld, init = c(0, 0), iter = n, burnin = 0,
                                       proposal = proposal_rw(scale = scale),
                                       progress = FALSE))
n_c <- 10L * n
t_mh_c <- time_it(function() sample_mh(xp, init = c(0, 0), iter = n_c, burnin = 0,
                                       proposal = proposal_rw(scale = scale),
                                       progress = FALSE))
per <- c(metrop = t_metrop / n, mh_r = t_mh_r / n, mh_compiled = t_mh_c / n_c)
res <- data.frame(
  run = c("mcmc::metrop(), R target", "sample_mh(), R target",
          "sample_mh(), compiled target"),
  iterations = c(n, n, n_c),
  seconds = round(c(t_metrop, t_mh_r, t_mh_c), 3),
  us_per_iter = round(1e6 * per, 3))
print(res, row.names = FALSE)
ratio_peer <- per[["mh_r"]] / per[["metrop"]]
speedup <- per[["mh_r"]] / per[["mh_compiled"]]
cat(sprintf("\nsample_mh (R target) / metrop time per iteration: %.3f (goal <= 1.1)\n",
            ratio_peer))
cat(sprintf("compiled target speed-up over the R target: %.1fx (goal >= 30)\n",
            speedup))
invisible(list(results = res, ratio_peer = ratio_peer, speedup = speedup))
