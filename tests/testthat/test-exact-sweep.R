# The exact-enumeration sweep: every DP algorithm x every family kind x
# every partition prior x every missing-value mode, against the exact
# posterior over the partitions of N rows (52 at N = 5, 4140 at N = 8;
# helper-sweep.R, computed in R independently of the C code, missing cells
# integrated out in closed form). Compared: P(K = k), k = 1..N, and the
# co-clustering probability of every pair, each as a z-score with a
# batch-means standard error (floored by the binomial one at the effective
# sample size of K). Every run verifies the sampler's state after every
# move (check_moves, helper-sweep.R); a failure names the combination
# "[N, family, missing, prior, algorithm]".
#
# Covered (kind x missing mode), each under the priors
#   fixed  alpha = 1                 gamma  alpha ~ gamma_prior(2, 2)
#   py     alpha = 0.5, d = 0.3      beta   alpha = 0.5, d ~ beta_prior(2, 3)
# and the algorithms collapsed, neal8, slice, split_merge (proposal "sams"
# and "restricted_gibbs"), subcluster, and subcluster with its size
# thresholds lowered (subcluster_small: thinning, 2-means subsample,
# allocation gathering; dp_control_testing()):
#   kind                   none  integrated            imputed
#   gaussian_mean (D = 2)  yes   a row missing         y missing in 3 rows
#   gaussian_niw  (D = 2)  yes   a row missing         y missing in 3 rows
#   gaussian_diag (D = 2)  yes   2 cells (per column)  n/a (separable)
#   gaussian_iso  (D = 2)  yes   a row missing         refused (error asserted)
#   bernoulli_beta (D = 2) yes   2 cells (per column)  n/a (separable)
#   poisson_gamma          yes   a cell                n/a (one column)
#   categorical_dirichlet  yes   a cell                n/a (one column)
#   product_family         yes   count and category    y of the gaussian_niw
#     (niw (x, y) + poisson + categorical)             block in 3 rows
#   product_mixed          yes   continuous, category  n/a (separable)
#     (gaussian_diag + categorical + poisson)  and count cells (N = 8: a
#                                               row misses two)
#   product_categorical    yes   an answer             n/a (separable)
#     (lca()'s model: three categorical columns, Dirichlet(1) priors)
# Refused, with the error asserted: slice with a beta_prior() discount
# (slice does not sample the discount); gaussian_iso with partly missing
# rows. That is 24 (kind, mode) cases x 4 priors x 7 algorithms = 672
# combinations per N.
#
# Always on (about 70 s of CPU): every combination at N = 5 (but
# subcluster_small under the fixed prior only), 2000 iterations
# (subcluster 1000, imputed 2500), standard errors about
# 0.01-0.03, z within 5 (Bonferroni over the ~9000 statistics); and at N = 8
# (the local order of the sequentially allocated moves then leaves members
# out, which N = 5 never does) the product families with missing cells
# under the sub-cluster sampler, default and with lowered thresholds
# (lca() with a missing answer and a mixed product with missing cells once
# stopped it with internal errors), 3000 iterations.
# MCMIX_EXACT_SWEEP=full (`make exact`): every combination at N = 8 with
# 40000 iterations (imputed 10000), standard errors about 0.003, z within
# 4.5. Restrictions (comma-separated): MCMIX_EXACT_SWEEP_KINDS (family
# kinds), MCMIX_EXACT_SWEEP_ALGS (algorithms), MCMIX_EXACT_SWEEP_NA
# (missing modes), MCMIX_EXACT_SWEEP_N (row counts, e.g. "5,8"; full mode
# default 8). The neal8 imputation error (shifts of 0.04) is at the edge of
# this moderate precision; the always-on, longer runs of
# test-impute-exact.R resolve it.

sw_full <- identical(Sys.getenv("MCMIX_EXACT_SWEEP"), "full")

sw_iter <- function(alg, na) {
  if (sw_full) return(if (na == "imputed") 10000L else 40000L)
  if (na == "imputed") return(2500L)
  if (grepl("^subcluster", alg)) 1000L else 2000L
}
sw_zmax <- if (sw_full) 4.5 else 5

# The refusals of the sweep: a pattern of the error, or NULL.
sw_refusal <- function(kind, na, prior, alg) {
  if (kind == "gaussian_iso" && na == "imputed")
    return("partly missing|does not sample the discount")
  if (alg == "slice" && prior == "beta") return("does not sample the discount")
  NULL
}

# A comma-separated restriction from the environment variable `var`.
sw_restrict <- function(all, var) {
  v <- Sys.getenv(var)
  if (!nzchar(v)) return(all)
  intersect(all, strsplit(v, ",")[[1L]])
}

sw_kinds <- sw_restrict(sw_all_kinds, "MCMIX_EXACT_SWEEP_KINDS")   # (helper-sweep.R)
sw_algs <- sw_restrict(names(sw_algorithms), "MCMIX_EXACT_SWEEP_ALGS")
sw_nas <- sw_restrict(c("none", "integrated", "imputed"), "MCMIX_EXACT_SWEEP_NA")
sw_Ns <- Sys.getenv("MCMIX_EXACT_SWEEP_N")     # set but empty from `make exact`: the default
sw_Ns <- as.integer(strsplit(if (nzchar(sw_Ns)) sw_Ns else if (sw_full) "8" else "5", ",")[[1L]])

# Every (prior, algorithm) of one case at N rows.
sw_sweep_case <- function(kind, na, N, algs = sw_algs, priors = names(sw_priors),
                          iter = NULL) {
  case <- sw_case(kind, na, N)
  if (is.null(case)) return(invisible())
  ll <- NULL
  for (prior in priors) {
    ex <- NULL
    for (alg in algs) {
      # always on, the lowered thresholds under one prior (the others: full)
      if (!sw_full && N == 5L && alg == "subcluster_small" && prior != "fixed") next
      refusal <- sw_refusal(kind, na, prior, alg)
      if (is.null(refusal) && is.null(ex)) {
        if (is.null(ll)) ll <- sw_case_ll(case)
        ex <- sw_case_exact(case, prior, ll)
      }
      sw_expect(case, kind, na, prior, alg, N,
                if (is.null(iter)) sw_iter(alg, na) else iter, sw_zmax, ex, refusal)
    }
  }
}

for (N in sw_Ns) for (kind in sw_kinds) {
  test_that(sprintf("every DP algorithm matches the exact posterior: %s, N = %d", kind, N), {
    if (N > 5L) skip_on_cran()
    for (na in sw_nas) sw_sweep_case(kind, na, N)
  })
}

# Always on: N = 8 for the product families with missing cells under the
# sub-cluster sampler (default and lowered thresholds), where the local
# order of the sequentially allocated moves leaves members out.
if (!sw_full && !(8L %in% sw_Ns)) {
  test_that("the sub-cluster sampler matches the exact posterior with missing cells at N = 8", {
    skip_on_cran()
    for (kind in intersect(c("product_categorical", "product_mixed"), sw_kinds))
      sw_sweep_case(kind, "integrated", 8L,
                    algs = intersect(c("subcluster", "subcluster_small"), sw_algs),
                    priors = c("fixed", "py"), iter = 3000L)
  })
}
