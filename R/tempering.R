# Parallel tempering (src/sampler_tempering.c).

#' Parallel tempering
#'
#' Runs one chain per temperature `t` of the ladder `temperatures` (from 1
#' down), chain `k` targeting `p(X | theta)^t_k p(theta)`, with a
#' random-walk Metropolis step in every chain at each iteration followed by
#' a proposed swap of the states of one pair of neighbouring temperatures.
#' The draws returned are those of the `t = 1` chain (the posterior); the
#' swap acceptance rates are given by [swap_rates()]. A proposal where the
#' log likelihood or the log prior is `NaN` or `+Inf` is rejected and
#' counted in `n_nonfinite` of the final state (see [target()]).
#'
#' @inheritParams sample_mh
#' @param log_lik The log likelihood `log p(X | theta)`: a [target()], an R
#'   function or a compiled target.
#' @param log_prior The log prior density `log p(theta)`, likewise.
#' @param init Initial values: a numeric vector used at every temperature,
#'   or a matrix with one column per temperature; or a list of those (one
#'   per chain), or a `function(chain)` returning one.
#' @param temperatures Decreasing temperatures in (0, 1], the first equal to
#'   1, e.g. `0.5^(0:5)`.
#' @param scale Standard deviation of the random-walk steps: one number for
#'   all temperatures or one per temperature (default `2.38 / sqrt(d t)`).
#' @return An `mcmix_fit` holding the draws of the `t = 1` chain.
#' @seealso [swap_rates()], [sample_mh()]
#' @examples
#' ll <- function(x) log(0.3 * dnorm(x, -5) + 0.7 * dnorm(x, 5))
#' lp <- function(x) dnorm(x, 0, 10, log = TRUE)
#' set.seed(1)
#' fit <- sample_tempering(ll, lp, init = 0, iter = 1000,
#'                         temperatures = c(1, 0.3, 0.1, 0.03))
#' mean(as.matrix(fit) > 0)
#' swap_rates(fit)
#' @export
sample_tempering <- function(log_lik, log_prior, init, temperatures,
                             iter = 1000, burnin = floor(iter / 2), thin = 1,
                             chains = 1, scale = NULL,
                             cores = mcmix_option("cores"),
                             backend = mcmix_option("backend"),
                             progress = interactive(), ...) {
  check_dots(list(...))   # R/checks.R
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  call <- match.call()
  iter <- check_count(iter, "iter", 1L)
  lik <- as_target(log_lik, "log_lik")
  prior <- as_target(log_prior, "log_prior")
  chains <- check_count(chains, "chains", 1L)
  if (!is.numeric(temperatures) || !length(temperatures) || anyNA(temperatures) ||
      temperatures[1L] != 1 || any(temperatures <= 0) ||
      any(diff(temperatures) >= 0))
    stop(sprintf(paste0("`temperatures` must be a decreasing vector of numbers in ",
                        "(0, 1] starting at 1, not %s."),
                 describe_value(temperatures)), call. = FALSE)
  K <- length(temperatures)
  if (is.list(init) && !length(init))
    stop(sprintf("`init` must be a vector, a d x %d matrix, a list of them or a function, not %s.",
                 K, describe_value(init)), call. = FALSE)
  one <- if (is.list(init)) init[[1L]] else init
  d <- if (is.function(init)) init_dim(init, lik) else
    if (is.matrix(one)) nrow(one) else length(one)
  if (d < 1L)
    stop(sprintf("`init` must hold at least one coordinate (a vector, or a d x %d matrix), not %s.",
                 K, describe_value(one)), call. = FALSE)
  if (!is.na(lik$dim) && !is.na(prior$dim) && lik$dim != prior$dim)
    stop("`log_lik` and `log_prior` have different dimensions.", call. = FALSE)
  scale <- if (is.null(scale)) 2.38 / sqrt(d * temperatures) else
    check_positive(scale, "scale", K)
  # initial values: d x K matrix per chain
  tg_d <- lik
  tg_d$dim <- d
  as_matrix <- function(v, arg) {
    if (is.matrix(v)) {
      if (!is.numeric(v) || nrow(v) != d || ncol(v) != K || any(!is.finite(v)))
        stop(sprintf("`%s` must be a %d x %d matrix of finite values.", arg, d, K),
             call. = FALSE)
      return(matrix(as.double(v), d, K))
    }
    matrix(check_init(v, tg_d, arg), d, K)
  }
  init_fun <- if (is.function(init)) function(chain) as_matrix(init(chain), "init")
    else if (is.list(init)) {
      if (length(init) != chains)
        stop(sprintf("`init` is a list of length %d, but there are %d chains.",
                     length(init), chains), call. = FALSE)
      function(chain) as_matrix(init[[chain]], sprintf("init[[%d]]", chain))
    } else {
      m <- as_matrix(init, "init")
      function(chain) m
    }
  probe <- function(th) {
    ll <- lp <- double(K)
    for (k in seq_len(K)) {
      lp[k] <- target_probe(prior, th[, k], "init", "log_prior")
      ll[k] <- target_probe(lik, th[, k], "init", "log_lik")
    }
    list(ll = ll, lp = lp)
  }
  spec <- list(temperatures = as.double(temperatures), scales = scale)
  names <- param_names(if (is.matrix(one)) one[, 1L] else one, d)
  targets <- list(lik, prior)
  kernel <- new_kernel("tempering",
    init = function(chain) {
      th <- init_fun(chain)
      p <- probe(th)
      counts <- stats::setNames(double(K), paste0("t=", format(temperatures)))
      list(theta = th, log_lik = p$ll, log_prior = p$lp, iteration = 0,
           n_accept = counts, n_prop = counts,
           swap_accept = double(K - 1L), swap_prop = double(K - 1L), n_nonfinite = 0)
    },
    step = function(state, n, thin, offset, warmup)
      sampler_chunk(
        function(t, io, st, run, sp) .Call(C_ffi_tempering_run, t, io, st, run, sp),
        targets, d, state, n, thin, offset,
                    warmup, spec, names),
    trace_names = names, temperatures = temperatures)
  if (!is.function(init)) probe(init_fun(1L))
  run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress,
              model = list(type = "tempering", log_lik = lik, log_prior = prior,
                           temperatures = temperatures, scale = scale),
              call = call, kind = "tempering")
}

#' Swap and move acceptance rates of parallel tempering
#'
#' @param fit An `mcmix_fit` from [sample_tempering()].
#' @return A data frame with one row per pair of neighbouring temperatures:
#'   the two temperatures, the number of proposed swaps and the acceptance
#'   rate of swaps (kept iterations, all chains pooled); its attribute
#'   `move_rates` holds the acceptance rate of the random-walk moves at each
#'   temperature.
#' @examples
#' set.seed(1)
#' fit <- sample_tempering(function(x) -x^2 / 2, function(x) 0, init = 0,
#'                         iter = 200, temperatures = c(1, 0.5))
#' swap_rates(fit)
#' @export
swap_rates <- function(fit) {
  check_fit_type(fit, "tempering")
  tt <- fit$model$temperatures
  K <- length(tt)
  sa <- state_sum(fit, "swap_accept")
  sp <- state_sum(fit, "swap_prop")
  out <- data.frame(t_from = tt[-K], t_to = tt[-1L], proposed = sp,
                    rate = ifelse(sp > 0, sa / sp, NA_real_))
  attr(out, "move_rates") <- stats::setNames(
    state_sum(fit, "n_accept") / pmax(1, state_sum(fit, "n_prop")), tt)
  out
}
