# Statistics from raw moments (count, mean, scatter summed per block and
# pooled in order, turned into the family's statistics once) and the
# batched log-likelihood of the sub-cluster sampler's label pass, against
# the family's own slots: members added one by one, log_lik per cluster.

# Largest elementwise relative difference of two stats blocks (NaN = NaN).
rel_diff <- function(a, b) {
  same_na <- is.na(a) & is.na(b)
  max(0, abs(a - b)[!same_na] / pmax(1, abs(b[!same_na])))
}

expect_moments_exact <- function(family, x, blocks, tol = 1e-10) {
  for (b in blocks) {
    r <- fam_eval(family, x, "moments", b)
    expect_true(all(is.na(r[2, ]) == is.na(r[1, ])), label = sprintf("NaN pattern, block %d", b))
    expect_lt(rel_diff(r[2, ], r[1, ]), tol, label = sprintf("relative error, block %d", b))
  }
}

test_that("gaussian_niw statistics from raw moments equal those of members added one by one", {
  set.seed(11)
  # d = 1, 2, 3 (factor recomputed per member) and 5 (rank-one updates)
  expect_moments_exact(gaussian_niw(prior_mean = 1, kappa = 2, df = 3, scale = 1),
                       matrix(rnorm(50, 3, 2)), c(1, 7, 50))
  expect_moments_exact(gaussian_niw(prior_mean = c(0, 1), kappa = 0.3, df = 4,
                                    scale = matrix(c(2, 0.5, 0.5, 1), 2)),
                       matrix(rnorm(200, 10), 100), c(1, 3, 16, 100))
  expect_moments_exact(gaussian_niw(prior_mean = c(0, 1, 2), kappa = 0.3, df = 6,
                                    scale = diag(3) + 0.2),
                       matrix(rnorm(120, -4), 40) %*% matrix(c(1, 0.3, 0, 0, 1, 0.5, 0, 0, 1), 3),
                       c(2, 5, 40))
  expect_moments_exact(gaussian_niw(prior_mean = rep(0, 5), kappa = 1, df = 7, scale = diag(5)),
                       matrix(rnorm(300, 2), 60), c(4, 60))
  # two points (degenerate df), and data far from the origin relative to
  # their spread (the shifted sums keep the scatter's digits)
  expect_moments_exact(gaussian_niw(prior_mean = c(0, 0), kappa = 0.5, df = 1.5, scale = diag(2)),
                       matrix(rnorm(4), 2), c(1, 2))
  expect_moments_exact(gaussian_niw(prior_mean = c(1e6, -1e6), kappa = 0.1, df = 4,
                                    scale = diag(2) * 1e-4),
                       cbind(1e6 + rnorm(500, 0, 0.01), -1e6 + rnorm(500, 0, 0.01)),
                       c(7, 128, 500), tol = 1e-8)
  # no hook: the families that add their members one by one
  expect_error(fam_eval(gaussian_diag(), matrix(rnorm(10), 5), "moments", 2),
               "no statistics from raw moments")
})

test_that("the batched gaussian_niw log-likelihood equals log_lik bit for bit", {
  set.seed(12)
  for (d in c(1, 2, 3)) {
    fam <- gaussian_niw(prior_mean = seq_len(d), kappa = 0.5, df = d + 2, scale = diag(d))
    x <- matrix(rnorm(40 * d, 2, 3), 40)
    theta <- fam_eval(fam, x[1:10, , drop = FALSE], "param_draw", 4)
    r <- fam_eval(fam, x, "log_lik_all", as.vector(t(theta)))
    expect_identical(r[, 5:8], r[, 1:4])
    expect_true(all(is.finite(r)))
  }
  expect_error(fam_eval(gaussian_iso(), matrix(rnorm(10), 5), "log_lik_all", rep(0, 3)),
               "no batched log-likelihood")
})

test_that("the sub-cluster sampler's statistics equal those recomputed from its labels", {
  set.seed(13)
  mu <- rbind(c(-5, 0), c(5, 0), c(0, 6))
  x <- mu[sample.int(3, 3000, TRUE), ] + matrix(rnorm(6000), 3000)
  fam <- gaussian_niw()
  prep <- fam_prepare(fam, x)      # the default prior is set from all the data
  for (th in 1:2) {
    set.seed(4)
    fit <- sample_posterior(dp_mixture(fam), x, iter = 15, burnin = 0, progress = FALSE,
                            algorithm = "subcluster", threads = th)
    st <- fit$chains[[1]]$state
    z <- st$labels
    K <- max(z) + 1L        # labels 0-based, in the order of the stats blocks
    blocks <- matrix(readBin(st$stats, "double", n = length(st$stats) / 8), ncol = K)
    expect_gte(K, 3)
    for (k in seq_len(K)) {
      ref <- fam_eval(prep, x[z == k - 1L, , drop = FALSE], "combine", 0)[1, -(1:2)]
      expect_lt(rel_diff(blocks[seq_along(ref), k], ref), 1e-8)
    }
  }
})
