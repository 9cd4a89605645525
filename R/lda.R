# Latent Dirichlet allocation by collapsed Gibbs sampling
# (src/model_lda.c through src/ffi_topic.c).
#
# Corpus representation handed to C: `word` (integer word ids, 0-based, the
# tokens of document 1, then of document 2, ...) and `doc_start` (D + 1
# offsets into `word`).
#
# Sampler state of one chain (a plain list):
#   z          integer vector, the topic of every token, 0-based;
#   phi_sum    K x W matrix, running sum over kept draws of the posterior
#              mean of the topic-word distributions given z,
#              (n_wk + beta) / (n_k + W beta);
#   theta_sum  D x K matrix, running sum over kept draws of
#              (n_dk + alpha) / (n_d + K alpha);
#   n_draws    number of kept draws summed so far.
# The counts are rebuilt from z at the start of every chunk. The posterior
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
#' and Steyvers (2004) (\eqn{\theta} and \eqn{\phi} integrated out).
#'
#' @param K Number of topics (a whole number between 1 and 100000).
#' @param alpha Symmetric Dirichlet parameter of the document-topic
#'   proportions (a positive number; default `50 / K` as in Griffiths and
#'   Steyvers 2004).
#' @param beta Symmetric Dirichlet parameter of the topic-word
#'   distributions (a positive number).
#' @return An object of class `mcmix_lda`.
#' @seealso [sample_posterior.mcmix_lda()], [top_terms()], [topic_word()],
#'   [doc_topic()]
#' @examples
#' lda_model(K = 3)
#' lda_model(K = 10, alpha = 0.1, beta = 0.01)
#' @export
lda_model <- function(K, alpha = 50 / K, beta = 0.01) {
  K <- check_count_max(K, "K", 1L, 1e5, "topics")
  check_positive(alpha, "alpha")
  check_positive(beta, "beta")
  structure(list(K = K, alpha = as.double(alpha), beta = as.double(beta)),
            class = c("mcmix_lda", "mcmix_model"))
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
#' Limits: word ids at most 1e7, at most `2^31 - 2` tokens, and a
#' sampler state (about `20 K W + 20 D K + 12 N` bytes for `W` words, `D`
#' documents and `N` tokens) within `getOption("mcmix.lda_max_bytes", 2e9)`.
#'
#' @param model An [lda_model()].
#' @param data The documents: a list of integer vectors of word ids
#'   (`1..W`, one vector per document, the tokens in any order), or a
#'   document-term matrix (documents in rows, words in columns, whole-number
#'   counts; its column names are used as the vocabulary).
#' @param vocab Optional character vector of the `W` words (for a list of
#'   documents; `W` is then `length(vocab)`, else the largest word id).
#' @param iter Number of kept-phase iterations per chain.
#' @param burnin Number of burn-in iterations per chain, run before the kept ones
#'   and not kept (default `floor(iter / 2)`; see [mcmix-run-settings]).
#' @param thin Keep every `thin`-th iteration.
#' @param chains Number of chains. Topics are not matched across chains;
#'   the accessors take a `chain` argument.
#' @param progress Show a progress bar.
#' @param cores Number of cores for running chains in parallel.
#' @param ... Unused; unknown arguments are refused.
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
#' @export
sample_posterior.mcmix_lda <- function(model, data, vocab = NULL, iter = 1000,
                                       burnin = floor(iter / 2), thin = 1,
                                       chains = 1, progress = interactive(),
                                       cores = getOption("mcmix.cores", 1L), ...) {
  backend <- dots_backend(list(...))
  corpus <- lda_corpus(data, vocab)
  lda_check_memory(model$K, corpus)
  kernel <- lda_kernel(model, corpus)
  fit <- run_fit(kernel, iter = iter, burnin = burnin, thin = thin,
                    chains = chains, cores = cores, backend = backend,
                    progress = progress, labels = FALSE, psm = FALSE,
                    model = model, data = corpus, call = match.call(), kind = "lda")
  fit
}

# Validate the documents and flatten them into (word, doc_start, W, vocab).
lda_corpus <- function(data, vocab) {
  if (!is.null(vocab) && (!is.character(vocab) || !length(vocab) || anyNA(vocab)))
    stop(sprintf("`vocab` must be a character vector of words, not %s.",
                 describe_value(vocab)), call. = FALSE)
  if (is.matrix(data) && (is.numeric(data) || is.logical(data))) {
    if (!nrow(data) || !ncol(data) || anyNA(data) || any(data < 0) ||
        any(data != floor(data)))
      stop("`data` must be a document-term matrix of non-negative whole-number counts.",
           call. = FALSE)
    if (!is.null(vocab) && length(vocab) != ncol(data))
      stop(sprintf("`vocab` must have one word per column of `data` (%d), not %d.",
                   ncol(data), length(vocab)), call. = FALSE)
    W <- ncol(data)
    if (is.null(vocab)) vocab <- colnames(data)
    D <- nrow(data)
    lda_check_tokens(sum(as.double(data)))
    counts <- t(data)                       # W x D: column d = document d
    len <- as.integer(colSums(counts))
    word <- rep.int(rep.int(seq_len(W), D), as.vector(counts)) - 1L
    doc_names <- rownames(data)
  } else if (is.list(data) && !is.data.frame(data)) {
    if (!length(data))
      stop("`data` must hold at least one document.", call. = FALSE)
    ok <- vapply(data, function(d) (is.numeric(d) && !is.matrix(d)) && !anyNA(d) &&
                   all(d == floor(d)) && all(d >= 1) && all(is.finite(d)), logical(1))
    if (!all(ok))
      stop(sprintf(paste0("`data` must be a list of vectors of word ids (whole numbers >= 1); ",
                          "document %d is not."), which(!ok)[1L]), call. = FALSE)
    len <- lengths(data)
    top <- max(vapply(data, function(d) if (length(d)) max(d) else 0, numeric(1)))
    if (top > lda_max_vocab)
      stop(sprintf(paste0("`data` uses word id %s; word ids must be at most %s ",
                          "(the vocabulary size limit)."),
                   format(top), format(lda_max_vocab, scientific = FALSE)), call. = FALSE)
    lda_check_tokens(sum(as.double(len)))
    word <- as.integer(unlist(data, use.names = FALSE)) - 1L
    W <- if (length(word)) max(word) + 1L else 0L
    if (!is.null(vocab)) {
      if (W > length(vocab))
        stop(sprintf("`data` uses word id %d but `vocab` has only %d words.",
                     W, length(vocab)), call. = FALSE)
      W <- length(vocab)
    }
    D <- length(data)
    doc_names <- names(data)
  } else {
    stop(sprintf(paste0("`data` must be a list of word-id vectors or a document-term ",
                        "matrix, not %s."), describe_value(data)), call. = FALSE)
  }
  if (!length(word))
    stop("`data` must contain at least one word.", call. = FALSE)
  list(word = as.integer(word), doc_start = c(0L, cumsum(as.integer(len))),
       W = as.integer(W), D = as.integer(D), vocab = vocab, doc_names = doc_names)
}

# Size limits: word ids (vocabulary size), tokens (C int indices), memory.
lda_max_vocab <- 1e7

lda_check_tokens <- function(n) {
  if (n > .Machine$integer.max - 1)
    stop(sprintf("`data` must hold at most %d tokens (word occurrences), not %s.",
                 .Machine$integer.max - 1L, format(n)), call. = FALSE)
  invisible(n)
}

# Bytes of a chain's state and of the sampler's counts (phi_sum and the
# topic-word counts are K x W, theta_sum and the document-topic counts D x K,
# word ids and topics per token), refused beyond option mcmix.lda_max_bytes.
lda_check_memory <- function(K, corpus) {
  N <- as.double(length(corpus$word))
  bytes <- 20 * K * as.double(corpus$W) + 20 * as.double(corpus$D) * K + 12 * N
  budget <- getOption("mcmix.lda_max_bytes", 2e9)
  if (bytes > budget)
    stop(sprintf(paste0("LDA with `K` = %d topics, a vocabulary of %d words, %d documents ",
                        "and %.0f tokens in `data` needs about %s, more than the budget ",
                        "of %s (option `mcmix.lda_max_bytes`): use fewer topics, a ",
                        "smaller vocabulary or fewer documents, or raise the option."),
                 K, corpus$W, corpus$D, N, format_bytes(bytes), format_bytes(budget)),
         call. = FALSE)
  invisible(bytes)
}

# One chunk of the compiled sampler: see src/ffi_topic.c.
lda_step_c <- function(model, corpus, state, n, thin, offset, warmup) {
  settings <- c(model$K, corpus$W, model$alpha, model$beta)
  r <- .Call(C_ffi_lda_step, corpus$word, corpus$doc_start, state$z,
             state$phi_sum, state$theta_sum, as.double(settings),
             chunk_ctrl(n, thin, offset, warmup))
  list(z = r$z, phi_sum = r$phi_sum, theta_sum = r$theta_sum,
       n_draws = state$n_draws + length(r$log_lik), log_lik = r$log_lik)
}

# log p(w, z) of topics `z` (0-based), with theta and phi integrated out.
lda_log_joint <- function(model, corpus, z) {
  .Call(C_ffi_lda_log_joint, corpus$word, corpus$doc_start, as.integer(z),
        as.double(c(model$K, corpus$W, model$alpha, model$beta)))
}

lda_kernel <- function(model, corpus) {
  K <- model$K
  N <- length(corpus$word)
  new_kernel(
    name = "lda_collapsed",
    init = function(chain) {
      list(z = sample.int(K, N, replace = TRUE) - 1L,
           phi_sum = matrix(0, K, corpus$W), theta_sum = matrix(0, corpus$D, K),
           n_draws = 0)
    },
    step = function(state, n, thin, offset, warmup) {
      r <- lda_step_c(model, corpus, state, n, thin, offset, warmup)
      tr <- matrix(r$log_lik, ncol = 1L, dimnames = list(NULL, "log_lik"))
      r$log_lik <- NULL
      list(state = r, draws = list(traces = tr))
    },
    trace_names = "log_lik")
}

#' @export
print.mcmix_lda_fit <- function(x, ...) {
  s <- x$settings
  cat("LDA fit: K = ", x$model$K, " topics, ", x$data$D, " documents, ",
      length(x$data$word), " tokens, vocabulary of ", x$data$W, " words\n", sep = "")
  cat("  ", s$chains, " chain", if (s$chains > 1L) "s", ", ", s$iter,
      " iterations after ", s$burnin, " burn-in (thin ", s$thin, ")\n", sep = "")
  if (x$chains[[1L]]$state$n_draws > 0) {
    cat("Top terms (chain 1):\n")
    print(noquote(top_terms(x, n = min(5L, x$data$W))))
  }
  invisible(x)
}

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
#' @param newdata Held-out documents in a form `sample_posterior()` takes
#'   (a list of word-id vectors or a document-term matrix over the same
#'   vocabulary); a document-term matrix is expanded to tokens in column
#'   order. `NULL` scores the fitted documents the same way.
#' @param chain Which chain's topics to use.
#' @param max_iter,tol Iterations and relative tolerance of the fold-in.
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
  tol <- check_positive(tol, "tol")
  K <- nrow(phi)
  W <- ncol(phi)
  corpus <- if (is.null(newdata)) fit$data else
    with_arg_renamed(lda_corpus(newdata, fit$data$vocab))   # R/conditions.R
  if (corpus$W > W || (is.matrix(newdata) && ncol(newdata) != W))
    stop(sprintf("`newdata` must use the vocabulary of the fit (%d words); it has %d.",
                 W, if (is.matrix(newdata)) ncol(newdata) else corpus$W), call. = FALSE)
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
