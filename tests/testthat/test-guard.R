# The mixing guard of print() and summary() (R/guard.R): one warning of
# class mcmix_warning_mixing, listing the traces, when several chains
# disagree or never move, when a bulk ESS is below 100 (one chain too), or
# when a Metropolis-Hastings acceptance rate is outside 0.05-0.95.

guard_kernel <- function(shift = 3) new_kernel("guard",
  init = function(chain) list(v = chain),
  step = function(state, n, thin, offset, warmup) {
    keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
    m <- length(keep)
    list(state = state, draws = list(traces = cbind(ind = rep(state$v, m),
                                                    x = stats::rnorm(m, shift * state$v),
                                                    y = stats::rnorm(m))))
  }, trace_names = c("ind", "x", "y"))

test_that("chains that disagree or never move give one warning naming the traces", {
  set.seed(1)
  fit <- run_kernel(guard_kernel(), iter = 200, chains = 3, progress = FALSE)
  w <- testthat::capture_warnings(out <- capture.output(print(fit)))
  expect_length(w, 1L)
  expect_match(w, "ind \\(constant within each chain, different between chains\\)")
  expect_match(w, "x \\(bulk ESS [0-9.]+, R-hat [0-9.]+\\)")
  expect_no_match(w, "\\by \\(")
  expect_warning(s <- summary(fit), class = "mcmix_warning_convergence")
  expect_warning(summary(fit), class = "mcmix_warning_mixing")
  # printing the summary does not warn again
  expect_no_warning(capture.output(print(s)))
  # the flagged traces
  flags <- mcmix:::fit_guard_flags(fit)
  expect_identical(sub(" .*", "", flags), c("ind", "x"))
})

test_that("chains that agree, one chain, or too few draws give no warning", {
  set.seed(2)
  ok <- run_kernel(guard_kernel(shift = 0), iter = 2000, chains = 3, progress = FALSE)
  # `ind` still differs between chains (the chain number): drop it
  ok$chains <- lapply(ok$chains, function(ch) { ch$traces[, "ind"] <- 1; ch })
  expect_no_warning(capture.output(print(ok)))
  expect_no_warning(summary(ok))
  one <- run_kernel(guard_kernel(), iter = 200, chains = 1, progress = FALSE)
  expect_no_warning(capture.output(print(one)))
  short <- run_kernel(guard_kernel(), iter = 10, chains = 2, progress = FALSE)
  expect_no_warning(capture.output(print(short)))
})

test_that("one chain with a bulk ESS below 100 warns, naming the trace and what to do", {
  # an AR(1) trace with autocorrelation 0.95: ESS about 500 * 0.05 / 1.95
  ar_kernel <- new_kernel("ar1",
    init = function(chain) list(v = 0),
    step = function(state, n, thin, offset, warmup) {
      out <- double(n)
      for (i in seq_len(n)) {
        state$v <- 0.95 * state$v + sqrt(1 - 0.95^2) * stats::rnorm(1)
        out[i] <- state$v
      }
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = cbind(slow = out[keep],
                                                      fast = stats::rnorm(length(keep)))))
    }, trace_names = c("slow", "fast"))
  set.seed(3)
  fit <- run_kernel(ar_kernel, iter = 500, chains = 1, progress = FALSE)
  w <- testthat::capture_warnings(capture.output(print(fit)))
  expect_length(w, 1L)
  expect_match(w, "slow \\(bulk ESS [0-9.]+\\)")
  expect_no_match(w, "fast")
  expect_match(w, "run longer")
  expect_warning(summary(fit), class = "mcmix_warning_mixing")
  tab <- mcmix:::fit_guard_table(fit)
  expect_identical(tab$name, "slow")
  expect_lt(as.numeric(ess(fit)["slow"]), 100)
  # the same chain run long enough does not warn
  set.seed(3)
  long <- run_kernel(ar_kernel, iter = 8000, chains = 1, progress = FALSE)
  expect_no_warning(capture.output(print(long)))
  expect_no_warning(summary(long))
})

test_that("R-hat between 1.01 and 1.1 with several chains warns", {
  # two chains of independent draws whose means differ by 0.4 standard
  # deviations: R-hat between 1.01 and 1.1 with 2000 draws each
  k <- new_kernel("shifted", init = function(chain) list(v = chain),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = cbind(x = stats::rnorm(length(keep),
                                                                     0.4 * state$v))))
    }, trace_names = "x")
  set.seed(4)
  fit <- run_kernel(k, iter = 2000, chains = 2, progress = FALSE)
  r <- rhat(fit)[[1L]]
  expect_gt(r, 1.01)
  expect_lt(r, 1.1)
  expect_warning(summary(fit), "x \\(.*R-hat 1\\.0[1-9][0-9]*\\)", class = "mcmix_warning_mixing")
})

test_that("a Metropolis-Hastings acceptance rate outside 0.05-0.95 warns with the fix", {
  ld <- function(b) -sum((b / 0.1)^2) / 2
  set.seed(1)
  wide <- sample_mh(ld, init = c(0, 0), proposal = proposal_rw(scale = 50), adapt = adapt_none(),
                    iter = 300, progress = FALSE)
  w <- testthat::capture_warnings(capture.output(print(wide)))
  expect_length(w, 1L)
  expect_match(w, "acceptance rate of chain 1 \\(0[.0-9]*: almost every proposal rejected\\)")
  expect_match(w, "adapt_scale()", fixed = TRUE)
  set.seed(1)
  narrow <- sample_mh(ld, init = c(0, 0), proposal = proposal_rw(scale = 1e-4),
                      adapt = adapt_none(), iter = 300, progress = FALSE)
  expect_warning(summary(narrow), "almost every proposal accepted",
                 class = "mcmix_warning_mixing")
  # a Gibbs sampler's exact blocks count no proposals and are not judged
  expect_null(mcmix:::fit_guard_acceptance(run_kernel(guard_kernel(), iter = 50,
                                                      progress = FALSE)))
})
