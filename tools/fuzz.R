# The bad-input campaign (`make fuzz`): every argument of every exported
# function and of every S3 method, as called in the package's examples,
# replaced in turn by bad values, each call in a forked child with a time
# limit (tests/testthat/helper-faults.R). Prints a summary, writes all
# outcomes to fuzz-results.csv, and fails when an exported function has no
# base call, or when a call crashed, hung, returned NaN, ended with an
# R-internal message or named an argument the function does not have.
#   Rscript tools/fuzz.R [max_base_calls_per_function] [timeout_seconds] [functions]
# `functions` (comma-separated names of functions or methods, e.g.
# "gp_classify,predict.mcmix_gpclass") runs their base calls only.
args <- commandArgs(trailingOnly = TRUE)
max_base <- if (length(args) >= 1L) as.integer(args[1L]) else 2L
timeout <- if (length(args) >= 2L) as.numeric(args[2L]) else 20
funs <- if (length(args) >= 3L && nzchar(args[3L])) strsplit(args[3L], ",")[[1L]]
# FUZZ_SHARD=i/n runs the i-th of n interleaved shares of the help pages
# (run the n shares in parallel, then combine their fuzz-results-i.csv)
shard <- Sys.getenv("FUZZ_SHARD")
shard <- if (nzchar(shard)) as.integer(strsplit(shard, "/")[[1L]])
suppressPackageStartupMessages(library(mcmix))
source(file.path("tests", "testthat", "helper-faults.R"))
t0 <- proc.time()[[3L]]
db <- tools::Rd_db("mcmix")
unreached <- if (is.null(funs) && (is.null(shard) || shard[1L] == 1L)) fault_unreached(db) else
  character()
res <- fault_campaign(db, timeout = timeout, verbose = TRUE, max_base = max_base, funs = funs,
                      shard = shard)
if (is.null(funs) && is.null(shard))   # the methods reached, known once the examples ran
  unreached <- c(unreached, setdiff(fault_methods_with_args(), res$fun))
utils::write.csv(res, if (is.null(shard)) "fuzz-results.csv" else
  sprintf("fuzz-results-%d.csv", shard[1L]), row.names = FALSE)
cat(sprintf("\n%d calls of %d functions and methods in %.0f s\n", nrow(res),
            length(unique(res$fun)), proc.time()[[3L]] - t0))
print(fault_summary(res))
bad <- res[res$outcome %in% c("wrong_arg", "internal", "nan", "hang", "crash"), ]
if (nrow(bad)) {
  cat("\nProblems:\n")
  for (i in seq_len(nrow(bad)))
    cat(sprintf("[%s] %s\n    %s\n", bad$outcome[i], bad$call[i], bad$message[i]))
}
if (length(unreached))
  cat("\nExported functions or methods without a base call (give them a runnable example):",
      paste(unreached, collapse = ", "), "\n")
if (nrow(bad) || length(unreached)) quit(status = 1)
