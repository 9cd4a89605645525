# The collapsed scan sizes its predictive weights by the clusters and grows
# them between blocks of 256 points (src/mixture_dp.c). A data set whose
# posterior is, to within exp(-89) per pair of points, the partition into
# singletons makes K grow from 1 to 600 inside one sweep; the exact answer
# is K = 600 and log p(x | partition) = the sum of the singletons' NIW
# marginal likelihoods (helper-mixture.R, Murphy 2007 eq. 266).

test_that("collapsed and split_merge grow from one cluster to 600 singletons exactly", {
  n <- 600
  x <- matrix(20 * seq_len(n))
  m0 <- mean(x); k0 <- 1e-9; nu <- 1e5; Psi <- matrix(1e5)
  # merging two neighbours lowers log p(x | partition) by about 90
  pair <- mx_lml_niw(x[1:2, , drop = FALSE], m0, k0, nu, Psi) -
    mx_lml_niw(x[1, , drop = FALSE], m0, k0, nu, Psi) -
    mx_lml_niw(x[2, , drop = FALSE], m0, k0, nu, Psi)
  expect_lt(pair, -80)
  single <- sum(vapply(seq_len(n), function(i)
    mx_lml_niw(x[i, , drop = FALSE], m0, k0, nu, Psi), 0))
  fam <- gaussian_niw(prior_mean = m0, kappa = k0, df = nu, scale = Psi)
  for (alg in c("collapsed", "split_merge")) {
    set.seed(1)
    f <- sample_posterior(dp_mixture(fam, alpha = 5), x, iter = 3, burnin = 2,
                          algorithm = alg, init = "one", progress = FALSE)
    tr <- f$chains[[1]]$traces
    expect_equal(unname(tr[, "n_clusters"]), rep(600, 3), info = alg)
    expect_equal(unname(tr[, "log_lik"]), rep(single, 3), tolerance = 1e-9, info = alg)
    expect_equal(sort(as.vector(partition_draws(f)[3, ])), seq_len(n), info = alg)
  }
})
