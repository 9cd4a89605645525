# Short runs of every sampler, for the interrupt sweep (test-interrupt.R,
# tools/interrupts.R): each entry builds a small fit whose kernel and run
# settings are then re-run with interrupts (helper-faults.R).
interrupt_cases <- function() {
  x1 <- c(-2.1, -1.9, -2.3, 1.8, 2.2, 2.0, 2.4, -1.7)
  tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)
  rho <- 0.8
  cond <- list(function(th) stats::rnorm(1, rho * th[2], sqrt(1 - rho^2)),
               function(th) stats::rnorm(1, rho * th[1], sqrt(1 - rho^2)))
  xp <- seq(-2, 2, length.out = 30)
  yp <- rep(0:1, each = 15)
  gx <- rep(1:4, each = 6)
  xl <- seq(-1, 1, length.out = 24)
  yl <- 1 + 2 * xl + 0.1 * sin(1:24)
  docs <- list(c(1, 1, 2, 2, 1), c(3, 4, 4, 3), c(1, 2, 3, 4, 1, 2))
  groups <- list(a = c(-4.2, -3.9, 0.1, 0.3), b = c(0.2, -0.1, 3.8, 4.1))
  ym <- matrix(c(-1, 1), 4, 4) + 0.3 * sin(1:16)
  lc <- data.frame(q1 = rep(c("yes", "no", "yes", "no"), c(8, 2, 2, 8)),
                   q2 = rep(c("a", "b", "a", "b"), c(7, 3, 3, 7)))
  rfam <- r_family(log_lik = function(x, theta) stats::dnorm(x, theta, 1, log = TRUE),
                   log_prior = function(theta) stats::dnorm(theta, 0, 3, log = TRUE),
                   prior_draw = function() stats::rnorm(1, 0, 3), dim_param = 1)
  pfam <- product_family(v = gaussian_diag(), s = bernoulli_beta())
  pdf <- data.frame(v = x1, s = x1 > 0)
  pdf$v[3] <- NA
  xm <- cbind(x1, rev(x1))
  xm[2, 2] <- NA
  q <- function(expr) suppressWarnings(suppressMessages(expr))
  list(
    mh = function() q(sample_mh(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 60,
                                burnin = 20, thin = 2)),
    slice = function() q(sample_slice(function(x) -x^2 / 2, init = 0, iter = 60, burnin = 10)),
    hmc = function() q(sample_hmc(tg, init = c(1, 1), iter = 40, burnin = 20, n_steps = 3)),
    tempering = function() q(sample_tempering(function(x) -x^2 / 2, function(x) 0, init = 0,
                                              temperatures = c(1, 0.5), iter = 40, burnin = 10)),
    gibbs = function() q(sample_gibbs(cond, init = c(x = 0, y = 0), iter = 40, burnin = 10)),
    dp_collapsed = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                                 burnin = 10, psm = TRUE,
                                                 algorithm = "collapsed")),
    dp_neal8 = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                             burnin = 10, algorithm = "neal8")),
    dp_slice = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                             burnin = 10, algorithm = "slice", psm = TRUE)),
    dp_split_merge = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                                   burnin = 10, algorithm = "split_merge")),
    finite = function() q(sample_posterior(finite_mixture(gaussian_niw(), K = 2), x1,
                                           iter = 40, burnin = 10, thin = 3)),
    hdp = function() q(sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)),
                                        groups, iter = 40, burnin = 10, progress = FALSE)),
    lda = function() q(sample_posterior(lda_model(K = 2, alpha = 0.5, beta = 0.1), docs,
                                        vocab = c("a", "b", "c", "d"), iter = 40, burnin = 10,
                                        progress = FALSE)),
    probit = function() q(probit_gibbs(yp ~ xp, data = data.frame(xp = xp, yp = yp), iter = 40,
                                       burnin = 10)),
    gp_classify = function() q(gp_classify(xp, yp, iter = 40, burnin = 10)),
    ising = function() q(ising_swendsen_wang(4, 4, J = 0.5, iter = 40, burnin = 10)),
    hier_lm = function() q(hier_lm_gibbs(cbind(1, xl), yl, gx, iter = 40, burnin = 10)),
    nuts = function() q(sample_nuts(tg, init = c(1, 1), iter = 40, burnin = 20)),
    logit = function() q(logit_gibbs(yp ~ xp, data = data.frame(xp = xp, yp = yp), iter = 40,
                                     burnin = 10)),
    ising_gibbs = function() q(ising_gibbs(J = 0.5, evidence = list(y = ym, sigma = 1),
                                           iter = 40, burnin = 10)),
    bayes_net = function() q(sample_posterior(bayes_net_asia(), list(dysp = "yes"), iter = 40,
                                              burnin = 10, progress = FALSE,
                                              blocks = list(c("tub", "lung", "either")))),
    lca = function() q(lca(lc, K = 2, iter = 40, burnin = 10, progress = FALSE)),
    rj_collapsed = function() q(sample_posterior(rj_mixture(k_max = 4), x1, iter = 40,
                                                 burnin = 10, progress = FALSE, psm = TRUE)),
    rj_rg = function() q(sample_posterior(rj_mixture(rg_prior(), k_max = 4), x1, iter = 40,
                                          burnin = 10, progress = FALSE)),
    dp_subcluster = function() q(sample_posterior(dp_mixture(gaussian_niw()), x1, iter = 40,
                                                  burnin = 10, algorithm = "subcluster")),
    dp_nonconj = function() q(sample_posterior(dp_mixture(gaussian_nonconj()), x1, iter = 40,
                                               burnin = 10, algorithm = "neal8")),
    dp_r_family = function() q(sample_posterior(dp_mixture(rfam), x1[1:5], iter = 20,
                                                burnin = 5, algorithm = "neal8")),
    dp_product_impute = function() q(sample_posterior(dp_mixture(pfam), pdf, iter = 30,
                                                      burnin = 10, psm = TRUE)),
    dp_impute = function() q(sample_posterior(dp_mixture(gaussian_niw()), xm, iter = 30,
                                              burnin = 10)),
    finite_weights = function() q(sample_posterior(finite_mixture(gaussian_niw(), K = 2), x1,
                                                   iter = 40, burnin = 10,
                                                   algorithm = "collapsed_weights")),
    finite_gibbs = function() q(sample_posterior(finite_mixture(poisson_gamma(), K = 2),
                                                 c(0, 1, 0, 7, 9, 8, 1, 6), iter = 40,
                                                 burnin = 10, algorithm = "gibbs")),
    finite_product = function() q(sample_posterior(finite_mixture(pfam, K = 2), pdf,
                                                   iter = 30, burnin = 10))
  )
}

# The run settings of a fit, for run_kernel().
interrupt_settings <- function(fit, chains = 2L) {
  s <- fit$settings
  list(iter = s$iter, burnin = s$burnin, thin = s$thin, chains = chains,
       labels = s$labels, psm = s$psm, model = fit$model, data = fit$data)
}

# Interrupt `case` (a fit) at step call k (sequential, forked cores or a
# future backend); returns a list of checks.
interrupt_check <- function(fit0, k, cores = 1L, where = "before", seed = 11L,
                            backend = "auto") {
  st <- interrupt_settings(fit0)
  kernel <- mcmix:::fit_kernel(fit0)   # bound to its data: the wrapper keeps its step
  set.seed(seed)
  ref <- do.call(run_kernel, c(list(kernel, progress = FALSE), st))
  f <- do.call(fault_interrupted_run, c(list(kernel, k, seed, where = where,
                                             cores = cores, backend = backend), st))
  g <- suppressWarnings(extend(f, 0, cores = cores, backend = backend, progress = FALSE))
  list(interrupted = isTRUE(f$interrupted), warned = !is.null(attr(f, "warning")),
       counters = fault_counters_ok(f), same = fault_same_fit(g, ref),
       completed = !isTRUE(g$interrupted), fit = f)
}

# Interrupt `fit0`'s run (two chains, sequential) at the start of chain 2,
# leaving chain 1 complete and chain 2 without draws, and run every method
# on the partial fit. Returns the problems found (character(0) when none):
# a method that fails, or a message about the partial fit not said exactly
# once by summary().
partial_methods_check <- function(fit0, seed = 11L) {
  st <- interrupt_settings(fit0)
  kernel <- mcmix:::fit_kernel(fit0)
  f <- do.call(fault_interrupted_run, c(list(kernel, k = NA, seed = seed, chain_start = 2L),
                                        st))
  class(f) <- class(fit0)
  for (nm in setdiff(names(fit0), c(names(f), "usable_view"))) f[[nm]] <- fit0[[nm]]
  problems <- character()
  if (!isTRUE(f$interrupted)) problems <- "not interrupted"
  if (!fault_counters_ok(f)) problems <- c(problems, "counters")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  try_method <- function(name, expr) {
    msgs <- character()
    ok <- tryCatch(withCallingHandlers({ force(expr); TRUE },
                                       message = function(m) {
                                         msgs <<- c(msgs, conditionMessage(m))
                                         invokeRestart("muffleMessage")
                                       }, warning = function(w) invokeRestart("muffleWarning")),
                   error = function(e) conditionMessage(e))
    if (!isTRUE(ok)) problems <<- c(problems, sprintf("%s: %s", name, ok))
    msgs
  }
  m <- try_method("summary", summary(f))
  if (sum(grepl("incomplete", m)) != 1L)
    problems <- c(problems, sprintf("summary said %d times that the run is incomplete",
                                    sum(grepl("incomplete", m))))
  try_method("print", utils::capture.output(print(f)))
  try_method("plot", plot(f))
  try_method("as.mcmc.list", stopifnot(coda::nchain(coda::as.mcmc.list(f)) == 1L))
  try_method("as.array", stopifnot(dim(as.array(f))[2L] == 1L))
  try_method("as_draws", posterior::as_draws(f))
  if (!is.null(f$chains[[1L]]$labels) && isTRUE(st$labels)) {
    try_method("psm", psm(f))
    try_method("partition", partition(f))
  }
  problems
}

# ---------------------------------------------------------------------------
# The set-up shared by test-interrupt.R (sequential and forked chains) and
# test-backends.R (future workers, local cores without fork())
# ---------------------------------------------------------------------------

# Two independent normals per iteration (chunk-invariant: iteration by
# iteration from the chain's stream). Chain `chain` (every chain when NULL)
# calls `hook(offset, warmup)` before each chunk.
iid_kernel <- function(hook = NULL, chain = 2L) {
  force(hook)   # (a promise would be evaluated in each worker)
  force(chain)
  new_kernel("iid_normal", init = function(chain) list(chain = chain),
    step = function(state, n, thin, offset, warmup) {
      if (!is.null(hook) && (is.null(chain) || state$chain == chain)) hook(offset, warmup)
      x <- matrix(stats::rnorm(2 * n), ncol = 2, byrow = TRUE,
                  dimnames = list(NULL, c("a", "b")))
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = x[keep, , drop = FALSE]))
    }, trace_names = c("a", "b"))
}

# A hook of iid_kernel() signalling the session `parent` with SIGINT (as a
# terminal or IDE would) at the first kept chunk from iteration `at` on,
# once (the file `flag` says it was sent); every chunk after the signal
# sleeps `slow` seconds, so that the run cannot end before the stop request
# reaches the workers.
session_interrupt_hook <- function(parent, flag, slow = 0, at = 8) {
  force(parent)   # (the flag must be the same file in every process)
  force(flag)
  force(slow)
  force(at)
  function(offset, warmup) {
    if (!warmup && offset >= at && !file.exists(flag)) {
      file.create(flag)
      tools::pskill(parent, tools::SIGINT)
    }
    if (file.exists(flag)) Sys.sleep(slow)
  }
}

# A hook of iid_kernel() killing its own process (as the out-of-memory
# killer would) at the first kept chunk from iteration `at` on, once.
dying_hook <- function(flag, at = 10) {
  force(flag)   # (the flag must be the same file in every process)
  force(at)
  function(offset, warmup) {
    if (!warmup && offset >= at && !file.exists(flag)) {
      file.create(flag)
      tools::pskill(Sys.getpid(), tools::SIGKILL)
    }
  }
}

# `expr` with its warnings muffled.
quiet_run <- function(expr) withCallingHandlers(expr, warning = function(w) {
  invokeRestart("muffleWarning")
})

# Every check of interrupt_check() holds.
expect_interrupt_ok <- function(r, label) {
  for (what in c("interrupted", "warned", "counters", "same", "completed"))
    expect_true(r[[what]], label = sprintf("%s (%s)", label, what))
}

# A run of `iter` iterations stopped by the session's Ctrl-C (a
# session_interrupt_hook()): interrupted, counters consistent, every chain
# short of `iter` and one past the signal's iteration.
expect_session_stop <- function(f, iter, at = 8L) {
  n <- vapply(f$chains, function(ch) ch$iter_done, 1L)
  expect_true(f$interrupted)
  expect_true(fault_counters_ok(f))
  expect_true(all(n < iter))
  expect_true(any(n >= at))
}

# The error of a run whose chain 2 died: named, with the fit of the other
# chains in the condition.
expect_chain_died <- function(e) {
  expect_s3_class(e, "mcmix_chain_error")
  expect_match(conditionMessage(e), "chain 2 died")
  expect_equal(e$chain, 2L)
  expect_true(fault_counters_ok(e$fit))
}

# extend(f, 0, ...) equals the uninterrupted sequential run of `kernel`
# (seed, iter, chains) and, for the checks, returns the completed fit.
expect_completes <- function(f, kernel, seed, iter, chains = 2L, ...) {
  set.seed(seed)
  ref <- run_kernel(kernel, iter = iter, chains = chains, progress = FALSE)
  g <- quiet_run(extend(f, 0, progress = FALSE, ...))
  expect_true(fault_same_fit(g, ref))
  invisible(g)
}

# A run of iid_kernel() (200 iterations, 2 chains) with its progress line
# on the settings `...`: the last line printed, and whether its draws equal
# those of the sequential run without progress.
progress_check <- function(seed, ...) {
  err <- utils::capture.output(type = "message", {
    set.seed(seed)
    fit <- run_kernel(iid_kernel(), iter = 200, chains = 2, progress = TRUE, ...)
  })
  set.seed(seed)
  ref <- run_kernel(iid_kernel(), iter = 200, chains = 2, progress = FALSE)
  list(last = err[length(err)], same = fault_same_fit(fit, ref))
}

# Call `f()` in a forked child that is sent SIGINT (as by Ctrl-C in a
# terminal) by a shell of its own `after` seconds later, so that the
# signal lands inside a long compiled loop f() runs. Returns
# "interrupted" (the loop checked and unwound), "returned" (f() came back
# without seeing it: a loop that ended early), "error: <message>", or "no
# answer" when the child neither returned nor stopped within `timeout`
# seconds (a loop that never checks; the child is then killed).
interrupt_long_call <- function(f, after = 0.5, timeout = 60) {
  job <- parallel::mcparallel({
    cmd <- sprintf("sleep %g; kill -INT %d", after, Sys.getpid())
    system2("sh", c("-c", shQuote(cmd)), wait = FALSE)
    tryCatch({
      f()
      "returned"
    }, interrupt = function(e) "interrupted",
    error = function(e) paste("error:", conditionMessage(e)))
  }, silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = timeout)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    suppressWarnings(parallel::mccollect(job, wait = TRUE))
    return("no answer")
  }
  r <- res[[1L]]
  if (!is.character(r)) "the child process died" else r
}
