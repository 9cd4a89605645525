# The interrupt sweep across backends (test-interrupt-sweep.R: a fixed
# sample; tools/interrupts.R: the full sweep). A terminal's Ctrl-C is
# SIGINT to the whole foreground process group: the session and every
# worker it started. Here the session is a child R process in its own
# session and process group (setsid), and the sweep sends SIGINT to that
# group at a random time of a run, in one of its phases: "dispatch" (the
# chains being sent or forked), "sampling", "collection" (the chains being
# collected and the sampler's own code) and "return" (the moment it
# returns). The child checks what it got: a fit (partial or complete) with
# a warning, never an escaped interrupt or an error; counters equal to the
# stored draws; extend(fit, 0) identical to the uninterrupted run. The
# sweep itself checks that the call returned within 10 s of the signal.

# "cluster": a future cluster plan on a PSOCK cluster of
# parallel::makeCluster(); "remote": the same with workers that do not see
# the session's files (as on another machine: the stop request reaches
# them through their connection only); "socket": cores = 2 without fork
# on a PSOCK cluster without the future package.
sweep_backends <- c("future", "cores", "psock", "socket", "cluster", "remote", "sequential")

# The runs interrupted (in the child): each a function(backend_args)
# whose first call builds its inputs, so that in the timed calls the
# signal finds the session in the package's function, not in the making of
# its arguments (a Ctrl-C there interrupts the caller's own code). `s` is a
# global variable of the target, as written at the console: future workers
# must receive it.
sweep_cases <- function() list(
  nuts = local({
    args <- NULL
    function(backend_args) {
      if (is.null(args)) {
        assign("s", seq(1, 5, length.out = 10), envir = globalenv())
        tg <- eval(quote(target(function(x) -sum((x / s)^2) / 2,
                                gradient = function(x) -x / s^2)), globalenv())
        args <<- c(list(tg, init = rep(1, 10), iter = 1000, burnin = 300, chains = 2,
                        progress = FALSE), backend_args)
      }
      do.call(sample_nuts, args)
    }
  }),
  lca = local({
    args <- NULL
    function(backend_args) {
      if (is.null(args)) {
        d <- data.frame(q1 = rep(c("yes", "no", "yes", "no"), c(80, 20, 20, 80)),
                        q2 = rep(c("a", "b", "a", "b"), c(70, 30, 30, 70)),
                        q3 = rep(c("u", "v", "w", "u"), c(50, 50, 40, 60)))
        args <<- c(list(d, K = 3, iter = 1050, burnin = 350, chains = 2, progress = FALSE),
                   backend_args)
      }
      do.call(lca, args)
    }
  }))

# The child session: run `case` on `backend` once uninterrupted, then
# `trials` times, each started when the sweep says so (file go-j) and
# checked after the sweep has sent its signal (file ack-j).
sweep_child <- function(dir, backend, case, trials, seed) {
  suppressPackageStartupMessages(library(mcmix))
  writeLines(as.character(Sys.getpid()), file.path(dir, "pid.tmp"))
  file.rename(file.path(dir, "pid.tmp"), file.path(dir, "pid"))
  args <- switch(backend,
    future = { future::plan(future::multisession, workers = 2); list(backend = "future") },
    cores = list(cores = 2, backend = "parallel"),
    psock = { options(mcmix.fork = FALSE); list(cores = 2, backend = "parallel") },
    socket = {
      options(mcmix.fork = FALSE, mcmix.psock_future = FALSE)
      list(cores = 2, backend = "parallel")
    },
    cluster = , remote = {
      if (backend == "remote") options(mcmix.worker_files = FALSE)
      future::plan(future::cluster, workers = parallel::makeCluster(2))
      list(backend = "future")
    },
    sequential = list(backend = "sequential"))
  run <- sweep_cases()[[case]]
  wait_for <- function(f) while (!file.exists(f)) Sys.sleep(0.005)
  put <- function(name, value) {
    saveRDS(value, file.path(dir, paste0(name, ".tmp")))
    file.rename(file.path(dir, paste0(name, ".tmp")), file.path(dir, name))
  }
  kind0 <- RNGkind()   # the session's generator must come out of every trial as it went in
  # a trial's start marker is written when the package's interrupt guard
  # is set (a Ctrl-C before it interrupts the caller's own code, as it
  # would the making of any other call's arguments)
  trace("interrupt_guard", where = asNamespace("mcmix"), print = FALSE, exit = quote({
    sweep_start <- get0(".mcmix_sweep_start", envir = globalenv())
    if (is.character(sweep_start) && !file.exists(sweep_start)) writeLines("", sweep_start)
  }))
  set.seed(seed)
  ref <- run(args)   # (a first run loads what the workers need)
  set.seed(seed)
  t0 <- proc.time()[[3L]]
  run(args)
  put("ready", proc.time()[[3L]] - t0)
  late <- 0L
  late_trial <- FALSE
  # an interrupt outside the call (after it returned) is counted, not fatal
  withCallingHandlers(for (j in seq_len(trials)) {
    wait_for(file.path(dir, sprintf("go-%d", j)))
    warns <- character()
    fit <- NULL
    late_trial <- FALSE
    set.seed(seed)
    assign(".mcmix_sweep_start", file.path(dir, sprintf("start-%d", j)), envir = globalenv())
    how <- tryCatch(withCallingHandlers({
      fit <- run(args)
      "returned"
    }, warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    }), interrupt = function(e) if (is.null(fit)) "escaped" else "late",
    error = function(e) paste("error:", conditionMessage(e)))
    if (identical(how, "late")) late_trial <- TRUE
    writeLines("", file.path(dir, sprintf("end-%d", j)))
    wait_for(file.path(dir, sprintf("ack-%d", j)))
    Sys.sleep(0.05)   # a signal sent just before the ack is served before the checks
    r <- if (inherits(fit, "mcmix_fit")) {
      # (the draws do not depend on the backend: checked sequentially)
      g <- suppressWarnings(extend(fit, 0, progress = FALSE, backend = "sequential"))
      list(outcome = if (isTRUE(fit$interrupted)) "partial" else "complete",
           warned = any(grepl("interrupted|Ctrl-C", warns)) || late_trial,
           counters = fault_counters_ok(fit), same = fault_same_fit(g, ref))
    } else list(outcome = how, warned = FALSE, counters = FALSE, same = FALSE)
    r$rng <- identical(RNGkind(), kind0)
    put(sprintf("result-%d", j), r)
  }, interrupt = function(c) {
    late <<- late + 1L
    late_trial <<- TRUE
    invokeRestart("resume")
  })
  put("done", late)
}

# Run a sweep: `trials` runs of `case` on `backend` in one child session,
# each signalled at a random time of a phase drawn from `phases` (taken in
# turn when there is one per trial).
# Returns a data frame, one row per trial.
sweep_run <- function(backend, case, trials, phases = c("dispatch", "sampling", "collection",
                                                        "return"),
                      seed = 1L, helpers = c(test_path("helper-faults.R"),
                                             test_path("helper-interrupt-sweep.R"))) {
  dir <- tempfile("mcmix-sweep-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  helpers <- normalizePath(helpers)
  expr <- sprintf(paste0("%s; sweep_child(%s, %s, %s, %dL, %dL)"),
                  paste(sprintf("source(\"%s\")", helpers), collapse = "; "),
                  deparse(dir), deparse(backend), deparse(case), as.integer(trials),
                  as.integer(seed))
  rscript <- file.path(R.home("bin"), "Rscript")
  log <- file.path(dir, "log")
  system2("setsid", c(shQuote(rscript), "-e", shQuote(expr)), wait = FALSE,
          stdout = log, stderr = log, env = "NOT_CRAN=true")
  has <- function(name) file.exists(file.path(dir, name))
  wait_for <- function(name, limit) {
    t0 <- proc.time()[[3L]]
    while (!has(name) && proc.time()[[3L]] - t0 < limit) Sys.sleep(0.005)
    has(name)
  }
  pgid <- NA_integer_
  on.exit(if (!is.na(pgid)) system2("kill", c("-KILL", "--", -pgid), stdout = FALSE, stderr = FALSE),
          add = TRUE, after = FALSE)
  fail <- function(why) stop(sprintf("sweep %s/%s: %s\n%s", backend, case, why,
                                     paste(if (has("log")) readLines(log), collapse = "\n")),
                             call. = FALSE)
  if (!wait_for("pid", 60)) fail("the child session did not start")
  pgid <- as.integer(readLines(file.path(dir, "pid")))
  if (!wait_for("ready", 120)) fail("the uninterrupted run did not end")
  T <- readRDS(file.path(dir, "ready"))
  set.seed(seed)
  rows <- vector("list", trials)
  durations <- T
  for (j in seq_len(trials)) {
    # the phases in turn when there is one per trial, else drawn at random;
    # the run time is re-estimated from the runs that were not stopped
    phase <- if (length(phases) == trials) phases[j] else
      phases[sample.int(length(phases), 1L)]
    T <- stats::median(durations)
    delay <- switch(phase,
      dispatch = stats::runif(1, 0, min(0.2, 0.15 * T)),
      sampling = stats::runif(1, 0.2 * T, 0.8 * T),
      collection = stats::runif(1, 0.85 * T, 1.0 * T),
      "return" = stats::runif(1, 0.97 * T, 1.1 * T))
    writeLines("", file.path(dir, sprintf("go-%d", j)))
    if (!wait_for(sprintf("start-%d", j), 60)) fail(sprintf("trial %d did not start", j))
    t_start <- proc.time()[[3L]]
    while (proc.time()[[3L]] - t_start < delay && !has(sprintf("end-%d", j))) Sys.sleep(0.002)
    signalled <- !has(sprintf("end-%d", j))
    t_sig <- proc.time()[[3L]]
    if (signalled) mcmix:::signal_group(pgid)   # as a Ctrl-C at a terminal
    ended <- wait_for(sprintf("end-%d", j), 20)
    t_end <- proc.time()[[3L]]
    secs <- t_end - t_sig
    writeLines("", file.path(dir, sprintf("ack-%d", j)))
    if (!ended) {
      rows[[j]] <- data.frame(backend = backend, case = case, trial = j, phase = phase,
                              delay = delay, signalled = signalled, secs = secs,
                              outcome = "hang", warned = FALSE, counters = FALSE,
                              same = FALSE, rng = FALSE)
      break
    }
    if (!wait_for(sprintf("result-%d", j), 120)) fail(sprintf("trial %d gave no result", j))
    r <- readRDS(file.path(dir, sprintf("result-%d", j)))
    if (!signalled || r$outcome == "complete") durations <- c(durations, t_end - t_start)
    rows[[j]] <- data.frame(backend = backend, case = case, trial = j, phase = phase,
                            delay = delay, signalled = signalled, secs = if (signalled) secs
                            else NA_real_, outcome = r$outcome, warned = r$warned,
                            counters = r$counters, same = r$same, rng = isTRUE(r$rng))
  }
  wait_for("done", 30)
  do.call(rbind, rows)
}

# A trial is right when the call returned within 10 s of the signal with a
# fit (partial or complete) whose counters match its draws and whose
# extend(fit, 0) is the uninterrupted run, with a warning when it was
# signalled before the call returned (`warned` is also TRUE for a signal
# that the child saw after the return).
sweep_ok <- function(r) {
  r$outcome %in% c("partial", "complete") & r$counters & r$same & r$rng &
    (is.na(r$secs) | r$secs <= 10) & (!r$signalled | r$warned)
}
