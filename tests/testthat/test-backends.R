# Interrupts, progress and failed workers on the future backends
# (multisession workers; R/chains_backends.R, R/chains_checkpoint.R) and on
# local cores without fork() (`options(mcmix.fork = FALSE)`, the Windows
# path). The signals are real (helper-faults.R): a worker sends SIGINT to
# itself or to the session, or SIGKILL to itself.

# (the plan is put back at the end of this file: later files run with the
# default plan)
oplan <- future::plan(future::multisession, workers = 2)
withr::defer(future::plan(oplan))

# The kernels, hooks and checks shared with test-interrupt.R:
# helper-interrupt.R.

test_that("a chain interrupted in its future worker keeps every chunk; extend(fit, 0) completes it", {
  withr::local_preserve_seed()
  cases <- interrupt_cases()
  for (nm in c("mh", "hdp")) for (where in c("inside", "after")) {
    r <- interrupt_check(cases[[nm]](), k = 3L, where = where, backend = "future")
    expect_interrupt_ok(r, sprintf("%s, %s", nm, where))
  }
})

test_that("Ctrl-C in the session stops future chains at a chunk boundary, keeping their draws", {
  withr::local_preserve_seed()
  k <- iid_kernel(session_interrupt_hook(Sys.getpid(), tempfile(), slow = 0.2), chain = NULL)
  set.seed(10)
  w <- NULL
  f <- withCallingHandlers(run_kernel(k, iter = 1e5, chains = 2, backend = "future",
                                      progress = FALSE),
                           warning = function(c) {
                             w <<- conditionMessage(c)
                             invokeRestart("muffleWarning")
                           })
  expect_match(w, "sampling interrupted")
  expect_session_stop(f, 1e5)
  # every method works on the partial fit
  expect_message(s <- summary(f), "incomplete|using")
  expect_false(anyNA(s$table$mean))
  expect_s3_class(suppressMessages(coda::as.mcmc.list(f)), "mcmc.list")
  expect_s3_class(suppressMessages(posterior::as_draws(f)), "draws")
  f$kernel <- iid_kernel()   # the same draws, without the signal
  expect_completes(f, iid_kernel(), seed = 10, iter = 1e5, backend = "future")
})

test_that("a second Ctrl-C gives up the future chains still running, keeping their checkpoints", {
  withr::local_preserve_seed()
  withr::local_options(mcmix.checkpoint_interval = 0)
  parent <- Sys.getpid()
  flag <- tempfile()
  # chain 2 signals the session twice within one chunk that then takes
  # long (as a worker that cannot see the stop request would)
  k <- iid_kernel(function(offset, warmup) {
    if (!warmup && offset >= 8 && !file.exists(flag)) {
      file.create(flag)
      tools::pskill(parent, tools::SIGINT)
      Sys.sleep(0.5)
      tools::pskill(parent, tools::SIGINT)
      Sys.sleep(1.5)
    }
  })
  set.seed(12)
  f <- quiet_run(run_kernel(k, iter = 1e6, burnin = 5, chains = 2, backend = "future",
                            progress = FALSE))
  expect_true(f$interrupted)
  expect_true(fault_counters_ok(f))
  # chain 2 kept its checkpoint: the chunks before the signals
  expect_gte(f$chains[[2]]$iter_done, 8L)
  expect_lt(f$chains[[2]]$iter_done, 1e6)
  Sys.sleep(1.5)   # the abandoned worker ends its chunk, sees the run is gone and stops
})

test_that("a future worker that dies is an error naming its chain; the other chain and the checkpoints are kept", {
  withr::local_preserve_seed()
  withr::local_options(mcmix.checkpoint_interval = 0)
  k <- iid_kernel(dying_hook(tempfile()))
  set.seed(6)
  e <- tryCatch(run_kernel(k, iter = 200, chains = 2, backend = "future", progress = FALSE),
                error = identity)
  expect_chain_died(e)
  expect_equal(e$fit$chains[[1]]$iter_done, 200L)
  expect_gte(e$fit$chains[[2]]$iter_done, 10L)   # from its last checkpoint
  expect_lt(e$fit$chains[[2]]$iter_done, 200L)
  # the fit in the condition resumes to the run that would have been
  future::plan(future::multisession, workers = 2)   # a fresh pair of workers
  expect_completes(e$fit, k, seed = 6, iter = 200, backend = "future")
})

test_that("local cores without fork(): same draws, interrupts keep draws, progress", {
  withr::local_preserve_seed()
  withr::local_options(mcmix.fork = FALSE, mcmix.progress_interval = 0)
  fit0 <- interrupt_cases()$dp_collapsed()
  expect_interrupt_ok(interrupt_check(fit0, k = 3L, cores = 2L, where = "inside"),
                      "dp_collapsed")
  p <- progress_check(7, cores = 2)
  expect_match(p$last, "chains 2/2 done \\| 400/400 draws")
  expect_true(p$same)
})

test_that("more chains than future workers: chains wait for a free worker", {
  withr::local_preserve_seed()
  set.seed(13)
  f <- run_kernel(iid_kernel(), iter = 50, chains = 4, backend = "future", progress = FALSE)
  set.seed(13)
  expect_true(fault_same_fit(f, run_kernel(iid_kernel(), iter = 50, chains = 4,
                                           progress = FALSE)))
})

test_that("the checkpoint interval option is checked", {
  withr::local_options(mcmix.checkpoint_interval = -1)
  expect_error(run_kernel(iid_kernel(), iter = 5, chains = 2, backend = "future",
                          progress = FALSE), "`mcmix.checkpoint_interval`")
})

test_that("a target written at the console takes its global variables to future workers", {
  withr::local_preserve_seed()
  future::plan(future::multisession, workers = 2)
  # as typed at the console: the functions' environment is the global one
  assign("sd_global_i25", seq(1, 5, length.out = 4), envir = globalenv())
  withr::defer(rm("sd_global_i25", envir = globalenv()))
  tg <- eval(quote(target(function(x) -sum((x / sd_global_i25)^2) / 2,
                          gradient = function(x) -x / sd_global_i25^2)), globalenv())
  set.seed(5)
  f <- sample_hmc(tg, init = rep(1, 4), iter = 30, burnin = 10, chains = 2, n_steps = 3,
                  progress = FALSE, backend = "future")
  set.seed(5)
  g <- sample_hmc(tg, init = rep(1, 4), iter = 30, burnin = 10, chains = 2, n_steps = 3,
                  progress = FALSE, backend = "sequential")
  expect_true(fault_same_fit(f, g))
  # and Gibbs conditionals
  assign("rho_global_i25", 0.5, envir = globalenv())
  withr::defer(rm("rho_global_i25", envir = globalenv()))
  cond <- eval(quote(list(function(th) stats::rnorm(1, rho_global_i25 * th[2]),
                          function(th) stats::rnorm(1, rho_global_i25 * th[1]))), globalenv())
  set.seed(6)
  f <- sample_gibbs(conditionals = cond, init = c(a = 0, b = 0), iter = 20, chains = 2, progress = FALSE,
                    backend = "future")
  set.seed(6)
  g <- sample_gibbs(conditionals = cond, init = c(a = 0, b = 0), iter = 20, chains = 2, progress = FALSE,
                    backend = "sequential")
  expect_true(fault_same_fit(f, g))
})

test_that("future and forked workers leave the session's process group", {
  skip_on_os("windows")
  withr::local_preserve_seed()
  future::plan(future::multisession, workers = 2)
  k <- new_kernel("pgid",
    init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      g <- mcmix:::process_group()
      list(state = state, draws = list(traces = matrix(rep(g, length(keep)), ncol = 1,
                                                       dimnames = list(NULL, "g"))))
    }, trace_names = "g")
  me <- mcmix:::process_group()
  for (b in list(list(backend = "future"), list(backend = "parallel", cores = 2))) {
    f <- do.call(run_kernel, c(list(k, iter = 5, chains = 2, progress = FALSE), b))
    g <- unlist(lapply(f$chains, function(ch) ch$traces[, "g"]))
    expect_false(any(g == me), info = b$backend)
  }
  # a run holds SIGINT back only while it runs
  expect_false(mcmix:::sigint_call(4L))
})

test_that("a future worker that died before the run is replaced: the run completes", {
  skip_on_os("windows")
  withr::local_preserve_seed()
  future::plan(future::multisession, workers = 2)
  fs <- lapply(1:2, function(i) future::future(Sys.getpid(), seed = FALSE))
  pids <- unlist(future::value(fs))
  tools::pskill(pids[1L], tools::SIGKILL)
  Sys.sleep(0.3)
  set.seed(14)
  f <- run_kernel(iid_kernel(), iter = 50, chains = 2, backend = "future", progress = FALSE)
  set.seed(14)
  expect_true(fault_same_fit(f, run_kernel(iid_kernel(), iter = 50, chains = 2,
                                           progress = FALSE)))
})
