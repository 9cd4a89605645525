# Hamiltonian Monte Carlo (src/sampler_hmc.c).

#' Hamiltonian Monte Carlo
#'
#' Hamiltonian Monte Carlo with `n_steps` leapfrog steps of size
#' `step_size` and a diagonal mass matrix. With `adapt = TRUE` the step size
#' is tuned during burn-in by dual averaging (Hoffman and Gelman 2014,
#' section 3.2) towards the mean acceptance probability `target_accept`,
#' and fixed afterwards. The gradient is the target's own, or computed by
#' central finite differences (one call for both with
#' `target(f, gradient = TRUE)`). Transitions whose energy error exceeds
#' 1000, or that reach a point where the log density is `NaN` or `+Inf` or
#' its gradient is not finite, are divergences: rejected and counted (the
#' latter also in `n_nonfinite`; at the initial values such a value is an
#' error of class `"mcmix_error_init"`).
#'
#' The final state of each chain holds `n_accept`, `n_prop`,
#' `sum_accept_prob` (kept phase), `n_divergent` (kept phase),
#' `warmup_divergent`, `n_nonfinite` (all phases), and the step size (`exp(da_log_step_size_bar)` after
#' adaptation, see [hmc_step_size()]).
#'
#' @inheritParams sample_mh
#' @param step_size Leapfrog step size (the initial one when adapting).
#' @param n_steps Number of leapfrog steps per iteration (at most 100000).
#' @param adapt Adapt the step size during burn-in.
#' @param target_accept Mean acceptance probability aimed at by adaptation.
#' @param mass Diagonal of the mass matrix (one number or one per
#'   coordinate); ideally the inverse posterior variances.
#' @return An `mcmix_fit`.
#' @seealso [sample_mh()], [target()]
#' @examples
#' set.seed(1)
#' tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
#' fit <- sample_hmc(tg, init = c(1, 1), iter = 500, n_steps = 10)
#' colMeans(as.matrix(fit))
#' hmc_step_size(fit)
#' @export
sample_hmc <- function(target, init, iter = 1000, burnin = floor(iter / 2),
                       thin = 1, chains = 1, step_size = 0.1, n_steps = 20,
                       adapt = TRUE, target_accept = 0.65, mass = 1,
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
  n_steps <- check_count_max(n_steps, "n_steps", 1L, 1e5,
                             "leapfrog steps per iteration")
  adapt <- check_flag(adapt, "adapt")
  target_accept <- check_prob(target_accept, "target_accept")
  mass <- check_positive(mass, "mass", d)
  init_fun <- init_function(init, tg, chains)
  hmc_check_moves(step_size, n_steps, mass, if (!is.function(init)) init_fun(1L))
  spec <- list(n_steps = as.double(n_steps), mass = mass,
               adapt = as.double(adapt && burnin > 0L),
               target_accept = target_accept, gamma = 0.05, t0 = 10,
               kappa = 0.75)
  run_target_sampler("hmc",
    function(t, io, st, run, sp) .Call(C_ffi_hmc_run, t, io, st, run, sp),
    tg, d, init, init_fun,
    init_state = function(theta) {
      start <- target_probe(tg, theta, gradient = TRUE)   # R/target.R
      list(theta = theta, logd = start$logd, grad = start$grad, iteration = 0,
           log_step_size = log(step_size), da_mu = log(10 * step_size),
           da_hbar = 0, da_log_step_size_bar = 0, da_m = 0,
           n_accept = 0, n_prop = 0, sum_accept_prob = 0, n_divergent = 0,
           warmup_divergent = 0, n_nonfinite = 0)
    },
    spec, iter, burnin, thin, chains, cores, backend, progress,
    model = list(type = "hmc", target = tg), call = call)
}

#' Step size and divergences of an HMC fit
#'
#' @param fit An `mcmix_fit` from [sample_hmc()].
#' @return `hmc_step_size()`: the step size used after burn-in, per chain.
#'   `hmc_divergences()`: the number of divergent transitions after burn-in,
#'   per chain.
#' @examples
#' set.seed(1)
#' fit <- sample_hmc(function(x) -x^2 / 2, init = 0, iter = 200)
#' hmc_step_size(fit)
#' hmc_divergences(fit)
#' @export
hmc_step_size <- function(fit) {
  check_fit_type(fit, "hmc")
  vapply(fit$chains, function(ch) {
    s <- ch$state
    if (s$da_m > 0) exp(s$da_log_step_size_bar) else exp(s$log_step_size)
  }, numeric(1))
}

#' @rdname hmc_step_size
#' @export
hmc_divergences <- function(fit) {
  check_fit_type(fit, "hmc")
  vapply(fit$chains, function(ch) ch$state$n_divergent, numeric(1))
}

# A leapfrog trajectory moves coordinate j by about
# n_steps * step_size / sqrt(mass[j]) (momentum p ~ N(0, mass)). Refuse
# settings under which theta cannot change in floating point (a frozen chain
# that would look converged) or every trajectory leaves for infinity.
hmc_check_moves <- function(step_size, n_steps, mass, theta0 = NULL) {
  move <- n_steps * step_size / sqrt(mass)
  scale <- if (is.null(theta0)) 1 else pmax(abs(theta0), 1)
  arg <- function(j) if (mass[j] < 1e-100 || mass[j] > 1e100) "mass" else "step_size"
  j <- which(!(move > 4 * .Machine$double.eps * scale))
  if (length(j))
    stop(sprintf(paste0("`%s` is too extreme: a trajectory of n_steps * step_size / ",
                        "sqrt(mass) = %.3g cannot move theta[%d] = %.3g in floating point ",
                        "(a frozen chain); use a larger `step_size` or a smaller `mass`, or ",
                        "rescale the target."), arg(j[1L]), move[j[1L]], j[1L],
                 if (is.null(theta0)) 1 else theta0[j[1L]]), call. = FALSE)
  j <- which(!(move < 1e100 * scale))
  if (length(j))
    stop(sprintf(paste0("`%s` is too extreme: a trajectory of n_steps * step_size / ",
                        "sqrt(mass) = %.3g moves theta[%d] out of any reasonable range; ",
                        "use a smaller `step_size` or a larger `mass`."),
                 arg(j[1L]), move[j[1L]], j[1L]), call. = FALSE)
  invisible(TRUE)
}

check_fit_type <- function(fit, type) {
  if (!inherits(fit, paste0("mcmix_", type, "_fit")))
    stop(sprintf("`fit` must be an mcmix_fit from sample_%s().", type),
         call. = FALSE)
}
