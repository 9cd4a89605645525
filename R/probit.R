#' Bayesian probit regression by Gibbs sampling
#'
#' Albert and Chib's (1993) data-augmentation Gibbs sampler for
#' \deqn{P(y_i = 1 \mid \beta) = \Phi(x_i^\top \beta), \quad
#'       \beta \sim N(b_0, B_0).}
#' Each iteration draws the latent utilities \eqn{z_i \mid \beta, y_i} from
#' normals truncated to the side of zero given by \eqn{y_i} (an exact
#' sampler, also far in the tails), then \eqn{\beta \mid z} from its normal
#' full conditional with precision \eqn{B_0^{-1} + X^\top X}. The loop runs
#' in compiled code.
#'
#' @param x A model formula (with `data`), or a numeric design matrix
#'   (include a column of ones for an intercept).
#' @param y The binary response when `x` is a matrix: 0/1, logical, or a
#'   factor with two levels (the second level is "1").
#' @param data A data frame for the formula interface.
#' @param prior_mean Prior mean \eqn{b_0}: a number or a vector with one
#'   entry per coefficient.
#' @param prior_cov Prior covariance \eqn{B_0}: a positive number (times
#'   the identity), a vector of variances, or a positive definite matrix;
#'   `NULL` (the default) scales it to the covariates (see "Default
#'   prior").
#' @param iter,burnin,thin,chains Kept iterations per chain, burn-in
#'   iterations (default `floor(iter / 2)`), thinning interval, number of
#'   chains (see [mcmix-run-settings]).
#' @param subset An optional vector selecting the rows to use (logical or
#'   indices), evaluated in `data` first, as in [stats::lm()]; with a
#'   design matrix, rows of `x` and `y`.
#' @param na.action For the formula interface, what to do with rows with
#'   missing values: `NULL` (the default) stops with an error naming the
#'   column; a function such as [stats::na.omit()] or
#'   [stats::na.exclude()] (or its name) is applied to the model frame, as
#'   in [stats::lm()] (the rows left out are `fit$data$na.action`).
#' @param weights,offset Not supported (the model is one Bernoulli trial
#'   per row with linear predictor \eqn{x^\top\beta}): an error of class
#'   `mcmix_error_input` when given, as is an `offset()` term in the
#'   formula, rather than a fit that ignores them.
#' @param cores,backend,progress Run settings, as every sampler takes them
#'   (see [mcmix-run-settings] and [run_kernel()]): the number of chains run
#'   at the same time (option `mcmix.cores`), how they run in parallel
#'   (option `mcmix.backend`), and whether to report progress (default
#'   `interactive()`).
#' @param ... Unused; unknown arguments are refused.
#' @section Default prior (scaled to the covariates): With `prior_cov =
#'   NULL` the prior follows the units of the covariates, as rstanarm's
#'   default priors do (formulas on [mcmix-defaults]): with an intercept
#'   column, the centred intercept (the linear predictor at the mean of
#'   the covariates) is \eqn{N(b, k^2)} and the coefficient of column j
#'   is \eqn{N(b_j, (k / s_j)^2)}, independently, with \eqn{s_j} the
#'   standard deviation of column j and \eqn{k = 2.5\,
#'   \mathrm{dlogis}(0) / \mathrm{dnorm}(0) \approx 1.57} (the logit
#'   default 2.5 on the probit scale); \eqn{B_0} is that prior on the
#'   coefficients of the design matrix, a full covariance matrix. Without
#'   an intercept column \eqn{s_j} is the root mean square of column j.
#'   A covariate in dollars or in calendar years then gets a prior on its
#'   own scale, where the former default `prior_cov = 100` (give it to
#'   reproduce such a fit) pulled the intercept of a covariate near 2000
#'   towards 0. `print()` shows which prior was used (the `Priors:` line).
#' @return An `mcmix_fit` whose traces are the coefficients (named after the
#'   columns of the design matrix). Chains start at the prior mean plus a
#'   normal jitter with standard deviation \eqn{k / 2.5 \approx 0.63} on
#'   the centred intercept and \eqn{0.63 / s_j} on the coefficient of
#'   column j. [extend()] continues the chains.
#' @references Albert, J. H. and Chib, S. (1993). Bayesian analysis of binary
#'   and polychotomous response data. *JASA* 88, 669-679.
#' @seealso [mcmix-defaults] for the default priors of every sampler.
#' @examples
#' set.seed(1)
#' x <- rnorm(100)
#' y <- rbinom(100, 1, pnorm(-0.5 + 1.5 * x))
#' fit <- probit_gibbs(y ~ x, data = data.frame(x = x, y = y), iter = 500,
#'                     burnin = 100)
#' colMeans(as.matrix(fit))
#' @export
probit_gibbs <- function(x, y = NULL, data = NULL, prior_mean = 0,
                         prior_cov = NULL, iter = 1000, burnin = floor(iter / 2), thin = 1,
                         chains = 1,
                         cores = mcmix_option("cores"), backend = mcmix_option("backend"),
                         progress = interactive(), subset = NULL, na.action = NULL,
                         weights = NULL, offset = NULL, ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  check_dots(list(...))   # R/checks.R
  call <- match.call()
  des <- binary_design(x, y, data, eval_in_data(substitute(subset), data, parent.frame()),
                       na.action, weights, offset, "probit_gibbs")
  X <- des$X
  y <- des$y
  tt <- if (is.null(des$terms)) NULL else stats::delete.response(des$terms)
  xlev <- des$xlevels
  n <- nrow(X)
  p <- ncol(X)
  b0 <- check_vector(prior_mean, "prior_mean", p)
  pr <- binary_prior(X, prior_cov, "probit", "probit_gibbs", !missing(prior_mean))   # R/scaled_prior.R
  B0 <- pr$cov
  P0 <- pr$prec
  data_c <- list(n = n, p = p, X = unname(X * 1.0), y = y,
                 prior_prec = P0, prior_lin = as.double(P0 %*% b0))
  kernel <- model_kernel("probit_gibbs",
    function(d, s, c) .Call(C_ffi_probit_step, d, s, c),
    data_c,
    init = function(chain) list(beta = scaled_jitter(pr$scaled, b0, stats::rnorm(p), 1 / 2.5)),
    trace_names = colnames(X))
  fit <- run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress, labels = TRUE,
                   model = list(type = "probit", prior_mean = b0, prior_cov = B0,
                                terms = des$terms, xlevels = xlev, prior_label = pr$label),
                   data = list(X = X, y = y, frame = des$frame, na.action = des$na.action),
                   call = call, kind = "probit")
  fit$terms <- tt      # for predict() on new data frames (formula fits)
  fit$xlevels <- xlev
  fit
}

#' Predictions from a probit regression fit
#'
#' For every new row \eqn{x}, the posterior of \eqn{P(y = 1 \mid x) =
#' \Phi(x^\top \beta)} (or of the linear predictor \eqn{x^\top \beta})
#' over the kept draws of \eqn{\beta}: its mean and a pointwise credible
#' interval. The posterior mean of \eqn{\Phi(x^\top \beta)} is the
#' posterior predictive probability that a new observation at \eqn{x} is 1.
#'
#' @param object A fit from [probit_gibbs()].
#' @param newdata New covariates: for a formula fit a data frame with the
#'   variables of the formula, otherwise a matrix (or data frame) with the
#'   columns of `x`. `NULL` (the default) predicts at the fitted rows.
#' @param type `"response"` (probabilities) or `"link"` (linear predictor).
#' @param level Credible level of the interval, in (0, 1).
#' @param ... Unused (an error if given).
#' @return A data frame with columns `fit` (posterior mean), `lower` and
#'   `upper`, one row per new observation, and attribute `draws` (draws x
#'   rows).
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(100))
#' d$y <- as.integer(d$x + rnorm(100) > 0)
#' fit <- probit_gibbs(y ~ x, data = d, iter = 300, progress = FALSE)
#' predict(fit, data.frame(x = c(-1, 0, 1)))
#' @export
predict.mcmix_probit_fit <- function(object, newdata = NULL, type = c("response", "link"),
                                     level = 0.95, ...) {
  check_no_dots(...)
  type <- match_choice(type, c("response", "link"), "type")
  level <- check_prob(level, "level")
  X <- binary_newdata(object, newdata)   # R/logit.R
  beta <- as.matrix(object)[, colnames(object$data$X), drop = FALSE]
  check_predict_budget(nrow(beta), nrow(X))   # R/chains_budget.R
  eta <- unname(beta %*% t(X))
  prediction_frame(if (type == "response") stats::pnorm(eta) else eta, level)
}
