# Backends of the chain driver (R/chains.R): sequential, forked cores and
# future runners, which catch interrupts and failures of single chains and
# stop the others at their next chunk boundary; and the progress line.

# ---------------------------------------------------------------------------
# Backends
# ---------------------------------------------------------------------------

resolve_backend <- function(backend, cores, chains) {
  choices <- c("auto", "sequential", "parallel", "future")
  i <- if (is.character(backend) && length(backend) == 1L && !is.na(backend))
    pmatch(backend, choices) else NA_integer_
  if (is.na(i))
    stop(sprintf("`backend` should be one of %s, not %s.",
                 paste0("\"", choices, "\"", collapse = ", "), describe_value(backend)),
         call. = FALSE)
  backend <- choices[i]
  if (backend == "auto") {
    backend <- if (cores > 1L && chains > 1L) "parallel" else "sequential"
    if (cores == 1L && chains > 1L && future_plan_is_set()) backend <- "future"
  }
  if (backend == "future" && !requireNamespace("future", quietly = TRUE))
    stop("`backend = \"future\"` needs the future package; install it ",
         "or use `cores =` for local parallel chains.", call. = FALSE)
  backend
}

future_plan_is_set <- function() {
  requireNamespace("future", quietly = TRUE) &&
    !inherits(future::plan(), "sequential")
}

# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------

# One line: chains done, draws (iterations, warm-up included) per second and
# time left. Interactive sessions redraw it in place about 5 times a second;
# otherwise a line goes to stderr every `mcmix_option("progress_interval")`
# seconds (and one at the end).
progress_reporter <- function(enabled, total, chains) {
  env <- new.env(parent = emptyenv())
  env$done <- 0
  env$chains_done <- 0L
  env$t0 <- proc.time()[[3L]]
  env$shown <- FALSE
  live <- interactive()
  interval <- if (live) 0.2 else mcmix_option("progress_interval")
  env$last <- if (live) -Inf else env$t0   # a log gets its first line after `interval`
  show <- function(final = FALSE) {
    now <- proc.time()[[3L]]
    if (!final && now - env$last < interval) return(invisible())
    env$last <- now
    el <- max(now - env$t0, 1e-9)
    rate <- env$done / el
    left <- if (rate > 0) (total - env$done) / rate else NA_real_
    line <- sprintf("mcmix: chains %d/%d done | %s/%s draws | %s draws/s | %s left",
                    env$chains_done, chains, format_count(env$done), format_count(total),
                    format_count(rate), if (final) "0 s" else format_eta(left))
    if (live) cat("\r", formatC(line, width = -78L), file = stderr(), sep = "")
    else cat(line, "\n", file = stderr(), sep = "")
    env$shown <- TRUE
  }
  list(
    add = function(n) if (enabled) { env$done <- env$done + n; show() },
    set = function(done, chains_done) if (enabled) {
      env$done <- done
      env$chains_done <- chains_done
      show()
    },
    chain_done = function() if (enabled) { env$chains_done <- env$chains_done + 1L; show() },
    close = function() if (enabled && total > 0) {
      show(final = TRUE)
      if (live) cat("\n", file = stderr())
    })
}

format_count <- function(x) {
  if (!is.finite(x)) return("?")
  if (abs(x) >= 1e15) return(format(x, digits = 3))
  format(round(x), big.mark = ",", scientific = FALSE, trim = TRUE)
}

format_eta <- function(s) {
  if (!is.finite(s)) return("?")
  s <- round(s)
  if (s < 60) return(sprintf("%d s", s))
  if (s < 3600) return(sprintf("%d:%02d min", s %/% 60, s %% 60))
  sprintf("%d:%02d h", s %/% 3600, (s %% 3600) %/% 60)
}

# Iterations (warm-up included) that chain `ch` still has to run.
chain_work_left <- function(ch, s) {
  if (is.null(ch)) return(as.double(s$burnin) + s$iter)
  max(0, as.double(s$burnin) - ch$warmup_done) + max(0, as.double(s$iter) - ch$iter_done)
}

# ---------------------------------------------------------------------------
# Running the chains on a backend
# ---------------------------------------------------------------------------
#
# Each runner returns one chain_run_safe() result per chain index, in order
# (status "died" for a worker that ended without a result). On an interrupt
# in the R session, or when one chain is interrupted or fails, the other
# chains are asked to stop at their next chunk boundary (a stop file in a
# private temporary directory, seen by local workers) and their results are
# still collected, so no completed chunk is lost.

run_chains_sequential <- function(fit, idx, new, reporter) {
  out <- vector("list", length(idx))
  stopped <- FALSE
  for (k in seq_along(idx)) {
    r <- NULL
    # Ctrl-C is served in the window only (R/chains_signals.R); one that
    # comes after the chain returned keeps it and stops the others
    tryCatch(with_sigint(r <- chain_run_safe(fit, idx[k], new, tick = reporter$add)),
             interrupt = function(e) stopped <<- TRUE)
    if (is.null(r)) r <- list(chain = NULL, status = "interrupted", condition = NULL)
    if (is.null(r$chain)) r$chain <- if (!new) fit$chains[[idx[k]]]
    out[[k]] <- r
    if (stopped || r$status != "done") break
    reporter$chain_done()
  }
  attr(out, "interrupted") <- stopped || any(vapply(out, function(r)
    identical(r$status, "interrupted"), logical(1)))
  out
}

run_dir_new <- function() {
  dir <- tempfile("mcmix-run-")
  dir.create(dir)
  dir
}

# Ask the chains of run directory `dir` to stop (the file `stop`). A forked
# worker that crashes (a segfault in compiled code) removes the session's
# whole temporary directory, the run directory with it: R's crash handler
# cleans it up in the child, which shares its name. The directory is made
# again (under the same name, so the session has its temporary directory
# back) rather than leaving a warning per request that could not be made.
run_dir_stop <- function(dir) {
  if (!dir.exists(dir)) dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  stopfile <- file.path(dir, "stop")
  if (!file.exists(stopfile)) file.create(stopfile, showWarnings = FALSE)
  invisible(NULL)
}

# Progress of chain i written by its worker (atomic rename, read by the parent).
progress_file_tick <- function(dir, i) {
  done <- 0
  f <- file.path(dir, sprintf("chain-%d.progress", i))
  function(n) {
    done <<- done + n
    tmp <- paste0(f, ".tmp")
    if (dir.exists(dir)) try(silent = TRUE, {   # gone when the session gave the chain up
      writeLines(format(done, scientific = FALSE), tmp)
      file.rename(tmp, f)
    })
  }
}

progress_files_read <- function(dir, idx) {
  sum(vapply(idx, function(i) {
    f <- file.path(dir, sprintf("chain-%d.progress", i))
    v <- suppressWarnings(tryCatch(as.numeric(readLines(f, n = 1L, warn = FALSE)),
                                   error = function(e) 0))
    if (length(v) == 1L && is.finite(v)) v else 0
  }, numeric(1)))
}

# Seconds the session waits, after a Ctrl-C, for the chains to stop at
# their next chunk boundary; then it takes each chain still running from
# its last checkpoint (or result file) and ends its worker. Checked with
# the other options of a run before its chains start (check_run_options(),
# R/options.R).
stop_wait <- function() mcmix_option("stop_wait")

# The Ctrl-C bookkeeping of a parallel runner; `stop` asks the running
# chains to stop (the run directory's stop request). $on_interrupt is the
# interrupt handler; $late() is TRUE once the chains have had stop_wait()
# seconds since the first Ctrl-C; $give_up() after a second Ctrl-C or when
# late (the runner then takes the chains still running from their result
# files or checkpoints); $interrupted() whether a Ctrl-C came. The wait is
# read when the ledger is made, before the chains start: serving a Ctrl-C
# reads no option.
interrupt_ledger <- function(stop) {
  n <- 0L
  t_stop <- NA_real_
  wait <- stop_wait()
  late <- function() !is.na(t_stop) && proc.time()[[3L]] - t_stop > wait
  list(on_interrupt = function(e) {
         n <<- n + 1L
         if (is.na(t_stop)) t_stop <<- proc.time()[[3L]]
         stop()
       },
       late = late,
       give_up = function() n >= 2L || late(),
       interrupted = function() n > 0L)
}

# A runner's result for the k-th chain of `idx` that did not return one
# (status "died" or "interrupted"): the chain from its last checkpoint, or
# as it was before this run (`new`: a chain created by this run).
chain_lost <- function(dir, idx, k, new, fit, status, condition)
  list(chain = checkpoint_read(dir, idx[k], if (!new) fit$chains[[idx[k]]]),
       status = status, condition = condition)

# The number of runner results in `out` whose chain finished.
chains_done <- function(out) sum(vapply(out, function(r) identical(r$status, "done"), logical(1)))

# Forked workers: each leaves the terminal's process group first (its
# SIGINT is held back from the fork on, R/chains_signals.R) and is stopped
# through the run directory; it saves checkpoints as a future worker does
# (R/chains_checkpoint.R). The session polls the workers with SIGINT held
# back and serves Ctrl-C while it waits between two polls.
run_chains_forked <- function(fit, idx, new, cores, reporter) {
  dir <- run_dir_new()
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  stopfile <- file.path(dir, "stop")
  stop_all <- function() run_dir_stop(dir)
  interval <- checkpoint_interval()
  work <- function(i) {
    worker_detach()
    h <- worker_hooks(dir, i, interval)
    chain_run_safe(fit, i, new, tick = h$tick, stop_requested = h$stop_requested,
                   checkpoint = h$checkpoint)
  }
  lost <- function(k, status, condition) chain_lost(dir, idx, k, new, fit, status, condition)
  out <- vector("list", length(idx))
  pending <- seq_along(idx)
  jobs <- list()   # k (position in idx) -> mcparallel job
  kill_jobs <- function() {
    left <- vapply(jobs, function(j) j$pid, integer(1))
    if (length(left)) {
      tools::pskill(left, tools::SIGKILL)
      suppressWarnings(parallel::mccollect(jobs, wait = TRUE))
    }
    jobs <<- list()
  }
  on.exit(kill_jobs(), add = TRUE, after = FALSE)   # never leave workers behind
  ctrl_c <- interrupt_ledger(stop_all)
  while (length(pending) || length(jobs)) {
    tryCatch({
      while (length(pending) && length(jobs) < cores && !file.exists(stopfile)) {
        k <- pending[1L]
        pending <- pending[-1L]
        jobs[[as.character(k)]] <- without_sigint(parallel::mcparallel(
          work(idx[k]), name = as.character(k), mc.set.seed = FALSE, silent = FALSE))
      }
      if (file.exists(stopfile)) pending <- integer()
      # a dead worker is reported below, naming its chain (not by mccollect's warning)
      res <- if (length(jobs))
        suppressWarnings(parallel::mccollect(jobs, wait = FALSE, timeout = 0))
      for (nm in names(res)) {   # results are named by job name: k
        k <- as.integer(nm)
        r <- res[[nm]]
        if (!is.list(r) || is.null(r$status))
          r <- lost(k, "died", simpleError(if (inherits(r, "try-error"))
            conditionMessage(attr(r, "condition")) else
              "the worker process ended without returning a result"))
        out[[k]] <- r
        jobs[[nm]] <- NULL
        if (r$status != "done") stop_all()
      }
      reporter$set(progress_files_read(dir, idx), chains_done(out))
      if (length(jobs)) with_sigint(Sys.sleep(0.05))
    }, interrupt = ctrl_c$on_interrupt)
    # a second Ctrl-C, or chains that do not stop in time: give them up
    # (their checkpoints are kept)
    if (length(jobs) && ctrl_c$give_up()) {
      ks <- as.integer(names(jobs))
      kill_jobs()
      for (k in ks) out[[k]] <- lost(k, "interrupted", NULL)
      pending <- integer()
    }
  }
  attr(out, "interrupted") <- ctrl_c$interrupted()
  out
}

# Chains as futures, at most as many at a time as the plan has free workers
# (creating a future blocks while none is free). The session talks to the
# workers (creating, polling and collecting futures) with SIGINT held back,
# so that no message is cut by a Ctrl-C, and serves Ctrl-C while it waits
# between two polls (R/chains_signals.R). The workers of a cluster plan
# (multisession, PSOCK) leave the terminal's process group before they get
# a chain (future_detach_workers()), so a Ctrl-C reaches the session only;
# its first Ctrl-C asks every chain to stop at its next chunk boundary and
# waits for their results, at most `mcmix_option("stop_wait")`
# seconds: a chain still running then (a worker that cannot see the stop
# request) is taken from its result file or last checkpoint
# (R/chains_checkpoint.R) and the plan's workers are restarted. A second
# Ctrl-C gives up the chains still running at once, keeping their last
# checkpoints. A future that fails, when it is created or later (its
# worker died), gives status "died" and the chain's last checkpoint.
run_chains_future <- function(fit, idx, new, reporter, progress) {
  if (inherits(future::plan(), "sequential"))   # futures evaluated at creation
    return(run_chains_sequential(fit, idx, new, reporter))
  dir <- run_dir_new()
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  stopfile <- file.path(dir, "stop")
  # workers of a cluster plan also hear the stop request through their
  # connection (R/chains_remote.R), which is all a worker on another
  # machine hears; `mcmix.worker_files = FALSE` makes local workers behave
  # as remote ones (they are given no run directory: the tests of that path)
  socket <- inherits(future::plan(), "cluster")
  wdir <- if (!mcmix_option("worker_files")) file.path(dir, "remote") else dir
  told <- integer()   # chains (k) asked to stop through their connection
  stop_all <- function() {
    run_dir_stop(dir)
    if (socket) for (k in setdiff(waiting, told)) {
      remote_stop_send(fs[[k]], basename(wdir))
      told <<- c(told, k)
    }
  }
  interval <- checkpoint_interval()
  use_progressr <- progress && requireNamespace("progressr", quietly = TRUE)
  p <- if (use_progressr)
    progressr::progressor(steps = 1, initiate = FALSE, auto_finish = FALSE,
                          on_exit = FALSE, enable = TRUE)
  globals <- user_globals(fit)   # what the user's functions need (R/chains_globals.R)
  launch <- function(i)
    # the chain's own stream is installed by chain_run_safe(); `seed` only
    # tells future that the worker uses random numbers
    future::future(future_chain_run(fit, i, new, dir, interval, p, globals, socket),
                   seed = fit$streams[[i]], packages = unique(c("mcmix", globals$packages)),
                   globals = list(future_chain_run = future_chain_run, fit = fit, i = i,
                                  new = new, dir = wdir, interval = interval, p = p,
                                  globals = globals$objects, socket = socket))
  on_progress <- function(c) {
    if (use_progressr && identical(c$progressor_uuid, environment(p)$progressor_uuid) &&
        identical(c$type, "update")) {
      reporter$add(c$amount)
      tryInvokeRestart("muffleProgression")
    }
  }
  lost <- function(k, status, condition) chain_lost(dir, idx, k, new, fit, status, condition)
  out <- vector("list", length(idx))
  fs <- list()
  pending <- seq_along(idx)
  waiting <- integer()
  restart <- FALSE   # a worker was given up while it held a chain: restart the plan
  poll <- function() {
    reap_abandoned()
    for (k in waiting) {
      ok <- tryCatch(future::resolved(fs[[k]]), error = identity)
      if (isFALSE(ok)) next
      r <- if (inherits(ok, "error")) ok else tryCatch(future::value(fs[[k]]), error = identity)
      if (inherits(r, "error") || !is.list(r) || is.null(r$status)) {
        # the result as the worker saved it, else the chain's last checkpoint
        saved <- result_read(dir, idx[k])
        r <- if (!is.null(saved)) saved else lost(k, "died", if (inherits(r, "error")) r else
          simpleError("the worker returned no result"))
        if (is.null(saved)) restart <<- TRUE
      }
      out[[k]] <<- r
      waiting <<- setdiff(waiting, k)
      if (r$status != "done") stop_all() else reporter$chain_done()
    }
    if (file.exists(stopfile)) pending <<- integer()
    while (length(pending) && free_workers() > 0L) {
      k <- pending[1L]
      pending <<- pending[-1L]
      f <- tryCatch(launch(idx[k]), error = identity)
      if (inherits(f, "error")) {   # a worker died while the chain was sent to it
        out[[k]] <<- lost(k, "died", f)
        restart <<- TRUE
        stop_all()
        pending <<- integer()
        break
      }
      fs[[k]] <<- f
      waiting <<- c(waiting, k)
    }
  }
  ctrl_c <- interrupt_ledger(function() {
    stop_all()
    pending <<- integer()
  })
  tryCatch(future_detach_workers(), interrupt = ctrl_c$on_interrupt)
  while (length(pending) || length(waiting)) {
    withCallingHandlers(tryCatch({
      poll()
      if (!use_progressr)
        reporter$set(progress_files_read(dir, idx), chains_done(out))
      if (length(pending) || length(waiting)) with_sigint(Sys.sleep(0.05))
    }, interrupt = ctrl_c$on_interrupt), progression = on_progress)
    if (!length(waiting)) next
    late <- ctrl_c$late()
    if (ctrl_c$give_up()) {
      # give up the chains still running: from their result files or checkpoints
      for (k in waiting) {
        saved <- result_read(dir, idx[k])
        out[[k]] <- if (!is.null(saved)) saved else lost(k, "interrupted", NULL)
      }
      if (late) restart <- TRUE   # workers that do not answer
      else abandoned$futures <- c(abandoned$futures, fs[waiting])
      waiting <- integer()
    }
  }
  if (restart) future_restart_workers()
  attr(out, "interrupted") <- ctrl_c$interrupted()
  out
}

# Workers of a cluster plan (multisession, PSOCK) leave the terminal's
# process group (R/chains_signals.R) before they get a chain: one small
# future per free worker (each goes to a different free worker), waited
# for at most `stop_wait()` seconds. Workers that do not answer are
# restarted. Other plans start a process per future, which leaves the
# group in future_chain_run().
future_detach_workers <- function() {
  if (!inherits(future::plan(), "cluster")) return(invisible(NULL))
  n <- free_workers()
  fs <- lapply(seq_len(n), function(j) tryCatch(
    future::future(worker_detach(), packages = "mcmix", seed = FALSE,
                   globals = list(worker_detach = worker_detach)), error = identity))
  t0 <- proc.time()[[3L]]
  wait <- stop_wait()
  left <- which(!vapply(fs, inherits, logical(1), "error"))
  interrupted <- NULL
  while (length(left) && proc.time()[[3L]] - t0 < wait) {
    done <- vapply(fs[left], function(f) !isFALSE(tryCatch(future::resolved(f),
                                                           error = function(e) TRUE)), logical(1))
    for (f in fs[left[done]]) tryCatch(future::value(f), error = function(e) NULL)
    left <- left[!done]
    if (length(left))   # a Ctrl-C here is kept for the caller, after the workers answered
      tryCatch(with_sigint(Sys.sleep(0.01)), interrupt = function(e) interrupted <<- e)
  }
  if (length(left) || any(vapply(fs, inherits, logical(1), "error"))) future_restart_workers()
  if (!is.null(interrupted)) signalCondition(interrupted)
  invisible(NULL)
}

# Restart the workers of the current plan (workers whose connection is out
# of step, or that did not answer); the plan stays usable.
future_restart_workers <- function() {
  tryCatch({
    stack <- future::plan("list")
    future::plan(stack, .cleanup = TRUE)
  }, error = function(e) NULL)
  invisible(NULL)
}

# Local cores without fork() (Windows, or `options(mcmix.fork = FALSE)`):
# chains run as futures on a temporary multisession plan, with the stop
# requests, progress, checkpoints and failures of run_chains_future() (its
# workers are started with SIGINT held back: a Ctrl-C does not reach them);
# on a PSOCK cluster with the same machinery (run_chains_socket(),
# R/chains_psock.R) when the future package is not installed (or with
# `options(mcmix.psock_future = FALSE)`, for the tests).
run_chains_psock <- function(fit, idx, new, cores, reporter, progress) {
  workers <- min(cores, length(idx))
  # the workers start with SIGINT held back (they inherit it: a Ctrl-C
  # does not reach them); one in the meantime is served once they run
  # (not inside the future package, which could take it for its own).
  # Starting a process (system()) drops a held-back SIGINT: one already
  # there stops the run now.
  # A forked watcher, which lets SIGINT through, hears a Ctrl-C while
  # they start.
  none_run <- function()
    structure(lapply(idx, function(i) list(chain = if (!new) fit$chains[[i]],
                                           status = "interrupted", condition = NULL)),
              interrupted = TRUE)
  watch <- sigint_watcher()
  if (isTRUE(sigint_call(7L))) {
    watch$stop()
    return(none_run())
  }
  if (mcmix_option("psock_future") && requireNamespace("future", quietly = TRUE)) {
    oplan <- future::plan(future::multisession, workers = workers)
    on.exit(future::plan(oplan), add = TRUE)
    if (watch$stop()) return(none_run())
    return(run_chains_future(fit, idx, new, reporter, progress))
  }
  cl <- tryCatch(parallel::makePSOCKcluster(workers), error = identity)
  heard <- watch$stop()
  if (inherits(cl, "error"))
    stop(sprintf("`cores` = %d: the local worker processes could not be started (%s).",
                 cores, conditionMessage(cl)), call. = FALSE)
  on.exit(socket_cluster_stop(cl), add = TRUE)
  if (heard) return(none_run())
  run_chains_socket(cl, fit, idx, new, reporter)
}

can_fork <- function() .Platform$OS.type != "windows" && mcmix_option("fork")

# Futures given up by a second Ctrl-C: their workers stay busy until they
# end (a local one at its next chunk, seeing its run directory gone). The
# future package counts them as running until their result is collected,
# which the next runs do here.
abandoned <- new.env(parent = emptyenv())
abandoned$futures <- list()

reap_abandoned <- function() {
  keep <- vapply(abandoned$futures, function(f) {
    done <- tryCatch(future::resolved(f), error = function(e) TRUE)
    if (isTRUE(done))   # (its conditions are not the current run's)
      tryCatch(suppressWarnings(suppressMessages(future::value(f))), error = function(e) NULL)
    !isTRUE(done)
  }, logical(1))
  abandoned$futures <- abandoned$futures[keep]
  invisible(NULL)
}

# Workers of the current future plan free to take a chain now (1 when
# the plan cannot tell).
free_workers <- function() {
  n <- tryCatch(future::nbrOfFreeWorkers(), error = function(e) 1L)
  if (is.numeric(n) && length(n) == 1L && !is.na(n)) n else 1L
}
