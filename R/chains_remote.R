# The stop request for chains run by the workers of a cluster plan
# (future's multisession and cluster plans, PSOCK workers of
# parallel::makeCluster()), through the socket connection each worker
# already has with the session (the "channel they already use"). A worker
# on another machine does not see the session's run directory
# (R/chains_checkpoint.R); so, besides the stop file, the session writes a
# small message on the worker's connection, and the chain's runner looks
# for it at every chunk boundary (socketSelect() with no wait, then
# unserialize()).
#
# The message has the form of parallel's protocol (a list with `type`,
# `data` and `tag`) with a type of its own, "mcmix_stop": should the chain
# have ended before it arrives, the worker's loop (parallel's
# workCommand()) reads and ignores it, as it ignores every unknown type;
# the next task sent to that worker comes after it. It names the run (its
# directory's base name), so that a chain of another run never takes it.

remote_stop_type <- "mcmix_stop"

# Session side: ask the chain of future `f` to stop, through the
# connection of its worker (when `f` runs on a socket node of a cluster
# plan). Errors (a worker already gone) are ignored: that chain is
# collected as died or from its checkpoint. Returns whether a message was
# written.
remote_stop_send <- function(f, run) {
  node <- tryCatch({
    if (inherits(f, "ClusterFuture") && is.numeric(f$node)) f$workers[[f$node]]
  }, error = function(e) NULL)
  if (!inherits(node, c("SOCKnode", "SOCK0node")) || !inherits(node$con, "connection"))
    return(FALSE)
  msg <- list(type = remote_stop_type, data = list(run = run), tag = NULL)
  ok <- tryCatch({
    without_sigint(serialize(msg, node$con, xdr = inherits(node, "SOCKnode")))
    TRUE
  }, error = function(e) FALSE)
  isTRUE(ok)
}

# Worker side: a function telling whether the session asked run `run` to
# stop through this worker's connection (NULL when this process is not a
# socket worker: no connection to listen on). Once asked, it stays TRUE.
remote_stop_poll <- function(run) {
  con <- worker_master_connection()
  if (is.null(con)) return(NULL)
  asked <- FALSE
  function() {
    while (!asked && isTRUE(tryCatch(socketSelect(list(con), write = FALSE, timeout = 0),
                                     error = function(e) FALSE))) {
      msg <- tryCatch(unserialize(con), error = function(e) NULL)
      if (is.null(msg)) break   # the connection is gone: the session stops the chain
      if (is.list(msg) && identical(msg$type, remote_stop_type) &&
          identical(msg$data$run, run)) asked <- TRUE
    }
    asked
  }
}

# The connection of this socket worker to its session: the `master` node
# of parallel's worker loop on the call stack (future's cluster and
# multisession workers run that loop too), or NULL.
worker_master_connection <- function() {
  loop <- tryCatch(utils::getFromNamespace("workCommand", "parallel"), error = function(e) NULL)
  if (is.null(loop)) return(NULL)
  for (i in rev(seq_len(sys.nframe()))) {
    if (!identical(sys.function(i), loop)) next
    m <- get0("master", envir = sys.frame(i), inherits = FALSE)
    if (inherits(m, c("SOCKnode", "SOCK0node")) && inherits(m$con, "connection")) return(m$con)
  }
  NULL
}
