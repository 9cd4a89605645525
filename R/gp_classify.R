#' Gaussian-process classification by Gibbs sampling
#'
#' Binary classification with a Gaussian-process prior on the latent
#' function and the probit likelihood \eqn{P(t = 1 \mid f) = \Phi(f)},
#' sampled by the auxiliary-variable Gibbs sampler: \eqn{z_n \mid f_n, t_n}
#' is a unit-variance normal truncated to the side of zero given by
#' \eqn{t_n}, and \eqn{f \mid z \sim N(\Sigma_f z, \Sigma_f)} with
#' \eqn{\Sigma_f = (K^{-1} + I)^{-1}}. The covariance is the squared
#' exponential \eqn{k(x, x') = \sigma^2 \exp(-\|x - x'\|^2 / (2\ell^2))}
#' (with one lengthscale per input column if `lengthscale` is a vector).
#'
#' Predictive class probabilities at `x_test` are Rao-Blackwellised: given
#' the auxiliary variables \eqn{z}, the test auxiliary is normal with mean
#' \eqn{K_*^\top (K + I)^{-1} z} and variance
#' \eqn{1 + k_{**} - K_*^\top (K + I)^{-1} K_*}, so
#' \eqn{P(t_* = 1 \mid z)} is a normal probability; its average over the
#' kept draws (all chains) is returned by `predict(fit)`. `predict(fit,
#' newdata)` instead averages \eqn{\Phi(m_* / \sqrt{1 + v_*})} over the
#' stored draws of \eqn{f}, with \eqn{m_*, v_*} the noise-free GP regression
#' of \eqn{f_*} on \eqn{f}.
#'
#' The matrices are computed once (an eigen-decomposition of \eqn{K}, which
#' copes with a singular \eqn{K}); each iteration then costs
#' \eqn{O(N^2 + N M)} for \eqn{N} training and \eqn{M} test points.
#'
#' @param x Training inputs: a numeric vector (one input) or a matrix with
#'   one row per point.
#' @param y Binary labels: 0/1, logical, or a two-level factor.
#' @param lengthscale Positive lengthscale \eqn{\ell} (a number, or one per
#'   column of `x`), or `NULL` (the default): the standard deviation of
#'   each column of `x` (1 for a constant column), so that the kernel
#'   does not depend on the units of `x` (a fixed lengthscale 1 makes
#'   inputs in metres look unrelated where the same inputs in kilometres
#'   are smooth). `print()` shows the lengthscale used (the `Priors:`
#'   line); see [mcmix-defaults].
#' @param variance Positive signal variance \eqn{\sigma^2} of the latent
#'   function, on the probit scale (default 1).
#' @param x_test Optional test inputs (same columns as `x`).
#' @param keep_f Keep the draws of \eqn{f} at the training inputs as traces
#'   (needed for `predict()` with `newdata`); the log-likelihood is always
#'   kept.
#' @inheritParams probit_gibbs
#' @param ... `X` and `X_test`, the former names of `x` and `x_test`
#'   (deprecated); other arguments are refused.
#' @return An `mcmix_fit` of class `mcmix_gpclass` with traces `f[1]`, ...,
#'   `f[N]` and `log_lik`.
#' @references Rogers, S. and Girolami, M. *A First Course in Machine
#'   Learning*, section 9.2 (Gibbs sampling for GP classification).
#' @examples
#' set.seed(2)
#' x <- c(seq(-2, -0.5, length.out = 6), seq(0.5, 2, length.out = 6))
#' y <- rep(0:1, each = 6)
#' fit <- gp_classify(x, y, lengthscale = 1, x_test = c(-1, 0, 1),
#'                    iter = 500, burnin = 100)
#' predict(fit)
#' @export
gp_classify <- function(x, y, lengthscale = NULL, variance = 1, x_test = NULL,
                        keep_f = TRUE, iter = 1000, burnin = floor(iter / 2), thin = 1,
                        chains = 1,
                        cores = mcmix_option("cores"), backend = mcmix_option("backend"),
                        progress = interactive(), ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  call <- match.call()
  dots <- list(...)
  for (old in c("X", "X_test")) {   # the former names (deprecated)
    new <- tolower(old)
    if (!old %in% names(dots)) next
    warn_deprecated(sprintf("gp_classify(%s = )", old), sprintf("gp_classify(%s = )", new),
                    "the design matrix is `x` in every regression sampler")
    if (new == "x") x <- dots[[old]] else x_test <- dots[[old]]
    dots[[old]] <- NULL
    names(call)[names(call) == old] <- new
  }
  check_dots(dots)   # R/checks.R
  X <- x
  X_test <- x_test
  X <- check_matrix(X, "x")
  n <- nrow(X)
  if (n < 1L) stop("`x` must have at least one row.", call. = FALSE)
  y <- check_binary(y, "y", n)
  scaled <- is.null(lengthscale)
  if (scaled) lengthscale <- gp_default_lengthscale(X)
  if (!is.numeric(lengthscale) || !(length(lengthscale) %in% c(1L, ncol(X))) ||
      any(!is.finite(lengthscale)) || any(lengthscale <= 0))
    stop(sprintf("`lengthscale` must be a positive number or %d positive numbers, not %s.",
                 ncol(X), describe_value(lengthscale)), call. = FALSE)
  variance <- check_number(variance, "variance", 0, open_lower = TRUE)
  if (!is.null(X_test)) X_test <- check_matrix(X_test, "x_test", ncol = ncol(X))
  else X_test <- matrix(0, 0L, ncol(X))
  keep_f <- check_flag(keep_f, "keep_f")
  gp_check_budget(n, nrow(X_test), "x_test")
  kern <- list(lengthscale = rep_len(as.double(lengthscale), ncol(X)),
               variance = variance)

  K <- gp_se_kernel(X, X, kern)
  if (any(!is.finite(K)))
    stop(sprintf("`lengthscale` (%s) is too small for the scale of `x`: the scaled distances overflow.",
                 describe_value(lengthscale)), call. = FALSE)
  e <- eigen(K, symmetric = TRUE)
  lam <- pmax(e$values, 0)
  U <- e$vectors
  r <- lam / (1 + lam)
  A <- U %*% (r * t(U))                     # (K^{-1} + I)^{-1}
  S <- U %*% diag(sqrt(r), n)               # S S' = A
  Ks <- gp_se_kernel(X, X_test, kern)       # n x m
  if (any(!is.finite(Ks)))
    stop(sprintf("`lengthscale` (%s) is too small for the scale of `x` and `x_test`: the scaled distances overflow.",
                 describe_value(lengthscale)), call. = FALSE)
  W <- U %*% ((1 / (1 + lam)) * crossprod(U, Ks))
  pred_sd <- sqrt(pmax(1 + variance - colSums(Ks * W), 1e-12))
  data_c <- list(n = n, m = nrow(X_test), y = y, A = A, S = S, W = W,
                 pred_sd = pred_sd)
  fnames <- c(paste0("f[", seq_len(n), "]"), "log_lik")
  kernel <- model_kernel("gp_classify",
    function(d, s, c) .Call(C_ffi_gpclass_step, d, s, c),
    data_c,
    init = function(chain)
      list(z = (2 * y - 1) * (0.5 + abs(stats::rnorm(n))), f = double(n),
           prob_sum = double(nrow(X_test)), n_pred = 0L),
    trace_names = fnames)
  if (!keep_f) {
    step <- kernel$step
    kernel$step <- function(state, n, thin, offset, warmup) {
      r <- step(state, n, thin, offset, warmup)
      r$draws$traces <- r$draws$traces[, "log_lik", drop = FALSE]
      r
    }
    kernel$trace_names <- "log_lik"
  }
  run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress, labels = TRUE,
            model = list(type = "gp_classify", kernel = kern,
                         prior_label = paste0(if (scaled)
                           prior_label(character(), "lengthscale",
                                       sprintf("sd of x: %s", format_scales(
                                         kern$lengthscale, design_names(X, "x"))),
                                       "gp_classify")
                           else "lengthscale as given",
                           sprintf("; variance %s on the probit scale",
                                   format(signif(variance, 4))))),
            data = list(X = X, y = y, X_test = X_test), call = call,
            kind = "gp_classify", class = "mcmix_gpclass")
}

# The default lengthscale: the standard deviation of each input column
# (1 for a constant column or a single point), so that the kernel does not
# depend on the units of x (R/scaled_prior.R).
gp_default_lengthscale <- function(X) {
  s <- if (nrow(X) >= 2L) apply(X, 2L, stats::sd) else rep(1, ncol(X))
  s[!is.finite(s) | s <= 0] <- 1
  s
}

# Budgets of a GP on n training and m test points (R/chains_budget.R): the
# n x n and n x m matrices (a few copies each, and one column per stored
# draw of f when predicting at new points); each iteration (or each stored
# draw) costs about n^2 + m (n + 30) operations (30 for a normal cdf).
gp_check_budget <- function(n, m, test_arg, draws = 0) {
  n <- as.double(n)
  m <- as.double(m)
  train <- sprintf("a Gaussian process on %s points", format_count(n))
  test <- sprintf("predictions at %s points from %s training points", format_count(m),
                  format_count(n))
  fewer <- function(arg) sprintf("use fewer points in `%s`", arg)
  check_budget(8 * 5 * n^2, "x", train, fewer("x"))
  check_budget(8 * (5 * n^2 + (5 * n + draws) * m), test_arg, test, fewer(test_arg))
  check_work(2 * n^2, "x", train, fewer("x"))
  check_work(2 * n^2 + m * (n + 30), test_arg, test, fewer(test_arg))
}

# Squared-exponential covariance between the rows of A and of B.
gp_se_kernel <- function(A, B, kern) {
  A <- sweep(A, 2L, kern$lengthscale, "/")
  B <- sweep(B, 2L, kern$lengthscale, "/")
  d2 <- outer(rowSums(A^2), rowSums(B^2), "+") - 2 * tcrossprod(A, B)
  kern$variance * exp(-0.5 * pmax(d2, 0))
}

#' Predictive class probabilities of a GP classifier
#'
#' @param object A fit from [gp_classify()].
#' @param newdata `NULL` for the test inputs given to [gp_classify()]
#'   (Rao-Blackwellised over the auxiliary variables, all kept draws), or a
#'   matrix of new inputs (averaged over the stored draws of \eqn{f}).
#' @param type `"response"` (probabilities, the default) or `"link"` (the
#'   posterior mean of the latent function \eqn{f_*} at `newdata`, on the
#'   probit scale; needs `newdata`), as for [stats::predict.glm()].
#' @param ... Unused.
#' @return The vector of probabilities \eqn{P(t_* = 1 \mid \text{data})},
#'   or of the posterior means of \eqn{f_*}.
#' @export
predict.mcmix_gpclass <- function(object, newdata = NULL, type = c("response", "link"), ...) {
  check_no_dots(...)
  type <- match_choice(type, c("response", "link"), "type")
  if (type == "link" && is.null(newdata))
    stop("`type` = \"link\" needs `newdata` (the latent function is not kept at `x_test`).",
         call. = FALSE)
  if (is.null(newdata)) {
    if (!nrow(object$data$X_test))
      stop("`newdata` is needed: the fit was made without `x_test`.", call. = FALSE)
    tot <- Reduce(`+`, lapply(object$chains, function(ch) ch$state$prob_sum))
    cnt <- sum(vapply(object$chains, function(ch) ch$state$n_pred, 0L))
    return(tot / cnt)
  }
  X <- object$data$X
  newdata <- check_matrix(newdata, "newdata", ncol = ncol(X))
  gp_check_budget(nrow(X), nrow(newdata), "newdata",
                  draws = sum(fit_draw_counts(object)))
  if (!nrow(newdata)) return(numeric(0))
  fcols <- paste0("f[", seq_len(nrow(X)), "]")
  if (!all(fcols %in% object$kernel$trace_names))
    stop("`object` was fitted with `keep_f = FALSE`; predict at `x_test` instead.",
         call. = FALSE)
  kern <- object$model$kernel
  K <- gp_se_kernel(X, X, kern)
  e <- eigen(K, symmetric = TRUE)
  keep <- e$values > max(e$values) * 1e-10
  U <- e$vectors[, keep, drop = FALSE]
  Ks <- gp_se_kernel(X, newdata, kern)
  if (any(!is.finite(Ks)))
    stop("`newdata` is too far from `x` on the scale of the fitted lengthscale: the scaled distances overflow.",
         call. = FALSE)
  B <- U %*% ((1 / e$values[keep]) * crossprod(U, Ks))   # K^+ K_*
  v <- pmax(kern$variance - colSums(Ks * B), 0)
  f <- do.call(rbind, lapply(object$chains, function(ch) ch$traces[, fcols, drop = FALSE]))
  m <- f %*% B
  if (type == "link") return(colMeans(m))
  colMeans(stats::pnorm(sweep(m, 2L, sqrt(1 + v), "/")))
}
