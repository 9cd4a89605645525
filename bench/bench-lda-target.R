#!/usr/bin/env Rscript
## LDA: CPU time of mcmix's samplers to the held-out perplexity that the lda
## package (Chang's lda::lda.collapsed.gibbs.sampler) reaches in S sweeps,
## on the corpora of bench/bench-lda.R (1e6 tokens, V = 5000, documents of
## 100 tokens; corpus seed s), at K = 50 and K = 500.
##
## Usage: Rscript bench/bench-lda-target.R [--k=50,500] [--seeds=1,2,3]
##          [--sweeps=200] [--algs=sparse,mh] [--every=5] [--max=600]
##   --sweeps  lda's sweeps S (its perplexity after them is the target)
##   --algs    mcmix samplers timed (default: the default, "sparse")
##   --every   mcmix is scored every that many sweeps (so its sweeps to the
##             target are rounded up to a multiple of it: a bound)
##   --max     mcmix gives up after that many sweeps
## Prints the tables (nothing is appended to bench/RESULTS.md).
##
## Protocol, per corpus and K, all in one process: lda runs S sweeps from
## its random start (alpha = 0.1, beta = 0.01) and is scored with its
## topics (n_wk + beta) / (n_k + W beta): that perplexity is the target.
## Each mcmix sampler runs from a random start in chunks of `every` sweeps
## through the chunk function with its workspace (the sampler's
## structures kept, as sample_posterior() keeps them), timed, and is
## scored after each chunk (not timed) until it is at or below the
## target. Then the per-token costs are measured interleaved: lda 3 sweeps,
## each mcmix sampler 10 sweeps from its state at the target, alternated
## twice. "Perplexity" is mcmix's held-out perplexity by document
## completion (perplexity()) of 300 held-out documents, the same estimator
## for both systems. The load average is printed before and after.

suppressMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
arg_value <- function(name, default, as = as.integer) {
  a <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(a)) as(strsplit(sub(".*=", "", a[1L]), ",")[[1L]]) else default
}
ks <- arg_value("k", c(50L, 500L))
seeds <- arg_value("seeds", 1:3)
S <- arg_value("sweeps", 200L)
algs <- arg_value("algs", "sparse", as = as.character)
every <- arg_value("every", 5L)
max_sweeps <- arg_value("max", 600L)
if (!requireNamespace("lda", quietly = TRUE)) stop("the lda package is needed")

## the corpus of bench/bench-lda.R (phi_k ~ Dir(0.05), theta_d ~ Dir(0.2))
## (the corpora: bench/lda-corpus.R, next to this script)
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)[1L])),
                 "lda-corpus.R"))
ct <- function(f) {
  t0 <- proc.time(); r <- f(); t <- proc.time() - t0
  list(value = r, cpu = t[["user.self"]] + t[["sys.self"]])
}
load_now <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " ")
perplexity_of <- function(template, phi, held) {
  template$chains[[1L]]$state$phi_sum <- phi
  template$chains[[1L]]$state$n_draws <- 1
  as.numeric(perplexity(template, held))
}
phi_of_z <- function(z, corpus, K, beta) {
  n <- matrix(tabulate(z * corpus$W + corpus$word + 1L, K * corpus$W), corpus$W, K)
  t((n + beta) / rep(colSums(n) + corpus$W * beta, each = corpus$W))
}

D <- 10000L; len <- 100L; W <- 5000L; n_held <- 300L
alpha <- 0.1; beta <- 0.01
vocab <- paste0("w", seq_len(W))
cat("load before:", load_now(), "\n")
rows <- NULL; per_token <- NULL
for (cs in seeds) {
  all_docs <- make_corpus(D + n_held, len, W, 50L, seed = cs)
  docs <- all_docs[seq_len(D)]; held <- all_docs[D + seq_len(n_held)]
  N <- sum(lengths(docs))
  for (K in ks) {
    m <- lda_model(K, alpha = alpha, beta = beta)
    corpus <- mcmix:::lda_corpus(docs, vocab, K = K)
    template <- sample_posterior(m, docs[1:2], vocab = vocab, iter = 1, burnin = 0,
                                 progress = FALSE)
    peer <- lapply(docs, function(w) rbind(as.integer(w - 1L), rep(1L, length(w))))
    set.seed(7)
    rl <- ct(function() lda::lda.collapsed.gibbs.sampler(peer, K, vocab, S, alpha, beta))
    tp <- rl$value$topics + beta
    target <- perplexity_of(template, unname(tp / rowSums(tp)), held)
    cat(sprintf("corpus %d, K = %d: lda %d sweeps %.1f CPU s, perplexity %.1f (load %s)\n",
                cs, K, S, rl$cpu, target, load_now()))
    rows <- rbind(rows, data.frame(corpus = cs, K = K, system = "lda", sweeps = S,
                                   cpu_s = rl$cpu, perplexity = target, vs_lda = 1))
    states <- list()
    for (a in algs) {
      set.seed(7)
      st <- list(z = sample.int(K, N, replace = TRUE) - 1L, phi_sum = matrix(0, K, W),
                 theta_sum = matrix(0, D, K), n_draws = 0)
      ws <- .Call(mcmix:::C_ffi_workspace_new)
      done <- 0L; cpu <- 0; px <- Inf
      while (done < max_sweeps && px > target) {
        r <- ct(function() mcmix:::lda_step_c(m, corpus, st, every, 1L, done, TRUE, a,
                                              workspace = ws))
        st <- r$value; cpu <- cpu + r$cpu; done <- done + every
        px <- perplexity_of(template, phi_of_z(st$z, corpus, K, beta), held)
      }
      states[[a]] <- list(st = st, ws = ws, done = done)
      reached <- px <= target
      cat(sprintf("  mcmix %s: %s in %d sweeps, %.1f CPU s, perplexity %.1f\n", a,
                  if (reached) "reached" else "NOT reached", done, cpu, px))
      rows <- rbind(rows, data.frame(corpus = cs, K = K, system = a,
                                     sweeps = if (reached) done else NA, cpu_s = cpu,
                                     perplexity = px,
                                     vs_lda = if (reached) rl$cpu / cpu else NA))
    }
    ## per-token costs, interleaved
    for (round in 1:2) {
      t <- ct(function() lda::lda.collapsed.gibbs.sampler(peer, K, vocab, 3L, alpha, beta))$cpu
      per_token <- rbind(per_token, data.frame(corpus = cs, K = K, round = round,
                                               system = "lda", ns = 1e9 * t / (3 * N)))
      for (a in algs) {
        s <- states[[a]]
        t <- ct(function() mcmix:::lda_step_c(m, corpus, s$st, 10L, 1L, s$done, TRUE, a,
                                              workspace = s$ws))
        states[[a]]$st <- t$value; states[[a]]$done <- s$done + 10L
        per_token <- rbind(per_token, data.frame(corpus = cs, K = K, round = round,
                                                 system = a, ns = 1e9 * t$cpu / (10 * N)))
      }
    }
  }
}
per_token$vs_lda <- ave(per_token$ns, per_token$corpus, per_token$K, per_token$round,
                        FUN = function(x) x[1] / x)
cat("\ntime to lda's perplexity after", S, "sweeps:\n")
print(rows, row.names = FALSE, digits = 4)
cat("\nCPU ns per token, interleaved:\n")
print(per_token, row.names = FALSE, digits = 4)
cat("\nmedians over the corpora:\n")
print(stats::aggregate(cbind(sweeps, vs_lda) ~ K + system, rows, stats::median), digits = 3)
print(stats::aggregate(vs_lda ~ K + system, per_token, stats::median), digits = 3)
cat("load after:", load_now(), "\n")
