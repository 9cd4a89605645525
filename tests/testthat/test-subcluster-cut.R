# A true cluster cut in two pieces must heal: the sub-cluster sampler's
# sequentially allocated merge of the pieces (src/mixture_subcluster_sams.c)
# on unions larger than the thinning size t.  At N = 1e7 (t = 32768 and
# pieces of about 2e6 points) a cut stayed for 100 sweeps while merges of
# such unions were thinned by sqrt(t / n) and drew the shell and local
# orders, which do not give back two pieces of one Gaussian, three times
# in four.  Here the same regime at a size the suite affords: the setting
# sc_thin (tests only) puts the unions of 4,000 points above t = 64, so
# that merges were thinned as those of 2e6 points are at 1e7.  The check
# is against the truth, not the sampler: each true cluster back in one
# cluster (at least 99.5% of its points).

test_that("a planted cut of a true cluster heals within a few sweeps at large union sizes", {
  skip_on_cran()
  set.seed(1)
  N <- 2e4
  mu <- rbind(c(0, 0), c(5, 5), c(5, -5), c(-5, 5), c(-5, -5))
  zt <- sample.int(5L, N, replace = TRUE)
  x <- mu[zt, ] + matrix(stats::rnorm(2 * N), N, 2)
  # the central cluster cut by a line into pieces of 86% and 14%
  init <- zt
  init[zt == 1L & x[, 1L] > stats::qnorm(0.86)] <- 6L
  ctl <- dp_control()
  ctl$sc_thin <- 64
  whole <- function(z) {
    tab <- table(zt, z)
    all(apply(tab, 1L, max) >= 0.995 * rowSums(tab))
  }
  expect_false(whole(init))
  sweeps <- 6L
  healed <- vapply(1:8, function(seed) {
    set.seed(seed)
    fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 1), x, iter = sweeps,
                            burnin = 0, algorithm = "subcluster", init = init, control = ctl,
                            labels = TRUE, progress = FALSE)
    any(apply(partition_draws(fit), 1L, whole))
  }, TRUE)
  # the merge of the pieces is proposed about once per sweep and then
  # accepted about half the time (the uniform order): these 8 seeds heal
  # within 1-3 sweeps; with merges thinned by sqrt(t / n) and a quarter
  # of uniform orders 2 of 8 healed within 6 sweeps
  expect_gte(sum(healed), 6L)
})
