# Internal helpers for the unit tests of the compiled RNG helpers (src/rng.c)
# and linear algebra (src/linalg.c), through src/ffi_testing.c.

#' Draws from one RNG helper of the C engine
#'
#' @param what Name of the helper: "cat_log", "dirichlet", "gamma", "beta",
#'   "log_gamma", "mvnorm_chol", "mvnorm_prec_chol", "wishart", "invwishart",
#'   "tnorm_lower", "tnorm_upper" or "perm".
#' @param n Number of draws.
#' @param args Numeric parameters, matrices flattened column-major
#'   (see src/ffi_testing.c): e.g. `c(mu, L)` for "mvnorm_chol" with the
#'   lower Cholesky factor `L`, `c(nu, L)` for "wishart".
#' @return A vector of `n` draws, or an `n`-row matrix (one draw per row).
#' @noRd
.rng_test <- function(what, n, args) {
  stopifnot(is.character(what), length(what) == 1L,
            is.numeric(n), length(n) == 1L, n >= 0)
  .Call(C_ffi_test_rng, what, as.integer(n), as.double(args))
}

#' Apply one linear-algebra helper of the C engine
#'
#' @param what "chol", "update", "downdate", "trsv", "trsv_t", "logdet",
#'   "quad", "inverse" or "matmul".
#' @param a A square matrix (usually a lower Cholesky factor).
#' @param b A vector of length `nrow(a)`, or a matrix for "matmul".
#' @return The result; for "chol" and "downdate" a matrix with attribute
#'   `info` (0, or the 1-based column where positive definiteness failed).
#' @noRd
.linalg_test <- function(what, a, b = numeric()) {
  stopifnot(is.character(what), length(what) == 1L, is.numeric(a), is.numeric(b))
  .Call(C_ffi_test_linalg, what, as.double(a), as.double(b))
}
