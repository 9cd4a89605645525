# The common chain driver (DESIGN sections 3 and 4).
#
# Every sampler of the package is a *kernel*: an `init` function building the
# full state of one chain as a plain R list, and a `step` function advancing
# that state by `n` iterations and returning the kept draws of that chunk.
# This file runs kernels: chains, RNG streams, transactional chunks,
# interrupts, partial fits and `extend()`; the backends (sequential, forked
# cores, future) and the progress line are in R/chains_backends.R, the
# memory and work budgets in R/chains_budget.R.
#
# Reproducibility rests on three facts:
# * each chain has its own L'Ecuyer-CMRG stream, derived from one integer
#   drawn from the caller's generator, and the caller's generator kind is
#   restored afterwards;
# * the stream's current seed is stored in the chain after every chunk;
# * a kernel's result does not depend on how iterations are cut in chunks.
# So the draws are the same whatever the backend, the number of cores or the
# chunk sizes, and `extend()` equals one longer run.

#' Build a sampling kernel
#'
#' Low-level constructor used by every sampler of the package (and available
#' to packages that add samplers). A kernel bundles the functions that build
#' and advance the state of one chain; [run_kernel()] runs it.
#'
#' @param name A short name of the algorithm, e.g. `"dp_collapsed"`.
#' @param init `function(chain)` returning the initial state of chain number
#'   `chain` as a plain R list. It runs inside the chain's random number
#'   stream.
#' @param step `function(state, n, thin, offset, warmup)` running iterations
#'   `offset + 1` to `offset + n` and returning `list(state = , draws = )`,
#'   where `draws` holds `traces` (numeric matrix, one row per kept
#'   iteration), and optionally `labels` (integer matrix) and `extra` (list).
#'   When `warmup` is `FALSE` iteration `g` is kept if `g %% thin == 0`;
#'   during warm-up nothing is kept.
#' @param trace_names Names of the columns of `traces`.
#' @param ... Further fields kept in the kernel (read by methods).
#' @return An object of class `mcmix_kernel`.
#' @examples
#' # A kernel drawing independent standard normals
#' k <- new_kernel("iid_normal",
#'   init = function(chain) list(x = 0),
#'   step = function(state, n, thin, offset, warmup) {
#'     x <- stats::rnorm(n)
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     state$x <- x[n]
#'     list(state = state,
#'          draws = list(traces = matrix(x[keep], ncol = 1, dimnames = list(NULL, "x"))))
#'   },
#'   trace_names = "x")
#' set.seed(1)
#' fit <- run_kernel(k, iter = 100, chains = 2)
#' fit
#' @export
new_kernel <- function(name, init, step, trace_names, ...) {
  if (!is.character(name) || length(name) != 1L || is.na(name))
    stop(sprintf("`name` must be a string, not %s.", describe_value(name)), call. = FALSE)
  if (!is.function(init))
    stop(sprintf("`init` must be a function(chain), not %s.", describe_value(init)),
         call. = FALSE)
  if (!is.function(step))
    stop(sprintf("`step` must be a function(state, n, thin, offset, warmup), not %s.",
                 describe_value(step)), call. = FALSE)
  if (!is.character(trace_names) || anyNA(trace_names))
    stop(sprintf("`trace_names` must be a character vector, not %s.",
                 describe_value(trace_names)), call. = FALSE)
  structure(list(name = name, init = init, step = step,
                 trace_names = trace_names, ...),
            class = "mcmix_kernel")
}

#' @export
print.mcmix_kernel <- function(x, ...) {
  cat("<mcmix kernel '", x$name, "'; traces: ",
      paste(x$trace_names, collapse = ", "), ">\n", sep = "")
  invisible(x)
}

# ---------------------------------------------------------------------------
# Argument checks shared by every sampler
# ---------------------------------------------------------------------------

# check_count(), check_flag() and the other generic checks: R/checks.R.

# Iteration counters and offsets are integers: burnin plus iter must fit.
check_total_iter <- function(burnin, iter) {
  if (as.double(burnin) + as.double(iter) > .Machine$integer.max)
    stop(sprintf("`iter` + `burnin` must be at most %d, not %s.", .Machine$integer.max,
                 format(as.double(burnin) + as.double(iter))), call. = FALSE)
  invisible(NULL)
}

# ---------------------------------------------------------------------------
# Random number streams
# ---------------------------------------------------------------------------

# Save the caller's generator (kind and state) so that it can be put back.
rng_save <- function() {
  list(kind = RNGkind(),
       seed = if (exists(".Random.seed", envir = globalenv(), inherits = FALSE))
         get(".Random.seed", envir = globalenv(), inherits = FALSE))
}

# (not cut by an interrupt: the caller's generator kind and seed are put
# back together)
rng_restore <- function(saved) suspendInterrupts({
  do.call(RNGkind, as.list(saved$kind))
  if (is.null(saved$seed)) {
    if (exists(".Random.seed", envir = globalenv(), inherits = FALSE))
      rm(".Random.seed", envir = globalenv())
  } else {
    assign(".Random.seed", saved$seed, envir = globalenv())
  }
})

# One L'Ecuyer-CMRG stream per chain, from a single integer drawn from the
# caller's generator (which is advanced by that draw, as by any random
# function, and otherwise left as it was).
chain_streams <- function(chains) {
  base <- sample.int(.Machine$integer.max, 1L)
  saved <- rng_save()
  on.exit(rng_restore(saved))
  set.seed(base, kind = "L'Ecuyer-CMRG")
  seeds <- vector("list", chains)
  s <- get(".Random.seed", envir = globalenv())
  for (i in seq_len(chains)) {
    seeds[[i]] <- s
    s <- parallel::nextRNGStream(s)
  }
  list(base = base, seeds = seeds)
}

# Evaluate `f()` with the chain's stream installed; returns the value and the
# advanced seed. The caller's generator is restored even on error/interrupt.
with_stream <- function(seed, f) {
  saved <- rng_save()
  on.exit(rng_restore(saved))
  assign(".Random.seed", seed, envir = globalenv())
  value <- f()
  list(value = value, seed = get(".Random.seed", envir = globalenv()))
}

# ---------------------------------------------------------------------------
# One chain
# ---------------------------------------------------------------------------

# A chain is a list: state, seed (current stream state), warmup_done,
# iter_done, the draws collected so far (traces, labels, labels_subset: the
# labels of a subsample of the observations, R/mixture_online.R; extra),
# the online co-clustering counts (psm, psm_n). While a runner advances it,
# it also holds the elapsed seconds of the warm-up and sampling chunks of
# that run (time); fit_collect() moves them into the fit (fit$chain_time,
# see elapsed_time()), so a chain depends only on its draws and state.
# A kernel whose init is costly (field `init_deferred`, e.g. the warm start
# of R/mixture_warm.R) gives a chain never reached by an interrupted run
# (`deferred`) no state: its first run makes it from the same stream.
chain_new <- function(kernel, chain_id, seed, deferred = FALSE) {
  if (deferred && isTRUE(kernel$init_deferred))
    return(list(id = chain_id, state = NULL, seed = seed, warmup_done = 0L, iter_done = 0L,
                traces = NULL, labels = NULL, labels_subset = NULL, extra = NULL, psm = NULL,
                psm_n = 0L))
  r <- with_stream(seed, function() kernel$init(chain_id))
  list(id = chain_id, state = r$value, seed = r$seed,
       warmup_done = 0L, iter_done = 0L,
       traces = NULL, labels = NULL, labels_subset = NULL, extra = NULL, psm = NULL,
       psm_n = 0L)
}

# The seconds a chain spent in its kernel's steps in one run, by phase.
chain_time_zero <- function() c(warmup = 0, sample = 0)

# The kernel of `fit` as it runs. A kernel may hold no data, so that a
# saved fit stores them once (in `fit$data`): its step is then
# unbound_step() and its field `bind`, function(data), gives the fields
# (a list: `step`, and `init` when it reads the data) of the kernel that
# runs on the fit's data (the mixtures' kernels, R/mixture.R, R/impute.R,
# R/rjmcmc.R, R/hdp.R). Such a `bind` must be made where no data is in
# scope (a closure keeps its whole defining environment), and the kernel it
# gives may be wrapped like any other.
fit_kernel <- function(fit) {
  k <- fit$kernel
  if (!is.function(k$bind)) return(k)
  fields <- k$bind(fit$data)
  k[names(fields)] <- fields
  k$bind <- NULL
  k
}

unbound_step <- function(state, n, thin, offset, warmup) {
  stop(paste0("This kernel holds no data: run it with run_kernel(kernel, data = ) ",
              "(e.g. `data = fit$data`), or continue its fit with extend()."), call. = FALSE)
}

# Advance `chain` up to `burnin` warm-up and `iter` kept-phase iterations.
# `tick(n)` reports progress; `stop_requested()` is asked after every chunk
# (a parallel run sets it when another chain was interrupted or failed);
# `checkpoint(chain)`, when given, sees the chain after every chunk (future
# workers save it now and then, R/chains_checkpoint.R).
# Chunk lengths grow until a chunk takes about `target_secs` (or are fixed
# by the option `mcmix.chunk_size`), which never changes the draws (kernels
# are chunk-invariant).
#
# Chunks are transactional: the new chain (state, seed, counters, draws,
# labels, co-clustering counts) is built completely from the old one and
# the step's value, then installed by one assignment, so an interrupt or
# error at any moment leaves the chain of the last completed chunk. The
# chain as it stands is kept in `interrupt_store` on any non-local exit.
chain_run <- function(kernel, chain, burnin, iter, thin, keep_labels, psm,
                      tick = function(n) NULL, target_secs = 0.25,
                      stop_requested = function() FALSE, checkpoint = NULL) {
  # (a kernel may fix it: field `chunk_fixed`, e.g. one sweep of a sharded chain)
  fixed <- if (is.null(kernel$chunk_fixed)) chunk_size_option() else kernel$chunk_fixed
  chunk <- if (is.na(fixed)) 1L else fixed
  # draws of this call are collected in `chain$pending` (bound at the end)
  chain$pending <- list(traces = list(), labels = list(), labels_subset = list(),
                        extra = list())
  ws <- chain_workspace(kernel)   # memory held across chunks (R/chains_workspace.R)
  advance <- function(phase_left, offset, warmup) {
    n <- min(chunk, phase_left)
    if (!warmup && thin > 1L) {
      # end chunks on kept iterations when possible (keeps chunks aligned)
      n <- max(1L, min(phase_left, ((offset + n) %/% thin) * thin - offset))
    }
    t0 <- proc.time()[[3L]]
    r <- with_stream(chain$seed, function()
      kernel_step(kernel, ws, chain$state, n, thin, offset, warmup))
    dt <- proc.time()[[3L]] - t0
    check_step_value(r$value, kernel$name, n, offset, thin, warmup,
                     width = chain_trace_width(chain))
    chain <<- chain_commit(chain, r$value, r$seed, n, warmup, keep_labels, psm, dt)
    if (!is.na(fixed)) NULL
    else if (dt < target_secs / 2 && chunk < 1e6) chunk <<- chunk * 2L
    else if (dt > 2 * target_secs && chunk > 1L) chunk <<- max(1L, chunk %/% 2L)
    tick(n)
    if (!is.null(checkpoint)) checkpoint(chain)   # R/chains_checkpoint.R
    n
  }
  finished <- FALSE   # (a second bound copy of the draws only when it did not finish)
  on.exit(if (!finished)
    assign("last_chain", chain_finish(chain_detach(chain, ws)), envir = interrupt_store))
  while (chain$warmup_done < burnin && !stop_requested())
    advance(burnin - chain$warmup_done, chain$warmup_done, TRUE)
  while (chain$warmup_done >= burnin && chain$iter_done < iter && !stop_requested())
    advance(iter - chain$iter_done, chain$iter_done, FALSE)
  out <- chain_finish(chain_detach(chain, ws))
  finished <- TRUE
  out
}

# The chain after one chunk, built from scratch (see chain_run()).
chain_commit <- function(chain, value, seed, n, warmup, keep_labels, psm, seconds = 0) {
  nc <- chain
  nc$state <- value$state
  nc$seed <- seed
  tm <- if (is.null(chain$time)) chain_time_zero() else chain$time
  phase <- if (warmup) "warmup" else "sample"
  tm[[phase]] <- tm[[phase]] + seconds
  nc$time <- tm
  if (warmup) {
    nc$warmup_done <- chain$warmup_done + as.integer(n)
    return(nc)
  }
  nc$iter_done <- chain$iter_done + as.integer(n)
  d <- value$draws
  add <- function(what, x) nc$pending[[what]][[length(nc$pending[[what]]) + 1L]] <<- x
  if (!is.null(d$traces) && nrow(d$traces)) add("traces", d$traces)
  if (!is.null(d$labels) && nrow(d$labels)) {
    if (psm) {
      nc$psm <- psm_accumulate(chain$psm, d$labels)
      nc$psm_n <- chain$psm_n + nrow(d$labels)
    }
    if (keep_labels) add("labels", d$labels)
  }
  if (!is.null(d$labels_subset) && nrow(d$labels_subset)) add("labels_subset", d$labels_subset)
  if (length(d$extra)) add("extra", d$extra)
  nc
}

# Number of columns of the traces stored so far (NA before the first draw).
chain_trace_width <- function(chain) {
  if (!is.null(chain$traces)) return(ncol(chain$traces))
  if (length(chain$pending$traces)) return(ncol(chain$pending$traces[[1L]]))
  NA_integer_
}

# Bind the pending draws of a chain into it.
chain_finish <- function(chain) {
  p <- chain$pending
  chain$pending <- NULL
  if (length(p$traces)) chain$traces <- rbind(chain$traces, do.call(rbind, p$traces))
  if (length(p$labels)) chain$labels <- rbind(chain$labels, do.call(rbind, p$labels))
  if (length(p$labels_subset))
    chain$labels_subset <- rbind(chain$labels_subset, do.call(rbind, p$labels_subset))
  if (length(p$extra)) chain$extra <- c(chain$extra, do.call(c, p$extra))
  chain
}

# Run chain `i` (created first when `new`), catching interrupts and errors:
# returns list(chain, status = "done" / "interrupted" / "stopped" / "error",
# condition). `chain` is the chain of the last completed chunk (NULL when
# the chain could not be created).
chain_run_safe <- function(fit, i, new, tick = function(n) NULL,
                           stop_requested = function() FALSE, checkpoint = NULL) {
  s <- fit$settings
  kernel <- fit_kernel(fit)
  forget <- function()
    if (exists("last_chain", envir = interrupt_store, inherits = FALSE))
      rm("last_chain", envir = interrupt_store)
  forget()
  on.exit(forget())
  partial <- function() {
    ch <- get0("last_chain", envir = interrupt_store, inherits = FALSE)
    if (!is.null(ch) && identical(ch$id, i)) ch else if (!new) fit$chains[[i]]
  }
  tryCatch({
    ch <- if (new || is.null(fit$chains[[i]]) || is.null(fit$chains[[i]]$state))
            chain_new(kernel, i, fit$streams[[i]])
          else fit$chains[[i]]
    ch <- chain_run(kernel, ch, s$burnin, s$iter, s$thin, s$labels, s$psm, tick,
                    stop_requested = stop_requested, checkpoint = checkpoint)
    serve_interrupts()   # one that arrived during the last chunk is caught here
    done <- ch$warmup_done >= s$burnin && ch$iter_done >= s$iter
    list(chain = ch, status = if (done) "done" else "stopped", condition = NULL)
  }, interrupt = function(e) {
    suspendInterrupts(list(chain = partial(), status = "interrupted", condition = e))
  }, error = function(e) {
    list(chain = partial(), status = "error", condition = e)
  })
}

# R serves a pending interrupt only at its next check, which could come
# after the handlers above (the interrupt would then escape and lose the
# run); a short sleep serves it now.
serve_interrupts <- function() Sys.sleep(0.001)

# What a kernel's step() returns must have the shape of the kernel contract:
# a list with the new state and, per kept iteration, one row of traces (and
# of labels when there are labels). A wrong shape would otherwise corrupt the
# fit silently or fail later with an R-internal message.
check_step_value <- function(v, name, n, offset, thin, warmup, width = NA) {
  bad <- function(what)
    stop(sprintf("`kernel` '%s': step() %s.", name, what), call. = FALSE)
  if (!is.list(v) || !"state" %in% names(v))
    bad("must return a list with elements `state` and `draws`")
  if (warmup) return(invisible(NULL))
  kept <- (offset + n) %/% thin - offset %/% thin
  d <- v$draws
  if (!is.null(d) && !is.list(d)) bad("must return `draws` as a list")
  tr <- d$traces
  if (is.null(tr)) {
    if (kept > 0L) bad(sprintf("returned no `draws$traces` but %d iteration%s kept", kept,
                               if (kept == 1L) " was" else "s were"))
  } else if (!is.matrix(tr) || !(is.numeric(tr) || is.logical(tr))) {
    bad(sprintf("must return `draws$traces` as a numeric matrix, not %s",
                describe_value(tr)))
  } else if (nrow(tr) != kept) {
    bad(sprintf("returned %d row%s of `draws$traces` for %d kept iteration%s", nrow(tr),
                if (nrow(tr) == 1L) "" else "s", kept, if (kept == 1L) "" else "s"))
  } else if (!is.na(width) && kept > 0L && ncol(tr) != width) {
    bad(sprintf("returned %d column%s of `draws$traces`, but earlier chunks had %d",
                ncol(tr), if (ncol(tr) == 1L) "" else "s", width))
  }
  for (what in c("labels", "labels_subset")) {
    lab <- d[[what]]
    if (!is.null(lab) && (!is.matrix(lab) || !is.numeric(lab) || nrow(lab) != kept))
      bad(sprintf("must return `draws$%s` as NULL or a numeric matrix with %d row%s",
                  what, kept, if (kept == 1L) "" else "s"))
  }
  invisible(NULL)
}

# Online co-clustering counts: acc[i, j] = number of kept draws in which i and
# j share a cluster (compiled, R/psm.R).
psm_accumulate <- function(acc, labels) {
  n <- ncol(labels)
  if (is.null(acc)) {
    psm_check_budget(n, n, online = TRUE)
    acc <- matrix(0, n, n)
  }
  psm_accumulate_c(acc, labels)
}

# ---------------------------------------------------------------------------
# The fit
# ---------------------------------------------------------------------------
#' Run a sampling kernel
#'
#' Runs `chains` chains of a [new_kernel()] kernel and returns an
#' `mcmix_fit`. All samplers of the package go through this function, so
#' they share its behaviour: one random-number stream per chain (results do
#' not depend on the backend, the number of cores or the chunk sizes),
#' progress reports, Ctrl-C returning the draws collected so far, and
#' [extend()] continuing the chains.
#'
#' @section Interrupts and failures:
#' Chains advance in chunks; a chunk's draws, labels, co-clustering counts,
#' state, random-number seed and counters are stored together or not at all.
#' On every backend, Ctrl-C (or a chain interrupted in its worker) stops all
#' chains at their next chunk boundary and returns the fit with the draws
#' collected so far, with a warning; `fit$interrupted` is `TRUE`, methods
#' use the chains and draws that exist, and `extend(fit, iter = 0)`
#' completes the run exactly as an uninterrupted run would have. A chain
#' whose worker fails or dies raises an error of class `mcmix_chain_error`
#' naming the chain; the condition's `fit` element holds the other chains.
#'
#' Chains run by `future` workers (and on local cores without `fork()`,
#' as on Windows, which use a temporary multisession plan, or without the
#' future package a PSOCK cluster driven the same way) see the stop
#' request when they run on the same machine, report progress through
#' files (or progressr), and save a checkpoint of their chain at most every
#' `getOption("mcmix.checkpoint_interval", 10)` seconds (forked workers
#' too): the draws of a worker that dies are kept up to its last
#' checkpoint. The workers of a cluster plan (multisession, or
#' `future::cluster` on a cluster of [parallel::makeCluster()], on this
#' machine or others) also receive the stop request as a message on the
#' connection they have with the session, so that a chain on another
#' machine stops at its next chunk boundary too. A second Ctrl-C gives up
#' the chains still running, keeping their last
#' checkpoints; so do chains that have not stopped
#' `getOption("mcmix.stop_wait", 5)` seconds after the first (their
#' workers are then restarted). The option
#' `mcmix.chunk_size` fixes the number of iterations per chunk (by default
#' chunks grow until one takes about 0.25 s); the draws never depend on it.
#'
#' A Ctrl-C at a terminal reaches every process of its process group. The
#' workers (forked, multisession and local PSOCK) leave that group before
#' they get a chain, so only the R session sees it, and the session stops
#' them through the stop request; the session itself serves Ctrl-C only
#' while it waits for its chains, never in the middle of a message to a
#' worker, while the chains are collected, or in the sampler's own code
#' before or after the run (a Ctrl-C there gives the fit with a warning:
#' before the run, with no draws; after it, complete). Functions written
#' at the console (targets, gradients, Gibbs conditionals, R families) take
#' the global variables they use to `future` workers (found as future does,
#' with the globals package).
#'
#' @section Progress:
#' With `progress = TRUE` one line reports the chains done, the draws
#' (iterations, warm-up included) per second and the time left, on every
#' backend. It is redrawn in interactive sessions; otherwise a line goes to
#' stderr every `getOption("mcmix.progress_interval", 10)` seconds. Chains
#' run by `future` report through the progressr package when it is
#' installed.
#'
#' @section Memory budget:
#' Before anything is allocated, the memory a run needs at its peak (about
#' three copies of the stored draws: chains x kept draws x (8 bytes per
#' trace + 4 per stored label)) is compared with
#' `getOption("mcmix.memory_budget", 4e9)` bytes, and the run is refused
#' with a message naming the argument when it exceeds it. The same option
#' bounds the other sizes a user controls (the number of sticks of the
#' slice sampler, particles, runs, dimensions). The number of sticks of the
#' DP `"slice"` sampler is also bounded by `getOption("mcmix.work_budget",
#' 1e8)` label evaluations per sweep (at least 1000 sticks); settings that
#' need more (a huge `alpha`, a discount or `kappa` near 1) are refused
#' with a message naming the argument. The same two options bound the
#' work per iteration of [gp_classify()] (its training and test points) and
#' the memory and work per stored draw of the `predict()` methods (the
#' points of `newdata`). The iterations of a chain (`burnin` + `iter`,
#' times the kernel's field `work` per iteration when it has one) are
#' bounded by `getOption("mcmix.work_budget", 1e8)` too.
#'
#' @param kernel An `mcmix_kernel`.
#' @param iter Number of iterations per chain after burn-in.
#' @param burnin Number of warm-up iterations per chain (not kept). Unlike the
#'   samplers (where it is `floor(iter / 2)`, see [mcmix-run-settings]) it
#'   defaults to 0 here: the author of a kernel decides its warm-up.
#' @param thin Keep every `thin`-th iteration.
#' @param chains Number of chains.
#' @param cores Number of local cores for running chains in parallel.
#' @param backend `"auto"` (the default: a `future` plan when one other than
#'   sequential is set, else forked cores when `cores > 1`, else sequential),
#'   `"sequential"`, `"parallel"` or `"future"`.
#' @param progress Report progress (see the section Progress).
#' @param labels Keep the cluster labels returned by the kernel.
#' @param psm Accumulate the posterior similarity matrix while sampling.
#' @param model,data,call Stored in the fit, for methods and [extend()]. The
#'   kernel of a mixture fit (`fit$kernel`) holds no data of its own (a saved
#'   fit stores them once): run it with `data = fit$data`.
#' @return An object of class `mcmix_fit`.
#' @seealso [new_kernel()], [extend()]; every option with its default: [mcmix-options]
#' @examples
#' k <- new_kernel("iid_uniform",
#'   init = function(chain) list(),
#'   step = function(state, n, thin, offset, warmup) {
#'     u <- stats::runif(n)
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state,
#'          draws = list(traces = matrix(u[keep], ncol = 1, dimnames = list(NULL, "u"))))
#'   },
#'   trace_names = "u")
#' set.seed(42)
#' fit <- run_kernel(k, iter = 200, chains = 2)
#' @export
run_kernel <- function(kernel, iter = 1000, burnin = 0, thin = 1, chains = 1,
                       cores = mcmix_option("cores"),
                       backend = mcmix_option("backend"),
                       progress = interactive(), labels = TRUE, psm = FALSE,
                       model = NULL, data = NULL, call = NULL) {
  interrupt_guard()   # Ctrl-C from here on: R/chains_signals.R
  if (!inherits(kernel, "mcmix_kernel"))
    stop("`kernel` must be an mcmix_kernel (see new_kernel()).", call. = FALSE)
  if (is.function(kernel$bind) && is.null(data))   # a fit's kernel (fit_kernel())
    stop(paste0("`kernel` holds no data (a fit's kernel keeps them in `fit$data`): ",
                "give `data`, e.g. `data = fit$data`, or continue the fit with extend()."),
         call. = FALSE)
  iter <- check_count(iter, "iter", 1L)
  burnin <- check_count(burnin, "burnin", 0L)
  check_total_iter(burnin, iter)
  thin <- check_count(thin, "thin", 1L)
  if (thin > iter)   # no draw would be kept
    stop(sprintf("`thin` (%d) must be at most `iter` (%d).", thin, iter), call. = FALSE)
  chains <- check_count(chains, "chains", 1L)
  cores <- check_count(cores, "cores", 1L)
  progress <- check_flag(progress, "progress")
  labels <- check_flag(labels, "labels")
  psm <- check_flag(psm, "psm")
  call <- if (missing(call)) match.call() else fit_call(call)
  # stored labels per draw: the kernel's `label_width` (with the argument
  # that asks for them, `labels_arg`), else one per row of the data
  n_labels <- if (!labels) 0 else if (is.numeric(kernel$label_width)) kernel$label_width
              else if (is.matrix(data)) nrow(data) else 0
  check_draws_budget(chains, iter, thin, length(kernel$trace_names), n_labels,
                     width_arg = kernel$width_arg, labels_arg = kernel$labels_arg)
  check_run_work(burnin, iter, kernel$work)   # R/chains_budget.R (after the memory)
  backend <- resolve_backend(backend, cores, chains)
  streams <- chain_streams(chains)
  fit <- structure(list(
    chains = vector("list", chains),
    kernel = kernel, model = model, data = data, call = call,
    settings = list(iter = iter, burnin = burnin, thin = thin, chains = chains,
                    labels = labels, psm = psm),
    seed = streams$base, streams = streams$seeds,
    timing = c(elapsed = 0), chain_time = chain_time_matrix(chains), interrupted = FALSE,
    format = fit_format), class = "mcmix_fit")
  fit_advance(fit, new = TRUE, cores = cores, backend = backend,
              progress = progress)
}

# The call stored in a fit, under the name of the exported function: a
# method's match.call() names the method (sample_posterior.mcmix_dp_mixture),
# which is not exported, so update() could not evaluate it and print()
# would show an internal name.
fit_call <- function(call) {
  if (!is.call(call) || !is.name(call[[1L]])) return(call)
  f <- as.character(call[[1L]])
  for (g in c("sample_posterior", "extend"))
    if (startsWith(f, paste0(g, "."))) call[[1L]] <- as.name(g)
  call
}

# ---------------------------------------------------------------------------
# Advancing and collecting
# ---------------------------------------------------------------------------

# Bring every chain of `fit` to fit$settings' targets, on `backend`.
fit_advance <- function(fit, new, cores, backend, progress) {
  check_run_options()   # R/options.R: a bad option stops the run before any draw
  # the caller's generator is put back whatever happens below: a Ctrl-C
  # served as with_stream() begins its restore would otherwise leave the
  # chain's L'Ecuyer-CMRG stream installed in the session
  caller <- rng_save()
  on.exit(rng_restore(caller))
  s <- fit$settings
  idx <- seq_len(s$chains)
  total <- sum(vapply(idx, function(i)
    chain_work_left(if (!new) fit$chains[[i]], s), numeric(1)))
  reporter <- progress_reporter(progress && total > 0, total, length(idx))
  t0 <- proc.time()[[3L]]
  res <- switch(backend,
    sequential = run_chains_sequential(fit, idx, new, reporter),
    parallel = if (can_fork())
      run_chains_forked(fit, idx, new, cores, reporter) else
      run_chains_psock(fit, idx, new, cores, reporter, progress),
    future = run_chains_future(fit, idx, new, reporter, progress))
  reporter$close()
  fit$timing[["elapsed"]] <- fit$timing[["elapsed"]] + proc.time()[[3L]] - t0
  fit_collect(fit, idx, new, res)
}

# Install the chains returned by a runner; chains never reached are created
# (so extend() can run them). An interrupt gives a warning and a fit marked
# interrupted; a failed or dead chain an error naming it, whose condition
# holds the fit with the other chains.
fit_collect <- function(fit, idx, new, res) {
  status <- rep("not run", length(idx))
  for (k in seq_along(idx)) {
    r <- res[[k]]
    if (is.null(r)) next
    status[k] <- r$status
    if (!is.null(r$chain)) {
      fit <- fit_add_time(fit, idx[k], r$chain$time)
      r$chain$time <- NULL
      fit$chains[[idx[k]]] <- r$chain
    }
  }
  for (i in idx)
    if (is.null(fit$chains[[i]])) fit$chains[[i]] <- chain_new(fit_kernel(fit), i, fit$streams[[i]],
                                                               deferred = TRUE)
  bad <- which(status %in% c("error", "died"))
  s <- fit$settings
  fit$interrupted <- !all(vapply(fit$chains, function(ch)
    ch$warmup_done >= s$burnin && ch$iter_done >= s$iter, logical(1)))
  if (length(bad)) {
    k <- bad[1L]
    cond <- res[[k]]$condition
    msg <- conditionMessage(cond)
    fit$interrupted <- TRUE
    stop(structure(class = unique(c("mcmix_chain_error", class(cond), "error", "condition")), c(list(
      message = sprintf("chain %d %s: %s%s",
                        idx[k], if (status[k] == "died") "died (its worker process ended)"
                        else "failed", msg,
                        if (length(fit$chains) > 1L) paste0(
                          "\nThe other chains' draws are in the condition's `fit` element ",
                          "(tryCatch(..., error = function(e) e$fit)); extend(e$fit, ",
                          "iter = 0) retries.") else ""),
      call = NULL, fit = fit, chain = idx[k]),
      # the chain's own fields (e.g. the worker of a sharded run)
      unclass(cond)[setdiff(names(cond), c("message", "call", "fit", "chain"))])))
  }
  if (!fit$interrupted && isTRUE(attr(res, "interrupted")))
    warn_interrupt_late()   # R/chains_signals.R
  if (fit$interrupted)
    warn(sprintf(paste0("sampling interrupted; the fit holds the draws collected so ",
                           "far (%s of %s kept draws per chain). Use extend(fit, iter = 0) ",
                           "to finish the run."),
                    paste(fit_draw_counts(fit), collapse = ", "),
                    format_count(floor(fit$settings$iter / fit$settings$thin))),
         c("mcmix_warning_interrupted", "mcmix_warning_interrupt"))
  fit
}

interrupt_store <- new.env(parent = emptyenv())

# Add the seconds `tm` (c(warmup, sample), or NULL) of a run of chain `i`
# to fit$chain_time (see chain_time_matrix()), summed over the runs
# (extend() adds to it). A fit saved before the times were recorded has NA.
fit_add_time <- function(fit, i, tm) {
  ct <- fit$chain_time
  if (!is.matrix(ct) || nrow(ct) < i) {
    new <- chain_time_matrix(max(fit$settings$chains, i), NA_real_)
    if (is.matrix(ct)) new[seq_len(nrow(ct)), ] <- ct
    ct <- new
  }
  if (is.numeric(tm)) ct[i, ] <- ct[i, ] + tm[c("warmup", "sample")]
  fit$chain_time <- ct
  fit
}

# The seconds of warm-up and sampling of `n` chains: a matrix with a row per
# chain ("chain:1", ...) and the columns warmup and sample, all `value`.
chain_time_matrix <- function(n, value = 0)
  matrix(value, n, 2L, dimnames = list(paste0("chain:", seq_len(n)), c("warmup", "sample")))

# ---------------------------------------------------------------------------
# Partial fits
# ---------------------------------------------------------------------------

# The part of a fit that the methods (summary, plot, conversions,
# diagnostics, psm, partition) use: the chains that have kept draws, their
# traces cut to the common number of draws (labels and co-clustering counts
# are kept whole). After an interrupt it says once which chains and draws
# are used; the returned view is marked so that methods calling each other
# stay quiet. A fit whose chains are all complete is returned as it is.
fit_usable <- function(fit, quiet = FALSE) {
  if (!inherits(fit, "mcmix_fit") || isTRUE(fit$usable_view) || !is.list(fit$chains))
    return(fit)
  n <- fit_draw_counts(fit)   # R/summary.R
  keep <- which(n > 0L)
  if (!length(keep))
    stop(paste0("`x` has no kept draws yet (the run was interrupted before any was ",
                "kept); extend(x, iter = 0) completes the run."), call. = FALSE)
  m <- min(n[keep])
  if (length(keep) == length(n) && all(n == m)) return(fit)
  if (!quiet)
    message(sprintf(paste0("The run is incomplete: chains have different numbers of draws (%s); using %s with ",
                           "%s. extend(fit, iter = 0) completes it."),
                    paste(n, collapse = ", "),
                    if (length(keep) == length(n)) "every chain" else
                      sprintf("chain%s %s", if (length(keep) > 1L) "s" else "",
                              paste(keep, collapse = ", ")),
                    if (length(keep) > 1L) sprintf("the first %d draws of each", m)
                    else sprintf("its %d draws", m)))
  fit$chains <- lapply(fit$chains[keep], function(ch) {
    ch$traces <- ch$traces[seq_len(m), , drop = FALSE]
    ch
  })
  fit$usable_view <- TRUE
  fit
}

#' Continue a run
#'
#' Runs every chain of a fit for `iter` more iterations (and first finishes
#' any chain left short by an interrupt). The result equals one longer run
#' with the same seed.
#'
#' @param fit An `mcmix_fit`.
#' @param iter Number of additional iterations per chain (0 finishes an
#'   interrupted run).
#' @param cores,backend,progress As in [run_kernel()].
#' @param ... Unused.
#' @return The extended `mcmix_fit`.
#' @examples
#' k <- new_kernel("iid_normal",
#'   init = function(chain) list(),
#'   step = function(state, n, thin, offset, warmup) {
#'     x <- stats::rnorm(n)
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state,
#'          draws = list(traces = matrix(x[keep], ncol = 1, dimnames = list(NULL, "x"))))
#'   },
#'   trace_names = "x")
#' set.seed(3)
#' fit <- run_kernel(k, iter = 100)
#' fit <- extend(fit, 100)
#' nrow(as.matrix(fit))
#' @export
extend <- function(fit, iter, ...) UseMethod("extend")

# The format of the fit object: its kernel, the layout of the chains'
# states (sampler states, and the family stats blocks saved as raw bytes,
# inst/include/mcmix_abi.h) and the .Call interface they were made for.
# Bumped whenever a fit saved by an earlier version could not be continued
# exactly; extend() refuses other formats. Fits without the field predate
# format 2 (DP algorithms as one table, ABI 3 size units).
fit_format <- 2L

check_fit_format <- function(fit) {
  f <- if (is.null(fit$format)) 1L else fit$format
  if (!identical(f, fit_format))
    stop(sprintf(paste0("`fit` was made by a version of mcmix with fit format %s, but this ",
                        "version continues format %d only: run the sampler again to ",
                        "extend it (its draws are still usable as they are)."),
                 format(f), fit_format), call. = FALSE)
  invisible(fit)
}

#' @rdname extend
#' @export
extend.default <- function(fit, iter, ...) {
  stop(sprintf("`fit` must be an mcmix_fit (from run_kernel(), sample_posterior(), sample_mh(), ...), not %s.",
               describe_value(fit)), call. = FALSE)
}

#' @rdname extend
#' @export
extend.mcmix_fit <- function(fit, iter, cores = mcmix_option("cores"),
                             backend = mcmix_option("backend"),
                             progress = interactive(), ...) {
  interrupt_guard()   # Ctrl-C from here on: R/chains_signals.R
  if (!is.list(fit$settings) || !is.list(fit$chains) || is.null(fit$kernel))
    stop("`fit` must be an mcmix_fit as returned by a sampler; this one lacks its settings, chains or kernel.",
         call. = FALSE)
  check_fit_format(fit)
  if (isTRUE(fit$windowed))
    stop(paste0("`fit` is a window() of a fit: its chains no longer end at their final ",
                "state. Extend the original fit, then take the window."), call. = FALSE)
  iter <- check_count(iter, "iter", 0L)
  check_total_iter(fit$settings$burnin, as.double(fit$settings$iter) + iter)
  check_run_work(fit$settings$burnin, as.double(fit$settings$iter) + iter, fit$kernel$work,
                 arg = "iter")
  cores <- check_count(cores, "cores", 1L)
  progress <- check_flag(progress, "progress")
  fit$settings$iter <- fit$settings$iter + iter
  backend <- resolve_backend(backend, cores, fit$settings$chains)
  fit_advance(fit, new = FALSE, cores = cores, backend = backend,
              progress = progress)
}
