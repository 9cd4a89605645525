# Non-conjugate component families: one given by R functions
# (src/ffi_family_r.c) and the compiled normal family with independent priors
# on the mean and the variance (src/family_gaussian_nonconj.c).  Both have
# no closed-form marginal likelihood: the DP sampler "neal8" uses their
# log-likelihood, prior draws and a Markov move of a cluster's parameter
# given its members (plugin ABI 2, inst/design.md sec. 9).

#' Component family defined by R functions
#'
#' A general (non-conjugate) component family for [dp_mixture()] fitted with
#' `algorithm = "neal8"`: the likelihood of one observation, the prior of a
#' component parameter \eqn{\theta} (a numeric vector of length
#' `dim_param`), and a way to draw from that prior. A cluster's parameter is
#' updated given its members by univariate slice sampling (Neal 2003) on
#' each coordinate in turn, or by random-walk Metropolis on each coordinate.
#' This calls R for every likelihood evaluation: it is slow, meant for small
#' data sets and for prototyping a family before writing it in C.
#'
#' @param log_lik `function(x, theta)`: log density of one observation `x`
#'   (a numeric vector of length D) given `theta`; a number, `-Inf` allowed.
#' @param log_prior `function(theta)`: log prior density of `theta` (up to
#'   a constant); `-Inf` outside the support.
#' @param prior_draw `function()`: one draw of `theta` from the prior (use
#'   R's random number generator).
#' @param dim_param Length of `theta`.
#' @param update `"slice"` or `"mh"` (random-walk Metropolis).
#' @param width Slice sampling: the initial interval width; `"mh"`: the
#'   proposal standard deviation. A positive number.
#' @param n_update Number of updates of each cluster's parameter per sweep.
#' @param dim Dimension D of an observation (`NULL`: taken from the data).
#' @return An object of class `mcmix_family`.
#' @family component families
#' @examples
#' # normal components with known unit variance, N(0, 10) prior on the mean
#' fam <- r_family(
#'   log_lik = function(x, theta) dnorm(x, theta, 1, log = TRUE),
#'   log_prior = function(theta) dnorm(theta, 0, sqrt(10), log = TRUE),
#'   prior_draw = function() rnorm(1, 0, sqrt(10)), dim_param = 1)
#' set.seed(1)
#' fit <- sample_posterior(dp_mixture(fam), c(-2.1, -1.9, 2, 2.2), iter = 20,
#'                         algorithm = "neal8", progress = FALSE)
#' @export
r_family <- function(log_lik, log_prior, prior_draw, dim_param,
                     update = c("slice", "mh"), width = 1, n_update = 1, dim = NULL) {
  for (a in c("log_lik", "log_prior", "prior_draw")) {
    f <- get(a)
    if (!is.function(f))
      stop(sprintf("`%s` must be a function, not %s.", a, describe_value(f)), call. = FALSE)
  }
  if (length(formals(log_lik)) < 2L && !"..." %in% names(formals(log_lik)))
    stop("`log_lik` must be a function of two arguments, `x` and `theta`.", call. = FALSE)
  dim_param <- check_count(dim_param, "dim_param", 1L)
  if (identical(update, c("slice", "mh"))) update <- "slice"
  if (!is.character(update) || length(update) != 1L || !update %in% c("slice", "mh"))
    stop(sprintf("`update` must be \"slice\" or \"mh\", not %s.", describe_value(update)),
         call. = FALSE)
  check_positive(width, "width")
  n_update <- check_count(n_update, "n_update", 1L)
  if (!is.null(dim)) dim <- check_count(dim, "dim", 1L)
  structure(list(name = "r_family", args = list(), dim = dim, data_type = "real",
                 hyper = numeric(), nonconjugate = TRUE,
                 log_lik = log_lik, log_prior = log_prior, prior_draw = prior_draw,
                 dim_param = dim_param, update = update, width = as.double(width),
                 n_update = n_update),
            class = c("mcmix_family_r", "mcmix_family"))
}

#' @export
format.mcmix_family_r <- function(x, ...)
  sprintf("r_family (dim_param = %d, update = \"%s\")", x$dim_param, x$update)

#' @export
print.mcmix_family_r <- function(x, ...) {
  cat("<mcmix_family> ", format(x), "\n", sep = "")
  invisible(x)
}

family_layout.mcmix_family_r <- function(family)
  list(components = list(theta = family$dim_param), size = family$dim_param)

# The hyperparameters of the R-function family are its R functions: the
# list handed to src/ffi_family_r.c in place of a numeric `hyper` vector
# (R wrappers of one numeric vector each).
family_hyper.mcmix_family_r <- function(family) r_family_spec(family)

# The list handed to src/ffi_family_r.c: R wrappers of one numeric vector each.
r_family_spec <- function(family) {
  p <- family$dim_param
  D <- family$dim
  ll <- family$log_lik
  pd <- family$prior_draw
  list(log_lik = function(v) ll(v[p + seq_len(D)], v[seq_len(p)]),
       log_prior = family$log_prior,
       prior_draw = function(v) as.double(pd()),
       psize = as.integer(p), dim = as.integer(D),
       method = if (family$update == "mh") 1L else 0L,
       width = family$width, n_update = as.integer(family$n_update))
}

#' Normal family with independent priors on the mean and the variance
#'
#' Univariate normal components with a normal prior on the mean and an
#' independent inverse-gamma prior on the variance:
#' \deqn{x \mid \mu, \sigma^2 \sim N(\mu, \sigma^2), \quad
#'   \mu \sim N(m_0, v_0), \quad \sigma^2 \sim \mathrm{InvGamma}(a_0, b_0).}
#' Unlike [gaussian_niw()] the prior is not jointly conjugate (the marginal
#' likelihood has no closed form), so the family works with
#' `dp_mixture(..., algorithm = "neal8")` only; a cluster's parameters are
#' updated by Gibbs sampling of \eqn{\mu} and \eqn{\sigma^2} given its
#' members. It is the compiled example of a non-conjugate family.
#'
#' Defaults from the data (when left `NULL`): `prior_mean` = the mean,
#' `prior_var` = the variance, `rate` = `(shape - 1)` times a quarter of the
#' variance when `shape > 1` (prior mean of \eqn{\sigma^2} a quarter of the
#' total variance), a quarter of the variance otherwise.
#'
#' @param prior_mean \eqn{m_0}, a number.
#' @param prior_var \eqn{v_0 > 0}.
#' @param shape \eqn{a_0 > 0}.
#' @param rate \eqn{b_0 > 0} (the inverse-gamma scale).
#' @return An object of class `mcmix_family`. A component's parameters are
#'   `mean` and `var`.
#' @family component families
#' @examples
#' gaussian_nonconj()
#' gaussian_nonconj(prior_mean = 0, prior_var = 10, shape = 3, rate = 2)
#' @export
gaussian_nonconj <- function(prior_mean = NULL, prior_var = NULL, shape = 2, rate = NULL) {
  if (!is.null(prior_mean) && (!is.numeric(prior_mean) || length(prior_mean) != 1L ||
                               !is.finite(prior_mean)))
    stop(sprintf("`prior_mean` must be a finite number, not %s.", describe_value(prior_mean)),
         call. = FALSE)
  if (!is.null(prior_var)) check_positive(prior_var, "prior_var")
  check_positive(shape, "shape")
  if (!is.null(rate)) check_positive(rate, "rate")
  # squares of these enter the log-likelihood: keep them far from overflow
  for (a in c("prior_mean", "prior_var", "shape", "rate"))
    check_magnitude(get(a), a)
  new_builtin_family("gaussian_nonconj",
                     list(prior_mean = prior_mean, prior_var = prior_var,
                          shape = shape, rate = rate),
                     data_type = "real", nonconjugate = TRUE)
}

family_convert.mcmix_family_gaussian_nonconj <- function(family, data) fam_numeric_matrix(data)
family_check_values.mcmix_family_gaussian_nonconj <- function(family, x) {
  if (ncol(x) != 1L)
    stop(sprintf("`data` must have one column for gaussian_nonconj(), not %d.", ncol(x)),
         call. = FALSE)
  invisible(x)
}

family_resolve.mcmix_family_gaussian_nonconj <- function(family, x) {
  v <- if (nrow(x) > 1L) stats::var(x[, 1L]) else 1
  if (!is.finite(v) || v <= 0) v <- 1
  a <- family$args
  if (is.null(a$prior_mean)) a$prior_mean <- if (nrow(x)) mean(x[, 1L]) else 0
  if (is.null(a$prior_var)) a$prior_var <- v
  if (is.null(a$rate)) a$rate <- if (a$shape > 1) (a$shape - 1) * v / 4 else v / 4
  family$args <- a
  family$dim <- 1L
  family
}

family_hyper.mcmix_family_gaussian_nonconj <- function(family)
  fam_hyper(family, c("prior_mean", "prior_var", "shape", "rate"))

family_layout.mcmix_family_gaussian_nonconj <- function(family)
  list(components = list(mean = 1L, var = 1L), size = 2L)
