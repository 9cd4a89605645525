#!/usr/bin/env Rscript
## LDA collapsed Gibbs sampling: mcmix (SparseLDA buckets, the default, the
## dense loop, and the Metropolis-Hastings cycles of algorithm = "mh" with
## 2 and 1 cycles per token) against lda::lda.collapsed.gibbs.sampler
## (Chang's lda package) and topicmodels::LDA(method = "Gibbs") (GibbsLDA++)
## on one synthetic corpus of 1e6 tokens, at K = 50 and K = 500.
##
## Usage: Rscript bench/bench-lda.R [--quick] [--no-append] [--threads] [--no-target]
##   Appends dated tables to bench/RESULTS.md unless --no-append.
##   --threads   only the threads table: wall time per sweep of
##               algorithm = "blocked" on 1 and 2 threads (and "sparse" on
##               one), interleaved call by call in one process, on the same
##               corpus (run it on an idle machine for the speed-up);
##               --chunk=5 runs 5 sweeps per call (default 1: then the
##               serial work of a call, about 5 ms, is in every sweep).
##   --no-target skip the time-to-perplexity table.
##   --interleaved only CPU ns per token of the lda package (3 sweeps from
##               its random start) and of mcmix's "sparse", "blocked" (one
##               thread) and "mh" (1 and 2 cycles; 10 sweeps each by
##               extend() of the sampler's fit after 10 sweeps, and the
##               sparse sweep alone: 10 sweeps in one call of the chunk
##               function from the state after 10 sweeps), the systems alternated
##               twice in one process, at K = 50 and 500 (printed, not
##               appended). --seeds=1,2,3 repeats it on the corpora of
##               those seeds, --k=50 keeps one K (here and in the
##               time-to-perplexity table).
##   --target-only only the time-to-perplexity table.
##   --warp-times=a,b,... WarpLDA's iteration counts in that table, as
##               multiples of mcmix's sweeps (default 0.2 to 32; from 8
##               times on it stops early where doubling the iterations
##               improves the perplexity by less than 0.5%).
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
##
## Time to a held-out perplexity (needs text2vec): on corpus B, 3400
## documents x 300 tokens, W = 1000 (on corpus A the held-out perplexity
## of every system stays above that of the pooled word frequencies for the
## first hundred sweeps, so it cannot rank them), mcmix ("sparse") runs the
## sweeps of the first table and its held-out perplexity is the target;
## text2vec's WarpLDA cannot be continued, so it is run from scratch for a
## growing number of iterations (0.2 to 32 times mcmix's sweeps), each run
## timed and scored, and its time is the CPU time of the first run at or
## below the target (or of its longest run, marked "not reached", which
## is also where it stops once doubling the iterations beyond 4 times
## mcmix's sweeps gains less than 0.5%: a plateau above the target).
## mcmix's "mh" sampler (2 cycles per token) is continued from the same
## random start and scored (the scoring not timed) after 0.5, 1, 1.5, 2,
## 3, 4, 6 and 8 times the sparse sweeps, until it reaches the target. In this table both mcmix samplers are timed in the chunk
## function (the sampler state in and out, no corpus conversion) and
## scored with the topics of their last sweep.

suppressMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
append <- !"--no-append" %in% args
threads_mode <- "--threads" %in% args
interleaved <- "--interleaved" %in% args
do_target <- !"--no-target" %in% args
target_only <- "--target-only" %in% args
arg_value <- function(name, default) {
  a <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(a)) as.integer(strsplit(sub(".*=", "", a[1L]), ",")[[1L]]) else default
}
corpus_seeds <- arg_value("seeds", 1L)
## WarpLDA's iterations in the time-to-perplexity table, as multiples of
## mcmix's sweeps (--warp-times=2,4,8,16,32 to look further)
warp_times <- {
  a <- grep("^--warp-times=", args, value = TRUE)
  if (length(a)) as.numeric(strsplit(sub(".*=", "", a[1L]), ",")[[1L]]) else
    c(0.2, 0.4, 0.6, 0.8, 1, 1.5, 2, 3, 4, 8, 16, 32)
}
ks <- arg_value("k", c(50L, 500L))
have_lda <- requireNamespace("lda", quietly = TRUE)
have_t2v <- requireNamespace("text2vec", quietly = TRUE)
have_tm <- requireNamespace("topicmodels", quietly = TRUE)

## synthetic corpus from the LDA generative model: sparse topics
## (phi_k ~ Dir(0.05)), documents of 100 tokens with theta_d ~ Dir(0.2)
## (the corpora: bench/lda-corpus.R, next to this script)
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)[1L])),
                 "lda-corpus.R"))

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

## the corpus as topicmodels takes it: a slam document-term matrix of counts
tm_dtm <- function(docs, W, vocab) {
  i <- rep(seq_along(docs), lengths(docs))
  key <- (i - 1) * W + unlist(docs)
  u <- sort(unique(key))
  slam::simple_triplet_matrix(i = (u - 1) %/% W + 1, j = (u - 1) %% W + 1,
                              v = tabulate(match(key, u)), nrow = length(docs), ncol = W,
                              dimnames = list(NULL, vocab))
}

## text2vec's topics smoothed as every other system's, (n_wk + beta) /
## (n_k + W beta) from its topic-word counts: its topic_word_distribution
## is the unsmoothed n_wk / n_k, whose zeros make a held-out word that no
## topic holds impossible (an infinite perplexity)
t2v_phi <- function(mod) {
  tp <- as.matrix(mod$components) + beta
  tp / rowSums(tp)
}

load_now <- function() {
  l <- readLines("/proc/loadavg", warn = FALSE)
  paste(strsplit(l, " ")[[1L]][1:3], collapse = " ")
}

fmt <- function(x, d = 2) ifelse(is.na(x), "n/a", formatC(x, format = "f", digits = d))

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
  list(list(K = 50L, sweeps = 50L), list(K = 500L, sweeps = 10L))
load_before <- load_now()

## --threads: per-sweep wall and CPU time, sweeps interleaved
if (threads_mode) {
  options(mcmix.threads_adapt = FALSE)        # 2 threads even on a busy machine
  K <- 50L; S <- if (quick) 10L else 30L
  chunk <- arg_value("chunk", 1L)                 # sweeps per call
  corpus <- mcmix:::lda_corpus(docs, vocab, K = K)
  m <- lda_model(K, alpha = alpha, beta = beta)
  B <- mcmix:::lda_blocks(N, getOption("mcmix.lda_block_tokens", mcmix:::lda_block_tokens_default))
  runs <- list(sparse_1 = list(alg = "sparse", th = 1L),
               blocked_1 = list(alg = "blocked", th = 1L),
               blocked_2 = list(alg = "blocked", th = 2L))
  state <- lapply(runs, function(r) {
    set.seed(7)
    list(z = sample.int(K, N, replace = TRUE) - 1L, phi_sum = matrix(0, K, W),
         theta_sum = matrix(0, D, K), n_draws = 0)
  })
  ## each run its own copy of the RNG state, so the runs are those of one
  ## process each (blocked_1 and blocked_2 must give the same z)
  set.seed(8)
  seeds <- lapply(runs, function(r) .Random.seed)
  ## one workspace per run, as sample_posterior()'s chunks of one chain
  ## (the sampler's structures kept from sweep to sweep)
  ws <- lapply(runs, function(r) .Call(mcmix:::C_ffi_workspace_new))
  wall <- cpu_t <- matrix(NA_real_, S, length(runs), dimnames = list(NULL, names(runs)))
  for (g in seq_len(S)) for (nm in names(runs)) {
    assign(".Random.seed", seeds[[nm]], envir = globalenv())
    t0 <- proc.time()
    state[[nm]] <- mcmix:::lda_step_c(m, corpus, state[[nm]], chunk, 1L, (g - 1L) * chunk, TRUE,
                                      runs[[nm]]$alg, runs[[nm]]$th,
                                      getOption("mcmix.lda_block_tokens", mcmix:::lda_block_tokens_default),
                                      workspace = ws[[nm]])
    t1 <- proc.time() - t0
    seeds[[nm]] <- get(".Random.seed", envir = globalenv())
    wall[g, nm] <- t1[["elapsed"]] / chunk
    cpu_t[g, nm] <- (t1[["user.self"]] + t1[["sys.self"]]) / chunk
  }
  stopifnot(identical(state$blocked_1$z, state$blocked_2$z))
  keep <- seq.int(max(1L, S %/% 3L), S)           # after the first third
  ll <- vapply(state, function(st) mcmix:::lda_log_joint(m, corpus, st$z), numeric(1))
  tab <- data.frame(run = names(runs), B = ifelse(grepl("blocked", names(runs)), B, NA),
                    wall_ms = 1e3 * apply(wall[keep, , drop = FALSE], 2, stats::median),
                    cpu_ms = 1e3 * apply(cpu_t[keep, , drop = FALSE], 2, stats::median),
                    log_joint = ll)
  tab$ns_cpu_per_token <- 1e6 * tab$cpu_ms / N
  tab$speedup_vs_blocked_1 <- tab$wall_ms[2] / tab$wall_ms
  tab$speedup_vs_sparse_1 <- tab$wall_ms[1] / tab$wall_ms
  load_after <- load_now()
  print(tab, row.names = FALSE, digits = 4)
  cat("per-sweep wall time (s), sweep by sweep:\n")
  print(round(wall, 3))
  if (append) {
    md <- c("",
      sprintf("## LDA threads: wall time per sweep, 1 and 2 threads (%s)", format(Sys.Date())),
      "",
      sprintf(paste0("`Rscript bench/bench-lda.R --threads%s`: %s tokens, K = %d, B = %d ",
                     "(B x B cells), %d calls of %d sweeps from a random start, each call of each run ",
                     "(a chunk keeping the run's workspace, as sample_posterior()) ",
                     "timed in turn in one process; medians over calls %d-%d, per sweep. Load average ",
                     "before: %s, after: %s, on %d cores."),
              paste0(if (quick) " --quick" else "", if (chunk > 1L) sprintf(" --chunk=%d", chunk) else ""),
              format(N, big.mark = ","), K, B, S, chunk,
              min(keep), S, load_before, load_after, parallel::detectCores()),
      "",
      "| run | wall ms / sweep | CPU ms / sweep | CPU ns / token | wall speed-up vs blocked, 1 thread | wall speed-up vs sparse | log p(w, z) at the end |",
      "|---|---|---|---|---|---|---|",
      sprintf("| %s | %s | %s | %s | %s | %s | %s |", tab$run, fmt(tab$wall_ms, 1),
              fmt(tab$cpu_ms, 1), fmt(tab$ns_cpu_per_token, 0),
              paste0(fmt(tab$speedup_vs_blocked_1, 2), "x"),
              paste0(fmt(tab$speedup_vs_sparse_1, 2), "x"), fmt(tab$log_joint, 0)))
    cat(md, file = file.path("bench", "RESULTS.md"), sep = "\n", append = TRUE)
    cat("appended to bench/RESULTS.md\n")
  }
  quit(save = "no")
}

## --interleaved: the systems alternated in one process (see the header)
if (interleaved) {
  ct <- function(f) {
    t0 <- proc.time(); f(); t <- proc.time() - t0
    t[["user.self"]] + t[["sys.self"]]
  }
  all_out <- NULL
  for (cs in corpus_seeds) for (K in ks) {
    if (cs != 1L) {
      docs <- make_corpus(D, len, W, 50L, seed = cs)
      N <- sum(lengths(docs))
    }
    m <- lda_model(K, alpha = alpha, beta = beta)
    corpus <- mcmix:::lda_corpus(docs, vocab, K = K)
    peer <- lapply(seq_len(corpus$D), function(d) {
      w <- corpus$word[seq.int(corpus$doc_start[d] + 1L, corpus$doc_start[d + 1L])]
      rbind(w, rep(1L, length(w)))
    })
    set.seed(1)
    st0 <- list(z = sample.int(K, N, replace = TRUE) - 1L, phi_sum = matrix(0, K, W),
                theta_sum = matrix(0, D, K), n_draws = 0)
    st0 <- mcmix:::lda_step_c(m, corpus, st0, 10L, 1L, 0L, TRUE, "sparse")
    ## each sampler's fit after 10 sweeps, continued by extend() (timed):
    ## what a user runs, the chunks of sample_posterior() included
    samplers <- list(c("sparse", 1L), c("blocked", 1L), c("mh", 1L), c("mh", 2L))
    fits <- lapply(samplers, function(a) {
      set.seed(1)
      sample_posterior(m, docs, vocab = vocab, iter = 10L, burnin = 0L, thin = 10L,
                       algorithm = a[1], mh_steps = as.integer(a[2]), progress = FALSE)
    })
    out <- NULL
    for (r in 1:2) {
      out <- rbind(out, data.frame(K = K, round = r, system = "lda", ns_per_token = 1e9 *
        ct(function() lda::lda.collapsed.gibbs.sampler(peer, K, vocab, 3L, alpha, beta)) / (3 * N)))
      for (i in seq_along(samplers)) {
        a <- samplers[[i]]
        ns <- 1e9 * ct(function() extend(fits[[i]], 10L, progress = FALSE)) / (10 * N)
        out <- rbind(out, data.frame(K = K, round = r, system = paste0(a[1], "_", a[2]),
                                     ns_per_token = ns))
      }
      ## the sparse sweep alone: 10 sweeps in one call of the chunk function
      ns <- 1e9 * ct(function() mcmix:::lda_step_c(m, corpus, st0, 10L, 1L, 10L, TRUE,
                                                   "sparse")) / (10 * N)
      out <- rbind(out, data.frame(K = K, round = r, system = "sparse_1_one_call",
                                   ns_per_token = ns))
    }
    out$vs_lda <- ave(out$ns_per_token, out$round, FUN = function(x) x[1] / x)
    out$corpus_seed <- cs
    print(out, row.names = FALSE, digits = 4)
    all_out <- rbind(all_out, out)
  }
  if (length(corpus_seeds) > 1L) {
    cat("median over corpora and rounds of the ratio to lda's ns per token:\n")
    print(stats::aggregate(vs_lda ~ K + system, all_out, stats::median), digits = 3)
  }
  cat("load before:", load_before, " after:", load_now(), "\n")
  quit(save = "no")
}

rows <- list()
target_rows <- list()
for (s in if (target_only) list() else settings) {
  K <- s$K; S <- s$sweeps
  m <- lda_model(K, alpha = alpha, beta = beta)
  run_mcmix <- function(alg, ...) cpu(function() {
    set.seed(7)
    sample_posterior(m, docs, vocab = vocab, iter = S, burnin = 0, thin = S,
                     progress = FALSE, algorithm = alg, ...)
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
  res$mcmix_mh <- run_mcmix("mh", mh_steps = 2L)
  res$mcmix_mh1 <- run_mcmix("mh", mh_steps = 1L)
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
  if (have_tm) {   # GibbsLDA++'s collapsed Gibbs sampler (dense, exact)
    res$topicmodels <- cpu(function() {
      topicmodels::LDA(tm_dtm(docs, W, vocab), K, method = "Gibbs",
                       control = list(alpha = alpha, delta = beta, iter = S, burnin = 0L,
                                      thin = S, seed = 7L, best = TRUE))
    })
  }
  px <- list()
  for (nm in names(res)) {
    r <- res[[nm]]
    phi <- switch(nm,
      lda = { tp <- r$value$topics + beta; tp / rowSums(tp) },
      text2vec = t2v_phi(r$value),
      topicmodels = exp(r$value@beta),   # (n_wk + beta) / (n_k + W beta)
      topic_word(r$value))
    px[[nm]] <- if (all(is.finite(phi))) perplexity_of(template, unname(phi), held) else {
      message(nm, ": topics with non-finite entries (not scored)")
      NA_real_
    }
    rows[[length(rows) + 1L]] <- data.frame(
      K = K, sweeps = S, system = nm, cpu_s = r$cpu,
      tokens_per_cpu_s = N * S / r$cpu, perplexity = px[[nm]])
  }
}

## topics (n_wk + beta) / (n_k + W beta) of topic assignments z (0-based)
phi_of_z <- function(z, corpus, K, beta) {
  n <- matrix(tabulate(z * corpus$W + corpus$word + 1L, K * corpus$W), corpus$W, K)
  t((n + beta) / rep(colSums(n) + corpus$W * beta, each = corpus$W))
}

## time to a fixed held-out perplexity (see the header), on corpus B
if (do_target && have_t2v) {
  DB <- if (quick) 400L else 3400L
  lenB <- 300L; WB <- 1000L
  allB <- make_corpus(DB + n_held, lenB, WB, 50L, seed = 2)
  docsB <- allB[seq_len(DB)]; heldB <- allB[DB + seq_len(n_held)]
  NB <- sum(lengths(docsB)); vocabB <- paste0("w", seq_len(WB))
  dtmB <- Matrix::sparseMatrix(i = rep(seq_along(docsB), lengths(docsB)),
                               j = unlist(docsB), x = 1, dims = c(DB, WB),
                               dimnames = list(NULL, vocabB))
  for (s in Filter(function(s) s$K %in% ks, settings)) {
    K <- s$K; S <- s$sweeps
    m <- lda_model(K, alpha = alpha, beta = beta)
    templateB <- sample_posterior(m, docsB[1:2], vocab = vocabB, iter = 1, burnin = 0,
                                  progress = FALSE)
    corpusB <- mcmix:::lda_corpus(docsB, vocabB, K = K)
    start <- function() {
      set.seed(7)
      list(z = sample.int(K, NB, replace = TRUE) - 1L, phi_sum = matrix(0, K, WB),
           theta_sum = matrix(0, DB, K), n_draws = 0)
    }
    r <- cpu(function() mcmix:::lda_step_c(m, corpusB, start(), S, 1L, 0L, TRUE, "sparse"))
    target <- perplexity_of(templateB, phi_of_z(r$value$z, corpusB, K, beta), heldB)
    target_rows[[length(target_rows) + 1L]] <- data.frame(
      K = K, target = target, system = "mcmix_sparse", sweeps = S, cpu_s = r$cpu,
      perplexity = target, log_joint = mcmix:::lda_log_joint(m, corpusB, r$value$z))
    ## mcmix "mh", continued in chunks until it reaches the target
    st <- start(); done <- 0L; mh_cpu <- 0
    for (upto in unique(as.integer(round(S * c(0.5, 1, 1.5, 2, 3, 4, 6, 8))))) {
      rm <- cpu(function() mcmix:::lda_step_c(m, corpusB, st, upto - done, 1L, done, TRUE,
                                              "mh", mh_steps = 2L))
      st <- rm$value; mh_cpu <- mh_cpu + rm$cpu; done <- upto
      mh_px <- perplexity_of(templateB, phi_of_z(st$z, corpusB, K, beta), heldB)
      if (mh_px <= target) break
    }
    target_rows[[length(target_rows) + 1L]] <- data.frame(
      K = K, target = target, system = "mcmix_mh", sweeps = if (mh_px <= target) done else NA,
      cpu_s = mh_cpu, perplexity = mh_px, log_joint = mcmix:::lda_log_joint(m, corpusB, st$z))
    hit <- NA_real_; hit_it <- NA_integer_; last_px <- NA_real_; last_cpu <- NA_real_
    for (n_it in unique(as.integer(round(S * warp_times)))) {
      rt <- cpu(function() {
        set.seed(7)
        mod <- text2vec::LDA$new(n_topics = K, doc_topic_prior = alpha,
                                 topic_word_prior = beta)
        invisible(mod$fit_transform(dtmB, n_iter = n_it, convergence_tol = -1,
                                    progress = FALSE))
        mod
      })
      prev_px <- last_px
      last_px <- perplexity_of(templateB, unname(t2v_phi(rt$value)), heldB)
      last_cpu <- rt$cpu
      cat(sprintf("K = %d: text2vec %d iterations, %.1f CPU s, held-out perplexity %.1f (target %.1f)\n",
                  K, n_it, rt$cpu, last_px, target))
      if (last_px <= target) { hit <- rt$cpu; hit_it <- n_it; break }
      ## a plateau above the target: less than 0.5% better after doubling
      if (n_it >= 2 * S * 4 && !is.na(prev_px) && last_px > 0.995 * prev_px) {
        cat(sprintf("K = %d: text2vec's perplexity has levelled off above the target\n", K))
        break
      }
    }
    target_rows[[length(target_rows) + 1L]] <- data.frame(
      K = K, target = target, system = "text2vec", sweeps = hit_it,
      cpu_s = if (is.na(hit)) last_cpu else hit, perplexity = last_px, log_joint = NA_real_)
  }
}
res <- if (length(rows)) do.call(rbind, rows) else
  data.frame(K = integer(), sweeps = integer(), system = character(), cpu_s = numeric(),
             tokens_per_cpu_s = numeric(), perplexity = numeric())
res$vs_lda <- rep(NA_real_, nrow(res))
for (K in unique(res$K)) {
  i <- res$K == K
  if (any(res$system[i] == "lda"))
    res$vs_lda[i] <- res$tokens_per_cpu_s[i] / res$tokens_per_cpu_s[i & res$system == "lda"]
}
load_after <- load_now()
print(res, row.names = FALSE, digits = 4)

if (length(target_rows)) print(do.call(rbind, target_rows), row.names = FALSE, digits = 4)
if (append && target_only) {
  md <- c("",
    sprintf("## LDA: CPU time to a held-out perplexity, mcmix and text2vec (%s)", format(Sys.Date())),
    "",
    sprintf(paste0("`Rscript bench/bench-lda.R --target-only%s` on %s, R %s, text2vec %s; ",
                   "alpha = %g, beta = %g. Load average (1, 5, 15 min) before: %s, after: %s, ",
                   "on %d cores."),
            if (quick) " --quick" else "", Sys.info()[["machine"]], getRversion(),
            if (have_t2v) as.character(utils::packageVersion("text2vec")) else "NOT INSTALLED",
            alpha, beta, load_before, load_after, parallel::detectCores()))
} else if (append) {
  md <- c("",
    sprintf("## LDA: tokens per CPU second and held-out perplexity (%s)", format(Sys.Date())),
    "",
    sprintf(paste0("`Rscript bench/bench-lda.R%s` on %s, R %s, lda package %s, text2vec %s, ",
                   "topicmodels %s. ",
                   "%d documents x %d tokens (%s tokens), W = %d, 50 true topics; ",
                   "alpha = %g, beta = %g; same sweeps for every system from a random start. ",
                   "Load average (1, 5, 15 min) before: %s, after: %s, on %d cores%s."),
            if (quick) " --quick" else "", Sys.info()[["machine"]], getRversion(),
            if (have_lda) as.character(utils::packageVersion("lda")) else "NOT INSTALLED",
            if (have_t2v) as.character(utils::packageVersion("text2vec")) else "NOT INSTALLED",
            if (have_tm) as.character(utils::packageVersion("topicmodels")) else "NOT INSTALLED",
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
}
if (append) {
  if (length(target_rows)) {
    tr <- do.call(rbind, target_rows)
    tr$vs_mcmix <- NA_real_
    for (K in unique(tr$K)) {
      i <- tr$K == K
      tr$vs_mcmix[i] <- tr$cpu_s[i] / tr$cpu_s[i & tr$system == "mcmix_sparse"]
    }
    md <- c(md, "",
      sprintf("CPU time to a fixed held-out perplexity, corpus B (%d documents x 300 tokens, W = 1000): the target is mcmix's perplexity after the sweeps of the table above; WarpLDA rerun from scratch for growing iterations, the first run at or below the target counts; mcmix \"mh\" (2 cycles per token) continued from the same start as \"sparse\" and scored at 0.5, 1, 1.5, 2, 3, 4, 6, 8 times the sparse sweeps until at or below the target (both mcmix samplers timed in the chunk function, scored with the topics of their last sweep):", if (quick) 400L else 3400L),
      "",
      "| K | target perplexity | system | sweeps / iterations | CPU s to target | perplexity at that point | log p(w, z) at that point | CPU time vs mcmix |",
      "|---|---|---|---|---|---|---|---|",
      sprintf("| %d | %s | %s | %s | %s | %s | %s | %s |", tr$K, fmt(tr$target, 1), tr$system,
              ifelse(is.na(tr$sweeps), "not reached", tr$sweeps),
              paste0(ifelse(is.na(tr$sweeps), "> ", ""), fmt(tr$cpu_s, 1)),
              fmt(tr$perplexity, 1), fmt(tr$log_joint, 0),
              ifelse(is.na(tr$vs_mcmix), "n/a", paste0(fmt(tr$vs_mcmix, 1), "x"))))
  }
  path <- file.path("bench", "RESULTS.md")
  cat(md, file = path, sep = "\n", append = TRUE)
  cat("appended to", path, "\n")
}
