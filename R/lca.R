# Latent class analysis: a mixture of products of categorical families
# (R/product_family.R) with a finite or Dirichlet process number of classes.

#' Latent class analysis
#'
#' Fits the latent class model (Lazarsfeld and Henry 1968; Goodman 1974):
#' the rows of a table of categorical variables are a mixture of classes
#' within which the variables are independent, each categorical with
#' class-specific probabilities. In Bayesian form each class's
#' probabilities have a Dirichlet(`prior`) prior, so the model is a
#' [finite_mixture()] (with `K` classes) or a [dp_mixture()] (`K = NULL`,
#' the number of classes inferred) of a [product_family()] of
#' [categorical_dirichlet()] parts, one per column. Missing answers (`NA`)
#' are integrated out.
#'
#' @param data A data frame (or matrix) of categorical variables: factors,
#'   character, logical, or whole-number codes.
#' @param K Number of classes, or `NULL` for a Dirichlet process mixture.
#' @param alpha Concentration of the class weights: the total of a
#'   symmetric Dirichlet prior for `K` classes, or the DP concentration (a
#'   number or a [gamma_prior()]).
#' @param prior Dirichlet parameter of the class-conditional probabilities.
#' @param ... Passed to [sample_posterior()] (`iter`, `chains`,
#'   `algorithm`, ...).
#' @return The fit (class `mcmix_lca_fit`, a mixture fit); [lca_probs()]
#'   summarises the class-conditional probabilities, [cluster_profiles()]
#'   gives them as a table.
#' @references Goodman, L. A. (1974). Exploratory latent structure analysis
#'   using both identifiable and unidentifiable models. *Biometrika* 61,
#'   215--231.
#' @examples
#' set.seed(1)
#' cls <- rep(1:2, each = 40)
#' df <- data.frame(q1 = ifelse(runif(80) < c(0.9, 0.2)[cls], "yes", "no"),
#'                  q2 = ifelse(runif(80) < c(0.8, 0.1)[cls], "yes", "no"),
#'                  q3 = sample(c("a", "b", "c"), 80, TRUE))
#' fit <- lca(df, K = 2, iter = 200, progress = FALSE)
#' lca_probs(fit)$mean$q1
#' @export
lca <- function(data, K = NULL, alpha = 1, prior = 1, ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  prior <- check_positive(prior, "prior")
  check_magnitude(prior, "prior")   # (categorical_dirichlet() would name its `alpha`)
  df <- product_data_frame(data)
  if (!ncol(df))
    stop_input("`data` must have at least one column (one categorical item).", "data")
  df[] <- lapply(names(df), function(nm) {
    v <- df[[nm]]
    if (is.factor(v)) return(v)
    if (is.logical(v) || is.numeric(v) && all(v[!is.na(v)] == round(v[!is.na(v)])))
      return(factor(v))
    stop(sprintf("`data` column `%s` must be categorical (a factor, character, logical or whole-number codes), not %s.",
                 nm, fam_type_label(v)), call. = FALSE)
  })
  parts <- stats::setNames(lapply(names(df), function(nm) categorical_dirichlet(alpha = prior)),
                           names(df))
  fam <- do.call(product_family, parts)
  model <- if (is.null(K)) dp_mixture(fam, alpha = alpha) else finite_mixture(fam, K = K, alpha = alpha)
  fit <- sample_posterior(model, df, ...)
  fit$call <- match.call()
  class(fit) <- c("mcmix_lca_fit", class(fit))
  fit
}

#' Class-conditional probabilities of a latent class model
#'
#' Summarises, for each class of the point estimate of the partition and
#' each variable, the posterior of the probability of each category (see
#' [cluster_profiles()] for how draws are matched to the classes).
#'
#' @param fit A fit from [lca()] (or any mixture fit with categorical
#'   parts).
#' @param ... Passed to [cluster_profiles()] (`estimate`, `level`, `draws`).
#' @return A list with `mean`, `sd`, `lower`, `upper` (each a list with one
#'   classes x categories matrix per variable), `sizes` (of the classes) and
#'   `profiles` (the [cluster_profiles()] table).
#' @examples
#' set.seed(2)
#' df <- data.frame(a = sample(c("x", "y"), 40, TRUE), b = sample(1:3, 40, TRUE))
#' fit <- lca(df, K = 2, iter = 100, progress = FALSE)
#' lca_probs(fit)$mean
#' @export
lca_probs <- function(fit, ...) {
  prof <- cluster_profiles(fit, ...)
  est <- attr(prof, "partition")
  prof <- prof[prof$parameter == "prob", , drop = FALSE]
  if (!nrow(prof))
    stop("`fit` must be a fit of lca() or a mixture with categorical parts.", call. = FALSE)
  C <- max(prof$cluster)
  one <- function(what) {
    lapply(stats::setNames(nm = unique(prof$column)), function(cl) {
      d <- prof[prof$column == cl, , drop = FALSE]
      cats <- unique(d$category)
      m <- matrix(NA_real_, C, length(cats), dimnames = list(paste0("class", seq_len(C)), cats))
      m[cbind(d$cluster, match(d$category, cats))] <- d[[what]]
      m
    })
  }
  sizes <- tabulate(est$labels, C)
  list(mean = one("mean"), sd = one("sd"), lower = one("lower"), upper = one("upper"),
       sizes = sizes, profiles = prof)
}
