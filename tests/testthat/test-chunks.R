# Item 5 of the reliability promises (R/chains.R): a chain's draws do not
# depend on how its iterations are cut into chunks (chunk lengths adapt to
# the elapsed time; the option `mcmix.chunk_size` fixes them), and extend()
# of a run equals one longer run, for every sampler of the package
# (the short runs of helper-interrupt.R).

chunk_run <- function(fit0, chunk_size, iter = NULL, seed = 9L) {
  st <- interrupt_settings(fit0, chains = 1L)
  if (!is.null(iter)) st$iter <- iter
  withr::local_options(mcmix.chunk_size = chunk_size)
  set.seed(seed)
  do.call(run_kernel, c(list(fit0$kernel, progress = FALSE), st))
}

test_that("every sampler gives the same draws whatever the chunk lengths", {
  withr::local_preserve_seed()
  cases <- interrupt_cases()
  for (nm in names(cases)) {
    fit0 <- cases[[nm]]()
    adaptive <- chunk_run(fit0, NULL)
    for (size in c(1L, 7L))
      expect_true(fault_same_fit(chunk_run(fit0, size), adaptive),
                  label = sprintf("%s, chunks of %d", nm, size))
  }
})

test_that("extend() of every sampler's run equals one longer run, whatever the chunks", {
  withr::local_preserve_seed()
  cases <- interrupt_cases()
  for (nm in names(cases)) {
    fit0 <- cases[[nm]]()
    long <- chunk_run(fit0, NULL)
    half <- fit0$settings$iter %/% 2L
    short <- chunk_run(fit0, 3L, iter = half)
    ext <- withr::with_options(list(mcmix.chunk_size = 5L),
                               extend(short, fit0$settings$iter - half, progress = FALSE))
    expect_true(fault_same_fit(ext, long), label = nm)
  }
})

test_that("the chunk-length option fixes the length of every chunk", {
  withr::local_preserve_seed()
  sizes <- integer()
  k <- new_kernel("iid", init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      sizes <<- c(sizes, n)
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = matrix(stats::runif(length(keep)), ncol = 1)))
    }, trace_names = "u")
  withr::with_options(list(mcmix.chunk_size = 4L),
                      run_kernel(k, iter = 10, burnin = 6, progress = FALSE))
  expect_equal(sizes, c(4L, 2L, 4L, 4L, 2L))
})

test_that("the chunk-length option is checked", {
  withr::local_options(mcmix.chunk_size = 0)
  k <- new_kernel("k", init = function(chain) list(), step = function(state, n, thin, offset,
                                                                      warmup) NULL,
                  trace_names = "x")
  expect_error(run_kernel(k, iter = 5, progress = FALSE), "`mcmix.chunk_size`")
})
