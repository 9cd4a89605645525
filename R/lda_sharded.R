# LDA over shards of documents held by the workers of an R cluster
# (src/shard_lda.h has the sampler, AD-LDA, and why its draws do not depend
# on the workers; R/chains_shard.R the sharded layer it shares with the DP
# mixture). The session holds the vocabulary, the word-topic counts n_wk
# (K x W) and the running sum of the topics' posterior means; the tokens,
# their topics, the document-topic counts and the running sums of the
# documents' topic proportions stay on the workers. Per sweep each worker
# returns its shards' change of n_wk as sparse (index, change) pairs, and
# the next sweep's call carries the combined change to every worker.
#
# Consistency with the session (as for the DP mixture, R/mixture_sharded.R):
# a chain's state has a version (sweeps done). A worker keeps, per chain
# and shard, the topics of its version and the copy of the start of its
# last sweep (undo of a sweep the session did not record: an interrupt
# served as the sweep ended), and the word lists of its version (the
# combined change of the last sweep is applied by the next sweep's call,
# once). The documents' proportions of a kept draw are added by the next
# call (idempotent per version), so an undone sweep never adds them.

# --- the corpus on the workers -----------------------------------------------

# An in-memory corpus (lda_corpus()) as a source cut into `shards` runs of
# whole documents of about equal numbers of tokens (default: shards of
# getOption("mcmix.shard_tokens") tokens; a function of the corpus only).
lda_source_corpus <- function(corpus, shards = NULL) {
  N <- length(corpus$word)
  D <- corpus$D
  if (is.null(shards)) shards <- max(1, ceiling(N / mcmix_option("shard_tokens")))
  shards <- check_count_max(shards, "shards", 1L, D, "documents")
  ends <- integer()
  if (shards > 1L) {
    # the document end nearest to s N / S tokens, each shard at least one
    # document
    cum <- corpus$doc_start[-1L]
    target <- seq_len(shards - 1L) * N / shards
    j <- findInterval(target, cum)
    up <- pmin(j + 1L, D)
    ends <- ifelse(j >= 1L & abs(cum[pmax(j, 1L)] - target) <= abs(cum[up] - target), j, up)
    for (s in seq_along(ends)) {
      lo <- if (s > 1L) ends[s - 1L] + 1L else 1L
      ends[s] <- min(max(ends[s], lo), D - (shards - s))
    }
  }
  ends <- c(ends, D)
  structure(list(kind = "corpus", corpus = corpus, first = c(1L, ends[-shards] + 1L),
                 last = ends, n = shards), class = "mcmix_shard_source")
}

# The piece of shard i of an in-memory corpus source, sent to its worker.
lda_corpus_piece <- function(src, i) {
  cp <- src$corpus
  d <- src$first[i]:src$last[i]
  t0 <- cp$doc_start[src$first[i]]
  t1 <- cp$doc_start[src$last[i] + 1L]
  list(kind = "corpus", word = cp$word[seq.int(t0 + 1L, length.out = t1 - t0)],
       doc_start = cp$doc_start[c(d, src$last[i] + 1L)] - t0,
       docs = if (!is.null(cp$doc_names)) cp$doc_names[d], W = cp$W)
}

# The loader of a shard of documents: an in-memory piece, or any document
# form sample_posterior() reads (a list of word-id vectors, a matrix of
# counts, Matrix, simple_triplet_matrix / DocumentTermMatrix, dfm) from a
# source. Terms named by the shard are matched to the vocabulary later
# (op lda_vocab); the value: its documents, tokens, width and terms.
shard_loaders$corpus <- function(sh, src, i, args) {
  sh$src <- if (identical(src$kind, "files")) src else list(kind = src$kind)  # (errors)
  if (identical(src$kind, "corpus")) {
    sh$word <- src$word
    sh$doc_start <- src$doc_start
    sh$docs <- src$docs
    return(list(D = length(src$doc_start) - 1L, N = length(src$word), W = src$W, terms = NULL))
  }
  d <- shard_read(src, i)
  cp <- tryCatch({
    trip <- lda_triplets(d, "data")
    if (is.null(trip)) lda_corpus_list(d, NULL, "data", allow_empty = TRUE) else trip
  }, error = function(e) stop_shard(i, src, conditionMessage(e)))
  if (!is.null(cp$i)) {                      # counts: kept until the vocabulary is known
    lda_check_counts(cp$v, "data")
    sh$trip <- cp
    return(list(D = cp$D, N = sum(cp$v), W = cp$W, terms = cp$terms))
  }
  sh$word <- cp$word
  sh$doc_start <- as.integer(cp$doc_start)
  sh$docs <- cp$doc_names
  list(D = cp$D, N = length(cp$word), W = cp$W, terms = NULL)
}

# The shard's counts as tokens on the vocabulary (terms matched by name
# when both have names; unknown terms dropped and counted).
shard_ops$lda_vocab <- function(sh, a, st) {
  dropped <- 0
  if (!is.null(sh$trip)) {
    trip <- sh$trip
    if (!is.null(a$vocab) && !is.null(trip$terms)) {
      pos <- match(trip$terms, a$vocab)
      unseen <- is.na(pos[trip$j])
      dropped <- sum(trip$v[unseen])
      trip$i <- trip$i[!unseen]
      trip$j <- pos[trip$j[!unseen]]
      trip$v <- trip$v[!unseen]
    } else if (trip$W > a$W) {
      stop_shard(sh$id, sh$src,
                 sprintf("it has %d columns, more than the vocabulary's %d words", trip$W, a$W))
    }
    trip$W <- a$W
    cp <- lda_corpus_counts(trip, NULL, "data", allow_empty = TRUE)
    sh$word <- cp$word
    sh$doc_start <- as.integer(cp$doc_start)
    sh$docs <- cp$doc_names
    sh$trip <- NULL
  } else if (length(sh$word) && max(sh$word) >= a$W) {
    stop_shard(sh$id, sh$src,
               sprintf("it uses word id %d, beyond the vocabulary's %d words",
                       max(sh$word) + 1L, a$W))
  }
  list(N = length(sh$word), dropped = dropped)
}

# --- the workers' passes ------------------------------------------------------

# Settings of the C passes: c(K, W, alpha, beta, doc0, groups).
lda_shard_set <- function(sh, st)
  c(st$lda$K, st$lda$W, st$lda$alpha, st$lda$beta, sh$doc0, st$lda$groups)

# Settings of the word side's passes (no shard): c(K, W, alpha, beta, 0).
lda_words_set <- function(st) c(st$lda$K, st$lda$W, st$lda$alpha, st$lda$beta, 0)

# The number of ranges of word ids a shard's sweep visits one after the
# other (src/shard_lda.h): the word lists of a range within about 4 MB, so
# that they stay in cache while its tokens are swept (the partitioned
# sampler's gain, src/model_lda_sparse.c); a function of W and K only.
lda_word_groups <- function(W, K) as.integer(min(64, max(1, ceiling(8 * W * K / 2^22))))

# The chain's vectors of shard sh (list for the C glue; tokens in segment
# order).
lda_shard_vectors <- function(sh, ch) {
  c <- sh$lda[[ch]]
  if (is.null(c)) stop_sync()
  list(word = sh$word, doc_start = sh$doc_start, seg_doc = sh$seg_doc, seg_grp = sh$seg_grp,
       seg_end = sh$seg_end, z = c$z, zsnap = c$zsnap, ndk = c$ndk, dmask = c$dmask)
}

# The worker's change accumulator of chain ch (W x K integers).
lda_worker_acc <- function(st, ch) {
  w <- st$lda_words[[ch]]
  if (is.null(w)) {
    w <- st$lda_words[[ch]] <- new.env(parent = emptyenv())
  }
  if (is.null(w$acc)) w$acc <- integer(st$lda$K * st$lda$W)
  w$acc
}

shard_ops$lda_setup <- function(sh, a, st) {
  st$lda <- a$model
  sh$doc0 <- a$doc0[[as.character(sh$id)]]
  if (is.null(sh$perm)) {      # the tokens in segment order, once
    o <- .Call(C_ffi_lda_shard_order, sh$word, sh$doc_start, a$model$W, a$model$groups)
    sh$perm <- o$perm
    sh$word <- o$word
    sh$seg_doc <- o$seg_doc
    sh$seg_grp <- o$seg_grp
    sh$seg_end <- o$seg_end
  }
  NULL
}

# Topics drawn for every token of the worker's shards (uniform, or from
# the topics' word probabilities a$phi: a chain restarted from the
# session's counts); the worker's counts of them (sparse pairs).
shard_ops$lda_init <- function(st, ids, a) {
  ch <- as.character(a$chain)
  K <- st$lda$K
  acc <- lda_worker_acc(st, ch)
  for (i in ids) {
    sh <- st[[as.character(i)]]
    n <- length(sh$word)
    D <- length(sh$doc_start) - 1L
    c <- new.env(parent = emptyenv())
    c$z <- integer(n)
    c$zsnap <- integer(n)
    c$ndk <- integer(D * K)
    c$dmask <- double(D * ((K + 63L) %/% 64L))
    c$theta <- NULL
    if (is.null(sh$lda)) sh$lda <- list()
    sh$lda[[ch]] <- c
    v <- lda_shard_vectors(sh, ch)
    set <- lda_shard_set(sh, st)
    .Call(C_ffi_lda_shard_draw, v, set, a$seed, a$phi)
    .Call(C_ffi_lda_shard_count, v, set, acc)
    shard_set_version(sh, a, a$version)
    sh$snapv[[ch]] <- -1                      # (no sweep to undo)
    sh$tver[[ch]] <- a$version
  }
  .Call(C_ffi_lda_shard_take, acc, lda_words_set(st))
}
shard_ops_worker <- c(shard_ops_worker, "lda_init")

# The worker's word lists of chain a$chain from the session's counts.
shard_ops$lda_words <- function(st, ids, a) {
  ch <- as.character(a$chain)
  lda_worker_acc(st, ch)
  w <- st$lda_words[[ch]]
  w$words <- .Call(C_ffi_lda_shard_words, lda_words_set(st),
                   a$tok, a$idx, a$val)
  w$version <- a$version
  NULL
}
shard_ops_worker <- c(shard_ops_worker, "lda_words")

# The shards of the worker brought to the session's version a$version (a
# sweep it did not record undone), the pending documents' proportions of
# version a$theta_version added.
lda_shards_sync <- function(st, ids, a) {
  ch <- as.character(a$chain)
  for (i in ids) {
    sh <- st[[as.character(i)]]
    v <- lda_shard_vectors(sh, ch)
    set <- lda_shard_set(sh, st)
    if (!identical(shard_version(sh, a), a$version)) {
      if (!shard_ahead(sh, a)) stop_sync()
      .Call(C_ffi_lda_shard_undo, v, set)
      shard_set_version(sh, a, a$version)
    }
    if (!is.null(a$theta_version) && !identical(sh$tver[[ch]], a$theta_version)) {
      c <- sh$lda[[ch]]
      if (is.null(c$theta)) c$theta <- double(length(v$ndk))
      .Call(C_ffi_lda_shard_theta, v, set, c$theta)
      sh$tver[[ch]] <- a$theta_version
    }
  }
}

# One sweep of chain a$chain on the worker's shards: the last sweep's
# combined change applied to the word lists (once), every shard swept from
# them; the worker's change (sparse pairs) and, for a kept draw, each
# shard's documents' part of log p(w, z).
shard_ops$lda_sweep <- function(st, ids, a) {
  ch <- as.character(a$chain)
  w <- st$lda_words[[ch]]
  if (is.null(w$words)) stop_sync()
  lda_shards_sync(st, ids, a)
  if (!identical(w$version, a$version)) {
    if (!identical(w$version, a$version - 1) || is.null(a$delta)) stop_sync()
    .Call(C_ffi_lda_shard_apply, w$words, lda_words_set(st),
          a$delta$idx, a$delta$val)
    w$version <- a$version
  }
  ll <- numeric()
  for (i in ids) {
    sh <- st[[as.character(i)]]
    v <- lda_shard_vectors(sh, ch)
    set <- lda_shard_set(sh, st)
    sh$snapv[[ch]] <- a$version
    .Call(C_ffi_lda_shard_sweep, w$words, v, set, a$seed, w$acc)
    shard_set_version(sh, a, a$version + 1)
    if (isTRUE(a$keep)) ll[[as.character(i)]] <- .Call(C_ffi_lda_shard_log_docs, v, set)
  }
  list(change = .Call(C_ffi_lda_shard_take, w$acc, lda_words_set(st)), ll = ll)
}
shard_ops_worker <- c(shard_ops_worker, "lda_sweep")

# The shard's sums of the documents' proportions (after the pending ones
# were added) and its document names.
shard_ops$lda_theta <- function(st, ids, a) {
  lda_shards_sync(st, ids, a)
  lapply(ids, function(i) {
    sh <- st[[as.character(i)]]
    th <- sh$lda[[as.character(a$chain)]]$theta
    D <- length(sh$doc_start) - 1L
    list(theta = if (is.null(th)) double(D * st$lda$K) else th, docs = sh$docs, D = D)
  })
}
shard_ops_worker <- c(shard_ops_worker, "lda_theta")

# The topics of the shard (tests: the state against the exact counts).
shard_ops$lda_z <- function(st, ids, a) {
  lda_shards_sync(st, ids, a)
  lapply(ids, function(i) {
    sh <- st[[as.character(i)]]
    z <- integer(length(sh$perm))
    z[sh$perm + 1L] <- sh$lda[[as.character(a$chain)]]$z    # back to corpus order
    z
  })
}
shard_ops_worker <- c(shard_ops_worker, "lda_z")

# --- the session ---------------------------------------------------------------

# The counts plus the workers' changes (list of list(idx, val)).
lda_sharded_combine <- function(nwk, changes)
  .Call(C_ffi_lda_shard_combine, nwk, lapply(changes, `[[`, "idx"),
        lapply(changes, `[[`, "val"))

# A chain started (or restarted from the topics' word probabilities phi)
# at version `version`: topics drawn on the shards, counts gathered and the
# workers' word lists built from them. The state without the sums.
lda_sharded_start <- function(h, sd, chain, version, phi = NULL) {
  h$chain <- chain
  K <- sd$K
  res <- shard_call(h, "lda_init", list(seed = .Call(C_ffi_lda_shard_seed), phi = phi,
                                        version = version))
  cb <- lda_sharded_combine(matrix(0L, K, sd$W), res)
  nwk <- cb$nwk
  nz <- which(nwk != 0L)
  shard_call(h, "lda_words", list(tok = as.integer(colSums(nwk)), idx = as.integer(nz - 1L),
                                  val = nwk[nz], version = version))
  list(nwk = nwk, nk = cb$nk, version = version, delta = NULL, theta_version = NULL,
       theta_n = 0, chain = chain)
}

# One sweep; list(state, ll) (ll NA unless kept).
lda_sharded_sweep <- function(h, sd, state, keep) {
  out <- shard_call(h, "lda_sweep", list(
    version = state$version, delta = state$delta, theta_version = state$theta_version,
    seed = .Call(C_ffi_lda_shard_seed), keep = keep))
  cb <- lda_sharded_combine(state$nwk, lapply(out, `[[`, "change"))
  state$theta_n <- state$theta_n + !is.null(state$theta_version)
  state$nwk <- cb$nwk
  state$nk <- cb$nk
  state$delta <- list(idx = cb$idx, val = cb$val)
  state$version <- state$version + 1
  state$theta_version <- if (keep) state$version
  ll <- NA_real_
  if (keep) {
    docs <- unlist(lapply(out, `[[`, "ll"))
    docs <- docs[order(as.integer(names(docs)))]       # summed in shard order
    ll <- .Call(C_ffi_lda_shard_log_words, state$nwk, state$nk, sd$beta) + sum(docs)
    state$phi_sum <- .Call(C_ffi_lda_shard_phi, state$nwk, state$nk, sd$beta, state$phi_sum)
    state$n_draws <- state$n_draws + 1
  }
  list(state = state, ll = ll)
}

# The sharded corpus of a run: its source, the live handle, the shards'
# documents and tokens, the vocabulary. `vocab`/`W` fixed (a reload) or
# NULL (from the shards: their terms in order of first appearance, else
# the largest word id).
lda_sharded_data <- function(src, cl, model, vocab = NULL, W = NULL) {
  h <- shard_handle(cl, src, 1L)
  info <- shard_load(h, src, loader = "corpus")
  terms <- lapply(info, `[[`, "terms")
  named <- !vapply(terms, is.null, logical(1))
  if (is.null(W)) {
    if (is.null(vocab) && any(named)) {
      if (!all(named))
        stop_input(paste0("Some shards of `data` name their terms (columns) and others do not: ",
                          "give `vocab`, or names to every shard."), "data")
      vocab <- unique(unlist(terms, use.names = FALSE))
    }
    W <- if (!is.null(vocab)) length(vocab)
         else max(vapply(info, function(x) as.double(x$W), 0))
    if (W > lda_max_vocab)
      stop_input(sprintf("The vocabulary of `data` has %.0f words, more than %s.", W,
                         format(lda_max_vocab, scientific = FALSE)), "data")
  }
  W <- as.integer(W)
  res <- shard_call(h, "lda_vocab", list(vocab = vocab, W = W))
  n <- vapply(res, function(x) as.double(x$N), 0)
  dropped <- sum(vapply(res, function(x) as.double(x$dropped), 0))
  if (dropped > 0)
    warn(sprintf("Terms of `data` not in `vocab` were ignored (%.0f tokens).", dropped),
         "mcmix_warning_vocabulary")
  Ds <- vapply(info, function(x) as.double(x$D), 0)
  N <- sum(n)
  if (N < 1) stop_input("`data` must contain at least one word.", "data")
  # (counts of the session and totals per topic are C ints)
  lda_check_tokens(N)
  doc0 <- c(0, cumsum(Ds)[-length(Ds)])
  shard_live[[h$run]] <- TRUE
  structure(list(source = src, handle = h, n = n, N = N, D = sum(Ds), docs = Ds, W = W,
                 vocab = vocab, K = model$K, alpha = model$alpha, beta = model$beta,
                 doc0 = stats::setNames(as.list(doc0), as.character(seq_len(h$S)))),
            class = "mcmix_sharded_corpus")
}

#' @export
print.mcmix_sharded_corpus <- function(x, ...) {
  cat(sprintf("<mcmix sharded corpus> %.0f documents, %.0f tokens, vocabulary of %d words, in %d shards\n",
              x$D, x$N, x$W, length(x$n)))
  invisible(x)
}

# The run of sample_posterior(lda_model(...), data, cl = , shards = ).
lda_sharded_run <- function(model, data, vocab, cl, shards, iter, burnin, thin, chains,
                            progress, call) {
  src <- if (inherits(data, "mcmix_shard_source")) data
         else lda_source_corpus(lda_corpus(data, vocab, K = model$K), shards)
  if (inherits(data, "mcmix_shard_source") && !is.null(shards))
    stop_input("`shards` cuts in-memory documents; a shard_source() has its own shards.",
               "shards")
  if (!is.null(vocab) && (!is.character(vocab) || !length(vocab) || anyNA(vocab)))
    stop_input(sprintf("`vocab` must be a character vector of words, not %s.",
                       describe_value(vocab)), "vocab")
  cl <- shard_cluster(cl)
  sd <- lda_sharded_data(src, cl, model,
                         vocab = if (identical(src$kind, "corpus")) src$corpus$vocab else vocab,
                         W = if (identical(src$kind, "corpus")) src$corpus$W)
  check_budget((8 + 4 * 3) * as.double(model$K) * sd$W, "data",
               sprintf("the session's topic-word counts and sums (K = %d topics, %s words)",
                       model$K, format_count(sd$W)),
               "use fewer topics or a smaller vocabulary")
  kernel <- lda_sharded_kernel(model, sd)
  finish <- function(fit) {
    class(fit) <- unique(c("mcmix_lda_sharded_fit", "mcmix_sharded_fit", class(fit)))
    fit
  }
  fit <- withCallingHandlers(
    run_fit(kernel, iter = iter, burnin = burnin, thin = thin, chains = chains, cores = 1L,
            backend = "sequential", progress = progress, labels = FALSE, psm = FALSE,
            model = model, data = sd, call = call, kind = "lda"),
    mcmix_chain_error = function(e) {
      e$fit <- finish(e$fit)
      base::stop(e)
    })
  finish(fit)
}

lda_sharded_setup <- function(sd) {
  h <- sd$handle
  shard_call(h, "lda_setup", list(model = list(K = sd$K, W = sd$W, alpha = sd$alpha,
                                               beta = sd$beta,
                                               groups = lda_word_groups(sd$W, sd$K)),
                                  doc0 = sd$doc0))
  h$ready <- TRUE
}

lda_sharded_kernel <- function(model, sd) {
  step_on <- function(sd) {
    force(sd)
    function(state, n, thin, offset, warmup) {
      h <- sd$handle
      if (!isTRUE(h$ready)) lda_sharded_setup(sd)
      h$chain <- state$chain
      if (isTRUE(state$resync)) state <- lda_sharded_resync(sd, state)
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      tr <- matrix(NA_real_, length(keep), 1L, dimnames = list(NULL, "log_lik"))
      for (g in seq_len(n)) {
        kept <- g %in% keep
        # one sweep with interrupts held: the workers stay in step with the
        # session's state (an interrupt is served between sweeps)
        sw <- suspendInterrupts(lda_sharded_sweep(h, sd, state, kept))
        state <- sw$state
        if (kept) tr[match(g, keep), 1L] <- sw$ll
      }
      list(state = state, draws = list(traces = tr))
    }
  }
  init_on <- function(sd) {
    force(sd)
    function(chain) {
      h <- sd$handle
      if (!isTRUE(h$ready)) lda_sharded_setup(sd)
      st <- lda_sharded_start(h, sd, chain, 0)
      st$phi_sum <- matrix(0, sd$K, sd$W)
      st$n_draws <- 0
      st
    }
  }
  new_kernel("lda_sharded", init = function(chain) unbound_step(), step = unbound_step,
             trace_names = "log_lik", chunk_fixed = 1L, init_deferred = TRUE,
             bind = function(data) list(step = step_on(data), init = init_on(data)))
}

# A chain whose workers lost its topics: they are drawn again given the
# session's topics (n_wk + beta) / (n_k + W beta), and the counts gathered
# anew (a valid continuation, not the draws of an unbroken run).
lda_sharded_resync <- function(sd, state) {
  phi <- (state$nwk + sd$beta) / rep(state$nk + sd$W * sd$beta, sd$W)
  new <- lda_sharded_start(sd$handle, sd, state$chain, state$version, phi = phi)
  new$phi_sum <- state$phi_sum
  new$n_draws <- state$n_draws
  new
}

# The sharded corpus reloaded on cluster `cl` (extend()).
shard_reload.mcmix_sharded_corpus <- function(sd, cl) {
  new <- lda_sharded_data(sd$source, shard_cluster(cl),
                          list(K = sd$K, alpha = sd$alpha, beta = sd$beta),
                          vocab = sd$vocab, W = sd$W)
  if (!identical(new$n, sd$n))
    stop_input("The reloaded shards differ from those of the fit (their tokens).", "cl")
  new
}

shard_state_words.mcmix_sharded_corpus <- function(sd)
  c("the topics' word counts", "topics")

# The documents' proportions of a sharded fit collected from the workers.
lda_sharded_doc_topic <- function(fit, chain) {
  st <- lda_chain_state(fit, chain)
  sd <- fit$data
  h <- sd$handle
  if (!isTRUE(shard_live[[h$run]]) || isTRUE(h$dirty))
    stop_input(paste0("The workers of this sharded fit are gone: continue it with ",
                      "extend(fit, iter, cl = ) first."), "fit")
  check_budget(8 * as.double(sd$D) * sd$K, "fit",
               sprintf("the topic proportions of %s documents", format_count(sd$D)),
               fix = "keep them on the workers")
  h$chain <- chain
  if (!identical(shard_call(h, "version", list(version = st$version), ids = 1L)[[1L]],
                 st$version))
    stop_input(paste0("The workers' topics of this chain belong to a later fit (the fit was ",
                      "extended since): use the latest fit."), "fit")
  n <- st$theta_n + !is.null(st$theta_version)
  if (n < 1) stop_input("`fit` holds no kept draws yet (run extend()).", "fit")
  parts <- unlist(shard_call(h, "lda_theta", list(version = st$version,
                                                  theta_version = st$theta_version)),
                  recursive = FALSE)
  out <- do.call(rbind, lapply(parts, function(p) matrix(p$theta, p$D, sd$K))) / n
  docs <- lapply(parts, `[[`, "docs")
  dimnames(out) <- list(if (!any(vapply(docs, is.null, logical(1)))) unlist(docs),
                        lda_topic_names(sd$K))
  out
}
