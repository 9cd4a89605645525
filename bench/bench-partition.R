# partition(): SALSO-style search vs the greedy search, on label draws of
# N = 1e4 observations (8 clusters, each draw reassigning 800 observations at
# random among 10 labels), with S draws.
#
# Usage: Rscript bench/bench-partition.R [S]   (default 3000)
library(mcmix)
args <- commandArgs(trailingOnly = TRUE)
S <- if (length(args)) as.integer(args[[1L]]) else 3000L
set.seed(1)
N <- 10000
truth <- sample(8, N, TRUE)
draws <- t(replicate(S, { z <- truth; i <- sample(N, 800); z[i] <- sample(10, 800, TRUE); z }))
tg <- system.time(g <- partition(draws, method = "greedy"))[["user.self"]]
ts <- system.time(s <- partition(draws))[["user.self"]]
cat(sprintf("N = %d, S = %d: greedy expected VI %.5f (%.1f s CPU), salso %.5f (%.1f s CPU), best draw %.5f\n",
            N, S, g$loss, tg, s$loss, ts, s$best_draw_loss))
