# LDA over shards of documents (R/lda_sharded.R, src/shard_lda.c): the
# sampler (AD-LDA) against the exact stationary distribution of its own
# transition kernel, enumerated in R from its definition (and, with one
# shard, against the exact posterior of z); the state against the exact
# counts and log p(w, z) of the topics it holds; identical draws for 1, 2
# and 3 PSOCK workers and in process; shard sources, faults, Ctrl-C.

# A synthetic corpus: 3 topics of 10 words each, 60 documents.
lda_sharded_docs <- function(D = 60L, len = 20L) {
  set.seed(1)
  lapply(seq_len(D), function(d) {
    k <- d %% 3L
    sort(sample(c(k * 10L + 1:10, sample(30L, 3L)), len, replace = TRUE))
  })
}

lda_sharded_fit <- function(data, shards, cl = NULL, iter = 30L, seed = 2, ...) {
  set.seed(seed)
  suppressWarnings(sample_posterior(lda_model(K = 3, alpha = 0.5, beta = 0.1), data,
                                    cl = cl, shards = shards, iter = iter, burnin = 5L,
                                    progress = FALSE, ...))
}

# The topics held by the workers for the fit's last draw (0-based).
lda_sharded_z <- function(fit, chain = 1L) {
  h <- fit$data$handle
  h$chain <- chain
  unlist(mcmix:::shard_call(h, "lda_z", list(version = fit$chains[[chain]]$state$version)))
}

# The transition probability of AD-LDA from z to zn (both 1-based), from
# its definition: every shard sweeps its tokens in order, each drawn from
# the collapsed conditional given the shard's tokens already swept (new
# topics) and every other token at its topic of the sweep's start.
adlda_transition <- function(z, zn, word, doc, shard, K, W, alpha, beta) {
  pr <- 1
  for (s in unique(shard)) {
    cur <- z
    for (t in which(shard == s)) {
      o <- seq_along(cur) != t
      nd <- tabulate(cur[o & doc == doc[t]], K)
      nw <- tabulate(cur[o & word == word[t]], K)
      nk <- tabulate(cur[o], K)
      p <- (nd + alpha) * (nw + beta) / (nk + W * beta)
      pr <- pr * p[zn[t]] / sum(p)
      cur[t] <- zn[t]
    }
  }
  pr
}

# The stationary distribution of that kernel over all K^N assignments.
adlda_stationary <- function(corpus, shard_of_doc, K, alpha, beta) {
  N <- length(corpus$word)
  doc <- rep(seq_len(corpus$D), diff(corpus$doc_start))
  shard <- shard_of_doc[doc]
  word <- corpus$word + 1L
  zs <- as.matrix(expand.grid(rep(list(seq_len(K)), N)))
  P <- matrix(0, nrow(zs), nrow(zs))
  for (a in seq_len(nrow(zs))) for (b in seq_len(nrow(zs)))
    P[a, b] <- adlda_transition(zs[a, ], zs[b, ], word, doc, shard, K, corpus$W, alpha, beta)
  e <- eigen(t(P))
  v <- Re(e$vectors[, which.max(Re(e$values))])
  list(zs = zs, post = v / sum(v))
}

# Sweep the sharded chain of `fit` n times, the assignment after each as
# its row of expand.grid(1:K, ...).
adlda_keys <- function(fit, n) {
  sd <- fit$data
  h <- sd$handle
  h$chain <- 1L
  state <- fit$chains[[1L]]$state
  K <- sd$K
  key <- integer(n)
  for (g in seq_len(n)) {
    state <- mcmix:::lda_sharded_sweep(h, sd, state, FALSE)$state
    z <- unlist(mcmix:::shard_call(h, "lda_z", list(version = state$version)))
    key[g] <- sum(z * K^(seq_along(z) - 1L)) + 1L
  }
  key
}

test_that("the sharded sampler has the stationary law of AD-LDA, and with one shard the exact posterior", {
  skip_on_cran()
  docs <- list(c(1, 1, 2), c(2, 3), c(1, 3))
  K <- 2; alpha <- 0.6; beta <- 0.4
  m <- lda_model(K, alpha = alpha, beta = beta)
  corpus <- mcmix:::lda_corpus(docs, NULL)
  exact <- mh_exact_posterior(corpus, K, alpha, beta)          # helper-lda.R
  one <- adlda_stationary(corpus, c(1, 1, 1), K, alpha, beta)
  # (the reference itself: one shard is collapsed Gibbs)
  expect_lt(max(abs(one$post - exact$post)), 1e-10)
  two <- adlda_stationary(corpus, c(1, 2, 2), K, alpha, beta)
  # the approximation is visible on so small a corpus
  expect_gt(0.5 * sum(abs(two$post - exact$post)), 0.01)
  for (s in 1:2) {
    set.seed(20 + s)
    fit <- sample_posterior(m, docs, shards = s, iter = 1L, burnin = 0L, progress = FALSE)
    expect_identical(fit$data$docs, if (s == 1) 3 else c(1, 2))
    key <- adlda_keys(fit, 20000L)
    mh_expect_exact(if (s == 1) exact else two, key, label = sprintf("%d shards: ", s))
  }
})

test_that("the session's counts and log_lik are those of the topics on the shards", {
  skip_on_cran()
  docs <- lda_sharded_docs()
  fit <- lda_sharded_fit(docs, 3L)
  expect_s3_class(fit, "mcmix_lda_sharded_fit")
  corpus <- mcmix:::lda_corpus(docs, NULL)
  z <- lda_sharded_z(fit)
  st <- fit$chains[[1]]$state
  nwk <- matrix(tabulate(z + 1L + 3L * corpus$word, 3L * corpus$W), 3L)
  expect_identical(st$nwk, nwk)
  ll <- as.matrix(fit)[, "log_lik"]
  expect_equal(ll[length(ll)], mcmix:::lda_log_joint(fit$model, corpus, z), tolerance = 1e-12)
  # the topics are found (each of the three word groups in one topic)
  tw <- topic_word(fit)
  expect_equal(unname(rowSums(tw)), rep(1, 3))
  groups <- apply(tw, 1, function(p) which.max(tapply(p, rep(1:3, each = 10), sum)))
  expect_setequal(groups, 1:3)
  th <- doc_topic(fit)
  expect_identical(dim(th), c(60L, 3L))
  expect_equal(unname(rowSums(th)), rep(1, 60))
  expect_true(all(apply(th, 1, max) > 0.6))
  expect_identical(dim(top_terms(fit, 4)), c(4L, 3L))
  pp <- perplexity(fit, docs[1:6])
  expect_true(is.finite(pp) && pp < 30)
  expect_identical(dim(predict(fit, docs[1:2], iter = 20)), c(2L, 3L))
  expect_error(perplexity(fit), "newdata", class = "mcmix_error_input")
  expect_output(suppressWarnings(print(fit)), "3 shards")
  # a vocabulary swept in several ranges of word ids (segment order)
  set.seed(5)
  big <- lapply(1:40, function(d) sort(sample(6000L, 30L, replace = TRUE)))
  expect_gt(mcmix:::lda_word_groups(6000L, 100L), 1L)
  set.seed(6)
  fb <- suppressWarnings(sample_posterior(lda_model(K = 100), big, vocab = as.character(1:6000),
                                          shards = 3, iter = 3, burnin = 0, progress = FALSE))
  cb <- mcmix:::lda_corpus(big, as.character(1:6000))
  zb <- lda_sharded_z(fb)
  expect_identical(fb$chains[[1]]$state$nwk,
                   matrix(tabulate(zb + 1L + 100L * cb$word, 100L * 6000L), 100L))
  llb <- as.matrix(fb)[, "log_lik"]
  expect_equal(llb[3], mcmix:::lda_log_joint(fb$model, cb, zb), tolerance = 1e-12)
})

test_that("sharded LDA draws are identical for 1, 2 and 3 PSOCK workers and in process", {
  skip_on_cran()
  docs <- lda_sharded_docs()
  ref <- lda_sharded_fit(docs, 4L)
  expect_gt(length(unique(as.matrix(ref)[, "log_lik"])), 5)
  cl <- shard_test_cluster(3L)
  on.exit(parallel::stopCluster(cl))
  for (w in 1:3) {
    f <- lda_sharded_fit(docs, 4L, cl = cl[seq_len(w)])
    expect_identical(as.matrix(f), as.matrix(ref), label = sprintf("traces on %d workers", w))
    expect_identical(topic_word(f), topic_word(ref))
    expect_identical(doc_topic(f), doc_topic(ref))
  }
  # extend() on the same workers equals one longer run
  f <- lda_sharded_fit(docs, 4L, cl = cl[1:2], iter = 20L)
  f <- extend(f, iter = 10L)
  expect_identical(as.matrix(f), as.matrix(ref))
  expect_identical(topic_word(f), topic_word(ref))
  expect_identical(doc_topic(f), doc_topic(ref))
})

test_that("corpora load from shard sources on the workers; a failing shard is named", {
  skip_on_cran()
  docs <- lda_sharded_docs()
  vocab <- sprintf("w%02d", 1:30)
  dtm <- matrix(0, length(docs), 30, dimnames = list(sprintf("d%d", seq_along(docs)), vocab))
  for (d in seq_along(docs)) for (w in docs[[d]]) dtm[d, w] <- dtm[d, w] + 1
  ref <- lda_sharded_fit(dtm, 3L)
  src <- mcmix:::lda_source_corpus(mcmix:::lda_corpus(dtm, NULL), 3L)
  dir <- tempfile("mcmix-lda-shards")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  paths <- file.path(dir, sprintf("s%d.rds", 1:3))
  for (i in 1:3) saveRDS(dtm[src$first[i]:src$last[i], , drop = FALSE], paths[i])
  a <- lda_sharded_fit(shard_source(paths), NULL)
  expect_identical(as.matrix(a), as.matrix(ref))
  expect_identical(topic_word(a), topic_word(ref))
  expect_identical(rownames(doc_topic(a)), rownames(dtm))
  # terms matched by name: shards with their columns in another order, one
  # with only the terms it uses, a vocabulary given
  b_paths <- file.path(dir, sprintf("b%d.rds", 1:3))
  for (i in 1:3) {
    x <- dtm[src$first[i]:src$last[i], , drop = FALSE]
    x <- x[, rev(seq_len(30)), drop = FALSE]
    if (i == 2) x <- x[, colSums(x) > 0, drop = FALSE]
    saveRDS(x, b_paths[i])
  }
  b <- lda_sharded_fit(shard_source(b_paths), NULL, vocab = vocab)
  expect_identical(as.matrix(b), as.matrix(ref))
  # a list of word ids per shard from a function
  f <- lda_sharded_fit(shard_source(fun = function(i) docs[(i - 1) * 20 + 1:20], n = 3), NULL)
  expect_identical(f$data$N, ref$data$N)
  e <- tryCatch(lda_sharded_fit(shard_source(c(paths[1], file.path(dir, "none.rds"))), NULL),
                error = function(e) e)
  expect_s3_class(e, "mcmix_error_shard")
  expect_identical(e$shard, 2L)
  e <- tryCatch(lda_sharded_fit(shard_source(fun = function(i) list("a", "b"), n = 2), NULL),
                error = function(e) e)
  expect_s3_class(e, "mcmix_error_shard")
  expect_error(lda_sharded_fit(docs, 2L, algorithm = "dense"), "algorithm",
               class = "mcmix_error_input")
  expect_error(lda_sharded_fit(docs, 200L), "shards", class = "mcmix_error_input")
  expect_error(lda_sharded_fit(docs, 2L, cores = 2), "cores", class = "mcmix_error_input")
  expect_error(lda_sharded_fit(shard_source(paths), 2L), "shards", class = "mcmix_error_input")
})

test_that("a killed worker ends a sharded LDA run with a classed error; extend() continues on a new cluster", {
  skip_on_cran()
  skip_on_os("windows")
  docs <- lda_sharded_docs()
  r <- shard_kill_and_continue(function(cl) lda_sharded_fit(docs, 3L, cl = cl, iter = 10L),
                               "mcmix_lda_sharded_fit")    # helper-shard.R
  on.exit(parallel::stopCluster(r$cl))
  expect_error(doc_topic(r$e$fit), "gone", class = "mcmix_error_input")
  # the continued chain's state is that of its topics
  g <- r$g
  z <- lda_sharded_z(g)
  corpus <- mcmix:::lda_corpus(docs, NULL)
  expect_identical(g$chains[[1]]$state$nwk, matrix(tabulate(z + 1L + 3L * corpus$word, 90L), 3L))
  expect_identical(dim(doc_topic(g)), c(60L, 3L))
})

test_that("Ctrl-C returns the sweeps done of a sharded LDA run, and extend() then equals one longer run", {
  skip_on_cran()
  skip_on_os("windows")
  docs <- lda_sharded_docs()
  ref <- lda_sharded_fit(docs, 3L, iter = 5000L)
  job <- parallel::mcparallel({
    cmd <- sprintf("sleep 2; kill -INT %d", Sys.getpid())
    system2("sh", c("-c", shQuote(cmd)), wait = FALSE)
    f <- lda_sharded_fit(docs, 3L, iter = 5000L)
    list(n = nrow(as.matrix(f)), interrupted = f$interrupted,
         done = suppressWarnings(extend(f, iter = 0L)))
  }, silent = TRUE)
  r <- parallel::mccollect(job, wait = TRUE, timeout = 300)[[1L]]
  expect_true(is.list(r), label = paste("the interrupted run returned:", format(r)[1L]))
  expect_true(r$interrupted)
  expect_lt(r$n, 5000L)
  expect_identical(as.matrix(r$done), as.matrix(ref))
  expect_identical(topic_word(r$done), topic_word(ref))
})
