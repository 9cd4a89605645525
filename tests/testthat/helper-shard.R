# A local PSOCK cluster of n workers whose sockets send at once (TCP
# no-delay on both ends, as parallelly::makeClusterPSOCK() makes them):
# with R's default, every call of a sharded run whose answer spans more
# than one packet waits about 40 ms for a delayed acknowledgement.
shard_test_cluster <- function(n) {
  old <- options(socketOptions = "no-delay")
  on.exit(options(old))
  parallel::makePSOCKcluster(n, rscript_args = c("-e",
                                                 shQuote("options(socketOptions = 'no-delay')")))
}

# The sharded fit `make_fit(cl)` of 10 draws on two workers, its worker 2
# killed: extend() ends with a classed error naming the worker whose fit
# (of class `fit_class`) keeps the 10 draws; extend() of that fit on a
# new cluster continues with the resync warning. The failed and the
# continued fits and the new cluster, list(e, g, cl) (g: 30 draws; the
# caller stops cl).
shard_kill_and_continue <- function(make_fit, fit_class) {
  cl <- shard_test_cluster(2L)
  on.exit({
    try(parallel::stopCluster(cl), silent = TRUE)
    for (node in cl) try(close(node$con), silent = TRUE)   # the dead worker's too
  })
  f <- make_fit(cl)
  pid <- parallel::clusterCall(cl[2], Sys.getpid)[[1]]
  tools::pskill(pid, tools::SIGKILL)
  Sys.sleep(0.5)
  e <- tryCatch(extend(f, iter = 10L), error = function(e) e)
  expect_s3_class(e, "mcmix_error_worker")
  expect_identical(e$worker, 2L)
  expect_match(conditionMessage(e), "Worker 2")
  expect_s3_class(e$fit, fit_class)
  expect_identical(nrow(as.matrix(e$fit)), 10L)          # the draws so far are kept
  cl2 <- shard_test_cluster(2L)
  seen <- FALSE
  g <- withCallingHandlers(extend(e$fit, iter = 10L, cl = cl2),
                           mcmix_warning_resync = function(w) {
                             seen <<- TRUE
                             invokeRestart("muffleWarning")
                           })
  expect_true(seen)
  # (the 10 iterations the failed extend() asked for, then 10 more)
  expect_identical(nrow(as.matrix(g)), 30L)
  list(e = e, g = g, cl = cl2)
}
