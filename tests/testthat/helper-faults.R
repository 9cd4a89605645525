# Fault injection shared by the tests (test-fuzz.R, test-interrupt.R) and by
# the full campaigns (tools/fuzz.R, tools/interrupts.R; `make fuzz`).
#
# 1. Bad input: the calls found in the package's examples are the base
#    calls: calls of every exported function, and calls of generics (print,
#    summary, plot, predict, sample_posterior, ...) that dispatch to one of
#    the package's S3 methods (a top-level symbol in an example counts as a
#    call of print()). Each argument (given or not) of the function, or of
#    the method, is replaced in turn by bad values (wrong types, NULL,
#    NA/NaN/Inf, empty, huge, negative, wrong dimensions, fits of the wrong
#    kind), and each call runs in a forked child with a time limit and the
#    budgets options(mcmix.memory_budget = 1e9, mcmix.work_budget = 1e7).
#    Outcomes: "ok" (a result without NaN), "error" (an R error naming an
#    argument, or an error condition raised on purpose by the package),
#    "wrong_arg" (an error naming an argument the function does not have,
#    fault_wrong_arg()), "internal" (an R-internal or mcmix-internal
#    message), "nan" (a result
#    holding NaN values), "hang" (time limit), "crash" (the child died).
# 2. Interrupts: a kernel wrapper that sends SIGINT to its own process at
#    its k-th step call (once per run, across forked workers, through a flag
#    file), and checks that an interrupted fit's counters match its draws.

# ---------------------------------------------------------------------------
# Bad values
# ---------------------------------------------------------------------------

fault_values <- function() {
  list(
    "NULL" = NULL, "NA" = NA, "NA_real_" = NA_real_, "NaN" = NaN, "Inf" = Inf,
    "-Inf" = -Inf, "-1" = -1, "0" = 0, "0.5" = 0.5, "1e300" = 1e300,
    "-1e300" = -1e300, "1e-300" = 1e-300, ".Machine$integer.max" = .Machine$integer.max,
    "numeric(0)" = numeric(0), "character(0)" = character(0), "\"a\"" = "a",
    "TRUE" = TRUE, "c(1, NA)" = c(1, NA), "list()" = list(), "list(1, \"a\")" = list(1, "a"),
    "matrix(0, 0, 2)" = matrix(0, 0, 2), "matrix(1:6, 2)" = matrix(1:6, 2),
    "array(0, c(2, 2, 2))" = array(0, c(2, 2, 2)), "data.frame()" = data.frame(),
    "factor(\"a\")" = factor("a"), "as.Date(\"2020-01-01\")" = as.Date("2020-01-01"),
    "function(...) NULL" = function(...) NULL,
    "function(...) NaN" = function(...) NaN, "function(...) stop(\"boom\")" =
      function(...) stop("boom"),
    "rep(1, 1e6)" = rep(1, 1e6), "complex(1)" = complex(1),
    # the values of an independent campaign: extremes, and data that are
    # empty, a single row, all missing, constant or identifiers
    "1e308" = 1e308, "2^31" = 2^31, "-2^31" = -2^31,
    "as.Date(c(\"2020-01-01\", \"2021-06-30\"))" = as.Date(c("2020-01-01", "2021-06-30")),
    "factor(c(\"a\", \"b\", \"a\"))" = factor(c("a", "b", "a")),
    "data.frame(x = numeric(0))" = data.frame(x = numeric(0)),
    "data.frame(x = 1, y = \"a\")" = data.frame(x = 1, y = "a"),
    "matrix(1, 1, 2)" = matrix(1, 1, 2),
    "data.frame(x = c(NA_real_, NA, NA))" = data.frame(x = c(NA_real_, NA, NA)),
    "data.frame(a = factor(rep(\"u\", 4)), b = 1:4)" = data.frame(a = factor(rep("u", 4)),
                                                                  b = 1:4),
    "data.frame(id = paste0(\"id\", 1:6), x = c(-2, -1, 0, 1, 2, 3))" =
      data.frame(id = paste0("id", 1:6), x = c(-2, -1, 0, 1, 2, 3)),
    "a fit of another kind" = fault_iid_fit(),
    "a mixture fit" = fault_mixture_fit())
}

# Run `expr` with the seed set to `seed`, leaving the caller's RNG state as
# it was.
fault_with_seed <- function(seed, expr) {
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
    assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed)
  expr
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
  fault_with_seed(1, run_kernel(k, iter = 20, chains = 2, progress = FALSE))
}

# A small finite-mixture fit (with labels), given where a fit of another
# kind is expected.
fault_mixture_fit <- function() {
  fault_with_seed(1, sample_posterior(finite_mixture(gaussian_mean(), K = 2),
                                      c(-2, -1.5, -1, 1, 1.5, 2), iter = 20,
                                      progress = FALSE))
}

# ---------------------------------------------------------------------------
# Base calls
# ---------------------------------------------------------------------------

# The package's own exported functions (re-exports of other packages' are
# left out: their behaviour on bad input is the other package's).
fault_exports <- function() {
  ns <- asNamespace("mcmix")
  ex <- getNamespaceExports("mcmix")
  sort(ex[vapply(ex, function(fn) identical(environment(get(fn, envir = ns)), ns), TRUE)])
}

# The package's S3 methods: a data frame of generic, class, method.
fault_methods <- function() {
  m <- getNamespaceInfo("mcmix", "S3methods")
  data.frame(generic = m[, 1L], class = m[, 2L],
             method = ifelse(is.na(m[, 3L]), paste(m[, 1L], m[, 2L], sep = "."), m[, 3L]),
             stringsAsFactors = FALSE)
}

# The name of the function called by `cl` (`f(...)` or `mcmix::f(...)`), or
# NA.
fault_fun_name <- function(cl) {
  fn <- cl[[1L]]
  if (is.call(fn) && (identical(fn[[1L]], as.name("::")) ||
                      identical(fn[[1L]], as.name(":::")))) fn <- fn[[3L]]
  if (is.name(fn)) as.character(fn) else NA_character_
}

# Calls of the examples of help page `rd` (a parsed Rd object, from
# tools::Rd_db()): list(exprs = the example code as expressions, calls =
# calls of exported functions or of generics with a method in the package,
# each with attribute "expr" (the index of its top-level expression)). A
# top-level expression that is not an assignment is auto-printed: it counts
# as print(expression) too, with attribute "autoprint".
fault_examples <- function(rd) {
  f <- tempfile(fileext = ".R")
  on.exit(unlink(f))
  tools::Rd2ex(rd, f, commentDontrun = TRUE, commentDonttest = FALSE)
  if (!file.exists(f)) return(list(exprs = list(), calls = list()))
  exprs <- tryCatch(as.list(parse(f, keep.source = FALSE)), error = function(e) list())
  wanted <- union(fault_exports(), fault_methods()$generic)
  calls <- list()
  walk <- function(e, i) {
    if (is.call(e)) {
      fn <- fault_fun_name(e)
      if (!is.na(fn) && fn %in% wanted)
        calls[[length(calls) + 1L]] <<- structure(e, expr = i)
      for (a in as.list(e)[-1L]) if (!missing(a)) walk(a, i)
    }
  }
  quiet <- c("<-", "=", "<<-", "print", "plot", "invisible", "library", "require",
             "set.seed", "cat", "for", "if", "while", "{", "stopifnot", "suppressWarnings")
  for (i in seq_along(exprs)) {
    e <- exprs[[i]]
    if (is.name(e) || (is.call(e) && !fault_fun_name(e) %in% quiet))
      calls[[length(calls) + 1L]] <- structure(call("print", e), expr = i, autoprint = TRUE)
    walk(e, i)
  }
  list(exprs = exprs, calls = calls)
}

# Run the examples of `ex` (from fault_examples()) in a forked child (errors
# ignored), so that nothing leaks into the session. Returns list(env = the
# objects they define, classes = for each call of a generic, the class of
# its first argument just before its top-level expression ran (for an
# auto-print, the class of the visible value), or NULL).
fault_example_env <- function(ex) {
  generic <- vapply(ex$calls, function(cl) !fault_fun_name(cl) %in% fault_exports() ||
                      fault_fun_name(cl) %in% fault_methods()$generic, TRUE)
  job <- parallel::mcparallel({
    grDevices::pdf(NULL)
    env <- new.env(parent = globalenv())
    classes <- vector("list", length(ex$calls))
    set.seed(1)
    for (i in seq_along(ex$exprs)) {
      setTimeLimit(elapsed = 60, transient = TRUE)
      here <- which(generic & vapply(ex$calls, attr, 0L, "expr") == i)
      auto <- here[vapply(ex$calls[here], function(cl) isTRUE(attr(cl, "autoprint")), TRUE)]
      for (j in setdiff(here, auto))
        if (length(ex$calls[[j]]) > 1L)
          classes[j] <- list(tryCatch(suppressWarnings(suppressMessages(
            class(eval(ex$calls[[j]][[2L]], env)))), error = function(e) NULL))
      val <- try(suppressWarnings(suppressMessages(utils::capture.output(
        v <- withVisible(eval(ex$exprs[[i]], env))))), silent = TRUE)
      if (!inherits(val, "try-error") && v$visible)
        for (j in auto) classes[j] <- list(class(v$value))
      setTimeLimit(elapsed = Inf)
    }
    list(objects = as.list(env, all.names = TRUE), classes = classes)
  }, silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = 300)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    parallel::mccollect(job, wait = TRUE)
  }
  r <- if (is.list(res) && is.list(res[[1L]])) res[[1L]] else list()
  env <- new.env(parent = globalenv())
  for (nm in names(r$objects)) assign(nm, r$objects[[nm]], envir = env)
  classes <- if (length(r$classes) == length(ex$calls)) r$classes else
    vector("list", length(ex$calls))
  list(env = env, classes = classes)
}

# The package's method that a generic call with a first argument of class
# `cls` dispatches to (not the default method), or NULL.
fault_method_for <- function(generic, cls) {
  m <- fault_methods()
  for (k in cls) {
    i <- which(m$generic == generic & m$class == k)
    if (length(i)) return(m$method[i[1L]])
  }
  NULL
}

# Every variant of `call` with one argument replaced by a bad value. Each
# variant: list(call, fun, arg, value (label), base, label). With `method`
# (the name of an S3 method the call dispatches to), the method's arguments
# are varied, except the one dispatched on.
fault_variants <- function(call, values = fault_values(), method = NULL) {
  fn <- fault_fun_name(call)
  f <- get(if (is.null(method)) fn else method, envir = asNamespace("mcmix"))
  fa <- names(formals(args(f)))
  if (is.null(fa)) fa <- character()
  m <- tryCatch(match.call(args(f), call, expand.dots = FALSE),
                error = function(e) NULL)
  if (is.null(m)) return(list())
  if ("..." %in% names(m)) {   # the arguments that went to `...`, spliced back
    dots <- as.list(m[["..."]])
    m <- as.call(c(as.list(m[names(m) != "..."]), dots))
  }
  if (!is.null(method)) fa <- fa[-1L]   # (the argument dispatched on)
  m[[1L]] <- call[[1L]]   # as written (mcmix::f, coda::as.mcmc, ...)
  base <- deparse1(m, width.cutoff = 500L)
  out <- list()
  for (a in setdiff(fa, "...")) {
    for (v in names(values)) {
      cl <- m
      cl[a] <- list(values[[v]])
      out[[length(out) + 1L]] <- list(call = cl, fun = if (is.null(method)) fn else method,
                                      arg = a, value = v, base = base,
                                      label = sprintf("%s with %s = %s", base, a, v))
    }
  }
  out
}

# The base calls of help page `rd`, at most `max_base` per function or
# method, and the objects of its examples: list(bases = list of
# list(call, fun, method), env). `seen` counts the base calls per function
# across pages (an environment, updated).
fault_page <- function(rd, max_base = 2L, seen = new.env()) {
  ex <- fault_examples(rd)
  if (!length(ex$calls)) return(list(bases = list(), env = NULL))
  pe <- fault_example_env(ex)
  exported <- fault_exports()
  bases <- list()
  add <- function(cl, fun, method) {
    n <- if (exists(fun, envir = seen, inherits = FALSE)) get(fun, envir = seen) else 0L
    if (n >= max_base) return()
    assign(fun, n + 1L, envir = seen)
    bases[[length(bases) + 1L]] <<- list(call = cl, fun = fun, method = method)
  }
  for (j in seq_along(ex$calls)) {
    cl <- ex$calls[[j]]
    attr(cl, "expr") <- NULL
    attr(cl, "autoprint") <- NULL
    fn <- fault_fun_name(cl)
    if (fn %in% exported) add(cl, fn, NULL)
    cls <- pe$classes[[j]]
    method <- if (length(cls)) fault_method_for(fn, cls)
    if (!is.null(method)) add(cl, method, method)
  }
  list(bases = bases, env = pe$env)
}

# Functions and methods without a base call in the help pages `rd_db`:
# exported functions (every one must be reached; found from the code of the
# examples alone), and with `methods = TRUE` also the S3 methods that have
# arguments beyond the one dispatched on and `...` (this runs the examples,
# to know the classes of the objects).
fault_unreached <- function(rd_db = tools::Rd_db("mcmix"), methods = FALSE) {
  seen <- character()
  for (rd in names(rd_db)) {
    if (methods) {
      p <- fault_page(rd_db[[rd]], max_base = 1L, seen = new.env())
      seen <- c(seen, vapply(p$bases, `[[`, "", "fun"))
    } else {
      seen <- c(seen, vapply(fault_examples(rd_db[[rd]])$calls, fault_fun_name, ""))
    }
  }
  setdiff(c(fault_exports(), if (methods) fault_methods_with_args()), seen)
}

# The S3 methods (not default methods) with arguments beyond the one
# dispatched on and `...`: the campaign must reach each of them.
fault_methods_with_args <- function() {
  m <- fault_methods()
  has_args <- vapply(m$method, function(me) length(setdiff(
    names(formals(get(me, envir = asNamespace("mcmix"))))[-1L], "...")) > 0L, TRUE)
  m$method[has_args & m$class != "default"]
}

# ---------------------------------------------------------------------------
# Running calls
# ---------------------------------------------------------------------------

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
  "is not TRUE", "negative length", "invalid 'times'", "missing value",
  "no applicable method")

# An argument is named when the message quotes it in backticks (the
# package's style, also used for options), or the condition is one of the
# package's classed conditions.
fault_classify_error <- function(e) {
  msg <- conditionMessage(e)
  if (grepl("boom", msg, fixed = TRUE)) return("error")   # the user's function failed
  if (grepl("`", msg, fixed = TRUE) &&
      !grepl("internal error", msg, fixed = TRUE)) return("error")
  if (any(vapply(fault_internal_patterns, grepl, logical(1), msg, ignore.case = FALSE)))
    return("internal")
  "internal"   # no argument named
}

# Whether error `e` of variant `v` names an argument that the function
# called does not have (e.g. `data` for a method's `newdata`): the
# argument the error names (its field `arg`, else the first back-quoted
# name of its message) is no argument of the function or method, nor a
# name given in the call (arguments passed on through `...`), nor an
# option (`mcmix.*`), nor an argument of a constructor whose object the
# call may hold (`log_density` of target(), `alpha` of dp_mixture(), ...:
# fault_ctor_args()), but it is an argument of another function or method
# of the package. (Names of columns, list elements or globals are not
# arguments of any function, and are not flagged.)
fault_wrong_arg <- function(e, v) {
  arg <- if (inherits(e, "mcmix_error") && !is.null(e$arg)) e$arg else {
    m <- regmatches(conditionMessage(e), regexpr("`[.A-Za-z][._A-Za-z0-9]*", conditionMessage(e)))
    if (length(m)) substring(m, 2L) else NA_character_
  }
  if (!is.character(arg) || length(arg) != 1L || is.na(arg) || startsWith(arg, "mcmix.") ||
      is.null(v$fun)) return(FALSE)
  ns <- asNamespace("mcmix")
  f <- get0(v$fun, envir = ns)
  if (!is.function(f)) return(FALSE)
  given <- names(as.list(v$call))[-1L]
  if (arg %in% c(names(formals(args(f))), given, fault_ctor_args())) return(FALSE)
  arg %in% fault_all_args()
}

# The arguments of the package's constructors: targets, proposals,
# adaptations, families, priors, models and kernels.
fault_ctor_args <- function() {
  ex <- fault_exports()
  ctor <- c(grep("^(gaussian_|bernoulli_|categorical_|poisson_|proposal_|adapt_)|_prior$|_mixture$|_model$",
                 ex, value = TRUE),
            "target", "new_kernel", "dp_control", "r_family", "mcmix_family", "product_family",
            "bayes_net")
  ns <- asNamespace("mcmix")
  unique(unlist(lapply(intersect(ctor, ex), function(fn) names(formals(args(get(fn, envir = ns)))))))
}

# The arguments of every exported function and S3 method of the package.
fault_all_args <- function() {
  ns <- asNamespace("mcmix")
  fns <- c(fault_exports(), fault_methods()$method)
  unique(unlist(lapply(fns, function(fn) {
    f <- get0(fn, envir = ns)
    if (is.function(f)) names(formals(args(f)))
  })))
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

# The budgets the calls of the campaign run with (documented in the README
# and in ?run_kernel): sizes beyond them must be refused by name, so that
# every accepted call finishes within the time limit.
fault_options <- list(mcmix.memory_budget = 1e9, mcmix.work_budget = 1e7)

# Run variant `v` in a forked child with a time limit of `timeout` seconds
# of CPU time (a call that computes that long without finishing is a hang;
# CPU time, so that the verdict does not depend on the load of the machine)
# and 4 times as many seconds of elapsed time (a call that sleeps or waits);
# NaN in a result is flagged whatever the input.
fault_run_one <- function(v, env, timeout = 10) {
  job <- parallel::mcparallel({
    grDevices::pdf(NULL)
    options(warn = 1)
    options(fault_options)
    out <- tryCatch({
      setTimeLimit(cpu = timeout, elapsed = 4 * timeout, transient = TRUE)
      r <- suppressWarnings(suppressMessages(utils::capture.output(
        val <- withVisible(eval(v$call, env))$value)))
      setTimeLimit(cpu = Inf, elapsed = Inf)
      if (fault_has_nan(val)) list(outcome = "nan", message = "") else
        list(outcome = "ok", message = "")
    }, error = function(e) {
      setTimeLimit(cpu = Inf, elapsed = Inf)
      if (grepl("reached (elapsed|CPU) time limit", conditionMessage(e)))
        list(outcome = "hang", message = conditionMessage(e))
      else {
        o <- fault_classify_error(e)
        if (o == "error" && fault_wrong_arg(e, v)) o <- "wrong_arg"
        list(outcome = o, message = conditionMessage(e))
      }
    }, interrupt = function(e) list(outcome = "hang", message = "interrupted"))
    out
  }, silent = TRUE)
  # (a child that died is reported here, not by mccollect's warning)
  res <- suppressWarnings(parallel::mccollect(job, wait = FALSE, timeout = 4 * timeout + 5))
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    suppressWarnings(parallel::mccollect(job, wait = TRUE))
    return(list(outcome = "hang", message = sprintf("no answer within %g s", 4 * timeout + 5)))
  }
  r <- res[[1L]]
  if (!is.list(r) || is.null(r$outcome))
    return(list(outcome = "crash", message = "the child process died"))
  r
}

# Run the campaign over the help pages `rd_db` (parsed Rd objects, named by
# file); `sample` (if not NULL) runs that many variants drawn at random
# (seeded) instead of all; `funs` (if not NULL) keeps the base calls of
# those functions or methods only; `shard` = c(i, n) runs the i-th of n
# interleaved shares of the help pages. Returns a data frame with one row
# per call.
fault_campaign <- function(rd_db = tools::Rd_db("mcmix"), sample = NULL, seed = 1,
                           timeout = 10, values = fault_values(), verbose = FALSE,
                           max_base = 2L, funs = NULL, shard = NULL) {
  suppressPackageStartupMessages(library(mcmix))
  seen <- new.env()
  pages <- list()
  for (rd in names(rd_db)) {
    p <- fault_page(rd_db[[rd]], max_base, seen)
    if (!is.null(funs))
      p$bases <- Filter(function(b) b$fun %in% funs, p$bases)
    plan <- list()
    for (b in p$bases) for (v in fault_variants(b$call, values, b$method)) {
      v$rd <- rd
      plan[[length(plan) + 1L]] <- v
    }
    plan <- plan[!duplicated(vapply(plan, `[[`, "", "label"))]
    if (length(plan)) pages[[rd]] <- list(plan = plan, env = p$env)
  }
  if (!is.null(sample)) {
    n <- vapply(pages, function(p) length(p$plan), 0L)
    if (sample < sum(n)) {
      keep <- fault_with_seed(seed, sort(base::sample.int(sum(n), sample)))
      page_of <- rep(seq_along(pages), n)
      for (k in seq_along(pages))
        pages[[k]]$plan <- pages[[k]]$plan[keep[page_of[keep] == k] - c(0, cumsum(n))[k]]
    }
  }
  if (!is.null(shard)) pages <- pages[seq_along(pages) %% shard[2L] == shard[1L] - 1L]
  total <- sum(vapply(pages, function(p) length(p$plan), 0L))
  rows <- list()
  for (p in pages) for (v in p$plan) {
    r <- fault_run_one(v, p$env, timeout)
    if (verbose && r$outcome %in% c("wrong_arg", "internal", "nan", "hang", "crash"))
      message(sprintf("[%s] %s: %s", r$outcome, v$label, substr(r$message, 1, 200)))
    rows[[length(rows) + 1L]] <- data.frame(
      rd = v$rd, fun = v$fun, arg = v$arg, value = v$value,
      outcome = r$outcome, message = substr(r$message, 1, 300),
      call = substr(v$label, 1, 300),
      stringsAsFactors = FALSE)
    if (verbose && length(rows) %% 500L == 0L)
      message(sprintf("%d / %d calls", length(rows), total))
  }
  if (!length(rows))
    return(data.frame(rd = character(), fun = character(), arg = character(),
                      value = character(), outcome = character(), message = character(),
                      call = character()))
  do.call(rbind, rows)
}

fault_summary <- function(res) {
  table(factor(res$outcome, levels = c("ok", "error", "wrong_arg", "internal", "nan", "hang",
                                       "crash")))
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
#
# `signal` = tools::SIGKILL kills the process instead (a dead worker).
# With `chain_start` = c, the signal comes at the first chunk of the c-th
# chain run by the process (a chunk of warm-up at offset 0), not at call k.
# Evaluates R code for up to `seconds`, so that an interrupt the process has
# just sent to itself is served at R's next check (in the evaluator, not in
# Sys.sleep(), whose select() is left by a longjmp from the signal handler:
# valgrind's emulation of that system call does not survive it).
serve_interrupt <- function(seconds = 1) {
  t0 <- proc.time()[[3]]
  while (proc.time()[[3]] - t0 < seconds) NULL
  invisible(NULL)
}

interrupting_kernel <- function(kernel, k, flag = tempfile("mcmix-int-"),
                                where = c("before", "inside", "after"),
                                signal = tools::SIGINT, chain_start = NULL) {
  where <- match.arg(where)
  force(flag)
  calls <- 0L
  starts <- 0L
  step <- kernel$step
  fire <- function(wait, offset, warmup) {
    calls <<- calls + 1L
    if (warmup && offset == 0) starts <<- starts + 1L
    now <- if (is.null(chain_start)) calls >= k else starts == chain_start
    if (now && !file.exists(flag)) {
      file.create(flag)
      tools::pskill(Sys.getpid(), signal)
      if (wait) Sys.sleep(0.05)   # the signal is served here
    }
  }
  kernel$step <- function(state, n, thin, offset, warmup) {
    if (where != "after") fire(where == "before", offset, warmup)
    r <- step(state, n, thin, offset, warmup)
    if (where == "after") fire(TRUE, offset, warmup)
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
fault_interrupted_run <- function(kernel, k, seed, where = "before", chain_start = NULL,
                                  ...) {
  ik <- interrupting_kernel(kernel, k, where = where, chain_start = chain_start)
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
