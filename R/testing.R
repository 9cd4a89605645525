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

#' DP sampler settings for the tests: size thresholds lowered, state verified
#'
#' The testing option of the DP samplers (used by the exact-enumeration
#' sweep, tests/testthat/test-exact-sweep.R). The sub-cluster sampler
#' changes what it does above sizes that the few rows of an enumeration
#' never reach; `small = TRUE` lowers them so that those code paths run on
#' tiny data, where they are checked against the exact posterior:
#' * `sc_thin = 2`: split / merge moves on a union of more than 2 members
#'   are thinned (made with probability 2 / n, sequentially allocated
#'   merges with probability (2 / n)^(1/2); default 32768);
#' * `sc_fit_max = 3`: the 2-means sub-clusters of more than 3 members are
#'   fitted to every stride-th member only, and the subsample gain of the
#'   thinned 2-means splits is computed on those (default 16384);
#' * `sc_gather = 2`: the sequential allocation gathers its members 2 at a
#'   time (default 2048).
#' `check = TRUE` sets `check_moves`: the partition state (labels, sizes,
#' every cluster's statistics against those recomputed from its members)
#' is verified after every sweep of any algorithm and after every move of
#' the sub-cluster sampler, and a failure is an internal error naming the
#' move (O(N K) per move: for tests only).
#'
#' @param control A [dp_control()] object.
#' @param small Lower the size thresholds.
#' @param check Verify the state after every move.
#' @return `control` with the testing settings.
#' @noRd
dp_control_testing <- function(control = dp_control(), small = TRUE, check = TRUE) {
  stopifnot(inherits(control, "mcmix_dp_control"))
  if (small) {
    control$sc_thin <- 2
    control$sc_fit_max <- 3
    control$sc_gather <- 2
  }
  if (check) control$check_moves <- TRUE
  control
}
