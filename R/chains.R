# The common chain driver (DESIGN sections 3 and 4).
#
# Every sampler of the package is a *kernel*: an `init` function building the
# full state of one chain as a plain R list, and a `step` function advancing
# that state by `n` iterations and returning the kept draws of that chunk.
# This file runs kernels: chains, RNG streams, chunks, progress bar,
# interrupts, backends (sequential, forked cores, future), and `extend()`.
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

rng_restore <- function(saved) {
  do.call(RNGkind, as.list(saved$kind))
  if (is.null(saved$seed)) {
    if (exists(".Random.seed", envir = globalenv(), inherits = FALSE))
      rm(".Random.seed", envir = globalenv())
  } else {
    assign(".Random.seed", saved$seed, envir = globalenv())
  }
}

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
# iter_done, and the chunks of draws collected so far.
chain_new <- function(kernel, chain_id, seed) {
  r <- with_stream(seed, function() kernel$init(chain_id))
  list(id = chain_id, state = r$value, seed = r$seed,
       warmup_done = 0L, iter_done = 0L,
       traces = NULL, labels = NULL, extra = NULL, psm = NULL, psm_n = 0L)
}

# Advance `chain` up to `burnin` warm-up and `iter` kept-phase iterations.
# `tick(n)` reports progress. Chunk lengths grow until a chunk takes about
# `target_secs`, which never changes the draws (kernels are chunk-invariant).
chain_run <- function(kernel, chain, burnin, iter, thin, keep_labels, psm,
                      tick = function(n) NULL, target_secs = 0.25) {
  chunk <- 1L
  pieces <- list(traces = list(), labels = list(), extra = list())
  advance <- function(phase_left, offset, warmup) {
    n <- min(chunk, phase_left)
    if (!warmup && thin > 1L) {
      # end chunks on kept iterations when possible (keeps chunks aligned)
      n <- max(1L, min(phase_left, ((offset + n) %/% thin) * thin - offset))
    }
    t0 <- proc.time()[[3L]]
    r <- with_stream(chain$seed, function()
      kernel$step(chain$state, n, thin, offset, warmup))
    dt <- proc.time()[[3L]] - t0
    check_step_value(r$value, kernel$name, n, offset, thin, warmup)
    chain$state <<- r$value$state
    chain$seed <<- r$seed
    if (warmup) chain$warmup_done <<- chain$warmup_done + n
    else chain$iter_done <<- chain$iter_done + n
    if (!warmup) {
      d <- r$value$draws
      if (!is.null(d$traces) && nrow(d$traces))
        pieces$traces[[length(pieces$traces) + 1L]] <<- d$traces
      if (!is.null(d$labels) && nrow(d$labels)) {
        if (psm) {
          chain$psm <<- psm_accumulate(chain$psm, d$labels)
          chain$psm_n <<- chain$psm_n + nrow(d$labels)
        }
        if (keep_labels)
          pieces$labels[[length(pieces$labels) + 1L]] <<- d$labels
      }
      if (length(d$extra))
        pieces$extra[[length(pieces$extra) + 1L]] <<- d$extra
    }
    if (dt < target_secs / 2 && chunk < 1e6) chunk <<- chunk * 2L
    else if (dt > 2 * target_secs && chunk > 1L) chunk <<- max(1L, chunk %/% 2L)
    tick(n)
    n
  }
  # Bind the collected chunks into the chain. On an interrupt the partial
  # chain is left in `interrupt_store` for fit_recover_interrupted().
  finish <- function() {
    if (length(pieces$traces))
      chain$traces <<- rbind(chain$traces, do.call(rbind, pieces$traces))
    if (length(pieces$labels))
      chain$labels <<- rbind(chain$labels, do.call(rbind, pieces$labels))
    if (length(pieces$extra))
      chain$extra <<- c(chain$extra, do.call(c, pieces$extra))
    pieces <<- list(traces = list(), labels = list(), extra = list())
    chain
  }
  completed <- FALSE
  on.exit(if (!completed)
    assign("last_chain", finish(), envir = interrupt_store))
  while (chain$warmup_done < burnin)
    advance(burnin - chain$warmup_done, chain$warmup_done, TRUE)
  while (chain$iter_done < iter)
    advance(iter - chain$iter_done, chain$iter_done, FALSE)
  completed <- TRUE
  finish()
}

# What a kernel's step() returns must have the shape of the kernel contract:
# a list with the new state and, per kept iteration, one row of traces (and
# of labels when there are labels). A wrong shape would otherwise corrupt the
# fit silently or fail later with an R-internal message.
check_step_value <- function(v, name, n, offset, thin, warmup) {
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
  }
  lab <- d$labels
  if (!is.null(lab) && (!is.matrix(lab) || !is.numeric(lab) || nrow(lab) != kept))
    bad(sprintf("must return `draws$labels` as NULL or a numeric matrix with %d row%s",
                kept, if (kept == 1L) "" else "s"))
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
  if (backend == "future" && !requireNamespace("future.apply", quietly = TRUE))
    stop("`backend = \"future\"` needs the future.apply package; install it ",
         "or use `cores =` for local parallel chains.", call. = FALSE)
  backend
}

future_plan_is_set <- function() {
  requireNamespace("future", quietly = TRUE) &&
    requireNamespace("future.apply", quietly = TRUE) &&
    !inherits(future::plan(), "sequential")
}

# Apply `f` to chain indices on the chosen backend. Results are identical for
# every backend because each chain carries its own stream.
chain_apply <- function(idx, f, backend, cores, seeds) {
  switch(backend,
    sequential = lapply(idx, f),
    parallel = {
      if (.Platform$OS.type == "windows") {
        cl <- parallel::makePSOCKcluster(min(cores, length(idx)))
        on.exit(parallel::stopCluster(cl))
        parallel::clusterEvalQ(cl, library(mcmix))
        parallel::parLapply(cl, idx, f)
      } else {
        res <- parallel::mclapply(idx, f, mc.cores = min(cores, length(idx)),
                                  mc.preschedule = FALSE, mc.set.seed = FALSE)
        bad <- vapply(res, inherits, logical(1), "try-error")
        if (any(bad)) stop(attr(res[[which(bad)[1L]]], "condition"))
        res
      }
    },
    future = future.apply::future_lapply(idx, f, future.seed = seeds[idx],
                                         future.packages = "mcmix"))
}

# ---------------------------------------------------------------------------
# The fit
# ---------------------------------------------------------------------------

#' Run a sampling kernel
#'
#' Runs `chains` chains of a [new_kernel()] kernel and returns an
#' `mcmix_fit`. All samplers of the package go through this function, so
#' they share its behaviour: one random-number stream per chain (results do
#' not depend on the backend or the number of cores), a progress bar in
#' interactive sessions, Ctrl-C returning the draws collected so far, and
#' [extend()] continuing the chains.
#'
#' @param kernel An `mcmix_kernel`.
#' @param iter Number of iterations per chain after burn-in.
#' @param burnin Number of warm-up iterations per chain (not kept).
#' @param thin Keep every `thin`-th iteration.
#' @param chains Number of chains.
#' @param cores Number of local cores for running chains in parallel.
#' @param backend `"auto"` (the default: a `future` plan when one other than
#'   sequential is set, else forked cores when `cores > 1`, else sequential),
#'   `"sequential"`, `"parallel"` or `"future"`.
#' @param progress Show a progress bar (only in interactive sessions).
#' @param labels Keep the cluster labels returned by the kernel.
#' @param psm Accumulate the posterior similarity matrix while sampling.
#' @param model,data,call Stored in the fit, for methods and [extend()].
#' @return An object of class `mcmix_fit`.
#' @seealso [new_kernel()], [extend()]
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
                       cores = getOption("mcmix.cores", 1L),
                       backend = getOption("mcmix.backend", "auto"),
                       progress = interactive(), labels = TRUE, psm = FALSE,
                       model = NULL, data = NULL, call = NULL) {
  if (!inherits(kernel, "mcmix_kernel"))
    stop("`kernel` must be an mcmix_kernel (see new_kernel()).", call. = FALSE)
  iter <- check_count(iter, "iter", 1L)
  burnin <- check_count(burnin, "burnin", 0L)
  check_total_iter(burnin, iter)
  thin <- check_count(thin, "thin", 1L)
  chains <- check_count(chains, "chains", 1L)
  cores <- check_count(cores, "cores", 1L)
  progress <- check_flag(progress, "progress")
  labels <- check_flag(labels, "labels")
  psm <- check_flag(psm, "psm")
  backend <- resolve_backend(backend, cores, chains)
  streams <- chain_streams(chains)
  fit <- structure(list(
    chains = vector("list", chains),
    kernel = kernel, model = model, data = data, call = call,
    settings = list(iter = iter, burnin = burnin, thin = thin, chains = chains,
                    labels = labels, psm = psm),
    seed = streams$base, streams = streams$seeds,
    timing = c(elapsed = 0), interrupted = FALSE, format = fit_format), class = "mcmix_fit")
  fit_advance(fit, new = TRUE, cores = cores, backend = backend,
              progress = progress)
}

# Bring every chain of `fit` to fit$settings' targets.
fit_advance <- function(fit, new, cores, backend, progress) {
  s <- fit$settings
  kernel <- fit$kernel
  idx <- seq_len(s$chains)
  one <- function(i, tick = function(n) NULL) {
    ch <- if (new) chain_new(kernel, i, fit$streams[[i]]) else fit$chains[[i]]
    chain_run(kernel, ch, s$burnin, s$iter, s$thin, s$labels, s$psm, tick)
  }
  t0 <- proc.time()[[3L]]
  if (backend == "sequential") {
    total <- sum(vapply(idx, function(i) {
      ch <- fit$chains[[i]]
      if (new || is.null(ch)) as.double(s$burnin) + s$iter
      else as.double(s$burnin - ch$warmup_done) + (s$iter - ch$iter_done)
    }, numeric(1)))
    bar <- NULL
    done <- 0
    if (progress && interactive() && total > 0) {
      bar <- utils::txtProgressBar(min = 0, max = total, style = 3)
      on.exit(close(bar), add = TRUE)
    }
    tick <- function(n) {
      done <<- done + n
      if (!is.null(bar)) utils::setTxtProgressBar(bar, done)
    }
    # An interrupt keeps every completed chunk: chain_run() stores its chain
    # in its frame on exit, and the chains not reached stay as they were.
    current <- NULL
    interrupted <- tryCatch({
      for (i in idx) {
        current <- i
        fit$chains[[i]] <- one(i, tick)
      }
      FALSE
    }, interrupt = function(e) TRUE)
    if (interrupted) {
      fit <- fit_recover_interrupted(fit, kernel, current)
      warning("sampling interrupted; the fit holds the draws collected so far. ",
              "Use extend(fit, iter = 0) to finish the run.", call. = FALSE)
    }
    fit$interrupted <- interrupted
  } else {
    res <- chain_apply(idx, function(i) one(i), backend, cores, fit$streams)
    fit$chains <- res
    fit$interrupted <- FALSE
  }
  fit$timing[["elapsed"]] <- fit$timing[["elapsed"]] + proc.time()[[3L]] - t0
  fit
}

# After an interrupt inside chain `i`, the partially run chain is the one
# chain_run() left in `interrupt_store`; chains not reached keep their state.
fit_recover_interrupted <- function(fit, kernel, i) {
  rec <- get0("last_chain", envir = interrupt_store, inherits = FALSE)
  if (!is.null(rec) && identical(rec$id, i)) fit$chains[[i]] <- rec
  for (j in seq_along(fit$chains))
    if (is.null(fit$chains[[j]]))
      fit$chains[[j]] <- chain_new(kernel, j, fit$streams[[j]])
  if (exists("last_chain", envir = interrupt_store, inherits = FALSE))
    rm("last_chain", envir = interrupt_store)
  fit
}

interrupt_store <- new.env(parent = emptyenv())

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
#' nrow(fit$chains[[1]]$traces)
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
extend.mcmix_fit <- function(fit, iter, cores = getOption("mcmix.cores", 1L),
                             backend = getOption("mcmix.backend", "auto"),
                             progress = interactive(), ...) {
  if (!is.list(fit$settings) || !is.list(fit$chains) || is.null(fit$kernel))
    stop("`fit` must be an mcmix_fit as returned by a sampler; this one lacks its settings, chains or kernel.",
         call. = FALSE)
  check_fit_format(fit)
  iter <- check_count(iter, "iter", 0L)
  check_total_iter(fit$settings$burnin, as.double(fit$settings$iter) + iter)
  cores <- check_count(cores, "cores", 1L)
  progress <- check_flag(progress, "progress")
  fit$settings$iter <- fit$settings$iter + iter
  backend <- resolve_backend(backend, cores, fit$settings$chains)
  fit_advance(fit, new = FALSE, cores = cores, backend = backend,
              progress = progress)
}
