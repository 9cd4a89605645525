# The convergence guard of print() and summary() (R/guard.R): one warning,
# listing the traces, when several chains disagree or never move.

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
  expect_match(w, "x \\(R-hat [0-9.]+\\)")
  expect_no_match(w, "\\by \\(")
  expect_warning(s <- summary(fit), class = "mcmix_warning_convergence")
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
