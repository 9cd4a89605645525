#' Sample a 2-D Ising model
#'
#' Samplers for the Ising model on an `nrow` x `ncol` lattice of spins
#' \eqn{x_t \in \{-1, +1\}} with 4-neighbour edges,
#' \deqn{p(x) \propto \exp\Big(J \sum_{s \sim t} x_s x_t + \sum_t h_t x_t\Big),}
#' optionally with Gaussian evidence \eqn{y_t \sim N(x_t, \sigma^2)} as in
#' image denoising, which adds \eqn{y_t / \sigma^2} to the field \eqn{h_t}
#' (the posterior of \eqn{x} given \eqn{y} is again an Ising model).
#'
#' `ising_gibbs()` sweeps the sites in storage order (column-major, like R
#' matrices), drawing \eqn{x_t = +1} with probability
#' \eqn{\mathrm{sigm}(2(J\eta_t + h_t))}, \eqn{\eta_t} the sum of the
#' neighbouring spins. `ising_swendsen_wang()` uses cluster moves: bonds
#' between equal neighbours are switched on with probability
#' \eqn{1 - e^{-2J}}, and every connected cluster \eqn{C} is set to \eqn{+1}
#' with probability \eqn{\mathrm{sigm}(2\sum_{t \in C} h_t)} (uniformly
#' without a field); it needs \eqn{J \ge 0} and mixes fast near and below
#' the critical temperature. One iteration is one sweep or one cluster
#' update.
#'
#' @param nrow,ncol Lattice size (taken from `evidence$y` when missing).
#' @param J Coupling strength (any sign for `ising_gibbs()`, \eqn{\ge 0} for
#'   `ising_swendsen_wang()`).
#' @param h External field: a number or an `nrow` x `ncol` matrix.
#' @param evidence `NULL`, or `list(y = <nrow x ncol matrix>, sigma = <sd>)`
#'   for Gaussian local evidence.
#' @param periodic Periodic (toroidal) boundary instead of free edges; needs
#'   at least 3 rows and 3 columns.
#' @param keep_spins Keep every kept configuration (as an integer matrix of
#'   \eqn{\pm 1}, one row per draw and one column per site, in
#'   `fit$chains[[c]]$labels`).
#' @inheritParams probit_gibbs
#' @return An `mcmix_fit` of class `mcmix_ising` with traces
#'   `magnetisation` (the mean spin) and `energy`
#'   \eqn{-(J\sum_{s\sim t} x_s x_t + \sum_t h_t x_t)} (field including the
#'   evidence). [ising_mean()] gives the posterior mean image. Chains start
#'   from independent uniform spins, or from the sign of `evidence$y`.
#' @references Murphy, K. P. (2012). *Machine Learning: a Probabilistic
#'   Perspective*, sections 24.2.2 and 24.5.3. Swendsen, R. H. and Wang,
#'   J.-S. (1987). Nonuniversal critical dynamics in Monte Carlo
#'   simulations. *Phys. Rev. Lett.* 58, 86-88.
#' @examples
#' set.seed(1)
#' truth <- matrix(-1, 16, 16); truth[5:12, 5:12] <- 1
#' y <- truth + rnorm(256, sd = 1)
#' fit <- ising_gibbs(J = 1, evidence = list(y = y, sigma = 1), iter = 50,
#'                    burnin = 10)
#' mean(sign(ising_mean(fit)) == truth)
#' fit2 <- ising_swendsen_wang(8, 8, J = 0.5, iter = 200)
#' mean(abs(as.matrix(fit2)[, "magnetisation"]))
#' @name ising
NULL

#' @rdname ising
#' @export
ising_gibbs <- function(nrow, ncol, J = 1, h = 0, evidence = NULL,
                        periodic = FALSE, keep_spins = FALSE, iter = 1000,
                        burnin = floor(iter / 2), thin = 1, chains = 1,
                        cores = mcmix_option("cores"), backend = mcmix_option("backend"),
                        progress = interactive(), ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  ising_run("ising_gibbs", 0L, match.call(), nrow, ncol, J, h, evidence,
            periodic, keep_spins, iter, burnin, thin, chains, cores, backend, progress,
            list(...))
}

#' @rdname ising
#' @export
ising_swendsen_wang <- function(nrow, ncol, J = 1, h = 0, evidence = NULL,
                                periodic = FALSE, keep_spins = FALSE,
                                iter = 1000, burnin = floor(iter / 2), thin = 1,
                                chains = 1,
                                cores = mcmix_option("cores"), backend = mcmix_option("backend"),
                                progress = interactive(), ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  ising_run("ising_swendsen_wang", 1L, match.call(), nrow, ncol, J, h,
            evidence, periodic, keep_spins, iter, burnin, thin, chains, cores, backend,
            progress, list(...))
}

ising_run <- function(name, method, call, nrow, ncol, J, h, evidence, periodic,
                      keep_spins, iter, burnin, thin, chains, cores, backend, progress,
                      dots) {
  check_dots(dots)   # R/checks.R
  y_ev <- NULL
  if (!is.null(evidence)) {
    if (!is.list(evidence) || !all(c("y", "sigma") %in% names(evidence)))
      stop("`evidence` must be NULL or a list with elements `y` (a matrix) and `sigma`.",
           call. = FALSE)
    y_ev <- check_matrix(evidence$y, "evidence$y")
    if (missing(nrow)) nrow <- base::nrow(y_ev)
    if (missing(ncol)) ncol <- base::ncol(y_ev)
  } else if (missing(nrow) || missing(ncol)) {
    stop("`nrow` and `ncol` must be given when there is no `evidence`.", call. = FALSE)
  }
  nrow <- check_count(nrow, "nrow", 1L)
  ncol <- check_count(ncol, "ncol", 1L)
  if (as.double(nrow) * ncol > 1e8)
    stop("`nrow` * `ncol` must be at most 1e8.", call. = FALSE)
  periodic <- check_flag(periodic, "periodic")
  if (periodic && (nrow < 3L || ncol < 3L))
    stop(sprintf("`periodic = TRUE` needs `nrow` and `ncol` of at least 3, not %d x %d.",
                 nrow, ncol), call. = FALSE)
  J <- check_number(J, "J", lower = if (method == 1L) 0 else -Inf)
  keep_spins <- check_flag(keep_spins, "keep_spins")
  N <- nrow * ncol
  if (is.numeric(h) && is.null(dim(h)) && length(h) == 1L && is.finite(h)) {
    field <- rep(as.double(h), N)
  } else {
    field <- as.double(check_matrix(h, "h", nrow = nrow, ncol = ncol))
  }
  if (!is.null(y_ev)) {
    if (base::nrow(y_ev) != nrow || base::ncol(y_ev) != ncol)
      stop(sprintf("`evidence$y` must be a %d x %d matrix.", nrow, ncol), call. = FALSE)
    sigma <- check_number(evidence$sigma, "evidence$sigma", 0, open_lower = TRUE)
    field <- field + as.double(y_ev) / sigma^2
  }
  data_c <- list(nrow = nrow, ncol = ncol, periodic = as.integer(periodic),
                 J = J, h = field, method = method,
                 keep_spins = as.integer(keep_spins))
  kernel <- model_kernel(name,
    function(d, s, c) .Call(C_ffi_ising_step, d, s, c),
    data_c,
    init = function(chain) {
      spins <- if (is.null(y_ev)) sample(c(-1L, 1L), N, replace = TRUE)
               else ifelse(as.double(y_ev) >= 0, 1L, -1L)
      list(spins = as.integer(spins), spin_sum = double(N))
    },
    trace_names = c("magnetisation", "energy"),
    label_width = if (keep_spins) N else 0, labels_arg = "keep_spins")   # (R/chains_budget.R)
  run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress, labels = TRUE,
            model = list(type = "ising", nrow = nrow, ncol = ncol, J = J,
                         h = field, periodic = periodic,
                         method = c("gibbs", "swendsen_wang")[method + 1L]),
            data = list(evidence = evidence), call = call,
            kind = "ising", class = "mcmix_ising")
}

#' Posterior mean image of an Ising fit
#'
#' @param fit A fit from [ising_gibbs()] or [ising_swendsen_wang()].
#' @return An `nrow` x `ncol` matrix of the mean spin at each site over the
#'   kept draws of all chains (in \eqn{[-1, 1]}; \eqn{P(x_t = 1) = (m_t +
#'   1)/2}).
#' @examples
#' fit <- ising_gibbs(4, 4, J = 0.2, h = 0.5, iter = 200)
#' ising_mean(fit)
#' @export
ising_mean <- function(fit) {
  if (!inherits(fit, "mcmix_ising"))
    stop("`fit` must be a fit from ising_gibbs() or ising_swendsen_wang().",
         call. = FALSE)
  tot <- Reduce(`+`, lapply(fit$chains, function(ch) ch$state$spin_sum))
  cnt <- sum(fit_draw_counts(fit))
  matrix(tot / cnt, fit$model$nrow, fit$model$ncol)
}
