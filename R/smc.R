# Population methods on targets: tempered sequential Monte Carlo, annealed
# importance sampling and the harmonic mean estimator of the evidence
# (src/sampler_smc.c, glue src/ffi_smc.c).

# Draws from `prior_sampler(n)` as a d x n matrix (particles in columns),
# with the parameter names.
prior_draws <- function(prior_sampler, n, arg = "prior_sampler") {
  if (!is.function(prior_sampler))
    stop(sprintf("`%s` must be a function of n returning n draws, not %s.",
                 arg, describe_value(prior_sampler)), call. = FALSE)
  x <- prior_sampler(n)
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.numeric(x) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (!is.numeric(x) || !is.matrix(x) || nrow(x) != n || ncol(x) < 1L)
    stop(sprintf(paste0("`%s(%d)` must return %d draws: a numeric vector of ",
                        "length %d or a matrix with %d rows, not %s."),
                 arg, n, n, n, n, describe_value(x)), call. = FALSE)
  if (any(!is.finite(x)))
    stop(sprintf("`%s` returned missing or infinite values.", arg), call. = FALSE)
  nm <- colnames(x)
  d <- ncol(x)
  if (is.null(nm) || any(!nzchar(nm)))
    nm <- if (d == 1L) "theta" else sprintf("theta[%d]", seq_len(d))
  list(theta = t(unname(x)) * 1.0, names = nm, d = d)
}

# The likelihood and prior as targets of dimension d.
target_pair <- function(log_lik, log_prior, d) {
  lik <- as_target(log_lik, "log_lik")
  prior <- as_target(log_prior, "log_prior")
  for (p in list(list(lik, "log_lik"), list(prior, "log_prior")))
    if (!is.na(p[[1]]$dim) && p[[1]]$dim != d)
      stop(sprintf("`%s` has dimension %d, but `prior_sampler` draws vectors of length %d.",
                   p[[2]], p[[1]]$dim, d), call. = FALSE)
  list(lik, prior)
}

# Proposal scale factor: a positive number (NULL gives 2.38 / sqrt(d)).
proposal_scale <- function(scale, d) {
  if (is.null(scale)) return(2.38 / sqrt(d))
  scale <- check_number(scale, "scale", 0, open_lower = TRUE)
  # scale^2 multiplies the particle covariance (and its ridge): it must not
  # underflow to zero
  if (scale < 1e-100)
    stop(sprintf("`scale` must be a positive number of at least 1e-100, not %s.",
                 format(scale)), call. = FALSE)
  scale
}

#' Tempered sequential Monte Carlo
#'
#' Samples the posterior \eqn{\pi(\theta) \propto p(\theta) L(\theta)} by
#' moving a population of particles from the prior through the tempered
#' densities \eqn{\pi_\beta \propto p(\theta) L(\theta)^\beta},
#' \eqn{0 = \beta_0 < \beta_1 < \dots < \beta_T = 1}, and estimates the log
#' evidence \eqn{\log p(y) = \log \int p(\theta) L(\theta) d\theta}. At each
#' stage the particles are reweighted by \eqn{L^{\beta_t - \beta_{t-1}}}
#' (the log evidence gains the log of the weighted mean of these factors),
#' resampled (multinomial resampling) when the effective sample size (of
#' the pilot, see below) falls below `resample_threshold` times the number
#' of particles, and moved by `n_moves`
#' random-walk Metropolis steps that leave \eqn{\pi_{\beta_t}} invariant.
#'
#' **Tuning without bias.** The random-walk covariance (`scale^2` times the
#' weighted particle covariance), the adaptive temperatures and the
#' resampling times are all taken from a separate *pilot* population of
#' `n_pilot` particles that goes through the same stages and is then
#' discarded. Tuning the moves on the particles being moved would make each
#' particle's proposal depend on its own position, so the moves would no
#' longer leave \eqn{\pi_{\beta_t}} invariant: the population drifts
#' towards the mode and the evidence is overestimated by an amount that
#' grows with the dimension and the number of stages and shrinks only like
#' `1 / n_particles` (several nats in 10 dimensions with 100 particles).
#' Given the pilot, the estimating population is a standard particle system
#' with multinomial resampling, so \eqn{\hat Z} is unbiased and its
#' relative variance is estimated from the single run by the genealogy
#' (Eve index) estimator of Lee and Whiteley (2018); `se` is the implied
#' standard error of `log_evidence`. A warning is given when the genealogy
#' has collapsed to fewer than 10 ancestors (the estimate is then too
#' optimistic: use more particles or more moves).
#'
#' With `schedule = "adaptive"` the next temperature is found by bisection
#' so that the conditional effective sample size of the pilot's step is
#' `cess` times its number of particles (Zhou, Johansen and Aston 2016).
#'
#' **When to use it.** For the evidence, SMC is the robust general choice,
#' also for multimodal posteriors and when no posterior draws exist;
#' [bridge_evidence()] is cheaper when good posterior draws exist, and
#' [chib_evidence()] serves the Gibbs models it supports (see [evidence]).
#'
#' The result is not a Markov chain: it is an object of class `mcmix_smc`
#' holding the weighted particles (use `summary()` for weighted moments, or
#' resample with `sample.int(n, replace = TRUE, prob = x$weights)`).
#' Compiled targets run at C speed: the whole loop is compiled and calls
#' the targets through the engine.
#'
#' @param log_lik Log likelihood \eqn{\log L(\theta)}: an R function of the
#'   parameter vector, a [target()], or a compiled target.
#' @param log_prior Log prior density \eqn{\log p(\theta)}, normalised (the
#'   evidence estimate is only meaningful then), in the same forms.
#' @param prior_sampler `function(n)` returning `n` prior draws: a vector
#'   (one parameter) or a matrix with one row per draw (its column names
#'   name the parameters).
#' @param n_particles Number of particles.
#' @param schedule `"adaptive"`, or an increasing numeric vector of
#'   temperatures from 0 to 1.
#' @param cess Target conditional ESS fraction of the adaptive schedule,
#'   in (0, 1).
#' @param resample_threshold Resample when the ESS is below this fraction
#'   of `n_particles` (in \[0, 1\]; 1 resamples at every stage).
#' @param n_moves Number of Metropolis moves per particle and stage (at
#'   most 10000).
#' @param scale Proposal scale factor (default \eqn{2.38/\sqrt{d}}).
#' @param max_stages Largest number of adaptive stages.
#' @param n_pilot Number of particles of the pilot population that tunes
#'   the stages (default: `n_particles`, but at most `max(100, 10 d)` for
#'   `d` parameters).
#' @return An object of class `mcmix_smc`: `particles` (matrix, one row per
#'   particle), `weights` (normalised), `log_weights`, `log_lik`,
#'   `log_evidence`, `se` (its estimated Monte Carlo standard error),
#'   `relvar` (the estimate of \eqn{Var(\hat Z)/Z^2}), `n_eves` (surviving
#'   stage-0 ancestors), `pilot_log_evidence` (the pilot's own, biased,
#'   estimate), `schedule`, `ess` (after each reweighting), `accept`
#'   (acceptance rate of the moves per stage), `resampled` (logical per
#'   stage), `log_evidence_increments`.
#' @references Del Moral, P., Doucet, A. and Jasra, A. (2006). Sequential
#'   Monte Carlo samplers. *JRSS B* 68, 411-436. Zhou, Y., Johansen, A. M.
#'   and Aston, J. A. D. (2016). Toward automatic model comparison. *JCGS*
#'   25, 701-726. Lee, A. and Whiteley, N. (2018). Variance estimation in
#'   the particle filter. *Biometrika* 105, 609-625.
#' @seealso [ais()] for annealed importance sampling; [evidence] for a
#'   guide to choosing an evidence estimator.
#' @examples
#' # normal mean with known variance, normal prior
#' set.seed(1)
#' y <- rnorm(20, 1)
#' res <- sample_smc(function(th) sum(dnorm(y, th, 1, log = TRUE)),
#'                   function(th) dnorm(th, 0, 2, log = TRUE),
#'                   function(n) rnorm(n, 0, 2), n_particles = 200)
#' res
#' @export
sample_smc <- function(log_lik, log_prior, prior_sampler, n_particles = 1000,
                       schedule = "adaptive", cess = 0.9,
                       resample_threshold = 0.5, n_moves = 10, scale = NULL,
                       max_stages = 1000, n_pilot = NULL) {
  call <- match.call()
  n_particles <- check_count(n_particles, "n_particles", 2L)
  check_budget(1024 * as.double(n_particles), "n_particles",   # R/chains.R
               sprintf("%s particles", format_count(n_particles)))
  adaptive <- identical(schedule, "adaptive")
  if (!adaptive) {
    if (!is.numeric(schedule) || length(schedule) < 2L || anyNA(schedule) ||
        schedule[1L] != 0 || schedule[length(schedule)] != 1 ||
        any(diff(schedule) <= 0))
      stop(sprintf(paste0("`schedule` must be \"adaptive\" or an increasing vector ",
                          "of temperatures from 0 to 1, not %s."),
                   describe_value(schedule)), call. = FALSE)
  }
  cess <- check_number(cess, "cess", 0, 1, open_lower = TRUE)
  if (cess >= 1) stop("`cess` must be below 1.", call. = FALSE)
  resample_threshold <- check_number(resample_threshold, "resample_threshold", 0, 1)
  n_moves <- check_count_max(n_moves, "n_moves", 0L, 1e4, "Metropolis moves per stage")
  max_stages <- check_count(max_stages, "max_stages", 1L, 1000000L)
  pd <- prior_draws(prior_sampler, n_particles)
  n_pilot <- pilot_count(n_pilot, min(n_particles, max(100L, 10L * pd$d)))
  pilot <- prior_draws(prior_sampler, n_pilot)$theta
  scale <- proposal_scale(scale, pd$d)
  targets <- target_pair(log_lik, log_prior, pd$d)
  spec <- list(schedule = if (adaptive) double() else as.double(schedule),
               cess = cess, resample_threshold = resample_threshold,
               n_moves = n_moves, scale = scale, max_stages = max_stages,
               pilot = pilot)
  r <- with_target_io(pd$d, function(io)
    .Call(C_ffi_smc_run, targets, io, pd$theta, spec))
  particles <- t(r$theta)
  colnames(particles) <- pd$names
  se <- evidence_se(r$relvar)
  if (r$n_eves < 10L)
    warn(sprintf(paste0("the particles descend from only %d of the %d initial ",
                        "draws: the standard error of the log evidence is ",
                        "unreliable (use more particles or more moves)."),
                 r$n_eves, n_particles),
         c("mcmix_warning_smc_degenerate", "mcmix_warning_evidence"))
  structure(list(particles = particles, weights = exp(r$log_weights),
                 log_weights = r$log_weights, log_lik = r$log_lik,
                 log_prior = r$log_prior, log_evidence = r$log_evidence,
                 se = se, relvar = r$relvar, n_eves = r$n_eves,
                 pilot_log_evidence = r$pilot_log_evidence,
                 schedule = r$schedule, ess = r$ess, accept = r$accept,
                 resampled = as.logical(r$resampled),
                 log_evidence_increments = r$log_evidence_increments,
                 n_particles = n_particles, call = call),
            class = "mcmix_smc")
}

#' @export
print.mcmix_smc <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("Tempered SMC: ", x$n_particles, " particles, ", length(x$schedule) - 1L,
      " stages, ", sum(x$resampled), " resampling steps\n", sep = "")
  cat("log evidence: ", format(x$log_evidence, digits = digits + 2),
      if (!is.null(x$se)) paste0(" (s.e. ", format(x$se, digits = 3), ")"), "\n", sep = "")
  cat("final ESS: ", format(1 / sum(x$weights^2), digits = digits),
      "; mean move acceptance: ", format(mean(x$accept), digits = 3), "\n", sep = "")
  print(weighted_stats(x$particles, x$weights), digits = digits)
  invisible(x)
}

#' @export
summary.mcmix_smc <- function(object, ...) {
  structure(list(stats = weighted_stats(object$particles, object$weights),
                 log_evidence = object$log_evidence, se = object$se,
                 ess = 1 / sum(object$weights^2),
                 stages = length(object$schedule) - 1L),
            class = "summary.mcmix_smc")
}

#' @export
print.summary.mcmix_smc <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("log evidence ", format(x$log_evidence, digits = digits + 2),
      if (!is.null(x$se)) paste0(", s.e. ", format(x$se, digits = 3)), " (",
      x$stages, " stages, ESS ", format(x$ess, digits = digits), ")\n", sep = "")
  print(x$stats, digits = digits)
  invisible(x)
}

#' Annealed importance sampling for the marginal likelihood
#'
#' Estimates \eqn{\log p(y) = \log \int p(\theta) L(\theta) d\theta} by
#' annealed importance sampling (Neal 2001): each of `n_runs` independent
#' runs starts from a prior draw and passes through the tempered densities
#' \eqn{\pi_k \propto p(\theta) L(\theta)^{\beta_k}},
#' \eqn{0 = \beta_0 < \dots < \beta_K = 1}, accumulating the log weight
#' \eqn{\sum_k (\beta_k - \beta_{k-1}) \log L(\theta_{k-1})} and making
#' `n_moves` random-walk Metropolis moves that leave \eqn{\pi_k} invariant
#' at each temperature. The estimate is the log of the mean weight.
#'
#' The runs are independent, as the method requires: by default the
#' random-walk covariance at each temperature is `scale^2` times the
#' covariance of a separate set of `n_pilot` *pilot* runs annealed alongside
#' and discarded (give `proposal_cov` for a fixed proposal instead). A
#' covariance taken from the estimating runs themselves would make each
#' run's proposal depend on its own position, so its moves would no longer
#' leave \eqn{\pi_k} invariant and the evidence would be overestimated
#' (badly so in several dimensions with few runs). Given the pilot, the
#' weights \eqn{w_i} are independent and unbiased for \eqn{Z}, and `se`,
#' the standard error of `log_evidence`, is
#' \eqn{\sqrt{\log(1 + \hat v)}}, \eqn{\hat v = \mathrm{var}(w) /
#' (n \bar w^2)} (the delta-method \eqn{\mathrm{sd}(w) / (\sqrt n \bar
#' w)} when small). The effective sample size of the weights,
#' \eqn{(\sum w_i)^2 / \sum w_i^2}, is reported; when it is below 5% of
#' `n_runs` (or below 5) a warning says that `se` itself is unreliable (the weights are
#' then heavy-tailed: use more temperatures or moves).
#'
#' **When to use it.** AIS gives independent weights, hence the simplest
#' honest error, but needs many temperatures in several dimensions, where
#' [sample_smc()] (which resamples) is usually cheaper; with posterior
#' draws at hand, [bridge_evidence()] is cheaper still (see [evidence]).
#'
#' @inheritParams sample_smc
#' @param temperatures The number \eqn{K} of steps (at most 1e6; the
#'   schedule is then \eqn{\beta_k = (k/K)^4}, dense near the prior), or an
#'   increasing vector from 0 to 1. The default, `100 d` steps for `d`
#'   parameters (between 100 and 10000), keeps the variance of the log
#'   weights roughly constant as the dimension grows.
#' @param n_runs Number of independent annealing runs.
#' @param n_moves Metropolis moves per run and temperature (at most 10000).
#' @param proposal_cov `NULL` (adaptive, see Details), or a fixed proposal
#'   covariance: a positive number (times the identity), variances, or a
#'   matrix.
#' @param n_pilot Number of pilot runs that tune the proposal covariance
#'   when `proposal_cov` is `NULL` (default: `n_runs`, but at least 20 and
#'   at most `5 d` for `d` parameters).
#' @return An object of class `mcmix_ais`: `log_evidence`, `se` (its
#'   standard error), `log_weights`, `particles` (final points, one row per
#'   run), `ess` of the weights, `accept` per temperature, `temperatures`.
#' @references Neal, R. M. (2001). Annealed importance sampling.
#'   *Statistics and Computing* 11, 125-139.
#' @seealso [sample_smc()]; [evidence] for a guide to choosing an evidence
#'   estimator.
#' @examples
#' set.seed(1)
#' y <- rnorm(10, 1)
#' a <- ais(function(th) sum(dnorm(y, th, 1, log = TRUE)),
#'          function(th) dnorm(th, 0, 2, log = TRUE),
#'          function(n) rnorm(n, 0, 2), temperatures = 50, n_runs = 50)
#' a
#' plot(a)
#' @export
ais <- function(log_lik, log_prior, prior_sampler, temperatures = NULL,
                n_runs = 100, n_moves = 3, scale = NULL, proposal_cov = NULL,
                n_pilot = NULL) {
  call <- match.call()
  n_runs <- check_count(n_runs, "n_runs", 2L)
  check_budget(1024 * as.double(n_runs), "n_runs",   # R/chains.R
               sprintf("%s runs", format_count(n_runs)))
  n_moves <- check_count_max(n_moves, "n_moves", 0L, 1e4, "Metropolis moves per stage")
  pd <- prior_draws(prior_sampler, n_runs)
  d <- pd$d
  if (is.null(temperatures)) temperatures <- min(max(100L, 100L * d), 10000L)
  if (is.numeric(temperatures) && length(temperatures) == 1L) {
    K <- check_count_max(temperatures, "temperatures", 1L, 1e6, "annealing steps")
    temperatures <- (seq_len(K + 1L) - 1)^4 / K^4
  } else if (!is.numeric(temperatures) || length(temperatures) < 2L ||
             anyNA(temperatures) || temperatures[1L] != 0 ||
             temperatures[length(temperatures)] != 1 || any(diff(temperatures) <= 0)) {
    stop(sprintf(paste0("`temperatures` must be a number of steps or an increasing ",
                        "vector from 0 to 1, not %s."), describe_value(temperatures)),
         call. = FALSE)
  }
  targets <- target_pair(log_lik, log_prior, d)
  if (is.null(proposal_cov)) {
    n_pilot <- pilot_count(n_pilot, max(20L, min(n_runs, 5L * d)))
    spec <- list(temperatures = as.double(temperatures), n_moves = n_moves,
                 scale = proposal_scale(scale, d), chol = diag(d),
                 pilot = prior_draws(prior_sampler, n_pilot)$theta)
  } else {
    if (!is.null(scale))
      stop("`scale` and `proposal_cov` cannot both be given.", call. = FALSE)
    S <- check_cov_spec(proposal_cov, "proposal_cov", d)
    spec <- list(temperatures = as.double(temperatures), n_moves = n_moves,
                 scale = -1, chol = t(chol(S)))
  }
  r <- with_target_io(d, function(io)
    .Call(C_ffi_ais_run, targets, io, pd$theta, spec))
  lw <- r$log_weights
  mx <- max(lw)
  if (!is.finite(mx))
    stop("every AIS run ended with weight zero (log weight -Inf).", call. = FALSE)
  w <- exp(lw - mx)
  particles <- t(r$theta)
  colnames(particles) <- pd$names
  ess <- sum(w)^2 / sum(w^2)
  if (ess < max(5, 0.05 * n_runs))
    warn(sprintf(paste0("the effective sample size of the AIS weights is %.1f ",
                        "of %d runs: the standard error is unreliable (use more ",
                        "temperatures or moves)."), ess, n_runs),
         c("mcmix_warning_ais_ess", "mcmix_warning_evidence"))
  structure(list(log_evidence = mx + log(mean(w)),
                 se = evidence_se(stats::var(w) / (n_runs * mean(w)^2)),
                 log_weights = lw, particles = particles, log_lik = r$log_lik,
                 ess = ess, accept = r$accept,
                 temperatures = temperatures, n_runs = n_runs, call = call),
            class = "mcmix_ais")
}

#' @export
print.mcmix_ais <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("Annealed importance sampling: ", x$n_runs, " runs, ",
      length(x$temperatures) - 1L, " temperatures\n", sep = "")
  cat("log evidence: ", format(x$log_evidence, digits = digits + 2),
      " (s.e. ", format(x$se, digits = 3), ")\n", sep = "")
  cat("ESS of the weights: ", format(x$ess, digits = digits),
      "; mean move acceptance: ", format(mean(x$accept), digits = 3), "\n", sep = "")
  invisible(x)
}

# Standard error of log Z-hat from an estimate of Var(Z-hat) / Z^2 (for a
# log-normal Z-hat, Var(log Z-hat) = log(1 + relvar); the delta method
# sqrt(relvar) when small).  A negative estimate (possible for the
# genealogy estimator) is read as zero.
evidence_se <- function(relvar) sqrt(log1p(max(relvar, 0)))

#' Harmonic mean estimate of the evidence
#'
#' The harmonic mean estimator (Newton and Raftery 1994)
#' \eqn{\hat p(y) = (S^{-1} \sum_s 1 / L(\theta_s))^{-1}} from posterior draws
#' \eqn{\theta_s}, computed in logs. **Do not rely on it**: its variance is
#' usually infinite (the estimate is dominated by the rare draws with the
#' smallest likelihood, converges extremely slowly and overestimates the
#' evidence). It is provided for comparison with [sample_smc()], [ais()],
#' [bridge_evidence()] and [chib_evidence()]; a warning says so at every
#' call. See [evidence] for which estimator to use when.
#'
#' @param log_lik_draws Numeric vector of log-likelihood values
#'   \eqn{\log L(\theta_s)} at posterior draws.
#' @return The estimate of the log evidence (a number).
#' @seealso [evidence]
#' @examples
#' set.seed(1)
#' y <- rnorm(10, 1)
#' post <- rnorm(2000, sum(y) / (10 + 1/4), sqrt(1 / (10 + 1/4)))
#' ll <- vapply(post, function(m) sum(dnorm(y, m, 1, log = TRUE)), 0)
#' suppressWarnings(harmonic_mean_evidence(ll))
#' @export
harmonic_mean_evidence <- function(log_lik_draws) {
  if (!is.numeric(log_lik_draws) || !length(log_lik_draws) ||
      anyNA(log_lik_draws) || any(log_lik_draws == Inf))
    stop(sprintf(paste0("`log_lik_draws` must be a numeric vector of log-likelihood ",
                        "values (no NA or +Inf), not %s."), describe_value(log_lik_draws)),
         call. = FALSE)
  warn(paste0("the harmonic mean estimator usually has infinite variance and is ",
              "unreliable; prefer sample_smc(), ais(), bridge_evidence() or ",
              "chib_evidence()."),
       c("mcmix_warning_harmonic_mean", "mcmix_warning_evidence"))
  # a draw with zero likelihood makes the harmonic mean of the likelihoods 0
  if (any(log_lik_draws == -Inf)) return(-Inf)
  a <- -log_lik_draws
  mx <- max(a)
  -(mx + log(mean(exp(a - mx))))
}

# The number of pilot draws (`n_pilot`, `default` when NULL), within the
# memory budget as particles and runs are (R/chains_budget.R).
pilot_count <- function(n_pilot, default) {
  if (is.null(n_pilot)) return(default)
  n_pilot <- check_count(n_pilot, "n_pilot", 2L)
  check_budget(1024 * as.double(n_pilot), "n_pilot",
               sprintf("%s pilot draws", format_count(n_pilot)))
  n_pilot
}
