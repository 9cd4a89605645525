# The collapsed Gibbs scan keeps a point in its own cluster without
# evaluating the other clusters' predictives when a uniform falls below
# the own weight over the own weight plus upper bounds of the others
# (src/mixture_dp.c); the bound of gaussian_niw is
#   log p(x) <= C - (nu_n + 1) g(y),   log p(x) = C - (nu_n + 1)/2 log1p(y),
# g(y) = y/2 - y^2/4 for y < 1, else y / (2 + y)
# (src/family_gaussian_niw.c). It must be an upper bound for every point
# and cluster (else the draw is not the exact conditional), and tight at
# the cluster's mean. The scan's exactness is checked against enumerated
# posteriors in test-dp-algorithms-exact.R, test-mixture-exact.R,
# test-exact-sweep.R and test-splitmerge-highdim.R.

# the family of both tests: every hyperparameter given, a correlated scale
bound_niw <- function(D) gaussian_niw(prior_mean = rep(0.3, D), kappa = 0.05, df = D + 1.5,
                                      scale = diag(D) + 0.4)

test_that("the gaussian_niw predictive bound is an upper bound, tight at the mean", {
  set.seed(8)
  for (D in c(1L, 2L, 5L)) {
    fam <- bound_niw(D)
    for (n in c(0L, 1L, 3L, 40L)) {
      x <- matrix(stats::rnorm(n * D, 1, 2), n, D)
      # near and far points, the cluster's own members, and its posterior mean
      pm <- (0.05 * rep(0.3, D) + colSums(x)) / (0.05 + n)
      newx <- rbind(matrix(stats::rnorm(60 * D, 1, 2), 60, D),
                    matrix(stats::rnorm(20 * D, 0, 1e3), 20, D),
                    x, pm)
      # every hyperparameter is given, so the preparation data do not matter
      prep <- fam_prepare(fam, matrix(0, 2, D))
      r <- mcmix:::.family_eval(prep, x, "bound", newx)
      what <- paste0("D = ", D, ", n = ", n)
      expect_true(all(is.finite(r)), label = what)
      # the bound as the scan computes it (its quadratic form written out at D = 2)
      expect_true(all(r[, 1] >= r[, 2] - 1e-12 * abs(r[, 2])), label = paste(what, "bound"))
      expect_equal(r[nrow(r), 1], r[nrow(r), 2], tolerance = 1e-12,
                   label = paste(what, "at the mean"))
      # a bound, not a constant: for the nearby points its excess is under
      # half of the predictive's drop from its maximum
      near <- r[seq_len(60), ]
      expect_lt(stats::median(near[, 1] - near[, 2]),
                0.5 * stats::median(r[nrow(r), 1] - near[, 2]) + 1e-9, label = paste(what, "tight"))
    }
  }
  expect_error(mcmix:::.family_eval(fam_prepare(gaussian_diag(), matrix(1:4, 2)),
                                    NULL, "bound", matrix(1, 1, 2)), "no predictive bound")
})

test_that("the gaussian_niw leave-one-out lower bound is a lower bound, tight for central members", {
  # log p(x_i | the other members) >= C_loo + (nu_n - 1)/2 ((t - 1) - (t - 1)^2)
  # for t >= 1/2 (src/family_gaussian_niw.c), -Inf below; the scan's stay
  # test uses it before the exact value (src/mixture_dp.c)
  set.seed(9)
  for (D in c(1L, 2L, 5L)) {
    fam <- bound_niw(D)
    for (n in c(2L, 3L, 40L, 400L)) {
      # a cluster with an outlier, whose own t is below 1/2
      x <- rbind(matrix(stats::rnorm(n * D, 1, 2), n, D), rep(60, D))
      r <- mcmix:::.family_eval(fam_prepare(fam, matrix(0, 2, D)), x, "loo")
      what <- paste0("D = ", D, ", n = ", n)
      expect_false(anyNA(r[, 3]), label = what)
      expect_true(all(r[, 3] <= r[, 1] + 1e-12 * abs(r[, 1])), label = paste(what, "lower bound"))
      expect_identical(r[nrow(r), 3], -Inf, label = paste(what, "outlier"))
    }
    # tight: for a cluster of 400 its median gap is under 1% of the
    # members' spread of the exact value
    x <- matrix(stats::rnorm(400 * D, 1, 2), 400, D)
    r <- mcmix:::.family_eval(fam_prepare(fam, matrix(0, 2, D)), x, "loo")
    expect_lt(stats::median(r[, 1] - r[, 3]), 0.01 * stats::sd(r[, 1]),
              label = paste0("D = ", D, ", tight"))
  }
  r <- mcmix:::.family_eval(fam_prepare(gaussian_diag(), matrix(1:4, 2)), matrix(1:6, 3), "loo")
  expect_true(all(is.na(r[, 3])))
})
