# Reversible-jump MCMC for finite mixtures with an unknown number of
# components (src/mixture_rj.c, src/mixture_rj_collapsed.c through
# src/ffi_rj.c).
#
# Chain state (a plain list):
#   Richardson-Green: k, w, mu, s2 (k each, ordered by mu), z (0-based),
#     beta, counts (tries then acceptances of split, combine, birth, death);
#   collapsed: K, labels (0-based, internal order), stats (raw blocks of
#     the family or NULL), counts.
# Traces: K (components, empty ones included), n_clusters (occupied ones),
# then beta and log_lik (observed-data log-likelihood) for Richardson-Green,
# log_post (log p(K, z | x) up to a constant) for the collapsed sampler.

rj_move_names <- c("split", "combine", "birth", "death")

#' Richardson and Green's priors for univariate Gaussian mixtures
#'
#' The priors of Richardson and Green (1997) for the components of a
#' univariate Gaussian mixture with an unknown number of components:
#' \eqn{\mu_j \sim N(\xi, 1/\kappa)}, \eqn{\sigma_j^{-2} \sim
#' \mathrm{Gamma}(\alpha, \beta)} and the hyperprior \eqn{\beta \sim
#' \mathrm{Gamma}(g, h)} (rates). Left `NULL`, the data-dependent defaults of
#' the paper are used: \eqn{\xi} the midpoint of the range \eqn{R} of the
#' data, \eqn{\kappa = 1/R^2} and \eqn{h = 10/R^2}.
#'
#' @param xi,kappa Mean and precision of the Normal prior on the means.
#' @param alpha Shape of the Gamma prior on the precisions.
#' @param g,h Shape and rate of the Gamma hyperprior on `beta`.
#' @return An object of class `mcmix_rg_prior`, for [rj_mixture()].
#' @references Richardson, S. and Green, P. J. (1997). On Bayesian analysis
#'   of mixtures with an unknown number of components. *Journal of the Royal
#'   Statistical Society B* 59, 731-792.
#' @examples
#' rg_prior()
#' rg_prior(alpha = 3, g = 0.5)
#' @export
rg_prior <- function(xi = NULL, kappa = NULL, alpha = 2, g = 0.2, h = NULL) {
  if (!is.null(xi) && (!is.numeric(xi) || length(xi) != 1L || !is.finite(xi)))
    stop(sprintf("`xi` must be NULL or a finite number, not %s.", describe_value(xi)),
         call. = FALSE)
  if (!is.null(xi)) check_magnitude(xi, "xi")
  if (!is.null(kappa)) kappa <- check_positive(kappa, "kappa")
  if (!is.null(h)) h <- check_positive(h, "h")
  structure(list(xi = if (!is.null(xi)) as.double(xi), kappa = kappa,
                 alpha = check_positive(alpha, "alpha"), g = check_positive(g, "g"), h = h),
            class = "mcmix_rg_prior")
}

#' @export
print.mcmix_rg_prior <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.mcmix_rg_prior <- function(x, ...) {
  v <- function(a, def) if (is.null(a)) def else format(a)
  sprintf("Richardson-Green priors: mu ~ N(xi = %s, 1/kappa = 1/%s), 1/sigma2 ~ Gamma(%s, beta), beta ~ Gamma(%s, h = %s)",
          v(x$xi, "midrange"), v(x$kappa, "(1/R^2)"), format(x$alpha), format(x$g),
          v(x$h, "10/R^2"))
}

# Fill the data-dependent defaults.
rg_resolve <- function(prior, y) {
  R <- diff(range(y))
  if (!(R > 0)) R <- max(abs(y), 1)
  if (is.null(prior$xi)) prior$xi <- mean(range(y))
  if (is.null(prior$kappa)) prior$kappa <- 1 / R^2
  if (is.null(prior$h)) prior$h <- 10 / R^2
  prior
}

#' Finite mixture with an unknown number of components
#'
#' A mixture of `K` components with `K` unknown, `p(K)` on `1..k_max`, and
#' weights `w | K ~ Dirichlet(delta, ..., delta)`, sampled by reversible-jump
#' MCMC (Green 1995; Murphy 2012, section 24.3.7) with
#' [sample_posterior()]:
#'
#' * with `components = rg_prior()` (the default), a univariate Gaussian
#'   mixture with the priors of Richardson and Green (1997) and their
#'   sampler: Gibbs updates of the weights, means, variances, allocations
#'   and the hyperparameter `beta`, then a split-or-combine move (two
#'   adjacent components, by moment matching) and a birth-or-death move of an
#'   empty component;
#' * with a conjugate component family (e.g. [gaussian_niw()],
#'   [poisson_gamma()], any registered family with a closed-form marginal
#'   likelihood), the *collapsed* sampler: the weights and the component
#'   parameters are integrated out, and only the allocation moves between
#'   `K`: collapsed Gibbs on the allocations, split-merge moves by
#'   sequential allocation (Dahl 2003) and birth-death of empty components,
#'   as Metropolis-Hastings moves on the discrete space.
#'
#' @param components [rg_prior()] or a conjugate component family.
#' @param k_max Largest number of components (at most 1000).
#' @param k_prior Prior on `K`: `NULL` (uniform on `1..k_max`) or a vector of
#'   `k_max` non-negative weights (normalised), e.g. `dpois(1:k_max, 3)`.
#' @param delta Dirichlet parameter of each weight.
#' @return An object of class `mcmix_rj_mixture`.
#' @references Green, P. J. (1995). Reversible jump Markov chain Monte Carlo
#'   computation and Bayesian model determination. *Biometrika* 82, 711-732.
#'
#'   Richardson, S. and Green, P. J. (1997), see [rg_prior()].
#'
#'   Murphy, K. P. (2012). *Machine Learning: A Probabilistic Perspective*.
#'   MIT Press. Section 24.3.7.
#'
#'   Dahl, D. B. (2003). An improved merge-split sampler for conjugate
#'   Dirichlet process mixture models. Technical report 1086, University of
#'   Wisconsin.
#' @seealso [posterior_k()], [sample_posterior()], [finite_mixture()]
#' @examples
#' rj_mixture()
#' rj_mixture(gaussian_niw(), k_max = 10, k_prior = dpois(1:10, 2))
#' @export
rj_mixture <- function(components = rg_prior(), k_max = 30, k_prior = NULL, delta = 1) {
  if (!inherits(components, c("mcmix_rg_prior", "mcmix_family")))
    stop(sprintf("`components` must be rg_prior() or a conjugate family such as gaussian_niw(), not %s.",
                 describe_value(components)), call. = FALSE)
  k_max <- check_count_max(k_max, "k_max", 1L, 1000, "components")
  if (is.null(k_prior)) k_prior <- rep(1, k_max)
  if (!is.numeric(k_prior) || length(k_prior) != k_max || anyNA(k_prior) ||
      any(!is.finite(k_prior)) || any(k_prior < 0) || !any(k_prior > 0))
    stop(sprintf("`k_prior` must be NULL or %d non-negative weights (not all 0), not %s.",
                 k_max, describe_value(k_prior)), call. = FALSE)
  structure(list(components = components, k_max = k_max,
                 k_prior = as.double(k_prior) / sum(k_prior),
                 delta = check_positive(delta, "delta")),
            class = c("mcmix_rj_mixture", "mcmix_model"))
}

#' @export
print.mcmix_rj_mixture <- function(x, ...) {
  cat("Finite mixture with an unknown number of components (reversible jump)\n")
  cat("  components: ", if (inherits(x$components, "mcmix_rg_prior"))
    format(x$components) else paste0(family_label(x$components), " (collapsed)"), "\n", sep = "")
  uniform <- length(unique(x$k_prior)) == 1L
  cat("  K:          1..", x$k_max, if (uniform) ", uniform prior" else "", "\n", sep = "")
  cat("  weights:    Dirichlet(", format(x$delta), ", ..., ", format(x$delta), ")\n", sep = "")
  invisible(x)
}

#' @rdname sample_posterior
#' @param k_init Reversible-jump mixtures: the initial number of components
#'   (the data are split into `k_init` groups of consecutive order
#'   statistics for [rg_prior()] components, allocated at random
#'   otherwise).
#' @export
sample_posterior.mcmix_rj_mixture <- function(
    model, data, iter = 1000, burnin = floor(iter / 2), thin = 1, chains = 1,
    k_init = 1, progress = interactive(), labels = TRUE, psm = FALSE,
    cores = mcmix_option("cores"), backend = mcmix_option("backend"), ...) {
  check_dots(list(...))   # R/checks.R
  k_init <- check_count(k_init, "k_init", 1L, model$k_max)
  rg <- inherits(model$components, "mcmix_rg_prior")
  if (rg) {
    x <- fam_check_matrix(fam_numeric_matrix(data), 2L)
    if (ncol(x) != 1L)
      stop(sprintf("`data` must be univariate for rg_prior() components, not %d columns.",
                   ncol(x)), call. = FALSE)
    check_magnitude(x, "data")
    kernel <- rg_kernel(model, as.double(x), k_init)
    prepared <- NULL
  } else {
    prepared <- family_prepare(model$components, data)
    if (!isTRUE(.Call(C_ffi_family_conjugate, prepared$name)))
      stop(sprintf("`components` must be a conjugate family; '%s' is not.", prepared$name),
           call. = FALSE)
    x <- prepared$x
    kernel <- rjc_kernel(model, prepared, k_init)
  }
  if (isTRUE(psm)) psm_check_budget(nrow(x), nrow(x), online = TRUE)
  fit <- run_fit(kernel, iter = iter, burnin = burnin, thin = thin, chains = chains,
                 cores = cores, backend = backend, progress = progress,
                 labels = labels, psm = psm, model = model, data = x,
                 call = match.call(), kind = "rj", class = "mcmix_mixture_fit")   # R/models.R
  if (!is.null(prepared)) prepared$x <- NULL
  fit$family <- prepared
  fit$N <- nrow(x)
  fit$algorithm <- if (rg) "richardson_green" else "collapsed_rj"
  fit
}

rj_counts0 <- function() numeric(8)

# The reversible-jump kernels hold no data (a saved fit stores them once,
# in `fit$data`): their field `bind` gives the step (and init) on the fit's
# data (fit_kernel(), R/chains.R).
rg_kernel <- function(model, y, k_init) {
  pr <- rg_resolve(model$components, y)
  spec <- list(kmax = model$k_max, logpk = log(model$k_prior), delta = model$delta,
               xi = pr$xi, kappa = pr$kappa, alpha = pr$alpha, g = pr$g, h = pr$h)
  kmax <- model$k_max
  y <- NULL
  new_kernel("rj_richardson_green", init = function(chain) unbound_step(),
             step = unbound_step, trace_names = c("K", "n_clusters", "beta", "log_lik"),
             spec = spec,
             bind = function(data) rg_fields(as.double(data), spec, kmax, k_init, pr))
}

# init and step of the Richardson-Green kernel on the data y.
rg_fields <- function(y, spec, kmax, k_init, pr) {
  n <- length(y)
  list(
    init = function(chain) {
      k <- min(k_init, n)
      z <- integer(n)
      z[order(y)] <- (seq_len(n) - 1L) * k %/% n
      mu <- as.double(tapply(y, z, mean))
      s2 <- rep(max(stats::var(y), 1e-8 * max(1, mean(y^2))), k)
      list(k = as.integer(k), w = as.double(tabulate(z + 1L, k) / n), mu = mu, s2 = s2,
           z = as.integer(z), beta = pr$g / pr$h, counts = rj_counts0())
    },
    step = function(state, n_iter, thin, offset, warmup) {
      r <- .Call(C_ffi_rg_step, spec, y, state,
                 as.integer(c(n_iter, thin, offset, warmup)))
      colnames(r$traces) <- c("K", "n_clusters", "beta", "log_lik")
      extra <- lapply(seq_len(nrow(r$traces)), function(s) {
        k <- r$traces[s, 1L]
        p <- r$params[s, ]
        list(w = p[seq_len(k)], mu = p[kmax + seq_len(k)], sigma2 = p[2L * kmax + seq_len(k)])
      })
      list(state = r$state, draws = list(traces = r$traces, labels = r$labels, extra = extra))
    })
}

rjc_kernel <- function(model, prepared, k_init) {
  N <- nrow(prepared$x)
  spec <- list(kmax = model$k_max, logpk = log(model$k_prior), delta = model$delta,
               family = prepared$name, dim = as.integer(prepared$dim),
               hyper = as.double(prepared$hyper))
  prepared <- NULL
  step_on <- function(xt) function(state, n_iter, thin, offset, warmup) {
    r <- .Call(C_ffi_rjc_step, spec, xt, state, as.integer(c(n_iter, thin, offset, warmup)))
    colnames(r$traces) <- c("K", "n_clusters", "log_post")
    list(state = r$state, draws = list(traces = r$traces, labels = r$labels))
  }
  new_kernel(
    name = "rj_collapsed",
    init = function(chain) {
      list(K = as.integer(k_init), labels = sample.int(k_init, N, replace = TRUE) - 1L,
           stats = NULL, counts = rj_counts0())
    },
    step = unbound_step,
    trace_names = c("K", "n_clusters", "log_post"),
    spec = spec,
    bind = function(data) {
      xt <- t(data)
      storage.mode(xt) <- "double"
      list(step = step_on(xt))
    })
}

#' Posterior distribution of the number of components
#'
#' The proportions of kept draws of a reversible-jump fit with each number
#' of components `K` (chains pooled), with their Monte Carlo standard errors
#' (from the effective sample size of the indicator of each value).
#'
#' @param fit A fit of an [rj_mixture()] from [sample_posterior()].
#' @param occupied Count only the non-empty components (the number of
#'   clusters) instead of `K`.
#' @return A data frame with columns `K`, `prob` and `mcse`.
#' @examples
#' set.seed(1)
#' y <- c(rnorm(40, -2), rnorm(40, 2))
#' fit <- sample_posterior(rj_mixture(k_max = 8), y, iter = 400, progress = FALSE)
#' posterior_k(fit)
#' @export
posterior_k <- function(fit, occupied = FALSE) {
  if (!inherits(fit, "mcmix_rj_fit"))
    stop(sprintf("`fit` must be a reversible-jump fit (sample_posterior() of rj_mixture()), not %s.",
                 describe_value(fit)), call. = FALSE)
  occupied <- check_flag(occupied, "occupied")
  col <- if (occupied) "n_clusters" else "K"
  ks <- lapply(fit$chains, function(ch) ch$traces[, col])
  all <- unlist(ks)
  if (!length(all)) stop("`fit` has no kept draws.", call. = FALSE)
  vals <- sort(unique(all))
  prob <- vapply(vals, function(k) mean(all == k), numeric(1))
  mcse <- vapply(vals, function(k) indicator_mcse(ks, k), numeric(1))
  data.frame(K = as.integer(vals), prob = prob, mcse = mcse)
}

# Monte Carlo standard error of the proportion of draws equal to `k`, from
# the bulk effective sample size of the indicator (chains as columns; one
# pooled chain when an interrupted run left chains of unequal lengths).
# 0 when the indicator is constant, NA with fewer than 4 draws per chain.
indicator_mcse <- function(chains, k) {
  ind <- lapply(chains, function(v) as.double(v == k))
  n <- lengths(ind)
  m <- if (length(unique(n)) == 1L) do.call(cbind, ind) else matrix(unlist(ind), ncol = 1L)
  p <- mean(m)
  if (nrow(m) < 4L) return(NA_real_)
  if (p == 0 || p == 1) return(0)
  sqrt(p * (1 - p) / .Call(C_ffi_diag_stats, m, unname(diag_codes["ess_bulk"])))
}

#' @export
summary.mcmix_rj_fit <- function(object, ...) {
  out <- NextMethod()
  out$K <- posterior_k(object)
  cnt <- Reduce(`+`, lapply(object$chains, function(ch) ch$state$counts))
  out$moves <- data.frame(move = rj_move_names, proposed = cnt[1:4], accepted = cnt[5:8],
                          rate = ifelse(cnt[1:4] > 0, cnt[5:8] / cnt[1:4], NA_real_))
  class(out) <- c("summary.mcmix_rj_fit", class(out))
  out
}

#' @export
print.summary.mcmix_rj_fit <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)   # R/checks.R
  NextMethod()
  cat("\nPosterior distribution of the number of components K:\n")
  k <- x$K
  print(data.frame(K = k$K, prob = formatC(k$prob, digits = digits, format = "f"),
                   mcse = formatC(k$mcse, digits = digits, format = "f")),
        row.names = FALSE, right = TRUE)
  cat("\nReversible-jump moves:\n")
  m <- x$moves
  m$rate <- formatC(m$rate, digits = digits, format = "f")
  print(m, row.names = FALSE, right = TRUE)
  invisible(x)
}

#' Posterior predictive density of a reversible-jump fit
#'
#' For Richardson-Green components, the average over kept draws of the
#' mixture density \eqn{\sum_j w_j N(x \mid \mu_j, \sigma^2_j)}; for the
#' collapsed sampler, the average over draws of \eqn{\sum_k (n_k + \delta) /
#' (K\delta + N)\, p(x \mid x_k)} with the family's predictive given the
#' members of component k (its prior predictive for an empty one).
#'
#' @param object A reversible-jump fit.
#' @param newdata New points (a vector for univariate data).
#' @param level Credible level of the pointwise band.
#' @param ... Unused.
#' @return A data frame with columns `density`, `lower` and `upper`.
#' @examples
#' set.seed(1)
#' y <- c(rnorm(40, -2), rnorm(40, 2))
#' fit <- sample_posterior(rj_mixture(k_max = 8), y, iter = 3000, progress = FALSE)
#' head(predict(fit, seq(-4, 4, by = 0.5)))
#' summary(fit)
#' @export
predict.mcmix_rj_fit <- function(object, newdata, level = 0.95, ...) {
  check_dots(list(...))   # R/checks.R
  level <- check_prob(level, "level")
  if (object$algorithm == "richardson_green") {
    x <- with_arg_renamed(fam_check_matrix(fam_numeric_matrix(newdata), 1L))
    if (ncol(x) != 1L)
      stop("`newdata` must be univariate, like the fitted data.", call. = FALSE)
    x <- as.double(x)
    dr <- do.call(c, lapply(object$chains, `[[`, "extra"))
    if (!length(dr)) stop("`object` has no kept draws.", call. = FALSE)
    check_predict_budget(length(dr), length(x))   # R/chains_budget.R
    D <- t(vapply(dr, function(d)
      colSums(d$w * exp(stats::dnorm(outer(d$mu, x, `-`) / sqrt(d$sigma2), log = TRUE) -
                          0.5 * log(d$sigma2))), numeric(length(x))))
  } else {
    prep <- object$family
    x <- with_arg_renamed(fam_convert_with(prep, newdata, min_rows = 1L))
    z <- partition_draws(object)
    check_predict_budget(nrow(z), nrow(x))   # R/chains_budget.R
    Ks <- unlist(lapply(object$chains, function(ch) ch$traces[, "K"]))
    delta <- object$model$delta
    N <- ncol(z)
    prior_pred <- exp(.family_eval(prep, x[0, , drop = FALSE], "log_predictive", x))
    D <- t(vapply(seq_len(nrow(z)), function(s) {
      cl <- split(seq_len(N), z[s, ])
      dens <- (Ks[s] - length(cl)) * delta * prior_pred
      for (idx in cl)
        dens <- dens + (length(idx) + delta) *
          exp(.family_eval(prep, object$data[idx, , drop = FALSE], "log_predictive", x))
      dens / (Ks[s] * delta + N)
    }, numeric(nrow(x))))
  }
  D <- matrix(D, ncol = NROW(x))
  a <- (1 - level) / 2
  out <- data.frame(density = colMeans(D),
                    lower = apply(D, 2L, stats::quantile, a, names = FALSE),
                    upper = apply(D, 2L, stats::quantile, 1 - a, names = FALSE))
  attr(out, "draws") <- D
  out
}
