#!/usr/bin/env Rscript
## One DP mixture chain sharded over local PSOCK workers against the
## in-process run on the same data.
##
## Usage: Rscript bench/bench-sharded.R [N [seeds [sweeps [workers [D]]]]]
##        defaults: N = 1e8, seeds 12,13,14, 40 sweeps, 2 workers, D = 2
##        (run from the package root on an idle machine for the times).
##
## Data: five unit-variance Gaussian clusters in D dimensions at 0 and
## (+-5, +-5, 0, ...) (as bench/bench-cut-1e7.R), made after set.seed(11)
## in blocks of 2^20 rows, each block written to its own file
## (saveRDS, uncompressed) in a temporary folder: the shards of the run.
## The session never holds the data of the sharded run: it reads the files
## only for the in-process reference (which needs all of it in memory).
## Per seed: (a) sharded: set.seed(seed); sample_posterior(dp_mixture(
## gaussian_niw(), alpha = 1), shard_source(files), cl = cl, iter = sweeps,
## burnin = 0) on `workers` local PSOCK workers, one thread each; (b) in
## process: the same call on the bound matrix with threads = workers and
## the default sampler ("subcluster"). Reported: wall and CPU per sweep of
## the sampling phase (elapsed_time(), the chain's sampling time), the
## bytes sent and received per sweep by the session, the session's and
## each worker's peak resident memory (VmHWM) against its shard data, and
## for each true cluster the share of its points in the cluster holding
## most of them (sharded: shard_labels()).

args <- commandArgs(trailingOnly = TRUE)
N <- if (length(args) >= 1L) as.numeric(args[[1L]]) else 1e8
seeds <- if (length(args) >= 2L) as.integer(strsplit(args[[2L]], ",")[[1L]]) else 12:14
sweeps <- if (length(args) >= 3L) as.integer(args[[3L]]) else 40L
workers <- if (length(args) >= 4L) as.integer(args[[4L]]) else 2L
D <- if (length(args) >= 5L) as.integer(args[[5L]]) else 2L
inproc <- !identical(Sys.getenv("BENCH_NO_INPROCESS"), "1")
suppressPackageStartupMessages(library(mcmix))

hwm <- function() {
  v <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", v)) / 1024        # MB
}
load1 <- function() strsplit(readLines("/proc/loadavg"), " ")[[1L]][1L]

dir <- tempfile("mcmix-bench-shards")
dir.create(dir)
on.exit(unlink(dir, recursive = TRUE))
block <- 2^20
mu <- matrix(0, 5L, D)
mu[2:5, 1:2] <- rbind(c(5, 5), c(5, -5), c(-5, 5), c(-5, -5))
set.seed(11)
files <- character()
ztrue <- integer(N)
for (lo in seq(1, N, by = block)) {
  i <- lo:min(N, lo + block - 1)
  z <- sample.int(5L, length(i), replace = TRUE)
  ztrue[i] <- z
  f <- file.path(dir, sprintf("shard-%05d.rds", length(files) + 1L))
  saveRDS(mu[z, , drop = FALSE] + matrix(stats::rnorm(D * length(i)), length(i), D), f,
          compress = FALSE)
  files <- c(files, f)
}
shares <- function(lab) {
  vapply(1:5, function(k) max(tabulate(lab[ztrue == k])) / sum(ztrue == k), 0)
}
cat(sprintf("N = %g, D = %d, %d shards of %d rows, %d sweeps, %d workers; load %s\n",
            N, D, length(files), block, sweeps, workers, load1()))
cat("run seed wall_per_sweep cpu_per_sweep sent_per_sweep received_per_sweep session_MB worker_MB shard_MB min_share load1\n")
cl <- {
  options(socketOptions = "no-delay")   # (TCP no-delay on both ends)
  parallel::makePSOCKcluster(workers, rscript_args = c("-e", shQuote("options(socketOptions = 'no-delay')")))
}
src <- shard_source(files)
for (seed in seeds) {
  set.seed(seed)
  t0 <- proc.time()
  fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 1), src, cl = cl, iter = sweeps,
                          burnin = 0, progress = FALSE)
  h <- fit$data$handle
  tm <- elapsed_time(fit)
  wmb <- unlist(parallel::clusterCall(cl, function() {
    v <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
    as.numeric(gsub("[^0-9]", "", v)) / 1024
  }))
  cat(sprintf("sharded %d %.3f NA %.0f %.0f %.0f %s %.0f %.5f %s\n", seed,
              sum(tm[, "sample"]) / sweeps, h$sent / sweeps, h$received / sweeps, hwm(),
              paste(round(wmb), collapse = "/"), 8 * D * N / workers / 2^20,
              min(shares(shard_labels(fit))), load1()))
  rm(fit)
  invisible(gc())
}
parallel::stopCluster(cl)
if (inproc) {
  x <- do.call(rbind, lapply(files, readRDS))
  for (seed in seeds) {
    set.seed(seed)
    fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 1), x, iter = sweeps, burnin = 0,
                            threads = workers, labels = FALSE, progress = FALSE)
    tm <- elapsed_time(fit)
    lab <- fit$chains[[1]]$state$labels + 1L
    cat(sprintf("in_process %d %.3f NA 0 0 %.0f NA %.0f %.5f %s\n", seed,
                sum(tm[, "sample"]) / sweeps, hwm(), 8 * D * N / 2^20, min(shares(lab)), load1()))
    rm(fit)
    invisible(gc())
  }
}
