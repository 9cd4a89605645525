# Metropolis-Hastings (src/sampler_mh.c): proposals, adaptation, sampler.

#' Proposals for the Metropolis-Hastings sampler
#'
#' * `proposal_rw()`: random-walk normal proposal `theta + N(0, Sigma)`, with
#'   `Sigma = diag(scale^2)` or `Sigma = cov` (default: `scale = 2.38 /
#'   sqrt(d)`).
#' * `proposal_independent()`: independence proposal, either normal with
#'   `mean` and `cov`, or given as R functions `draw()` (no argument) and
#'   `log_density(y)`.
#' * `proposal_custom()`: any proposal as R functions `draw(x)` (a new
#'   point given the current one) and `log_density(y, x)` = log q(y | x);
#'   leave `log_density` `NULL` for a symmetric proposal.
#' * `proposal_mixture()`: at each iteration one of `proposals` is chosen
#'   with probability `weights` and a Metropolis-Hastings step is made with
#'   it (a mixture of kernels, which leaves the target invariant).
#'
#' @param scale Standard deviation(s) of the random-walk steps (a number, or
#'   one per coordinate).
#' @param cov Covariance matrix of the steps (random walk) or of the
#'   proposal (independence).
#' @param mean Mean of the normal independence proposal.
#' @param draw,log_density R functions, see Details.
#' @param proposals A list of proposals.
#' @param weights Probabilities of choosing each proposal (normalised).
#' @return An object of class `mcmix_proposal`.
#' @seealso [sample_mh()]
#' @examples
#' proposal_rw(scale = 0.5)
#' proposal_independent(mean = c(0, 0), cov = diag(2))
#' ring <- proposal_custom(function(x) (x + sample(c(-1, 1), 1)) %% 5)
#' proposal_mixture(list(proposal_rw(0.1), proposal_rw(2)), weights = c(0.5, 0.5))
#' @name proposals
NULL

#' @rdname proposals
#' @export
proposal_rw <- function(scale = NULL, cov = NULL) {
  if (!is.null(scale) && !is.null(cov))
    stop("give `scale` or `cov`, not both.", call. = FALSE)
  if (!is.null(scale))
    check_scale_vector(scale, "scale", "; give a covariance matrix as `cov`")
  if (!is.null(cov)) check_cov(cov, "cov", NULL)
  structure(list(kind = "rw", scale = scale, cov = cov), class = "mcmix_proposal")
}

#' @rdname proposals
#' @export
proposal_independent <- function(mean = NULL, cov = NULL, draw = NULL,
                                 log_density = NULL) {
  if (!is.null(draw) || !is.null(log_density)) {
    if (!is.function(draw) || !is.function(log_density))
      stop("`draw` and `log_density` must both be functions for an ",
           "independence proposal given by R functions.", call. = FALSE)
    if (!is.null(mean) || !is.null(cov))
      stop("give either `mean` and `cov`, or `draw` and `log_density`.",
           call. = FALSE)
    p <- proposal_custom(function(x) draw(), function(y, x) log_density(y))
    p$independent <- TRUE
    return(p)
  }
  if (!is.numeric(mean) || !length(mean) || any(!is.finite(mean)))
    stop(sprintf("`mean` must be a numeric vector of finite values, not %s.",
                 describe_value(mean)), call. = FALSE)
  if (is.null(cov)) cov <- diag(length(mean))
  check_cov(cov, "cov", length(mean))
  structure(list(kind = "independent", mean = as.double(mean), cov = cov),
            class = "mcmix_proposal")
}

#' @rdname proposals
#' @export
proposal_custom <- function(draw, log_density = NULL) {
  if (!is.function(draw))
    stop(sprintf("`draw` must be a function, not %s.", describe_value(draw)),
         call. = FALSE)
  if (!is.null(log_density) && !is.function(log_density))
    stop(sprintf("`log_density` must be NULL or a function, not %s.",
                 describe_value(log_density)), call. = FALSE)
  structure(list(kind = "custom", draw = draw, log_density = log_density),
            class = "mcmix_proposal")
}

#' @rdname proposals
#' @export
proposal_mixture <- function(proposals, weights = NULL) {
  if (!is.list(proposals) || !length(proposals) ||
      !all(vapply(proposals, inherits, logical(1), "mcmix_proposal")))
    stop("`proposals` must be a non-empty list of proposals (proposal_rw(), ...).",
         call. = FALSE)
  if (any(vapply(proposals, function(p) p$kind == "mixture", logical(1))))
    stop("`proposals` cannot contain mixtures.", call. = FALSE)
  if (is.null(weights)) weights <- rep(1, length(proposals))
  if (!is.numeric(weights) || length(weights) != length(proposals) ||
      anyNA(weights) || any(weights < 0) || sum(weights) <= 0)
    stop(sprintf("`weights` must be %d non-negative numbers with a positive sum.",
                 length(proposals)), call. = FALSE)
  structure(list(kind = "mixture", proposals = proposals,
                 weights = weights / sum(weights)), class = "mcmix_proposal")
}

#' @export
print.mcmix_proposal <- function(x, ...) {
  desc <- switch(x$kind,
    rw = "random-walk normal",
    independent = "independence normal",
    custom = if (isTRUE(x$independent)) "independence (R functions)" else
      "custom (R functions)",
    mixture = sprintf("mixture of %d proposals", length(x$proposals)))
  cat("<mcmix proposal: ", desc, ">\n", sep = "")
  invisible(x)
}

# The C description of one (non-mixture) proposal in dimension d.
proposal_spec <- function(p, d, weight = 1) {
  switch(p$kind,
    rw = {
      L <- if (!is.null(p$cov)) check_cov(p$cov, "cov", d) else {
        s <- if (is.null(p$scale)) 2.38 / sqrt(d) else p$scale
        if (!length(s) %in% c(1L, d))
          stop(sprintf("`scale` of proposal_rw() must have length 1 or %d, not %d.",
                       d, length(s)), call. = FALSE)
        diag(rep_len(s, d), d)
      }
      list(kind = 0, weight = weight, chol = as.double(L))
    },
    independent = {
      if (length(p$mean) != d)
        stop(sprintf("`mean` of proposal_independent() must have length %d, not %d.",
                     d, length(p$mean)), call. = FALSE)
      list(kind = 1, weight = weight, chol = as.double(check_cov(p$cov, "cov", d)),
           mean = p$mean)
    },
    custom = list(kind = 2, weight = weight, draw = p$draw,
                  log_density = p$log_density))
}

#' Adaptation of Metropolis-Hastings proposals
#'
#' * `adapt_none()`: the proposal is fixed.
#' * `adapt_scale()`: the scale of a random-walk proposal is tuned by
#'   stochastic approximation, `log s <- log s + t^-kappa (alpha -
#'   target_accept)`, towards the acceptance rate `target_accept`.
#' * `adapt_haario()`: the adaptive Metropolis algorithm of Haario, Saksman
#'   and Tamminen (2001): after `start` iterations the random-walk
#'   covariance becomes `lambda * scale * (C + eps I)`, with `C` the
#'   empirical covariance of the states visited so far, `scale = 2.38^2 / d`
#'   by default, and a global factor `lambda` tuned towards the acceptance
#'   rate `target_accept` as in `adapt_scale()` (Andrieu and Thoms 2008,
#'   Algorithm 4). With `initial = "laplace"` (the default) the adaptation
#'   starts from the Laplace approximation of the target: the proposal
#'   covariance is `scale` times the inverse Hessian of `-log f` at its
#'   mode, found by BFGS ([stats::optim()]) from the first chain's initial
#'   values (the chains still start at their initial values). When the
#'   search fails or the Hessian is not positive definite, the adaptation
#'   starts from the random-walk proposal given to [sample_mh()], as with
#'   `initial = "proposal"`. By default the adaptation continues over the
#'   kept iterations (`during = "always"`) with the vanishing weight `1/t`
#'   of a new state in `C` and the gain `t^-kappa` of `lambda`, as in
#'   Haario et al. (2001), whose chain is ergodic for the target.
#'   Together these make the algorithm usable on correlated posteriors with
#'   very different scales, such as a logistic regression on uncentred
#'   covariates, with the default burn-in.
#'
#' With `during = "burnin"` (the default of `adapt_scale()`) the proposal adapts during the
#' burn-in only and is then frozen, so the kept draws come from an ordinary
#' Metropolis-Hastings chain. With `during = "always"` adaptation continues
#' over the kept iterations with a vanishing effect (diminishing
#' adaptation), which keeps the target as the limiting distribution but
#' makes the kept draws a non-Markov sequence.
#'
#' @param target_accept Acceptance rate aimed at (0.234 is optimal for
#'   random-walk proposals in high dimension; 0.44 in one dimension).
#' @param kappa Exponent of the adaptation gain, in (0.5, 1].
#' @param eps Small number added to the diagonal of the covariance.
#' @param start Number of adaptation steps before the covariance is used.
#' @param scale Multiplier of the covariance (default `2.38^2 / d`).
#' @param initial `"laplace"` or `"proposal"`: where the adaptation of
#'   `adapt_haario()` starts (see above).
#' @param during `"burnin"` or `"always"`.
#' @return An object of class `mcmix_adapt`.
#' @seealso [sample_mh()]
#' @examples
#' adapt_scale(0.3)
#' adapt_haario(start = 200)
#' adapt_none()
#' @name adaptation
NULL

#' @rdname adaptation
#' @export
adapt_none <- function() {
  structure(list(kind = "none", during = "burnin"), class = "mcmix_adapt")
}

#' @rdname adaptation
#' @export
adapt_scale <- function(target_accept = 0.234, kappa = 0.6,
                        during = c("burnin", "always")) {
  target_accept <- check_prob(target_accept, "target_accept")
  if (!is.numeric(kappa) || length(kappa) != 1L || is.na(kappa) ||
      kappa <= 0.5 || kappa > 1)
    stop(sprintf("`kappa` must be a number in (0.5, 1], not %s.",
                 describe_value(kappa)), call. = FALSE)
  during <- match_choice(during, c("burnin", "always"), "during")
  structure(list(kind = "scale", target_accept = target_accept, kappa = kappa,
                 during = during), class = "mcmix_adapt")
}

#' @rdname adaptation
#' @export
adapt_haario <- function(start = 100, eps = 1e-6, scale = NULL,
                         during = c("always", "burnin"),
                         initial = c("laplace", "proposal"),
                         target_accept = 0.234, kappa = 0.6) {
  start <- check_count(start, "start", 1L)
  eps <- check_positive(eps, "eps")
  if (!is.null(scale)) scale <- check_positive(scale, "scale")
  during <- match_choice(during, c("always", "burnin"), "during")
  initial <- match_choice(initial, c("laplace", "proposal"), "initial")
  a <- adapt_scale(target_accept, kappa)
  structure(list(kind = "haario", start = start, eps = eps, scale = scale,
                 during = during, initial = initial, target_accept = a$target_accept,
                 kappa = a$kappa), class = "mcmix_adapt")
}

# The random-walk proposal from the Laplace approximation of the target
# (see ?adaptation): scale * H^-1 at the mode of log f found by BFGS from
# theta0, or NULL when the search fails or H is not positive definite.
laplace_proposal <- function(tg, theta0, scale) {
  f <- function(b) {
    v <- tryCatch(target_eval(tg, b), error = function(e) -Inf)
    if (is.finite(v)) -v else 1e300
  }
  o <- tryCatch(stats::optim(theta0, f, method = "BFGS", hessian = TRUE,
                             control = list(maxit = 1000L)),
                error = function(e) NULL)
  if (is.null(o) || o$convergence != 0L || o$value >= 1e300 ||
      any(!is.finite(o$hessian))) return(NULL)
  H <- (o$hessian + t(o$hessian)) / 2
  S <- tryCatch(chol2inv(chol(H)), error = function(e) NULL)
  if (is.null(S)) return(NULL)
  proposal_rw(cov = scale * S)
}

#' @export
print.mcmix_adapt <- function(x, ...) {
  cat("<mcmix adaptation: ", x$kind, if (x$kind != "none")
    paste0(", during ", x$during), ">\n", sep = "")
  invisible(x)
}

adapt_spec <- function(a, d) {
  list(kind = c(none = 0, scale = 1, haario = 2)[[a$kind]],
       always = as.double(identical(a$during, "always")),
       target_accept = if (is.null(a$target_accept)) 0.234 else a$target_accept,
       kappa = if (is.null(a$kappa)) 0.6 else a$kappa,
       sd = if (is.null(a$scale)) 2.38^2 / d else a$scale,
       eps = if (is.null(a$eps)) 1e-6 else a$eps,
       start = as.double(if (is.null(a$start)) 0 else a$start))
}

#' Metropolis-Hastings sampler
#'
#' Samples a target density with the Metropolis-Hastings algorithm and a
#' random-walk, independence, custom or mixed proposal, optionally adaptive
#' (see [adaptation]). Runs `chains` chains through the common chain driver
#' ([run_kernel()]): one random-number stream per chain, progress bar,
#' interrupts, and [extend()].
#'
#' Random numbers come from R's generator only, so `set.seed()` reproduces
#' a run, and running in chunks or continuing with [extend()] gives the
#' draws of one longer run. The normal variates of the random-walk and
#' normal independence proposals are made by Marsaglia's polar method from
#' `unif_rand()` (exact, 1.27 uniforms per variate; with an odd dimension
#' the last pair's second variate is not used), which is about twice as
#' cheap as R's default inversion and matters with compiled targets, where
#' the generator dominates the cost of an iteration. The acceptance test
#' compares `log(u)` with the log acceptance ratio and draws `u` only when
#' that ratio is negative. Draws therefore differ from those of an R
#' implementation using `rnorm()`, but have the same distribution.
#'
#' print() and summary() of the fit warn (class `mcmix_warning_mixing`)
#' when the acceptance rate of a chain is outside 0.05-0.95 or the bulk
#' effective sample size of a coordinate is below 100.
#'
#' Acceptance counts are kept in the final state of each chain:
#' `n_accept`/`n_prop` over the kept phase, `warmup_accept`/`warmup_prop`
#' over the burn-in, and `proposal_accept`/`proposal_prop` per proposal of a
#' mixture. A proposal where the log density is `NaN` or `+Inf` is
#' rejected, as one outside the support, and counted in `n_nonfinite`
#' (all phases; see [target()]); `print()` of the fit reports them.
#'
#' @param target A [target()], an R function (the log density of a numeric
#'   vector), or a compiled target (external pointer).
#' @param init Initial values: a numeric vector, a list with one vector per
#'   chain, or a `function(chain)` returning a vector. When missing, every
#'   chain starts at values drawn uniformly on (-2, 2) in each coordinate
#'   (Stan's default), from the chain's own random number stream; this needs
#'   the dimension of the target (a compiled target's, or
#'   `target(f, dim = )`).
#' @param iter Number of iterations per chain after burn-in.
#' @param burnin Number of burn-in iterations per chain, run before the kept ones
#'   and not kept (default `floor(iter / 2)`; see [mcmix-run-settings]).
#'   Adaptation happens there.
#' @param thin Keep every `thin`-th iteration.
#' @param chains Number of chains.
#' @param proposal A proposal, see [proposals].
#' @param adapt An adaptation scheme, see [adaptation]. `NULL` (the
#'   default) means `adapt_scale()` (the scale of the random-walk proposal
#'   tuned during burn-in towards an acceptance rate of 0.234, then frozen)
#'   when the proposal is a random walk and `burnin` is positive, and
#'   `adapt_none()` otherwise. The default random-walk scale
#'   \eqn{2.38/\sqrt{d}} suits a target whose coordinates have standard
#'   deviations near 1; the adaptation brings it to the target's own scale
#'   (a factor of 10 either way takes a few dozen burn-in iterations), so a
#'   target measured in other units still mixes. `adapt_none()` keeps the
#'   proposal exactly as given.
#' @param cores,backend,progress Run settings, as every sampler takes them
#'   (see [mcmix-run-settings] and [run_kernel()]): the number of chains run
#'   at the same time (option `mcmix.cores`), how they run in parallel
#'   (option `mcmix.backend`), and whether to report progress (default
#'   `interactive()`).
#' @param ... Unused; unknown arguments are refused.
#' @return An `mcmix_fit`.
#' @seealso [sample_slice()], [sample_hmc()], [target()]
#' @examples
#' S <- matrix(c(1, 0.8, 0.8, 2), 2)
#' P <- solve(S)
#' ld <- function(x) -0.5 * sum((x - c(1, 2)) * (P %*% (x - c(1, 2))))
#' set.seed(1)
#' fit <- sample_mh(ld, init = c(0, 0), iter = 2000, burnin = 500,
#'                  proposal = proposal_rw(cov = S), adapt = adapt_scale())
#' colMeans(as.matrix(fit))
#' @export
sample_mh <- function(target, init, iter = 1000, burnin = floor(iter / 2),
                      thin = 1, chains = 1, proposal = proposal_rw(),
                      adapt = NULL,
                      cores = mcmix_option("cores"),
                      backend = mcmix_option("backend"),
                      progress = interactive(), ...) {
  check_dots(list(...))   # R/checks.R
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  call <- match.call()
  if (missing(init)) init <- random_init(target)   # R/sampler.R
  su <- sampler_setup(target, init, iter, burnin, chains)   # R/sampler.R
  iter <- su$iter; tg <- su$tg; chains <- su$chains; burnin <- su$burnin; d <- su$d
  if (!inherits(proposal, "mcmix_proposal"))
    stop(sprintf("`proposal` must be a proposal (proposal_rw(), ...), not %s.",
                 describe_value(proposal)), call. = FALSE)
  if (is.null(adapt))   # the default: tune the random walk's scale during burn-in
    adapt <- if (proposal$kind == "rw" && burnin > 0L) adapt_scale() else adapt_none()
  if (!inherits(adapt, "mcmix_adapt"))
    stop(sprintf("`adapt` must be NULL, adapt_none(), adapt_scale() or adapt_haario(), not %s.",
                 describe_value(adapt)), call. = FALSE)
  if (adapt$kind != "none" && proposal$kind != "rw")
    stop("`adapt` needs a random-walk proposal (`proposal = proposal_rw()`).",
         call. = FALSE)
  if (adapt$kind != "none" && adapt$during == "burnin" && burnin == 0L)
    stop("`adapt` adapts during burn-in only, but `burnin` is 0; set `burnin` ",
         "or use `during = \"always\"`.", call. = FALSE)
  check_budget(4 * 8 * as.double(d)^2, "init",   # R/chains.R
               sprintf("a target of dimension %s (proposal and adaptation hold d x d matrices)",
                       format_count(d)), fix = "use a target of lower dimension")
  init_fun <- init_function(init, tg, chains)
  if (adapt$kind == "haario" && identical(adapt$initial, "laplace")) {
    saved <- rng_save()   # init(1) may draw: leave the caller's stream alone
    theta0 <- init_fun(1L)
    rng_restore(saved)
    lp <- laplace_proposal(tg, theta0, if (is.null(adapt$scale)) 2.38^2 / d else adapt$scale)
    if (!is.null(lp)) proposal <- lp
  }
  props <- if (proposal$kind == "mixture")
    Map(proposal_spec, proposal$proposals, d, proposal$weights) else
      list(proposal_spec(proposal, d))
  spec <- list(proposals = props, adapt = adapt_spec(adapt, d))
  K <- length(props)
  run_target_sampler("mh",
    function(t, io, st, run, sp) .Call(C_ffi_mh_run, t, io, st, run, sp),
    tg, d, init, init_fun,
    init_state = function(theta)
      list(theta = theta, logd = target_probe(tg, theta),
           iteration = 0, n_accept = 0, n_prop = 0,
           warmup_accept = 0, warmup_prop = 0,
           proposal_accept = double(K), proposal_prop = double(K),
           log_scale = 0, adapt_t = 0, adapt_mean = double(d),
           adapt_m2 = double(d * d), n_nonfinite = 0),
    spec, iter, burnin, thin, chains, cores, backend, progress,
    model = list(type = "mh", target = tg, proposal = proposal, adapt = adapt),
    call = call)
}
