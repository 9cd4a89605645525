# split_merge with gaussian_niw in several dimensions: half of the
# sequentially allocated proposals place the points by the per-coordinate
# marginal predictive (gaussian_diag with the NIW prior's marginals), and
# the second launch point is drawn among the first one's cluster half of
# the time (src/mixture_splitmerge.c). Checked against the exact posterior
# over the 203 partitions of 6 points in 3 dimensions (closed-form NIW
# marginals computed in R, helper-mixture.R), and on data where the
# proposal of the model's own predictive alone does not find five clusters
# in 20 dimensions.

# Two groups of three points along (1, 1, 1), 0.5 apart across it, under a
# prior scale with correlation 0.95: the model's own predictive separates
# the groups from the first points on, the per-coordinate one hardly does,
# so the two proposals have very different probabilities (scoring the
# reverse of a split with the wrong one moves E[K | x] by about 5 standard
# errors with 60000 iterations, case 1 below).
u3 <- c(1, 1, 1)
v3 <- c(1, -1, 0)
x6 <- rbind(-2 * u3, 0 * u3, 2 * u3, -1.5 * u3, 0.5 * u3, 2.2 * u3) +
  0.25 * outer(rep(c(1, -1), each = 3), v3)
R6 <- matrix(0.95, 3, 3) + diag(0.05, 3)
niw6 <- gaussian_niw(prior_mean = 0, kappa = 0.1, df = 5, scale = 0.3 * R6)
lml6 <- function(X) mx_lml_niw(X, c(0, 0, 0), 0.1, 5, 0.3 * R6)
P6 <- mx_partitions(6)
ll6 <- mx_log_lik_partitions(P6, x6, lml6)
K6 <- apply(P6, 1L, function(z) length(unique(z)))

test_that("split_merge with gaussian_niw in 3 dimensions matches the exact posterior", {
  skip_on_cran()
  cases <- list(
    list(model = dp_mixture(niw6, alpha = 0.8), iter = 60000,
         p = mx_posterior(P6, ll6, apply(P6, 1L, mx_lprior_dp, alpha = 0.8))),
    list(model = dp_mixture(niw6, alpha = 0.5, discount = 0.4), iter = 30000,
         p = mx_posterior(P6, ll6, apply(P6, 1L, mx_lprior_py, alpha = 0.5, d = 0.4))))
  for (i in seq_along(cases)) {
    # many proposals per collapsed Gibbs scan, so that an error in the
    # moves would show; E[K | x] within 4 Monte Carlo standard errors
    r <- mx_check(cases[[i]]$model, x6, cases[[i]]$p, iter = cases[[i]]$iter,
                  algorithm = "split_merge", seed = 60 + i,
                  control = dp_control(proposal = "sams", moves = 20))
    expect_lt(r$tv, r$bound, label = paste("TV, case", i))
    k <- r$fit$chains[[1]]$traces[, "n_clusters"]
    expect_lt(abs(mean(k) - sum(cases[[i]]$p * K6)), 4 * stats::sd(k) / sqrt(ess(k)),
              label = paste("E[K | x] error, case", i))
    expect_gt(acceptance(r$fit)[1], 0.05)   # the moves are taken
  }
})

test_that("split_merge finds five full-covariance clusters in 20 dimensions from one", {
  skip_on_cran()
  # five well-separated clusters (means N(0, 3^2) per coordinate, unit
  # noise), the default data-scaled prior, default algorithm: the
  # proposals scored by the model's own predictive alone stopped at 3-4
  # clusters within 30 sweeps on this and three other seeds
  set.seed(2)
  D <- 20L
  N <- 2000L
  z <- sample.int(5L, N, replace = TRUE)
  mu <- matrix(stats::rnorm(5 * D, 0, 3), 5)
  x <- mu[z, ] + matrix(stats::rnorm(N * D), N)
  set.seed(1002)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 30, burnin = 0,
                          init = "one", progress = FALSE)
  expect_identical(fit$algorithm, "split_merge")
  last <- fit$chains[[1]]$labels[30L, ]
  tab <- table(last, z)
  # the truth up to relabelling: each cluster holds exactly one true cluster
  expect_identical(dim(tab), c(5L, 5L))
  expect_true(all(rowSums(tab > 0) == 1L) && all(colSums(tab > 0) == 1L))
})
