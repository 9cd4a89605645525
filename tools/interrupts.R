# The full interrupt sweep (`make interrupts`, part of `make fuzz`): every
# sampler's short run (tests/testthat/helper-interrupt.R) is interrupted at
# every step call k (signals before, inside and after the chunk's .Call),
# sequentially and with cores = 2; each interrupted fit must warn, have
# counters that match its stored draws, labels and co-clustering counts,
# and extend(fit, 0) must equal the uninterrupted run bit for bit; and a fit
# interrupted at the start of chain 2 must work with every method
# (partial_methods_check()).
suppressPackageStartupMessages(library(mcmix))
source(file.path("tests", "testthat", "helper-faults.R"))
source(file.path("tests", "testthat", "helper-interrupt.R"))
cases <- interrupt_cases()
failures <- 0L
runs <- 0L
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
if (requireNamespace("future", quietly = TRUE)) {
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
cat(sprintf("\n%d interrupted runs, %d failures\n", runs, failures))
if (failures > 0L) quit(status = 1L)
