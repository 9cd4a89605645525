#!/usr/bin/env Rscript
## LDA over shards of documents on the workers of a local PSOCK cluster
## (sample_posterior(lda_model(K), shard_source(files), cl = cl)) against
## the in-process run on 2 threads (algorithm = "blocked") and the exact
## sequential sampler ("sparse"), on one synthetic corpus written to files.
##
## Usage:
##   Rscript bench/bench-lda-sharded.R gen   TOKENS SHARDS DIR [K_TRUE] [V] [SEED]
##   Rscript bench/bench-lda-sharded.R shard DIR K SWEEPS WORKERS [SEED]
##   Rscript bench/bench-lda-sharded.R local DIR K SWEEPS ALGORITHM THREADS [SEED]
##   Rscript bench/bench-lda-sharded.R perp  DIR K SWEEPS SHARDS SEEDS
## `perp` compares the held-out perplexity after SWEEPS sweeps (the topics
## of the last sweep) of the sharded sampler with SHARDS shards (in
## process: the draws are those of any number of workers) and of the exact
## sequential sampler ("sparse"), for each seed of SEEDS (e.g. 1,2,3), on
## the documents of DIR.
## `gen` writes DIR/shard-i.rds (a list of word-id vectors each, documents
## of 200 tokens from an LDA with K_TRUE topics, alpha 0.1, topics drawn
## from Dirichlet(0.05) over V words) and DIR/heldout.rds (300 documents),
## generated shard by shard (never the whole corpus in memory). `shard`
## runs one sharded chain over WORKERS local workers reading the files;
## `local` reads every file into this session and runs ALGORITHM on
## THREADS threads. Each prints one line: seconds per sweep (wall and this
## process's CPU) over SWEEPS sweeps after the first, the bytes sent and
## received per sweep (sharded), the peak resident memory of the session
## and of each worker (VmHWM), the held-out perplexity after all sweeps
## (alpha = 50 / K, beta = 0.01), and the load average. Run each mode in a
## process of its own so that the peaks are the mode's.

suppressMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
mode <- args[1L]
peak_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}
load_avg <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " ")

if (mode == "gen") {
  tokens <- as.numeric(args[2L])
  S <- as.integer(args[3L])
  dir <- args[4L]
  Kt <- if (length(args) >= 5L) as.integer(args[5L]) else 100L
  V <- if (length(args) >= 6L) as.integer(args[6L]) else 50000L
  seed <- if (length(args) >= 7L) as.integer(args[7L]) else 1L
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  set.seed(seed)
  rdir <- function(n, a) {
    g <- matrix(stats::rgamma(n * length(a), a), ncol = length(a), byrow = TRUE)
    g / rowSums(g)
  }
  phi <- rdir(Kt, rep(0.05, V))
  len <- 200L
  docs_of <- function(D) {
    theta <- rdir(D, rep(0.1, Kt))
    z <- unlist(lapply(seq_len(D), function(d) sample.int(Kt, len, TRUE, theta[d, ])))
    w <- integer(length(z))
    for (k in seq_len(Kt)) {
      at <- which(z == k)
      if (length(at)) w[at] <- sample.int(V, length(at), TRUE, phi[k, ])
    }
    split(w, rep(seq_len(D), each = len))
  }
  D <- ceiling(tokens / len / S)
  for (i in seq_len(S)) {
    saveRDS(unname(docs_of(D)), file.path(dir, sprintf("shard-%03d.rds", i)), compress = FALSE)
    cat(".")
  }
  saveRDS(unname(docs_of(300L)), file.path(dir, "heldout.rds"))
  cat(sprintf("\n%d shards of %d documents of %d tokens (%.3g tokens), V = %d, in %s\n",
              S, D, len, S * D * len, V, dir))
  quit(save = "no")
}

dir <- args[2L]
K <- as.integer(args[3L])
sweeps <- as.integer(args[4L])
paths <- sort(list.files(dir, "^shard-.*[.]rds$", full.names = TRUE))
held <- readRDS(file.path(dir, "heldout.rds"))
model <- lda_model(K, alpha = 50 / K, beta = 0.01)
vocab_w <- 50000L

if (mode == "perp") {
  S <- as.integer(args[5L])
  seeds <- as.integer(strsplit(args[6L], ",")[[1L]])
  docs <- do.call(c, lapply(paths, readRDS))
  for (seed in seeds) {
    pp <- vapply(c("sharded", "sequential"), function(which) {
      set.seed(seed)
      fit <- suppressWarnings(sample_posterior(
        model, docs, iter = 1L, burnin = sweeps - 1L, progress = FALSE,
        shards = if (which == "sharded") S))
      perplexity(fit, held)
    }, 0)
    cat(sprintf("seed %d, %d sweeps, K = %d: held-out perplexity %d shards %.1f, sequential %.1f (ratio %.4f); load %s\n",
                seed, sweeps, K, S, pp[1L], pp[2L], pp[1L] / pp[2L], load_avg()))
  }
  quit(save = "no")
}

if (mode == "shard") {
  W <- as.integer(args[5L])
  seed <- if (length(args) >= 6L) as.integer(args[6L]) else 1L
  cl <- {
    options(socketOptions = "no-delay")   # (TCP no-delay on both ends)
    parallel::makePSOCKcluster(W, rscript_args = c("-e", shQuote("options(socketOptions = 'no-delay')")))
  }
  on.exit(parallel::stopCluster(cl))
  set.seed(seed)
  t0 <- proc.time()
  fit <- suppressWarnings(sample_posterior(model, shard_source(paths), cl = cl, iter = 1L,
                                           burnin = 0L, progress = FALSE))
  t_start <- (proc.time() - t0)[["elapsed"]]
  h <- fit$data$handle
  s0 <- h$sent
  r0 <- h$received
  wcpu <- function() vapply(parallel::clusterCall(cl, function() {
    p <- proc.time()
    p[["user.self"]] + p[["sys.self"]]
  }), as.numeric, 0)
  c0 <- wcpu()
  t0 <- proc.time()
  fit <- suppressWarnings(extend(fit, iter = sweeps))
  dt <- proc.time() - t0
  wc <- (wcpu() - c0) / sweeps
  wpk <- unlist(parallel::clusterCall(cl, function() {
    s <- readLines("/proc/self/status")
    as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
  }))
  pp <- perplexity(fit, held)
  cat(sprintf(paste0("sharded: %.3g tokens, %d shards, %d workers, K = %d: start %.1f s; ",
                     "%.3f s/sweep wall, %.3f CPU (session), workers' CPU %s; %.0f kB sent, %.0f kB received ",
                     "per sweep; session peak %.0f MB, workers %s MB; perplexity %.1f; load %s\n"),
              fit$data$N, length(paths), W, K, t_start, dt[["elapsed"]] / sweeps,
              (dt[["user.self"]] + dt[["sys.self"]]) / sweeps,
              paste(sprintf("%.3f", wc), collapse = ", "), (h$sent - s0) / sweeps / 1e3,
              (h$received - r0) / sweeps / 1e3, peak_mb(), paste(round(wpk), collapse = ", "),
              pp, load_avg()))
} else if (mode == "local") {
  alg <- args[5L]
  threads <- as.integer(args[6L])
  seed <- if (length(args) >= 7L) as.integer(args[7L]) else 1L
  docs <- do.call(c, lapply(paths, readRDS))
  # (1e8 tokens need about 8 GB in process)
  options(mcmix.threads_adapt = FALSE, mcmix.lda_max_bytes = 2e10, mcmix.memory_budget = 2e10)
  set.seed(seed)
  t0 <- proc.time()
  fit <- suppressWarnings(sample_posterior(model, docs, iter = 1L, burnin = 0L,
                                           algorithm = alg, threads = threads,
                                           progress = FALSE))
  t_start <- (proc.time() - t0)[["elapsed"]]
  N <- length(fit$data$word)
  rm(docs)
  t0 <- proc.time()
  fit <- suppressWarnings(extend(fit, iter = sweeps))
  dt <- proc.time() - t0
  pp <- perplexity(fit, held)
  cat(sprintf(paste0("in process: %.3g tokens, %s on %d threads, K = %d: start %.1f s; ",
                     "%.3f s/sweep wall, %.3f CPU; session peak %.0f MB; perplexity %.1f; ",
                     "load %s\n"),
              N, alg, threads, K, t_start, dt[["elapsed"]] / sweeps,
              (dt[["user.self"]] + dt[["sys.self"]]) / sweeps, peak_mb(), pp, load_avg()))
}
