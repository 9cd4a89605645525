# The package's options: one table (mcmix_options_table) with a row per
# option `mcmix.<name>` that the package reads, giving its default, the
# check of its type and range, what reads it and what it does; one
# accessor, mcmix_option(), through which every option is read; the help
# page ?`mcmix-options`, generated from the table. A value that fails its
# check is an error naming the option and the value (class
# "mcmix_error_option", an "mcmix_error_input" whose `arg` is the
# option's full name). The options of a run's interrupt machinery are
# read before its chains start (check_run_options()), so a bad value stops
# the run up front, never when the session serves a Ctrl-C.
# tests/testthat/test-options.R checks that every option read in the
# namespace is a row of the table and of the help page, and that every
# default passes its check.

# ---------------------------------------------------------------------------
# Kinds of values: list(what, ok, as); `what` completes "must be ...",
# `ok(x)` tests a value and `as(x)` converts one that passed.
# ---------------------------------------------------------------------------

opt_is_number <- function(x) is.numeric(x) && !is.object(x) && length(x) == 1L && !is.na(x)

# A whole number in [min, max].
opt_count <- function(min, max = .Machine$integer.max) {
  list(what = if (max < .Machine$integer.max) sprintf("a whole number between %s and %s", min, max)
              else if (min == 1) "a positive whole number" else paste0("a whole number >= ", min),
       ok = function(x) opt_is_number(x) && x == floor(x) && x >= min && x <= max,
       as = as.integer)
}

# A number >= min (> min when `open`), Inf allowed.
opt_number <- function(min = 0, open = FALSE, unit = "") {
  list(what = paste0(if (open && min == 0) paste0("a positive number", unit) else
                       sprintf("a number%s %s %s", unit, if (open) ">" else ">=", min),
                     " (Inf allowed)"),
       ok = function(x) opt_is_number(x) && (if (open) x > min else x >= min),
       as = as.double)
}

opt_flag <- function()
  list(what = "TRUE or FALSE",
       ok = function(x) is.logical(x) && length(x) == 1L && !is.na(x),
       as = identity)

# One of `choices` (or an unambiguous abbreviation, as the argument
# `backend` takes it).
opt_choice <- function(choices)
  list(what = paste("one of", paste0("\"", choices, "\"", collapse = ", ")),
       ok = function(x) is.character(x) && length(x) == 1L && !is.na(x) &&
         !is.na(pmatch(x, choices)),
       as = identity)

# NULL (the default behaviour) or a value of kind `kind`.
opt_or_null <- function(kind)
  list(what = paste("NULL or", kind$what),
       ok = function(x) is.null(x) || kind$ok(x),
       as = function(x) if (is.null(x)) NULL else kind$as(x))

# A row of the table: the default, the kind of value, what reads the
# option and what it does (one line each), and whether it exists for the
# package's tests only.
opt_row <- function(default, kind, reads, does, testing = FALSE)
  c(list(default = default, reads = reads, does = does, testing = testing), kind)

# ---------------------------------------------------------------------------
# The table (the help page lists the rows in this order)
# ---------------------------------------------------------------------------

mcmix_options_table <- list(
  # running chains
  cores = opt_row(1L, opt_count(1L),
    "the default `cores` of run_kernel(), extend(), sample_posterior() and the samplers",
    "Number of chains run at the same time on local cores."),
  backend = opt_row("auto", opt_choice(c("auto", "sequential", "parallel", "future")),
    "the default `backend` of run_kernel(), extend() and the samplers",
    "How chains run in parallel (see run_kernel())."),
  threads = opt_row(1L, opt_count(1L, 1024L),
    "the default `threads` of sample_posterior() for DP mixtures and LDA",
    "OpenMP threads per chain of the DP and LDA samplers."),
  threads_adapt = opt_row(TRUE, opt_flag(),
    "the DP and LDA samplers as a run starts",
    "Whether a run starts no more threads than there are idle cores (Linux); FALSE keeps `threads` as given."),
  chunk_size = opt_row(NULL, opt_or_null(opt_count(1L)),
    "the chain driver (run_kernel(), extend())",
    "Iterations per chunk of a chain; NULL lets chunks grow until one takes about 0.25 s. The draws never depend on it."),
  progress_interval = opt_row(10, opt_number(0, unit = " of seconds"),
    "the progress line of run_kernel() and extend() in non-interactive sessions",
    "Seconds between two progress lines written to stderr."),
  checkpoint_interval = opt_row(10, opt_number(0, unit = " of seconds"),
    "the workers of parallel and future runs",
    "Seconds between two checkpoints of a chain (0: after every chunk); a chain whose worker dies keeps its draws up to the last one."),
  stop_wait = opt_row(5, opt_number(0, unit = " of seconds"),
    "the parallel and future runners after a Ctrl-C (read before the chains start)",
    "Seconds the session waits for the chains to stop after a Ctrl-C before it takes them from their checkpoints."),
  # limits of sizes a user controls
  memory_budget = opt_row(4e9, opt_number(0, open = TRUE, unit = " of bytes"),
    "the checks of sizes before anything is allocated (draws, labels, sticks, particles, ...)",
    "Bytes a run or computation may allocate; larger requests are refused naming the argument."),
  work_budget = opt_row(1e8, opt_number(0, open = TRUE),
    "the checks of work per sweep or draw (DP slice sticks, gp_classify(), predict(), iterations)",
    "Units of work (about one floating-point operation each) per sweep or draw."),
  psm_max_bytes = opt_row(1e9, opt_number(0, open = TRUE, unit = " of bytes"),
    "psm() and `psm = TRUE` of the DP samplers",
    "Largest dense posterior similarity matrix, in bytes."),
  partition_budget = opt_row(1e8, opt_number(0, open = TRUE),
    "the default `budget` of partition()",
    "Work (label evaluations) of the partition search."),
  lda_max_bytes = opt_row(2e9, opt_number(0, open = TRUE, unit = " of bytes"),
    "fit_lda() and sample_posterior() for LDA",
    "Bytes of an LDA chain's state and counts."),
  lda_block_tokens = opt_row(lda_block_tokens_default, opt_count(1L),   # R/lda.R
    "the \"blocked\" LDA sampler",
    "Tokens per cell of the blocked sampler's grid of documents by words."),
  # DP and HDP defaults for large data
  subcluster_min_n = opt_row(20000, opt_number(0),
    "the default `algorithm` of sample_posterior() for DP mixtures and HDPs",
    "Number of observations from which the sub-cluster sampler is the default."),
  warm_start_n = opt_row(5e4, opt_number(0),
    "the default `init` of the sub-cluster DP sampler",
    "Number of observations from which the sub-cluster sampler starts from a subsample."),
  shard_rows = opt_row(1048576L, opt_count(1L),
    "sample_posterior() when it cuts an in-memory matrix into shards (`cl` given, `shards` not)",
    "Rows per shard of an in-memory matrix in a sharded run (the draws depend on the shards, never on the workers)."),
  shard_tokens = opt_row(4194304L, opt_count(1L),
    "sample_posterior() of an LDA model when it cuts in-memory documents into shards (`cl` given, `shards` not)",
    "Tokens per shard of in-memory documents in a sharded LDA run (the draws depend on the shards, never on the workers)."),
  shard_thin = opt_row(32768L, opt_count(0L),
    "the split / merge moves of a sharded DP mixture chain",
    "Union size above which a sharded chain's split / merge moves are thinned (0: never)."),
  warm_start_m = opt_row(20000L, opt_count(2L),
    "the subsample start (`init = \"subsample\"`) of the DP samplers",
    "Size of the evenly spaced subsample of the warm start."),
  warm_start_sweeps = opt_row(100L, opt_count(1L),
    "the subsample start (`init = \"subsample\"`) of the DP samplers",
    "Sweeps of \"split_merge\" on the subsample of the warm start."),
  label_subsample = opt_row(2000, opt_number(1),
    "`labels = \"online\"` of the DP samplers",
    "Largest subsample of observations whose labels are kept per draw."),
  # for the package's tests
  fork = opt_row(TRUE, opt_flag(),
    "the parallel runner",
    "FALSE runs local parallel chains without fork(), as on Windows (multisession futures or a PSOCK cluster).",
    testing = TRUE),
  psock_future = opt_row(TRUE, opt_flag(),
    "the parallel runner without fork()",
    "FALSE uses a PSOCK cluster even when the future package is installed.",
    testing = TRUE),
  signals = opt_row(TRUE, opt_flag(),
    "the interrupt handling of runs (src/ffi_signals.c)",
    "FALSE runs without POSIX signal masks and process groups, as on Windows: a Ctrl-C reaches the session when R serves it.",
    testing = TRUE),
  proc_stat = opt_row(TRUE, opt_flag(),
    "the DP and LDA samplers as a run starts (with `mcmix.threads_adapt`)",
    "FALSE reads no /proc/stat, as on macOS and Windows: a run starts `threads` threads.",
    testing = TRUE),
  openmp = opt_row(TRUE, opt_flag(),
    "the DP and LDA samplers as a run starts",
    "FALSE runs as a build without OpenMP does: one thread whatever `threads` asks, and a message once per session.",
    testing = TRUE),
  worker_files = opt_row(TRUE, opt_flag(),
    "the future runner",
    "FALSE gives local workers no run directory, as workers on another machine.",
    testing = TRUE),
  online_narrow_max = opt_row(NULL, opt_or_null(opt_count(0L, 65535L)),
    "`labels = \"online\"` of the DP samplers",
    "Draws up to which the online estimate keeps 16-bit counts (NULL: 65535).",
    testing = TRUE)
)

# Options of R or of other packages that the package reads too (with
# getOption(), as their owners define them): what reads each and why.
other_options_read <- list(
  mc.cores = list(default = 1, reads = "the `cores` default of loo() for fits (as in the loo package)",
                  does = "Cores of the Pareto smoothed importance sampling of loo().")
)

# ---------------------------------------------------------------------------
# Reading options
# ---------------------------------------------------------------------------

#' Options of mcmix
#'
#' Every option that mcmix reads, with its default, the values it takes and
#' what it changes. Options are set with [options()], e.g.
#' `options(mcmix.cores = 2)`, and read by `mcmix_option()`, which checks
#' the value: a bad one is an error of class `"mcmix_error_option"` (an
#' `"mcmix_error_input"`, see [mcmix-conditions]) whose field `arg` is the
#' option's full name. The options of a run ([run_kernel()], [extend()] and
#' every sampler built on them) are checked before its chains start, so a
#' bad value never stops a run half way or loses its draws. Draws never
#' depend on the options below other than through the settings they give
#' (`cores`, `backend`, `threads`, `chunk_size` and the intervals change
#' how chains run, never their draws).
#'
#' @eval mcmix_options_rd()
#'
#' @param name The name of an option without the prefix `mcmix.`, e.g.
#'   `"cores"` (`"mcmix.cores"` is accepted too).
#' @return `mcmix_option()`: the option's value (its default when it is
#'   not set), checked and converted (whole numbers to integers).
#' @name mcmix-options
#' @aliases mcmix_option
#' @seealso [mcmix-run-settings], [run_kernel()]
#' @examples
#' mcmix_option("cores")
#' old <- options(mcmix.stop_wait = 2)
#' mcmix_option("stop_wait")
#' options(mcmix.stop_wait = -1)
#' e <- tryCatch(mcmix_option("stop_wait"), mcmix_error_input = function(e) e)
#' conditionMessage(e)
#' e$arg
#' options(old)
#' @export
mcmix_option <- function(name) {
  if (!is.character(name) || length(name) != 1L || is.na(name))
    stop_input(sprintf("`name` must be the name of an option, not %s.", describe_value(name)),
               "name")
  short <- sub("^mcmix[.]", "", name)
  row <- mcmix_options_table[[short]]
  if (is.null(row))
    stop_input(sprintf("`name` must be one of the options of mcmix (%s), not %s.",
                       paste0("\"", names(mcmix_options_table), "\"", collapse = ", "),
                       describe_value(name)), "name")
  full <- paste0("mcmix.", short)
  v <- getOption(full)
  if (is.null(v)) return(row$default)
  if (!row$ok(v))
    stop_input(sprintf("option `%s` must be %s, not %s (see ?`mcmix-options`).", full,
                       row$what, describe_value(v)), full, class = "mcmix_error_option")
  row$as(v)
}

# The options of a run's chain driver, runners and interrupt handling,
# checked before any chain starts (R/chains.R, fit_advance()).
run_options <- c("chunk_size", "progress_interval", "checkpoint_interval", "stop_wait",
                 "fork", "psock_future", "worker_files", "signals")

check_run_options <- function() {
  for (nm in run_options) mcmix_option(nm)
  invisible(TRUE)
}

# ---------------------------------------------------------------------------
# The help page
# ---------------------------------------------------------------------------

# A default as the help page shows it.
opt_format_default <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.numeric(x)) return(format(x, scientific = x >= 1e6))
  paste(deparse(x), collapse = "")
}

# The roxygen lines of the help page's sections: one item per option.
mcmix_options_rd <- function() {
  item <- function(nm) {
    r <- mcmix_options_table[[nm]]
    sprintf("* `mcmix.%s` (default `%s`; %s): %s Read by %s.", nm,
            opt_format_default(r$default), r$what, r$does, r$reads)
  }
  testing <- vapply(mcmix_options_table, function(r) r$testing, logical(1))
  c("@section Options:",
    "Each item gives the option's default, the values it takes, what it does and what reads it.",
    "",
    vapply(names(mcmix_options_table)[!testing], item, ""),
    "",
    "@section Testing options:",
    "Options that make the package take a path it would take on another platform or machine, for its own tests.",
    "",
    vapply(names(mcmix_options_table)[testing], item, ""),
    "",
    "@section Options of R and other packages:",
    "Options that mcmix reads as their owners define them.",
    "",
    vapply(names(other_options_read), function(nm) {
      r <- other_options_read[[nm]]
      sprintf("* `%s` (default `%s`): %s Read by %s.", nm, opt_format_default(r$default),
              r$does, r$reads)
    }, ""))
}
