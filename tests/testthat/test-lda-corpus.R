# LDA corpora (R/lda_corpus.R): every input form of one corpus gives the
# same tokens and the same draws; names are carried into the accessors;
# weighted or malformed matrices are refused; predict() on new documents
# (R/lda_predict.R) against the exact fold-in posterior.

# A small corpus as a dense count matrix with names (D = 7 documents, so a
# DocumentTermMatrix has more than 6, the size at which it used to be
# misread as a list of documents), plus an empty document.
lda_test_dtm <- function() {
  set.seed(100)
  x <- matrix(rpois(7 * 6, 1.2), 7, 6,
              dimnames = list(paste0("doc", 1:7), c("apple", "bean", "corn", "date", "egg", "fig")))
  x[4, ] <- 0
  x[1, 1] <- 3
  x
}

# The same counts as a hand-made slam simple_triplet_matrix (no slam needed).
as_stm <- function(x, weighting = NULL, cls = "simple_triplet_matrix") {
  nz <- which(x != 0, arr.ind = TRUE)
  o <- sample.int(nrow(nz))                   # entries in any order
  out <- structure(list(i = unname(nz[o, 1L]), j = unname(nz[o, 2L]), v = x[nz][o],
                        nrow = nrow(x), ncol = ncol(x), dimnames = dimnames(x)),
                   class = cls)
  if (!is.null(weighting)) attr(out, "weighting") <- weighting
  out
}

lda_run <- function(data, ...) {
  set.seed(3)
  sample_posterior(lda_model(K = 3, alpha = 0.4, beta = 0.3), data, iter = 30,
                   burnin = 5, progress = FALSE, ...)
}

test_that("one corpus in every form gives the same tokens and identical draws", {
  x <- lda_test_dtm()
  ref <- mcmix:::lda_corpus(x, NULL)
  # tokens: document by document, terms in column order
  tok <- lapply(seq_len(nrow(x)), function(d) rep(seq_len(ncol(x)), x[d, ]))
  expect_equal(ref$word + 1L, unlist(tok))
  expect_equal(diff(ref$doc_start), as.integer(rowSums(x)))
  expect_identical(ref$vocab, colnames(x))
  expect_identical(ref$doc_names, rownames(x))
  base <- lda_run(x)
  for (alg in c("sparse", "dense")) {
    b <- lda_run(x, algorithm = alg)
    forms <- list(
      dgC = Matrix::Matrix(x, sparse = TRUE),
      dgT = methods::as(Matrix::Matrix(x, sparse = TRUE), "TsparseMatrix"),
      dgR = methods::as(Matrix::Matrix(x, sparse = TRUE), "RsparseMatrix"),
      dge = Matrix::Matrix(x, sparse = FALSE),
      stm = as_stm(x),
      dtm_by_hand = as_stm(x, c("term frequency", "tf"),
                           c("DocumentTermMatrix", "simple_triplet_matrix")),
      list = stats::setNames(tok, rownames(x)))
    for (nm in names(forms)) {
      f <- if (nm == "list") lda_run(forms[[nm]], vocab = colnames(x), algorithm = alg)
           else lda_run(forms[[nm]], algorithm = alg)
      expect_identical(f$chains, b$chains, info = paste(alg, nm))
      expect_identical(dimnames(topic_word(f)), dimnames(topic_word(b)), info = nm)
      expect_identical(dimnames(doc_topic(f)), dimnames(doc_topic(b)), info = nm)
    }
  }
  expect_identical(lda_run(x, algorithm = "sparse")$chains, base$chains)
  # names reach the accessors
  expect_identical(colnames(topic_word(base)), colnames(x))
  expect_identical(rownames(doc_topic(base)), rownames(x))
  expect_true(all(top_terms(base, n = 2) %in% colnames(x)))
  # the empty document keeps the prior mean of theta
  expect_equal(unname(doc_topic(base)[4, ]), rep(1 / 3, 3))
})

test_that("the order of the tokens within a document does not change the draws", {
  x <- lda_test_dtm()
  tok <- lapply(seq_len(nrow(x)), function(d) rep(seq_len(ncol(x)), x[d, ]))
  set.seed(41)
  shuffled <- lapply(tok, function(w) w[sample.int(length(w))])
  reversed <- lapply(tok, rev)
  expect_false(identical(shuffled, tok))
  # the corpus read from any order is the canonical one (ids increasing)
  ref <- mcmix:::lda_corpus(x, NULL)
  for (f in list(shuffled, reversed)) {
    cp <- mcmix:::lda_corpus(f, colnames(x))
    expect_identical(cp$word, ref$word)
    expect_identical(cp$doc_start, ref$doc_start)
  }
  for (alg in c("sparse", "dense", "blocked")) {
    b <- lda_run(x, algorithm = alg)
    expect_identical(lda_run(shuffled, vocab = colnames(x), algorithm = alg)$chains,
                     b$chains, info = alg)
    expect_identical(lda_run(reversed, vocab = colnames(x), algorithm = alg)$chains,
                     b$chains, info = alg)
  }
  # held-out perplexity and predict() do not depend on the order either
  fit <- lda_run(x)
  expect_identical(perplexity(fit, shuffled), perplexity(fit, x))
  set.seed(2); p1 <- predict(fit, unname(shuffled))
  set.seed(2); p2 <- predict(fit, unname(x))
  expect_identical(p1, p2)
})

test_that("a quanteda dfm (a dgCMatrix subclass) is read as its counts", {
  e <- new.env()
  methods::setClass("dfm", contains = "dgCMatrix", slots = c(meta = "list"), where = e)
  x <- lda_test_dtm()
  dfm <- methods::new("dfm", Matrix::Matrix(x, sparse = TRUE),
                      meta = list(object = list(weight_tf = list(scheme = "count"))))
  expect_identical(lda_run(dfm)$chains, lda_run(x)$chains)
  dfm@meta$object$weight_tf$scheme <- "prop"
  expect_error(lda_run(dfm), "weighted by \"prop\"", class = "mcmix_error_input")
})

test_that("slam and tm matrices, term-document matrices included", {
  require_suggested("slam")
  require_suggested("tm")
  x <- lda_test_dtm()
  base <- lda_run(x)
  expect_identical(lda_run(slam::as.simple_triplet_matrix(x))$chains, base$chains)
  dtm <- tm::as.DocumentTermMatrix(slam::as.simple_triplet_matrix(x), weighting = tm::weightTf)
  f <- lda_run(dtm)
  expect_identical(f$chains, base$chains)
  expect_identical(rownames(doc_topic(f)), rownames(x))
  expect_identical(colnames(topic_word(f)), colnames(x))
  tdm <- tm::as.TermDocumentMatrix(slam::as.simple_triplet_matrix(t(x)), weighting = tm::weightTf)
  expect_identical(lda_run(tdm)$chains, base$chains)
  # a DocumentTermMatrix built by tm from text
  txt <- c(a = "corn bean corn", b = "fig egg egg fig", c = "corn fig", d = "bean bean",
           e = "egg", f = "corn corn bean", g = "fig fig egg")
  dtm2 <- tm::DocumentTermMatrix(tm::VCorpus(tm::VectorSource(txt)))
  f2 <- lda_run(dtm2)
  expect_equal(f2$data$D, 7L)
  expect_setequal(colnames(topic_word(f2)), c("bean", "corn", "egg", "fig"))
  expect_equal(length(f2$data$word), 18L)
  expect_error(lda_run(tm::weightTfIdf(dtm2)), "weightTf", class = "mcmix_error_input")
})

test_that("texts are refused with how to make a document-term matrix, not printed", {
  require_suggested("tm")
  long <- paste(rep("a rather long sentence of the first document", 40), collapse = " ")
  txt <- c(long, "corn bean corn", "fig egg egg fig", "corn fig", "bean bean", "egg")
  for (data in list(txt, as.list(txt), tm::VCorpus(tm::VectorSource(txt)),
                    structure(txt, class = c("corpus", "character")))) {
    e <- expect_error(lda_run(data), class = "mcmix_error_input")
    expect_match(conditionMessage(e), "tm::DocumentTermMatrix(", fixed = TRUE)
    expect_match(conditionMessage(e), "quanteda::dfm(", fixed = TRUE)
    expect_match(conditionMessage(e), "text2vec", fixed = TRUE)
    expect_false(grepl("sentence|corn", conditionMessage(e)))
    expect_identical(e$arg, "data")
  }
  expect_error(lda_run(txt), "is a character vector of 6 texts")
  expect_error(lda_run(tm::VCorpus(tm::VectorSource(txt))),
               "is a tm VCorpus; .* made from it with tm::DocumentTermMatrix\\(data\\)")
  expect_error(lda_run(structure(txt, class = c("corpus", "character"))),
               "quanteda corpus; .* from it with quanteda::dfm\\(quanteda::tokens\\(data\\)\\)")
  # values in other messages: the first few, each cut short, and how many more
  d <- mcmix:::describe_value(c(long, letters))
  expect_identical(d, sprintf("c(\"%s...\", \"a\", \"b\", \"c\", \"d\", ... and 22 more)",
                              substr(long, 1, 27)))
  expect_identical(mcmix:::describe_value(1:5), "c(1, 2, 3, 4, 5)")
})

test_that("weighted, negative, missing or malformed counts are refused naming `data`", {
  x <- lda_test_dtm()
  expect_error(lda_run(as_stm(x, c("term frequency - inverse document frequency", "tf-idf"))),
               "weighted by", class = "mcmix_error_input")
  y <- x / 2
  for (bad in list(y, Matrix::Matrix(y, sparse = TRUE), as_stm(y)))
    expect_error(lda_run(bad), "whole-number counts", class = "mcmix_error_input")
  y <- x; y[2, 2] <- -1
  expect_error(lda_run(Matrix::Matrix(y, sparse = TRUE)), "`data`", class = "mcmix_error_input")
  y <- x; y[2, 2] <- NA
  expect_error(lda_run(y), "missing", class = "mcmix_error_input")
  expect_error(lda_run(Matrix::Matrix(y, sparse = TRUE)), "`data`", class = "mcmix_error_input")
  s <- as_stm(x); s$i[1] <- 99L
  expect_error(lda_run(s), "simple_triplet_matrix", class = "mcmix_error_input")
  expect_error(lda_run(Matrix::Matrix(0, 3, 4, sparse = TRUE)), "at least one word",
               class = "mcmix_error_input")
  expect_error(lda_run(Matrix::Matrix(x, sparse = TRUE), vocab = letters[1:3]), "`vocab`",
               class = "mcmix_error_input")
  expect_error(lda_run(x, algorithm = "warp"), "`algorithm`", class = "mcmix_error_input")
  expect_error(lda_run(data.frame(a = 1)), "`data`", class = "mcmix_error_input")
  # the memory budget is checked before the counts are expanded to tokens
  big <- Matrix::sparseMatrix(i = 1:2, j = 1:2, x = c(1e9, 3))
  expect_error(lda_run(big), "mcmix.lda_max_bytes", class = "mcmix_error_input")
  expect_error(lda_run(as_stm(as.matrix(big))), "mcmix.lda_max_bytes",
               class = "mcmix_error_input")
})

# E[theta | w, phi] for one document by enumeration of its topics z:
# p(z | w, phi) propto prod_i phi[z_i, w_i] * DirMult(z; alpha), and
# E[theta_k | z] = (n_k + alpha) / (n + K alpha).
fold_in_exact <- function(phi, w, alpha) {
  K <- nrow(phi); n <- length(w)
  zs <- as.matrix(expand.grid(rep(list(seq_len(K)), n)))
  lp <- apply(zs, 1, function(z) {
    nk <- tabulate(z, K)
    sum(log(phi[cbind(z, w)])) + sum(lgamma(nk + alpha)) - lgamma(n + K * alpha)
  })
  p <- exp(lp - max(lp)); p <- p / sum(p)
  colSums(p * t(apply(zs, 1, function(z) (tabulate(z, K) + alpha) / (n + K * alpha))))
}

test_that("predict() folds new documents in: the exact posterior mean of theta given phi", {
  x <- lda_test_dtm()
  fit <- lda_run(x)
  phi <- topic_word(fit)
  new <- list(first = c(1, 1, 3, 6), second = c(2, 5, 5))
  set.seed(9)
  th <- predict(fit, new, iter = 20000, burnin = 100)
  expect_identical(dimnames(th), list(c("first", "second"), c("topic1", "topic2", "topic3")))
  expect_equal(unname(rowSums(th)), c(1, 1), tolerance = 1e-12)
  for (d in 1:2) {
    ex <- fold_in_exact(phi, new[[d]], fit$model$alpha)
    # the Monte Carlo standard error of 20000 correlated sweeps is below 0.005
    expect_lt(max(abs(th[d, ] - ex)), 0.02)
  }
  # the same documents in any form give the same values for a seed
  m <- matrix(0, 2, 6, dimnames = list(c("first", "second"), colnames(x)))
  for (d in 1:2) m[d, ] <- tabulate(new[[d]], 6)
  one <- function(nd) { set.seed(10); predict(fit, nd, iter = 50) }
  ref <- one(new)
  expect_identical(one(m), ref)
  expect_identical(one(Matrix::Matrix(m, sparse = TRUE)), ref)
  sm <- as_stm(m)
  expect_identical(one(sm), ref)
  # columns matched by name; unknown terms dropped with a warning
  perm <- cbind(m[, 6:1], kiwi = c(2, 0))
  expect_warning(p2 <- one(perm), class = "mcmix_warning_vocabulary")
  expect_identical(p2, ref)
  # a document with no known token gets the prior mean
  expect_equal(unname(one(list(integer(0), 1:2))[1, ]), rep(1 / 3, 3))
  # bad input
  expect_error(predict(fit), "`newdata`", class = "mcmix_error_input")
  expect_error(predict(fit, list(c(1, 9))), "vocabulary", class = "mcmix_error_input")
  expect_error(predict(fit, unname(m[, 1:5])), "vocabulary", class = "mcmix_error_input")
  expect_error(predict(fit, new, iter = 0), "`iter`", class = "mcmix_error_input")
  expect_error(predict(fit, new, chain = 2), "`chain`", class = "mcmix_error_input")
  expect_error(predict(fit, new, bogus = 1), "`bogus`", class = "mcmix_error_input")
})

test_that("held-out perplexity takes every input form", {
  x <- lda_test_dtm()
  fit <- lda_run(x)
  held <- x[c(1, 2, 3), ]
  p <- perplexity(fit, held)
  expect_identical(perplexity(fit, Matrix::Matrix(held, sparse = TRUE)), p)
  expect_identical(perplexity(fit, as_stm(held)), p)
  tok <- lapply(1:3, function(d) rep(1:6, held[d, ]))
  expect_identical(perplexity(fit, tok), p)
  expect_identical(perplexity(fit, held[, 6:1]), p)     # matched by name
})
