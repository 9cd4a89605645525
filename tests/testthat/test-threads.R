# Threads inside a chain (algorithm = "subcluster"): the draws do not depend
# on the number of threads, on running chains on cores, or on cutting the
# run into extend() calls (the block-stream rule of inst/design.md).
# Enough observations for several blocks of 4096 per parallel pass.
# The threads are started as asked (not fewer on a busy machine).
withr::local_options(mcmix.threads_adapt = FALSE, .local_envir = teardown_env())

test_that("a run starts no more threads than asked, and at least one", {
  withr::local_options(mcmix.threads_adapt = TRUE)
  expect_identical(mcmix:::threads_available(1L), 1L)
  t4 <- mcmix:::threads_available(4L)
  expect_true(t4 >= 1L && t4 <= 4L)
  idle <- mcmix:::idle_cores()
  expect_true(is.na(idle) || (idle >= 0 && idle <= parallel::detectCores() + 0.5))
  withr::local_options(mcmix.threads_adapt = FALSE)
  # as asked, or one in a build without OpenMP (test-portability.R)
  built_omp <- .Call(mcmix:::C_ffi_openmp)
  expect_identical(mcmix:::threads_available(4L), if (built_omp) 4L else 1L)
})

thr_data <- function() {
  set.seed(60)
  mu <- rbind(c(-5, 0), c(5, 0), c(0, 6))
  z <- rep(1:3, length.out = 9000)
  mu[z, ] + matrix(rnorm(18000), 9000)
}

thr_fit <- function(x, threads, ...) {
  set.seed(61)
  sample_posterior(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)), x, iter = 6,
                   burnin = 2, algorithm = "subcluster", init = "one", progress = FALSE,
                   threads = threads, ...)
}

test_that("subcluster draws are identical for 1, 2 and 4 threads", {
  x <- thr_data()
  f1 <- thr_fit(x, 1)
  f2 <- thr_fit(x, 2)
  f4 <- thr_fit(x, 4)
  expect_identical(f1$chains[[1]]$traces, f2$chains[[1]]$traces)
  expect_identical(f1$chains[[1]]$traces, f4$chains[[1]]$traces)
  expect_identical(partition_draws(f1), partition_draws(f4))
  expect_identical(f1$chains[[1]]$state, f2$chains[[1]]$state)
  # the option sets the default
  old <- options(mcmix.threads = 2)
  on.exit(options(old))
  set.seed(61)
  fo <- sample_posterior(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)), x, iter = 6,
                         burnin = 2, algorithm = "subcluster", init = "one", progress = FALSE)
  expect_identical(f1$chains[[1]]$traces, fo$chains[[1]]$traces)
})

test_that("subcluster chains with threads are identical sequentially and on 2 cores", {
  skip_on_os("windows")
  x <- thr_data()
  seq2 <- thr_fit(x, 2, chains = 2)
  par2 <- thr_fit(x, 2, chains = 2, cores = 2)
  one <- thr_fit(x, 1, chains = 2)
  for (j in 1:2) {
    expect_identical(seq2$chains[[j]]$traces, par2$chains[[j]]$traces)
    expect_identical(seq2$chains[[j]]$traces, one$chains[[j]]$traces)
  }
})

test_that("extend() of a subcluster run equals one longer run, with any threads", {
  x <- thr_data()
  long <- thr_fit(x, 1, chains = 1)
  set.seed(61)
  short <- sample_posterior(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)), x,
                            iter = 3, burnin = 2, algorithm = "subcluster", init = "one",
                            progress = FALSE, threads = 2)
  ext <- extend(short, 3, progress = FALSE)
  expect_identical(long$chains[[1]]$traces, ext$chains[[1]]$traces)
  expect_identical(partition_draws(long), partition_draws(ext))
})

test_that("threads is checked", {
  x <- c(1, 2, 3, 10, 11)
  m <- dp_mixture(gaussian_niw())
  expect_error(sample_posterior(m, x, threads = 0), "`threads`")
  expect_error(sample_posterior(m, x, threads = "a"), "`threads`")
  expect_error(sample_posterior(m, x, threads = 1e5), "`threads`")
})

test_that("draws are identical for any thread count with other families", {
  # the side statistics of splits and the statistics rebuilt after a pass
  # that moves many labels are combined block by block (stats_combine)
  set.seed(62)
  z <- rep(1:3, length.out = 9000)
  xp <- matrix(rpois(18000, c(1, 6, 15)[z]), 9000)
  xd <- matrix(rnorm(27000, c(-4, 0, 4)[z]), 9000)
  for (case in list(list(poisson_gamma(), xp), list(gaussian_diag(), xd))) {
    tr <- lapply(c(1, 3), function(th) {
      set.seed(63)
      fit <- sample_posterior(dp_mixture(case[[1]]), case[[2]], iter = 4, burnin = 1,
                              algorithm = "subcluster", init = "one", progress = FALSE,
                              labels = FALSE, threads = th)
      fit$chains[[1]]$traces
    })
    expect_identical(tr[[1]], tr[[2]])
    expect_gt(max(tr[[1]][, "n_clusters"]), 1)
  }
})

test_that("statistics recomputed from the labels on several threads are the serial ones", {
  # a fresh state from labels with several clusters, and the recomputation
  # after sweep 64, are summed cluster by cluster on the threads: the
  # exported statistics must be the same bytes as with one thread
  x <- thr_data()
  fits <- lapply(c(1, 2, 3), function(th) {
    set.seed(64)
    sample_posterior(dp_mixture(gaussian_niw()), x, iter = 65, burnin = 0,
                     algorithm = "subcluster", init = "prior", progress = FALSE,
                     labels = FALSE, threads = th)
  })
  st <- lapply(fits, function(f) f$chains[[1]]$state)
  expect_gt(length(st[[1]]$stats), 0)
  expect_identical(st[[1]], st[[2]])
  expect_identical(st[[1]], st[[3]])
  expect_identical(fits[[1]]$chains[[1]]$traces, fits[[3]]$chains[[1]]$traces)
  expect_gt(max(fits[[1]]$chains[[1]]$traces[, "n_clusters"]), 1)
})

test_that("sub-cluster passes over many blocks give the same draws on 1, 2 and 3 threads", {
  # 40,000 points in one starting cluster: the first split's passes run
  # over 10 blocks of members (small passes stay on one thread)
  set.seed(65)
  x <- rbind(matrix(rnorm(40000, -4), ncol = 2), matrix(rnorm(40000, 4), ncol = 2))
  tr <- lapply(1:3, function(th) {
    set.seed(66)
    fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 3, burnin = 0,
                            algorithm = "subcluster", init = "one", progress = FALSE,
                            labels = FALSE, threads = th)
    list(fit$chains[[1]]$traces, fit$chains[[1]]$state)
  })
  expect_identical(tr[[1]], tr[[2]])
  expect_identical(tr[[1]], tr[[3]])
  expect_gte(max(tr[[1]][[1]][, "n_clusters"]), 2)
})
