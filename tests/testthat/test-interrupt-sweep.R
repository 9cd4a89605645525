# A fixed sample of the interrupt sweep (helper-interrupt-sweep.R; the full sweep,
# several hundred trials, is tools/interrupts.R): a child R session in its
# own process group gets SIGINT sent to the whole group, as a terminal's
# Ctrl-C, at a random time of a phase of the run, on every backend. Every
# trial must return within 10 s with a fit, partial or complete, warned
# about, whose counters match its draws and whose extend(fit, 0) is the
# uninterrupted run, and that leaves the session's generator kind as it was.

skip_on_os("windows")
skip_on_cran()
skip_if(!nzchar(Sys.which("setsid")), "no setsid")

sweep_expect <- function(backend, phases, seed) {
  r <- sweep_run(backend, "nuts", length(phases), phases = phases, seed = seed)
  expect_equal(nrow(r), length(phases))
  ok <- sweep_ok(r)
  for (j in which(!ok))
    fail(sprintf("%s trial %d (%s, signal at %.2f s): %s, warned %s, counters %s, same %s, rng %s, %.1f s",
                 backend, j, r$phase[j], r$delay[j], r$outcome[j], r$warned[j], r$counters[j],
                 r$same[j], r$rng[j], r$secs[j]))
  expect_true(all(ok))
  expect_false(any(r$outcome == "escaped"))
  invisible(r)
}

test_that("Ctrl-C to the process group: future multisession", {
  skip_if_not_installed("future")
  sweep_expect("future", c("dispatch", "sampling", "return"), seed = 21)
})

test_that("Ctrl-C to the process group: forked cores", {
  sweep_expect("cores", c("dispatch", "sampling", "collection"), seed = 22)
})

test_that("Ctrl-C to the process group: local PSOCK workers (no fork)", {
  skip_if_not_installed("future")
  sweep_expect("psock", "dispatch", seed = 23)
})

test_that("Ctrl-C to the process group: local PSOCK workers without the future package", {
  sweep_expect("socket", "sampling", seed = 27)
})

test_that("Ctrl-C to the process group: a future cluster plan of parallel::makeCluster()", {
  skip_if_not_installed("future")
  sweep_expect("cluster", c("dispatch", "sampling"), seed = 25)
})

test_that("Ctrl-C: cluster workers that do not see the session's files stop through their connection", {
  skip_if_not_installed("future")
  # as on another machine: only the message on the worker's connection
  # stops the chains, well before the session would give them up
  # (`mcmix.stop_wait`, 5 s)
  r <- sweep_expect("remote", c("sampling", "sampling"), seed = 26)
  expect_true(all(r$signalled))
  expect_true(all(r$outcome == "partial"))
  expect_lt(max(r$secs), 3)
})

test_that("Ctrl-C to the process group: sequential", {
  sweep_expect("sequential", c("dispatch", "sampling", "collection", "return"), seed = 24)
})
