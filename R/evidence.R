# Marginal likelihood (evidence) from posterior draws: bridge sampling
# (Meng and Wong 1996) for any target with a log density, and Chib's
# candidate method (Murphy 2012, section 24.7.1; Chib 1995) for the Gibbs
# samplers whose full conditionals are known.  Chib's ordinates for finite
# mixtures live in R/evidence_chib.R; the population methods (sample_smc(),
# ais(), harmonic_mean_evidence()) in R/smc.R.

#' Estimating the marginal likelihood: which method when
#'
#' The evidence \eqn{p(y) = \int p(y \mid \theta) p(\theta) d\theta} of a
#' model (its marginal likelihood, the normalising constant of the
#' posterior) compares models through Bayes factors. mcmix has five
#' estimators; all return the log evidence with a Monte Carlo standard
#' error, and all need a **normalised** prior.
#'
#' * [sample_smc()] -- tempered sequential Monte Carlo from the prior to the
#'   posterior. The most robust general choice when you can draw from the
#'   prior and the posterior may be multimodal; gives posterior draws as well.
#'   The standard error comes from the particle genealogy (reliable unless a
#'   warning says the genealogy collapsed).
#' * [ais()] -- annealed importance sampling: independent runs, so its
#'   standard error is a plain standard error of a mean (reliable when the
#'   effective sample size of the weights is not small; it warns otherwise).
#'   Needs many temperatures in several dimensions.
#' * [bridge_evidence()] -- bridge sampling from existing posterior draws of
#'   any sampler (MH, slice, HMC, Gibbs, ...) and the unnormalised log
#'   posterior. Cheap and accurate when the posterior is unimodal and
#'   roughly normal (after transforming constrained parameters to the real
#'   line); the `"warp3"` proposal also handles skewness. Not for well
#'   separated modes unless the draws visit all of them in the right
#'   proportions.
#' * [chib_evidence()] -- Chib's candidate method from the output of the
#'   Gibbs samplers [probit_gibbs()], [hier_lm_gibbs()] and finite mixtures
#'   ([finite_mixture()] with [sample_posterior()]): uses the known full
#'   conditionals (Rao-Blackwellised posterior ordinates, plus reduced runs
#'   where needed); the estimate for mixtures is averaged over label
#'   permutations so that it is right even when the sampler does not switch
#'   labels (Neal 1999).
#' * [harmonic_mean_evidence()] -- for comparison only: its variance is
#'   usually infinite and it overestimates the evidence.
#'
#' The vignette `vignette("evidence", package = "mcmix")` runs every
#' estimator on the same problems next to the exact answer.
#'
#' @references Chib, S. (1995). Marginal likelihood from the Gibbs output.
#'   *JASA* 90, 1313-1321. Meng, X.-L. and Wong, W. H. (1996). Simulating
#'   ratios of normalizing constants via a simple identity. *Statistica
#'   Sinica* 6, 831-860. Neal, R. M. (1999). Erroneous results in "Marginal
#'   likelihood from the Gibbs output". Murphy, K. P. (2012). *Machine
#'   Learning: a Probabilistic Perspective*, section 24.7.
#' @name evidence
NULL

# A classed error for evidence estimators (caught by class in tests).
stop_evidence <- function(msg, arg = NULL, class = NULL) {
  stop(errorCondition(msg, class = c(class, "mcmix_error_input", "mcmix_error"),
                      arg = arg, call = NULL))
}

# log(mean(exp(x))) without overflow.
log_mean_exp <- function(x) {
  mx <- max(x)
  if (!is.finite(mx)) return(mx)
  mx + log(mean(exp(x - mx)))
}

# The evidence result returned by bridge_evidence() and chib_evidence().
new_evidence <- function(log_evidence, se, method, ...) {
  structure(list(log_evidence = log_evidence, se = se, method = method, ...),
            class = "mcmix_evidence")
}

#' @export
print.mcmix_evidence <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("Log evidence by ", x$method, ": ", format(x$log_evidence, digits = digits + 2),
      " (s.e. ", format(x$se, digits = 3), ")\n", sep = "")
  if (!is.null(x$note)) cat(x$note, "\n", sep = "")
  invisible(x)
}

# ---------------------------------------------------------------------------
# Bridge sampling

# Posterior draws as a list of per-chain matrices (rows = draws), and the
# default log posterior of a fit of a target (MH, slice, HMC).
bridge_draws <- function(x) {
  if (inherits(x, "mcmix_fit")) {
    nm <- fit_trace_names(x)
    return(lapply(x$chains, function(ch) {
      m <- ch$traces
      storage.mode(m) <- "double"
      colnames(m) <- nm
      m
    }))
  }
  if (inherits(x, "mcmc.list")) return(lapply(x, function(m) unclass(as.matrix(m))))
  if (inherits(x, "mcmc")) return(list(unclass(as.matrix(x))))
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.numeric(x) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (is.numeric(x) && is.matrix(x)) return(list(x))
  stop_evidence(sprintf(paste0("`x` must be a matrix of posterior draws (one row per ",
                               "draw), an mcmc or mcmc.list object, or an mcmix fit, ",
                               "not %s."), describe_value(x)), "x")
}

bridge_log_posterior <- function(x, log_posterior) {
  if (is.null(log_posterior)) {
    if (inherits(x, "mcmix_mixture_fit"))   # its traces are summaries, not the parameters
      stop_evidence(paste0("`x` is a mixture fit, whose traces are not its parameters: use ",
                           "chib_evidence() for a finite mixture (lca() included), or give ",
                           "`log_posterior` with a matrix of parameter draws as `x`."), "x")
    tg <- if (inherits(x, "mcmix_fit")) x$model$target
    if (!inherits(tg, "mcmix_target"))
      stop_evidence(paste0("`log_posterior` must be given: `x` is not a fit of a ",
                           "target (sample_mh(), sample_slice(), sample_hmc())."),
                    "log_posterior")
    log_posterior <- tg
  }
  if (inherits(log_posterior, "mcmix_target")) {
    tg <- log_posterior
    return(function(theta) target_eval(tg, theta))
  }
  if (!is.function(log_posterior))
    stop_evidence(sprintf(paste0("`log_posterior` must be a function of the parameter ",
                                 "vector or a target(), not %s."),
                          describe_value(log_posterior)), "log_posterior")
  log_posterior
}

# Evaluate the log posterior at every row of m (checked values).
bridge_eval <- function(f, m) {
  vapply(seq_len(nrow(m)), function(i) {
    v <- f(m[i, ])
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v == Inf)
      stop_evidence(sprintf(paste0("`log_posterior` must return one number (not NA ",
                                   "or +Inf), but returned %s."), describe_value(v)),
                    "log_posterior")
    as.double(v)
  }, 0)
}

# Effective sample size of a vector split into chains of the given lengths.
ess_chains <- function(v, lens) {
  idx <- rep(seq_along(lens), lens)
  e <- tryCatch(coda::effectiveSize(coda::mcmc.list(lapply(split(v, idx), coda::mcmc))),
                error = function(e) NA_real_)
  if (!is.finite(e) || e <= 0) length(v) else min(as.numeric(e), length(v))
}

#' Bridge sampling estimate of the evidence
#'
#' Estimates the log marginal likelihood from posterior draws and the
#' unnormalised log posterior \eqn{\log q(\theta) = \log p(y \mid \theta) +
#' \log p(\theta)} by the iterative optimal bridge sampling estimator of
#' Meng and Wong (1996), as laid out by Gronau et al. (2017). The first half
#' of each chain fits the proposal, a normal with the draws' mean and
#' covariance (`method = "normal"`), or that normal in the space warped to
#' symmetry about the mean (`"warp3"`, Meng and Schilling 2002, better for
#' skewed posteriors); the second half and as many proposal draws go into
#' the iteration
#' \deqn{\hat r^{(t+1)} = \frac{N_2^{-1} \sum_j \ell_{2j} / (s_1 \ell_{2j}
#'   + s_2 \hat r^{(t)})}{N_1^{-1} \sum_i 1 / (s_1 \ell_{1i} + s_2 \hat
#'   r^{(t)})},}
#' \eqn{\ell = q / g}, with \eqn{s_1 \propto} the effective sample size of
#' the posterior draws and \eqn{s_2 \propto N_2}. `se` is the square root
#' of the relative mean-squared error of \eqn{\hat p(y)} (Fruhwirth-Schnatter
#' 2004), which includes the autocorrelation of the posterior draws and
#' is, for small values, the standard error of the log evidence.
#'
#' Every parameter must live on the whole real line (transform bounded
#' parameters, adding the log Jacobian to `log_posterior`), and the prior in
#' `log_posterior` must be normalised. Bridge sampling is the method of
#' choice when posterior draws exist and the posterior is unimodal; see
#' [evidence] for the other estimators.
#'
#' @param x Posterior draws: a matrix (one row per draw), an `mcmc` or
#'   `mcmc.list` object, or an `mcmix_fit` (every chain's traces).
#' @param log_posterior The unnormalised log posterior: a function of the
#'   parameter vector or a [target()]. May be omitted when `x` is a fit of
#'   [sample_mh()], [sample_slice()] or [sample_hmc()] (its target is used).
#' @param method `"normal"` or `"warp3"`.
#' @param tol Relative convergence tolerance of the iteration.
#' @param max_iter Largest number of iterations.
#' @return An object of class `mcmix_evidence`: `log_evidence`, `se`,
#'   `re2` (relative mean-squared error), `method`, `iterations`, `n_post`
#'   and `n_proposal` (draws used in the iteration), `ess` (effective
#'   sample size of those posterior draws).
#' @references Meng, X.-L. and Wong, W. H. (1996). Simulating ratios of
#'   normalizing constants via a simple identity. *Statistica Sinica* 6,
#'   831-860. Meng, X.-L. and Schilling, S. (2002). Warp bridge sampling.
#'   *JCGS* 11, 552-586. Fruhwirth-Schnatter, S. (2004). Estimating
#'   marginal likelihoods for mixture and Markov switching models using
#'   bridge sampling techniques. *Econometrics Journal* 7, 143-167.
#'   Gronau, Q. F. et al. (2017). A tutorial on bridge sampling. *Journal
#'   of Mathematical Psychology* 81, 80-97.
#' @seealso [evidence], [chib_evidence()], [sample_smc()], [ais()]
#' @examples
#' # normal mean, known variance, N(0, 2^2) prior: exact answer known
#' set.seed(1)
#' y <- rnorm(20, 1)
#' lpost <- function(th) sum(dnorm(y, th, 1, log = TRUE)) + dnorm(th, 0, 2, log = TRUE)
#' prec <- 20 + 1 / 4
#' draws <- rnorm(2000, sum(y) / prec, sqrt(1 / prec))
#' bridge_evidence(draws, lpost)
#' S <- diag(20) + 4
#' -0.5 * determinant(2 * pi * S)$modulus - 0.5 * sum(y * solve(S, y))  # exact
#' @export
bridge_evidence <- function(x, log_posterior = NULL, method = c("normal", "warp3"),
                            tol = 1e-10, max_iter = 1000) {
  method <- match_choice(method, c("normal", "warp3"), "method")
  tol <- check_number(tol, "tol", 0, open_lower = TRUE)
  max_iter <- check_count(max_iter, "max_iter", 1L, 1e6)
  chains <- bridge_draws(x)
  f <- bridge_log_posterior(x, log_posterior)
  d <- ncol(chains[[1L]])
  if (any(vapply(chains, function(m) ncol(m) != d || nrow(m) < 4L, NA)))
    stop_evidence("`x` must hold at least 4 draws per chain of the same parameters.", "x")
  for (m in chains) check_finite_draws(m, "x")
  half <- lapply(chains, function(m) seq_len(nrow(m)) <= nrow(m) %/% 2L)
  fit_d <- do.call(rbind, Map(function(m, h) m[h, , drop = FALSE], chains, half))
  post <- do.call(rbind, Map(function(m, h) m[!h, , drop = FALSE], chains, half))
  lens <- vapply(half, function(h) sum(!h), 0L)
  mu <- colMeans(fit_d)
  V <- stats::cov(fit_d)
  if (!all(is.finite(V)) || !all(is.finite(mu)))   # their squares overflow
    stop_evidence(sprintf(paste0("the posterior draws in `x` are too large in magnitude (up to %s) ",
                                 "for their covariance: rescale the parameters."),
                          format(max(abs(fit_d)))), "x")
  L <- tryCatch(t(chol(V)), error = function(e)
    stop_evidence(paste0("the posterior draws in `x` have a singular covariance: ",
                         "bridge sampling needs draws that vary in every parameter."), "x"))
  N1 <- nrow(post)
  N2 <- N1
  ldL <- sum(log(diag(L)))
  lnorm <- function(z) -0.5 * rowSums(z^2) - 0.5 * d * log(2 * pi)
  zpost <- t(backsolve(L, t(post) - mu, upper.tri = FALSE))
  zgen <- matrix(stats::rnorm(N2 * d), N2, d)
  gen <- t(mu + L %*% t(zgen))
  if (method == "normal") {
    # q over the normal proposal g(theta) = N(mu, V)
    l1 <- bridge_eval(f, post) - (lnorm(zpost) - ldL)
    l2 <- bridge_eval(f, gen) - (lnorm(zgen) - ldL)
  } else {
    # warp III: the standardised posterior symmetrised about 0,
    # |L| (q(mu + L z) + q(mu - L z)) / 2, over the standard normal
    refl <- function(m) t(2 * mu - t(m))
    lsum <- function(a, b) pmax(a, b) + log1p(exp(-abs(a - b)))
    lsum_inf <- function(a, b) ifelse(is.infinite(a) & is.infinite(b), -Inf, lsum(a, b))
    l1 <- lsum_inf(bridge_eval(f, post), bridge_eval(f, refl(post))) - log(2) + ldL - lnorm(zpost)
    l2 <- lsum_inf(bridge_eval(f, gen), bridge_eval(f, refl(gen))) - log(2) + ldL - lnorm(zgen)
  }
  if (anyNA(l1) || anyNA(l2))
    stop_evidence(paste0("`log_posterior` or the normal proposal is not a number at some draws ",
                         "of `x`: check `log_posterior` there, or rescale the parameters."),
                  "log_posterior")
  if (any(is.infinite(l1) & l1 > 0) || all(l1 == -Inf))
    stop_evidence("`log_posterior` is -Inf at every posterior draw in `x`.", "log_posterior")
  ess <- stats::median(vapply(seq_len(d), function(j) ess_chains(post[, j], lens), 0))
  s1 <- ess / (ess + N2)
  s2 <- N2 / (ess + N2)
  lstar <- stats::median(l1)
  a1 <- l1 - lstar
  a2 <- l2 - lstar
  r <- 1
  it <- 0L
  repeat {
    it <- it + 1L
    num <- mean(1 / (s1 + s2 * r * exp(-a2)))
    den <- mean(1 / (s1 * exp(a1) + s2 * r))
    r_new <- num / den
    if (!is.finite(r_new) || r_new <= 0)
      stop_evidence("the bridge sampling iteration failed (a ratio became 0 or infinite).",
                    "x")
    done <- abs(r_new - r) / r_new < tol
    r <- r_new
    if (done) break
    if (it >= max_iter) {
      warn(sprintf("the bridge sampling iteration did not converge in %d steps.", max_iter),
           c("mcmix_warning_bridge_convergence", "mcmix_warning_evidence"))
      break
    }
  }
  logml <- log(r) + lstar
  # relative MSE (Fruhwirth-Schnatter 2004, eq. 14), f1 at the proposal
  # draws and f2 at the posterior draws, the latter with the integrated
  # autocorrelation time N1 / ESS of f2
  f1 <- 1 / (s1 + s2 * exp(logml - l2))
  f2 <- 1 / (s1 * exp(l1 - logml) + s2)
  tau <- N1 / ess_chains(f2, lens)
  re2 <- stats::var(f1) / (N2 * mean(f1)^2) + tau * stats::var(f2) / (N1 * mean(f2)^2)
  new_evidence(logml, sqrt(re2), paste0("bridge sampling (", method, ")"),
               re2 = re2, iterations = it, n_post = N1, n_proposal = N2, ess = ess)
}
