# Imputed missing cells of joint Gaussian blocks against the exact
# posterior over partitions (all partitions of 7 rows enumerated; the
# missing cells integrated out in closed form, helper-sweep.R). neal8
# keeps the clusters' parameters across sweeps, so its missing cells must
# be drawn given those parameters (R/impute.R): drawing them from a fresh
# parameter draw instead shifts P(K = 2) by 0.03-0.04 here, which these
# runs resolve (z > 4). The other algorithms are covered by
# test-exact-sweep.R.

imp_table <- function() {
  xy <- rbind(c(-1.2, -0.8), c(-0.7, NA), c(0.9, 1.4), c(1.3, NA), c(0.2, 0.1),
              c(-0.1, NA), c(1.0, NA))
  list(xy = xy, df = data.frame(x = xy[, 1L], y = xy[, 2L], n = c(1, 0, 4, 5, 2, 1, 3)))
}

# P(K = 2): exact, and the sampler's estimate with its batch-means s.e.
imp_check <- function(block, lml_block, iter, m_aux, seed = 1L) {
  d <- imp_table()
  fam <- product_family(xy = block, n = poisson_gamma(shape = 2, rate = 1),
                        .columns = list(xy = c("x", "y")))
  P <- mx_partitions(nrow(d$df))
  ll <- apply(P, 1L, function(z) sum(vapply(split(seq_along(z), z), function(r)
    lml_block(d$xy[r, , drop = FALSE]) + mx_lml_poisson(d$df$n[r], 2, 1), 0)))
  p <- mx_posterior(P, ll, apply(P, 1L, mx_lprior_dp, alpha = 0.8))
  exact <- sum(p[apply(P, 1L, max) == 2L])
  set.seed(seed)
  fit <- sample_posterior(dp_mixture(fam, alpha = 0.8), d$df, iter = iter, burnin = 200,
                          algorithm = "neal8", control = dp_control(m = m_aux),
                          progress = FALSE)
  k2 <- as.numeric(as.array(fit)[, 1L, "n_clusters"] == 2)
  nb <- 40L
  bs <- length(k2) %/% nb
  se <- stats::sd(colMeans(matrix(k2[seq_len(bs * nb)], bs))) / sqrt(nb)
  c(exact = exact, est = mean(k2), se = se, z = (mean(k2) - exact) / se)
}

test_that("neal8 with imputed gaussian_niw cells matches the exact posterior of K", {
  m0 <- c(0, 0); kap <- 0.5; nu <- 4; Psi <- diag(0.5, 2L)
  r <- imp_check(gaussian_niw(prior_mean = m0, kappa = kap, df = nu, scale = Psi),
                 function(X) sw_lml_niw(X, m0, kap, nu, Psi), iter = 10000, m_aux = 3)
  expect_lt(abs(r[["z"]]), 4)
})

test_that("neal8 with imputed gaussian_mean cells matches the exact posterior of K", {
  S <- matrix(c(0.5, 0.45, 0.45, 0.5), 2L); m0 <- c(0, 0); V0 <- diag(5, 2L)
  r <- imp_check(gaussian_mean(cov = S, prior_mean = m0, prior_cov = V0),
                 function(X) sw_lml_gmean(X, S, m0, V0), iter = 25000, m_aux = 10)
  expect_lt(abs(r[["z"]]), 4)
})

test_that("the imputation step uses neal8's own cluster parameters", {
  # the kernel flag that routes the chain's parameters to the imputation
  expect_true(mcmix:::dp_algorithms$neal8$params)
  others <- setdiff(names(mcmix:::dp_algorithms), "neal8")
  expect_false(any(vapply(mcmix:::dp_algorithms[others], `[[`, TRUE, "params")))
  # a chunked neal8 run with imputation equals one long run
  d <- imp_table()
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
