# Functions that return one result rather than chains (SMC, AIS, ABC,
# annealing): Ctrl-C inside their .Call (here: a real SIGINT sent by the
# user's R function at its k-th call) unwinds cleanly as an interrupt, the
# caller's random number generator kind is left as it was, and the same
# call afterwards gives exactly the result of a run never interrupted.

# `f` that sends SIGINT to its own process at its k-th call (once).
interrupting <- function(f, k) {
  calls <- 0L
  function(...) {
    calls <<- calls + 1L
    if (calls == k) {
      tools::pskill(Sys.getpid(), tools::SIGINT)
      Sys.sleep(0.05)   # the signal is served here
    }
    f(...)
  }
}

population_cases <- function() {
  y <- c(0.8, 1.3, 0.2, 1.9, 1.1)
  ll <- function(th) sum(stats::dnorm(y, th, 1, log = TRUE))
  lp <- function(th) stats::dnorm(th, 0, 2, log = TRUE)
  pr <- function(n) stats::rnorm(n, 0, 2)
  list(
    smc = function(f = identity) sample_smc(f(ll), lp, pr, n_particles = 50),
    ais = function(f = identity) suppressWarnings(ais(f(ll), lp, pr, temperatures = 10,
                                                      n_runs = 10)),
    anneal = function(f = identity) anneal(f(function(x) -sum((x - 1)^2)), init = c(0, 0),
                                           iter = 300, t0 = 2),
    abc = function(f = identity) sample_abc(function(n) stats::runif(n),
                                            f(function(p) stats::rbinom(1, 10, p)),
                                            observed = 7, tolerance = 1, n = 200))
}

test_that("an interrupt inside SMC, AIS, annealing or ABC unwinds cleanly; the next call is unaffected", {
  withr::local_preserve_seed()
  cases <- population_cases()
  for (nm in names(cases)) {
    set.seed(21)
    ref <- cases[[nm]]()
    for (k in c(1L, 7L)) {
      set.seed(21)
      kind <- RNGkind()
      r <- tryCatch(cases[[nm]](function(f) interrupting(f, k)),
                    interrupt = function(e) "interrupted")
      expect_identical(r, "interrupted", label = sprintf("%s, k = %d", nm, k))
      expect_identical(RNGkind(), kind, label = nm)
      set.seed(21)
      expect_identical(cases[[nm]](), ref, label = sprintf("%s after an interrupt", nm))
    }
  }
})
