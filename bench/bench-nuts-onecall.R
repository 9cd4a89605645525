# Benchmark: gradients per second of sample_nuts() with a target given as
# one function returning the log density with its gradient
# (target(f, gradient = TRUE); for a compiled target the slot
# log_density_gradient) against the same target as two functions
# (target(log_density, gradient = )), optionally against rstan.
#
# Run from the repository root, with mcmix installed, on an idle machine:
#   Rscript bench/bench-nuts-onecall.R [reps] [scale]
# (`scale` multiplies the iterations; `Rscript bench/bench-nuts-onecall.R 1
# 0.05` only checks that the script runs.)
# Goal: the one-call form at least 1.6x the gradients per second of the
# two-function form on a cheap R target.
# Fair comparison: for each model the two forms compute the same values
# with the same code (each of the two functions does the shared work, the
# linear predictor or P x, and its own part, as a user's two functions
# would), so with the same seed they give the same draws (checked to agree
# to 1e-8: the two forms may round differently) and nearly the same number
# of leapfrog steps; the
# ratio of gradients per second is the ratio of times. Every repetition
# runs the forms in turn (load changes hit both alike), one chain,
# `iter` warm-up and `iter` kept iterations; reported: median over the
# repetitions of leapfrog steps (warm-up + sampling, each one gradient)
# per second of elapsed warm-up + sampling time (elapsed_time()).
# rstan, when installed, runs the same logistic regression (its gradients
# per second from get_num_leapfrog / get_elapsed_time), for scale.
suppressPackageStartupMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1L) as.integer(args[[1]]) else 5L
scale_n <- if (length(args) >= 2L) as.numeric(args[[2]]) else 1
iter <- max(20L, as.integer(round(1000 * scale_n)))

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

# Logistic regression, n = 100, p = 5 (intercept and 4 covariates), prior
# N(0, 10^2 I): the linear predictor is the work shared by the value and
# the gradient.
set.seed(1)
n <- 100L
X <- cbind(1, matrix(rnorm(n * 4L), n))
y <- rbinom(n, 1, plogis(X %*% c(-0.5, 1, -1, 0.5, 0)))
logit_vg <- function(b) {
  eta <- as.vector(X %*% b)
  value <- sum(y * eta - pmax(eta, 0) - log1p(exp(-abs(eta)))) - sum(b^2) / 200
  attr(value, "gradient") <- as.vector(crossprod(X, y - plogis(eta))) - b / 100
  value
}
# 10-D correlated Gaussian: the cheapest R target (the call dominates).
d <- 10L
S <- 0.5^abs(outer(seq_len(d), seq_len(d), "-"))
P <- solve(S)
gauss_vg <- function(x) {
  g <- -as.vector(P %*% x)
  value <- sum(x * g) / 2
  attr(value, "gradient") <- g   # (cheaper than structure())
  value
}
# the two-function forms: each function does the shared work (eta = X b,
# P x) and its own part, as a user's two functions would
logit_ld <- function(b) {
  eta <- as.vector(X %*% b)
  sum(y * eta - pmax(eta, 0) - log1p(exp(-abs(eta)))) - sum(b^2) / 200
}
logit_gr <- function(b) as.vector(crossprod(X, y - plogis(as.vector(X %*% b)))) - b / 100
gauss_ld <- function(x) -sum(x * as.vector(P %*% x)) / 2
gauss_gr <- function(x) -as.vector(P %*% x)

models <- list(
  "10-D Gaussian, R" = list(two = target(gauss_ld, gradient = gauss_gr),
                            one = target(gauss_vg, gradient = TRUE), init = rep(0.5, d)),
  "logistic n = 100, p = 5, R" = list(two = target(logit_ld, gradient = logit_gr),
                                      one = target(logit_vg, gradient = TRUE),
                                      init = double(5)),
  "logistic n = 100, p = 5, compiled" = list(
    two = target(plugin$logistic_target(X, y, gradient = "two")),
    one = target(plugin$logistic_target(X, y, gradient = "one")), init = double(5)))

# the forms agree
b0 <- c(0.1, -0.2, 0.3, 0, 0.5)
x0 <- seq(-1, 1, length.out = d)
stopifnot(isTRUE(all.equal(target_eval(models[[3]]$one, b0, gradient = TRUE),
                           attr(logit_vg(b0), "gradient"))),
          isTRUE(all.equal(target_eval(models[[3]]$two, b0), as.vector(logit_vg(b0)))),
          isTRUE(all.equal(logit_gr(b0), attr(logit_vg(b0), "gradient"))),
          isTRUE(all.equal(logit_ld(b0), as.vector(logit_vg(b0)))),
          isTRUE(all.equal(gauss_gr(x0), attr(gauss_vg(x0), "gradient"))),
          isTRUE(all.equal(gauss_ld(x0), as.vector(gauss_vg(x0)))))

run <- function(tg, init, seed) {
  set.seed(seed)
  fit <- sample_nuts(tg, init = init, iter = iter, burnin = iter, progress = FALSE)
  dg <- nuts_diagnostics(fit)
  list(grads = dg$n_leapfrog + dg$warmup_leapfrog, secs = sum(elapsed_time(fit)),
       draws = fit$chains[[1]]$traces)
}

rows <- list()
for (nm in names(models)) {
  m <- models[[nm]]
  rate <- matrix(NA_real_, reps, 2L, dimnames = list(NULL, c("two", "one")))
  for (r in seq_len(reps)) {
    a <- run(m$two, m$init, 100 + r)
    b <- run(m$one, m$init, 100 + r)
    if (!isTRUE(all.equal(a$draws, b$draws, tolerance = 1e-8)))
      stop("the two forms gave different draws for ", nm)
    rate[r, ] <- c(a$grads / a$secs, b$grads / b$secs)
  }
  med <- apply(rate, 2, stats::median)
  rows[[nm]] <- data.frame(model = nm, gradients = a$grads,
                           two_functions = signif(med[["two"]], 3),
                           one_call = signif(med[["one"]], 3),
                           speed_up = round(stats::median(rate[, "one"] / rate[, "two"]), 2))
}
res <- do.call(rbind, rows)
rownames(res) <- NULL

if (requireNamespace("rstan", quietly = TRUE)) {
  code <- "data { int n; int p; matrix[n, p] X; int<lower=0, upper=1> y[n]; }
           parameters { vector[p] b; }
           model { b ~ normal(0, 10); y ~ bernoulli_logit(X * b); }"
  sm <- rstan::stan_model(model_code = code)
  rs <- vapply(seq_len(reps), function(r) {
    f <- rstan::sampling(sm, data = list(n = n, p = 5L, X = X, y = y), chains = 1,
                         iter = 2L * iter, warmup = iter, seed = 100 + r, refresh = 0,
                         init = list(list(b = double(5))))
    np <- rstan::get_num_leapfrog(f, inc_warmup = TRUE)
    sum(np) / sum(rstan::get_elapsed_time(f))
  }, numeric(1))
  res <- rbind(res, data.frame(model = "logistic n = 100, p = 5, rstan", gradients = NA,
                               two_functions = NA, one_call = signif(stats::median(rs), 3),
                               speed_up = NA))
}

cat(sprintf("sample_nuts(): gradients per second, %d warm-up + %d kept iterations, median of %d\n",
            iter, iter, reps))
cat("| model | gradients per run | two functions | one call | speed-up (goal >= 1.6 on R) |\n")
cat("|---|---|---|---|---|\n")
for (i in seq_len(nrow(res)))
  cat(sprintf("| %s | %s | %s | %s | %s |\n", res$model[i], format(res$gradients[i]),
              format(res$two_functions[i]), format(res$one_call[i]),
              if (is.na(res$speed_up[i])) "" else paste0(format(res$speed_up[i]), "x")))
