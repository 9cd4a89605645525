# The No-U-Turn sampler (src/sampler_nuts.c, src/sampler_nuts_adapt.c).

#' No-U-Turn sampler
#'
#' The multinomial No-U-Turn sampler of Stan (Hoffman and Gelman 2014;
#' Betancourt 2017): Hamiltonian Monte Carlo whose trajectories grow by
#' doubling until they make a U-turn (the generalised criterion on the
#' momenta, also checked across the halves of every subtree), a divergence
#' occurs, or the tree depth reaches `max_treedepth`; the next state is
#' drawn from the whole trajectory with weights \eqn{\exp(-H)}.
#'
#' Burn-in (Stan's warm-up) follows Stan's windowed adaptation: the step
#' size is tuned at every burn-in iteration by dual averaging towards the
#' mean acceptance statistic `target_accept`; the inverse metric (the
#' posterior covariance, diagonal or dense) is estimated from the draws of
#' slow windows of 25,
#' 50, 100, ... iterations between an initial fast buffer of 75 iterations
#' and a terminal fast buffer of 50 (scaled down to 15%, 75% and 10% of a
#' burn-in shorter than 150 iterations; not estimated at all for fewer than
#' 20), regularised as \eqn{n/(n+5)\,S + 10^{-3}\cdot 5/(n+5)\,I}. After
#' each window the step size is re-initialised by doubling or halving until
#' one leapfrog step is accepted with probability about 0.8.
#'
#' The target's own gradient is used when it has one (R function or
#' compiled target); otherwise central finite differences, and from one
#' call when the target gives both (`target(f, gradient = TRUE)`). A
#' transition whose energy error exceeds 1000, or that leaves the support,
#' or that reaches a point where the log density is `NaN` or `+Inf` or its
#' gradient is not finite (a density that overflows far in the tails), is
#' divergent: the point is rejected, never an error, as in Stan, and the
#' step-size search halves the step there. At the initial values such a
#' value is an error of class `"mcmix_error_init"`. [nuts_diagnostics()] reports, per chain, the step size,
#' divergences, hits of the maximum tree depth, leapfrog steps (gradient
#' evaluations) and the energy Bayesian fraction of missing information
#' (E-BFMI, Betancourt 2016); `print()` and `summary()` of the fit show
#' them and warn about divergences, saturated trees and E-BFMI below 0.3.
#'
#' @inheritParams sample_mh
#' @param burnin Number of burn-in iterations per chain, run before the kept ones
#'   and not kept (default `floor(iter / 2)`; see [mcmix-run-settings]).
#'   The step size and metric are adapted there.
#' @param step_size Initial step size (tuned during burn-in; used as given
#'   when `adapt = FALSE` or `burnin = 0`).
#' @param max_treedepth Maximum tree depth (at most `2^max_treedepth`
#'   leapfrog steps per iteration), between 1 and 20.
#' @param metric `"diag"` (a diagonal inverse metric) or `"dense"` (a full
#'   matrix).
#' @param inv_metric Initial inverse metric: a positive number, a vector of
#'   variances (one per coordinate), or, with `metric = "dense"`, a
#'   covariance matrix. Replaced during burn-in when it is long enough.
#' @param adapt Adapt the step size and the metric during burn-in.
#' @param target_accept Mean acceptance statistic aimed at by the step-size
#'   adaptation (Stan's `adapt_delta`).
#' @return An `mcmix_fit` (class `mcmix_nuts_fit`). The final state of each
#'   chain holds the adapted `inv_metric` and step size.
#' @references Hoffman, M. D. and Gelman, A. (2014). The No-U-Turn sampler.
#'   *JMLR* 15, 1593-1623. Betancourt, M. (2017). A conceptual introduction
#'   to Hamiltonian Monte Carlo. arXiv:1701.02434. Betancourt, M. (2016).
#'   Diagnosing suboptimal cotangent disintegrations in Hamiltonian Monte
#'   Carlo. arXiv:1604.00695.
#' @seealso [sample_hmc()] (fixed path length), [nuts_diagnostics()]
#' @examples
#' set.seed(1)
#' sd <- c(1, 10)
#' tg <- target(function(x) -sum((x / sd)^2) / 2,
#'              gradient = function(x) -x / sd^2)
#' fit <- sample_nuts(tg, init = c(1, 1), iter = 300, burnin = 300)
#' fit
#' nuts_diagnostics(fit)
#' @export
sample_nuts <- function(target, init, iter = 1000, burnin = floor(iter / 2), thin = 1,
                        chains = 1, step_size = 1, max_treedepth = 10,
                        metric = c("diag", "dense"), inv_metric = 1,
                        adapt = TRUE, target_accept = 0.8,
                        cores = mcmix_option("cores"),
                        backend = mcmix_option("backend"),
                        progress = interactive(), ...) {
  check_dots(list(...))   # R/checks.R
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  call <- match.call()
  if (missing(init)) init <- random_init(target)   # R/sampler.R
  su <- sampler_setup(target, init, iter, burnin, chains)
  iter <- su$iter; tg <- su$tg; chains <- su$chains; burnin <- su$burnin; d <- su$d
  step_size <- check_positive(step_size, "step_size")
  if (step_size > 1e7)   # (the largest step the tuning of src/sampler_nuts_adapt.c accepts)
    stop_input(sprintf("`step_size` must be at most 1e7, not %s.", describe_value(step_size)),
               "step_size")
  max_treedepth <- check_count(max_treedepth, "max_treedepth", 1L, 20L)
  metric <- match_choice(metric, c("diag", "dense"), "metric")
  dense <- metric == "dense"
  if (dense && d > 2000L)
    stop(sprintf(paste0("`metric` = \"dense\" needs three %d x %d matrices in the ",
                        "state; use metric = \"diag\" above 2000 dimensions."), d, d),
         call. = FALSE)
  if (8 * as.double(d) * (10 * max_treedepth + 28) > 2^30)
    stop(sprintf(paste0("`max_treedepth` = %d needs a tree workspace of %.1f GB for ",
                        "%d dimensions; lower it."), max_treedepth,
                 8 * as.double(d) * (10 * max_treedepth + 28) / 1e9, d), call. = FALSE)
  inv_metric <- nuts_inv_metric(inv_metric, d, dense)
  adapt <- check_flag(adapt, "adapt")
  target_accept <- check_prob(target_accept, "target_accept")
  init_fun <- init_function(init, tg, chains)
  win <- nuts_windows(if (adapt) burnin else 0L)
  spec <- list(max_depth = as.double(max_treedepth), dense = as.double(dense),
               adapt_step_size = as.double(adapt && burnin > 0L),
               adapt_metric = as.double(win$adapt_metric),
               n_warmup = as.double(burnin), init_buffer = as.double(win$init_buffer),
               term_buffer = as.double(win$term_buffer),
               target_accept = target_accept, gamma = 0.05, t0 = 10, kappa = 0.75)
  msize <- if (dense) d * d else d
  fit <- run_target_sampler("nuts",
    function(t, io, st, run, sp) .Call(C_ffi_nuts_run, t, io, st, run, sp),
    tg, d, init, init_fun,
    init_state = function(theta) {
      start <- target_probe(tg, theta, gradient = TRUE)   # R/target.R
      list(theta = theta, logd = start$logd, grad = start$grad, iteration = 0,
           inv_metric = as.double(inv_metric),
           chol = if (dense) as.double(t(chol(inv_metric))) else 0,
           log_step_size = log(step_size), da_mu = log(10 * step_size),
           da_sbar = 0, da_xbar = 0, da_counter = 0,
           win_n = 0, win_mean = double(d), win_m2 = double(msize),
           win_size = as.double(win$base_window), win_end = as.double(win$first_end),
           n_prop = 0, n_divergent = 0, n_max_depth = 0, n_leapfrog = 0,
           sum_accept_stat = 0, depth_counts = double(max_treedepth + 1L),
           energy_prev = 0, energy_n = 0, energy_mean = 0, energy_m2 = 0,
           energy_sqdiff = 0, warmup_divergent = 0, warmup_leapfrog = 0,
           n_nonfinite = 0)
    },
    spec, iter, burnin, thin, chains, cores, backend, progress,
    model = structure(list(type = "nuts", target = tg, metric = metric,
                           max_treedepth = max_treedepth,
                           target_accept = target_accept),
                      class = "mcmix_nuts_model"),
    call = call)   # class c("mcmix_nuts_fit", "mcmix_fit") from run_target_sampler()
  fit
}

# The initial inverse metric: a d-vector (diag) or a d x d matrix (dense).
nuts_inv_metric <- function(x, d, dense) {
  if (dense && is.matrix(x)) {
    check_cov(x, "inv_metric", d)
    return(x * 1.0)
  }
  v <- check_positive(x, "inv_metric", d)
  if (dense) diag(v, d) else v
}

# Stan's warm-up windows (windowed_adaptation::set_window_params) for
# `n` warm-up iterations: fast buffer, first slow window, terminal buffer.
nuts_windows <- function(n) {
  ib <- 75L; tb <- 50L; bw <- 25L
  if (n < 20L)
    return(list(adapt_metric = FALSE, init_buffer = 0L, term_buffer = 0L,
                base_window = 0L, first_end = -1))
  if (ib + bw + tb > n) {
    ib <- as.integer(floor(0.15 * n))
    tb <- as.integer(floor(0.1 * n))
    bw <- n - ib - tb
  }
  list(adapt_metric = TRUE, init_buffer = ib, term_buffer = tb,
       base_window = bw, first_end = ib + bw - 1)
}

#' @export
print.mcmix_nuts_model <- function(x, ...) {
  cat("No-U-Turn sampler, ", x$metric, " metric, max tree depth ",
      x$max_treedepth, ", target acceptance ", format(x$target_accept), ", ",
      gradient_label(x$target), "\n", sep = "")
  invisible(x)
}

#' Diagnostics of a NUTS fit
#'
#' Per chain, for the iterations after burn-in: the step size, the mean
#' acceptance statistic, the number of divergent transitions, of
#' transitions that hit the maximum tree depth, the mean tree depth, the
#' number of leapfrog steps (each one gradient evaluation) after and during
#' burn-in, and the E-BFMI \eqn{\sum_n (E_n - E_{n-1})^2 / (N-1) \big/
#' \widehat{\mathrm{Var}}(E)} of the energies \eqn{E_n} of the
#' transitions (values below 0.3 indicate that the momentum resampling
#' explores the energy levels poorly; Betancourt 2016). `nonfinite` counts
#' the points (warm-up included) where the log density was `NaN` or `+Inf`
#' or its gradient not finite: each ended its trajectory as a divergence
#' (see [target()]).
#'
#' @param fit An `mcmix_fit` from [sample_nuts()].
#' @return A data frame with one row per chain.
#' @examples
#' set.seed(1)
#' fit <- sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 200)
#' nuts_diagnostics(fit)
#' @export
nuts_diagnostics <- function(fit) {
  check_fit_type(fit, "nuts")
  rows <- lapply(fit$chains, function(ch) {
    s <- ch$state
    n <- s$n_prop
    depth <- seq_along(s$depth_counts) - 1L
    data.frame(
      chain = ch$id,
      step_size = if (s$da_counter > 0 && fit$settings$burnin > 0)
        exp(s$da_xbar) else exp(s$log_step_size),
      accept_stat = if (n > 0) s$sum_accept_stat / n else NA_real_,
      divergent = s$n_divergent,
      max_treedepth_hits = s$n_max_depth,
      mean_treedepth = if (n > 0) sum(depth * s$depth_counts) / n else NA_real_,
      n_leapfrog = s$n_leapfrog,
      warmup_leapfrog = s$warmup_leapfrog,
      warmup_divergent = s$warmup_divergent,
      nonfinite = if (is.numeric(s$n_nonfinite)) s$n_nonfinite else 0,
      ebfmi = if (s$energy_n > 2 && s$energy_m2 > 0)
        (s$energy_sqdiff / (s$energy_n - 1)) / (s$energy_m2 / s$energy_n)
        else NA_real_)
  })
  do.call(rbind, rows)
}

# Lines of warnings about a NUTS fit's diagnostics (none when all is well).
nuts_print_diagnostics <- function(dg, max_treedepth) {
  cat("\nNUTS diagnostics (after warm-up):\n")
  out <- dg
  for (v in c("step_size", "accept_stat", "mean_treedepth", "ebfmi"))
    out[[v]] <- formatC(dg[[v]], digits = 3, format = "g")
  print(out[c("chain", "step_size", "accept_stat", "divergent",
              "max_treedepth_hits", "mean_treedepth", "n_leapfrog", "ebfmi")],
        row.names = FALSE)
  if (sum(dg$divergent) > 0)
    cat(sum(dg$divergent), " divergent transition(s) after warm-up: the ",
        "draws may be biased; raise `target_accept` or reparameterise.\n", sep = "")
  if (sum(dg$nonfinite) > 0)
    cat(sum(dg$nonfinite), " point(s) with a non-finite log density or gradient were ",
        "rejected (each counted as a divergence).\n", sep = "")
  if (sum(dg$max_treedepth_hits) > 0)
    cat(sum(dg$max_treedepth_hits), " transition(s) hit the maximum tree depth ",
        max_treedepth, ": raise `max_treedepth` if this is frequent.\n", sep = "")
  low <- !is.na(dg$ebfmi) & dg$ebfmi < 0.3
  if (any(low))
    cat("E-BFMI below 0.3 in chain(s) ", paste(dg$chain[low], collapse = ", "),
        ": the energy is explored poorly (heavy tails or bad geometry).\n", sep = "")
}

#' @export
print.mcmix_nuts_fit <- function(x, ...) {
  NextMethod()
  nuts_print_diagnostics(nuts_diagnostics(x), x$model$max_treedepth)
  invisible(x)
}

#' @export
summary.mcmix_nuts_fit <- function(object, ...) {
  s <- NextMethod()
  s$nuts <- nuts_diagnostics(object)
  s$max_treedepth <- object$model$max_treedepth
  class(s) <- c("summary.mcmix_nuts_fit", class(s))
  s
}

#' @export
print.summary.mcmix_nuts_fit <- function(x, ...) {
  NextMethod()
  nuts_print_diagnostics(x$nuts, x$max_treedepth)
  invisible(x)
}
