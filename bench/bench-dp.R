#!/usr/bin/env Rscript
## Seconds per sweep of the DP mixture "collapsed" sampler (gaussian_niw,
## D = 2) at N = 1e3, 1e4, 1e5, and the peak memory of the process.
##
## Usage: Rscript bench/bench-dp.R            (all sizes, each in a fresh R)
##        Rscript bench/bench-dp.R --one N    (one size; prints one CSV line)
## Uses the installed mcmix (set R_LIBS to choose which). Peers BNPmix and
## dirichletprocess are timed when installed (tools/install-deps.R bench).
##
## Data: four well-separated bivariate normal clusters (means (+-4, 0),
## (0, +-4), unit covariance), N points, seed 1; alpha = 1; init = "prior".
## "sweep_s" = engine time per sweep (one chunk of `sweeps` sweeps after 50
## warm-up sweeps, user+sys CPU time / sweeps; K_engine = mean number of
## clusters during those sweeps); "run_s" = sample_posterior() CPU time per iteration
## including the chunked driver and keeping every label (10 warm-up
## sweeps from a prior draw, so K_run is larger); "peak_mb" = VmHWM
## of the process (Linux). CPU rather than wall time, so that other jobs on
## the machine do not count (peers: wall time of their fitting call).

args <- commandArgs(trailingOnly = TRUE)

make_data <- function(N) {
  set.seed(1)
  mu <- rbind(c(-4, 0), c(4, 0), c(0, 4), c(0, -4))
  z <- sample.int(4L, N, replace = TRUE)
  mu[z, ] + matrix(stats::rnorm(2 * N), N, 2)
}

peak_mb <- function() {
  f <- "/proc/self/status"
  if (!file.exists(f)) return(NA_real_)
  l <- grep("^VmHWM", readLines(f), value = TRUE)
  as.numeric(gsub("[^0-9]", "", l)) / 1024
}

cpu <- function(expr) {
  t <- system.time(expr)
  t[["user.self"]] + t[["sys.self"]]
}

one <- function(N) {
  suppressPackageStartupMessages(library(mcmix))
  x <- make_data(N)
  sweeps <- c(`1000` = 2000, `10000` = 200, `1e+05` = 30)[[format(N)]]
  model <- dp_mixture(gaussian_niw(), alpha = 1)
  # engine only: one chunk of `sweeps` sweeps after a short warm-up
  prep <- mcmix:::family_prepare(model$family, x)
  set.seed(2)
  k <- mcmix:::dp_kernel(model, prep, "collapsed", "prior", dp_control())
  st <- k$init(1)
  st <- k$step(st, 50, 1, 0, TRUE)$state
  t_engine <- cpu(r <- k$step(st, sweeps, 1, 50, FALSE))
  K_engine <- mean(r$draws$traces[, "n_clusters"])
  # the whole run verb (chunked driver, labels kept)
  set.seed(3)
  t_run <- cpu(fit <- sample_posterior(model, x, iter = sweeps, burnin = 10,
                                       progress = FALSE)) / (sweeps + 10)
  K <- mean(fit$chains[[1]]$traces[, "n_clusters"])
  out <- data.frame(package = "mcmix", N = N, sweeps = sweeps,
                    sweep_s = t_engine / sweeps, K_engine = K_engine,
                    run_s = t_run, K_run = K, peak_mb = peak_mb())
  peers <- list(
    BNPmix = function() {
      n_it <- max(10, sweeps %/% 10)
      t <- system.time(BNPmix::PYdensity(
        x, mcmc = list(niter = n_it, nburn = 0, method = "MAR", print_message = FALSE),
        output = list(grid = matrix(0, 1, 2), out_type = "CLUST")))[[3]]
      t / n_it
    },
    dirichletprocess = function() {
      n_it <- max(5, sweeps %/% 100)
      dp <- dirichletprocess::DirichletProcessMvnormal(x)
      t <- system.time(dirichletprocess::Fit(dp, n_it, progressBar = FALSE))[[3]]
      t / n_it
    })
  for (p in names(peers)) {
    if (!requireNamespace(p, quietly = TRUE)) next
    if (p == "dirichletprocess" && N > 1e4) next        # far too slow
    s <- tryCatch(peers[[p]](), error = function(e) NA_real_)
    out <- rbind(out, data.frame(package = p, N = N, sweeps = NA, sweep_s = NA,
                                 K_engine = NA, run_s = s, K_run = NA, peak_mb = NA))
  }
  out
}

if (length(args) >= 2L && args[[1L]] == "--one") {
  res <- one(as.numeric(args[[2L]]))
  utils::write.table(res, stdout(), sep = ",", row.names = FALSE, col.names = FALSE)
} else {
  me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  rs <- file.path(R.home("bin"), "Rscript")
  rows <- lapply(c(1e3, 1e4, 1e5), function(N) {
    l <- system2(rs, c(me, "--one", format(N, scientific = FALSE)), stdout = TRUE)
    utils::read.csv(text = l, header = FALSE,
                    col.names = c("package", "N", "sweeps", "sweep_s", "K_engine",
                                  "run_s", "K_run", "peak_mb"))
  })
  res <- do.call(rbind, rows)
  cat("DP mixture, collapsed Gibbs, gaussian_niw, D = 2 (", format(Sys.time()), ")\n",
      sep = "")
  cpu_name <- tryCatch(sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"),
                                             value = TRUE)[1]), error = function(e) NA)
  cat("machine:", cpu_name, "; R", R.version$major, ".", R.version$minor, "\n", sep = "")
  print(res, row.names = FALSE, digits = 4)
  target <- res$sweep_s[res$package == "mcmix" & res$N == 1e5]
  cat(sprintf("\ntarget N = 1e5: <= 0.1 s per sweep; measured %.3f s (%s)\n", target,
              if (isTRUE(target <= 0.1)) "met" else "NOT met"))
}
