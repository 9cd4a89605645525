# The discrete component families (src/family_bernoulli_beta.c,
# src/family_categorical_dirichlet.c, src/family_poisson_gamma.c).

#' Bernoulli family with Beta priors
#'
#' Components for binary data: each of the D columns is an independent
#' Bernoulli variable given the cluster, with a Beta prior on its
#' probability:
#' \deqn{x_{ij} \mid p_j \sim \mathrm{Bernoulli}(p_j), \qquad
#'   p_j \sim \mathrm{Beta}(a_j, b_j).}
#' The data are a 0/1 (or logical) vector, matrix or data frame; factors
#' with two levels count as binary (the second level is 1).
#'
#' **Default prior, scaled to the data.** Left out (`NULL`), `a` and `b`
#' are derived when the model is fitted from the proportion of ones in
#' each column, smoothed by half an observation each way,
#' \eqn{\tilde p_j = (s_j + 1/2) / (n_j + 1)} (\eqn{s_j} ones among the
#' \eqn{n_j} observed values of column j):
#' \eqn{a_j = 2 \tilde p_j}, \eqn{b_j = 2 (1 - \tilde p_j)}. The prior has
#' the weight of two observations, like the uniform Beta(1, 1), but is
#' centred on the column's proportion, so a cluster is compared with the
#' table as a whole rather than with a coin toss. Give `a = 1, b = 1` for
#' the uniform prior.
#'
#' @param a,b Positive Beta shape parameters: numbers (used for every
#'   column) or vectors with one value per column, or `NULL` (both) for
#'   the data-scaled default above. Giving only one of them sets the other
#'   to 1.
#' @return An object of class `mcmix_family`. A component's parameter is
#'   the probability vector `prob` (length D).
#' @family component families
#' @examples
#' bernoulli_beta()
#' bernoulli_beta(a = 0.5, b = 0.5)
#' @export
bernoulli_beta <- function(a = NULL, b = NULL) {
  if (xor(is.null(a), is.null(b))) {
    if (is.null(a)) a <- 1 else b <- 1
  }
  if (!is.null(a)) fam_check_vector(a, "a", positive = TRUE)
  if (!is.null(b)) fam_check_vector(b, "b", positive = TRUE)
  fam_check_same_dim(list(a = a, b = b))
  new_builtin_family("bernoulli_beta", list(a = a, b = b), data_type = "binary")
}

#' Categorical family with a Dirichlet prior (Dirichlet-multinomial)
#'
#' Components for categorical data: each item falls in category k with
#' probability \eqn{p_k}, with \eqn{p \sim \mathrm{Dirichlet}(\alpha)}.
#'
#' The data are either one categorical observation per row -- a factor, a
#' character vector, or a vector of category numbers 1, ..., K (turned into
#' one-hot rows) -- or a matrix (or data frame) of counts, one row per
#' observation and one column per category. A row of counts
#' \eqn{x_i} is an observation of \eqn{m_i = \sum_k x_{ik}} items and its
#' likelihood is that of the *ordered sequence* of its items,
#' \eqn{\prod_k p_k^{x_{ik}}}, i.e. without the multinomial coefficient
#' (which does not depend on the parameters, so it changes no posterior).
#'
#' For a factor the categories are its levels (K = `nlevels`); for category
#' numbers K is the length of `alpha` when it has more than one element and
#' otherwise the largest number seen.
#'
#' **Default prior, scaled to the data.** Left out (`NULL`), `alpha` is
#' derived when the model is fitted from the frequencies of the categories,
#' smoothed by half an observation each,
#' \eqn{\tilde p_k = (n_k + 1/2) / (n + K/2)}: \eqn{\alpha_k = K \tilde p_k}.
#' The prior has the weight of K observations, like the uniform
#' Dirichlet(1, ..., 1), but is centred on the table's frequencies (a rare
#' category stays rare a priori in every cluster). Give `alpha = 1` for the
#' uniform prior.
#'
#' @param alpha Positive Dirichlet concentration: a number (used for every
#'   category) or a vector of length K, or `NULL` for the data-scaled
#'   default above.
#' @return An object of class `mcmix_family`. A component's parameter is
#'   the probability vector `prob` (length K).
#' @family component families
#' @examples
#' categorical_dirichlet()
#' categorical_dirichlet(alpha = c(1, 2, 1))
#' @export
categorical_dirichlet <- function(alpha = NULL) {
  if (!is.null(alpha)) fam_check_vector(alpha, "alpha", positive = TRUE)
  new_builtin_family("categorical_dirichlet", list(alpha = alpha),
                     data_type = "categorical")
}

#' Poisson family with Gamma priors
#'
#' Components for count data: each of the D columns is an independent
#' Poisson variable given the cluster, with a Gamma prior on its rate:
#' \deqn{x_{ij} \mid \lambda_j \sim \mathrm{Poisson}(\lambda_j), \qquad
#'   \lambda_j \sim \mathrm{Gamma}(a_j, b_j)}
#' (shape \eqn{a_j}, rate \eqn{b_j}, prior mean \eqn{a_j / b_j}).
#'
#' **Default prior, scaled to the data.** Left out (`NULL`), `rate` is
#' derived when the model is fitted so that the prior mean of each rate is
#' the column's mean \eqn{\bar x_j}: \eqn{b_j = a_j / \bar x_j} (and
#' \eqn{b_j = a_j} for a column of zeros). With the default `shape = 1`
#' the prior is exponential with mean \eqn{\bar x_j}: its standard
#' deviation equals its mean, so it is weak on the column's own scale
#' (a Gamma(1, 1) prior on counts in the thousands would make a new
#' cluster all but impossible).
#'
#' @param shape,rate Positive numbers (used for every column) or vectors
#'   with one value per column; `rate = NULL` is the data-scaled default
#'   above.
#' @return An object of class `mcmix_family`. A component's parameter is
#'   the rate vector `rate` (length D).
#' @family component families
#' @examples
#' poisson_gamma()
#' poisson_gamma(shape = 2, rate = 0.5)
#' @export
poisson_gamma <- function(shape = 1, rate = NULL) {
  fam_check_vector(shape, "shape", positive = TRUE)
  if (!is.null(rate)) fam_check_vector(rate, "rate", positive = TRUE)
  fam_check_same_dim(list(shape = shape, rate = rate))
  new_builtin_family("poisson_gamma", list(shape = shape, rate = rate),
                     data_type = "count")
}

# --- bernoulli_beta --------------------------------------------------------

# Logical columns and factors with at most two levels (the second level is
# 1) are binary data too.
family_convert.mcmix_family_bernoulli_beta <- function(family, data) {
  if (is.data.frame(data))
    data[] <- lapply(names(data), function(nm) product_binary(data[[nm]], nm))
  else if (is.factor(data)) data <- product_binary(data, "1")
  fam_numeric_matrix(data)
}
family_check_values.mcmix_family_bernoulli_beta <- function(family, x)
  fam_check_binary(x, "bernoulli_beta")

family_resolve.mcmix_family_bernoulli_beta <- function(family, x) {
  if (is.null(family$args$a)) {      # data-scaled default (see bernoulli_beta())
    p <- (colSums(x) + 0.5) / (nrow(x) + 1)
    family$args$a <- 2 * p
    family$args$b <- 2 * (1 - p)
  }
  fam_resolve_vectors(family, x, c("a", "b"))
}

family_hyper.mcmix_family_bernoulli_beta <- function(family)
  fam_hyper(family, c("a", "b"))

family_layout.mcmix_family_bernoulli_beta <- function(family) {
  D <- family$dim
  list(components = list(prob = D), size = 3L * D)
}

# --- categorical_dirichlet -------------------------------------------------

family_convert.mcmix_family_categorical_dirichlet <- function(family, data) {
  K <- family$dim
  if (is.null(K) && length(family$args$alpha) > 1L) K <- length(family$args$alpha)
  x <- fam_categorical_matrix(data, K, levels = family$levels)
  x
}

family_check_values.mcmix_family_categorical_dirichlet <- function(family, x)
  fam_check_counts(x, "categorical_dirichlet")

family_resolve.mcmix_family_categorical_dirichlet <- function(family, x) {
  K <- ncol(x)
  if (length(family$args$alpha) > 1L && length(family$args$alpha) != K)
    stop(sprintf("`alpha` has length %d but `data` has %d categories.",
                 length(family$args$alpha), K), call. = FALSE)
  if (is.null(family$args$alpha)) {  # data-scaled default (see categorical_dirichlet())
    n <- colSums(x)
    family$args$alpha <- K * (n + 0.5) / (sum(n) + K / 2)
  }
  family$args$alpha <- fam_recycle(family$args$alpha, K, "alpha", "categorie")
  if (!is.null(attr(x, "levels"))) family$levels <- attr(x, "levels")
  family$dim <- K
  family
}

family_hyper.mcmix_family_categorical_dirichlet <- function(family)
  as.double(family$args$alpha)

family_layout.mcmix_family_categorical_dirichlet <- function(family) {
  K <- family$dim
  list(components = list(prob = K), size = 2L * K)
}

# --- poisson_gamma ---------------------------------------------------------

family_convert.mcmix_family_poisson_gamma <- function(family, data) fam_numeric_matrix(data)
family_check_values.mcmix_family_poisson_gamma <- function(family, x)
  fam_check_counts(x, "poisson_gamma")

family_resolve.mcmix_family_poisson_gamma <- function(family, x) {
  if (is.null(family$args$rate)) {   # data-scaled default (see poisson_gamma())
    m <- colMeans(x)
    shape <- fam_recycle(family$args$shape, ncol(x), "shape")
    family$args$rate <- ifelse(m > 0, shape / m, shape)
  }
  fam_resolve_vectors(family, x, c("shape", "rate"))
}

family_hyper.mcmix_family_poisson_gamma <- function(family)
  fam_hyper(family, c("shape", "rate"))

family_layout.mcmix_family_poisson_gamma <- function(family) {
  D <- family$dim
  list(components = list(rate = D), size = 2L * D + 1L)
}
