#!/usr/bin/env Rscript
## LDA collapsed Gibbs sampling: mcmix (SparseLDA buckets, the default, and
## the dense loop) against lda::lda.collapsed.gibbs.sampler (Chang's lda
## package) on one synthetic corpus of 1e6 tokens, at K = 50 and K = 500.
##
## Usage: Rscript bench/bench-lda.R [--quick] [--no-append]
##   Appends a dated table to bench/RESULTS.md unless --no-append.
## The peer is installed with `Rscript tools/install-deps.R bench`; if it is
## missing only mcmix is timed and the table says so. text2vec is timed
## when it is installed (its WarpLDA is a Metropolis-Hastings sampler, so
## only the perplexity it reaches is comparable, not a per-token cost).
##
## Protocol: every system runs the same number of sweeps from a random start
## with alpha = 0.1, beta = 0.01; mcmix keeps only the last sweep (thin =
## iter, as the peers, which accumulate nothing). CPU time is this
## process's user + system time, measured for the systems one after the
## other in one run. "Perplexity" is the held-out perplexity by document
## completion (mcmix's perplexity(), the same estimator for every system)
## of 300 held-out documents with the topics of the last sweep,
## (n_wk + beta) / (n_k + W beta).

suppressMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
append <- !"--no-append" %in% args
have_lda <- requireNamespace("lda", quietly = TRUE)
have_t2v <- requireNamespace("text2vec", quietly = TRUE)

## synthetic corpus from the LDA generative model: sparse topics
## (phi_k ~ Dir(0.05)), documents of 100 tokens with theta_d ~ Dir(0.2)
make_corpus <- function(D, len, W, K, seed) {
  set.seed(seed)
  phi <- matrix(stats::rgamma(K * W, 0.05), K, W)
  phi <- phi / rowSums(phi)
  z <- unlist(lapply(seq_len(D), function(d) {
    th <- stats::rgamma(K, 0.2)
    sample.int(K, len, replace = TRUE, prob = th)
  }))
  w <- integer(length(z))
  for (k in seq_len(K)) {
    i <- which(z == k)
    w[i] <- sample.int(W, length(i), replace = TRUE, prob = phi[k, ])
  }
  unname(split(w, rep(seq_len(D), each = len)))
}

cpu <- function(f) {
  gc()
  t0 <- proc.time()
  r <- f()
  t <- proc.time() - t0
  list(value = r, cpu = t[["user.self"]] + t[["sys.self"]], elapsed = t[["elapsed"]])
}

## held-out perplexity of topics `phi` (K x W) with mcmix's estimator: a
## fit object carrying phi as its one kept draw
perplexity_of <- function(template, phi, held) {
  template$chains[[1L]]$state$phi_sum <- phi
  template$chains[[1L]]$state$n_draws <- 1
  as.numeric(perplexity(template, held))
}

load_now <- function() {
  l <- readLines("/proc/loadavg", warn = FALSE)
  paste(strsplit(l, " ")[[1L]][1:3], collapse = " ")
}

D <- if (quick) 1000L else 10000L
len <- 100L; W <- 5000L
n_held <- 300L
all_docs <- make_corpus(D + n_held, len, W, 50L, seed = 1)
docs <- all_docs[seq_len(D)]
held <- all_docs[D + seq_len(n_held)]
N <- sum(lengths(docs))
vocab <- paste0("w", seq_len(W))
alpha <- 0.1; beta <- 0.01
settings <- if (quick) list(list(K = 50L, sweeps = 20L), list(K = 500L, sweeps = 5L)) else
  list(list(K = 50L, sweeps = 50L), list(K = 500L, sweeps = 20L))
load_before <- load_now()

rows <- list()
for (s in settings) {
  K <- s$K; S <- s$sweeps
  m <- lda_model(K, alpha = alpha, beta = beta)
  run_mcmix <- function(alg) cpu(function() {
    set.seed(7)
    sample_posterior(m, docs, vocab = vocab, iter = S, burnin = 0, thin = S,
                     progress = FALSE, algorithm = alg)
  })
  res <- list()
  res$mcmix_sparse <- run_mcmix("sparse")
  template <- res$mcmix_sparse$value
  if (have_lda) {
    peer_docs <- lapply(docs, function(w) rbind(as.integer(w - 1L), rep(1L, length(w))))
    res$lda <- cpu(function() {
      set.seed(7)
      lda::lda.collapsed.gibbs.sampler(peer_docs, K, vocab, S, alpha, beta)
    })
  }
  res$mcmix_dense <- run_mcmix("dense")
  if (have_t2v) {
    res$text2vec <- cpu(function() {
      set.seed(7)
      dtm <- Matrix::sparseMatrix(i = rep(seq_along(docs), lengths(docs)),
                                  j = unlist(docs), x = 1, dims = c(D, W),
                                  dimnames = list(NULL, vocab))
      mod <- text2vec::LDA$new(n_topics = K, doc_topic_prior = alpha,
                               topic_word_prior = beta)
      invisible(mod$fit_transform(dtm, n_iter = S, convergence_tol = -1,
                                  progress = FALSE))
      mod
    })
  }
  for (nm in names(res)) {
    r <- res[[nm]]
    phi <- switch(nm,
      lda = { tp <- r$value$topics + beta; tp / rowSums(tp) },
      text2vec = r$value$topic_word_distribution,
      topic_word(r$value))
    rows[[length(rows) + 1L]] <- data.frame(
      K = K, sweeps = S, system = nm, cpu_s = r$cpu,
      tokens_per_cpu_s = N * S / r$cpu,
      perplexity = perplexity_of(template, unname(phi), held))
  }
}
res <- do.call(rbind, rows)
res$vs_lda <- NA_real_
for (K in unique(res$K)) {
  i <- res$K == K
  if (any(res$system[i] == "lda"))
    res$vs_lda[i] <- res$tokens_per_cpu_s[i] / res$tokens_per_cpu_s[i & res$system == "lda"]
}
load_after <- load_now()
print(res, row.names = FALSE, digits = 4)

if (append) {
  fmt <- function(x, d = 2) ifelse(is.na(x), "n/a", formatC(x, format = "f", digits = d))
  md <- c("",
    sprintf("## LDA: tokens per CPU second and held-out perplexity (%s)", format(Sys.Date())),
    "",
    sprintf(paste0("`Rscript bench/bench-lda.R%s` on %s, R %s, lda package %s, text2vec %s. ",
                   "%d documents x %d tokens (%s tokens), W = %d, 50 true topics; ",
                   "alpha = %g, beta = %g; same sweeps for every system from a random start. ",
                   "Load average (1, 5, 15 min) before: %s, after: %s, on %d cores%s."),
            if (quick) " --quick" else "", Sys.info()[["machine"]], getRversion(),
            if (have_lda) as.character(utils::packageVersion("lda")) else "NOT INSTALLED",
            if (have_t2v) as.character(utils::packageVersion("text2vec")) else "NOT INSTALLED",
            D, len, format(N, big.mark = ","), W, alpha, beta, load_before, load_after,
            parallel::detectCores(),
            if (as.numeric(strsplit(load_before, " ")[[1L]][1L]) > parallel::detectCores())
              " (a shared, busy machine: CPU times are inflated by contention and noisy; the ratios were measured in one run)" else ""),
    "",
    "| K | sweeps | system | CPU s | M tokens / CPU s | held-out perplexity | tokens/s vs lda |",
    "|---|---|---|---|---|---|---|",
    sprintf("| %d | %d | %s | %s | %s | %s | %s |", res$K, res$sweeps, res$system,
            fmt(res$cpu_s, 1), fmt(res$tokens_per_cpu_s / 1e6, 3), fmt(res$perplexity, 1),
            ifelse(is.na(res$vs_lda), "n/a", paste0(fmt(res$vs_lda, 1), "x"))))
  path <- file.path("bench", "RESULTS.md")
  cat(md, file = path, sep = "\n", append = TRUE)
  cat("appended to", path, "\n")
}
