# What a chain run by a `future` worker shares with the R session that
# started it (R/chains_backends.R, run_chains_future()): the run directory
# of the session holds a stop request, one progress file and one checkpoint
# per chain. The checkpoint is the chain as of a completed chunk, saved by
# the worker at most every `mcmix_option("checkpoint_interval")`
# seconds (atomically: written aside, then renamed), so that the draws of a
# chain whose worker dies, or is abandoned by a second Ctrl-C, are not
# lost. A worker on another machine does not see the directory: it hears
# the stop request through its connection to the session
# (R/chains_remote.R), and only its result comes back (inst/design.md,
# "Interrupts and failures on every backend").

checkpoint_file <- function(dir, i) file.path(dir, sprintf("chain-%d.rds", i))

# Seconds between two checkpoints of a chain (0: after every chunk).
checkpoint_interval <- function() mcmix_option("checkpoint_interval")   # R/options.R

# The hooks of chain i in a worker: progress ticks, the stop request (also
# when the session removed the run directory: it is gone or gave the chain
# up) and checkpoints. Without the directory (a worker on another
# machine), none of them but the stop request through the worker's
# connection, `remote` (remote_stop_poll(), R/chains_remote.R; NULL when
# there is none).
worker_hooks <- function(dir, i, interval, remote = NULL) {
  asked <- if (is.function(remote)) remote else function() FALSE
  if (!dir.exists(dir))
    return(list(tick = function(n) NULL, stop_requested = asked, checkpoint = NULL))
  stopfile <- file.path(dir, "stop")
  f <- checkpoint_file(dir, i)
  last <- proc.time()[[3L]]
  list(tick = progress_file_tick(dir, i),
       stop_requested = function() file.exists(stopfile) || !dir.exists(dir) || asked(),
       checkpoint = function(chain) {
         now <- proc.time()[[3L]]
         if (now - last < interval) return(invisible(NULL))
         last <<- now
         tmp <- paste0(f, ".tmp")
         try(silent = TRUE, {   # the directory is gone when the session gave the chain up
           saveRDS(chain_finish(chain), tmp, compress = FALSE)
           file.rename(tmp, f)
         })
         invisible(NULL)
       })
}

# The worker's side of a chain run by a future: chain_run_safe() with the
# hooks above, and progress also through progressr's progressor `p` (NULL
# when not used); `globals`: the global variables of the user's functions
# (user_globals()); `socket`: the worker is a node of a cluster plan, which
# also hears the stop request through its connection (R/chains_remote.R).
future_chain_run <- function(fit, i, new, dir, interval, p, globals = list(), socket = FALSE) {
  worker_detach()   # out of the terminal's process group (R/chains_signals.R)
  globals_install(globals)   # what the user's functions need (R/chains_globals.R)
  h <- worker_hooks(dir, i, interval, if (socket) remote_stop_poll(basename(dir)))
  tick <- if (is.null(p)) h$tick else function(n) {
    h$tick(n)
    p(amount = n)
  }
  r <- chain_run_safe(fit, i, new, tick = tick, stop_requested = h$stop_requested,
                      checkpoint = h$checkpoint)
  if (dir.exists(dir)) {   # the result also as a file, should its transfer fail
    f <- result_file(dir, i)
    try(silent = TRUE, {
      saveRDS(r, paste0(f, ".tmp"), compress = FALSE)
      file.rename(paste0(f, ".tmp"), f)
    })
  }
  r
}

result_file <- function(dir, i) file.path(dir, sprintf("chain-%d.result.rds", i))

# The result of chain i as its worker saved it, or NULL. With `wait` > 0,
# waits that many seconds for it (a worker still ending its chunk).
result_read <- function(dir, i, wait = 0) {
  f <- result_file(dir, i)
  t0 <- proc.time()[[3L]]
  while (!file.exists(f) && proc.time()[[3L]] - t0 < wait)
    tryCatch(Sys.sleep(0.05), interrupt = function(e) NULL)
  r <- if (file.exists(f)) tryCatch(readRDS(f), error = function(e) NULL)
  if (is.list(r) && !is.null(r$status)) r
}

# The last checkpoint of chain i, or `fallback` when there is none.
checkpoint_read <- function(dir, i, fallback) {
  f <- checkpoint_file(dir, i)
  ch <- if (file.exists(f)) tryCatch(readRDS(f), error = function(e) NULL)
  if (is.list(ch) && identical(as.integer(ch$id), as.integer(i))) ch else fallback
}
