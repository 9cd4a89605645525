# The stats generics on fits: coef(), vcov(), confint(),
# posterior_interval(), fitted(), residuals(), nobs(), sigma(), formula(),
# terms(), model.frame(), model.matrix(), update(), logLik(), window()
# (update() re-evaluates the stored call, see fit_call() in R/chains.R). What a fit's "parameters", "observations" and "fitted
# values" are depends on its kind; the internal generics below say it once
# per kind, and every kind for which a generic has no meaning refuses with
# a message saying what to use instead (never a silent NULL).

# The generics are imported so that their methods register when the
# namespace is loaded with only base attached (e.g. by readRDS() of a fit).
#' @importFrom stats coef vcov confint fitted residuals nobs formula logLik
#' @importFrom stats update window predict sigma terms model.frame model.matrix
NULL

# ---------------------------------------------------------------------------
# What each kind of fit answers

# The kind of a fit, for messages: "sample_mh()", "a Dirichlet process
# mixture", ...
fit_kind_label <- function(fit) {
  k <- sub("^mcmix_(.*)_fit$", "\\1", class(fit)[1L])
  switch(k, mcmix_fit = "a run_kernel() fit", mh = "a sample_mh() fit",
         slice = "a sample_slice() fit", hmc = "a sample_hmc() fit", nuts = "a sample_nuts() fit",
         gibbs = "a sample_gibbs() fit", tempering = "a sample_tempering() fit",
         logit = "a logit_gibbs() fit", probit = "a probit_gibbs() fit",
         hier_lm = "a hier_lm_gibbs() fit", finite = "a finite mixture fit",
         dp = "a Dirichlet process mixture fit", hdp = "a hierarchical Dirichlet process fit",
         lda = "a latent Dirichlet allocation fit", rj = "a reversible-jump mixture fit",
         bn = "a Bayesian network fit", lca = "a latent class fit",
         ising = "an Ising model fit", gp_classify = "a gp_classify() fit",
         sprintf("a %s fit", k))
}

# What to use instead of a generic that does not apply, per kind.
fit_alternative <- function(fit) {
  if (inherits(fit, "mcmix_lca_fit")) return("lca_probs() and cluster_profiles()")
  if (inherits(fit, "mcmix_dp_fit"))
    return(paste0("component_draws() (the cluster parameters of every draw; clusters have ",
                  "no identity across draws), partition() and cluster_profiles() (a point ",
                  "estimate of the clusters) or predict(fit, newdata) (the predictive density)"))
  if (inherits(fit, "mcmix_finite_fit"))
    return("component_draws(), partition() or predict(fit, newdata)")
  if (inherits(fit, "mcmix_hdp_fit")) return("partition(), shared_clusters() and summary()")
  if (inherits(fit, "mcmix_lda_fit")) return("topic_word(), doc_topic() and top_terms()")
  if (inherits(fit, "mcmix_rj_fit")) return("posterior_k(), partition() and summary()")
  if (inherits(fit, "mcmix_bn_fit")) return("bn_marginals() and summary()")
  if (inherits(fit, "mcmix_ising_fit")) return("ising_mean() and summary()")
  if (inherits(fit, "mcmix_gp_classify_fit")) return("predict() and as.matrix()")
  "summary() and as.matrix()"
}

refuse_generic <- function(generic, fit, why = NULL, arg = "object") {
  stop_input(sprintf("%s() does not apply to `%s`, %s%s: use %s.", generic, arg,
                     fit_kind_label(fit), if (is.null(why)) "" else paste0(" (", why, ")"),
                     fit_alternative(fit)), arg,
             class = "mcmix_error_generic")
}

# The default method of the package's own generics: `object` is no fit.
refuse_not_fit <- function(generic, object) {
  stop_input(sprintf(paste0("`object` must be a fit from mcmix (sample_posterior(), ",
                            "logit_gibbs(), sample_nuts(), ...) for %s(), not %s."),
                     generic, describe_value(object)), "object")
}

# The posterior draws of a fit's parameters: a draws x parameters matrix
# (chains stacked), or an error naming what to use.
#   samplers of a target (mh, slice, hmc, nuts, gibbs, tempering, kernels):
#     every trace;
#   logit/probit regression: the coefficients; hier_lm: the population
#     coefficients mu (named after the columns of the design matrix);
#   finite mixtures: weight[k] and the family's parameters of component k
#     (component_draws() relabelled by ECR, so components are comparable
#     across draws).
param_draws <- function(fit, generic = "coef") UseMethod("param_draws")

param_draws.mcmix_fit <- function(fit, generic = "coef") {
  target_kinds <- paste0("mcmix_", c("mh", "slice", "hmc", "nuts", "gibbs", "tempering"), "_fit")
  if (!inherits(fit, target_kinds) && !identical(class(fit), "mcmix_fit"))
    refuse_generic(generic, fit, "its traces are not parameters of a model")
  as.matrix(fit)
}

param_draws.mcmix_dp_fit <- function(fit, generic = "coef")
  refuse_generic(generic, fit, "its clusters have no identity across draws")

param_draws.mcmix_logit_fit <- function(fit, generic = "coef")
  as.matrix(fit)[, fit$model$coef_names, drop = FALSE]

param_draws.mcmix_probit_fit <- function(fit, generic = "coef")
  as.matrix(fit)[, colnames(fit$data$X), drop = FALSE]

param_draws.mcmix_hier_lm_fit <- function(fit, generic = "coef") {
  m <- as.matrix(fit)
  cols <- sprintf("mu[%s]", colnames(fit$data$X))
  out <- m[, cols, drop = FALSE]
  colnames(out) <- colnames(fit$data$X)
  out
}

param_draws.mcmix_finite_fit <- function(fit, generic = "coef") {
  if (inherits(fit, "mcmix_lca_fit")) refuse_generic(generic, fit)
  cd <- tryCatch(component_draws(fit), mcmix_error_input = function(e)
    stop_input(sprintf("%s() needs the component parameters of `object`: %s", generic,
                       conditionMessage(e)), "object"))
  flatten_components(cd)
}

# component_draws() as one draws x parameters matrix: weight[k], then each
# parameter of the family, name[k] (scalar) or name[k,j] (element j of a
# vector or matrix parameter, column-major).
flatten_components <- function(cd) {
  S <- nrow(cd$weights)
  K <- ncol(cd$weights)
  w <- cd$weights
  colnames(w) <- sprintf("weight[%d]", seq_len(K))
  parts <- list(w)
  for (nm in names(cd$params)) {
    a <- cd$params[[nm]]
    len <- length(a) / (S * K)
    m <- matrix(a, S)
    colnames(m) <- if (len == 1) sprintf("%s[%d]", nm, seq_len(K))
      else sprintf("%s[%d,%d]", nm, rep(seq_len(K), len), rep(seq_len(len), each = K))
    parts[[nm]] <- m
  }
  do.call(cbind, unname(parts))
}

#' Posterior summaries of a fit as a model object
#'
#' The generics of \pkg{stats} on fits. What they return depends on what
#' the fit's parameters are:
#' * samplers of a target density ([sample_mh()], [sample_slice()],
#'   [sample_hmc()], [sample_nuts()], [sample_gibbs()], [sample_tempering()],
#'   [run_kernel()]): every trace;
#' * [logit_gibbs()] and [probit_gibbs()]: the regression coefficients;
#'   [hier_lm_gibbs()]: the population-level coefficients \eqn{\mu} (named
#'   after the columns of the design matrix);
#' * finite mixtures ([sample_posterior()] on a [finite_mixture()]):
#'   cluster-level parameters, `weight[k]` and the family's parameters of
#'   component `k` (e.g. `mean[k]`, `cov[k]`), drawn by [component_draws()]
#'   and relabelled there by ECR so that component `k` is the same
#'   component in every draw (the parameters are random draws given the
#'   sampled partitions: set a seed for reproducible values).
#'
#' `coef()` gives the posterior medians, `vcov()` the posterior covariance
#' matrix, `confint()` and `posterior_interval()` equal-tailed credible
#' intervals (quantiles of the pooled draws). Fits for which they have no
#' meaning (the clusters of a Dirichlet process mixture have no identity
#' across draws; an Ising model or a topic model have no coefficients)
#' refuse with an error of class `mcmix_error_generic` that says what to
#' use instead.
#'
#' @param object A fit (an `mcmix_fit`).
#' @param parm Parameters (names or column numbers); default all.
#' @param level,prob Probability of the interval.
#' @param ... Unused.
#' @return `coef()`: a named vector. `vcov()`: a matrix. `confint()`: a
#'   matrix with one row per parameter and columns named like those of
#'   [stats::confint()] (`"2.5 %"`, `"97.5 %"`). `posterior_interval()`:
#'   the same with columns `"2.5%"`, `"97.5%"`, as rstanarm's.
#' @seealso [fitted.mcmix_fit()], [log_lik()], [tidy.mcmix_fit]
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(80))
#' d$y <- rbinom(80, 1, plogis(-0.5 + d$x))
#' fit <- logit_gibbs(y ~ x, data = d, iter = 400, progress = FALSE)
#' coef(fit)
#' vcov(fit)
#' confint(fit)
#' posterior_interval(fit, prob = 0.9)
#' @name coef.mcmix_fit
#' @export
coef.mcmix_fit <- function(object, ...) {
  check_no_dots(...)
  apply(param_draws(object, "coef"), 2L, stats::median)
}

#' @rdname coef.mcmix_fit
#' @export
vcov.mcmix_fit <- function(object, ...) {
  check_no_dots(...)
  stats::cov(param_draws(object, "vcov"))
}

#' @rdname coef.mcmix_fit
#' @export
confint.mcmix_fit <- function(object, parm, level = 0.95, ...) {
  check_no_dots(...)
  ci <- draws_interval(param_draws(object, "confint"), parm, level)
  colnames(ci) <- paste(format(100 * c((1 - level) / 2, (1 + level) / 2), trim = TRUE,
                               scientific = FALSE, digits = 3), "%")
  ci
}

#' @rdname coef.mcmix_fit
#' @export
posterior_interval <- function(object, ...) UseMethod("posterior_interval")

#' @rdname coef.mcmix_fit
#' @export
posterior_interval.mcmix_fit <- function(object, prob = 0.9, parm, ...) {
  check_no_dots(...)
  ci <- draws_interval(param_draws(object, "posterior_interval"), parm, prob, "prob")
  colnames(ci) <- paste0(format(100 * c((1 - prob) / 2, (1 + prob) / 2), trim = TRUE,
                                scientific = FALSE, digits = 3), "%")
  ci
}

#' @rdname coef.mcmix_fit
#' @export
posterior_interval.default <- function(object, ...) refuse_not_fit("posterior_interval", object)

# Equal-tailed intervals of the columns `parm` of a draws matrix.
draws_interval <- function(draws, parm, level, arg = "level") {
  level <- check_prob(level, arg)
  if (!missing(parm)) draws <- select_parm(draws, parm)
  a <- (1 - level) / 2
  t(apply(draws, 2L, stats::quantile, probs = c(a, 1 - a), names = FALSE))
}

select_parm <- function(draws, parm) {
  nm <- colnames(draws)
  ok <- (is.character(parm) || is.numeric(parm)) && length(parm) >= 1L &&
    length(parm) <= length(nm) && !anyNA(parm) && !anyDuplicated(parm) &&
    (if (is.character(parm)) all(parm %in% nm) else
      all(parm == round(parm)) && all(parm >= 1 & parm <= length(nm)))
  if (!ok)
    stop_input(sprintf("`parm` must be distinct names or numbers of parameters (%s), not %s.",
                       list_some(nm), describe_value(parm)),
               "parm")
  draws[, parm, drop = FALSE]
}

# ---------------------------------------------------------------------------
# Observations, fitted values, residuals

# Per kind: list(y = observed responses (NULL when the fit has no
# response), n = number of observations, mu = function() draws x n matrix
# of E[y_i | parameters]) or an error.
fit_observations <- function(fit, generic) UseMethod("fit_observations")

fit_observations.mcmix_fit <- function(fit, generic) {
  n <- fit$N
  if (is.null(n)) {
    if (inherits(fit, "mcmix_hdp_fit") && is.list(fit$data)) n <- sum(lengths(fit$data))
    else refuse_generic(generic, fit, "it has no observations")
  }
  list(y = NULL, n = as.integer(n), mu = NULL)
}

fit_observations.mcmix_logit_fit <- function(fit, generic)
  list(y = fit$data$y, n = nrow(fit$data$X),
       mu = function() attr(stats::predict(fit, type = "response"), "draws"))

fit_observations.mcmix_probit_fit <- fit_observations.mcmix_logit_fit

fit_observations.mcmix_gp_classify_fit <- function(fit, generic) {
  list(y = fit$data$y, n = nrow(fit$data$X), mu = function()
    stats::pnorm(gp_f_draws(fit, generic)))   # Phi(f): the probit link
}

fit_observations.mcmix_hier_lm_fit <- function(fit, generic)
  list(y = fit$data$y, n = length(fit$data$y),
       mu = function() hier_lm_mean_draws(fit, generic))

# The latent function draws f (draws x n) of a gp_classify() fit.
gp_f_draws <- function(fit, generic) {
  cols <- paste0("f[", seq_len(nrow(fit$data$X)), "]")
  m <- as.matrix(fit)
  if (!all(cols %in% colnames(m)))
    stop_input(sprintf("%s() needs the draws of the latent function: fit with `keep_f = TRUE`.",
                       generic), "keep_f")
  m[, cols, drop = FALSE]
}

# x_i' beta_{g_i} for every draw (draws x n) of a hier_lm_gibbs() fit.
hier_lm_mean_draws <- function(fit, generic) {
  X <- fit$data$X
  g <- fit$data$group
  lev <- levels(g)
  cn <- colnames(X)
  m <- as.matrix(fit)
  cols <- sprintf("beta[%s,%s]", rep(lev, each = length(cn)), rep(cn, length(lev)))
  if (!all(cols %in% colnames(m)))
    stop_input(sprintf("%s() needs the draws of the group coefficients: fit with `keep_beta = TRUE`.",
                       generic), "keep_beta")
  out <- matrix(0, nrow(m), nrow(X))
  for (j in seq_along(lev)) {
    rows <- which(g == lev[j])
    b <- m[, cols[(j - 1L) * length(cn) + seq_along(cn)], drop = FALSE]
    out[, rows] <- b %*% t(X[rows, , drop = FALSE])
  }
  out
}

#' Fitted values, residuals and the number of observations
#'
#' `fitted()` is the posterior mean of \eqn{E(y_i \mid \theta)} at every
#' observation: the probability that \eqn{y_i = 1} for [logit_gibbs()],
#' [probit_gibbs()] and [gp_classify()] (with `keep_f = TRUE`), the group
#' regression \eqn{x_{ij}^\top\beta_j} for [hier_lm_gibbs()] (with
#' `keep_beta = TRUE`). `residuals()` is \eqn{y_i} minus the fitted value
#' (response residuals). `nobs()` is the number of observations of a
#' regression or mixture fit. `sigma()` is the posterior median of the
#' residual standard deviation \eqn{\sigma} of a [hier_lm_gibbs()] fit
#' (other fits have none and refuse).
#'
#' Mixture fits have no fitted values: an observation's cluster is a
#' latent quantity, summarised by [partition()] and
#' [cluster_profiles()], and the fitted density by `predict(fit, newdata)`.
#' Fits of a target density have no observations. Both refuse with an
#' error (class `mcmix_error_generic`) saying what to use.
#'
#' @inheritParams coef.mcmix_fit
#' @param type `"response"` (the only residuals defined).
#' @return `fitted()`, `residuals()`: a numeric vector with one value per
#'   observation. `nobs()`: an integer. `sigma()`: a number.
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(60))
#' d$y <- rbinom(60, 1, pnorm(d$x))
#' fit <- probit_gibbs(y ~ x, data = d, iter = 300, progress = FALSE)
#' head(fitted(fit))
#' head(residuals(fit))
#' nobs(fit)
#' @name fitted.mcmix_fit
#' @export
fitted.mcmix_fit <- function(object, ...) {
  check_no_dots(...)
  obs <- fit_observations(object, "fitted")
  if (is.null(obs$mu)) refuse_generic("fitted", object, "its observations have no fitted values")
  colMeans(obs$mu())
}

#' @rdname fitted.mcmix_fit
#' @export
residuals.mcmix_fit <- function(object, type = "response", ...) {
  check_no_dots(...)
  type <- match_choice(type, "response", "type")
  obs <- fit_observations(object, "residuals")
  if (is.null(obs$mu)) refuse_generic("residuals", object, "its observations have no fitted values")
  as.double(obs$y) - colMeans(obs$mu())
}

#' @rdname fitted.mcmix_fit
#' @param use.fallback As for [stats::nobs()]: accepted for [stats::sigma()],
#'   which passes it; a fit always knows its number of observations.
#' @export
nobs.mcmix_fit <- function(object, use.fallback = FALSE, ...) {
  check_no_dots(...)
  check_flag(use.fallback, "use.fallback")
  fit_observations(object, "nobs")$n
}

#' @rdname fitted.mcmix_fit
#' @export
sigma.mcmix_fit <- function(object, use.fallback = TRUE, ...) {
  check_no_dots(...)
  check_flag(use.fallback, "use.fallback")
  s2 <- if (inherits(object, "mcmix_hier_lm_fit")) draws_column(object, "sigma2")
  if (is.null(s2))
    refuse_generic("sigma", object, "it has no residual standard deviation")
  stats::median(sqrt(s2))
}

#' The model formula of a regression fit
#'
#' The formula a [logit_gibbs()], [probit_gibbs()] or [hier_lm_gibbs()] fit was given; an
#' error (class `mcmix_error_generic`) for fits from a design matrix and
#' for other fits.
#'
#' @param x A fit.
#' @param ... Unused.
#' @return A formula.
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(40))
#' d$y <- rbinom(40, 1, 0.5)
#' formula(logit_gibbs(y ~ x, data = d, iter = 100, progress = FALSE))
#' @export
formula.mcmix_fit <- function(x, ...) {
  check_no_dots(...)
  tt <- fit_terms(x, "formula", "x")
  f <- stats::formula(tt)
  attributes(f) <- list(class = "formula", .Environment = environment(tt))
  f
}

# The terms (with the response) of a formula fit of logit_gibbs() or
# probit_gibbs(), or a classed refusal naming `arg`.
fit_terms <- function(x, generic, arg = "object") {
  if (!inherits(x, c("mcmix_logit_fit", "mcmix_probit_fit", "mcmix_hier_lm_fit")))
    refuse_generic(generic, x, "it has no model formula", arg = arg)
  tt <- x$model$terms
  if (is.null(tt))
    stop_input(sprintf(paste0("%s() does not apply: `%s` was fitted from a design matrix, ",
                              "not a formula: use coef() (named after its columns) and %s$data$X."),
                       generic, arg, arg),
               arg, class = "mcmix_error_generic")
  tt
}

#' The terms, model frame and design matrix of a regression fit
#'
#' As for [stats::lm()] fits: `terms()` gives the terms of the formula of a
#' [logit_gibbs()], [probit_gibbs()] or [hier_lm_gibbs()] fit, `model.frame()` the data frame
#' of the variables of the formula that was fitted (with attribute
#' `terms`), and `model.matrix()` the design matrix of the fit (for
#' [logit_gibbs()] and [probit_gibbs()] fits from a formula or a matrix,
#' and [hier_lm_gibbs()] fits). Fits from a design matrix have no terms and
#' no model frame, and other fits none of the three: they refuse with an
#' error of class `mcmix_error_generic`.
#'
#' @param x,formula,object A fit.
#' @param ... Unused.
#' @return `terms()`: a `terms` object. `model.frame()`: a data frame.
#'   `model.matrix()`: a numeric matrix, one row per observation.
#' @seealso [formula.mcmix_fit()], [update.mcmix_fit()]
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(40), g = gl(2, 20))
#' d$y <- rbinom(40, 1, plogis(d$x))
#' fit <- logit_gibbs(y ~ x + g, data = d, iter = 100, progress = FALSE)
#' terms(fit)
#' head(model.frame(fit))
#' head(model.matrix(fit))
#' @name terms.mcmix_fit
#' @export
terms.mcmix_fit <- function(x, ...) {
  check_no_dots(...)
  fit_terms(x, "terms", "x")
}

#' @rdname terms.mcmix_fit
#' @export
model.frame.mcmix_fit <- function(formula, ...) {
  check_no_dots(...)
  fit_terms(formula, "model.frame", "formula")
  mf <- formula$data$frame
  if (is.null(mf))
    stop_input(paste0("model.frame() needs the model frame, which this fit (from an ",
                      "earlier version of mcmix) did not keep: refit it with update()."),
               "formula", class = "mcmix_error_generic")
  mf
}

#' @rdname terms.mcmix_fit
#' @export
model.matrix.mcmix_fit <- function(object, ...) {
  check_no_dots(...)
  if (!inherits(object, c("mcmix_logit_fit", "mcmix_probit_fit", "mcmix_hier_lm_fit")))
    refuse_generic("model.matrix", object, "it has no design matrix")
  object$data$X
}

#' Refit with changed arguments or formula
#'
#' As [stats::update()]: re-evaluates the call that made the fit, with the
#' arguments in `...` changed (`NULL` removes one). For fits of
#' [logit_gibbs()], [probit_gibbs()] and [hier_lm_gibbs()] from a formula, `formula.` changes
#' the model formula, with `.` standing for the old one as in
#' [stats::update.formula()] (`update(fit, . ~ . + age)`). Other fits have
#' no formula, and `formula.` is then refused with an error of class
#' `mcmix_error_generic`; change their design matrix with `x = `.
#'
#' @param object A fit.
#' @param formula. Changes to the formula (formula fits only).
#' @param ... Arguments of the fitting function to change.
#' @param evaluate `FALSE` returns the new call instead of evaluating it.
#' @return A new fit (or a call).
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(60), z = rnorm(60))
#' d$y <- rbinom(60, 1, plogis(d$x - d$z))
#' fit <- logit_gibbs(y ~ x, data = d, iter = 200, progress = FALSE)
#' fit2 <- update(fit, . ~ . + z)
#' coef(fit2)
#' update(fit, iter = 100, evaluate = FALSE)
#' @export
update.mcmix_fit <- function(object, formula., ..., evaluate = TRUE) {
  call <- object$call
  if (!is.call(call))
    stop_input("update() needs the call that made `object`, which it does not hold.",
               "object", class = "mcmix_error_generic")
  evaluate <- check_flag(evaluate, "evaluate")
  extras <- match.call(expand.dots = FALSE)$...
  if (!missing(formula.)) {
    if (!inherits(formula., "formula"))
      stop_input(sprintf("`formula.` must be a formula such as . ~ . + z, not %s.",
                         describe_value(formula.)), "formula.")
    if (!inherits(object, c("mcmix_logit_fit", "mcmix_probit_fit", "mcmix_hier_lm_fit")) ||
        is.null(object$model$terms))
      stop_input(sprintf(paste0("`formula.` applies to fits from a formula (logit_gibbs(), ",
                                "probit_gibbs(), hier_lm_gibbs()); `object` is %s without one: change its ",
                                "design matrix with update(object, x = ...)."),
                         fit_kind_label(object)), "formula.", class = "mcmix_error_generic")
    call$x <- stats::update.formula(stats::formula(object), formula.)
  }
  if (length(extras) && (is.null(names(extras)) || any(!nzchar(names(extras)))))
    stop_input("The arguments to change in `...` must be named, as in update(object, iter = 500).",
               "...")
  for (a in names(extras)) call[[a]] <- extras[[a]]
  if (!evaluate) return(call)
  eval(call, parent.frame())
}

#' Predictions: which fits have them
#'
#' `predict()` applies to fits of a model of data: [logit_gibbs()]
#' ([predict.mcmix_logit_fit()]), [probit_gibbs()]
#' ([predict.mcmix_probit_fit()]), [hier_lm_gibbs()]
#' ([predict.mcmix_hier_lm_fit()]), [gp_classify()], mixtures
#' ([predict.mcmix_mixture_fit()]), [hdp_mixture()] fits
#' ([predict.mcmix_hdp_fit()]) and topic models. On other fits (samplers
#' of a target density such as [sample_mh()] and [sample_nuts()], Ising
#' models, Bayesian networks) it is an error of class
#' `mcmix_error_generic` saying what to use instead: the draws
#' (`as.matrix(fit)`) and `summary()`.
#'
#' @param object A fit.
#' @param ... Unused.
#' @return No value: an error.
#' @examples
#' fit <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 100, progress = FALSE)
#' try(predict(fit))
#' @export
predict.mcmix_fit <- function(object, ...)
  refuse_generic("predict", object, "it is not a fit of a model of data")

#' The log-likelihood of a fit, as the log pointwise predictive density
#'
#' A Bayesian fit has no maximised likelihood. `logLik()` returns the log
#' pointwise predictive density of the fitted data (Gelman, Hwang and
#' Vehtari 2014),
#' \deqn{\mathrm{lppd} = \sum_{i=1}^n \log \frac{1}{S} \sum_{s=1}^S
#'   p(y_i \mid \theta^{(s)}),}
#' computed from [log_lik()] (so, for mixtures, conditional on the cluster
#' parameters as described there), with attribute `df` the effective number
#' of parameters of WAIC, \eqn{p_{waic} = \sum_i \mathrm{Var}_s \log p(y_i
#' \mid \theta^{(s)})}, and `nobs`. So `AIC(fit)` is WAIC on the deviance
#' scale, \eqn{-2\,\mathrm{lppd} + 2 p_{waic}}; prefer `loo::loo(fit)` for
#' model comparison.
#'
#' @inheritParams coef.mcmix_fit
#' @return An object of class `logLik`.
#' @references Gelman, A., Hwang, J. and Vehtari, A. (2014). Understanding
#'   predictive information criteria for Bayesian models. *Statistics and
#'   Computing* 24, 997-1016.
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(60))
#' d$y <- rbinom(60, 1, plogis(d$x))
#' fit <- logit_gibbs(y ~ x, data = d, iter = 300, progress = FALSE)
#' logLik(fit)
#' AIC(fit)   # WAIC
#' @export
logLik.mcmix_fit <- function(object, ...) {
  check_no_dots(...)
  ll <- log_lik(object)
  mx <- apply(ll, 2L, max)
  lppd <- sum(mx + log(colMeans(exp(sweep(ll, 2L, mx)))))
  p_waic <- sum(apply(ll, 2L, stats::var))
  structure(lppd, df = p_waic, nobs = ncol(ll), class = "logLik")
}

# ---------------------------------------------------------------------------
# window()

#' Draws of a fit within a range of iterations
#'
#' As [stats::window()] for time series and coda's `window.mcmc()`: keeps
#' the draws of every chain whose iteration number (burn-in counted, as in
#' `as.data.frame(fit)$.iteration`) lies in `start` .. `end`, every
#' `thin`-th of them. The result is a fit for every method but [extend()]
#' (its chains no longer end at their final state).
#'
#' @param x A fit.
#' @param start,end First and last iteration numbers to keep (default: all).
#' @param thin Keep every `thin`-th kept draw (a positive integer).
#' @param ... Unused.
#' @return An `mcmix_fit` with fewer draws.
#' @examples
#' set.seed(1)
#' fit <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 400, burnin = 100,
#'                  progress = FALSE)
#' w <- window(fit, start = 301, thin = 2)
#' nrow(as.matrix(w))
#' range(as.data.frame(w)$.iteration)
#' @export
window.mcmix_fit <- function(x, start = NULL, end = NULL, thin = 1, ...) {
  check_no_dots(...)
  s <- x$settings
  n <- min(fit_draw_counts(x))   # R/summary.R
  its <- fit_iterations(x, n)   # R/convert.R
  first <- if (n) its[1L] else s$burnin + s$thin
  last <- if (n) its[n] else first
  start <- if (is.null(start)) first else check_number(start, "start")
  end <- if (is.null(end)) last else check_number(end, "end")
  thin <- check_count(thin, "thin", 1L)
  if (start > end)
    stop_input(sprintf("`start` (%s) must not be after `end` (%s).", format(start),
                       format(end)), "start")
  if (!n)
    stop_input(sprintf(paste0("`x` has a chain with no kept draw (%s): extend(x, iter = 0) ",
                              "completes the run."),
                       paste(fit_draw_counts(x), collapse = ", ")), "x")
  keep <- which(its >= start & its <= end)
  keep <- keep[seq(1L, length(keep), by = thin)[seq_len(ceiling(length(keep) / thin))]]
  if (!length(keep) || anyNA(keep))
    stop_input(sprintf("`start` .. `end` (%s .. %s) holds no kept draw: the draws are at iterations %s .. %s.",
                       format(start), format(end), format(first), format(last)), "start")
  j0 <- keep[1L]
  for (i in seq_along(x$chains)) {
    ch <- x$chains[[i]]
    ch$traces <- ch$traces[keep, , drop = FALSE]
    if (!is.null(ch$labels) && NROW(ch$labels)) ch$labels <- ch$labels[keep, , drop = FALSE]
    if (NROW(ch$labels_subset)) ch$labels_subset <- ch$labels_subset[keep, , drop = FALSE]
    if (length(ch$extra) == NROW(x$chains[[i]]$traces))   # one item per kept draw
      ch$extra <- ch$extra[keep]
    x$chains[[i]] <- ch
  }
  # kept draw j of the result is iteration burnin' + thin' * j
  x$settings$thin <- s$thin * thin
  x$settings$burnin <- s$burnin + s$thin * j0 - x$settings$thin
  x$settings$iter <- x$settings$thin * length(keep)
  x$windowed <- TRUE
  x
}
