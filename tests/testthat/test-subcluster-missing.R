# The sub-cluster sampler (src/mixture_subcluster*.c) with missing cells:
# the two calls that stopped it with internal errors ("removing from an
# empty cluster", "negative or NaN Dirichlet parameter"), run as a user
# runs them and compared with the exact posterior over the 4140 partitions
# of their 8 rows (helper-sweep.R: P(K = k) and every co-clustering
# probability, z-scores within 5). Why they failed: the geometry of the
# proposals read the missing cells (NaN) as numbers, and the NaN distances
# broke the local order of the sequentially allocated moves, which then
# lost and repeated members, so a cluster's statistics had members removed
# twice. test-exact-sweep.R covers every algorithm, family kind and prior.

# Runs `fit_fun(seed)` for two seeds; each fit against the exact posterior.
sc_na_expect_exact <- function(fit_fun, case, label) {
  ex <- sw_case_exact(case, "fixed")
  for (seed in 1:2) {
    set.seed(seed)
    fit <- fit_fun()
    Z <- partition_draws(fit)
    K <- apply(Z, 1L, function(z) length(unique(z)))
    z <- sw_zscores(Z, ex, n_eff = ess(K))$z
    expect_lt(max(abs(z)), 5, label = sprintf("%s, seed %d: max |z| (%s)", label, seed,
                                              names(z)[which.max(abs(z))]))
  }
}

test_that("lca() with a missing answer runs under the sub-cluster sampler, exactly", {
  skip_on_cran()
  dfx <- data.frame(q1 = factor(c("y", "y", "n", "y", "n", "n", "y", "n")),
                    q2 = factor(c("y", "y", "y", NA, "n", "n", "n", "n")),
                    q3 = factor(c("a", "a", "b", "a", "c", "c", "b", "c")))
  case <- sw_case("product_categorical", "integrated", 8L)
  expect_identical(case$data, dfx)      # the exact posterior is that of these data
  sc_na_expect_exact(function() lca(dfx, K = NULL, alpha = 1, prior = 1, iter = 5000,
                                    algorithm = "subcluster", progress = FALSE),
                     case, "lca(), subcluster")
})

test_that("a product of gaussian_diag, categorical and count columns with missing cells", {
  skip_on_cran()
  case <- sw_case("product_mixed", "integrated", 8L)
  expect_true(all(colSums(is.na(case$data)) > 0))
  sc_na_expect_exact(function() sample_posterior(dp_mixture(case$family, alpha = 1), case$data,
                                                 iter = 5000, algorithm = "subcluster",
                                                 progress = FALSE),
                     case, "product_mixed, subcluster")
})
