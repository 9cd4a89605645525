# Latent Dirichlet allocation by collapsed Gibbs sampling
# (src/model_lda.c through src/ffi_lda.c).
#
# Corpus representation handed to C: `word` (integer word ids, 0-based, the
# tokens of document 1, then of document 2, ...) and `doc_start` (D + 1
# offsets into `word`), built from every accepted input form by
# lda_corpus() (R/lda_corpus.R).
#
# Sampler state of one chain (a plain list):
#   z          integer vector, the topic of every token, 0-based;
#   phi_sum    K x W matrix, running sum over kept draws of the posterior
#              mean of the topic-word distributions given z,
#              (n_wk + beta) / (n_k + W beta);
#   theta_sum  D x K matrix, running sum over kept draws of
#              (n_dk + alpha) / (n_d + K alpha);
#   n_draws    number of kept draws summed so far.
# The counts and the sampler's structures (word lists, word order, cells)
# are functions of z: they are kept across the chunks of one run of a chain
# in the chain's run workspace (R/chains_workspace.R, src/ffi_lda.c),
# which checks that it is handed the z it belongs to, and rebuilt from z
# otherwise (the first chunk of a run, extend(), a fit read back by
# readRDS(), a chunk after an interrupted one); the draws are the same
# either way. A chunk that keeps no draw returns phi_sum and theta_sum
# without copying them. The posterior
# means reported by topic_word() and doc_topic() are phi_sum / n_draws and
# theta_sum / n_draws (Rao-Blackwellised: the conditional expectations given
# z are averaged, not the counts). Trace: log_lik = log p(w, z), the joint
# probability of the words and topic assignments with theta and phi
# integrated out.

#' Latent Dirichlet allocation
#'
#' A topic model (Blei, Ng and Jordan 2003) with `K` topics: each document
#' has topic proportions \eqn{\theta_d \sim Dirichlet(\alpha, \ldots,
#' \alpha)}, each topic a distribution over words \eqn{\phi_k \sim
#' Dirichlet(\beta, \ldots, \beta)}, and every token draws a topic from
#' \eqn{\theta_d} and then a word from that topic. Fit it with
#' [sample_posterior()], which runs the collapsed Gibbs sampler of Griffiths
#' and Steyvers (2004) (\eqn{\theta} and \eqn{\phi} integrated out), by
#' default through the SparseLDA decomposition of its full conditional;
#' `algorithm = "mh"` runs exact Metropolis-Hastings cycles at a cost per
#' token independent of `K` instead (see [sample_posterior.mcmix_lda()]
#' for which sampler when).
#'
#' @param K Number of topics (a whole number between 1 and 100000).
#' @param alpha Symmetric Dirichlet parameter of the document-topic
#'   proportions (a number between 1e-100 and 1e100; default `50 / K` as in
#'   Griffiths and Steyvers 2004).
#' @param beta Symmetric Dirichlet parameter of the topic-word
#'   distributions (a number between 1e-100 and 1e100). Beyond that range
#'   the samplers' products of `alpha`, `beta`, the vocabulary size and
#'   the counts would overflow or underflow a double, so it is refused.
#' @return An object of class `mcmix_lda`.
#' @seealso [sample_posterior.mcmix_lda()], [top_terms()], [topic_word()],
#'   [doc_topic()]
#' @examples
#' lda_model(K = 3)
#' lda_model(K = 10, alpha = 0.1, beta = 0.01)
#' @export
lda_model <- function(K, alpha = 50 / K, beta = 0.01) {
  K <- check_count_max(K, "K", 1L, 1e5, "topics")
  alpha <- lda_check_prior(alpha, "alpha")
  beta <- lda_check_prior(beta, "beta")
  structure(list(K = K, alpha = alpha, beta = beta),
            class = c("mcmix_lda", "mcmix_model"))
}

# The range of alpha and beta. The samplers form products such as
# alpha beta, (n_wt + beta)(n_k + W beta) and (n_dt + alpha)(n_k + W beta)
# for vocabularies of up to 1e7 words (src/model_lda*.c) and reciprocals
# 1 / alpha, 1 / beta: within [1e-100, 1e100] every one of them stays a
# normal double (at most about 1e207, at least about 1e-220); beyond, they
# overflow to Inf or underflow to 0 and the draws are wrong.
lda_prior_range <- c(1e-100, 1e100)

lda_check_prior <- function(x, arg) {
  x <- check_positive(x, arg)
  if (x < lda_prior_range[1L] || x > lda_prior_range[2L])
    stop_input(sprintf(paste0("`%s` must be between 1e-100 and 1e100 (beyond, the ",
                              "sampler's products of `alpha`, `beta` and the counts ",
                              "overflow or underflow), not %s."), arg, format(x)), arg)
  x
}

#' @export
print.mcmix_lda <- function(x, ...) {
  cat("Latent Dirichlet allocation with K = ", x$K, " topics\n", sep = "")
  cat("  alpha = ", format(x$alpha), ", beta = ", format(x$beta), "\n", sep = "")
  invisible(x)
}

#' Fit an LDA topic model
#'
#' Collapsed Gibbs sampling for [lda_model()] (Griffiths and Steyvers 2004):
#' every sweep redraws the topic of each token from its full conditional
#' \eqn{P(z = k) \propto (n_{dk} + \alpha)(n_{wk} + \beta)/(n_k + W\beta)}.
#'
#' `algorithm = "sparse"` (the default) draws from that conditional through
#' the three-bucket decomposition of SparseLDA (Yao, Mimno and McCallum
#' 2009): \eqn{\alpha\beta/(n_k + W\beta)} over all topics,
#' \eqn{n_{dk}\beta/(n_k + W\beta)} over the topics of the document and
#' \eqn{(n_{dk} + \alpha) n_{wk}/(n_k + W\beta)} over the topics of the
#' word, so a token costs the number of topics its document and its word
#' are in rather than `K`. It is the same collapsed Gibbs sampler (each draw
#' has exactly the dense conditional's distribution; the draws for a seed
#' differ from `"dense"`, which sums all `K` terms for every token).
#'
#' `algorithm = "mh"` replaces the draw from the full conditional by
#' `mh_steps` cycles of two Metropolis-Hastings steps per token, the cycle
#' proposals of LightLDA (Yuan et al. 2015) drawn without alias tables: a
#' document proposal \eqn{q_d(t) \propto n_{dt} + \alpha} (the topic of
#' one of the document's other tokens chosen at random, or with probability
#' \eqn{K\alpha/(n_d - 1 + K\alpha)} a uniform topic), accepted with
#' probability \eqn{\min\{1, (n_{wt} + \beta)(n_k + W\beta) /
#' [(n_{wk} + \beta)(n_t + W\beta)]\}}, then a word proposal
#' \eqn{q_w(t) \propto n_{wt} + \beta} (the topic of one of the word's
#' other occurrences in the corpus, or a uniform topic), accepted with
#' probability \eqn{\min\{1, (n_{dt} + \alpha)(n_k + W\beta) /
#' [(n_{dk} + \alpha)(n_t + W\beta)]\}}, all counts without the token.
#' Both proposals read only the other tokens, so each step is an exact
#' Metropolis-Hastings step for the collapsed conditional and the chain
#' has the posterior of `"dense"` as its stationary distribution (a
#' Metropolis-within-Gibbs sampler, not an approximation). A token costs
#' the same whatever `K` (four uniforms and a few counts per cycle, no
#' loop over topics), but a sweep moves the topics less than a Gibbs sweep:
#' the fit needs two to three times the sweeps. In the package's
#' benchmarks (1e6 tokens) `"sparse"` reached a given held-out perplexity
#' in less than half the CPU time of `"mh"` at `K = 50` and in about the
#' same time at `K = 500`, which is why it stays the default. `"mh"` keeps
#' each token's place in word order and a copy of the topics in that order
#' (5 to 8 more bytes per token); when every word occurs at most 65535
#' times it works on 16-bit word-topic counts and 8-bit (`K <= 256`) or
#' 16-bit topics, which halve what it reads at random (the same draws).
#'
#' Which sampler: `"sparse"` for most corpora (cost per token grows with
#' the number of topics a document and a word are in, not with `K`);
#' `"blocked"` to use several cores on a large corpus; `"dense"` (cost per
#' token proportional to `K`) for small `K` or as a reference; `"mh"`
#' (constant cost per token, slower mixing per sweep) when many sweeps of a
#' large `K` are cheap to run or to compare samplers.
#'
#' `algorithm = "blocked"` runs SparseLDA on `threads` threads over a fixed
#' partition of the corpus (Newman, Asuncion, Smyth and Welling 2009,
#' section 5): the documents are cut into `B` groups of consecutive
#' documents and the vocabulary into `B` groups of words (each about a
#' `B`-th of the tokens), and a sweep runs `B` epochs, each sampling `B`
#' cells (document group, word group) that share no document and no word,
#' in parallel and in place. Only the topic totals \eqn{n_k} are shared:
#' a cell of epoch \eqn{e} sees the totals of the start of the sweep plus
#' the moves of epochs \eqn{0, \dots, e - 2} and its own, so the sampler
#' differs from collapsed Gibbs only in \eqn{n_k} lagging by less than two
#' `B`-ths of a sweep (a relative change of order `B` / \eqn{n_k} in a
#' conditional); in exchange a cell waits only for the two cells of the
#' epoch before it that held its documents and its words, never for the
#' whole epoch, so a slower thread takes fewer cells instead of holding
#' the others at a barrier. `B` is
#' the largest power of two at most 16 and at most
#' `sqrt(N / getOption("mcmix.lda_block_tokens", 32768))` for `N` tokens
#' (1 when that is below 2): a function of the corpus only. Every document
#' segment draws from its own random stream seeded from the sweep's seed,
#' so the draws are identical for any number of `threads`; a corpus with
#' `B = 1` is sampled exactly as by `"sparse"`. `threads` asks for at most
#' that many threads; fewer run when fewer cores are idle (the draws are
#' the same; `options(mcmix.threads_adapt = FALSE)` keeps `threads` as
#' given).
#'
#' The corpus may come in any of the forms text analysts use, and is never
#' expanded to a dense documents x words matrix: a list of word-id vectors,
#' a base matrix of counts, a sparse or dense matrix of the Matrix package
#' (`dgCMatrix`, `dgTMatrix`, `dgRMatrix`, ...; quanteda's `dfm` is a
#' `dgCMatrix`), slam's `simple_triplet_matrix` (tm's `DocumentTermMatrix`;
#' a `TermDocumentMatrix` is read with its terms in rows). Counts are read
#' as tokens document by document, terms in column order, and the word ids
#' of a document given as a vector are read in increasing order (a document
#' is a bag of words), so the same corpus gives the same draws for a seed in
#' every form, whatever the order of the tokens within a document. Weighted
#' matrices (tf-idf) are refused: LDA models counts. Row and column names
#' become the document names and the vocabulary used by [doc_topic()],
#' [topic_word()] and [top_terms()].
#'
#' Limits: word ids at most 1e7, at most `2^31 - 2` tokens, and a
#' sampler state (about `20 K W + 20 D K + 16 N` bytes for `W` words, `D`
#' documents and `N` tokens) within `getOption("mcmix.lda_max_bytes", 2e9)`.
#'
#' @param model An [lda_model()].
#' @param data The documents: a list of integer vectors of word ids
#'   (`1..W`, one vector per document, the tokens in any order: they are
#'   read in increasing word id), or
#'   document-term counts (documents in rows, words in columns, whole
#'   numbers): a matrix, a `Matrix` matrix, a `simple_triplet_matrix` /
#'   `DocumentTermMatrix` or a quanteda `dfm`; its column names are used as
#'   the vocabulary and its row names as the document names.
#' @param vocab Optional character vector of the `W` words (for a list of
#'   documents; `W` is then `length(vocab)`, else the largest word id).
#' @param algorithm `"sparse"` (SparseLDA buckets), `"dense"` (the plain
#'   loop over the `K` topics), both exact collapsed Gibbs, `"blocked"`:
#'   SparseLDA run on `threads` threads over fixed blocks of documents and
#'   words, an approximate sampler (the topic totals lag by less than two
#'   `B`-ths of a sweep; exact for a corpus with one block), or `"mh"`:
#'   exact Metropolis-Hastings cycles of document and word proposals at a
#'   cost per token independent of `K` (see Details).
#' @param threads Number of OpenMP threads of the `"blocked"` sampler
#'   (default `getOption("mcmix.threads", 1)`; `"sparse"` and `"dense"`
#'   run on one thread, so pass `algorithm = "blocked"` to use more). Its
#'   draws are identical for any number of threads. At most `B` threads
#'   run (see Details: `B = 2` from 131,072 tokens, 4 from 524,288, 8 from about 2.1
#'   million, 16 from about 8.4 million); for more threads on a smaller
#'   corpus lower `options(mcmix.lda_block_tokens)` (e.g. 8192 for
#'   `B = 8` at 1e6 tokens), which changes the draws.
#' @param mh_steps Cycles of (document, word) proposals per token and
#'   sweep of `algorithm = "mh"` (a whole number from 1 to 1000; ignored
#'   by the other samplers). With 2 (the default) and 4 a given log
#'   \eqn{p(w, z)} was reached in about the same CPU time in the package's
#'   benchmarks, with 1 in more.
#' @param iter Number of kept-phase iterations per chain.
#' @param burnin Number of burn-in iterations per chain, run before the kept ones
#'   and not kept (default `floor(iter / 2)`; see [mcmix-run-settings]).
#' @param thin Keep every `thin`-th iteration.
#' @param chains Number of chains. Topics are not matched across chains;
#'   the accessors take a `chain` argument.
#' @param cores,backend,progress Run settings, as every sampler takes them
#'   (see [mcmix-run-settings] and [run_kernel()]): the number of chains run
#'   at the same time (option `mcmix.cores`), how they run in parallel
#'   (option `mcmix.backend`), and whether to report progress (default
#'   `interactive()`).
#' @param cl Run one chain over the workers of this cluster, the documents
#'   cut into shards that stay on the workers (see "Corpora larger than one
#'   machine" below): a cluster from [parallel::makePSOCKcluster()] or
#'   `parallelly::makeClusterPSOCK()` (on this machine or on other hosts),
#'   or `"future"` for the workers of the current `future::plan(cluster,
#'   workers = cl)`. `NULL` (the default) runs in this session; with
#'   `shards` or a [shard_source()] the same sharded sampler runs in
#'   process, with the same draws.
#' @param shards The number of shards in-memory documents are cut into
#'   (runs of whole documents of about equal numbers of tokens; default:
#'   shards of `getOption("mcmix.shard_tokens")` tokens). The draws depend
#'   on the shards, never on the number of workers.
#' @param ... Unused; unknown arguments are refused.
#' @section Corpora larger than one machine:
#'   With `cl` (or `shards`, or `data` a [shard_source()] whose reader or
#'   function gives each shard's documents in any form `data` takes), the
#'   documents are cut into shards held by the workers of an R cluster for
#'   the whole run; files are read on the workers, so the corpus never
#'   passes through the session, which holds the vocabulary and the
#'   `K x W` topic-word counts only. Shards that name their terms are
#'   matched to `vocab` by name (without `vocab`: the terms of the shards
#'   in order of first appearance); otherwise the columns (word ids) must
#'   agree. The sampler is approximate distributed LDA (AD-LDA; Newman,
#'   Asuncion, Smyth and Welling 2009): in a sweep every shard runs the
#'   collapsed Gibbs sweep (SparseLDA) of its tokens against the
#'   topic-word counts of the start of the sweep plus its own moves, and
#'   the counts are combined once per sweep. It is collapsed Gibbs with
#'   one shard; with more, a token does not see the other shards' moves of
#'   the same sweep (an approximation, whose held-out perplexity matched
#'   the sequential sampler's in the package's benchmarks). Per sweep each
#'   worker sends its change of the counts as sparse pairs (8 bytes per
#'   changed word-topic cell) and receives the combined change. Every
#'   document draws from a random stream of its own, so the draws are the
#'   same for any number of workers and in process. [topic_word()],
#'   [top_terms()], [perplexity()] of new documents and [predict()] work as
#'   for any fit; [doc_topic()] collects the documents' proportions from
#'   the workers (refused beyond `getOption("mcmix.memory_budget")`). A
#'   worker that dies ends the run with an error of class
#'   `mcmix_error_worker` whose fit keeps the draws so far;
#'   `extend(fit, iter, cl = new_cluster)` continues on new workers (the
#'   topics of the tokens drawn again given the fit's topic-word counts).
#'   Ctrl-C is served between sweeps and returns the fit so far. Create the
#'   cluster with TCP no-delay on both ends (see "Data larger than one
#'   machine" in [sample_posterior()]).
#' @return An `mcmix_fit` of class `mcmix_lda_fit`. Its trace `log_lik` is
#'   \eqn{\log p(w, z)} with \eqn{\theta, \phi} integrated out. The
#'   posterior means of \eqn{\phi} and \eqn{\theta} over the kept draws are
#'   read with [topic_word()] and [doc_topic()], the most probable words of
#'   each topic with [top_terms()].
#' @examples
#' set.seed(1)
#' docs <- list(c(1, 1, 2, 2, 1), c(3, 4, 4, 3), c(1, 2, 3, 4, 1, 2))
#' fit <- sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
#'                         vocab = c("a", "b", "c", "d"), iter = 100,
#'                         progress = FALSE)
#' top_terms(fit, n = 2)
#' # the Metropolis-Hastings sampler: same posterior, more sweeps
#' fit_mh <- sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
#'                            vocab = c("a", "b", "c", "d"), iter = 200,
#'                            algorithm = "mh", progress = FALSE)
#' top_terms(fit_mh, n = 2)
#' # the documents in two shards (on the workers of a cluster with `cl = `;
#' # here in this session): the same draws for any number of workers
#' set.seed(1)
#' fit_sh <- sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
#'                            vocab = c("a", "b", "c", "d"), shards = 2,
#'                            iter = 100, progress = FALSE)
#' top_terms(fit_sh, n = 2)
#' @references Newman, D., Asuncion, A., Smyth, P. and Welling, M. (2009).
#'   Distributed algorithms for topic models. *Journal of Machine Learning
#'   Research* 10, 1801--1828.
#'   Yuan, J., Gao, F., Ho, Q., Dai, W., Wei, J., Zheng, X.,
#'   Xing, E. P., Liu, T.-Y. and Ma, W.-Y. (2015). LightLDA: big topic
#'   models on modest computer clusters. *WWW*, 1351--1361.
#'   Griffiths, T. L. and Steyvers, M. (2004). Finding scientific topics.
#'   *PNAS* 101, 5228--5235.
#' @export
sample_posterior.mcmix_lda <- function(model, data, vocab = NULL, iter = 1000,
                                       burnin = floor(iter / 2), thin = 1,
                                       chains = 1, progress = interactive(),
                                       cores = mcmix_option("cores"),
                                       algorithm = c("sparse", "dense", "blocked", "mh"),
                                       threads = mcmix_option("threads"),
                                       mh_steps = 2L, backend = mcmix_option("backend"),
                                       cl = NULL, shards = NULL, ...) {
  check_dots(list(...))   # R/checks.R
  if (!is.null(cl) || !is.null(shards) || inherits(data, "mcmix_shard_source")) {
    # the documents in shards on the workers of `cl` (R/lda_sharded.R)
    lda_check_prior(model$alpha, "alpha")
    lda_check_prior(model$beta, "beta")
    if (!missing(algorithm))
      stop_input(paste0("A sharded run samples every shard with SparseLDA (AD-LDA): leave ",
                        "`algorithm` out."), "algorithm")
    if (check_count(cores, "cores", 1L) > 1L)
      stop_input(paste0("A sharded run's chains run one after another on the workers of `cl`: ",
                        "leave `cores` at 1."), "cores")
    if (!missing(threads))
      stop_input(paste0("A sharded LDA run sweeps each shard on one thread of its worker: ",
                        "leave `threads` out (start more workers instead)."), "threads")
    return(lda_sharded_run(model, data, vocab, cl, shards, iter, burnin, thin,
                           check_count(chains, "chains", 1L),
                           check_flag(progress, "progress"), call = match.call()))
  }
  # (a model edited by hand is checked as lda_model() would)
  lda_check_prior(model$alpha, "alpha")
  lda_check_prior(model$beta, "beta")
  algorithm <- match_choice(algorithm, names(lda_samplers), "algorithm")
  mh_steps <- check_count(mh_steps, "mh_steps", 1L, 1000L)
  # the draws do not depend on the thread count, so it may follow the idle
  # cores (R/mixture_dp.R)
  threads <- run_threads(threads)   # R/models.R
  corpus <- lda_corpus(data, vocab, K = model$K)
  lda_check_budget(model$K, corpus, check_count(chains, "chains", 1L))   # R/lda_corpus.R
  row <- lda_samplers[[algorithm]]
  if (row$per_token > 0)       # the sampler's own structures beyond the counts
    lda_check_memory(model$K, corpus$W, corpus$D, length(corpus$word),
                     per_token = row$per_token, per_word_cell = row$per_word_cell)
  block <- mcmix_option("lda_block_tokens")
  sampler <- list(algorithm = algorithm, threads = threads, block_tokens = block,
                  mh_steps = mh_steps)
  kernel <- lda_kernel(model, corpus, sampler)
  fit <- run_fit(kernel, iter = iter, burnin = burnin, thin = thin,
                    chains = chains, cores = cores, backend = backend,
                    progress = progress, labels = FALSE, psm = FALSE,
                    model = model, data = corpus, call = match.call(), kind = "lda")
  fit
}

# The LDA samplers, one row each, in the order of the C table
# MCX_LDA_SAMPLERS (src/model_lda.h): a row's index is the code the C glue
# reads (src/ffi_lda.c), and the first row is the default. Fields:
#   exact      TRUE when the sampler leaves p(z | w) exactly invariant (then
#              a test compares it with the exact posterior of z:
#              `lda_exact_tested`, tests/testthat/helper-lda.R); FALSE for
#              an approximation, which its help says is approximate
#              (?sample_posterior.mcmix_lda, argument `algorithm`)
#   threads    whether it runs on `threads` OpenMP threads
#   per_token, per_word_cell  bytes of its own structures per token and
#              per word-topic cell, checked against mcmix.lda_max_bytes
#              (lda_check_memory(); 0: none beyond the counts)
# Adding a sampler: inst/design.md, "How to add an LDA sampler".
lda_sampler <- function(exact, threads = FALSE, per_token = 0, per_word_cell = 0)
  list(exact = exact, threads = threads, per_token = per_token, per_word_cell = per_word_cell)
lda_samplers <- list(
  sparse = lda_sampler(exact = TRUE),
  dense = lda_sampler(exact = TRUE),
  blocked = lda_sampler(exact = FALSE, threads = TRUE, per_token = 36, per_word_cell = 20),
  # the word order, the topics in it, the 16-bit counts
  mh = lda_sampler(exact = TRUE, per_token = 24, per_word_cell = 22))

# One chunk of the compiled sampler: see src/ffi_lda.c.
lda_step_c <- function(model, corpus, state, n, thin, offset, warmup,
                       algorithm = "sparse", threads = 1L,
                       block_tokens = lda_block_tokens_default, mh_steps = 2L,
                       workspace = NULL, fail_after = 0L, mh_wide = FALSE) {
  # OpenMP's thread pool does not survive fork(): a forked chain runs on one
  # thread (same draws, see in_forked_child())
  if (threads > 1L && in_forked_child()) threads <- 1L
  code <- match(algorithm, names(lda_samplers)) - 1L   # its row in MCX_LDA_SAMPLERS
  blocks <- lda_blocks(length(corpus$word), block_tokens)
  # fail_after > 0: abandon the chunk with an error after that many sweeps
  # (tests: what an interrupt inside a chunk leaves); mh_wide = TRUE runs
  # "mh" on int counts where 16-bit ones would do (tests: the same draws)
  settings <- c(model$K, corpus$W, model$alpha, model$beta, code, threads, blocks, mh_steps,
                fail_after, mh_wide)
  r <- .Call(C_ffi_lda_step, corpus$word, corpus$doc_start, state$z,
             state$phi_sum, state$theta_sum, as.double(settings),
             chunk_ctrl(n, thin, offset, warmup), workspace)
  list(z = r$z, phi_sum = r$phi_sum, theta_sum = r$theta_sum,
       n_draws = state$n_draws + length(r$log_lik), log_lik = r$log_lik,
       rebuilt = r$rebuilt)
}

# Tokens per cell of the partitioned sampler unless
# options(mcmix.lda_block_tokens) says otherwise: B = 4 at 1e6 tokens.
lda_block_tokens_default <- 32768L

# Number B of document groups (and of word groups) of the partitioned
# sampler: the largest power of two (so an epoch's B cells share out evenly
# over 2, 4, 8 threads) at most 16 with cells of about N / B^2 >=
# block_tokens tokens; a function of the corpus size and the option only
# (never of the threads).
lda_blocks <- function(N, block_tokens) {
  b <- floor(sqrt(N / block_tokens))
  as.integer(if (b < 2) 1 else min(16, 2^floor(log2(b))))
}

# log p(w, z) of topics `z` (0-based), with theta and phi integrated out.
lda_log_joint <- function(model, corpus, z) {
  .Call(C_ffi_lda_log_joint, corpus$word, corpus$doc_start, as.integer(z),
        as.double(c(model$K, corpus$W, model$alpha, model$beta)))
}

lda_kernel <- function(model, corpus,
                       sampler = list(algorithm = "sparse", threads = 1L,
                                      block_tokens = lda_block_tokens_default,
                                      mh_steps = 2L)) {
  K <- model$K
  N <- length(corpus$word)
  new_kernel(
    name = "lda_collapsed",
    init = function(chain) {
      list(z = sample.int(K, N, replace = TRUE) - 1L,
           phi_sum = matrix(0, K, corpus$W), theta_sum = matrix(0, corpus$D, K),
           n_draws = 0)
    },
    step = function(state, n, thin, offset, warmup, workspace = NULL) {
      r <- lda_step_c(model, corpus, state, n, thin, offset, warmup, sampler$algorithm,
                      sampler$threads, sampler$block_tokens, sampler$mh_steps, workspace)
      tr <- matrix(r$log_lik, ncol = 1L, dimnames = list(NULL, "log_lik"))
      r$log_lik <- NULL
      r$rebuilt <- NULL
      list(state = r, draws = list(traces = tr))
    },
    trace_names = "log_lik",
    workspace = TRUE)   # the counts kept across chunks (src/ffi_lda.c)
}

#' @export
print.mcmix_lda_fit <- function(x, ...) {
  s <- x$settings
  cat("LDA fit: K = ", x$model$K, " topics, ", format(x$data$D), " documents, ",
      format(lda_tokens(x$data)), " tokens, vocabulary of ",
      x$data$W, " words", if (inherits(x, "mcmix_sharded_fit"))
        sprintf(" (%d shards)", length(x$data$n)), "\n", sep = "")
  cat("  ", s$chains, " chain", if (s$chains > 1L) "s", ", ", s$iter,
      " iterations after ", s$burnin, " burn-in (thin ", s$thin, ")\n", sep = "")
  if (x$chains[[1L]]$state$n_draws > 0) {
    cat("Top terms (chain 1):\n")
    print(noquote(top_terms(x, n = min(5L, x$data$W))))
  }
  fit_guard(x)   # R/guard.R: one warning when the draws mix poorly
  invisible(x)
}

# The tokens of a fit's corpus (in process, or sharded on the workers).
lda_tokens <- function(data) if (is.null(data$N)) length(data$word) else data$N

lda_chain_state <- function(fit, chain) {
  if (!inherits(fit, "mcmix_lda_fit"))
    stop(sprintf("`fit` must be an LDA fit from sample_posterior(lda_model(...)), not %s.",
                 describe_value(fit)), call. = FALSE)
  chain <- check_count(chain, "chain", 1L, length(fit$chains))
  st <- fit$chains[[chain]]$state
  if (!(st$n_draws > 0))
    stop("`fit` holds no kept draws yet (run extend()).", call. = FALSE)
  st
}

lda_topic_names <- function(K) paste0("topic", seq_len(K))

#' Posterior means of the LDA topics and document proportions
#'
#' `topic_word()` gives the posterior mean of the topic-word distributions
#' \eqn{\phi} (topics in rows, words in columns; rows sum to 1);
#' `doc_topic()` the posterior mean of the document-topic proportions
#' \eqn{\theta} (documents in rows, topics in columns). Both average, over
#' the kept draws of one chain, the conditional means given the topic
#' assignments: \eqn{(n_{wk} + \beta)/(n_k + W\beta)} and
#' \eqn{(n_{dk} + \alpha)/(n_d + K\alpha)}.
#'
#' @param fit A fit from [sample_posterior()] on an [lda_model()].
#' @param chain Which chain (topics are not matched across chains).
#' @return A numeric matrix.
#' @examples
#' set.seed(2)
#' docs <- list(c(1, 1, 2, 1), c(3, 3, 4), c(4, 3, 3, 1))
#' fit <- sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
#'                         iter = 100, progress = FALSE)
#' topic_word(fit)
#' doc_topic(fit)
#' @export
topic_word <- function(fit, chain = 1) {
  st <- lda_chain_state(fit, chain)
  out <- st$phi_sum / st$n_draws
  dimnames(out) <- list(lda_topic_names(nrow(out)), fit$data$vocab)
  out
}

#' @rdname topic_word
#' @export
doc_topic <- function(fit, chain = 1) {
  if (inherits(fit, "mcmix_lda_sharded_fit")) return(lda_sharded_doc_topic(fit, chain))
  st <- lda_chain_state(fit, chain)
  out <- st$theta_sum / st$n_draws
  dimnames(out) <- list(fit$data$doc_names, lda_topic_names(ncol(out)))
  out
}

#' Most probable words of each topic
#'
#' @param fit A fit from [sample_posterior()] on an [lda_model()].
#' @param n Number of words per topic.
#' @param chain Which chain.
#' @return A character matrix with `n` rows (words in decreasing posterior
#'   mean probability) and one column per topic. Without a vocabulary the
#'   word ids are shown.
#' @examples
#' set.seed(3)
#' docs <- list(c(1, 1, 2, 1), c(3, 3, 4), c(4, 3, 3, 1))
#' fit <- sample_posterior(lda_model(K = 2), docs, vocab = c("w", "x", "y", "z"),
#'                         iter = 100, progress = FALSE)
#' top_terms(fit, n = 2)
#' @export
top_terms <- function(fit, n = 10, chain = 1) {
  phi <- topic_word(fit, chain)
  n <- check_count(n, "n", 1L)
  n <- min(n, ncol(phi))
  words <- if (is.null(fit$data$vocab)) as.character(seq_len(ncol(phi))) else fit$data$vocab
  out <- vapply(seq_len(nrow(phi)), function(k)
    words[order(phi[k, ], decreasing = TRUE)[seq_len(n)]], character(n))
  out <- matrix(out, nrow = n)
  colnames(out) <- rownames(phi)
  out
}

#' Held-out perplexity of an LDA fit
#'
#' Perplexity by document completion (Wallach, Murray, Salakhutdinov and
#' Mimno 2009, section 4.2): each held-out document is split into its first
#' half of tokens, from which its topic proportions \eqn{\theta_d} are
#' estimated with the topics fixed at their posterior mean
#' \eqn{\hat\phi} ([topic_word()]), and its second half, whose words are
#' scored:
#' \deqn{\mathrm{perplexity} = \exp\Big(-\frac{\sum_d \sum_{i \in
#'   \mathrm{2nd\ half}} \log \sum_k \hat\theta_{dk} \hat\phi_{k w_i}}
#'   {\text{number of scored tokens}}\Big).}
#' \eqn{\hat\theta_d} is the fixed point of
#' \eqn{\theta_{k} = (\alpha + \sum_i r_{ik}) / (n + K\alpha)},
#' \eqn{r_{ik} \propto \theta_k \hat\phi_{k w_i}} over the \eqn{n} tokens of
#' the first half ("folding in" the document by expectation--maximisation
#' with the Dirichlet prior's pseudo-counts; Asuncion et al. 2009); a
#' document with one token is scored with \eqn{\theta_d = 1/K}. Lower is
#' better; a model that ignores the topics scores about the vocabulary
#' size.
#'
#' @param fit A fit from [sample_posterior()] on an [lda_model()].
#' @param newdata Held-out documents in any form `sample_posterior()` takes
#'   (a list of word-id vectors, or document-term counts as a matrix,
#'   `Matrix`, `simple_triplet_matrix` / `DocumentTermMatrix` or `dfm`);
#'   tokens are read document by document in increasing word id (column
#'   order), whatever the form, before the split. When the fit and
#'   `newdata` both name their terms, columns are matched by name and terms
#'   the fit never saw are dropped with a warning; otherwise the columns (word
#'   ids) must be those of the fit. `NULL` scores the fitted documents the
#'   same way. At least one token on the fit's vocabulary must be left to
#'   score.
#' @param chain Which chain's topics to use.
#' @param max_iter,tol Iterations and relative tolerance of the fold-in
#'   (`max_iter` at most `getOption("mcmix.work_budget", 1e8)`).
#' @return The perplexity, with attributes `log_lik` (total log probability
#'   of the scored tokens) and `n_tokens`.
#' @references Wallach, H. M., Murray, I., Salakhutdinov, R. and Mimno, D.
#'   (2009). Evaluation methods for topic models. *ICML*, 1105--1112.
#'   Asuncion, A., Welling, M., Smyth, P. and Teh, Y. W. (2009). On smoothing
#'   and inference for topic models. *UAI*, 27--34.
#' @examples
#' set.seed(2)
#' docs <- list(c(1, 1, 2, 1, 2), c(3, 3, 4, 4), c(4, 3, 3, 4, 3), c(1, 2, 2, 1))
#' fit <- sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
#'                         iter = 200, progress = FALSE)
#' perplexity(fit, list(c(1, 2, 1, 2), c(3, 4, 4, 3)))
#' @export
perplexity <- function(fit, newdata = NULL, chain = 1, max_iter = 200, tol = 1e-8) {
  phi <- topic_word(fit, chain)
  max_iter <- check_count(max_iter, "max_iter", 1L)
  check_work(max_iter, "max_iter", sprintf("%s fold-in iterations", format_count(max_iter)),
             per = "document")
  tol <- check_positive(tol, "tol")
  K <- nrow(phi)
  W <- ncol(phi)
  if (is.null(newdata) && inherits(fit, "mcmix_lda_sharded_fit"))
    stop_input(paste0("The documents of a sharded fit stay on its workers: give held-out ",
                      "documents as `newdata`."), "newdata")
  corpus <- if (is.null(newdata)) fit$data else lda_new_corpus(fit, newdata)
  alpha <- fit$model$alpha
  ll <- 0
  n_scored <- 0
  for (d in seq_len(corpus$D)) {
    idx <- seq.int(corpus$doc_start[d] + 1L, length.out = corpus$doc_start[d + 1L] - corpus$doc_start[d])
    if (!length(idx)) next
    w <- corpus$word[idx] + 1L
    n_obs <- length(w) %/% 2L
    theta <- lda_fold_in(phi[, w[seq_len(n_obs)], drop = FALSE], alpha, max_iter, tol)
    held <- w[seq.int(n_obs + 1L, length(w))]
    ll <- ll + sum(log(colSums(theta * phi[, held, drop = FALSE])))
    n_scored <- n_scored + length(held)
  }
  if (n_scored == 0)
    stop_input(paste0("`newdata` has no token on the vocabulary of the fit to score ",
                      "(the perplexity of no tokens is undefined)."), "newdata")
  structure(exp(-ll / n_scored), log_lik = ll, n_tokens = n_scored)
}

# Topic proportions of one document given the topics: `p` is the K x n
# matrix phi[, w_i] of its tokens (fixed point described in ?perplexity).
lda_fold_in <- function(p, alpha, max_iter, tol) {
  K <- nrow(p)
  theta <- rep(1 / K, K)
  if (!ncol(p)) return(theta)
  for (it in seq_len(max_iter)) {
    r <- theta * p
    r <- sweep(r, 2L, colSums(r), "/")
    new <- (alpha + rowSums(r)) / (ncol(p) + K * alpha)
    done <- max(abs(new - theta)) < tol * max(theta)
    theta <- new
    if (done) break
  }
  theta
}
