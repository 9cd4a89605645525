# Fault injection shared by the tests (test-fuzz.R, test-interrupt.R) and by
# the full campaigns (tools/fuzz.R, tools/interrupts.R; `make fuzz`).
#
# 1. Bad input: the calls of every exported function found in the package's
#    examples are taken as base calls; each argument (given or not) is
#    replaced in turn by bad values (wrong types, NULL, NA/NaN/Inf, empty,
#    huge, negative, wrong dimensions, a fit of the wrong kind), and each
#    call runs in a forked child with a time limit. Outcomes: "ok" (a
#    result without NaN), "error" (an R error naming an argument, or an
#    error condition raised on purpose by the package), "internal" (an
#    R-internal or mcmix-internal message), "nan" (a result holding NaN
#    values), "hang" (time limit), "crash" (the child died).
# 2. Interrupts: a kernel wrapper that sends SIGINT to its own process at
#    its k-th step call (once per run, across forked workers, through a flag
#    file), and checks that an interrupted fit's counters match its draws.

# ---------------------------------------------------------------------------
# Bad values
# ---------------------------------------------------------------------------

fault_values <- function() {
  wrong_fit <- fault_iid_fit()
  list(
    "NULL" = NULL, "NA" = NA, "NA_real_" = NA_real_, "NaN" = NaN, "Inf" = Inf,
    "-Inf" = -Inf, "-1" = -1, "0" = 0, "0.5" = 0.5, "1e300" = 1e300,
    "-1e300" = -1e300, "1e-300" = 1e-300, ".Machine$integer.max" = .Machine$integer.max,
    "numeric(0)" = numeric(0), "character(0)" = character(0), "\"a\"" = "a",
    "TRUE" = TRUE, "c(1, NA)" = c(1, NA), "list()" = list(), "list(1, \"a\")" = list(1, "a"),
    "matrix(0, 0, 2)" = matrix(0, 0, 2), "matrix(1:6, 2)" = matrix(1:6, 2),
    "array(0, c(2, 2, 2))" = array(0, c(2, 2, 2)), "data.frame()" = data.frame(),
    "factor(\"a\")" = factor("a"), "function(...) NULL" = function(...) NULL,
    "function(...) NaN" = function(...) NaN, "function(...) stop(\"boom\")" =
      function(...) stop("boom"),
    "rep(1, 1e6)" = rep(1, 1e6), "complex(1)" = complex(1),
    "a fit of another kind" = wrong_fit)
}

# A fit of the generic kind (iid normal draws), given where a fit of another
# kind is expected.
fault_iid_fit <- function() {
  k <- new_kernel("iid_normal", init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = matrix(stats::rnorm(length(keep)),
        ncol = 1, dimnames = list(NULL, "x"))))
    }, trace_names = "x")
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
    assign(".Random.seed", old, envir = globalenv()))
  set.seed(1)
  run_kernel(k, iter = 20, chains = 2, progress = FALSE)
}

# Calls of exported functions in the examples of help page `rd` (a file),
# with the code of the example as a list of expressions.
fault_examples <- function(rd_file) {
  f <- tempfile(fileext = ".R")
  on.exit(unlink(f))
  tools::Rd2ex(rd_file, f, commentDontrun = TRUE, commentDonttest = FALSE)
  if (!file.exists(f)) return(list(exprs = list(), calls = list()))
  exprs <- tryCatch(as.list(parse(f, keep.source = FALSE)), error = function(e) list())
  exported <- getNamespaceExports("mcmix")
  calls <- list()
  walk <- function(e) {
    if (is.call(e)) {
      fn <- e[[1L]]
      if (is.call(fn) && identical(fn[[1L]], as.name("::")) &&
          identical(as.character(fn[[2L]]), "mcmix")) fn <- fn[[3L]]
      if (is.name(fn) && as.character(fn) %in% exported)
        calls[[length(calls) + 1L]] <<- e
      for (a in as.list(e)[-1L]) if (!missing(a)) walk(a)
    }
  }
  for (e in exprs) walk(e)
  list(exprs = exprs, calls = calls)
}

# Every variant of `call` with one argument replaced by a bad value. Each
# variant: list(call, fun, arg, value (label)).
fault_variants <- function(call, values = fault_values()) {
  fn <- as.character(if (is.call(call[[1L]])) call[[1L]][[3L]] else call[[1L]])
  f <- get(fn, envir = asNamespace("mcmix"))
  fa <- names(formals(args(f)))
  if (is.null(fa)) fa <- character()
  m <- tryCatch(match.call(args(f), call, expand.dots = FALSE),
                error = function(e) NULL)
  if (is.null(m)) return(list())
  m[[1L]] <- as.name(fn)
  base <- deparse1(m, width.cutoff = 500L)
  out <- list()
  for (a in setdiff(fa, "...")) {
    for (v in names(values)) {
      cl <- m
      cl[a] <- list(values[[v]])
      out[[length(out) + 1L]] <- list(call = cl, fun = fn, arg = a, value = v,
                                      base = base,
                                      label = sprintf("%s with %s = %s", base, a, v))
    }
  }
  out
}

# Messages that are not the package's own argument-named errors.
fault_internal_patterns <- c(
  "internal error", "bad argument type", "subscript out of bounds",
  "non-numeric argument", "missing value where TRUE/FALSE needed",
  "argument is of length zero", "cannot allocate", "invalid 'type'",
  "object of type", "is not a function", "non-conformable",
  "number of columns of matrices", "attempt to", "argument \"",
  "NAs introduced", "incorrect number of dimensions", "replacement has",
  "arguments imply differing", "could not find function", "unused argument",
  "\\$ operator is invalid", "invalid argument to unary", "NA/NaN argument",
  "length of 'dimnames'", "undefined columns", "vector size", "too large",
  "is not TRUE", "negative length", "invalid 'times'", "missing value")

# An argument is named when the message quotes it in backticks (the
# package's style, also used for options), or the condition is one of the
# package's classed conditions.
fault_classify_error <- function(e) {
  msg <- conditionMessage(e)
  if (grepl("`", msg, fixed = TRUE) &&
      !grepl("internal error", msg, fixed = TRUE)) return("error")
  if (any(vapply(fault_internal_patterns, grepl, logical(1), msg, ignore.case = FALSE)))
    return("internal")
  "internal"   # no argument named
}

# NaN among the computed values of a result (the model, data, call and
# kernel a fit stores are the user's input, not results).
fault_has_nan <- function(x, depth = 0L) {
  if (depth > 4L) return(FALSE)
  if (is.environment(x) || is.function(x)) return(FALSE)
  if (is.double(x) || is.complex(x)) return(any(is.nan(x)))
  if (is.list(x)) {
    nm <- names(x)
    for (i in seq_along(x)) {
      if (!is.null(nm) && nm[i] %in% c("model", "data", "call", "kernel", "family", "args"))
        next
      if (fault_has_nan(x[[i]], depth + 1L)) return(TRUE)
    }
  }
  FALSE
}

# Inputs that already hold NaN give NaN outputs legitimately only if the
# function accepted them; a NaN output is flagged whatever the input.
fault_run_one <- function(v, env, timeout = 10) {
  job <- parallel::mcparallel({
    grDevices::pdf(NULL)
    options(warn = 1, mcmix.memory_budget = 1e9)
    out <- tryCatch({
      setTimeLimit(elapsed = timeout, transient = TRUE)
      r <- suppressWarnings(suppressMessages(utils::capture.output(
        val <- withVisible(eval(v$call, env))$value)))
      setTimeLimit(elapsed = Inf)
      if (fault_has_nan(val)) list(outcome = "nan", message = "") else
        list(outcome = "ok", message = "")
    }, error = function(e) {
      setTimeLimit(elapsed = Inf)
      if (grepl("reached elapsed time limit", conditionMessage(e)))
        list(outcome = "hang", message = conditionMessage(e))
      else list(outcome = fault_classify_error(e), message = conditionMessage(e))
    }, interrupt = function(e) list(outcome = "hang", message = "interrupted"))
    out
  }, silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = timeout + 5)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    parallel::mccollect(job, wait = TRUE)
    return(list(outcome = "hang", message = sprintf("no answer within %g s", timeout + 5)))
  }
  r <- res[[1L]]
  if (!is.list(r) || is.null(r$outcome))
    return(list(outcome = "crash", message = "the child process died"))
  r
}

# Run the campaign over help pages `rd_files`; `sample` (if not NULL) runs
# that many variants drawn at random (seeded) instead of all. Returns a data
# frame with one row per call.
fault_campaign <- function(rd_files, sample = NULL, seed = 1, timeout = 10,
                           values = fault_values(), verbose = FALSE, max_base = 2L) {
  suppressPackageStartupMessages(library(mcmix))
  plan <- list()
  n_base <- list()
  for (rd in rd_files) {
    ex <- fault_examples(rd)
    for (cl in ex$calls) {
      fn <- as.character(if (is.call(cl[[1L]])) cl[[1L]][[3L]] else cl[[1L]])
      n_base[[fn]] <- (if (is.null(n_base[[fn]])) 0L else n_base[[fn]]) + 1L
      if (n_base[[fn]] > max_base) next   # a few base calls per function
      for (v in fault_variants(cl, values)) {
        v$rd <- basename(rd)
        plan[[length(plan) + 1L]] <- v
      }
    }
  }
  keys <- vapply(plan, function(v) paste(v$rd, v$label), "")
  plan <- plan[!duplicated(keys)]
  if (!is.null(sample) && sample < length(plan)) {
    withr_seed <- function() {
      old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
      set.seed(seed)
      i <- sort(base::sample.int(length(plan), sample))
      if (is.null(old)) rm(".Random.seed", envir = globalenv())
      else assign(".Random.seed", old, envir = globalenv())
      i
    }
    plan <- plan[withr_seed()]
  }
  rows <- list()
  env <- NULL
  env_rd <- ""
  for (v in plan) {
    if (!identical(env_rd, v$rd)) {   # run the page's examples once: their objects
      env <- fault_example_env(file.path(dirname(rd_files[1L]), v$rd))
      env_rd <- v$rd
    }
    r <- fault_run_one(v, env, timeout)
    if (verbose && r$outcome %in% c("internal", "nan", "hang", "crash"))
      message(sprintf("[%s] %s: %s", r$outcome, v$label, substr(r$message, 1, 200)))
    rows[[length(rows) + 1L]] <- data.frame(
      rd = v$rd, fun = v$fun, arg = v$arg, value = v$value,
      outcome = r$outcome, message = substr(r$message, 1, 300),
      call = substr(v$label, 1, 300),
      stringsAsFactors = FALSE)
  }
  if (!length(rows))
    return(data.frame(rd = character(), fun = character(), arg = character(),
                      value = character(), outcome = character(), message = character(),
                      call = character()))
  do.call(rbind, rows)
}

# The objects defined by the examples of a help page (errors ignored),
# evaluated in a forked child so that nothing leaks into the session.
fault_example_env <- function(rd_file) {
  ex <- fault_examples(rd_file)
  job <- parallel::mcparallel({
    grDevices::pdf(NULL)
    env <- new.env(parent = globalenv())
    set.seed(1)
    for (e in ex$exprs) {
      setTimeLimit(elapsed = 60, transient = TRUE)
      try(suppressWarnings(suppressMessages(utils::capture.output(eval(e, env)))),
          silent = TRUE)
      setTimeLimit(elapsed = Inf)
    }
    as.list(env, all.names = TRUE)
  }, silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = 120)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    parallel::mccollect(job, wait = TRUE)
  }
  vals <- if (is.list(res) && is.list(res[[1L]])) res[[1L]] else list()
  env <- new.env(parent = globalenv())
  for (nm in names(vals)) assign(nm, vals[[nm]], envir = env)
  env
}

fault_summary <- function(res) {
  tab <- table(factor(res$outcome, levels = c("ok", "error", "internal", "nan", "hang",
                                               "crash")))
  tab
}

# ---------------------------------------------------------------------------
# Interrupts
# ---------------------------------------------------------------------------

# `kernel` with a step() that sends SIGINT to its own process at its k-th
# call (counted per process) unless `flag` exists; the flag file is created
# first, so a run is interrupted once whatever the number of workers.
# `where = "before"` signals and waits before the chunk's .Call (the
# interrupt lands there); "inside" signals without waiting, so that it lands
# at the first check: inside the compiled loop or the R code it calls back,
# or right after the .Call returned, before the chunk is stored; "after"
# signals once the step returned (at the chunk boundary).
interrupting_kernel <- function(kernel, k, flag = tempfile("mcmix-int-"),
                                where = c("before", "inside", "after")) {
  where <- match.arg(where)
  force(flag)
  calls <- 0L
  step <- kernel$step
  fire <- function(wait) {
    calls <<- calls + 1L
    if (calls >= k && !file.exists(flag)) {
      file.create(flag)
      tools::pskill(Sys.getpid(), tools::SIGINT)
      if (wait) Sys.sleep(0.05)   # the signal is served here
    }
  }
  kernel$step <- function(state, n, thin, offset, warmup) {
    if (where != "after") fire(where == "before")
    r <- step(state, n, thin, offset, warmup)
    if (where == "after") fire(TRUE)
    r
  }
  kernel
}

# Counters of every chain agree with its stored draws, labels and
# co-clustering counts.
fault_counters_ok <- function(fit) {
  s <- fit$settings
  all(vapply(fit$chains, function(ch) {
    kept <- ch$iter_done %/% s$thin
    NROW(ch$traces) == kept &&
      (is.null(ch$labels) || nrow(ch$labels) == kept) &&
      (!isTRUE(s$psm) || ch$psm_n == kept) &&
      (ch$iter_done == 0L || ch$warmup_done == s$burnin)
  }, logical(1)))
}

# The stored results of two fits are identical (draws, labels, psm counts,
# final states, seeds).
fault_same_fit <- function(a, b) {
  keep <- c("traces", "labels", "psm", "psm_n", "state", "seed", "iter_done",
            "warmup_done", "extra")
  identical(lapply(a$chains, `[`, keep), lapply(b$chains, `[`, keep))
}

# Run `kernel` as run_kernel() with an interrupt at step call k; returns the
# interrupted fit (the warning is expected).
fault_interrupted_run <- function(kernel, k, seed, where = "before", ...) {
  ik <- interrupting_kernel(kernel, k, where = where)
  set.seed(seed)
  w <- NULL
  fit <- withCallingHandlers(run_kernel(ik, progress = FALSE, ...),
                             warning = function(c) {
                               w <<- conditionMessage(c)
                               invokeRestart("muffleWarning")
                             })
  attr(fit, "warning") <- w
  fit
}
