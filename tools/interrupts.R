# The full interrupt sweep (`make interrupts`, part of `make fuzz`): every
# sampler's short run (tests/testthat/helper-interrupt.R) is interrupted at
# every step call k (signals before, inside and after the chunk's .Call),
# sequentially and with cores = 2; each interrupted fit must warn, have
# counters that match its stored draws, labels and co-clustering counts,
# and extend(fit, 0) must equal the uninterrupted run bit for bit; and a fit
# interrupted at the start of chain 2 must work with every method
# (partial_methods_check()).
#
# Then the process-group sweep (tests/testthat/helper-interrupt-sweep.R): a
# child session in its own process group gets SIGINT sent to the whole
# group (a terminal's Ctrl-C) at a random time of the dispatch, sampling,
# collection or return phase of a run, on future multisession, cores = 2,
# local PSOCK workers (cores = 2 without fork, through future and without
# it), a future cluster plan of parallel::makeCluster() (its workers seeing
# the run directory, and, as remote ones, not seeing it) and sequentially;
# each call must return within 10 s with a fit (partial or complete) and a
# warning, counters equal to its draws and extend(fit, 0) equal to the
# uninterrupted run. SWEEP_TRIALS sets the trials per backend (default
# "future=200,cores=100,psock=50,socket=50,cluster=50,remote=50,sequential=50",
# split between the cases); INTERRUPTS=group runs this sweep only,
# INTERRUPTS=steps the per-step sweeps only.
suppressPackageStartupMessages(library(mcmix))
source(file.path("tests", "testthat", "helper-faults.R"))
source(file.path("tests", "testthat", "helper-interrupt.R"))
source(file.path("tests", "testthat", "helper-interrupt-sweep.R"))
cases <- interrupt_cases()
failures <- 0L
runs <- 0L
if (identical(Sys.getenv("INTERRUPTS"), "group")) cases <- list()
for (nm in names(cases)) {
  fit0 <- cases[[nm]]()
  # step calls of the uninterrupted run (sequential: both chains)
  n_calls <- 0L
  counting <- mcmix:::fit_kernel(fit0)   # bound to its data: the wrapper keeps its step
  step <- counting$step
  counting$step <- function(...) { n_calls <<- n_calls + 1L; step(...) }
  set.seed(11L)
  invisible(do.call(run_kernel, c(list(counting, progress = FALSE), interrupt_settings(fit0))))
  for (cores in c(1L, 2L)) for (where in c("before", "inside", "after"))
    for (k in seq_len(n_calls + 1L)) {
      runs <- runs + 1L
      r <- tryCatch(interrupt_check(fit0, k, cores = cores, where = where),
                    error = function(e) list(error = conditionMessage(e)))
      ok <- is.null(r$error) && r$counters && r$same && r$completed &&
        r$interrupted == r$warned
      if (!ok) {
        failures <- failures + 1L
        cat(sprintf("FAIL %s cores=%d where=%s k=%d: %s\n", nm, cores, where, k,
                    if (!is.null(r$error)) r$error else
                      paste(names(r)[1:5], unlist(r[1:5]), sep = "=", collapse = " ")))
      }
    }
  p <- tryCatch(partial_methods_check(fit0), error = function(e) conditionMessage(e))
  if (length(p)) {
    failures <- failures + 1L
    cat(sprintf("FAIL %s partial fit methods: %s\n", nm, paste(p, collapse = "; ")))
  }
  cat(sprintf("%-16s %3d step calls swept\n", nm, n_calls + 1L))
}
# Future workers (multisession): every sampler interrupted inside a chunk
# of chain 1 or 2 in its worker.
if (length(cases) && requireNamespace("future", quietly = TRUE)) {
  oplan <- future::plan(future::multisession, workers = 2)
  for (nm in names(cases)) for (k in c(2L, 5L)) {
    runs <- runs + 1L
    r <- tryCatch(interrupt_check(cases[[nm]](), k, where = "inside", backend = "future"),
                  error = function(e) list(error = conditionMessage(e)))
    if (!is.null(r$error) || !(r$counters && r$same && r$completed &&
                               r$interrupted == r$warned)) {
      failures <- failures + 1L
      cat(sprintf("FAIL %s future k=%d: %s\n", nm, k, if (!is.null(r$error)) r$error else
        paste(names(r)[1:5], unlist(r[1:5]), sep = "=", collapse = " ")))
    }
  }
  future::plan(oplan)
  cat("future workers: every sampler swept\n")
}
if (.Platform$OS.type != "windows" && nzchar(Sys.which("setsid")) &&
    !identical(Sys.getenv("INTERRUPTS"), "steps")) {
  spec <- Sys.getenv("SWEEP_TRIALS",
                     "future=200,cores=100,psock=50,cluster=50,remote=50,sequential=50")
  spec <- strsplit(strsplit(spec, ",")[[1L]], "=")
  helpers <- file.path("tests", "testthat", c("helper-faults.R", "helper-interrupt-sweep.R"))
  sw <- NULL
  for (x in spec) {
    backend <- x[1L]
    if (!backend %in% sweep_backends) next
    n <- as.integer(x[2L])
    if (backend %in% c("future", "psock", "cluster", "remote") &&
        !requireNamespace("future", quietly = TRUE)) next
    for (case in names(sweep_cases())) {
      t0 <- proc.time()[[3L]]
      m <- n %/% length(sweep_cases())
      # children of 25 trials at most (a fresh session now and then)
      for (b in seq_len(ceiling(m / 25))) {
        r <- tryCatch(sweep_run(backend, case, min(25L, m - 25L * (b - 1L)),
                                seed = 100L * b + match(backend, sweep_backends),
                                helpers = helpers),
                      error = function(e) { cat("FAIL", conditionMessage(e), "\n"); NULL })
        if (is.null(r)) { failures <- failures + 1L; next }
        sw <- rbind(sw, r)
      }
      cat(sprintf("group sweep %-10s %-4s %3d trials in %.0f s\n", backend, case,
                  sum(sw$backend == backend & sw$case == case), proc.time()[[3L]] - t0))
    }
  }
  if (!is.null(sw)) {
    sw$ok <- sweep_ok(sw)
    runs <- runs + nrow(sw)
    failures <- failures + sum(!sw$ok)
    for (j in which(!sw$ok))
      cat(sprintf("FAIL group sweep %s %s trial %d (%s at %.2f s): %s warned=%s counters=%s same=%s rng=%s %.1f s\n",
                  sw$backend[j], sw$case[j], sw$trial[j], sw$phase[j], sw$delay[j],
                  sw$outcome[j], sw$warned[j], sw$counters[j], sw$same[j], sw$rng[j],
                  sw$secs[j]))
    cat("\nGroup sweep: trials (signalled) by backend and phase\n")
    print(table(backend = sw$backend, phase = sw$phase))
    print(table(backend = sw$backend, signalled = sw$signalled))
    cat("outcomes:\n")
    print(table(backend = sw$backend, outcome = sw$outcome))
    cat(sprintf("slowest return after a signal: %.2f s; failures: %d\n",
                max(sw$secs, na.rm = TRUE), sum(!sw$ok)))
    utils::write.csv(sw, "interrupt-sweep.csv", row.names = FALSE)
  }
}
cat(sprintf("\n%d interrupted runs, %d failures\n", runs, failures))
if (failures > 0L) quit(status = 1L)
