# Imputed missing cells of joint Gaussian blocks against the exact
# posterior over partitions (all partitions of 7 rows enumerated; the
# missing cells integrated out in closed form, helper-sweep.R). neal8
# keeps the clusters' parameters across sweeps, so its missing cells must
# be drawn given those parameters (R/impute.R): drawing them from a fresh
# parameter draw instead shifts co-clustering probabilities by 0.04-0.05
# here, which these runs resolve (|z| > 5). The other algorithms are
# covered by test-exact-sweep.R.

# 7 rows: (x, y) with y missing in rows `miss`, and a count column.
imp_table <- function(miss) {
  xy <- rbind(c(-1.2, -0.8), c(-0.7, -0.6), c(0.9, 1.4), c(1.3, 1.1), c(0.2, 0.1),
              c(-0.1, 0.3), c(1.0, 0.7))
  xy[miss, 2L] <- NA
  list(xy = xy, df = data.frame(x = xy[, 1L], y = xy[, 2L], n = c(1, 0, 4, 5, 2, 1, 3)))
}

# z-scores of P(K = k) and of every co-clustering probability under neal8
# against their exact values (sw_zscores(), helper-sweep.R).
imp_check <- function(block, lml_block, miss, iter, seed = 1L) {
  d <- imp_table(miss)
  fam <- product_family(xy = block, n = poisson_gamma(shape = 2, rate = 1),
                        .columns = list(xy = c("x", "y")))
  P <- mx_partitions(nrow(d$df))
  ll <- apply(P, 1L, function(z) sum(vapply(split(seq_along(z), z), function(r)
    lml_block(d$xy[r, , drop = FALSE]) + mx_lml_poisson(d$df$n[r], 2, 1), 0)))
  p <- mx_posterior(P, ll, apply(P, 1L, mx_lprior_dp, alpha = 0.8))
  set.seed(seed)
  fit <- sample_posterior(dp_mixture(fam, alpha = 0.8), d$df, iter = iter, burnin = 200,
                          algorithm = "neal8", progress = FALSE)
  sw_zscores(partition_draws(fit), p)$z
}

test_that("neal8 with imputed gaussian_niw cells matches the exact posterior", {
  m0 <- c(0, 0); kap <- 0.5; nu <- 4; Psi <- diag(0.5, 2L)
  z <- imp_check(gaussian_niw(prior_mean = m0, kappa = kap, df = nu, scale = Psi),
                 function(X) sw_lml_niw(X, m0, kap, nu, Psi), miss = c(2L, 4L, 6L),
                 iter = 12000)
  expect_lt(max(abs(z)), 4.5)   # 28 statistics
})

test_that("neal8 with imputed gaussian_mean cells matches the exact posterior", {
  S <- matrix(c(0.5, 0.45, 0.45, 0.5), 2L); m0 <- c(0, 0); V0 <- diag(5, 2L)
  z <- imp_check(gaussian_mean(cov = S, prior_mean = m0, prior_cov = V0),
                 function(X) sw_lml_gmean(X, S, m0, V0), miss = c(2L, 4L, 6L, 7L),
                 iter = 30000)
  expect_lt(max(abs(z)), 4.5)
})

test_that("the imputation step uses neal8's own cluster parameters", {
  # the kernel flag that routes the chain's parameters to the imputation
  expect_true(mcmix:::dp_algorithms$neal8$params)
  others <- setdiff(names(mcmix:::dp_algorithms), "neal8")
  expect_false(any(vapply(mcmix:::dp_algorithms[others], `[[`, TRUE, "params")))
  # a chunked neal8 run with imputation equals one long run
  d <- imp_table(c(2L, 4L))
  fam <- product_family(xy = gaussian_niw(prior_mean = c(0, 0), kappa = 0.5, df = 4,
                                          scale = diag(0.5, 2L)),
                        n = poisson_gamma(), .columns = list(xy = c("x", "y")))
  set.seed(3); a <- sample_posterior(dp_mixture(fam), d$df, iter = 40, algorithm = "neal8",
                                     progress = FALSE)
  set.seed(3); b <- sample_posterior(dp_mixture(fam), d$df, iter = 20, burnin = 20,
                                     algorithm = "neal8", progress = FALSE)
  b <- extend(b, 20)
  expect_identical(unname(imputed_draws(a)), unname(imputed_draws(b)))
})
