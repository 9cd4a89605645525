# tidy() and glance() for the generics/broom ecosystem, and the methods of
# bayesplot's generics (log_posterior(), neff_ratio(), nuts_params()):
# registered when those packages are loaded (register_model_methods(),
# called from .onLoad in R/zzz.R), so they stay optional.

#' Tidy summaries of a fit (generics and broom)
#'
#' Methods for the `tidy()` and `glance()` generics of the generics package
#' (re-exported by broom), registered when generics is installed.
#' `tidy()` gives one row per parameter (the parameters of
#' [coef.mcmix_fit()]): `term`, `estimate` (posterior median),
#' `std.error` (posterior standard deviation), `conf.low`, `conf.high` (an
#' equal-tailed credible interval), `rhat` (rank-normalised R-hat) and
#' `ess_bulk` (bulk effective sample size). `glance()` gives one row about
#' the run: `algorithm`, `chains`, `draws` (kept, all chains), `nobs` (`NA`
#' for fits without observations), `max_rhat` and `min_ess_bulk` over the
#' traces, and `elapsed` (seconds).
#'
#' The methods are called as `generics::tidy(x, conf.level = 0.95)` and
#' `generics::glance(x)` (or through broom), with `x` a fit and
#' `conf.level` the probability of the credible interval.
#'
#' @return A data frame (a tibble when the tibble package is installed).
#' @examples
#' set.seed(1)
#' d <- data.frame(x = rnorm(60))
#' d$y <- rbinom(60, 1, plogis(d$x))
#' fit <- logit_gibbs(y ~ x, data = d, iter = 300, chains = 2, progress = FALSE)
#' if (requireNamespace("generics", quietly = TRUE)) {
#'   print(generics::tidy(fit))
#'   print(generics::glance(fit))
#' }
#' @name tidy.mcmix_fit
NULL

tidy_fit <- function(x, conf.level = 0.95, ...) {
  check_no_dots(...)
  conf.level <- check_prob(conf.level, "conf.level")
  draws <- param_draws(x, "tidy")   # R/generics.R
  x <- fit_usable(x, quiet = TRUE)
  chain <- draw_chain_id(x)
  if (length(chain) != nrow(draws)) chain <- rep(1L, nrow(draws))
  n <- min(tabulate(chain))
  a <- (1 - conf.level) / 2
  diag <- vapply(seq_len(ncol(draws)), function(j) {
    m <- vapply(split(draws[, j], chain), function(v) v[seq_len(n)], numeric(n))
    .Call(C_ffi_diag_stats, matrix(m, n), unname(diag_codes[c("rhat", "ess_bulk")]))
  }, numeric(2))
  out <- data.frame(term = colnames(draws),
                    estimate = apply(draws, 2L, stats::median),
                    std.error = apply(draws, 2L, stats::sd),
                    conf.low = apply(draws, 2L, stats::quantile, a, names = FALSE),
                    conf.high = apply(draws, 2L, stats::quantile, 1 - a, names = FALSE),
                    rhat = diag[1L, ], ess_bulk = diag[2L, ],
                    stringsAsFactors = FALSE, row.names = NULL)
  as_tibble_if(out)
}

glance_fit <- function(x, ...) {
  check_no_dots(...)
  x <- fit_usable(x, quiet = TRUE)
  n <- tryCatch(stats::nobs(x), mcmix_error_generic = function(e) NA_integer_)
  # its columns max_rhat and min_ess_bulk report the mixing: no warning
  s <- suppressWarnings(suppressMessages(summary(x)), classes = "mcmix_warning_mixing")$table
  out <- data.frame(algorithm = x$kernel$name, chains = length(x$chains),
                    draws = sum(fit_draw_counts(x)), nobs = as.integer(n),
                    max_rhat = suppressWarnings(max(s$rhat, na.rm = TRUE)),
                    min_ess_bulk = suppressWarnings(min(s$ess_bulk, na.rm = TRUE)),
                    elapsed = unname(x$timing[["elapsed"]]), stringsAsFactors = FALSE)
  as_tibble_if(out)
}

as_tibble_if <- function(df)
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(df) else df

# bayesplot::log_posterior(): the target's log density at every kept draw
# (fits of a target density), as bayesplot's mcmc_nuts_*() plots want it.
log_posterior_fit <- function(object, ...) {
  tg <- object$model$target
  if (is.null(tg))
    refuse_generic("log_posterior", object, "it has no target density")
  object <- fit_usable(object, quiet = TRUE)
  rows <- lapply(seq_along(object$chains), function(i) {
    th <- object$chains[[i]]$traces
    v <- vapply(seq_len(nrow(th)), function(r) target_eval(tg, th[r, ]), numeric(1))
    data.frame(Chain = i, Iteration = seq_len(nrow(th)), Value = v)
  })
  do.call(rbind, rows)
}

# bayesplot::neff_ratio(): bulk effective sample size over the number of
# draws, per trace.
neff_ratio_fit <- function(object, ...) {
  e <- ess(object, "bulk")
  e / sum(fit_draw_counts(fit_usable(object, quiet = TRUE)))
}

# bayesplot::nuts_params(): the per-iteration sampler parameters of a NUTS
# fit in bayesplot's long format (Chain, Iteration, Parameter, Value).
nuts_params_fit <- function(object, ...) {
  object <- fit_usable(object, quiet = TRUE)
  rows <- lapply(seq_along(object$chains), function(i) {
    ch <- object$chains[[i]]
    sp <- if (length(ch$extra)) do.call(rbind, ch$extra[seq_len(min(length(ch$extra), NROW(ch$traces)))])
    if (NROW(sp) != NROW(ch$traces) || NCOL(sp) != length(nuts_param_names))
      stop_input("`object` holds no sampler parameters for every kept draw (a fit by an older version of mcmix, or an interrupted run: extend(object, iter = 0) completes it).",
                 "object")
    colnames(sp) <- nuts_param_names
    n <- nrow(sp)
    data.frame(Chain = i, Iteration = rep(seq_len(n), ncol(sp)),
               Parameter = factor(rep(colnames(sp), each = n), levels = colnames(sp)),
               Value = as.double(sp))
  })
  do.call(rbind, rows)
}

# bayesplot::nuts_params() of any other fit: an error saying what it
# applies to (without this method R's dispatch error would be all).
nuts_params_refuse <- function(object, ...) {
  stop_input(sprintf(paste0("nuts_params() applies to fits of sample_nuts(), whose chains keep ",
                            "the sampler parameters of every iteration; `object` is %s, ",
                            "which has none."), fit_kind_label(object)),
             "object", class = "mcmix_error_generic")
}

# The columns of a NUTS chunk's sampler_params (src/sampler_nuts.h).
nuts_param_names <- c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                      "divergent__", "energy__")

# Register the methods on the generics of suggested packages (R/zzz.R).
register_model_methods <- function() {
  s3_register("generics::tidy", "mcmix_fit", tidy_fit)
  s3_register("generics::glance", "mcmix_fit", glance_fit)
  s3_register("rstantools::posterior_predict", "mcmix_fit", posterior_predict.mcmix_fit)
  s3_register("rstantools::log_lik", "mcmix_fit", log_lik.mcmix_fit)
  s3_register("rstantools::posterior_interval", "mcmix_fit", posterior_interval.mcmix_fit)
  s3_register("rstantools::posterior_epred", "mcmix_fit", posterior_epred.mcmix_fit)
  s3_register("rstantools::posterior_linpred", "mcmix_fit", posterior_linpred.mcmix_fit)
  s3_register("rstantools::predictive_interval", "mcmix_fit", predictive_interval.mcmix_fit)
  s3_register("rstantools::prior_summary", "mcmix_fit", prior_summary.mcmix_fit)
  s3_register("bayesplot::pp_check", "mcmix_fit", pp_check_fit)
  s3_register("bayesplot::log_posterior", "mcmix_fit", log_posterior_fit)
  s3_register("bayesplot::neff_ratio", "mcmix_fit", neff_ratio_fit)
  s3_register("bayesplot::nuts_params", "mcmix_nuts_fit", nuts_params_fit)
  s3_register("bayesplot::nuts_params", "mcmix_fit", nuts_params_refuse)
  s3_register("loo::loo", "mcmix_fit", loo_fit)
  s3_register("loo::waic", "mcmix_fit", waic_fit)
  invisible(NULL)
}
