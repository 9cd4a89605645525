# Benchmark: gradients per second of sample_nuts() with a target given as
# one function returning the log density with its gradient
# (target(f, gradient = TRUE); for a compiled target the slot
# log_density_gradient) against the same target as two functions
# (target(log_density, gradient = )), and against rstan on the same
# densities when rstan is installed.
#
# Run from the repository root, with mcmix installed:
#   Rscript bench/bench-nuts-onecall.R [reps] [scale]
# (`scale` multiplies the iterations; `Rscript bench/bench-nuts-onecall.R 1
# 0.05` only checks that the script runs.)
# Goal: the one-call form at least 1.6x the gradients per second of the
# two-function form on a cheap R target.
#
# Fair comparison: for each model the forms compute the same values with
# the same code (each of the two functions does the shared work, P x or the
# linear predictor, and its own part, as a user's two functions would), so
# with the same seed they give the same draws (checked to agree to 1e-8:
# the forms may round differently) and nearly the same number of leapfrog
# steps. The one-call form is given as `list(value = , gradient = )`, the
# cheapest of the accepted returns, and, for the Gaussians, also with the
# gradient as attribute (`attr(v, "gradient") <- g`). Every repetition
# runs the forms (and Stan) in turn, so load changes hit them alike; one
# chain, `iter` warm-up and `iter` kept iterations. Gradients per second =
# leapfrog steps (warm-up + sampling, each one gradient) per second of CPU
# time of the run (proc.time(); Stan: get_num_leapfrog() per second of
# get_elapsed_time(), which Stan measures with clock(), CPU time too);
# reported: medians over the repetitions, and the median of the
# per-repetition ratios. The load average is printed: on a shared machine
# compare ratios, not absolute speeds.
#
# rstan: the Stan programs are bench/stan/*.stan, compiled at every run
# (about a minute of CPU each; rstan's auto_write cache is not reused by a
# new R session once the compiled library is gone). Debian's BH package has no headers:
# the system Boost headers are used (option MCMIX_BENCH_BOOST, default
# /usr/include) when BH has none. MCMIX_BENCH_STAN=false leaves Stan out;
# MCMIX_BENCH_STAN=iid,logistic runs only those programs (each takes
# minutes to compile).
suppressPackageStartupMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1L) as.integer(args[[1]]) else 5L
scale_n <- if (length(args) >= 2L) as.numeric(args[[2]]) else 1
iter <- max(20L, as.integer(round(1000 * scale_n)))
load_avg <- function() {
  if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg"), " ")[[1]][1] else NA
}
load_start <- load_avg()

# the compiled targets, from the example plugin package
tmp <- tempfile("bench-")
lib <- file.path(tmp, "lib")
dir.create(lib, recursive = TRUE)
invisible(file.copy(system.file("plugins", "mcmixtarget", package = "mcmix"), tmp,
                    recursive = TRUE))
out <- system2(file.path(R.home("bin"), "R"),
               c("CMD", "INSTALL", "--no-test-load", paste0("--library=", lib),
                 file.path(tmp, "mcmixtarget")), stdout = TRUE, stderr = TRUE)
if (!is.null(attr(out, "status"))) stop(paste(out, collapse = "\n"))
plugin <- loadNamespace("mcmixtarget", lib.loc = lib)

# 5-D standard normal: value and gradient share nothing.
iid_ld <- function(x) -0.5 * sum(x * x)
iid_gr <- function(x) -x
iid_vl <- function(x) list(value = -0.5 * sum(x * x), gradient = -x)
iid_va <- function(x) {
  v <- -0.5 * sum(x * x)
  attr(v, "gradient") <- -x
  v
}
# 10-D correlated Gaussian: P x is the work shared by the value and the gradient.
d <- 10L
S <- 0.5^abs(outer(seq_len(d), seq_len(d), "-"))
P <- solve(S)
gauss_ld <- function(x) -0.5 * sum(x * drop(P %*% x))
gauss_gr <- function(x) -drop(P %*% x)
gauss_vl <- function(x) {
  g <- -drop(P %*% x)
  list(value = 0.5 * sum(x * g), gradient = g)
}
gauss_va <- function(x) {
  g <- -drop(P %*% x)
  v <- 0.5 * sum(x * g)
  attr(v, "gradient") <- g
  v
}
# Logistic regression, n = 100, p = 5 (intercept and 4 covariates), prior
# N(0, 10^2 I): the linear predictor is the shared work.
set.seed(1)
n <- 100L
X <- cbind(1, matrix(rnorm(n * 4L), n))
y <- rbinom(n, 1, plogis(X %*% c(-0.5, 1, -1, 0.5, 0)))
logit_ld <- function(b) {
  eta <- drop(X %*% b)
  sum(y * eta - pmax(eta, 0) - log1p(exp(-abs(eta)))) - sum(b^2) / 200
}
logit_gr <- function(b) drop(crossprod(X, y - plogis(drop(X %*% b)))) - b / 100
logit_vl <- function(b) {
  eta <- drop(X %*% b)
  list(value = sum(y * eta - pmax(eta, 0) - log1p(exp(-abs(eta)))) - sum(b^2) / 200,
       gradient = drop(crossprod(X, y - plogis(eta))) - b / 100)
}
# The sleepstudy-like model of the tests (42 parameters, non-centred, LKJ):
# its two-function form computes the linear predictor and residuals in both.
source(file.path("tests", "testthat", "helper-sleepstudy.R"))
sleep <- sleep_data()

models <- list(
  "5-D standard normal, R (nothing shared)" = list(
    two = target(iid_ld, gradient = iid_gr), one = target(iid_vl, gradient = TRUE),
    one_attr = target(iid_va, gradient = TRUE), init = rep(0.5, 5L),
    stan = list(file = "iid", data = list(d = 5L))),
  "10-D correlated Gaussian, R (P x shared)" = list(
    two = target(gauss_ld, gradient = gauss_gr), one = target(gauss_vl, gradient = TRUE),
    one_attr = target(gauss_va, gradient = TRUE), init = rep(0.5, d),
    stan = list(file = "gauss", data = list(d = d, P = P))),
  "logistic n = 100, p = 5, R (X b shared)" = list(
    two = target(logit_ld, gradient = logit_gr), one = target(logit_vl, gradient = TRUE),
    init = double(5), stan = list(file = "logistic",
                                  data = list(n = n, p = 5L, X = X, y = as.integer(y)))),
  "logistic n = 100, p = 5, compiled" = list(
    two = target(plugin$logistic_target(X, y, gradient = "two")),
    one = target(plugin$logistic_target(X, y, gradient = "one")), init = double(5)),
  "sleepstudy, 42 parameters, R (linear predictor shared)" = list(
    two = sleep_target(sleep, "two"), one = sleep_target(sleep, "one"),
    init = rep(0.1, 42L), stan = list(file = "sleepstudy",
                                      data = list(n = length(sleep$y), J = sleep$J,
                                                  y = sleep$y, x = sleep$x, g = sleep$g))))

# the forms agree
b0 <- c(0.1, -0.2, 0.3, 0, 0.5)
x0 <- seq(-1, 1, length.out = d)
stopifnot(isTRUE(all.equal(target_eval(models[[4]]$one, b0, gradient = TRUE),
                           logit_vl(b0)$gradient)),
          isTRUE(all.equal(target_eval(models[[4]]$two, b0), logit_vl(b0)$value)),
          isTRUE(all.equal(logit_gr(b0), logit_vl(b0)$gradient)),
          isTRUE(all.equal(logit_ld(b0), logit_vl(b0)$value)),
          isTRUE(all.equal(gauss_gr(x0), gauss_vl(x0)$gradient)),
          isTRUE(all.equal(gauss_ld(x0), gauss_vl(x0)$value)))

run <- function(tg, init, seed) {
  set.seed(seed)
  t0 <- proc.time()
  fit <- sample_nuts(tg, init = init, iter = iter, burnin = iter, progress = FALSE)
  t1 <- proc.time() - t0
  dg <- nuts_diagnostics(fit)
  list(grads = dg$n_leapfrog + dg$warmup_leapfrog, secs = t1[["user.self"]] + t1[["sys.self"]],
       draws = fit$chains[[1]]$traces)
}

# rstan, when installed: gradients per second of Stan's NUTS on the same density
stan_only <- Sys.getenv("MCMIX_BENCH_STAN")
stan_ok <- !identical(stan_only, "false") && requireNamespace("rstan", quietly = TRUE)
if (stan_ok && nzchar(stan_only))   # e.g. "iid,logistic": only these programs
  for (nm in names(models))
    if (!is.null(models[[nm]]$stan) &&
        !models[[nm]]$stan$file %in% strsplit(stan_only, ",", fixed = TRUE)[[1]])
      models[[nm]]$stan <- NULL
if (stan_ok) {
  boost <- Sys.getenv("MCMIX_BENCH_BOOST", "/usr/include")
  if (!dir.exists(file.path(system.file(package = "BH"), "include")))
    rstan::rstan_options(boost_lib = boost)
  stan_models <- list()
  for (nm in names(models)) if (!is.null(models[[nm]]$stan)) {
    f <- models[[nm]]$stan$file
    if (is.null(stan_models[[f]]))
      stan_models[[f]] <- rstan::stan_model(file.path("bench", "stan", paste0(f, ".stan")))
  }
}
stan_run <- function(spec, seed) {
  fit <- rstan::sampling(stan_models[[spec$file]], data = spec$data, chains = 1,
                         iter = 2L * iter, warmup = iter, seed = seed, refresh = 0)
  sum(rstan::get_num_leapfrog(fit, inc_warmup = TRUE)) / sum(rstan::get_elapsed_time(fit))
}

rows <- list()
for (nm in names(models)) {
  m <- models[[nm]]
  forms <- intersect(c("two", "one", "one_attr"), names(m))
  rate <- matrix(NA_real_, reps, 4L, dimnames = list(NULL, c("two", "one", "one_attr", "stan")))
  for (r in seq_len(reps)) {
    res <- lapply(forms, function(f) run(m[[f]], m$init, 100 + r))
    names(res) <- forms
    for (f in forms[-1])
      if (!isTRUE(all.equal(res[[f]]$draws, res$two$draws, tolerance = 1e-8)))
        stop("the forms gave different draws for ", nm)
    rate[r, forms] <- vapply(res, function(a) a$grads / a$secs, numeric(1))
    if (stan_ok && !is.null(m$stan)) rate[r, "stan"] <- stan_run(m$stan, 100 + r)
  }
  med <- apply(rate, 2, stats::median)
  ratio <- function(a, b) stats::median(rate[, a] / rate[, b])
  rows[[nm]] <- data.frame(model = nm, gradients = res$two$grads,
                           two = signif(med[["two"]], 3), one = signif(med[["one"]], 3),
                           one_attr = signif(med[["one_attr"]], 3),
                           speed_up = round(ratio("one", "two"), 2),
                           speed_up_attr = round(ratio("one_attr", "two"), 2),
                           stan = signif(med[["stan"]], 3),
                           one_vs_stan = round(ratio("one", "stan"), 3),
                           two_vs_stan = round(ratio("two", "stan"), 3))
}
res <- do.call(rbind, rows)
rownames(res) <- NULL

cat(sprintf(paste0("sample_nuts(): gradients per CPU second, %d warm-up + %d kept iterations, ",
                   "median of %d; load average %s at the start, %s at the end\n"),
            iter, iter, reps, load_start, load_avg()))
cat("| model | gradients per run | two functions | one call (list) | one call (attr) |",
    "speed-up (goal >= 1.6) | Stan | one call / Stan | two functions / Stan |\n")
cat("|---|---|---|---|---|---|---|---|---|\n")
fmt <- function(x, suffix = "") ifelse(is.na(x), "", paste0(format(x, big.mark = ","), suffix))
for (i in seq_len(nrow(res)))
  cat(sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", res$model[i],
              fmt(res$gradients[i]), fmt(res$two[i]), fmt(res$one[i]), fmt(res$one_attr[i]),
              paste0(fmt(res$speed_up[i], "x"),
                     ifelse(is.na(res$speed_up_attr[i]), "",
                            paste0(" (attr ", fmt(res$speed_up_attr[i], "x"), ")"))),
              fmt(res$stan[i]), fmt(res$one_vs_stan[i]), fmt(res$two_vs_stan[i])))
