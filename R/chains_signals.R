# The terminal's interrupt and the processes that run chains (src/ffi_signals.c).
#
# A Ctrl-C at a terminal sends SIGINT to every process of the terminal's
# foreground process group: the R session and, unless they left it, the
# workers it started (forked cores, multisession and PSOCK workers). A
# worker interrupted while it receives a chain or sends its result leaves
# its connection out of step: the chain is lost ("died") or the session
# waits for a message that never comes. So every worker leaves the group
# before it runs a chain (worker_detach()), and it is stopped by the stop
# request of its run directory instead (a chunk boundary, R/chains_backends.R).
# The session itself holds SIGINT back while it forks a worker or exchanges
# a message with one (without_sigint()): the Ctrl-C is served right after,
# never inside a message. On Windows these are no-ops.

# Without signal masks (Windows, or `options(mcmix.signals = FALSE)`) every
# action is a no-op returning FALSE; unblocking (2) still reaches the C
# side, so that SIGINT held back before the option was set is let through.
sigint_call <- function(action, arg = 0L) {
  if (action != 2L && !mcmix_option("signals")) return(FALSE)
  .Call(C_ffi_sigint, as.integer(action), as.integer(arg))
}

# Leave the terminal's process group (its own group, led by this process),
# dropping a SIGINT sent to the old group in the meantime. Called by a
# worker first thing; harmless when called again.
worker_detach <- function() invisible(sigint_call(3L))

# The process group of this process (NA where there is none).
process_group <- function() {
  g <- sigint_call(5L)
  if (is.integer(g)) g else NA_integer_
}

# Send SIGINT to process group `pgid`, as a terminal's Ctrl-C does (the
# interrupt sweep, tools/interrupts.R and test-interrupt-sweep.R).
signal_group <- function(pgid) isTRUE(sigint_call(6L, pgid))

# Evaluate `expr` with SIGINT blocked: a Ctrl-C in the meantime is
# delivered when it ends. A pending R interrupt is served first (in the
# caller's handlers), so that a forked child does not inherit it.
without_sigint <- function(expr) {
  if (isTRUE(sigint_call(4L))) return(expr)   # already held back (nested)
  if (!isTRUE(sigint_call(1L))) return(expr)  # no signal masks (Windows)
  on.exit(sigint_call(2L))
  serve_interrupts()   # one that arrived before the block is raised here
  expr
}

# ---------------------------------------------------------------------------
# Where a Ctrl-C is served
# ---------------------------------------------------------------------------
#
# In a run (run_kernel(), extend() and the samplers calling them) SIGINT is
# held back everywhere except in the windows where the runners wait for
# chains inside their interrupt handlers (with_sigint()): so a Ctrl-C never
# escapes between two handlers, in the collection of the chains or in the
# sampler's own code after the run, and never cuts a message to a worker.
# One held back until the sampler returns is served then and ignored (the
# run is complete), with a warning (guard_release()).

guard <- new.env(parent = emptyenv())

# Hold SIGINT back until the outermost function of the package on the call
# stack (above the innermost window) returns. No-op when it is already
# held, or without signal masks.
interrupt_guard <- function() {
  if (isTRUE(sigint_call(4L))) return(invisible(FALSE))
  frame <- guard_frame()
  if (is.null(frame) || !isTRUE(sigint_call(1L))) return(invisible(FALSE))
  do.call(base::on.exit, list(as.call(list(guard_release)), TRUE, FALSE), envir = frame)
  # should that frame lose its exit handlers (a later on.exit() without
  # `add`), SIGINT is let through again when the top-level call ends
  if (!"mcmix_sigint" %in% getTaskCallbackNames())
    addTaskCallback(function(...) {
      sigint_call(2L)
      FALSE
    }, name = "mcmix_sigint")
  invisible(TRUE)
}

guard_frame <- function() {
  ns <- topenv(environment(guard_frame))
  best <- NULL
  for (i in rev(seq_len(sys.nframe() - 2L))) {   # from the caller of interrupt_guard() out
    f <- sys.function(i)
    if (identical(f, with_sigint)) break
    e <- environment(f)
    if (!is.null(e) && identical(topenv(e), ns)) best <- i
  }
  if (!is.null(best)) sys.frame(best)
}

guard_release <- function() {
  late <- FALSE
  withCallingHandlers({
    sigint_call(2L)      # a Ctrl-C held back is delivered now
    serve_interrupts()
  }, interrupt = function(c) {
    late <<- TRUE
    invokeRestart("resume")
  })
  if (late) warn_interrupt_late()
  invisible(NULL)
}

warn_interrupt_late <- function()
  warn("Ctrl-C came after the chains had finished: the run is complete.",
       c("mcmix_warning_interrupt_late", "mcmix_warning_interrupt"))

# A window where a held-back Ctrl-C is served (inside the caller's
# interrupt handler): SIGINT is let through while `expr` runs, then held
# back again, and an interrupt that arrived in the meantime is raised
# before the window closes.
with_sigint <- function(expr) {
  if (!isTRUE(sigint_call(4L))) return(expr)   # not held back: nothing to open
  sigint_call(2L)
  on.exit({
    sigint_call(1L)
    serve_interrupts()
  })
  expr
}

# A forked process that stays in the terminal's process group and lets
# SIGINT through while the session holds it back (starting a process,
# system(), drops a held-back SIGINT): `stop()` ends it and says whether it
# heard a Ctrl-C. Without fork() or signal masks, it hears nothing.
sigint_watcher <- function() {
  none <- list(stop = function() FALSE)
  if (.Platform$OS.type == "windows" || !isTRUE(sigint_call(4L))) return(none)
  f <- tempfile("mcmix-sigint-")
  job <- tryCatch(parallel::mcparallel({
    tryCatch({
      sigint_call(2L)
      repeat Sys.sleep(0.01)
    }, interrupt = function(e) file.create(f))
    repeat Sys.sleep(0.01)   # (until stopped)
  }, mc.set.seed = FALSE, silent = TRUE), error = function(e) NULL)
  if (is.null(job)) return(none)
  list(stop = function() {
    tools::pskill(job$pid, tools::SIGKILL)
    suppressWarnings(parallel::mccollect(job, wait = TRUE))
    heard <- file.exists(f)
    unlink(f)
    heard
  })
}
