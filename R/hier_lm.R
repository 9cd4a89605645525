#' Hierarchical linear regression by Gibbs sampling
#'
#' Gibbs sampler (in compiled code) for the two-level regression
#' \deqn{y_{ij} \sim N(x_{ij}^\top \beta_j, \sigma^2), \quad
#'       \beta_j \sim N(\mu, \Sigma), \quad j = 1, \dots, m,}
#' with the semi-conjugate priors \eqn{\mu \sim N(\mu_0, V_0)},
#' \eqn{\Sigma \sim \mathrm{IW}(\eta_0, S_0)} (inverse-Wishart with mean
#' \eqn{S_0 / (\eta_0 - p - 1)}) and
#' \eqn{\sigma^2 \sim \mathrm{IG}(\nu_0/2, \nu_0 s_0^2/2)}. Each iteration
#' draws every \eqn{\beta_j}, then \eqn{\mu}, \eqn{\Sigma} and
#' \eqn{\sigma^2} from their full conditionals (Hoff 2009, chapter 11).
#'
#' @param x A model formula (with `data`), as for [stats::lm()]:
#'   `Reaction ~ Days` gives each group an intercept and a slope; or a
#'   numeric design matrix with one row per observation (include a column
#'   of ones for group-specific intercepts).
#' @param y Numeric response when `x` is a matrix (`NULL` with a formula).
#' @param group Group of each observation (a factor or a vector; groups are
#'   the factor levels, or the sorted unique values). With a formula, a
#'   column of `data` (`group = Subject`, `"Subject"` or `~ Subject`) or a
#'   vector with one value per row of `data`.
#' @param data A data frame for the formula interface.
#' @param subset An optional vector selecting the rows of `data` to use
#'   (formula interface), evaluated in `data` first, as in [stats::lm()].
#' @param na.action Formula interface: `NULL` (the default) stops at a
#'   missing value, naming the column; a function such as
#'   [stats::na.omit()] (or its name) is applied to the model frame.
#' @param mu0 Prior mean of \eqn{\mu} (a number or a vector of length p),
#'   or `NULL` (the default) to scale it to the data (see "Default priors").
#' @param V0 Prior covariance of \eqn{\mu} (number, variances, or matrix),
#'   or `NULL` (the default) to scale it to the data.
#' @param eta0 Degrees of freedom of the inverse-Wishart prior on
#'   \eqn{\Sigma}, greater than p - 1 (default p + 2).
#' @param S0 Scale matrix of that prior (number, variances, or matrix), or
#'   `NULL` (the default) to scale it to the data.
#' @param nu0,s0sq Prior degrees of freedom (default 1) and scale of
#'   \eqn{\sigma^2}; `s0sq = NULL` (the default) is the variance of `y`.
#' @section Default priors (scaled to the data): The priors left `NULL`
#'   follow the units of `y` and of the columns of `x`, so the same data in
#'   other units give the same posterior, rescaled (as rstanarm's default
#'   priors; formulas on [mcmix-defaults]). With \eqn{s_y} the standard
#'   deviation of `y`, \eqn{s_j} that of column j of `x` and an intercept
#'   column in `x`, the prior of \eqn{\mu} puts the centred intercept
#'   (the mean response at the mean of the covariates) at
#'   \eqn{N(\bar y, (2.5 s_y)^2)} and each slope at
#'   \eqn{N(0, (2.5 s_y / s_j)^2)}, independently; `mu0` and `V0` are that
#'   prior on the coefficients of `x` (a full covariance matrix). `S0` is
#'   \eqn{\max(\eta_0 - p - 1, 1)} times the same covariance with 1 in
#'   place of 2.5 (the prior mean of \eqn{\Sigma} lets group coefficients
#'   vary by about \eqn{s_y / s_j}), and `s0sq` is \eqn{s_y^2}. Without an
#'   intercept column \eqn{s_j} is the root mean square of column j.
#'   Priors you give are used as given. `print()` and `summary()` show
#'   which priors were scaled and the standard deviations used (the
#'   `Priors:` line); `fit$model` holds the priors used. Before this
#'   default, the priors were the fixed numbers `mu0 = 0`, `V0 = 100`,
#'   `S0 = 1`, `s0sq = 1`, which suit a response and covariates of unit
#'   scale only; give them to reproduce such a fit.
#' @param keep_beta Keep the group coefficients as traces.
#' @inheritParams probit_gibbs
#' @param ... `X`, the former name of `x` (deprecated); other arguments are
#'   refused.
#' @section Deprecated argument order: The design matrix comes first, as in
#'   [probit_gibbs()], [logit_gibbs()] and [gp_classify()]. The former order
#'   `hier_lm_gibbs(y, x, group)` still works, with a deprecation warning,
#'   when `y` is a vector and `x` a matrix; so does the former name `X` of
#'   `x` (the design matrix is `x` in every regression sampler).
#' @return An `mcmix_fit` with traces `mu[k]`, `Sigma[a,b]` (lower
#'   triangle, column by column), `sigma2` and, when `keep_beta`,
#'   `beta[g,k]`.
#' @references Murphy, K. P. (2012). *Machine Learning: a Probabilistic
#'   Perspective*, section 24.2.5. Hoff, P. D. (2009). *A First Course in
#'   Bayesian Statistical Methods*, chapter 11.
#' @seealso [mcmix-defaults] for the default priors of every sampler.
#' @examples
#' set.seed(1)
#' g <- rep(1:8, each = 10)
#' x <- rnorm(80)
#' b <- cbind(rnorm(8, 1, 0.5), rnorm(8, 2, 0.5))
#' y <- b[g, 1] + b[g, 2] * x + rnorm(80, sd = 0.5)
#' fit <- hier_lm_gibbs(cbind(1, x), y, g, iter = 500, burnin = 100)
#' colMeans(as.matrix(fit)[, 1:2])
#' # the formula interface, as lm(): data, group a column of it
#' d <- data.frame(y = y, x = x, g = g)
#' fit2 <- hier_lm_gibbs(y ~ x, data = d, group = g, iter = 500, burnin = 100)
#' coef(fit2)
#' @export
hier_lm_gibbs <- function(x, y = NULL, group, mu0 = NULL, V0 = NULL, eta0 = NULL, S0 = NULL,
                          nu0 = 1, s0sq = NULL, keep_beta = TRUE, iter = 1000,
                          burnin = floor(iter / 2), thin = 1, chains = 1,
                          cores = mcmix_option("cores"), backend = mcmix_option("backend"),
                          progress = interactive(), data = NULL, subset = NULL,
                          na.action = NULL, ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  call <- match.call()
  dots <- list(...)
  if ("X" %in% names(dots)) {   # the former name of `x` (deprecated)
    warn_deprecated("hier_lm_gibbs(X = )", "hier_lm_gibbs(x = )",
                    "the design matrix is `x` in every regression sampler")
    x <- dots$X
    dots$X <- NULL
    names(call)[names(call) == "X"] <- "x"
  }
  check_dots(dots)   # R/checks.R
  terms <- frame <- omitted <- NULL
  if (inherits(x, "formula")) {   # hier_lm_gibbs(y ~ x, data, group = g), as lm()
    des <- hier_lm_design(x, y, data, eval_in_data(substitute(group), data, parent.frame()),
                          eval_in_data(substitute(subset), data, parent.frame()), na.action)
    x <- des$X
    y <- des$y
    group <- des$group
    terms <- des$terms
    frame <- des$frame
    omitted <- des$na.action
  } else if (!is.null(data) || !is.null(substitute(subset)) || !is.null(na.action)) {
    stop_input(paste0("`data`, `subset` and `na.action` go with a formula `x` (as in ",
                      "hier_lm_gibbs(y ~ x, data = d, group = g)); with a design matrix, give ",
                      "`x`, `y` and `group` directly."), "data")
  }
  X <- x
  if (is.null(dim(X)) && !is.null(dim(y))) {   # hier_lm_gibbs(y, x, group)
    warn_deprecated("hier_lm_gibbs(y, x, group)", "hier_lm_gibbs(x, y, group)",
                    "the design matrix comes first, as in probit_gibbs()")
    Xy <- X
    X <- y
    y <- Xy
    call[c("x", "y")] <- call[c("y", "x")]
  }
  X <- check_matrix(X, "x")
  N <- nrow(X)
  p <- ncol(X)
  if (N < 1L || p < 1L)
    stop("`x` must have at least one row and one column.", call. = FALSE)
  colnames(X) <- design_names(X, "x")
  if (!is.numeric(y) || length(y) != N || any(!is.finite(y)))
    stop(sprintf("`y` must be a finite numeric vector of length %d (the rows of `x`).", N),
         call. = FALSE)
  check_magnitude(y, "y")
  if (!is.atomic(group) || !is.null(dim(group)) || length(group) != N || anyNA(group))
    stop(sprintf("`group` must be a vector or factor of length %d (the rows of `x`) with no missing values.", N),
         call. = FALSE)
  group <- droplevels(as.factor(group))
  m <- nlevels(group)
  if (is.null(eta0)) eta0 <- p + 2
  eta0 <- check_number(eta0, "eta0")
  if (eta0 <= p - 1)
    stop(sprintf("`eta0` must be greater than p - 1 = %d, not %s.", p - 1L, format(eta0)),
         call. = FALSE)
  nu0 <- check_number(nu0, "nu0", 0, open_lower = TRUE)
  keep_beta <- check_flag(keep_beta, "keep_beta")
  # the priors left NULL are scaled to the data (R/scaled_prior.R)
  defaulted <- c("mu0", "V0", "S0", "s0sq")[c(is.null(mu0), is.null(V0), is.null(S0),
                                              is.null(s0sq))]
  sy <- response_scale(y)
  pop <- scaled_normal_prior(X, location = mean(y), y_scale = sy)
  mu0 <- if (is.null(mu0)) pop$mean else check_vector(mu0, "mu0", p)
  if (is.null(V0)) {
    V0 <- pop$cov
    V0inv <- pop$prec
  } else {
    V0 <- check_cov_spec(V0, "V0", p)
    V0inv <- solve(V0)
  }
  S0 <- if (is.null(S0))
    max(eta0 - p - 1, 1) * scaled_normal_prior(X, y_scale = sy, coef_scale = 1,
                                               intercept_scale = 1)$cov
  else check_cov_spec(S0, "S0", p)
  s0sq <- if (is.null(s0sq)) sy^2 else check_number(s0sq, "s0sq", 0, open_lower = TRUE)
  plabel <- prior_label(setdiff(c("mu0", "V0", "S0", "s0sq"), defaulted), defaulted,
                        sprintf("sd(y) %s, %s", format(signif(sy, 3)), design_scale_text(X)),
                        "hier_lm_gibbs")

  gi <- as.integer(group)
  XtX <- array(0, c(p, p, m))
  Xty <- matrix(0, p, m)
  yty <- double(m)
  for (j in seq_len(m)) {
    rows <- gi == j
    Xj <- X[rows, , drop = FALSE]
    XtX[, , j] <- crossprod(Xj)
    Xty[, j] <- crossprod(Xj, y[rows])
    yty[j] <- sum(y[rows]^2)
  }
  data_c <- list(p = p, m = m, n_total = as.double(N), XtX = as.double(XtX),
                 Xty = as.double(Xty), yty = yty, mu0 = mu0, V0inv = V0inv,
                 eta0 = eta0, S0 = S0, nu0 = nu0, s0sq = s0sq,
                 keep_beta = as.integer(keep_beta))
  cn <- colnames(X)
  low <- which(lower.tri(diag(p), diag = TRUE), arr.ind = TRUE)
  tn <- c(sprintf("mu[%s]", cn),
          sprintf("Sigma[%s,%s]", cn[low[, 1]], cn[low[, 2]]), "sigma2")
  if (keep_beta)
    tn <- c(tn, sprintf("beta[%s,%s]", rep(levels(group), each = p), rep(cn, m)))
  Sigma_init <- S0 / max(eta0 - p - 1, 1)
  kernel <- model_kernel("hier_lm_gibbs",
    function(d, s, c) .Call(C_ffi_hierlm_step, d, s, c),
    data_c,
    init = function(chain) {
      mu <- mu0 + 0.1 * sqrt(diag(V0)) * stats::rnorm(p)
      list(beta = rep(mu, m), mu = mu, Sigma = as.double(Sigma_init),
           sigma2 = s0sq)
    },
    trace_names = tn)
  run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress, labels = TRUE,
            model = list(type = "hier_lm", mu0 = mu0, V0 = V0, eta0 = eta0,
                         S0 = S0, nu0 = nu0, s0sq = s0sq,
                         groups = levels(group), prior_scaled = defaulted,
                         prior_label = plabel, terms = terms,
                         xlevels = if (!is.null(terms)) stats::.getXlevels(terms, frame)),
            data = list(y = y, X = X, group = group, frame = frame, na.action = omitted),
            call = call, kind = "hier_lm")
}

# The response, design matrix and groups of hier_lm_gibbs(formula, data,
# group = ): the model frame of the formula with the group as an extra
# variable (so `subset` and `na.action` drop the same rows of all three).
# `group` is a vector, the name of a column of `data`, or a one-sided
# formula (~ Subject).
hier_lm_design <- function(formula, y, data, group, subset, na.action) {
  if (!is.null(y))
    stop_input("`y` must be NULL when `x` is a formula (the response is on its left-hand side).",
               "y")
  if (is.character(group) && length(group) == 1L && is.data.frame(data) &&
      group %in% names(data))
    group <- data[[group]]
  if (inherits(group, "formula"))
    group <- eval(group[[length(group)]], as.data.frame(data), environment(group))
  if (is.null(group) || !is.atomic(group) || !is.null(dim(group)))
    stop_input(sprintf(paste0("`group` must be a column of `data` (a name, or ~ name) or a ",
                              "vector with one group per row, not %s."), describe_value(group)),
               "group")
  na_fun <- check_na_action(na.action)   # R/logit.R
  mf <- tryCatch(model_frame_rows(list(formula = formula, data = data, group = group), subset),
                 error = function(e) {
                   if (inherits(e, "mcmix_error")) base::stop(e)
                   stop_input(sprintf("`x` (a formula) cannot be evaluated in `data`: %s",
                                      conditionMessage(e)), "x")
                 })
  if (!is.null(attr(attr(mf, "terms"), "offset")))
    stop_input("`x` has an offset() term, which hier_lm_gibbs() does not support.", "x")
  omitted <- NULL
  if (anyNA(mf)) {
    if (is.null(na_fun))
      stop_input(sprintf(paste0("`data` has missing values in the variables of `x` or in ",
                                "`group` (column %s); `na.action = na.omit` leaves those rows out."),
                         names(mf)[vapply(mf, anyNA, logical(1))][1L]), "data")
    mf <- na_fun(mf)
    omitted <- attr(mf, "na.action")
  }
  y <- stats::model.response(mf)
  if (is.null(y))
    stop_input("`x` must be a formula with a response, like y ~ x1 + x2.", "x")
  terms <- attr(mf, "terms")
  list(X = stats::model.matrix(terms, mf), y = as.double(y), group = mf[["(group)"]],
       terms = terms, frame = mf, na.action = omitted)
}

#' Predictions from a hierarchical linear regression fit
#'
#' For every row \eqn{x} of `newdata` in group \eqn{j}, the posterior of
#' the group's regression line \eqn{x^\top \beta_j} over the kept draws of
#' \eqn{\beta_j} (so the fit needs `keep_beta = TRUE`): its mean and a
#' pointwise credible interval. With `newdata = NULL`, at the fitted rows
#' and groups (the column means of [posterior_epred()]). Groups not in the
#' fit are refused (their coefficients would be new draws from
#' \eqn{N(\mu, \Sigma)}: use the draws of `mu[k]` and `Sigma[a,b]`).
#'
#' @param object A fit from [hier_lm_gibbs()].
#' @param newdata A numeric matrix with the columns of `x`, a data frame
#'   with the variables of the formula (formula fits), or `NULL`.
#' @param group The group of each row of `newdata`, among the groups of
#'   the fit.
#' @param level Credible level of the interval, in (0, 1).
#' @param ... Unused (an error if given).
#' @return A data frame with columns `fit` (posterior mean), `lower` and
#'   `upper`, one row per row, with the draws (draws x rows) in attribute
#'   `draws`.
#' @examples
#' set.seed(1)
#' g <- rep(1:4, each = 10)
#' x <- rnorm(40)
#' y <- rnorm(4)[g] + x + rnorm(40, sd = 0.5)
#' fit <- hier_lm_gibbs(cbind(1, x), y, g, iter = 200, progress = FALSE)
#' predict(fit, newdata = cbind(1, c(0, 1)), group = c(1, 4))
#' @export
predict.mcmix_hier_lm_fit <- function(object, newdata = NULL, group = NULL, level = 0.95, ...) {
  check_no_dots(...)
  level <- check_prob(level, "level")
  if (is.null(newdata)) {
    if (!is.null(group))
      stop_input("`group` is given with `newdata` only (the fitted rows have their groups).",
                 "group")
    return(prediction_frame(hier_lm_mean_draws(object, "predict"), level))   # R/logit.R
  }
  cn <- colnames(object$data$X)
  X <- if (!is.null(object$model$terms) && is.data.frame(newdata))
    binary_newdata(object, newdata)   # R/logit.R: the formula's design matrix
  else check_matrix(newdata, "newdata", ncol = length(cn))
  if (!nrow(X)) stop_input("`newdata` has no rows.", "newdata")
  lev <- object$model$groups
  if (is.null(group) || !is.atomic(group) || length(group) != nrow(X) || anyNA(group) ||
      !all(as.character(group) %in% lev))
    stop_input(sprintf("`group` must give the group of each row of `newdata` (%d values), among the groups of the fit (%s), not %s.",
                       nrow(X), paste(utils::head(lev, 6L), collapse = ", "),
                       describe_value(group)), "group")
  m <- as.matrix(object)
  gi <- match(as.character(group), lev)
  cols <- sprintf("beta[%s,%s]", rep(lev[gi], each = length(cn)), rep(cn, nrow(X)))
  if (!all(cols %in% colnames(m)))
    stop_input("predict() needs the draws of the group coefficients: fit with `keep_beta = TRUE`.",
               "keep_beta")
  check_predict_budget(nrow(m), nrow(X))   # R/chains_budget.R
  out <- vapply(seq_len(nrow(X)), function(i)
    as.double(m[, cols[(i - 1L) * length(cn) + seq_along(cn)], drop = FALSE] %*% X[i, ]),
    double(nrow(m)))
  prediction_frame(matrix(out, nrow(m)), level)
}
