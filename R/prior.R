# Prior simulators for Dirichlet (and Pitman-Yor) processes; the CRP runs in
# C (src/mixture_rcrp.c).

check_concentration <- function(alpha, discount) {
  if (!is.numeric(discount) || length(discount) != 1L || is.na(discount) ||
      discount < 0 || discount >= 1)
    stop(sprintf("`discount` must be a number in [0, 1), not %s.", describe_value(discount)),
         call. = FALSE)
  if (!is.numeric(alpha) || length(alpha) != 1L || is.na(alpha) || !is.finite(alpha) ||
      alpha <= -discount || (discount == 0 && alpha <= 0))
    stop(sprintf("`alpha` must be a positive number%s, not %s.",
                 if (discount > 0) " (or greater than -discount)" else "",
                 describe_value(alpha)), call. = FALSE)
  invisible(NULL)
}

# A concentration given as a positive number or a gamma_prior().
check_conc_or_prior <- function(x, arg) {
  if (inherits(x, "mcmix_gamma_prior")) return(x)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x <= 0)
    stop(sprintf("`%s` must be a positive number or gamma_prior(shape, rate), not %s.",
                 arg, describe_value(x)), call. = FALSE)
  as.double(x)
}

#' Draw a partition from the Chinese restaurant process
#'
#' One partition of `n` items from the Chinese restaurant process with
#' concentration `alpha` (the partition induced by a Dirichlet process), or
#' from the two-parameter (Pitman-Yor) process when `discount > 0`: item
#' `i + 1` joins an existing cluster of size `n_k` with probability
#' `(n_k - discount) / (i + alpha)` and starts a new one with probability
#' `(alpha + discount * K) / (i + alpha)`.
#'
#' @param n Number of items (a whole number between 0 and 1e8).
#' @param alpha Concentration: a positive number (greater than `-discount`
#'   when `discount > 0`).
#' @param discount Pitman-Yor discount in `[0, 1)`; 0 gives the Dirichlet
#'   process.
#' @return An integer vector of `n` cluster labels `1..K`, numbered in order
#'   of first appearance.
#' @seealso [rdp()], [rstick()]
#' @examples
#' set.seed(1)
#' z <- rcrp(100, alpha = 2)
#' table(z)
#' max(rcrp(1000, alpha = 1, discount = 0.5))
#' @export
rcrp <- function(n, alpha, discount = 0) {
  n <- check_count_max(n, "n", 0L, 1e8, "items simulated at once")
  check_concentration(alpha, discount)
  with_c_errors(.Call(C_ffi_rcrp, n, as.double(alpha), as.double(discount)))
}

#' Draw from a Dirichlet process by the Polya urn
#'
#' `n` draws `x_1, ..., x_n` from a random distribution `G ~ DP(alpha, G0)`
#' (G integrated out): the ties follow the Chinese restaurant process
#' ([rcrp()]) and each cluster gets an independent value from the base
#' distribution `G0`.
#'
#' @param n Number of draws (at most 1e8).
#' @param alpha Concentration, a positive number.
#' @param base A function `function(n)` returning `n` independent draws
#'   from the base distribution `G0`: a vector of length `n`, or a matrix
#'   with `n` rows for multivariate values.
#' @return The draws: a vector of length `n` (or a matrix with `n` rows),
#'   with attribute `labels` (the cluster of each draw).
#' @seealso [rcrp()], [rstick()]
#' @examples
#' set.seed(1)
#' x <- rdp(50, alpha = 2, base = function(n) rnorm(n))
#' length(unique(x))
#' @export
rdp <- function(n, alpha, base) {
  n <- check_count_max(n, "n", 0L, 1e8, "items simulated at once")
  check_concentration(alpha, 0)
  if (!is.function(base))
    stop(sprintf("`base` must be a function(n) drawing n values from the base distribution, not %s.",
                 describe_value(base)), call. = FALSE)
  z <- rcrp(n, alpha)
  K <- if (n) max(z) else 0L
  v <- base(K)
  ok <- (is.atomic(v) && is.null(dim(v)) && length(v) == K) ||
    (is.matrix(v) && nrow(v) == K)
  if (!ok)
    stop(sprintf("`base(%d)` must return %d values (a vector of length %d or a matrix with %d rows), not %s.",
                 K, K, K, K, describe_value(v)), call. = FALSE)
  out <- if (is.matrix(v)) v[z, , drop = FALSE] else v[z]
  attr(out, "labels") <- z
  out
}

#' Stick-breaking weights of a Dirichlet process
#'
#' Weights `w_k = v_k prod_{j < k} (1 - v_j)` with `v_k ~ Beta(1 - discount,
#' alpha + k discount)` (Sethuraman's construction; Pitman-Yor when
#' `discount > 0`), truncated either after `n` weights or as soon as the
#' remaining mass `1 - sum(w)` falls below `tol`.
#'
#' @param n Number of weights (truncation by count, at most 1e8), or `NULL`.
#' @param alpha Concentration, a positive number.
#' @param tol Remaining-mass tolerance in (0, 1) (truncation by mass), or
#'   `NULL`. When both `n` and `tol` are `NULL`, `tol = 1e-6`. At most a
#'   million sticks are drawn: a `tol` that needs more is an error.
#' @param discount Pitman-Yor discount in `[0, 1)`.
#' @return A numeric vector of weights with attribute `remaining`, the mass
#'   `1 - sum(w)` left after truncation.
#' @section Deprecated argument order: Like [rcrp()] and [rdp()], `rstick()`
#'   takes the number of draws first. The former order `rstick(alpha, n)` still
#'   works with a deprecation warning where it can be recognised: `alpha`
#'   not given (`rstick(2, tol = 1e-3)`), or a first argument that is not a
#'   whole number (`rstick(0.5, 10)`). Name the arguments to be safe.
#' @seealso [rcrp()], [rdp()]
#' @examples
#' set.seed(1)
#' w <- rstick(10, alpha = 2)
#' sum(w) + attr(w, "remaining")
#' length(rstick(alpha = 2, tol = 1e-3))
#' @export
rstick <- function(n = NULL, alpha, tol = NULL, discount = 0) {
  nm <- names(as.list(sys.call())[-1L])
  positional <- length(nm) >= 2L && all(nm[1:2] == "") || is.null(nm) && nargs() >= 2L
  if (missing(alpha) && !is.null(n) ||
      positional && !missing(alpha) && is_fraction(n) && is_whole(alpha)) {
    warn_deprecated("rstick(alpha, n)", "rstick(n, alpha)",
                    "the number of weights comes first, as in rcrp() and rdp()")
    if (missing(alpha)) {
      alpha <- n
      n <- NULL
    } else {
      a <- n
      n <- alpha
      alpha <- a
    }
  }
  if (missing(alpha)) stop_input("`alpha` is missing, with no default.", "alpha")
  check_concentration(alpha, discount)
  if (!is.null(n) && !is.null(tol))
    stop("give only one of `n` (truncation by count) and `tol` (by remaining mass).",
         call. = FALSE)
  if (is.null(n) && is.null(tol)) tol <- 1e-6
  if (!is.null(n)) n <- check_count_max(n, "n", 1L, 1e8, "weights simulated at once")
  if (!is.null(tol) && (!is.numeric(tol) || length(tol) != 1L || is.na(tol) ||
                        tol <= 0 || tol >= 1))
    stop(sprintf("`tol` must be a number in (0, 1), not %s.", describe_value(tol)),
         call. = FALSE)
  # Work with the log of the remaining mass, which never underflows.
  draw <- function(k) stats::rbeta(length(k), 1 - discount, alpha + k * discount)
  if (!is.null(n)) {
    v <- draw(seq_len(n))
    log_rest <- cumsum(log1p(-v))
    w <- v * exp(c(0, log_rest[-n]))
    return(structure(w, remaining = exp(log_rest[n])))
  }
  # About alpha * log(1 / tol) sticks are needed when discount = 0, and
  # far more as the discount approaches 1: stop at rstick_max_sticks rather
  # than run (and grow `w`) without bound.
  too_many <- function()
    stop(sprintf(paste0("`tol` = %s needs more than %d sticks with `alpha` = %s and ",
                        "`discount` = %s; use a larger `tol`, or give `n`."),
                 format(tol), as.integer(rstick_max_sticks), format(alpha),
                 format(discount)), call. = FALSE)
  # E[-log(1 - v_k)] <= 1 / alpha, so at least alpha * log(1 / tol) sticks
  # are expected: refuse at once when that is beyond the bound.
  if (alpha * -log(tol) > rstick_max_sticks) too_many()
  w <- numeric(64L)
  log_rest <- 0
  log_tol <- log(tol)
  k <- 0L
  while (log_rest >= log_tol) {
    k <- k + 1L
    if (k > rstick_max_sticks) too_many()
    if (k > length(w)) length(w) <- 2L * length(w)
    v <- draw(k)
    w[k] <- v * exp(log_rest)
    log_rest <- log_rest + log1p(-v)
  }
  structure(w[seq_len(k)], remaining = exp(log_rest))
}

is_whole <- function(x) is.numeric(x) && length(x) == 1L && is.finite(x) && x == floor(x)
is_fraction <- function(x) is.numeric(x) && length(x) == 1L && is.finite(x) && x != floor(x)

# Largest number of sticks rstick() draws when truncating by `tol`.
rstick_max_sticks <- 1e6
