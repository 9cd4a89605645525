# Corpora for LDA (R/lda.R): every accepted form of a document collection is
# flattened into the one representation the C engine reads,
#   word       integer word ids (0-based), the tokens of document 1, then of
#              document 2, ...;
#   doc_start  D + 1 offsets into `word`;
# with W (vocabulary size), D, vocab (NULL or W words) and doc_names.
#
# Forms: a list of word-id vectors, and
# document-term counts as a base matrix, a Matrix sparse or dense matrix
# (dgCMatrix, dgTMatrix, dgRMatrix, ...; quanteda's dfm is a dgCMatrix),
# slam's simple_triplet_matrix (tm's DocumentTermMatrix; a
# TermDocumentMatrix is read with terms in rows). Counts are expanded to
# tokens document by document, terms in column order, straight from the
# non-zero entries (never a dense D x W copy), so one corpus gives the same
# tokens, hence the same draws for a seed, in every count form. A document
# given as word ids is a bag of words too: its ids are put in increasing
# order (the canonical token order of every form: documents in order, word
# ids increasing within a document), so a list gives the draws of its count
# matrix whatever the order of the ids inside each document.

# Validate the documents and flatten them into (word, doc_start, W, D,
# vocab, doc_names). `arg` names the argument in messages.
lda_corpus <- function(data, vocab, arg = "data", K = NULL) {
  if (!is.null(vocab) && (!is.character(vocab) || !length(vocab) || anyNA(vocab)))
    stop_input(sprintf("`vocab` must be a character vector of words, not %s.",
                       describe_value(vocab)), "vocab")
  trip <- lda_triplets(data, arg)
  if (is.null(trip)) return(lda_corpus_list(data, vocab, arg, K))
  if (!is.null(vocab) && length(vocab) != trip$W)
    stop_input(sprintf("`vocab` must have one word per column of `%s` (%d), not %d.",
                       arg, trip$W, length(vocab)), "vocab")
  if (is.null(vocab)) vocab <- trip$terms
  lda_corpus_counts(trip, vocab, arg, K)
}

# Non-zero entries (i, j, v; 1-based) of a document-term count form, with
# D, W and the dimnames; NULL for a list of word-id vectors.
lda_triplets <- function(data, arg) {
  lda_refuse_texts(data, arg)
  if (inherits(data, "simple_triplet_matrix")) return(lda_triplets_stm(data, arg))
  if (isS4(data) && methods::is(data, "Matrix")) return(lda_triplets_Matrix(data, arg))
  if (is.matrix(data) && (is.numeric(data) || is.logical(data))) {
    if (anyNA(data))
      stop_input(sprintf("`%s` must be a document-term matrix of counts without missing values.",
                         arg), arg)
    nz <- which(data != 0, arr.ind = TRUE)
    dn <- dimnames(data)
    return(list(i = nz[, 1L], j = nz[, 2L], v = as.double(data[nz]),
                D = nrow(data), W = ncol(data), docs = dn[[1L]], terms = dn[[2L]]))
  }
  if (is.list(data) && !is.data.frame(data)) return(NULL)
  stop_input(sprintf(paste0("`%s` must be a list of word-id vectors or a document-term ",
                            "matrix (a matrix, a Matrix sparse matrix, a slam ",
                            "simple_triplet_matrix, a tm DocumentTermMatrix or a quanteda ",
                            "dfm), not %s."), arg, describe_value(data)), arg)
}

# Texts (a tm corpus, a quanteda corpus or tokens, a character vector) are
# not counts: the error says how to make a document-term matrix, without
# printing the texts.
lda_refuse_texts <- function(data, arg) {
  what <- if (inherits(data, "Corpus")) sprintf("a tm %s", class(data)[1L])
          else if (inherits(data, "corpus")) "a quanteda corpus"
          else if (inherits(data, "tokens")) "quanteda tokens"
          else if (is.character(data) || is.factor(data))
            sprintf("a character vector of %d text%s", length(data),
                    if (length(data) == 1L) "" else "s")
          else if (is.list(data) && length(data) && all(vapply(data, is.character, NA)))
            sprintf("a list of %d character vectors", length(data))
  if (is.null(what)) return(invisible())
  # the recipe for this very input first
  own <- if (inherits(data, "Corpus")) sprintf("tm::DocumentTermMatrix(%s)", arg)
         else if (inherits(data, "corpus")) sprintf("quanteda::dfm(quanteda::tokens(%s))", arg)
         else if (inherits(data, "tokens")) sprintf("quanteda::dfm(%s)", arg)
  stop_input(sprintf(paste0("`%s` is %s; LDA needs word counts: a document-term matrix, made ",
                            "%swith tm::DocumentTermMatrix(tm::VCorpus(tm::VectorSource(texts))), ",
                            "quanteda::dfm(quanteda::tokens(texts)) or text2vec::create_dtm(), ",
                            "or a list of word-id vectors."), arg, what,
                     if (is.null(own)) "" else paste0("from it with ", own, "; from texts ")),
             arg)
}

# slam / tm: list(i, j, v, nrow, ncol, dimnames). tm records the weighting;
# only term frequencies (and 0/1 presence) are counts.
lda_triplets_stm <- function(x, arg) {
  wt <- attr(x, "weighting")
  if (!is.null(wt) && !any(wt %in% c("tf", "bin")))
    stop_input(sprintf(paste0("`%s` is a document-term matrix weighted by \"%s\"; LDA needs ",
                              "term counts: build it with weighting = weightTf (tm's default)."),
                       arg, wt[1L]), arg)
  ok <- is.numeric(x$i) && is.numeric(x$j) && (is.numeric(x$v) || is.logical(x$v)) &&
    length(x$i) == length(x$j) && length(x$v) == length(x$i) &&
    is.numeric(x$nrow) && is.numeric(x$ncol) && length(x$nrow) == 1L &&
    length(x$ncol) == 1L && isTRUE(x$nrow >= 0) && isTRUE(x$ncol >= 0) &&
    !anyNA(x$i) && !anyNA(x$j) && all(x$i >= 1 & x$i <= x$nrow) &&
    all(x$j >= 1 & x$j <= x$ncol)
  if (!ok)
    stop_input(sprintf("`%s` is not a valid simple_triplet_matrix (i, j, v, nrow, ncol).",
                       arg), arg)
  dn <- x$dimnames
  i <- as.integer(x$i); j <- as.integer(x$j)
  D <- as.integer(x$nrow); W <- as.integer(x$ncol)
  if (inherits(x, "TermDocumentMatrix")) {          # terms in rows
    t <- i; i <- j; j <- t
    t <- D; D <- W; W <- t
    dn <- rev(dn)
  }
  list(i = i, j = j, v = as.double(x$v), D = D, W = W,
       docs = dn[[1L]], terms = dn[[2L]])
}

# Matrix classes (sparse or dense, any storage): read as a general double
# CsparseMatrix (a no-op for dgCMatrix and quanteda's dfm).
lda_triplets_Matrix <- function(x, arg) {
  if (inherits(x, "dfm")) {
    scheme <- tryCatch(x@meta$object$weight_tf$scheme, error = function(e) NULL)
    if (is.character(scheme) && length(scheme) == 1L && scheme != "count")
      stop_input(sprintf(paste0("`%s` is a dfm weighted by \"%s\"; LDA needs term ",
                                "counts (the dfm before dfm_weight()/dfm_tfidf())."),
                         arg, scheme), arg)
  }
  if (!methods::is(x, "dgCMatrix")) {
    x <- methods::as(x, "CsparseMatrix")
    if (!methods::is(x, "generalMatrix")) x <- methods::as(x, "generalMatrix")
    if (!methods::is(x, "dMatrix")) x <- methods::as(x, "dMatrix")
  }
  d <- x@Dim
  dn <- x@Dimnames
  list(i = x@i + 1L, j = rep.int(seq_len(d[2L]), diff(x@p)), v = x@x,
       D = d[1L], W = d[2L], docs = dn[[1L]], terms = dn[[2L]])
}

# The counts of a document-term form: non-negative whole numbers.
lda_check_counts <- function(v, arg) {
  if (anyNA(v) || any(v < 0) || any(!is.finite(v)) || any(v != floor(v)))
    stop_input(sprintf(paste0("`%s` must be a document-term matrix of non-negative ",
                              "whole-number counts (not weighted, e.g. by tf-idf)."), arg), arg)
  invisible(v)
}

# Counts to tokens: documents in row order, terms in column order within a
# document, term j repeated v times. `allow_empty`: documents without any
# token are allowed (new documents of predict(); a fit needs a word).
lda_corpus_counts <- function(trip, vocab, arg, K = NULL, allow_empty = FALSE) {
  v <- trip$v
  if (!trip$D || !trip$W)
    stop_input(sprintf("`%s` must have at least one document and one term, not %d x %d.",
                       arg, trip$D, trip$W), arg)
  lda_check_counts(v, arg)
  if (trip$W > lda_max_vocab)
    stop_input(sprintf("`%s` has %d terms; the vocabulary must have at most %s words.",
                       arg, trip$W, format(lda_max_vocab, scientific = FALSE)), arg)
  lda_check_tokens(sum(v), arg)
  if (!is.null(K)) lda_check_memory(K, trip$W, trip$D, sum(v))
  keep <- v > 0
  i <- trip$i[keep]; j <- trip$j[keep]; v <- as.integer(v[keep])
  o <- order(i, j, method = "radix")
  i <- i[o]; j <- j[o]; v <- v[o]
  word <- rep.int(j, v) - 1L
  # tokens before document d: counts of the entries with row < d
  cv <- c(0L, cumsum(v))
  doc_start <- cv[findInterval(seq.int(0L, trip$D), i) + 1L]
  if (!length(word) && !allow_empty)
    stop_input(sprintf("`%s` must contain at least one word.", arg), arg)
  list(word = as.integer(word), doc_start = as.integer(doc_start), W = as.integer(trip$W),
       D = as.integer(trip$D), vocab = vocab, doc_names = trip$docs)
}

# A list of word-id vectors (1-based); each document's ids sorted (the
# canonical order, see the top of this file); `allow_empty` as for
# lda_corpus_counts().
lda_corpus_list <- function(data, vocab, arg, K = NULL, allow_empty = FALSE) {
  if (!length(data))
    stop_input(sprintf("`%s` must hold at least one document.", arg), arg)
  ok <- vapply(data, function(d) (is.numeric(d) && !is.matrix(d)) && !anyNA(d) &&
                 all(d == floor(d)) && all(d >= 1) && all(is.finite(d)), logical(1))
  if (!all(ok))
    stop_input(sprintf(paste0("`%s` must be a list of vectors of word ids (whole numbers >= 1); ",
                              "document %d is not."), arg, which(!ok)[1L]), arg)
  len <- lengths(data)
  top <- max(vapply(data, function(d) if (length(d)) max(d) else 0, numeric(1)))
  if (top > lda_max_vocab)
    stop_input(sprintf(paste0("`%s` uses word id %s; word ids must be at most %s ",
                              "(the vocabulary size limit)."),
                       arg, format(top), format(lda_max_vocab, scientific = FALSE)), arg)
  lda_check_tokens(sum(as.double(len)), arg)
  W <- as.integer(top)
  if (!is.null(vocab)) {
    if (W > length(vocab))
      stop_input(sprintf("`%s` uses word id %d but `vocab` has only %d words.",
                         arg, W, length(vocab)), "vocab")
    W <- length(vocab)
  }
  if (!is.null(K)) lda_check_memory(K, W, length(data), sum(as.double(len)))
  word <- as.integer(unlist(data, use.names = FALSE)) - 1L
  # canonical order: by document (already), then by word id; radix order of
  # the pair is linear in the number of tokens
  doc <- rep.int(seq_along(len), len)
  word <- word[order(doc, word, method = "radix")]
  if (!length(word) && !allow_empty)
    stop_input(sprintf("`%s` must contain at least one word.", arg), arg)
  list(word = word, doc_start = c(0L, cumsum(as.integer(len))), W = as.integer(W),
       D = length(data), vocab = vocab, doc_names = names(data))
}

# Size limits: word ids (vocabulary size), tokens (C int indices), memory.
lda_max_vocab <- 1e7

lda_check_tokens <- function(n, arg = "data") {
  if (n > .Machine$integer.max - 1)
    stop_input(sprintf("`%s` must hold at most %d tokens (word occurrences), not %s.",
                       arg, .Machine$integer.max - 1L, format(n)), arg)
  invisible(n)
}

# Bytes of a chain's state and of the sampler's counts (phi_sum and the
# topic-word counts are K x W, theta_sum and the document-topic counts D x K,
# word ids, topics and the sparse sampler's word-topic lists per token;
# the blocked sampler's cell order adds 20 bytes per token; "mh" adds its
# word order and the topics in it per token and, where they fit, 16-bit
# copies of the topic-word counts: `per_word_cell` 22), refused beyond
# option mcmix.lda_max_bytes.
lda_check_memory <- function(K, W, D, N, per_token = 16, per_word_cell = 20) {
  bytes <- per_word_cell * K * as.double(W) + 20 * as.double(D) * K + per_token * as.double(N)
  budget <- mcmix_option("lda_max_bytes")
  if (bytes > budget)
    stop_input(sprintf(paste0("LDA with `K` = %d topics, a vocabulary of %d words, %d documents ",
                              "and %.0f tokens in `data` needs about %s, more than the budget ",
                              "of %s (option `mcmix.lda_max_bytes`): use fewer topics, a ",
                              "smaller vocabulary or fewer documents, or raise the option."),
                       K, W, D, N, format_bytes(bytes), format_bytes(budget)), "K")
  invisible(bytes)
}

# The memory of a run of `chains` chains on `corpus` with K topics, checked
# against option `mcmix.memory_budget` (R/chains_budget.R): the sampler's
# counts and state as in lda_check_memory() (20 bytes per topic-word and
# document-topic cell, 16 per token), plus 12 bytes per cell for the copies
# of the state's sums made when a chunk returns them, and 14 per cell and
# chain for the chains' states kept in the fit and the garbage of their
# chunks (measured peaks, tools/budget-check.R: 34 to 37 bytes a cell for
# one chain, 50 to 71 for two, 52 for three).
lda_check_budget <- function(K, corpus, chains) {
  cells <- as.double(K) * corpus$W + as.double(corpus$D) * K
  bytes <- (32 + 14 * as.double(chains)) * cells + 16 * as.double(length(corpus$word))
  check_budget(bytes, "data",
               sprintf(paste0("%s chains of LDA with %d topics (`K` of the model) on a ",
                              "vocabulary of %s words in %s documents"),
                       format_count(chains), as.integer(K), format_count(corpus$W),
                       format_count(corpus$D)),
               "use fewer topics, a smaller vocabulary, fewer documents or fewer `chains`")
}

# New documents on the vocabulary of a fit (predict(), perplexity()): when
# both the fit and `newdata` name their terms, terms are matched by name and
# terms the fit never saw are dropped (with a warning); otherwise word ids
# (columns) must lie in the fit's vocabulary. Documents may be left without
# any known word (predict() gives them the prior mean).
lda_new_corpus <- function(fit, newdata, arg = "newdata") {
  W <- fit$data$W
  vocab <- fit$data$vocab
  trip <- lda_triplets(newdata, arg)
  if (is.null(trip)) {
    cp <- lda_corpus_list(newdata, NULL, arg, allow_empty = TRUE)
    if (cp$W > W)
      stop_input(sprintf("`%s` must use the vocabulary of the fit (%d words); it uses word id %d.",
                         arg, W, cp$W), arg)
    cp$W <- W
    cp$vocab <- vocab
    return(cp)
  }
  lda_check_counts(trip$v, arg)    # (NA counts of unknown terms too)
  if (!is.null(vocab) && !is.null(trip$terms)) {
    pos <- match(trip$terms, vocab)
    unseen <- is.na(pos[trip$j]) & trip$v != 0
    if (any(unseen))
      warn(sprintf("Terms of `%s` not in the vocabulary of the fit were ignored (%d terms, %s tokens).",
                   arg, length(unique(trip$j[unseen])), format(sum(trip$v[unseen]))),
           "mcmix_warning_vocabulary")   # R/conditions.R
    keep <- !is.na(pos[trip$j])
    trip$i <- trip$i[keep]
    trip$j <- pos[trip$j[keep]]
    trip$v <- trip$v[keep]
  } else if (trip$W != W) {
    stop_input(sprintf(paste0("`%s` must use the vocabulary of the fit (%d words, in ",
                              "its column order); it has %d columns."), arg, W, trip$W), arg)
  }
  trip$W <- W
  trip$terms <- vocab
  lda_corpus_counts(trip, vocab, arg, allow_empty = TRUE)
}
