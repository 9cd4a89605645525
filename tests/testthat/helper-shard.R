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
