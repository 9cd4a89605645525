# Chains on a PSOCK cluster of parallel::makePSOCKcluster(), without the
# future package (local cores without fork(), as on Windows, when future is
# not installed): the session speaks parallel's socket protocol itself (an
# "EXEC" message per chain, a "VALUE" message back, as parallel's
# sendCall() and recvResult() do) so that it never blocks in a read: it
# polls the workers' connections (socketSelect()) with SIGINT held back
# and serves Ctrl-C between two polls, as run_chains_future() does. The
# workers leave the terminal's process group first (R/chains_signals.R);
# they run future_chain_run() (R/chains_checkpoint.R), so they see the stop
# request (the run directory's stop file and a message on their connection,
# R/chains_remote.R), report progress through files and save checkpoints.
# A worker that dies, at dispatch or later, gives its chain status "died"
# with its last checkpoint; workers still running when the session gives
# their chains up are ended (their checkpoints are kept).

run_chains_socket <- function(cl, fit, idx, new, reporter) {
  dir <- run_dir_new()
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  stopfile <- file.path(dir, "stop")
  interval <- checkpoint_interval()
  globals <- user_globals(fit)   # R/chains_globals.R
  con <- function(j) cl[[j]]$con
  send <- function(j, fun, args, tag)
    without_sigint(serialize(list(type = "EXEC", tag = NULL,
                                  data = list(fun = fun, args = args, return = TRUE, tag = tag)),
                             con(j), xdr = inherits(cl[[j]], "SOCKnode")))
  receive <- function(j) {
    r <- tryCatch(without_sigint(unserialize(con(j))), error = identity)
    if (inherits(r, "error")) return(r)
    if (!is.list(r) || !identical(r$type, "VALUE"))
      return(simpleError("the worker sent no result"))
    if (!isTRUE(r$success)) return(simpleError(paste(as.character(r$value), collapse = " ")))
    r$value
  }
  ready <- function(js) if (length(js))
    js[tryCatch(socketSelect(lapply(js, con), write = FALSE, timeout = 0),
                error = function(e) rep(TRUE, length(js)))] else integer()
  lost <- function(k, status, condition) chain_lost(dir, idx, k, new, fit, status, condition)
  out <- vector("list", length(idx))
  pending <- seq_along(idx)
  busy <- integer(length(cl))   # the chain (k) node j runs, 0 when free
  dead <- logical(length(cl))
  pids <- rep(NA_integer_, length(cl))
  told <- logical(length(cl))
  stop_all <- function() {
    run_dir_stop(dir)   # R/chains_backends.R
    for (j in which(busy > 0L & !told)) {
      told[j] <<- TRUE
      tryCatch(without_sigint(serialize(
        list(type = remote_stop_type, data = list(run = basename(dir)), tag = NULL), con(j),
        xdr = inherits(cl[[j]], "SOCKnode"))), error = function(e) NULL)
    }
    pending <<- integer()
  }
  # workers still running a chain given up are ended (the cluster is ours)
  on.exit({
    left <- pids[busy > 0L & !is.na(pids)]
    if (length(left)) tools::pskill(left, tools::SIGKILL)
  }, add = TRUE, after = FALSE)
  ctrl_c <- interrupt_ledger(stop_all)
  # the workers leave the terminal's process group and say who they are
  tryCatch({
    for (j in seq_along(cl)) send(j, socket_worker_setup, list(), 0L)
    t0 <- proc.time()[[3L]]
    left <- seq_along(cl)
    while (length(left) && proc.time()[[3L]] - t0 < max(stop_wait(), 10)) {
      for (j in ready(left)) {
        v <- receive(j)
        if (is.numeric(v) && length(v) == 1L) pids[j] <- as.integer(v) else dead[j] <- TRUE
        left <- setdiff(left, j)
      }
      if (length(left)) with_sigint(Sys.sleep(0.01))
    }
    dead[left] <- TRUE
  }, interrupt = ctrl_c$on_interrupt)
  while (length(pending) || any(busy > 0L)) {
    tryCatch({
      while (length(pending) && any(busy == 0L & !dead) && !file.exists(stopfile)) {
        j <- which(busy == 0L & !dead)[1L]
        k <- pending[1L]
        pending <- pending[-1L]
        sent <- tryCatch({
          send(j, socket_chain_run, list(fit, idx[k], new, dir, interval, globals$objects,
                                        globals$packages), k)
          TRUE
        }, error = identity)
        if (!isTRUE(sent)) {   # the worker died while the chain was sent to it
          dead[j] <- TRUE
          out[[k]] <- lost(k, "died", sent)
          stop_all()
          break
        }
        busy[j] <- k
      }
      if (length(pending) && !any(!dead & busy == 0L) && !any(busy > 0L)) {
        # no worker left to run the chains not started
        k <- pending[1L]
        out[[k]] <- lost(k, "died", simpleError("no worker of the cluster answered"))
        stop_all()
      }
      for (j in ready(which(busy > 0L))) {
        k <- busy[j]
        busy[j] <- 0L
        r <- receive(j)
        if (inherits(r, "error") || !is.list(r) || is.null(r$status)) {
          dead[j] <- TRUE
          saved <- result_read(dir, idx[k])
          r <- if (!is.null(saved)) saved else lost(k, "died", if (inherits(r, "error")) r else
            simpleError("the worker returned no result"))
        }
        out[[k]] <- r
        if (r$status != "done") stop_all() else reporter$chain_done()
      }
      reporter$set(progress_files_read(dir, idx), chains_done(out))
      if (length(pending) || any(busy > 0L)) with_sigint(Sys.sleep(0.05))
    }, interrupt = ctrl_c$on_interrupt)
    # a second Ctrl-C, or chains that do not stop in time: give them up
    # (from their result files or checkpoints; their workers are ended)
    if (any(busy > 0L) && ctrl_c$give_up()) {
      for (j in which(busy > 0L)) {
        k <- busy[j]
        saved <- result_read(dir, idx[k])
        out[[k]] <- if (!is.null(saved)) saved else lost(k, "interrupted", NULL)
        if (!is.na(pids[j])) tools::pskill(pids[j], tools::SIGKILL)
        busy[j] <- 0L
        dead[j] <- TRUE
      }
    }
  }
  attr(out, "interrupted") <- ctrl_c$interrupted()
  out
}

# End the workers of cluster `cl` (a "DONE" message each, as
# parallel::stopCluster() sends) and close their connections, also when
# some of them died (where stopCluster() would stop at the first).
socket_cluster_stop <- function(cl) {
  for (node in cl) {
    tryCatch(without_sigint(serialize(list(type = "DONE", data = NULL, tag = NULL), node$con,
                                      xdr = inherits(node, "SOCKnode"))),
             error = function(e) NULL)
    tryCatch(close(node$con), error = function(e) NULL)
  }
  invisible(NULL)
}

# On a worker: leave the terminal's process group; its process id.
socket_worker_setup <- function() {
  worker_detach()
  Sys.getpid()
}

# On a worker: the packages the user's functions use, then the chain
# (future_chain_run(), which also listens on the worker's connection).
socket_chain_run <- function(fit, i, new, dir, interval, globals, packages) {
  for (p in packages)
    suppressPackageStartupMessages(library(p, character.only = TRUE))
  future_chain_run(fit, i, new, dir, interval, NULL, globals, socket = TRUE)
}
