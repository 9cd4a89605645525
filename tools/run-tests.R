#!/usr/bin/env Rscript
## Run the testthat suite against the installed package and end with one
## plain summary line ("N passed, N failed, N skipped"); exit 1 on failure.
library(testthat)
library(mcmix)
## report every failure (testthat stops a run after 10 by default)
testthat::set_max_fails(Inf)
## MCMIX_TEST_FILTER: a regular expression selecting test files (make
## sanitize / make valgrind run subsets).
filter <- Sys.getenv("MCMIX_TEST_FILTER", "")
## On a terminal the progress reporter redraws one status line; written to a
## file or pipe (make test > log, CI) it would print every spinner frame on a
## line of its own, so there it reports once per test file instead.
dynamic <- cli::is_dynamic_tty()
reporter <- testthat::ProgressReporter$new(show_praise = FALSE,
                                           update_interval = if (dynamic) 0.1 else Inf)
res <- testthat::test_dir("tests/testthat", package = "mcmix",
                          filter = if (nzchar(filter)) filter,
                          load_package = "installed", stop_on_failure = FALSE,
                          reporter = reporter)
df <- as.data.frame(res)
failed <- sum(df$failed) + sum(df$error)
## A run of the whole suite writes the time of each file (testthat's
## per-test wall times summed by file) to tests/testthat/TIMINGS.md, so
## the files that make the suite long are known.
if (!nzchar(filter) && nrow(df)) {
  per_file <- sort(tapply(df$real, df$file, sum), decreasing = TRUE)
  n_tests <- table(df$file)[names(per_file)]
  lines <- c("# Time of each test file",
             "",
             paste0("Written by tools/run-tests.R (`make test`) from testthat's per-test ",
                    "wall times; the"),
             paste0("machine's load during the run: ",
                    paste(sprintf("%.2f", tryCatch(
                      as.numeric(strsplit(readLines("/proc/loadavg", warn = FALSE),
                                          " ")[[1]][1:3]),
                      error = function(e) rep(NA_real_, 3))), collapse = " "),
                    " (1, 5, 15 min), ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
                    ", R ", getRversion(), "."),
             "",
             "| file | tests | seconds |", "|---|---:|---:|",
             sprintf("| %s | %d | %.1f |", names(per_file), as.integer(n_tests),
                     as.numeric(per_file)),
             sprintf("| **total** | %d | %.1f |", nrow(df), sum(per_file)))
  try(writeLines(lines, file.path("tests", "testthat", "TIMINGS.md")), silent = TRUE)
}
cat(sprintf("\n%d passed, %d failed, %d skipped\n",
            sum(df$passed), failed, sum(df$skipped)))
if (failed > 0) quit(status = 1L)
