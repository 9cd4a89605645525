#!/usr/bin/env Rscript
## Run the testthat suite against the installed package and end with one
## plain summary line ("N passed, N failed, N skipped"); exit 1 on failure.
library(testthat)
library(mcmix)
## MCMIX_TEST_FILTER: a regular expression selecting test files (make
## sanitize / make valgrind run subsets).
filter <- Sys.getenv("MCMIX_TEST_FILTER", "")
res <- testthat::test_dir("tests/testthat", package = "mcmix",
                          filter = if (nzchar(filter)) filter,
                          load_package = "installed", stop_on_failure = FALSE,
                          reporter = testthat::ProgressReporter$new(show_praise = FALSE))
df <- as.data.frame(res)
failed <- sum(df$failed) + sum(df$error)
cat(sprintf("\n%d passed, %d failed, %d skipped\n",
            sum(df$passed), failed, sum(df$skipped)))
if (failed > 0) quit(status = 1L)
