# The sharded layer (inst/design.md, "One chain over several machines"):
# data cut into shards that live on the workers of an existing R cluster
# (a `parallel` cluster, local or on other hosts, or the workers of a
# `future` cluster plan) for the whole run, loaded there from their sources.
# Written once and used by every model that shards; R/mixture_sharded.R is
# the DP mixture's use of it.
#
# * Sources: shard_source() (files with a reader, or a function of the
#   shard index) or an in-memory matrix cut into shards of whole blocks
#   (split once, each shard sent once). A shard's rows never pass through
#   the session again.
# * Shards, not workers, fix the draws: shard s is a run of blocks of 4096
#   rows whose random streams are keyed by their global block index, and
#   every statistic is combined in shard order. Shard s goes to worker
#   floor((s - 1) W / S) + 1 of W (contiguous runs), so any W gives the
#   same draws, and so does the in-process run (cl = NULL) of the same
#   shards.
# * Calls: shard_call() runs one operation on every worker holding shards
#   (in parallel; parallel::clusterCall() on the workers, each looping over
#   its shards in order) or on one worker; a worker that dies, a host that
#   disappears or an R error there becomes a classed error naming the
#   worker (mcmix_error_worker) or the shard (mcmix_error_shard).
# * Worker state: the package's environment shard_store on each worker,
#   one entry per run (its id), each shard an environment (x, the labels
#   of each chain, side) whose vectors nothing else refers to, so the C
#   passes write them in place (src/ffi_shard.c). A run's entry is dropped
#   when its handle is garbage-collected in the session (shard_forget()).

# Rows per shard when an in-memory matrix is cut (a multiple of the block
# size of the random streams, src/rng_stream.h).
shard_block_rows <- 4096L

#' Data shards that are loaded on the workers
#'
#' Describes data that never pass through the R session: each shard is
#' loaded by the worker that holds it, from a file read by `reader` or by
#' calling `fun(i)` for shard `i`. Give the result as `data` to
#' [sample_posterior()] with `cl`, a cluster of workers (see
#' [sample_posterior()], section "Data larger than one machine").
#'
#' @param files Paths of the shard files, one per shard, as the workers see
#'   them (on several hosts: a shared file system, or the same paths on
#'   each host).
#' @param reader A function of one path returning the shard's numeric
#'   matrix (one row per observation), e.g. `readRDS` (the default),
#'   `function(p) as.matrix(data.table::fread(p))`, or
#'   `function(p) bigmemory::attach.big.matrix(p)[, ]`.
#' @param fun Instead of files, a function of the shard index `i` returning
#'   the shard's matrix (evaluated on the worker; it must not refer to
#'   large objects of the session).
#' @param n With `fun`, the number of shards.
#' @return An object of class `mcmix_shard_source`.
#' @examples
#' # a function of the shard index
#' src <- shard_source(fun = function(i) {
#'   set.seed(i)
#'   matrix(rnorm(200, mean = 3 * (i %% 2)), ncol = 2)
#' }, n = 4)
#' src
#' # files written by saveRDS()
#' dir <- tempfile()
#' dir.create(dir)
#' paths <- file.path(dir, sprintf("shard-%d.rds", 1:2))
#' for (i in 1:2) saveRDS(matrix(rnorm(100), ncol = 2), paths[i])
#' shard_source(paths)
#' unlink(dir, recursive = TRUE)
#' @export
shard_source <- function(files = NULL, reader = readRDS, fun = NULL, n = NULL) {
  if (is.null(files) == is.null(fun))
    stop_input("Give either `files` (with a `reader`) or `fun` (with `n`).", "files")
  if (!is.null(files)) {
    if (!is.character(files) || !length(files) || anyNA(files))
      stop_input(sprintf("`files` must be a character vector of paths, not %s.",
                         describe_value(files)), "files")
    if (!is.function(reader))
      stop_input(sprintf("`reader` must be a function of one path, not %s.",
                         describe_value(reader)), "reader")
    return(structure(list(kind = "files", files = files, reader = reader,
                          n = length(files)), class = "mcmix_shard_source"))
  }
  if (!is.function(fun))
    stop_input(sprintf("`fun` must be a function of the shard index, not %s.",
                       describe_value(fun)), "fun")
  n <- check_count(n, "n", 1L)
  structure(list(kind = "function", fun = fun, n = n), class = "mcmix_shard_source")
}

#' @export
print.mcmix_shard_source <- function(x, ...) {
  cat("<mcmix_shard_source> ", x$n, " shard", if (x$n != 1L) "s", ", ", sep = "")
  if (x$kind == "files") cat("files read by `reader`:", list_some(x$files, 3L), "\n")
  else if (x$kind == "function") cat("made by `fun(i)` on the workers\n")
  else cat("cut from a matrix of ", x$rows, " rows\n", sep = "")
  invisible(x)
}

# An in-memory matrix as a source: shards of `rows` rows (a multiple of the
# block size; the last one shorter), or `shards` shards of equal whole
# blocks. The matrix is cut when the shards are loaded.
shard_source_matrix <- function(x, shards = NULL, rows = NULL) {
  N <- nrow(x)
  blocks <- ceiling(N / shard_block_rows)
  if (!is.null(shards)) {
    shards <- check_count_max(shards, "shards", 1L, max(1, N), "shards")
    # shards of whole blocks where there are enough blocks, else of rows
    rows <- if (blocks >= shards) ceiling(blocks / shards) * shard_block_rows
            else ceiling(N / shards)
  }
  if (is.null(rows)) rows <- mcmix_option("shard_rows")
  starts <- seq(1, N, by = rows)
  structure(list(kind = "matrix", x = x, starts = starts, ends = pmin(N, starts + rows - 1),
                 rows = N, n = length(starts)), class = "mcmix_shard_source")
}

# The data of shard i of `src`, on the worker that loads it (errors name
# the shard): a numeric matrix.
shard_load_one <- function(src, i, dim) {
  x <- shard_read(src, i)
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.null(dim(x)) && is.numeric(x)) x <- matrix(x, ncol = 1L)
  if (!is.matrix(x) || !is.numeric(x))
    stop_shard(i, src, sprintf("it is %s, not a numeric matrix", describe_value(x)))
  if (!is.null(dim) && ncol(x) != dim)
    stop_shard(i, src, sprintf("it has %d columns, the other shards %d", ncol(x), dim))
  if (nrow(x) < 1L) stop_shard(i, src, "it has no rows")
  if (anyNA(x)) stop_shard(i, src, "it has missing values (not supported in sharded runs)")
  # (each replacement would copy the whole shard when x is shared, as a
  # reader's value or a piece of the load's arguments is)
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!is.null(dimnames(x))) dimnames(x) <- NULL
  x
}

# What the source of shard i gives (its reader's or function's value, an
# in-memory piece as it is); errors name the shard.
shard_read <- function(src, i) {
  # a reader's warnings go with its error (a missing file: "cannot open"),
  # or are raised again when it succeeds
  warns <- character()
  x <- tryCatch(withCallingHandlers(switch(src$kind,
    matrix = src$x,                                   # sent cut (shard_load())
    files = src$reader(src$files[[i]]),
    "function" = src$fun(i)),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    }),
    error = function(e) stop_shard(i, src, paste(c(conditionMessage(e), warns),
                                                  collapse = "; ")))
  for (w in warns) warn(sprintf("Shard %d: %s", i, w), "mcmix_warning_shard")
  x
}

stop_shard <- function(i, src, why) {
  where <- if (identical(src$kind, "files")) sprintf(" (%s)", src$files[[i]]) else ""
  base::stop(errorCondition(sprintf("Shard %d%s failed to load: %s.", i, where, why),
                            class = c("mcmix_error_shard", "mcmix_error_input", "mcmix_error"),
                            shard = i, arg = "data"))
}

# ---------------------------------------------------------------------------
# The workers' side

shard_store <- new.env(parent = emptyenv())

# The one entry point a worker runs (sent by shard_call()): operation `op`
# on shards `ids` of run `run` (in order), returning a list per shard or
# the op's own value. Errors carry the shard.
shard_worker <- function(run, op, ids, args) {
  st <- shard_store[[run]]
  if (op == "load") {
    if (is.null(st)) st <- shard_store[[run]] <- new.env(parent = emptyenv())
    if (!is.null(args$threads)) st$threads <- args$threads
    loader <- shard_loaders[[if (is.null(args$loader)) "matrix" else args$loader]]
    return(lapply(seq_along(ids), function(j) {
      i <- ids[[j]]
      sh <- new.env(parent = emptyenv())
      sh$id <- i
      st[[as.character(i)]] <- sh
      loader(sh, args$sources[[j]], i, args)
    }))
  }
  if (op == "drop") {
    shard_drop_local(run)
    return(NULL)
  }
  if (is.null(st))
    base::stop(errorCondition(
      "This worker holds no shards of the run (it was restarted): continue with extend(fit, cl = ).",
      class = c("mcmix_error_worker", "mcmix_error")))
  fun <- shard_ops[[op]]
  if (op %in% shard_ops_chained || op %in% shard_ops_worker) return(fun(st, ids, args))
  lapply(ids, function(i) fun(st[[as.character(i)]], args, st))
}

# Free the worker's store of run(s) `run` (absent runs are ignored).
shard_drop_local <- function(run) {
  run <- run[vapply(run, exists, NA, envir = shard_store, inherits = FALSE)]
  if (length(run)) rm(list = run, envir = shard_store)
}

# Operations on one shard (sh: its environment, a: arguments, st: the
# run's store). The DP mixture's passes are in R/mixture_sharded.R, LDA's
# in R/lda_sharded.R.
shard_ops <- new.env(parent = emptyenv())
# Operations that take the worker's run of shards at once (sequential passes).
shard_ops_chained <- character()
# Operations that take the worker's run of shards at once and return one
# value per worker (called on the workers in parallel).
shard_ops_worker <- character()

# How a shard is loaded into its environment sh, by kind of data; the
# value goes back to the session (shard_load()). "matrix": a numeric matrix
# (the mixtures); LDA's documents: R/lda_sharded.R.
shard_loaders <- new.env(parent = emptyenv())
shard_loaders$matrix <- function(sh, src, i, args) {
  x <- shard_load_one(src, i, args$dim)
  sh$x <- x
  # per chain (R/mixture_sharded.R): its labels, the other label
  # vector, their versions, the statistics of pending proposals
  sh$zs <- sh$alt <- sh$ver <- sh$snapv <- sh$pend <- list()
  sh$side <- raw(nrow(x))
  c(n = nrow(x), dim = ncol(x))
}

# ---------------------------------------------------------------------------
# The session's side: the handle of a run

# The workers of `cl`: a cluster of `parallel` (class "cluster"), the
# workers of the current future cluster plan (cl = "future"), or NULL (in
# process).
shard_cluster <- function(cl) {
  if (is.null(cl)) return(NULL)
  if (identical(cl, "future")) {
    if (!requireNamespace("future", quietly = TRUE))
      stop_input("`cl = \"future\"` needs the future package.", "cl")
    w <- future_cluster_workers()
    if (is.null(w))
      stop_input(paste0("`cl = \"future\"` needs a plan(cluster, workers = cl) whose workers are ",
                        "a cluster of the parallel package; give that cluster as `cl`."), "cl")
    return(w)
  }
  if (!inherits(cl, "cluster") || !length(cl))
    stop_input(sprintf(paste0("`cl` must be a cluster from parallel::makeCluster() or ",
                              "parallelly::makeClusterPSOCK() (or \"future\"), not %s."),
                       describe_value(cl)), "cl")
  cl
}

# The `workers` of the current future plan when it is a cluster plan over
# a parallel cluster, else NULL.
future_cluster_workers <- function() {
  p <- future::plan()
  if (!inherits(p, "cluster")) return(NULL)
  w <- formals(p)$workers
  w <- tryCatch(eval(w, environment(p)), error = function(e) NULL)
  if (inherits(w, "cluster")) w else NULL
}

# Runs started in this session.
shard_runs <- new.env(parent = emptyenv())
shard_runs$count <- 0

# A new run over cluster `cl` (NULL: in process) for source `src`: shards
# dealt to workers in contiguous runs.
shard_handle <- function(cl, src, threads = 1L) {
  S <- src$n
  W <- if (is.null(cl)) 1L else min(length(cl), S)
  owner <- if (W == 1L) rep(1L, S) else floor((seq_len(S) - 1) * W / S) + 1L
  h <- new.env(parent = emptyenv())
  h$cl <- cl
  # unique in the session (a count), whatever the seed: two runs with the
  # same seed on one cluster must not share the workers' store (the draw
  # is kept, so that the chain's random numbers stay those it had)
  shard_runs$count <- shard_runs$count + 1
  h$run <- sprintf("run%08d.%d.%.0f", sample.int(1e8, 1L, useHash = FALSE) - 1L,
                   Sys.getpid(), shard_runs$count)
  h$S <- S
  h$owner <- owner
  h$threads <- threads
  h$dirty <- FALSE
  h$sent <- h$received <- 0
  reg.finalizer(h, shard_forget)
  h
}

# The handle h was garbage-collected (no fit refers to it): its run's
# shards are dropped, at once in process, else on each of its workers with
# the next call there (a finalizer may run in the middle of a call, so it
# does not use the cluster itself).
shard_forget <- function(h) {
  run <- h$run
  if (exists(run, envir = shard_live, inherits = FALSE)) rm(list = run, envir = shard_live)
  if (is.null(h$cl)) {
    shard_drop_local(run)
    return(invisible())
  }
  for (w in unique(h$owner))
    shard_drops$queue <- c(shard_drops$queue, list(list(node = h$cl[[w]], run = run)))
  invisible()
}
# Drops waiting for the next call on their worker: list(node, run) each.
shard_drops <- new.env(parent = emptyenv())
shard_drops$queue <- list()

# The queued drops of `nodes` (a list of cluster nodes): the runs to drop
# on each, taken off the queue.
shard_drops_take <- function(nodes) {
  q <- shard_drops$queue
  if (!length(q)) return(NULL)
  shard_drops$queue <- list()
  runs <- vector("list", length(nodes))
  # (a worker whose connection was closed holds nothing any more)
  keep <- vapply(q, function(e) is.null(e$node$con) ||
                   isTRUE(tryCatch(isOpen(e$node$con), error = function(err) FALSE)), NA)
  for (j in which(keep))
    for (w in seq_along(nodes))
      if (identical(q[[j]]$node, nodes[[w]])) {
        runs[[w]] <- c(runs[[w]], q[[j]]$run)
        keep[j] <- FALSE
        break
      }
  # (a finalizer may have queued more meanwhile)
  shard_drops$queue <- c(shard_drops$queue, q[keep])
  runs
}

# Run `op` on shards `ids` (default all), grouped by worker: one call per
# worker in parallel; the per-shard values in the order of `ids` (an op of
# shard_ops_worker: one value per worker, in worker order).
# chained = TRUE: the op takes each worker's shards at once and the
# workers are called one after another (each given the previous worker's
# value as args$carry).
shard_call <- function(h, op, args = list(), ids = seq_len(h$S), chained = FALSE) {
  ids <- as.integer(ids)
  if (is.null(args$chain)) args$chain <- h$chain   # the chain the workers serve
  if (!length(ids)) return(list())
  by_worker <- split(ids, h$owner[ids])
  workers <- as.integer(names(by_worker))
  if (chained) {
    carry <- args$carry
    for (w in workers) {
      args$carry <- carry
      carry <- shard_exec(h, w, op, by_worker[[as.character(w)]], args)
    }
    return(carry)
  }
  if (is.null(h$cl)) {
    out <- lapply(by_worker, function(i) shard_worker(h$run, op, i, args))
  } else {
    out <- shard_exec_parallel(h, workers, op, by_worker, args)
  }
  if (op %in% shard_ops_worker) return(unname(out))
  res <- vector("list", length(ids))
  pos <- split(seq_along(ids), h$owner[ids])
  for (j in seq_along(by_worker)) res[pos[[j]]] <- out[[j]]
  res
}

# Load the shards of `src` on their workers (in parallel) with the loader
# of shard_loaders; for matrices the rows and columns of each shard (a
# matrix), else the loader's value of each shard (a list). In-memory data
# are cut here (source kinds "matrix" and LDA's "corpus") and each piece
# sent once.
shard_load <- function(h, src, dim = NULL, loader = "matrix") {
  by_worker <- split(seq_len(h$S), h$owner)
  piece <- function(i) {
    if (identical(src$kind, "matrix")) {
      x <- src$x[src$starts[i]:src$ends[i], , drop = FALSE]
      dimnames(x) <- NULL                # (a fresh piece: no copy)
      return(list(kind = "matrix", x = x))
    }
    if (identical(src$kind, "corpus")) return(lda_corpus_piece(src, i))   # R/lda_sharded.R
    src
  }
  tasks <- lapply(by_worker, function(ids) list(ids = ids, sources = lapply(ids, piece)))
  args <- list(dim = dim, threads = h$threads, loader = loader)
  out <- if (is.null(h$cl)) {
    lapply(tasks, function(t) shard_worker_safe(t, h$run, "load", args))
  } else {
    shard_exec_parallel(h, as.integer(names(by_worker)), "load", tasks, args)
  }
  for (o in out) if (inherits(o, "mcmix_shard_failure")) base::stop(o$condition)
  out <- unlist(unname(out), recursive = FALSE)
  if (loader == "matrix") do.call(rbind, out) else out
}

# One worker's call (in process: the session itself).
shard_exec <- function(h, w, op, ids, args) {
  if (is.null(h$cl)) return(shard_worker(h$run, op, ids, args))
  shard_exec_parallel(h, w, op, list(ids), args)[[1L]]
}

# Calls on several workers of h$cl at once (parallel::clusterApply(), one
# call per worker); their values in order. An R error on a worker comes
# back as a value (so its class survives) and is raised again here; a
# worker whose connection fails (the process died, its host disappeared)
# becomes a classed error naming it. While a call is out the handle is
# marked dirty: an interrupt then leaves answers in the sockets, and the
# cluster is not used again.
shard_exec_parallel <- function(h, workers, op, ids_list, args) {
  if (isTRUE(h$dirty))
    stop_input(paste0("The cluster `cl` was interrupted in the middle of a call, so its ",
                      "workers may still answer it: start a new cluster and continue ",
                      "with extend(fit, cl = )."), "cl")
  cl <- h$cl
  run <- h$run
  # the runs of collected handles dropped by the same calls
  drops <- shard_drops_take(cl[workers])
  if (!is.null(drops))
    ids_list <- lapply(seq_along(ids_list), function(j) {
      t <- ids_list[[j]]
      if (is.null(drops[[j]])) return(t)
      if (!is.list(t)) t <- list(ids = t)
      t$drop <- drops[[j]]
      t
    })
  h$dirty <- TRUE
  out <- tryCatch(
    parallel::clusterApply(cl[workers], ids_list, shard_worker_safe, run = run, op = op,
                           args = args),
    error = function(e) {
      dead <- shard_dead_workers(cl, workers)
      stop_worker(if (length(dead)) dead else workers, conditionMessage(e))
    })
  h$dirty <- FALSE
  if (op != "load") {   # the traffic of the run (bench/bench-sharded.R)
    # the arguments as sent to each worker, each worker's shard indices
    # at 4 bytes (sizes of the vectors' data, shard_bytes())
    h$sent <- h$sent + length(workers) * shard_bytes(args) + 4 * length(unlist(ids_list))
    h$received <- h$received + shard_bytes(out)
  }
  for (j in seq_along(out))
    if (inherits(out[[j]], "mcmix_shard_failure")) {
      e <- out[[j]]$condition
      if (inherits(e, "mcmix_error")) base::stop(e)
      stop_worker(workers[[j]], conditionMessage(e))
    }
  out
}

# About the bytes of x on the wire: its vectors' data (8 bytes a double,
# 4 an integer or logical, the strings' characters) and 8 per vector, the
# rest (functions, environments: small here) by serialization; a cheap
# count where serializing the values again only to count them would cost
# as much as sending them.
shard_bytes <- function(x) {
  if (is.null(x)) return(0)
  if (is.list(x))
    return(8 + sum(vapply(x, shard_bytes, 0)))
  if (is.atomic(x))
    return(8 + switch(typeof(x), double = 8, integer = 4, logical = 4, raw = 1,
                      complex = 16, character = 0, 8) * length(x) +
             if (is.character(x)) sum(nchar(x, "bytes"), na.rm = TRUE) else 0)
  length(serialize(x, NULL))
}

# shard_worker() with its errors returned as values.
shard_worker_safe <- function(task, run, op, args) {
  if (is.list(task)) {        # list(ids, sources, drop): a load with this worker's
    args$sources <- task$sources   # sources; runs of collected handles to drop
    if (!is.null(task$drop)) shard_drop_local(task$drop)
    task <- task$ids
  }
  tryCatch(shard_worker(run, op, task, args),
           error = function(e) structure(list(condition = e), class = "mcmix_shard_failure"))
}

# The workers among `workers` whose connection fails (a call that errors at
# once); the others may hold unread answers, so the cluster is not reused.
shard_dead_workers <- function(cl, workers) {
  dead <- integer()
  for (w in workers) {
    ok <- tryCatch({
      parallel::clusterCall(cl[w], function() TRUE)
      TRUE
    }, error = function(e) FALSE)
    if (!ok) dead <- c(dead, w)
  }
  dead
}

stop_worker <- function(w, why) {
  base::stop(errorCondition(
    sprintf(paste0("Worker %s of the cluster `cl` failed (%s): the draws made so far are ",
                   "kept; start a new cluster and continue with extend(fit, cl = )."),
            paste(w, collapse = ", "), trimws(why)),
    class = c("mcmix_error_worker", "mcmix_error"), worker = w, arg = "cl"))
}
