#!/usr/bin/env Rscript
## LDA collapsed Gibbs sampling speed: mcmix vs lda::lda.collapsed.gibbs.sampler
## (Chang's lda package), in tokens per second, on the same synthetic corpus.
##
## Usage: Rscript bench/bench-lda.R [--quick] [--no-append]
##   Appends a dated table to bench/README.md unless --no-append.
## The peer is installed with `Rscript tools/install-deps.R bench`; if it is
## missing, only mcmix is timed and the table says so.
##
## Both samplers do the same work per sweep: one draw per token from the
## K-term full conditional. mcmix is timed twice: keeping only the last
## sweep (thin = iter, like the peer, which accumulates nothing) and keeping
## every sweep (thin = 1: each kept sweep also adds the posterior means of
## phi and theta, K x (W + D) work, and evaluates log p(w, z)).

suppressMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
append <- !"--no-append" %in% args
have_lda <- requireNamespace("lda", quietly = TRUE)

## synthetic corpus from the LDA generative model
make_corpus <- function(D, len, W, K, seed) {
  set.seed(seed)
  phi <- matrix(stats::rgamma(K * W, 0.05), K, W)
  phi <- phi / rowSums(phi)
  lapply(seq_len(D), function(d) {
    th <- stats::rgamma(K, 0.2); th <- th / sum(th)
    z <- sample.int(K, len, replace = TRUE, prob = th)
    vapply(z, function(k) sample.int(W, 1L, prob = phi[k, ]), integer(1))
  })
}

time_it <- function(f) {
  gc()
  t <- system.time(f())[["elapsed"]]
  t
}

settings <- if (quick) {
  list(list(D = 300, len = 100, W = 500, K = 10, iter = 50))
} else {
  list(list(D = 2000, len = 100, W = 2000, K = 20, iter = 100),
       list(D = 2000, len = 100, W = 2000, K = 100, iter = 50))
}

rows <- list()
for (s in settings) {
  docs <- make_corpus(s$D, s$len, s$W, s$K, seed = 1)
  N <- sum(lengths(docs))
  vocab <- paste0("w", seq_len(s$W))
  alpha <- 0.1; beta <- 0.01
  m <- lda_model(s$K, alpha = alpha, beta = beta)
  t_last <- time_it(function()
    sample_posterior(m, docs, vocab = vocab, iter = s$iter, burnin = 0,
                     thin = s$iter, progress = FALSE))
  t_all <- time_it(function()
    sample_posterior(m, docs, vocab = vocab, iter = s$iter, burnin = 0,
                     thin = 1, progress = FALSE))
  t_peer <- NA_real_
  if (have_lda) {
    peer_docs <- lapply(docs, function(w) rbind(as.integer(w - 1L), rep(1L, length(w))))
    t_peer <- time_it(function()
      lda::lda.collapsed.gibbs.sampler(peer_docs, s$K, vocab, s$iter, alpha, beta))
  }
  tps <- function(t) N * s$iter / t
  rows[[length(rows) + 1L]] <- data.frame(
    corpus = sprintf("D=%d, %d tokens/doc, W=%d", s$D, s$len, s$W),
    K = s$K, sweeps = s$iter, tokens = N,
    mcmix_last = tps(t_last), mcmix_every = tps(t_all), lda = tps(t_peer),
    ratio = t_peer / t_last)
}
res <- do.call(rbind, rows)
fmt <- function(x) ifelse(is.na(x), "n/a", formatC(x / 1e6, format = "f", digits = 2))
cat("Tokens per second (millions):\n")
print(data.frame(res[1:4], mcmix_thin_iter = fmt(res$mcmix_last),
                 mcmix_thin_1 = fmt(res$mcmix_every), lda = fmt(res$lda),
                 speedup = ifelse(is.na(res$ratio), "n/a", sprintf("%.2fx", res$ratio))),
      row.names = FALSE)

if (append) {
  md <- c("",
          sprintf("## LDA collapsed Gibbs: tokens per second (%s)", format(Sys.Date())),
          "",
          sprintf("`Rscript bench/bench-lda.R%s` on %s, R %s, lda package %s. alpha = 0.1, beta = 0.01.",
                  if (quick) " --quick" else "", Sys.info()[["machine"]],
                  getRversion(),
                  if (have_lda) as.character(utils::packageVersion("lda")) else "NOT INSTALLED"),
          "Millions of tokens per second (higher is better); speed-up = lda time / mcmix time",
          "(mcmix keeping the last sweep only, as the peer does).",
          "",
          "| corpus | K | sweeps | tokens | mcmix (thin = iter) | mcmix (thin = 1) | lda | speed-up |",
          "|---|---|---|---|---|---|---|---|",
          sprintf("| %s | %d | %d | %d | %s | %s | %s | %s |", res$corpus, res$K,
                  res$sweeps, res$tokens, fmt(res$mcmix_last), fmt(res$mcmix_every),
                  fmt(res$lda),
                  ifelse(is.na(res$ratio), "n/a (lda not installed)",
                         sprintf("%.2fx", res$ratio))))
  path <- file.path("bench", "README.md")
  if (!file.exists(path)) writeLines(c("# Benchmarks", "",
    "Scripts comparing mcmix with peer packages. Run from the package root."), path)
  cat(md, file = path, sep = "\n", append = TRUE)
  cat("appended to", path, "\n")
}
