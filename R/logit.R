# Bayesian logistic regression by auxiliary variables (src/model_logit.c,
# src/rng_polyagamma.c).

#' Bayesian logistic regression by Gibbs sampling
#'
#' Auxiliary-variable Gibbs samplers for
#' \deqn{P(y_i = 1 \mid \beta) = F(x_i^\top \beta), \quad
#'       \beta \sim N(b_0, B_0),}
#' shaped like [probit_gibbs()]. Three schemes (Murphy 2012,
#' section 24.5.1):
#' * `"polya_gamma"` (the default; Polson, Scott and Windle 2013): exact for
#'   the logistic \eqn{F}. Each iteration draws \eqn{\omega_i \sim
#'   PG(1, x_i^\top\beta)} (a compiled alternating-series sampler, see
#'   [rpolyagamma()]), then \eqn{\beta} from its normal full conditional
#'   with precision \eqn{B_0^{-1} + X^\top \Omega X} and mean
#'   \eqn{(B_0^{-1} + X^\top \Omega X)^{-1}(B_0^{-1} b_0 + X^\top(y - 1/2))}.
#' * `"holmes_held"` (Holmes and Held 2006): exact for the logistic
#'   \eqn{F}, writing the logistic error as a normal scale mixture with
#'   variance \eqn{\lambda_i = (2\psi_i)^2}, \eqn{\psi_i} Kolmogorov-Smirnov
#'   distributed. Given \eqn{\beta} the latent utilities are truncated
#'   logistic variates and \eqn{\lambda_i} is drawn by Holmes and Held's
#'   rejection sampler; then \eqn{\beta} given both.
#' * `"student_t"` (Albert and Chib 1993): the logistic error approximated
#'   by a scaled Student t, \eqn{\epsilon_i = s\, t_\nu}, written as a gamma
#'   scale mixture of normals (equations 24.88-24.91), so the link is
#'   \eqn{F(\eta) = T_\nu(\eta / s)}. With one value of `nu` it is fixed;
#'   with several, \eqn{\nu} is sampled on that grid (uniform prior) from
#'   equation 24.92 and traced as `nu`.
#'
#' With `prior_var = c(d1, d2)` the prior is hierarchical, \eqn{\beta \sim
#' N(b_0, v_0 I)} with \eqn{v_0 \sim IG(d_1, d_2)}, and \eqn{v_0} is drawn
#' from \eqn{IG(d_1 + p/2, d_2 + |\beta - b_0|^2/2)} each iteration (traced
#' as `v0`); `prior_cov` is then not used. All three schemes accept it.
#'
#' @section Default prior (scaled to the covariates): With `prior_cov =
#'   NULL` (and no `prior_var`) the prior follows the units of the
#'   covariates, as rstanarm's default priors do (formulas on
#'   [mcmix-defaults]): with an intercept column, the centred intercept
#'   (the linear predictor at the mean of the covariates) is
#'   \eqn{N(b, 2.5^2)} and the coefficient of column j is
#'   \eqn{N(b_j, (2.5 / s_j)^2)}, independently, with \eqn{s_j} the
#'   standard deviation of column j; \eqn{B_0} is that prior on the
#'   coefficients of the design matrix, a full covariance matrix. Without
#'   an intercept column \eqn{s_j} is the root mean square of column j.
#'   A covariate in dollars or in calendar years then gets a prior on its
#'   own scale, where the former default `prior_cov = 100` (give it to
#'   reproduce such a fit) pulled the intercept of a covariate near 2000
#'   towards 0. The `"student_t"` scheme with its default `t_scale` has its
#'   coefficients on the logit scale too. `print()` shows which prior was
#'   used (the `Priors:` line).
#'
#' @inheritParams probit_gibbs
#' @param prior_cov Prior covariance \eqn{B_0}: a positive number (times
#'   the identity), a vector of variances, or a positive definite matrix;
#'   `NULL` (the default) scales it to the covariates (see "Default
#'   prior").
#' @param method `"polya_gamma"`, `"holmes_held"` or `"student_t"`.
#' @param prior_var `NULL` (the prior covariance is `prior_cov`), or the
#'   shape and scale `c(d1, d2)` of an inverse-gamma prior on the prior
#'   variance \eqn{v_0} of every coefficient (the prior covariance is then
#'   \eqn{v_0 I}; do not give `prior_cov` with it).
#' @param nu `"student_t"` only: the degrees of freedom (one number between
#'   0.01 and 1e6), or a grid of at least two such values on which
#'   \eqn{\nu} is sampled.
#' @param t_scale `"student_t"` only: the scale \eqn{s} of the t errors. By
#'   default, for one `nu` above 2, the scale whose variance matches the
#'   logistic's \eqn{\pi^2/3}, \eqn{s = \pi\sqrt{(\nu-2)/(3\nu)}}, so the
#'   coefficients are on the logit scale; otherwise 1 (the "robit" model).
#'   A given scale must be between 1e-6 and 1e6.
#' @return An `mcmix_fit` (class `mcmix_logit_fit`) whose traces are the
#'   coefficients (named after the columns of the design matrix), then `v0`
#'   and `nu` when sampled. Chains start at the prior mean plus a normal
#'   jitter with standard deviation 1 on the centred intercept and
#'   \eqn{1 / s_j} on the coefficient of column j. [extend()] continues
#'   the chains; [predict()] gives posterior probabilities with credible
#'   intervals.
#' @references Holmes, C. C. and Held, L. (2006). Bayesian auxiliary
#'   variable models for binary and multinomial regression. *Bayesian
#'   Analysis* 1, 145-168.
#'   Polson, N. G., Scott, J. G. and Windle, J. (2013). Bayesian inference
#'   for logistic models using Polya-Gamma latent variables. *JASA* 108,
#'   1339-1349.
#'   Albert, J. H. and Chib, S. (1993). Bayesian analysis of binary and
#'   polychotomous response data. *JASA* 88, 669-679.
#'   Murphy, K. P. (2012). *Machine Learning: A Probabilistic Perspective*.
#'   MIT Press. Section 24.5.1.
#' @seealso [probit_gibbs()], [predict.mcmix_logit_fit()], [rpolyagamma()];
#'   [mcmix-defaults] for the default priors of every sampler.
#' @examples
#' set.seed(1)
#' x <- rnorm(100)
#' y <- rbinom(100, 1, plogis(-0.5 + 1.5 * x))
#' d <- data.frame(x = x, y = y)
#' fit <- logit_gibbs(y ~ x, data = d, iter = 500, burnin = 100)
#' colMeans(as.matrix(fit))
#' head(predict(fit, newdata = data.frame(x = c(-1, 0, 1))))
#' @export
logit_gibbs <- function(x, y = NULL, data = NULL,
                        method = c("polya_gamma", "holmes_held", "student_t"),
                        prior_mean = 0, prior_cov = NULL, prior_var = NULL,
                        nu = 8, t_scale = NULL, iter = 1000, burnin = floor(iter / 2),
                        thin = 1, chains = 1,
                        cores = mcmix_option("cores"), backend = mcmix_option("backend"),
                        progress = interactive(), subset = NULL, na.action = NULL,
                        weights = NULL, offset = NULL, ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  check_dots(list(...))   # R/checks.R
  call <- match.call()
  method <- match_choice(method, c("polya_gamma", "holmes_held", "student_t"), "method")
  des <- binary_design(x, y, data, eval_in_data(substitute(subset), data, parent.frame()),
                       na.action, weights, offset, "logit_gibbs")
  X <- des$X
  p <- ncol(X)
  b0 <- check_vector(prior_mean, "prior_mean", p)
  hier <- !is.null(prior_var)
  plabel <- NULL
  if (hier) {
    if (!is.null(prior_cov))
      stop(paste0("`prior_cov` and `prior_var` cannot both be given: with `prior_var` ",
                  "the prior covariance is v0 times the identity."), call. = FALSE)
    if (!is.numeric(prior_var) || length(prior_var) != 2L || anyNA(prior_var) ||
        any(!is.finite(prior_var)) || any(prior_var <= 0))
      stop(sprintf("`prior_var` must be NULL or two positive numbers c(shape, scale), not %s.",
                   describe_value(prior_var)), call. = FALSE)
    B0 <- diag(1, p)
    prior_prec <- B0
    prior_lin <- b0
    pr <- binary_prior(X, NULL, "logit", "logit_gibbs")   # for the starting values
  } else {
    prior_var <- c(1, 1)
    pr <- binary_prior(X, prior_cov, "logit", "logit_gibbs", !missing(prior_mean))   # R/scaled_prior.R
    B0 <- pr$cov
    prior_prec <- pr$prec
    prior_lin <- as.double(prior_prec %*% b0)
    plabel <- pr$label
  }
  if (hier) plabel <- "prior_var as given (beta ~ N(prior_mean, v0 I))"
  nu_grid <- double()
  nu0 <- 1
  s <- 1
  if (method == "student_t") {
    if (!is.numeric(nu) || !length(nu) || anyNA(nu) || any(!is.finite(nu)) ||
        any(nu <= 0) || anyDuplicated(nu))
      stop(sprintf("`nu` must be a positive number or a grid of distinct positive numbers, not %s.",
                   describe_value(nu)), call. = FALSE)
    nu <- as.double(nu)
    # beyond these the t scale mixture's precisions under- or overflow
    # (the normal limit is reached long before 1e6 degrees of freedom)
    if (any(nu < 1e-2) || any(nu > 1e6))
      stop_input(sprintf("`nu` must be between 0.01 and 1e6, not %s.",
                         format(nu[nu < 1e-2 | nu > 1e6][1L])), "nu")
    if (length(nu) > 1L) nu_grid <- sort(nu)
    nu0 <- if (length(nu) > 1L) nu_grid[ceiling(length(nu_grid) / 2)] else nu
    s <- if (!is.null(t_scale)) check_number(t_scale, "t_scale", 1e-6, 1e6, open_lower = TRUE)
         else if (length(nu) == 1L && nu > 2) pi * sqrt((nu - 2) / (3 * nu)) else 1
  }
  data_c <- list(n = nrow(X), p = p, method = match(method, c("polya_gamma",
                   "holmes_held", "student_t")) - 1L,
                 X = unname(X * 1.0), y = des$y, prior_prec = unname(prior_prec),
                 prior_lin = as.double(prior_lin), prior_mean = b0,
                 hier = as.integer(hier), v0_shape = as.double(prior_var[1L]),
                 v0_scale = as.double(prior_var[2L]), t_scale = as.double(s),
                 nu_grid = nu_grid)
  names_out <- c(colnames(X), if (hier) "v0", if (length(nu_grid)) "nu")
  # start near the prior mean, jittered on the scale of each covariate
  # (R/scaled_prior.R): standard deviation 1 / sd(x_j) for the slopes, 1
  # for the intercept of the centred covariates
  v0_init <- if (hier) prior_var[2L] / (prior_var[1L] + 1) else 1
  kernel <- model_kernel(paste0("logit_gibbs (", method, ")"),
    function(d, s, c) .Call(C_ffi_logit_step, d, s, c),
    data_c,
    init = function(chain) list(beta = scaled_jitter(pr$scaled, b0, stats::rnorm(p), 1 / 2.5),
                                v0 = v0_init, nu = nu0),
    trace_names = names_out)
  run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress, labels = TRUE,
            model = structure(list(type = "logit", method = method, prior_mean = b0,
                         prior_cov = if (hier) NULL else B0,
                         prior_var = if (hier) prior_var else NULL,
                         nu = if (method == "student_t") nu else NULL,
                         t_scale = if (method == "student_t") s else NULL,
                         terms = des$terms, xlevels = des$xlevels,
                         coef_names = colnames(X), prior_label = plabel),
                         class = "mcmix_logit_model"),
            kind = "logit",
            data = list(X = X, y = des$y, frame = des$frame, na.action = des$na.action),
            call = call, class = "mcmix_logit_fit")
}

#' @export
print.mcmix_logit_model <- function(x, ...) {
  scheme <- switch(x$method, polya_gamma = "Polya-Gamma auxiliary variables",
                   holmes_held = "Holmes-Held KS scale mixture",
                   student_t = "Student-t approximation")
  link <- if (x$method != "student_t") "logistic link" else
    sprintf("t link (nu %s, scale %s)",
            if (length(x$nu) > 1L) "sampled on a grid" else format(x$nu),
            format(signif(x$t_scale, 4)))
  prior <- if (is.null(x$prior_var)) "normal prior on beta" else
    sprintf("beta ~ N(b0, v0 I), v0 ~ IG(%s, %s)", format(x$prior_var[1L]),
            format(x$prior_var[2L]))
  cat("Logistic regression, ", scheme, ", ", link, ", ", prior, "\n", sep = "")
  invisible(x)
}

# The design matrix and binary response of probit_gibbs() and logit_gibbs():
# `x` a formula (evaluated in `data`) or a numeric matrix with `y`.
binary_design <- function(x, y, data, subset = NULL, na.action = NULL, weights = NULL,
                          offset = NULL, fitter = "the sampler") {
  # lm()'s arguments that a Bernoulli Gibbs sampler cannot use are refused,
  # never ignored (a weight or an offset dropped silently is a wrong answer)
  for (a in c("weights", "offset"))
    if (!is.null(get(a)))
      stop_input(sprintf(paste0("`%s` is not supported by %s(): the sampler models one ",
                                "Bernoulli trial per row with the linear predictor x'beta%s."),
                         a, fitter,
                         if (a == "weights") " (repeat the rows a whole weight counts, or give the rows one by one)"
                         else " (put the covariate in the formula to estimate its coefficient)"),
                 a)
  terms <- NULL
  xlevels <- NULL
  mf <- NULL
  omitted <- NULL
  if (inherits(x, "formula")) {
    if (!is.null(y))
      stop("`y` must be NULL when `x` is a formula (the response is on its left-hand side).",
           call. = FALSE)
    na_fun <- check_na_action(na.action)
    mf <- tryCatch(model_frame_rows(list(formula = x, data = data), subset),
                   error = function(e) {
                     if (inherits(e, "mcmix_error")) base::stop(e)
                     stop(sprintf("`x` (a formula) cannot be evaluated in `data`: %s",
                                  conditionMessage(e)), call. = FALSE)
                   })
    if (!is.null(attr(attr(mf, "terms"), "offset")))
      stop_input(paste0("`x` has an offset() term, which ", fitter, "() does not support: ",
                        "put the variable in the formula to estimate its coefficient."), "x")
    if (anyNA(mf)) {
      if (is.null(na_fun))
        stop(sprintf("`data` has missing values in the variables of `x` (column %s).",
                     names(mf)[vapply(mf, anyNA, logical(1))][1L]), call. = FALSE)
      mf <- na_fun(mf)
      omitted <- attr(mf, "na.action")
    }
    y <- stats::model.response(mf)
    if (is.null(y))
      stop("`x` must be a formula with a response, like y ~ x1 + x2.", call. = FALSE)
    terms <- attr(mf, "terms")
    X <- stats::model.matrix(terms, mf)
    xlevels <- stats::.getXlevels(terms, mf)
    if (any(!is.finite(X)))
      stop("`data` has infinite values in the variables of `x`.", call. = FALSE)
    check_magnitude(X, "data")
    y_arg <- "response"
  } else {
    X <- check_matrix(x, "x")
    colnames(X) <- design_names(X, "beta")
    y_arg <- "y"
    if (!is.null(subset)) {   # rows of the design matrix and of y
      rows <- subset_rows(subset, nrow(X))
      X <- X[rows, , drop = FALSE]
      if (length(y) == nrow(check_matrix(x, "x"))) y <- y[rows]
    }
  }
  if (nrow(X) < 1L || ncol(X) < 1L)
    stop("`x` must give a design matrix with at least one row and one column.",
         call. = FALSE)
  list(X = X, y = check_binary(y, y_arg, nrow(X)), terms = terms, xlevels = xlevels,
       frame = mf, na.action = omitted)
}

# The rows of an n-row design that `subset` selects: a logical vector of
# length n (NA: not selected, as in lm()), or row numbers (positive, or
# negative to leave rows out) without NA, each row at most once; at least
# one row.
subset_rows <- function(subset, n) {
  bad <- function(why)
    stop_input(sprintf("`subset` must select rows of the data (%s), not %s.", why,
                       describe_value(subset)), "subset")
  if (is.logical(subset) && is.null(dim(subset))) {
    # (NA selects nothing, as in lm())
    if (length(subset) != n) bad(sprintf("a logical vector of length %d", n))
    rows <- which(subset)
  } else if (is.numeric(subset) && is.null(dim(subset)) && !is.object(subset)) {
    if (!length(subset) || anyNA(subset) || any(subset != round(subset)) ||
        any(abs(subset) > n) || any(subset == 0) || (any(subset < 0) && any(subset > 0)))
      bad(sprintf("row numbers between 1 and %d, or all negative to leave rows out", n))
    if (anyDuplicated(subset)) bad("each row at most once")
    rows <- seq_len(n)[subset]
  } else {
    bad("a logical vector or row numbers")
  }
  if (!length(rows)) bad("at least one row")
  rows
}

# The model frame of stats::model.frame() arguments `args` (formula, data,
# ...) with missing values kept, restricted to the rows `subset` selects
# (checked by subset_rows() against the frame's rows).
model_frame_rows <- function(args, subset) {
  args$na.action <- stats::na.pass
  if (!is.null(subset)) {
    n <- nrow(do.call(stats::model.frame, args))
    args$subset <- subset_rows(subset, n)
  }
  do.call(stats::model.frame, args)
}

# `subset` of a formula fitter, evaluated as lm() does: in `data`, then in
# the caller's environment.
eval_in_data <- function(expr, data, env) {
  if (is.null(expr)) return(NULL)
  eval(expr, if (is.null(data)) NULL else as.data.frame(data), env)
}

# `na.action` of a formula fitter: NULL (the default) stops at a missing
# value, naming the column; else a function (or its name) such as
# stats::na.omit or stats::na.exclude, applied to the model frame.
check_na_action <- function(na.action) {
  if (is.null(na.action)) return(NULL)
  f <- if (is.character(na.action) && length(na.action) == 1L)
         tryCatch(match.fun(na.action), error = function(e) NULL) else na.action
  if (!is.function(f))
    stop_input(sprintf("`na.action` must be NULL or a function such as na.omit, not %s.",
                       describe_value(na.action)), "na.action")
  f
}

#' Posterior predictive probabilities of a logistic regression fit
#'
#' For each row of `newdata`, the posterior mean of \eqn{P(y = 1 \mid x)}
#' and an equal-tailed credible interval, over the kept draws of every
#' chain. The link is the one the model was fitted with (logistic, or the
#' scaled Student t of `method = "student_t"`, with the sampled \eqn{\nu}
#' when it was sampled).
#'
#' @param object An `mcmix_logit_fit` from [logit_gibbs()].
#' @param newdata A data frame (formula fits) or a numeric matrix with the
#'   columns of the design matrix (matrix fits). Default: the data fitted.
#' @param type `"response"` or its synonym `"prob"` (probabilities; the
#'   names of [stats::predict.glm()] and of earlier versions), or `"link"`
#'   (the linear predictor \eqn{x^\top\beta}).
#' @param level Probability of the credible interval.
#' @param ... Unused.
#' @return A data frame with columns `fit` (the posterior mean; named as
#'   by [stats::predict.lm()] and for [probit_gibbs()] fits), `lower`,
#'   `upper` (one row per row of `newdata`), with the draws (rows = draws)
#'   in attribute `draws`. The former name `mean` of the column `fit`
#'   still works with `$`, with a deprecation warning.
#' @examples
#' set.seed(2)
#' x <- rnorm(60)
#' y <- rbinom(60, 1, plogis(x))
#' fit <- logit_gibbs(y ~ x, data = data.frame(x = x, y = y), iter = 300,
#'                    burnin = 100)
#' predict(fit, newdata = data.frame(x = c(-2, 0, 2)))
#' @export
predict.mcmix_logit_fit <- function(object, newdata = NULL,
                                    type = c("prob", "response", "link"),
                                    level = 0.95, ...) {
  type <- match_choice(type, c("prob", "response", "link"), "type")
  level <- check_prob(level, "level")
  m <- object$model
  X <- binary_newdata(object, newdata)
  draws <- do.call(rbind, lapply(object$chains, function(ch) ch$traces))
  if (is.null(draws) || !nrow(draws))
    stop("`object` holds no kept draws.", call. = FALSE)
  check_predict_budget(nrow(draws), nrow(X))   # R/chains_budget.R
  eta <- draws[, m$coef_names, drop = FALSE] %*% t(X)
  out <- if (type == "link") eta else if (m$method != "student_t") stats::plogis(eta)
    else {
      nu <- if ("nu" %in% colnames(draws)) draws[, "nu"] else m$nu
      stats::pt(eta / m$t_scale, df = nu)
    }
  prediction_frame(out, level)
}

# The design matrix of a logit_gibbs() or probit_gibbs() fit at `newdata`:
# a data frame with the variables of the formula (formula fits) or a
# matrix with the columns of the design matrix; NULL gives the fitted rows.
binary_newdata <- function(object, newdata) {
  X <- object$data$X
  if (is.null(newdata)) return(X)
  tt <- object$model$terms
  if (!is.null(tt)) {
    if (!is.data.frame(newdata) && !is.list(newdata))
      stop_input(sprintf("`newdata` must be a data frame with the variables of the formula, not %s.",
                         describe_value(newdata)), "newdata")
    tt <- stats::delete.response(tt)
    xlev <- if (!is.null(object$model$xlevels)) object$model$xlevels else object$xlevels
    mf <- tryCatch(stats::model.frame(tt, newdata, xlev = xlev, na.action = stats::na.pass),
                   error = function(e)
                     stop_input(sprintf("`newdata` lacks the variables of the model: %s",
                                        conditionMessage(e)), "newdata"))
    X <- stats::model.matrix(tt, mf)
  } else {
    X <- check_matrix(newdata, "newdata", ncol = ncol(X))
  }
  if (anyNA(X)) stop_input("`newdata` must not have missing values.", "newdata")
  if (!nrow(X)) stop_input("`newdata` has no rows.", "newdata")
  X
}

# The predictions of the regression fits from their draws (draws x rows):
# columns `fit` (the posterior mean, named as by predict.lm()), `lower`,
# `upper` (the equal-tailed interval of probability `level`), with the
# draws in attribute `draws`.
prediction_frame <- function(draws, level) {
  a <- (1 - level) / 2
  band <- apply(draws, 2L, stats::quantile, probs = c(a, 1 - a), names = FALSE)
  band <- matrix(band, 2L)
  structure(data.frame(fit = colMeans(draws), lower = band[1L, ], upper = band[2L, ]),
            draws = draws, class = c("mcmix_prediction", "data.frame"))
}

# The former name of the column `fit` of logistic regression predictions.
#' @export
`$.mcmix_prediction` <- function(x, name) {
  if (identical(name, "mean") && !"mean" %in% names(x)) {
    warn_deprecated("predict(<fit>)$mean", "predict(<fit>)$fit",
                    "the posterior mean is the column `fit`, as for predict.lm() and probit fits")
    return(.subset2(x, "fit"))
  }
  NextMethod()
}

#' Polya-Gamma random variates
#'
#' Draws from the Polya-Gamma distribution \eqn{PG(1, z)} of Polson, Scott
#' and Windle (2013), the law of
#' \eqn{\frac{1}{2\pi^2}\sum_{k\ge1} g_k / ((k - 1/2)^2 + z^2/(4\pi^2))} with
#' \eqn{g_k} independent standard exponentials, by their exact
#' alternating-series (Devroye-type) sampler. Its mean is
#' \eqn{\tanh(z/2)/(2z)} (1/4 at \eqn{z = 0}).
#'
#' @param n Number of draws (their memory is checked against
#'   `getOption("mcmix.memory_budget", 4e9)` bytes).
#' @param z Tilting parameter(s), recycled to length `n`.
#' @return A numeric vector of length `n`.
#' @references Polson, N. G., Scott, J. G. and Windle, J. (2013). Bayesian
#'   inference for logistic models using Polya-Gamma latent variables.
#'   *JASA* 108, 1339-1349.
#' @examples
#' set.seed(1)
#' mean(rpolyagamma(10000, 2))
#' tanh(1) / 4
#' @export
rpolyagamma <- function(n, z = 0) {
  n <- check_count(n, "n", 0L, 1e8)
  check_budget(8 * as.double(n), "n", sprintf("%s draws", format_count(n)))   # R/chains_budget.R
  if (!is.numeric(z) || !length(z) || anyNA(z) || any(!is.finite(z)))
    stop(sprintf("`z` must be finite numbers, not %s.", describe_value(z)),
         call. = FALSE)
  .Call(C_ffi_rpolyagamma, n, as.double(z), 0L)
}

# Draws of the Holmes-Held mixing variance lambda given residuals r (tests).
rks_mixing <- function(n, r) .Call(C_ffi_rpolyagamma, as.integer(n), as.double(r), 1L)
