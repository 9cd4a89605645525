# Benchmarks of the diagnostics and of the posterior similarity matrix.
#
#   Rscript bench/bench-diag.R            (mcmix installed; posterior, coda
#                                          and mcclust used when installed)
#
# 1. ESS + R-hat of 4 chains x 1e6 draws (AR(1), phi = 0.9): mcmix's rhat()
#    and ess() against posterior::rhat() and posterior::ess_bulk() (the same
#    estimators, equal to 1e-6), and coda::effectiveSize() (a different,
#    spectral estimator) for reference.
# 2. psm() for N = 5000 observations and 1000 draws against
#    mcclust::comp.psm(), with the peak memory of the R heap (gc "max used").

suppressPackageStartupMessages(library(mcmix))
# Times are CPU seconds (user + system) of this single-threaded process, the
# minimum over repetitions: the machines these run on are shared, and
# elapsed times vary with their load.
has <- function(p) requireNamespace(p, quietly = TRUE)
timeit <- function(expr, reps = 1L) {
  e <- substitute(expr)
  env <- parent.frame()
  t <- numeric(reps)
  for (i in seq_len(reps)) {
    gc()
    st <- system.time(eval(e, env))
    t[i] <- st[["user.self"]] + st[["sys.self"]]
  }
  min(t)
}
# CPU time and peak R heap ("max used" above the baseline, MB) of one
# evaluation of f().
measure <- function(f) {
  gc(reset = TRUE)
  before <- sum(gc()[, 2L])
  st <- system.time(value <- f())
  t <- st[["user.self"]] + st[["sys.self"]]
  g <- gc()
  list(time = t, peak = sum(g[, 6L]) - before, value = value)
}

cat("R ", R.version$major, ".", R.version$minor, "; ", format(Sys.Date()), "; ",
    parallel::detectCores(), " cores\n", sep = "")

## 1. ESS and R-hat ---------------------------------------------------------
set.seed(1)
n <- 1e6
x <- vapply(1:4, function(j) as.numeric(stats::filter(rnorm(n), 0.9, "recursive")),
            numeric(n))
t_mcmix <- timeit(c(rhat(x), ess(x)), reps = 3L)
t_mcmix_all <- timeit(c(rhat(x), ess(x), ess(x, "tail")), reps = 3L)
cat(sprintf("mcmix      rhat + ess_bulk            : %7.2f s\n", t_mcmix))
cat(sprintf("mcmix      rhat + ess_bulk + ess_tail : %7.2f s\n", t_mcmix_all))
if (has("posterior")) {
  t_post <- timeit(c(posterior::rhat(x), posterior::ess_bulk(x)))
  t_post_all <- timeit(c(posterior::rhat(x), posterior::ess_bulk(x), posterior::ess_tail(x)))
  cat(sprintf("posterior  rhat + ess_bulk            : %7.2f s  (ratio %.1fx)\n",
              t_post, t_post / t_mcmix))
  cat(sprintf("posterior  rhat + ess_bulk + ess_tail : %7.2f s  (ratio %.1fx)\n",
              t_post_all, t_post_all / t_mcmix_all))
  d <- c(rhat(x) / posterior::rhat(x), ess(x) / posterior::ess_bulk(x)) - 1
  cat(sprintf("  max relative difference to posterior: %.2g\n", max(abs(d))))
}
if (has("coda")) {
  ml <- coda::mcmc.list(lapply(1:4, function(j) coda::mcmc(x[, j])))
  t_coda <- timeit(coda::effectiveSize(ml))
  t_ess <- timeit(ess(x, "basic"), reps = 3L)
  cat(sprintf("coda       effectiveSize              : %7.2f s  (mcmix ess basic %.2f s, ratio %.1fx)\n",
              t_coda, t_ess, t_coda / t_ess))
}

## 2. Posterior similarity matrix --------------------------------------------
set.seed(2)
N <- 5000
S <- 1000
truth <- sample.int(6, N, replace = TRUE)
labs <- t(vapply(seq_len(S), function(s) {
  z <- truth
  i <- sample.int(N, N %/% 10)
  z[i] <- sample.int(8, length(i), replace = TRUE)
  z
}, integer(N)))
rm(x)
r1 <- measure(function() psm(labs))
r1b <- measure(function() psm(labs))
t_psm <- min(r1$time, r1b$time)
cat(sprintf("mcmix      psm(), N = %d, %d draws     : %7.2f s, peak R heap +%.0f MB\n",
            N, S, t_psm, r1$peak))
if (has("mcclust")) {
  r2 <- measure(function() mcclust::comp.psm(labs))
  cat(sprintf("mcclust    comp.psm()                  : %7.2f s, peak R heap +%.0f MB  (ratio %.1fx)\n",
              r2$time, r2$peak, r2$time / t_psm))
  cat(sprintf("  max |difference|: %.2g\n", max(abs(unclass(r1$value) - r2$value))))
}
