# The chain driver: streams, chunking, backends, interrupts, extend().

# An AR(1) kernel written in R: its draws depend on the whole history, so
# any slip in continuation or stream handling changes them.
ar1_kernel <- function(interrupt_at = NULL) {
  calls <- new.env()
  calls$n <- 0L
  new_kernel("ar1",
    init = function(chain) list(x = stats::rnorm(1), n_accept = 0, n_prop = 0),
    step = function(state, n, thin, offset, warmup) {
      calls$n <- calls$n + 1L
      if (!is.null(interrupt_at) && calls$n == interrupt_at)
        signalCondition(structure(class = c("interrupt", "condition"),
                                  list(message = "", call = NULL)))
      out <- numeric(n)
      x <- state$x
      for (i in seq_len(n)) {
        x <- 0.5 * x + stats::rnorm(1)
        out[i] <- x
      }
      state$x <- x
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      lab <- matrix(as.integer(out[keep] > 0) + 1L, ncol = 1L)
      list(state = state,
           draws = list(traces = matrix(out[keep], ncol = 1L,
                                        dimnames = list(NULL, "x")),
                        labels = cbind(lab, rep(1L, nrow(lab)))))
    },
    trace_names = "x")
}

draws_of <- function(fit) lapply(fit$chains, function(ch) ch$traces)

test_that("set.seed() reproduces a run and chains use distinct streams", {
  set.seed(11)
  a <- run_kernel(ar1_kernel(), iter = 200, burnin = 50, thin = 3, chains = 3,
                  progress = FALSE)
  set.seed(11)
  b <- run_kernel(ar1_kernel(), iter = 200, burnin = 50, thin = 3, chains = 3,
                  progress = FALSE)
  expect_identical(draws_of(a), draws_of(b))
  expect_equal(nrow(a$chains[[1]]$traces), 200 %/% 3)
  expect_false(isTRUE(all.equal(a$chains[[1]]$traces, a$chains[[2]]$traces)))
  expect_s3_class(a, "mcmix_fit")
})

test_that("the caller's generator kind is restored and only advanced", {
  RNGkind("Mersenne-Twister", "Inversion", "Rejection")
  set.seed(5)
  before <- RNGkind()
  invisible(run_kernel(ar1_kernel(), iter = 20, progress = FALSE))
  expect_identical(RNGkind(), before)
  # the caller's stream moved by exactly one draw (the base seed)
  after_run <- stats::runif(1)
  set.seed(5)
  invisible(sample.int(.Machine$integer.max, 1L))
  expect_identical(after_run, stats::runif(1))
})

test_that("extend() equals one longer run, also after saveRDS()", {
  set.seed(2)
  long <- run_kernel(ar1_kernel(), iter = 1000, burnin = 100, thin = 2,
                     chains = 2, progress = FALSE)
  set.seed(2)
  short <- run_kernel(ar1_kernel(), iter = 500, burnin = 100, thin = 2,
                      chains = 2, progress = FALSE)
  path <- tempfile(fileext = ".rds")
  saveRDS(short, path)
  resumed <- extend(readRDS(path), 500, progress = FALSE)
  expect_identical(draws_of(resumed), draws_of(long))
  expect_identical(resumed$settings$iter, 1000L)
  # odd lengths with thinning: 7 + 6 == 13
  set.seed(9)
  a <- extend(run_kernel(ar1_kernel(), iter = 7, thin = 3, progress = FALSE), 6,
              progress = FALSE)
  set.seed(9)
  b <- run_kernel(ar1_kernel(), iter = 13, thin = 3, progress = FALSE)
  expect_identical(draws_of(a), draws_of(b))
})

test_that("draws do not depend on the number of cores or the backend", {
  skip_on_os("windows")
  set.seed(3)
  seq1 <- run_kernel(ar1_kernel(), iter = 300, chains = 4, cores = 1,
                     progress = FALSE)
  set.seed(3)
  par2 <- run_kernel(ar1_kernel(), iter = 300, chains = 4, cores = 2,
                     progress = FALSE)
  expect_identical(draws_of(seq1), draws_of(par2))
  expect_identical(lapply(seq1$chains, `[[`, "labels"),
                   lapply(par2$chains, `[[`, "labels"))
})

test_that("draws are identical on a future multisession backend", {
  skip_on_cran()
  require_suggested("future")
  require_suggested("future.apply")
  set.seed(4)
  ref <- run_kernel(ar1_kernel(), iter = 100, chains = 2, progress = FALSE)
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  set.seed(4)
  fut <- run_kernel(ar1_kernel(), iter = 100, chains = 2, progress = FALSE)
  expect_identical(draws_of(ref), draws_of(fut))
})

test_that("an interrupt returns the draws so far, and extend() finishes the run", {
  set.seed(8)
  full <- run_kernel(ar1_kernel(), iter = 400, burnin = 10, chains = 2,
                     progress = FALSE)
  set.seed(8)
  expect_warning(
    part <- run_kernel(ar1_kernel(interrupt_at = 6L), iter = 400, burnin = 10,
                       chains = 2, progress = FALSE),
    "interrupted")
  expect_true(part$interrupted)
  done <- vapply(part$chains, function(ch) ch$iter_done, integer(1))
  expect_true(done[1] < 400)
  expect_identical(done[2], 0L)
  expect_equal(nrow(part$chains[[1]]$traces), done[1])
  # the partial draws are the start of the uninterrupted chain
  expect_identical(part$chains[[1]]$traces,
                   full$chains[[1]]$traces[seq_len(done[1]), , drop = FALSE])
  finished <- extend(part, 0, progress = FALSE)
  expect_identical(draws_of(finished), draws_of(full))
  expect_false(finished$interrupted)
})

test_that("online co-clustering counts match the stored labels", {
  set.seed(6)
  fit <- run_kernel(ar1_kernel(), iter = 50, psm = TRUE, progress = FALSE)
  lab <- fit$chains[[1]]$labels
  naive <- matrix(0, 2, 2)
  for (s in seq_len(nrow(lab))) naive <- naive + outer(lab[s, ], lab[s, ], "==")
  expect_equal(fit$chains[[1]]$psm, naive)
  expect_identical(fit$chains[[1]]$psm_n, 50L)
})

test_that("driver arguments are checked", {
  k <- ar1_kernel()
  expect_error(run_kernel(k, iter = -1), "`iter`")
  expect_error(run_kernel(k, iter = 10, thin = 0), "`thin`")
  expect_error(run_kernel(k, iter = 10, chains = 1.5), "`chains`")
  expect_error(run_kernel(k, iter = 10, progress = NA), "`progress`")
  expect_error(run_kernel(list(), iter = 10), "`kernel`")
  expect_error(run_kernel(k, iter = 10, backend = "gpu"), "should be one of")
  fit <- run_kernel(k, iter = 10, progress = FALSE)
  expect_error(extend(fit, -3), "`iter`")
})

test_that("every fit stores its format, and extend() refuses another format", {
  set.seed(9)
  fit <- run_kernel(ar1_kernel(), iter = 20, progress = FALSE)
  expect_identical(fit$format, mcmix:::fit_format)
  # survives saveRDS() and is continued
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(fit, f)
  expect_identical(nrow(extend(readRDS(f), 5, progress = FALSE)$chains[[1]]$traces), 25L)
  old <- fit
  old$format <- NULL   # a fit saved before formats were recorded
  expect_error(extend(old, 5, progress = FALSE), "fit format 1")
  old$format <- mcmix:::fit_format + 1L
  expect_error(extend(old, 5, progress = FALSE), "run the sampler again")
})
