# The Gaussian component families (src/family_gaussian_mean.c,
# src/family_gaussian_niw.c, src/family_gaussian_diag.c).

#' Gaussian family with known covariance
#'
#' Multivariate normal components with a known covariance matrix shared by
#' all clusters and a normal prior on each cluster mean:
#' \deqn{x_i \mid \mu \sim N_D(\mu, \Sigma), \qquad \mu \sim N_D(m_0, S_0).}
#'
#' Every argument may be left out; the default is then derived from the
#' data when the model is fitted, from the sample covariance \eqn{S} and
#' the column means of the data (\eqn{S} is replaced by its diagonal when
#' it is singular):
#' * `cov` = \eqn{S / 4}, a guess at the spread *within* a cluster (a
#'   quarter of the total variance);
#' * `prior_mean` = the column means;
#' * `prior_cov` = \eqn{S}, so cluster means range over the data.
#'
#' @param cov Known component covariance \eqn{\Sigma}: a symmetric
#'   positive-definite D x D matrix, or a positive number `s` meaning
#'   `s * diag(D)` (for D = 1, the variance).
#' @param prior_mean Prior mean \eqn{m_0} of the cluster means: a vector of
#'   length D (a number is recycled).
#' @param prior_cov Prior covariance \eqn{S_0} of the cluster means, a
#'   matrix or a number like `cov`.
#' @return An object of class `mcmix_family`. A component's parameter is
#'   its mean vector `mean`.
#' @family component families
#' @examples
#' gaussian_mean()
#' gaussian_mean(cov = 0.5, prior_mean = 0, prior_cov = 10)
#' gaussian_mean(cov = diag(2), prior_cov = matrix(c(4, 1, 1, 4), 2))
#' @export
gaussian_mean <- function(cov = NULL, prior_mean = NULL, prior_cov = NULL) {
  if (!is.null(cov)) fam_check_spd(cov, "cov")
  if (!is.null(prior_mean)) fam_check_vector(prior_mean, "prior_mean")
  if (!is.null(prior_cov)) fam_check_spd(prior_cov, "prior_cov")
  fam_check_same_dim(list(cov = cov, prior_mean = prior_mean, prior_cov = prior_cov))
  new_builtin_family("gaussian_mean",
                     list(cov = cov, prior_mean = prior_mean, prior_cov = prior_cov),
                     data_type = "real")
}

#' Gaussian family with unknown mean and covariance (Normal-inverse-Wishart)
#'
#' Multivariate normal components with the conjugate Normal-inverse-Wishart
#' prior on each cluster's mean and covariance:
#' \deqn{x_i \mid \mu, \Sigma \sim N_D(\mu, \Sigma), \quad
#'   \mu \mid \Sigma \sim N_D(m_0, \Sigma / \kappa), \quad
#'   \Sigma \sim IW(\nu, \Psi),}
#' with \eqn{E[\Sigma] = \Psi / (\nu - D - 1)} for \eqn{\nu > D + 1}. For
#' one-dimensional data this is the Normal-inverse-gamma model:
#' \eqn{\sigma^2 \sim} inverse-gamma with shape \eqn{\nu/2} and rate
#' \eqn{\Psi/2}.
#'
#' Defaults (the data-driven ones are derived when the model is fitted;
#' \eqn{S} is the sample covariance of the data, replaced by its diagonal
#' when singular):
#' * `prior_mean` = the column means;
#' * `kappa` = 0.01 (a vague prior on the cluster means);
#' * `df` = D + 2 (the smallest whole number giving a finite prior mean of
#'   \eqn{\Sigma});
#' * `scale` = \eqn{\max(\nu - D - 1, 1) S / 4}, so that the prior mean of
#'   each cluster covariance is a quarter of the total covariance (a guess
#'   at the spread within a cluster, as in [gaussian_mean()]).
#'
#' @param prior_mean Prior mean \eqn{m_0}: a vector of length D (a number
#'   is recycled).
#' @param kappa Prior sample size \eqn{\kappa > 0} of the mean.
#' @param df Degrees of freedom \eqn{\nu}; must exceed D - 1.
#' @param scale Scale matrix \eqn{\Psi}: a symmetric positive-definite
#'   D x D matrix, or a positive number `s` meaning `s * diag(D)`.
#' @return An object of class `mcmix_family`. A component's parameters are
#'   `mean` (length D) and `cov` (D x D).
#' @family component families
#' @examples
#' gaussian_niw()
#' gaussian_niw(kappa = 0.1, df = 5, scale = diag(2))
#' @export
gaussian_niw <- function(prior_mean = NULL, kappa = 0.01, df = NULL, scale = NULL) {
  if (!is.null(prior_mean)) fam_check_vector(prior_mean, "prior_mean")
  fam_check_positive(kappa, "kappa")
  if (!is.null(df)) fam_check_positive(df, "df")
  if (!is.null(scale)) fam_check_spd(scale, "scale")
  fam_check_same_dim(list(prior_mean = prior_mean, scale = scale))
  new_builtin_family("gaussian_niw",
                     list(prior_mean = prior_mean, kappa = kappa, df = df, scale = scale),
                     data_type = "real")
}

#' Gaussian family with diagonal covariance
#'
#' Normal components whose dimensions are independent given the cluster,
#' each with the conjugate Normal-inverse-gamma prior:
#' \deqn{x_{ij} \mid \mu_j, \sigma_j^2 \sim N(\mu_j, \sigma_j^2), \quad
#'   \mu_j \mid \sigma_j^2 \sim N(m_j, \sigma_j^2 / \kappa_j), \quad
#'   \sigma_j^2 \sim \mathrm{InvGamma}(a_j, b_j)}
#' (shape \eqn{a_j}, rate \eqn{b_j}). Every argument is a number (used for
#' all dimensions) or a vector with one value per column of the data.
#'
#' Defaults (the data-driven ones are derived when the model is fitted):
#' * `prior_mean` = the column means;
#' * `kappa` = 0.01;
#' * `shape` = 2;
#' * `rate` = \eqn{\max(a - 1, 1) v_j / 4} with \eqn{v_j} the sample
#'   variance of column j, so the prior mean of \eqn{\sigma_j^2} is a
#'   quarter of the column's variance (as in [gaussian_niw()]).
#'
#' @param prior_mean Prior means \eqn{m_j}.
#' @param kappa Prior sample sizes \eqn{\kappa_j > 0} of the means.
#' @param shape,rate Inverse-gamma shape \eqn{a_j > 0} and rate
#'   \eqn{b_j > 0} of the variances.
#' @return An object of class `mcmix_family`. A component's parameters are
#'   `mean` and `var` (each of length D).
#' @family component families
#' @examples
#' gaussian_diag()
#' gaussian_diag(prior_mean = 0, kappa = 1, shape = 3, rate = c(1, 2))
#' @export
gaussian_diag <- function(prior_mean = NULL, kappa = 0.01, shape = 2, rate = NULL) {
  if (!is.null(prior_mean)) fam_check_vector(prior_mean, "prior_mean")
  fam_check_vector(kappa, "kappa", positive = TRUE)
  fam_check_vector(shape, "shape", positive = TRUE)
  if (!is.null(rate)) fam_check_vector(rate, "rate", positive = TRUE)
  fam_check_same_dim(list(prior_mean = prior_mean, kappa = kappa, shape = shape, rate = rate))
  new_builtin_family("gaussian_diag",
                     list(prior_mean = prior_mean, kappa = kappa, shape = shape, rate = rate),
                     data_type = "real")
}

# --- gaussian_mean ---------------------------------------------------------

family_convert.mcmix_family_gaussian_mean <- function(family, data) fam_numeric_matrix(data)
family_check_values.mcmix_family_gaussian_mean <- function(family, x) invisible(x)

family_resolve.mcmix_family_gaussian_mean <- function(family, x) {
  a <- family$args
  D <- ncol(x)
  S <- NULL
  sample_cov <- function(arg) if (is.null(S)) fam_sample_cov(x, arg) else S
  a$cov <- if (is.null(a$cov)) { S <- sample_cov("cov"); S / 4 } else fam_as_spd(a$cov, D, "cov")
  a$prior_mean <- fam_default_mean(a$prior_mean, x)
  a$prior_cov <- if (is.null(a$prior_cov)) sample_cov("prior_cov")
                 else fam_as_spd(a$prior_cov, D, "prior_cov")
  family$args <- a
  family$dim <- D
  family
}

family_hyper.mcmix_family_gaussian_mean <- function(family)
  fam_hyper(family, c("cov", "prior_mean", "prior_cov"))

family_layout.mcmix_family_gaussian_mean <- function(family) {
  D <- family$dim
  list(components = list(mean = D), size = D)
}

# --- gaussian_niw ----------------------------------------------------------

family_convert.mcmix_family_gaussian_niw <- family_convert.mcmix_family_gaussian_mean
family_check_values.mcmix_family_gaussian_niw <- family_check_values.mcmix_family_gaussian_mean

family_resolve.mcmix_family_gaussian_niw <- function(family, x) {
  a <- family$args
  D <- ncol(x)
  a$prior_mean <- fam_default_mean(a$prior_mean, x)
  if (is.null(a$df)) a$df <- D + 2
  if (a$df <= D - 1)
    stop(sprintf("`df` must be greater than %d (the dimension of `data` minus 1), not %s.",
                 D - 1L, describe_value(a$df)), call. = FALSE)
  a$scale <- if (is.null(a$scale)) max(a$df - D - 1, 1) * fam_sample_cov(x, "scale") / 4
             else fam_as_spd(a$scale, D, "scale")
  family$args <- a
  family$dim <- D
  family
}

family_hyper.mcmix_family_gaussian_niw <- function(family)
  fam_hyper(family, c("prior_mean", "kappa", "df", "scale"))

family_layout.mcmix_family_gaussian_niw <- function(family) {
  D <- family$dim
  list(components = list(mean = D, cov = c(D, D)), size = 2L * D * D + D + 1L)
}

# --- gaussian_diag ---------------------------------------------------------

family_convert.mcmix_family_gaussian_diag <- family_convert.mcmix_family_gaussian_mean
family_check_values.mcmix_family_gaussian_diag <- family_check_values.mcmix_family_gaussian_mean

family_resolve.mcmix_family_gaussian_diag <- function(family, x) {
  a <- family$args
  D <- ncol(x)
  a$prior_mean <- fam_default_mean(a$prior_mean, x)
  a$kappa <- fam_recycle(a$kappa, D, "kappa")
  a$shape <- fam_recycle(a$shape, D, "shape")
  if (is.null(a$rate)) {
    v <- apply(x, 2L, stats::var)
    if (any(v <= 0))
      stop(sprintf("Cannot derive a default for `rate` from `data`: column %d is constant; give `rate` explicitly.",
                   which(v <= 0)[1L]), call. = FALSE)
    a$rate <- pmax(a$shape - 1, 1) * v / 4
  } else {
    a$rate <- fam_recycle(a$rate, D, "rate")
  }
  family$args <- a
  family$dim <- D
  family
}

family_hyper.mcmix_family_gaussian_diag <- function(family)
  fam_hyper(family, c("prior_mean", "kappa", "shape", "rate"))

family_layout.mcmix_family_gaussian_diag <- function(family) {
  D <- family$dim
  list(components = list(mean = D, var = D), size = 3L * D + 1L)
}

#' Gaussian family with isotropic covariance
#'
#' Normal components with a spherical covariance \eqn{\sigma^2 I} (one
#' variance shared by all dimensions) and the conjugate Normal-inverse-gamma
#' prior:
#' \deqn{x_i \mid \mu, \sigma^2 \sim N_D(\mu, \sigma^2 I), \quad
#'   \mu \mid \sigma^2 \sim N_D(m, \sigma^2 / \kappa\, I), \quad
#'   \sigma^2 \sim \mathrm{InvGamma}(a, b).}
#' Every operation costs O(D) per observation and cluster, so it suits data
#' of dimension in the hundreds (images, embeddings) where [gaussian_niw()]
#' (O(D^2)) is slow and its covariance poorly determined.
#'
#' Defaults (the data-driven ones are derived when the model is fitted):
#' * `prior_mean` = the column means;
#' * `kappa` = 0.01;
#' * `shape` = 2;
#' * `rate` = \eqn{\max(a - 1, 1) \bar v / 4} with \eqn{\bar v} the mean of
#'   the column variances, so the prior mean of \eqn{\sigma^2} is a quarter
#'   of the average variance (as in [gaussian_diag()]).
#'
#' @param prior_mean Prior mean \eqn{m}: a number (every dimension) or a
#'   vector with one value per column of the data.
#' @param kappa Prior sample size \eqn{\kappa > 0} of the mean (a number).
#' @param shape,rate Inverse-gamma shape \eqn{a > 0} and rate \eqn{b > 0} of
#'   the variance (numbers).
#' @return An object of class `mcmix_family`. A component's parameters are
#'   `mean` (length D) and `var` (one number).
#' @family component families
#' @examples
#' gaussian_iso()
#' set.seed(1)
#' x <- rbind(matrix(rnorm(200, 0), 20), matrix(rnorm(200, 4), 20))
#' fit <- sample_posterior(dp_mixture(gaussian_iso()), x, iter = 50, progress = FALSE)
#' table(as.matrix(fit)[, "n_clusters"])
#' @export
gaussian_iso <- function(prior_mean = NULL, kappa = 0.01, shape = 2, rate = NULL) {
  if (!is.null(prior_mean)) fam_check_vector(prior_mean, "prior_mean")
  fam_check_positive(kappa, "kappa")
  fam_check_positive(shape, "shape")
  if (!is.null(rate)) fam_check_positive(rate, "rate")
  new_builtin_family("gaussian_iso",
                     list(prior_mean = prior_mean, kappa = kappa, shape = shape, rate = rate),
                     data_type = "real")
}

# --- gaussian_iso ----------------------------------------------------------

family_convert.mcmix_family_gaussian_iso <- family_convert.mcmix_family_gaussian_mean
family_check_values.mcmix_family_gaussian_iso <- family_check_values.mcmix_family_gaussian_mean

family_resolve.mcmix_family_gaussian_iso <- function(family, x) {
  a <- family$args
  D <- ncol(x)
  a$prior_mean <- fam_default_mean(a$prior_mean, x)
  if (is.null(a$rate)) {
    v <- mean(apply(x, 2L, stats::var))
    if (!(v > 0))
      stop("Cannot derive a default for `rate` from `data`: every column is constant; give `rate` explicitly.",
           call. = FALSE)
    a$rate <- max(a$shape - 1, 1) * v / 4
  }
  family$args <- a
  family$dim <- D
  family
}

family_hyper.mcmix_family_gaussian_iso <- function(family)
  fam_hyper(family, c("prior_mean", "kappa", "shape", "rate"))

family_layout.mcmix_family_gaussian_iso <- function(family) {
  D <- family$dim
  list(components = list(mean = D, var = 1L), size = D + 3L)
}
