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
cat(sprintf("\n%d passed, %d failed, %d skipped\n",
            sum(df$passed), failed, sum(df$skipped)))
if (failed > 0) quit(status = 1L)
