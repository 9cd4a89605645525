# The bad-input campaign (`make fuzz`): every argument of every exported
# function, as called in the package's examples, replaced in turn by bad
# values, each call in a forked child with a time limit
# (tests/testthat/helper-faults.R). Prints a summary, writes all outcomes to
# fuzz-results.csv, and fails when a call crashed, hung, returned NaN or
# ended with an R-internal message.
#   Rscript tools/fuzz.R [max_base_calls_per_function] [timeout_seconds]
args <- commandArgs(trailingOnly = TRUE)
max_base <- if (length(args) >= 1L) as.integer(args[1L]) else 2L
timeout <- if (length(args) >= 2L) as.numeric(args[2L]) else 20
suppressPackageStartupMessages(library(mcmix))
source(file.path("tests", "testthat", "helper-faults.R"))
rds <- Sys.glob(file.path("man", "*.Rd"))
t0 <- proc.time()[[3L]]
res <- fault_campaign(rds, timeout = timeout, verbose = TRUE, max_base = max_base)
utils::write.csv(res, "fuzz-results.csv", row.names = FALSE)
cat(sprintf("\n%d calls of %d functions in %.0f s\n", nrow(res), length(unique(res$fun)),
            proc.time()[[3L]] - t0))
print(fault_summary(res))
bad <- res[res$outcome %in% c("internal", "nan", "hang", "crash"), ]
if (nrow(bad)) {
  cat("\nProblems:\n")
  for (i in seq_len(nrow(bad)))
    cat(sprintf("[%s] %s\n    %s\n", bad$outcome[i], bad$call[i], bad$message[i]))
  quit(status = 1)
}
