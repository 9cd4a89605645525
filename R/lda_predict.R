# Topic proportions of new documents for an LDA fit by fold-in Gibbs
# sampling (src/model_lda_sparse.c, mcx_lda_fold_in(); glue
# ffi_lda_fold_in() in src/ffi_lda.c).

#' Topic proportions of new documents
#'
#' Estimates the topic proportions \eqn{\theta_d} of new documents with the
#' topics held fixed at the fit's posterior mean \eqn{\hat\phi}
#' ([topic_word()] of `chain`), by "folding in" (Griffiths and Steyvers 2004;
#' Wallach et al. 2009, section 4): for each document the topics of its
#' tokens are Gibbs-sampled from
#' \deqn{P(z_i = k \mid z_{-i}) \propto (n_{dk}^{-i} + \alpha)\,
#'   \hat\phi_{k w_i},}
#' starting from uniformly drawn topics; after `burnin` sweeps, the
#' conditional means \eqn{(n_{dk} + \alpha)/(n_d + K\alpha)} are averaged
#' over `iter` further sweeps. The result is the posterior mean of
#' \eqn{\theta_d} given the document and \eqn{\phi = \hat\phi}, up to Monte
#' Carlo error (it uses R's random number generator: call `set.seed()`
#' first for reproducible values). A document with no known token gets the
#' prior mean \eqn{1/K}.
#'
#' @param object A fit from [sample_posterior()] on an [lda_model()].
#' @param newdata New documents in any form `sample_posterior()` takes (a
#'   list of word-id vectors, or document-term counts as a matrix, `Matrix`,
#'   `simple_triplet_matrix` / `DocumentTermMatrix` or quanteda `dfm`).
#'   When the fit and `newdata` both name their terms, columns are matched
#'   by name and unknown terms are dropped with a warning; otherwise the
#'   word ids (columns) must be those of the fit.
#' @param chain Which chain's topics to use.
#' @param iter Number of fold-in sweeps averaged per document.
#' @param burnin Number of fold-in sweeps discarded first. `burnin + iter`
#'   is bounded by `getOption("mcmix.work_budget", 1e8)`, as the iterations
#'   of a chain are (see [run_kernel()]); the sweeps can be interrupted.
#' @param ... Unused; unknown arguments are refused.
#' @return A matrix of topic proportions, one row per new document (named
#'   after the documents when they have names), one column per topic; rows
#'   sum to 1.
#' @seealso [doc_topic()] for the fitted documents, [perplexity()] for the
#'   held-out perplexity of new documents.
#' @references Griffiths, T. L. and Steyvers, M. (2004). Finding scientific
#'   topics. *PNAS* 101, 5228--5235. Wallach, H. M., Murray, I.,
#'   Salakhutdinov, R. and Mimno, D. (2009). Evaluation methods for topic
#'   models. *ICML*, 1105--1112.
#' @examples
#' set.seed(4)
#' docs <- list(c(1, 1, 2, 1, 2), c(3, 3, 4, 4), c(4, 3, 3, 4, 3), c(1, 2, 2, 1))
#' fit <- sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
#'                         vocab = c("a", "b", "c", "d"), iter = 200,
#'                         progress = FALSE)
#' predict(fit, list(new1 = c(1, 2, 2), new2 = c(3, 4, 4, 4)))
#' @export
predict.mcmix_lda_fit <- function(object, newdata, chain = 1, iter = 200,
                                  burnin = floor(iter / 2), ...) {
  check_no_dots(...)
  if (missing(newdata))
    stop_input("`newdata` is missing: give the new documents.", "newdata")
  phi <- topic_word(object, chain)
  iter <- check_count(iter, "iter", 1L)
  burnin <- check_count(burnin, "burnin", 0L)
  check_total_iter(burnin, iter)
  # every document runs burnin + iter sweeps: bounded as the iterations of
  # a chain are (R/chains_budget.R)
  arg <- if (burnin > iter) "burnin" else "iter"
  check_work(as.double(burnin) + iter, arg,
             sprintf("%s fold-in sweeps (burn-in %s, kept %s)",
                     format_count(as.double(burnin) + iter), format_count(burnin),
                     format_count(iter)),
             fix = sprintf("lower `%s`", arg), per = "document")
  corpus <- lda_new_corpus(object, newdata)
  K <- nrow(phi)
  theta <- .Call(C_ffi_lda_fold_in, corpus$word, corpus$doc_start, unname(phi),
                 as.double(c(K, ncol(phi), object$model$alpha, burnin, iter)))
  dimnames(theta) <- list(corpus$doc_names, lda_topic_names(K))
  theta
}
