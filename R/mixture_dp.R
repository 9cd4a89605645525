# Further samplers for Dirichlet process and Pitman-Yor mixtures
# (src/mixture_neal8.c, src/mixture_slice.c, src/mixture_splitmerge.c,
# src/mixture_discount.c through src/ffi_mixture_dp.c): the Pitman-Yor
# discount and its Beta prior, the algorithms' settings, and their kernel.
#
# Sampler state of one chain (a plain list):
#   labels    integer vector (N), 0-based clusters in the engine's internal
#             order; for "slice" the stick of each observation (sticks may
#             be empty), so that the state is exactly the chain's state;
#   alpha, discount  current values;
#   params    "neal8": the psize x K parameters of the clusters (NULL in a
#             fresh state: drawn given the members);
#   stats     the clusters' stats blocks as raw bytes (NULL when fresh);
#   n_accept, n_prop  split-merge acceptance counters (zero, and ignored by
#             acceptance(), for the other algorithms).
# Traces: n_clusters, alpha (Gamma prior), discount (Beta prior), log_lik
# (the collapsed log p(x | partition) for conjugate families, and
# log p(x | z, theta) for non-conjugate ones under "neal8").

#' Beta prior on a Pitman-Yor discount
#'
#' A Beta(a, b) prior for the `discount` of [dp_mixture()]; the discount is
#' then sampled, by slice sampling on its conditional given the partition,
#' \deqn{p(d \mid K, n_{1..K}) \propto p(d) \prod_{j=1}^{K-1} (\alpha + j d)
#'   \prod_{k=1}^{K} \Gamma(n_k - d) / \Gamma(1 - d)}
#' (from the Pitman-Yor exchangeable partition probability function).
#'
#' @param a,b Positive numbers.
#' @return An object of class `mcmix_beta_prior`.
#' @examples
#' beta_prior(1, 3)
#' dp_mixture(gaussian_niw(), alpha = 1, discount = beta_prior(1, 3))
#' @export
beta_prior <- function(a, b) {
  check_positive(a, "a")
  check_positive(b, "b")
  structure(list(a = as.double(a), b = as.double(b)), class = "mcmix_beta_prior")
}

#' @export
print.mcmix_beta_prior <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.mcmix_beta_prior <- function(x, ...) {
  sprintf("Beta(a = %s, b = %s)", format(x$a), format(x$b))
}

# Validate the discount (and alpha against it); returns the discount.
check_discount <- function(discount, alpha) {
  if (inherits(discount, "mcmix_beta_prior")) {
    if (inherits(alpha, "mcmix_gamma_prior"))
      stop("`alpha` must be a fixed number when `discount` has a beta_prior() ",
           "(a gamma_prior() on `alpha` needs `discount = 0`).", call. = FALSE)
    m <- discount$a / (discount$a + discount$b)
    if (!(m > 0 && m < 1))   # e.g. beta_prior(1e300, 1): all its mass rounds to 1
      stop(sprintf(paste0("`discount` = %s has its mass at %s in floating point (mean ",
                          "a / (a + b) = %s); give `a` and `b` of comparable size."),
                   format(discount), if (is.finite(m) && m <= 0) "0" else "1",
                   format(m)), call. = FALSE)
    return(discount)
  }
  if (!is.numeric(discount) || length(discount) != 1L || is.na(discount) ||
      !is.finite(discount) || discount < 0 || discount >= 1)
    stop(sprintf("`discount` must be a number in [0, 1) or beta_prior(a, b), not %s.",
                 describe_value(discount)), call. = FALSE)
  discount <- as.double(discount)
  if (discount > 0) {
    if (inherits(alpha, "mcmix_gamma_prior"))
      stop("a gamma_prior() on `alpha` needs `discount = 0`.", call. = FALSE)
    if (!is.numeric(alpha) || length(alpha) != 1L || is.na(alpha) ||
        !is.finite(alpha) || alpha <= -discount)
      stop(sprintf("`alpha` must be a number greater than -discount = %s, not %s.",
                   format(-discount), describe_value(alpha)), call. = FALSE)
  }
  discount
}

#' Settings of the Dirichlet process mixture samplers
#'
#' @param m `"neal8"`: number of auxiliary components (Neal 2000,
#'   algorithm 8), a whole number between 1 and 1000.
#' @param xi `"slice"`: the decreasing sequence \eqn{\xi_j} of the slice
#'   sampler of Kalli, Griffin and Walker (2011). `"dependent"` uses the
#'   stick-breaking weights themselves (\eqn{\xi_j = w_j}, Walker 2007);
#'   `"geometric"` the deterministic \eqn{\xi_j = (1 - \kappa)\kappa^{j-1}}.
#' @param kappa `"slice"` with `xi = "geometric"`: the rate, in (0, 1).
#' @param t `"split_merge"`: intermediate restricted Gibbs scans building
#'   the launch state (Jain and Neal 2004), between 0 and 1000. With `t = 0`
#'   the launch state is the random split itself, which is still a valid
#'   Metropolis-Hastings proposal (mixing is usually worse).
#' @param moves `"split_merge"`: split-merge proposals before each
#'   collapsed Gibbs scan, between 0 and 1000; `moves = 0` turns the
#'   split-merge moves off (plain collapsed Gibbs sampling).
#' @return An object of class `mcmix_dp_control`.
#' @seealso [sample_posterior()]
#' @examples
#' dp_control(m = 5)
#' dp_control(xi = "geometric", kappa = 0.7)
#' @export
dp_control <- function(m = 3, xi = c("dependent", "geometric"), kappa = 0.5,
                       t = 5, moves = 1) {
  m <- check_count_max(m, "m", 1L, 1000, "auxiliary components")
  xi <- match_choice(xi, c("dependent", "geometric"), "xi")
  kappa <- check_prob(kappa, "kappa")
  t <- check_count_max(t, "t", 0L, 1000, "restricted Gibbs scans")
  moves <- check_count_max(moves, "moves", 0L, 1000, "split-merge proposals per scan")
  structure(list(m = m, xi = xi, kappa = as.double(kappa), t = t, moves = moves),
            class = "mcmix_dp_control")
}

#' @export
format.mcmix_dp_control <- function(x, ...) {
  c(sprintf("neal8:       m = %d auxiliary components", x$m),
    sprintf("slice:       xi = %s%s", dQuote(x$xi, FALSE),
            if (x$xi == "geometric") sprintf(", kappa = %s", format(x$kappa)) else ""),
    sprintf("split_merge: t = %d restricted Gibbs scans, moves = %d per scan", x$t, x$moves))
}

#' @export
print.mcmix_dp_control <- function(x, ...) {
  cat("DP mixture sampler settings\n", paste0("  ", format(x), "\n"), sep = "")
  invisible(x)
}

# Does the family have a closed-form predictive (all samplers) or only a
# parameter update (DP "neal8")?
# (registered families are asked through the registry, so that plugin
# families and mcmix_family() objects are classified too)
family_is_conjugate <- function(family) {
  if (isTRUE(family$nonconjugate)) return(FALSE)
  if (identical(family$name, "r_family")) return(FALSE)
  if (is.character(family$name) && length(family$name) == 1L &&
      family$name %in% mcmix_families())
    return(.Call(C_ffi_family_conjugate, family$name))
  TRUE
}

check_family_algorithm <- function(model, algorithm) {
  if (family_is_conjugate(model$family)) {
    if (inherits(model, "mcmix_dp_mixture") && algorithm == "slice" &&
        inherits(model$discount, "mcmix_beta_prior"))
      stop("`algorithm = \"slice\"` does not sample the discount: give `discount` ",
           "a fixed value, or use \"collapsed\", \"neal8\" or \"split_merge\".",
           call. = FALSE)
    return(invisible())
  }
  if (!inherits(model, "mcmix_dp_mixture") || algorithm != "neal8")
    stop(sprintf(paste0("the non-conjugate family %s needs a dp_mixture() and ",
                        "`algorithm = \"neal8\"`, not %s."),
                 family_label(model$family),
                 if (inherits(model, "mcmix_dp_mixture")) dQuote(algorithm, FALSE)
                 else "a finite mixture"), call. = FALSE)
  invisible()
}

# The samplers of this file serve everything but the plain collapsed DP
# sampler with a fixed discount (mixture_kernel(), R/mixture.R).
dpx_needed <- function(model, algorithm) {
  inherits(model, "mcmix_dp_mixture") &&
    (algorithm != "collapsed" || inherits(model$discount, "mcmix_beta_prior"))
}

# The budget of the slice sampler: c(bytes, label evaluations per sweep)
# (options `mcmix.memory_budget` and `mcmix.work_budget`, ?run_kernel); the
# engine refuses to instantiate more than
# min(bytes / bytes per stick, max(1000, work / N)) sticks. Settings that
# need more sticks whatever the data are refused here, before sampling:
# about alpha log(N) sticks for a DP with fixed alpha, log(N) / (1 - kappa)
# with geometric slices.
slice_budget <- function(model, control, N, algorithm) {
  budget <- c(memory_budget(), work_budget())
  if (algorithm != "slice") return(budget)
  sticks <- max(1000, budget[2L] / N)
  refuse <- function(arg, need)
    stop(sprintf(paste0("%s needs about %s sticks of the slice sampler, beyond the budget ",
                        "of %s (option `mcmix.work_budget` = %.3g label evaluations per ",
                        "sweep, over N = %d observations): lower %s, use another ",
                        "`algorithm`, or raise the option."),
                 arg, format_count(need), format_count(sticks), budget[2L], N, arg),
         call. = FALSE)
  if (is.numeric(model$alpha) && model$alpha * log(N + 1) > sticks)
    refuse("`alpha`", model$alpha * log(N + 1))
  if (identical(control$xi, "geometric") && log(N + 1) / (1 - control$kappa) > sticks)
    refuse("dp_control(kappa = )", log(N + 1) / (1 - control$kappa))
  # Pitman-Yor: the mass beyond stick J is about J^(-(1 - d) / d), so the
  # sticks reach mass 1 - 1/N only from J = N^(d / (1 - d))
  d <- model$discount
  if (is.numeric(d) && d > 0 && !identical(control$xi, "geometric") &&
      d / (1 - d) * log(N + 1) > log(sticks))
    refuse("`discount`", exp(min(700, d / (1 - d) * log(N + 1))))
  budget
}

dpx_kernel <- function(model, prepared, algorithm, init, control) {
  if (is.null(control)) control <- dp_control()
  xt <- t(prepared$x)
  storage.mode(xt) <- "double"
  N <- ncol(xt)
  random_alpha <- inherits(model$alpha, "mcmix_gamma_prior")
  random_d <- inherits(model$discount, "mcmix_beta_prior")
  spec <- list(
    family = prepared$name, dim = as.integer(prepared$dim),
    hyper = as.double(prepared$hyper), algorithm = algorithm,
    alpha_prior = if (random_alpha) c(model$alpha$shape, model$alpha$rate) else numeric(),
    discount_prior = if (random_d) c(model$discount$a, model$discount$b) else numeric(),
    m_aux = as.integer(control$m), geometric = as.integer(control$xi == "geometric"),
    kappa = control$kappa, t = as.integer(control$t), moves = as.integer(control$moves),
    budget = slice_budget(model, control, N, algorithm))
  rfam <- if (identical(prepared$name, "r_family")) r_family_spec(prepared$family) else NULL
  alpha0 <- if (random_alpha) model$alpha$shape / model$alpha$rate else as.double(model$alpha)
  d0 <- if (random_d) model$discount$a / (model$discount$a + model$discount$b)
        else model$discount
  model0 <- model
  model0$discount <- d0
  init_fun <- mixture_init(model0, N, init)
  trace_names <- c("n_clusters", if (random_alpha) "alpha", if (random_d) "discount",
                   "log_lik")
  new_kernel(
    name = paste0("dp_", algorithm),
    init = function(chain) {
      list(labels = init_fun(chain, alpha0), alpha = alpha0, discount = d0,
           params = NULL, stats = NULL, n_accept = 0, n_prop = 0)
    },
    step = function(state, n, thin, offset, warmup) {
      r <- .Call(C_ffi_dpx_step, spec, xt, state, as.integer(n), as.integer(thin),
                 as.integer(offset), as.logical(warmup), rfam)
      list(state = r$state, draws = list(traces = r$traces, labels = r$labels, extra = NULL))
    },
    trace_names = trace_names,
    spec = spec, N = N,
    # only split-merge proposals are accepted or rejected; the other
    # algorithms carry zero counters in their state (read by acceptance())
    counters = algorithm == "split_merge")
}
