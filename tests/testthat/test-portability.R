# The paths of platforms without fork(), POSIX signal masks and process
# groups, /proc or OpenMP (Windows, macOS, builds without OpenMP), forced
# here by the testing options (?`mcmix-options`): the same draws as the
# default paths, and a run that completes and is told what it gets.

portable_options <- function()
  withr::local_options(mcmix.fork = FALSE, mcmix.signals = FALSE, mcmix.proc_stat = FALSE,
                       mcmix.openmp = FALSE, mcmix.progress_interval = 0,
                       .local_envir = parent.frame())

test_that("without signal masks, /proc or OpenMP the helpers take their fallbacks", {
  portable_options()
  expect_false(mcmix:::sigint_call(1L))   # nothing is held back
  expect_false(mcmix:::sigint_call(4L))
  expect_identical(mcmix:::process_group(), NA_integer_)
  expect_false(mcmix:::signal_group(2L))
  expect_identical(mcmix:::idle_cores(), NA_real_)
  expect_false(mcmix:::can_fork())
  expect_false(mcmix:::openmp_available())
  # a threads request without OpenMP: one thread, told once per session
  told <- mcmix:::threads_told
  rm(list = ls(told), envir = told)
  expect_message(n <- mcmix:::threads_available(4L), class = "mcmix_message_threads")
  expect_identical(n, 1L)
  expect_message(n <- mcmix:::threads_available(4L), NA)
  expect_identical(n, 1L)
  expect_identical(mcmix:::threads_available(1L), 1L)
  withr::local_options(mcmix.openmp = TRUE, mcmix.threads_adapt = TRUE)
  # without /proc/stat a run starts the threads asked for (one in a build
  # without OpenMP, which told the session above)
  built_omp <- .Call(mcmix:::C_ffi_openmp)
  expect_type(built_omp, "logical")
  expect_identical(mcmix:::threads_available(3L), if (built_omp) 3L else 1L)
})

test_that("the testing options of the fallbacks are checked", {
  for (nm in c("signals", "proc_stat", "openmp")) {
    withr::local_options(structure(list("yes"), names = paste0("mcmix.", nm)))
    expect_error(mcmix_option(nm), class = "mcmix_error_option")
  }
  withr::local_options(mcmix.signals = NA)
  set.seed(1)
  expect_error(run_kernel(iid_kernel(), iter = 5, progress = FALSE), class = "mcmix_error_option")
})

port_data <- function() {
  set.seed(60)
  mu <- rbind(c(-5, 0), c(5, 0), c(0, 6))
  z <- rep(1:3, length.out = 6000)
  mu[z, ] + matrix(rnorm(12000), 6000)
}

port_fit <- function(x, ...) {
  set.seed(62)
  sample_posterior(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)), x, iter = 4,
                   burnin = 2, algorithm = "subcluster", init = "one", progress = FALSE,
                   chains = 2, ...)
}

test_that("every fallback at once: two chains on local cores with threads = 2 give the default draws", {
  withr::local_preserve_seed()
  x <- port_data()
  ref <- port_fit(x, threads = 1, backend = "sequential")
  portable_options()
  withr::local_options(mcmix.psock_future = FALSE)   # the PSOCK cluster, as without future
  rm(list = ls(mcmix:::threads_told), envir = mcmix:::threads_told)
  expect_message(f <- port_fit(x, threads = 2, cores = 2, backend = "parallel"),
                 class = "mcmix_message_threads")
  expect_identical(lapply(f$chains, `[[`, "traces"), lapply(ref$chains, `[[`, "traces"))
  expect_identical(partition_draws(f), partition_draws(ref))
  # SIGINT was never held back
  expect_false(isTRUE(.Call(mcmix:::C_ffi_sigint, 4L, 0L)))
})

test_that("LDA's blocked sampler without OpenMP gives the draws of its threads", {
  withr::local_preserve_seed()
  set.seed(5)
  docs <- lapply(1:60, function(i) sample.int(40, rpois(1, 15) + 1, TRUE))
  m <- lda_model(4, alpha = 0.1, beta = 0.05)
  withr::local_options(mcmix.lda_block_tokens = 150, mcmix.threads_adapt = FALSE)
  run <- function(threads) {
    set.seed(3)
    sample_posterior(m, docs, iter = 6, burnin = 2, progress = FALSE, algorithm = "blocked",
                     threads = threads)$chains
  }
  ref <- run(2)
  portable_options()
  expect_identical(suppressMessages(run(2)), ref)
})
