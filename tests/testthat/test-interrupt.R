# Interrupts, failed and dead workers, partial fits (R/chains.R). The
# signals are real: the kernel sends SIGINT (or SIGKILL) to its own process
# (helper-faults.R). The full sweep over every sampler and every chunk is
# tools/interrupts.R (`make interrupts`).

test_that("a sample of the interrupt sweep: counters match draws, extend(fit, 0) equals the uninterrupted run", {
  withr::local_preserve_seed()
  cases <- interrupt_cases()
  for (nm in c("mh", "dp_collapsed", "hdp", "lda")) {
    fit0 <- cases[[nm]]()
    for (cores in c(1L, 2L)) {
      r <- interrupt_check(fit0, k = 3L, cores = cores, where = "inside")
      expect_interrupt_ok(r, sprintf("%s, cores = %d", nm, cores))
    }
  }
})

test_that("interrupts at chunk boundaries keep every chunk (sequential and forked)", {
  withr::local_preserve_seed()
  fit0 <- interrupt_cases()$dp_slice()
  for (cores in c(1L, 2L)) for (where in c("before", "after")) {
    r <- interrupt_check(fit0, k = 2L, cores = cores, where = where)
    expect_true(r$interrupted && r$counters && r$same && r$completed,
                label = sprintf("cores = %d, %s", cores, where))
  }
})

test_that("a fit interrupted in the burn-in of chain 2 works with every method", {
  withr::local_preserve_seed()
  set.seed(3)
  f <- fault_interrupted_run(iid_kernel(), k = NA, seed = 3, chain_start = 2L,
                             iter = 300, burnin = 50, chains = 2)
  expect_match(attr(f, "warning"), "interrupted")
  expect_true(f$interrupted)
  expect_equal(vapply(f$chains, function(ch) NROW(ch$traces), 1L), c(300L, 0L))
  expect_message(s <- summary(f), "using chain 1 with its 300 draws")
  expect_false(anyNA(s$table$mean))
  expect_equal(s$table["a", "mean"], mean(f$chains[[1]]$traces[, "a"]))
  # said once: methods called from summary() stay quiet
  expect_equal(length(testthat::capture_messages(summary(f))), 1L)
  ml <- suppressMessages(as.mcmc.list(f))
  expect_equal(coda::nchain(ml), 1L)
  expect_equal(coda::niter(ml), 300L)
  a <- suppressMessages(as.array(f))
  expect_equal(dim(a), c(300L, 1L, 2L))
  d <- posterior::as_draws_array(a)
  expect_equal(posterior::niterations(d), 300L)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_no_error(suppressMessages(plot(f)))
  tr <- f$chains[[1]]$traces
  expect_equal(unname(suppressMessages(ess(f))), c(ess(tr[, "a"]), ess(tr[, "b"])))
  # extend(fit, 0) completes it exactly
  set.seed(3)
  ref <- run_kernel(iid_kernel(), iter = 300, burnin = 50, chains = 2, progress = FALSE)
  expect_true(fault_same_fit(extend(f, 0, progress = FALSE), ref))
})

test_that("partition() and psm() of a partial mixture fit use the labels that exist", {
  withr::local_preserve_seed()
  x <- c(-2.1, -1.9, -2.3, 1.8, 2.2, 2.0, 2.4, -1.7)
  set.seed(4)
  fit0 <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 60, burnin = 10,
                           chains = 2, progress = FALSE)
  f <- fault_interrupted_run(mcmix:::fit_kernel(fit0), k = NA, seed = 4, chain_start = 2L,
                             iter = 60, burnin = 10, chains = 2, labels = TRUE, psm = TRUE,
                             data = fit0$data, model = fit0$model)
  expect_true(f$interrupted)
  p <- suppressMessages(psm(f))
  expect_equal(attr(p, "n_draws"), 60)
  expect_equal(unname(p), unname(psm(f$chains[[1]]$labels)))
  pt <- suppressMessages(partition(f))
  expect_equal(length(pt$labels), length(x))
})

test_that("a chain that fails is an error naming it, with the other chains in the condition", {
  withr::local_preserve_seed()
  k <- iid_kernel(function(offset, warmup)
    if (!warmup && offset >= 20) stop("numerical trouble"))
  set.seed(5)
  e <- tryCatch(run_kernel(k, iter = 100, chains = 3, progress = FALSE), error = identity)
  expect_s3_class(e, "mcmix_chain_error")
  expect_match(conditionMessage(e), "chain 2 failed: numerical trouble")
  expect_equal(e$chain, 2L)
  n <- vapply(e$fit$chains, function(ch) NROW(ch$traces), 1L)
  expect_equal(n[1L], 100L)
  expect_gte(n[2L], 20L)
  expect_true(fault_counters_ok(e$fit))
})

test_that("a forked worker that dies is an error naming its chain; the other chains are kept", {
  withr::local_preserve_seed()
  k <- iid_kernel(dying_hook(tempfile()))
  set.seed(6)
  e <- tryCatch(run_kernel(k, iter = 200, chains = 2, cores = 2, progress = FALSE),
                error = identity)
  expect_chain_died(e)
  expect_equal(NROW(e$fit$chains[[2]]$traces), 0L)
  # the fit in the condition resumes to the run that would have been
  expect_completes(e$fit, k, seed = 6, iter = 200)
})

test_that("progress is reported on stderr for sequential and forked chains", {
  withr::local_preserve_seed()
  old <- options(mcmix.progress_interval = 0)
  on.exit(options(old))
  for (cores in c(1L, 2L)) {
    p <- progress_check(7, cores = cores)
    expect_match(p$last, "chains 2/2 done \\| 400/400 draws \\| .* draws/s \\| 0 s left",
                 label = sprintf("cores = %d", cores))
    expect_true(p$same, label = sprintf("cores = %d", cores))
  }
})

test_that("progress from chains run by future workers arrives through progressr", {
  withr::local_preserve_seed()
  skip_on_cran()
  old <- options(mcmix.progress_interval = 0)
  oplan <- future::plan(future::multisession, workers = 2)
  on.exit({ future::plan(oplan); options(old) })
  p <- progress_check(8, backend = "future")
  # 400/400 draws: the amounts counted are those the workers signalled
  expect_match(p$last, "chains 2/2 done \\| 400/400 draws")
  expect_true(p$same)
})

test_that("Ctrl-C in the session (not in the workers) stops forked chains without losing a chunk", {
  withr::local_preserve_seed()
  # after the signal, chunks are slow: the 1e5 iterations would take
  # seconds, the stop request reaches the workers within a chunk or two
  k <- iid_kernel(session_interrupt_hook(Sys.getpid(), tempfile(), slow = 0.3), chain = NULL)
  set.seed(10)
  f <- quiet_run(run_kernel(k, iter = 1e5, chains = 2, cores = 2, progress = FALSE))
  expect_session_stop(f, 1e5)
  f$kernel <- iid_kernel()   # the same draws, without the signal: the rest at full speed
  expect_completes(f, iid_kernel(), seed = 10, iter = 1e5, cores = 2)
})

test_that("every sampler's fit interrupted at the start of chain 2 works with every method, saying once it is partial", {
  withr::local_preserve_seed()
  cases <- interrupt_cases()
  for (nm in names(cases))
    expect_identical(partial_methods_check(cases[[nm]]()), character(), label = nm)
})
