# Pointwise log-likelihood and posterior predictive draws of regression and
# mixture fits, for loo (loo(), waic()) and bayesplot (pp_check()), and the
# expected values, linear predictors, predictive intervals and priors of
# regression fits. The generics log_lik(), posterior_predict(),
# posterior_epred(), posterior_linpred(), predictive_interval() and
# prior_summary() are rstantools' names; mcmix
# exports its own and registers the methods on rstantools' when it is
# loaded (R/zzz.R), so either generic finds them.

#' Pointwise log-likelihood of a fit
#'
#' A draws x observations matrix of \eqn{\log p(y_i \mid \theta^{(s)})},
#' the input of `loo::loo()` and `loo::waic()` (which also accept the fit
#' itself: its methods pass the chain of each draw for the relative
#' efficiencies).
#' * [logit_gibbs()], [probit_gibbs()], [gp_classify()] (`keep_f = TRUE`):
#'   the Bernoulli log-likelihood with the fitted link.
#' * [hier_lm_gibbs()] (`keep_beta = TRUE`): \eqn{\log N(y_{ij} \mid
#'   x_{ij}^\top \beta_j, \sigma^2)}, conditional on the group coefficients
#'   (so LOO leaves out one observation, not one group).
#' * Finite and Dirichlet process mixtures: conditional on the cluster
#'   parameters and weights, with the allocation of \eqn{y_i} summed out:
#'   \deqn{\log\Big(\sum_k w_k^{(s)} f(y_i \mid \theta_k^{(s)}) +
#'   w_0^{(s)} \int f(y_i \mid \theta)\, G_0(d\theta)\Big),}
#'   where \eqn{w_k^{(s)}, \theta_k^{(s)}} are drawn given the stored
#'   partition of draw \eqn{s} by [component_draws()] and, for a Dirichlet
#'   process, \eqn{w_0^{(s)}} is the weight of the unoccupied atoms, whose
#'   parameters are integrated over the base measure \eqn{G_0} (the
#'   family's prior predictive). For [lca()] fits and other mixtures of a
#'   [product_family()] (data frames), \eqn{f} is the product over the
#'   columns, the missing cells of a row integrated out (left out of the
#'   product), so `loo::loo()` compares numbers of classes. The parameters
#'   are random draws: call
#'   [set.seed()] first for reproducible values. Needs stored labels and a
#'   conjugate family.
#'
#' Other fits (a target density has no data) refuse with an error of
#' class `mcmix_error_generic`.
#'
#' @param object A fit.
#' @param ... Unused.
#' @return A numeric matrix, draws (chains stacked) x observations, with
#'   attribute `chain_id` (the chain of each draw).
#' @seealso [posterior_predict()], [logLik.mcmix_fit()]
#' @examples
#' set.seed(1)
#' x <- c(rnorm(40, -3), rnorm(40, 3))
#' fit <- sample_posterior(finite_mixture(gaussian_niw(), K = 2), x,
#'                         iter = 200, chains = 2, progress = FALSE)
#' ll <- log_lik(fit)
#' dim(ll)
#' if (requireNamespace("loo", quietly = TRUE)) loo::loo(fit)
#' @export
log_lik <- function(object, ...) UseMethod("log_lik")

#' @rdname log_lik
#' @export
log_lik.mcmix_fit <- function(object, ...) {
  check_no_dots(...)
  object <- fit_usable(object, quiet = TRUE)   # R/chains.R
  ll <- pointwise_log_lik(object)
  attr(ll, "chain_id") <- draw_chain_id(object)
  ll
}

#' @rdname log_lik
#' @export
log_lik.default <- function(object, ...) refuse_not_fit("log_lik", object)

# The draws (chains stacked) of trace `name`, NULL when there is none.
draws_column <- function(fit, name) {
  m <- as.matrix(fit)
  if (name %in% colnames(m)) unname(m[, name]) else NULL
}

# The chain of each draw of as.matrix(fit).
draw_chain_id <- function(fit)
  rep(seq_along(fit$chains), fit_draw_counts(fit))

pointwise_log_lik <- function(fit) UseMethod("pointwise_log_lik")

pointwise_log_lik.mcmix_fit <- function(fit)
  refuse_generic("log_lik", fit, "it has no pointwise likelihood")

# Bernoulli log-likelihood from the linear predictor draws (draws x n) and a
# log link function logF(eta) (log P(y = 1)), with log P(y = 0) = logF(-eta)
# for the symmetric links used here.
bernoulli_log_lik <- function(eta, y, log_cdf) {
  sgn <- rep(2 * as.double(y) - 1, each = nrow(eta))
  matrix(log_cdf(eta * sgn), nrow(eta))
}

pointwise_log_lik.mcmix_logit_fit <- function(fit) {
  eta <- attr(stats::predict(fit, type = "link"), "draws")
  m <- fit$model
  log_cdf <- if (m$method != "student_t") function(e) stats::plogis(e, log.p = TRUE) else {
    nu <- draws_column(fit, "nu")
    if (is.null(nu)) nu <- m$nu
    function(e) stats::pt(e / m$t_scale, df = nu, log.p = TRUE)   # nu recycles by draw
  }
  bernoulli_log_lik(eta, fit$data$y, log_cdf)
}

pointwise_log_lik.mcmix_probit_fit <- function(fit)
  bernoulli_log_lik(attr(stats::predict(fit, type = "link"), "draws"), fit$data$y,
                    function(e) stats::pnorm(e, log.p = TRUE))

pointwise_log_lik.mcmix_gp_classify_fit <- function(fit)
  bernoulli_log_lik(gp_f_draws(fit, "log_lik"), fit$data$y,
                    function(e) stats::pnorm(e, log.p = TRUE))

pointwise_log_lik.mcmix_hier_lm_fit <- function(fit) {
  mu <- hier_lm_mean_draws(fit, "log_lik")   # R/generics.R
  sd <- sqrt(draws_column(fit, "sigma2"))
  matrix(stats::dnorm(rep(fit$data$y, each = nrow(mu)), mu, sd, log = TRUE), nrow(mu))
}

pointwise_log_lik.mcmix_mixture_fit <- function(fit) {
  if (!inherits(fit, c("mcmix_finite_fit", "mcmix_dp_fit"))) return(NextMethod())
  cs <- mixture_components(fit, "log_lik")
  prep <- fit$family
  x <- fit$data
  hyper <- as.double(prep$hyper)
  out <- matrix(-Inf, cs$S, nrow(x))
  logadd <- function(a, b) { m <- pmax(a, b); ifelse(m == -Inf, -Inf, m + log(exp(a - m) + exp(b - m))) }
  for (s in seq_len(cs$S)) {
    for (k in which(!is.na(cs$weights[s, ]) & cs$weights[s, ] > 0)) {
      ll <- .Call(C_ffi_family_eval, prep$name, hyper, x, "log_lik", cs$theta[s, k, ])
      out[s, ] <- logadd(out[s, ], log(cs$weights[s, k]) + ll)
    }
  }
  if (!cs$finite) {   # the unoccupied atoms, integrated over the base measure
    lp0 <- .Call(C_ffi_family_eval, prep$name, hyper, x[0L, , drop = FALSE],
                 "log_predictive", x)
    for (s in which(cs$rest > 0)) out[s, ] <- logadd(out[s, ], log(cs$rest[s]) + lp0)
  }
  out
}

# component_sample() (R/components.R) with the errors phrased for `generic`.
mixture_components <- function(fit, generic) {
  if (!isTRUE(fit$settings$labels) || is.null(fit$chains[[1L]]$labels))
    stop_no_labels(fit, sprintf("%s()", generic), "object")   # R/mixture_online.R
  if (!family_is_conjugate(fit$family$family))
    refuse_generic(generic, fit, sprintf("the non-conjugate family %s has no closed-form conditional posterior of its parameters",
                                         family_label(fit$family$family)))
  component_sample(fit, relabel = "none")
}

#' Draws from the posterior predictive distribution
#'
#' A draws x observations matrix of replicated data \eqn{y^{rep}}, one
#' replicate of the whole data set per kept draw of the parameters, for
#' posterior predictive checks (`bayesplot::pp_check(fit)` uses it).
#' * [logit_gibbs()], [probit_gibbs()]: \eqn{y^{rep}_i \sim
#'   \mathrm{Bernoulli}(F(x_i^\top\beta^{(s)}))}, at the fitted rows or at
#'   `newdata`; [gp_classify()] (`keep_f = TRUE`) at the fitted rows.
#' * [hier_lm_gibbs()] (`keep_beta = TRUE`): \eqn{N(x_{ij}^\top\beta_j^{(s)},
#'   \sigma^{2(s)})} at the fitted rows.
#' * Finite and Dirichlet process mixtures: for each observation a
#'   component is drawn with the weights of [component_draws()] (for a
#'   Dirichlet process, with probability \eqn{w_0^{(s)}} a new atom from
#'   the base measure), then a value from it. Families with a simulator:
#'   [gaussian_mean()], [gaussian_niw()], [gaussian_diag()],
#'   [gaussian_iso()], [bernoulli_beta()], [poisson_gamma()],
#'   [categorical_dirichlet()] (indicator rows), [gaussian_nonconj()] and
#'   [product_family()] of these. For data of
#'   dimension \eqn{D > 1} the result is a draws x observations x D array.
#'
#' @param object A fit.
#' @param newdata `logit_gibbs()` and `probit_gibbs()` only: new covariates,
#'   as for their `predict()` methods.
#' @param ndraws Number of draws to use (evenly spaced over the kept ones);
#'   default all.
#' @param ... Unused.
#' @return An integer or numeric matrix (draws x observations).
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(50))
#' d$y <- rbinom(50, 1, plogis(d$x))
#' fit <- logit_gibbs(y ~ x, data = d, iter = 200, progress = FALSE)
#' yrep <- posterior_predict(fit, ndraws = 20)
#' dim(yrep)
#' if (requireNamespace("bayesplot", quietly = TRUE))
#'   bayesplot::pp_check(fit, type = "bars")
#' @export
posterior_predict <- function(object, ...) UseMethod("posterior_predict")

#' @rdname posterior_predict
#' @export
posterior_predict.default <- function(object, ...) refuse_not_fit("posterior_predict", object)

#' @rdname posterior_predict
#' @export
posterior_predict.mcmix_fit <- function(object, newdata = NULL, ndraws = NULL, ...) {
  check_no_dots(...)
  object <- fit_usable(object, quiet = TRUE)
  if (!is.null(newdata) && !inherits(object, c("mcmix_logit_fit", "mcmix_probit_fit")))
    stop_input("`newdata` is supported for logit_gibbs() and probit_gibbs() fits only.",
               "newdata")
  S <- sum(fit_draw_counts(object))
  keep <- seq_len(S)
  if (!is.null(ndraws)) {
    ndraws <- check_count(ndraws, "ndraws", 1L)
    keep <- unique(round(seq(1, S, length.out = min(ndraws, S))))
  }
  replicate_draws(object, newdata, keep)
}

replicate_draws <- function(fit, newdata, keep) UseMethod("replicate_draws")

replicate_draws.mcmix_fit <- function(fit, newdata, keep)
  refuse_generic("posterior_predict", fit, "it has no observation model")

replicate_draws.mcmix_logit_fit <- function(fit, newdata, keep) {
  p <- attr(stats::predict(fit, newdata = newdata, type = "response"), "draws")[keep, , drop = FALSE]
  matrix(stats::rbinom(length(p), 1L, p), nrow(p))
}
replicate_draws.mcmix_probit_fit <- replicate_draws.mcmix_logit_fit

replicate_draws.mcmix_gp_classify_fit <- function(fit, newdata, keep) {
  p <- stats::pnorm(gp_f_draws(fit, "posterior_predict"))[keep, , drop = FALSE]
  matrix(stats::rbinom(length(p), 1L, p), nrow(p))
}

replicate_draws.mcmix_hier_lm_fit <- function(fit, newdata, keep) {
  mu <- hier_lm_mean_draws(fit, "posterior_predict")[keep, , drop = FALSE]
  sd <- sqrt(draws_column(fit, "sigma2"))[keep]
  matrix(stats::rnorm(length(mu), mu, sd), nrow(mu))
}

replicate_draws.mcmix_mixture_fit <- function(fit, newdata, keep) {
  if (!inherits(fit, c("mcmix_finite_fit", "mcmix_dp_fit")) || inherits(fit, "mcmix_lca_fit"))
    return(NextMethod())
  prep <- fit$family
  family_simulate(prep$family, NULL, 0L)   # refuses families without a simulator
  cs <- mixture_components(fit, "posterior_predict")
  N <- fit$N
  D <- prep$dim
  hyper <- as.double(prep$hyper)
  empty <- fit$data[0L, , drop = FALSE]
  out <- array(NA_real_, c(length(keep), N, D))
  for (r in seq_along(keep)) {
    s <- keep[r]
    w <- cs$weights[s, ]
    w[is.na(w)] <- 0
    if (!cs$finite) w <- c(w, cs$rest[s])
    comp <- sample.int(length(w), N, replace = TRUE, prob = w)
    for (k in unique(comp)) {
      idx <- which(comp == k)
      theta <- if (k <= cs$K) cs$theta[s, k, ] else   # a new atom from the base measure
        .Call(C_ffi_family_eval, prep$name, hyper, empty, "param_draw", 1)
      out[r, idx, ] <- family_simulate(prep$family, as.double(theta), length(idx))
    }
  }
  if (D == 1L) out[, , 1L] else out
}

# n draws (an n x D matrix) from the family's likelihood with parameter
# block `theta` (as param_draw gives it: the parameters of the layout first).
# With theta = NULL, only checks that the family has a simulator.
family_simulate <- function(family, theta, n) UseMethod("family_simulate")

family_simulate.default <- function(family, theta, n)
  stop_input(sprintf("posterior_predict() has no simulator for the %s family: use predict(fit, newdata) for the predictive density.",
                     family_label(family)), "object", class = "mcmix_error_generic")

gaussian_rows <- function(n, mean, cov) {
  D <- length(mean)
  z <- matrix(stats::rnorm(n * D), n, D)
  sweep(z %*% chol(matrix(cov, D, D)), 2L, mean, "+")
}

family_simulate.mcmix_family_gaussian_mean <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  gaussian_rows(n, theta[seq_len(family$dim)], family$args$cov)
}

family_simulate.mcmix_family_gaussian_niw <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  D <- family$dim
  gaussian_rows(n, theta[seq_len(D)], theta[D + seq_len(D * D)])
}

family_simulate.mcmix_family_gaussian_diag <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  D <- family$dim
  matrix(stats::rnorm(n * D, rep(theta[seq_len(D)], each = n),
                      rep(sqrt(theta[D + seq_len(D)]), each = n)), n, D)
}

family_simulate.mcmix_family_gaussian_iso <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  D <- family$dim
  matrix(stats::rnorm(n * D, rep(theta[seq_len(D)], each = n), sqrt(theta[D + 1L])), n, D)
}

family_simulate.mcmix_family_bernoulli_beta <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  D <- family$dim
  matrix(stats::rbinom(n * D, 1L, rep(theta[seq_len(D)], each = n)), n, D)
}

family_simulate.mcmix_family_poisson_gamma <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  D <- family$dim
  matrix(stats::rpois(n * D, rep(theta[seq_len(D)], each = n)), n, D)
}

family_simulate.mcmix_family_gaussian_nonconj <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  matrix(stats::rnorm(n, theta[1L], sqrt(theta[2L])), n, 1L)   # theta = (mean, var)
}

# One categorical observation per row, as the indicator row of its
# category (the layout of the data the family takes from a factor).
family_simulate.mcmix_family_categorical_dirichlet <- function(family, theta, n) {
  if (is.null(theta)) return(invisible(TRUE))
  K <- family$dim
  k <- sample.int(K, n, replace = TRUE, prob = theta[seq_len(K)])
  out <- matrix(0, n, K)
  out[cbind(seq_len(n), k)] <- 1
  out
}

# The parts side by side, each from its own block of theta (the parts'
# layouts in order, family_layout.mcmix_family_product()).
family_simulate.mcmix_family_product <- function(family, theta, n) {
  if (is.null(theta)) {
    for (p in family$resolved) family_simulate(p$family, NULL, 0L)
    return(invisible(TRUE))
  }
  off <- 0L
  blocks <- lapply(family$resolved, function(p) {
    size <- family_layout(p$family)$size
    x <- family_simulate(p$family, theta[off + seq_len(size)], n)
    off <<- off + size
    x
  })
  do.call(cbind, blocks)
}

# The observed responses of a fit, as posterior_predict() replicates them
# (pp_check()).
observed_response <- function(fit) {
  if (inherits(fit, "mcmix_mixture_fit")) {
    if (ncol(fit$data) != 1L)
      stop_input("pp_check() needs one-dimensional data; use posterior_predict() for each column.",
                 "object")
    return(as.double(fit$data[, 1L]))
  }
  obs <- fit_observations(fit, "pp_check")   # R/generics.R
  if (is.null(obs$y)) refuse_generic("pp_check", fit, "it has no response")
  as.double(obs$y)
}

# bayesplot::pp_check() method (registered in R/zzz.R): a bayesplot ppc_*
# plot of the observed data against `ndraws` replicates.
pp_check_fit <- function(object, type = "dens_overlay", ndraws = NULL, ...) {
  if (!is.character(type) || length(type) != 1L ||
      !exists(paste0("ppc_", type), envir = asNamespace("bayesplot"), inherits = FALSE))
    stop_input(sprintf("`type` must name a bayesplot ppc_ function without its prefix (e.g. \"dens_overlay\", \"bars\", \"stat\"), not %s.",
                       describe_value(type)), "type")
  fun <- get(paste0("ppc_", type), envir = asNamespace("bayesplot"))
  y <- observed_response(object)
  if (is.null(ndraws)) ndraws <- if (type %in% c("dens_overlay", "ecdf_overlay", "hist", "dens", "boxplot")) 50L else NULL
  yrep <- posterior_predict(object, ndraws = ndraws)
  fun(y, yrep, ...)
}

# loo::loo() and loo::waic() methods (registered in R/zzz.R), with relative
# efficiencies from the chains (loo::relative_eff()).
loo_fit <- function(x, ..., r_eff = NULL, cores = getOption("mc.cores", 1)) {
  ll <- log_lik(x)
  if (is.null(r_eff))
    r_eff <- loo::relative_eff(exp(ll), chain_id = attr(ll, "chain_id"), cores = cores)
  attr(ll, "chain_id") <- NULL
  loo::loo(ll, r_eff = r_eff, cores = cores, ...)
}

waic_fit <- function(x, ...) {
  ll <- log_lik(x)
  attr(ll, "chain_id") <- NULL
  loo::waic(ll, ...)
}

#' Expected values, linear predictors and predictive intervals of a fit
#'
#' rstantools' generics on regression fits (rstanarm's conventions), as
#' draws x observations matrices, at the fitted rows or (for
#' [logit_gibbs()] and [probit_gibbs()]) at the rows of `newdata`:
#' * `posterior_epred()`: the draws of the expected response
#'   \eqn{E(y \mid x, \theta)}: \eqn{F(x^\top\beta)} for [logit_gibbs()],
#'   [probit_gibbs()] and [gp_classify()] (`keep_f = TRUE`, fitted rows),
#'   \eqn{x_{ij}^\top\beta_j} for [hier_lm_gibbs()] (`keep_beta = TRUE`,
#'   fitted rows); the column means are [fitted.mcmix_fit()] at the
#'   fitted rows.
#' * `posterior_linpred()`: the draws of the linear predictor
#'   \eqn{x^\top\beta} (the latent \eqn{f} of [gp_classify()]), or with
#'   `transform = TRUE` those of `posterior_epred()`.
#' * `predictive_interval()`: for each observation, the equal-tailed
#'   interval of probability `prob` of the posterior predictive
#'   distribution, from the quantiles of [posterior_predict()]'s draws
#'   (for a binary response its bounds are 0 or 1). They are random
#'   draws: set a seed for reproducible values.
#'
#' Other fits refuse with an error of class `mcmix_error_generic`. The
#' generics are rstantools', re-exported so they work without it.
#'
#' @param object A fit.
#' @param transform `FALSE` (the linear predictor) or `TRUE` (the
#'   expected response, as `posterior_epred()`).
#' @param newdata `logit_gibbs()` and `probit_gibbs()` only: new
#'   covariates, as for their `predict()` methods; `NULL` the fitted rows.
#' @param prob Probability of the interval.
#' @param ... Unused.
#' @return `posterior_epred()`, `posterior_linpred()`: a numeric matrix,
#'   draws (chains stacked) x observations. `predictive_interval()`: a
#'   matrix with one row per observation and columns named like `"5%"`,
#'   `"95%"`.
#' @seealso [predict.mcmix_logit_fit()], [posterior_predict()],
#'   [prior_summary()]
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(50))
#' d$y <- rbinom(50, 1, plogis(d$x))
#' fit <- logit_gibbs(y ~ x, data = d, iter = 200, progress = FALSE)
#' nd <- data.frame(x = c(-1, 0, 1))
#' colMeans(posterior_epred(fit, newdata = nd))
#' dim(posterior_linpred(fit))
#' head(predictive_interval(fit))
#' @name posterior_epred
#' @export
posterior_epred <- function(object, ...) UseMethod("posterior_epred")

#' @rdname posterior_epred
#' @export
posterior_epred.default <- function(object, ...) refuse_not_fit("posterior_epred", object)

#' @rdname posterior_epred
#' @export
posterior_epred.mcmix_fit <- function(object, newdata = NULL, ...) {
  check_no_dots(...)
  predictor_draws(fit_usable(object, quiet = TRUE), newdata, "response", "posterior_epred")
}

#' @rdname posterior_epred
#' @export
posterior_linpred <- function(object, transform = FALSE, ...) UseMethod("posterior_linpred")

#' @rdname posterior_epred
#' @export
posterior_linpred.default <- function(object, transform = FALSE, ...)
  refuse_not_fit("posterior_linpred", object)

#' @rdname posterior_epred
#' @export
posterior_linpred.mcmix_fit <- function(object, transform = FALSE, newdata = NULL, ...) {
  check_no_dots(...)
  transform <- check_flag(transform, "transform")
  predictor_draws(fit_usable(object, quiet = TRUE), newdata,
                  if (transform) "response" else "link", "posterior_linpred")
}

#' @rdname posterior_epred
#' @export
predictive_interval <- function(object, ...) UseMethod("predictive_interval")

#' @rdname posterior_epred
#' @export
predictive_interval.default <- function(object, ...) refuse_not_fit("predictive_interval", object)

#' @rdname posterior_epred
#' @export
predictive_interval.mcmix_fit <- function(object, prob = 0.9, newdata = NULL, ...) {
  check_no_dots(...)
  prob <- check_prob(prob, "prob")
  yrep <- posterior_predict(object, newdata = newdata)
  if (length(dim(yrep)) != 2L)
    refuse_generic("predictive_interval", object,
                   "its data have more than one dimension; use posterior_predict()")
  a <- (1 - prob) / 2
  out <- t(apply(yrep, 2L, stats::quantile, probs = c(a, 1 - a), names = FALSE))
  colnames(out) <- paste0(format(100 * c(a, 1 - a), trim = TRUE, scientific = FALSE,
                                 digits = 3), "%")
  out
}

# Draws (draws x observations) of the expected response (`scale =
# "response"`) or the linear predictor ("link") of a regression fit, at the
# fitted rows or at `newdata` (logit and probit only).
predictor_draws <- function(fit, newdata, scale, generic) UseMethod("predictor_draws")

predictor_draws.mcmix_fit <- function(fit, newdata, scale, generic)
  refuse_generic(generic, fit, "it has no regression predictor")

predictor_draws.mcmix_logit_fit <- function(fit, newdata, scale, generic)
  unname(attr(stats::predict(fit, newdata = newdata, type = scale), "draws"))
predictor_draws.mcmix_probit_fit <- predictor_draws.mcmix_logit_fit

no_newdata <- function(fit, newdata, generic) {
  if (!is.null(newdata))
    stop_input(sprintf("%s(newdata = ) is supported for logit_gibbs() and probit_gibbs() fits only; `object` is %s.",
                       generic, fit_kind_label(fit)), "newdata")
}

predictor_draws.mcmix_gp_classify_fit <- function(fit, newdata, scale, generic) {
  no_newdata(fit, newdata, generic)
  f <- unname(gp_f_draws(fit, generic))
  if (scale == "response") stats::pnorm(f) else f
}

predictor_draws.mcmix_hier_lm_fit <- function(fit, newdata, scale, generic) {
  no_newdata(fit, newdata, generic)
  hier_lm_mean_draws(fit, generic)   # the identity link
}

#' The priors a regression fit used
#'
#' rstantools' `prior_summary()` generic: the prior of the coefficients as
#' the fit used it, whether given or scaled to the data (see
#' [mcmix-defaults]): one row per coefficient with its prior mean and
#' standard deviation (the square roots of the diagonal of the prior
#' covariance, which for a scaled default is a full matrix, kept in
#' attribute `cov`), and the `Priors:` line of `print(fit)` (attribute
#' `label`), and, when the design matrix has an intercept column, the
#' prior of the linear predictor at the mean of the covariates (the
#' centred intercept that the scaled default sets; attribute `centred`,
#' its mean and sd). For [logit_gibbs()] and [probit_gibbs()] the coefficients are
#' \eqn{\beta}; with `prior_var` (a hierarchical prior) the standard
#' deviations are those of \eqn{v_0 = 1} and the inverse-gamma prior of
#' \eqn{v_0} is in the label. For [hier_lm_gibbs()] the rows are the
#' population coefficients \eqn{\mu} (prior `mu0`, `V0`), and attribute
#' `other` holds `eta0`, `S0`, `nu0` and `s0sq`. Other fits refuse with an
#' error of class `mcmix_error_generic`.
#'
#' @param object A fit.
#' @param ... Unused.
#' @return A data frame of class `mcmix_prior_summary` with columns
#'   `term`, `prior` (`"normal"`), `mean` and `sd`.
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(50, 2000, 10))
#' d$y <- rbinom(50, 1, plogis((d$x - 2000) / 10))
#' fit <- logit_gibbs(y ~ x, data = d, iter = 100, progress = FALSE)
#' prior_summary(fit)
#' @export
prior_summary <- function(object, ...) UseMethod("prior_summary")

#' @rdname prior_summary
#' @export
prior_summary.default <- function(object, ...) refuse_not_fit("prior_summary", object)

#' @rdname prior_summary
#' @export
prior_summary.mcmix_fit <- function(object, ...) {
  check_no_dots(...)
  m <- object$model
  regression <- inherits(object, c("mcmix_logit_fit", "mcmix_probit_fit", "mcmix_hier_lm_fit"))
  if (!regression || !is.list(m))
    refuse_generic("prior_summary", object, "it has no prior on regression coefficients")
  hier_lm <- inherits(object, "mcmix_hier_lm_fit")
  mean <- if (hier_lm) m$mu0 else m$prior_mean
  cov <- if (hier_lm) m$V0 else if (is.null(m$prior_cov)) diag(1, length(mean)) else m$prior_cov
  terms <- colnames(object$data$X)
  dimnames(cov) <- list(terms, terms)
  out <- data.frame(term = terms, prior = "normal", mean = as.double(mean),
                    sd = sqrt(diag(cov)), stringsAsFactors = FALSE, row.names = NULL)
  # the prior of the linear predictor at the mean of the covariates (the
  # centred intercept of R/scaled_prior.R), when X has an intercept column
  X <- object$data$X
  a <- colMeans(X)
  centred <- if (design_scales(X)$intercept > 0L)
    c(mean = sum(a * mean), sd = sqrt(max(0, drop(crossprod(a, cov %*% a)))))
  structure(out, class = c("mcmix_prior_summary", "data.frame"),
            label = fit_prior_label(object), cov = cov, centred = centred,   # R/summary.R
            other = if (hier_lm) m[c("eta0", "S0", "nu0", "s0sq")],
            parameter = if (hier_lm) "mu" else "beta")
}

#' @export
print.mcmix_prior_summary <- function(x, digits = 4, ...) {
  cat(sprintf("Prior of the coefficients %s (normal; sd: the square roots of the diagonal of the prior covariance, attribute `cov`):\n",
              attr(x, "parameter")))
  print(as.data.frame(unclass(x)[c("term", "mean", "sd")], stringsAsFactors = FALSE),
        digits = digits, row.names = FALSE)
  ce <- attr(x, "centred")
  if (!is.null(ce))
    cat(sprintf("Linear predictor at the mean of the covariates (the centred intercept): mean %s, sd %s\n",
                format(signif(ce[["mean"]], digits)), format(signif(ce[["sd"]], digits))))
  if (!is.null(attr(x, "label"))) cat("Priors:", attr(x, "label"), "\n")
  invisible(x)
}
