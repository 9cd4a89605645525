#!/usr/bin/env Rscript
## The posterior's own number of clusters on the data of
## `bench-scale.R --mixing` (five bivariate Gaussian clusters, set.seed(42)):
## one long chain of a DP algorithm started from the true partition, in
## chunks of 50 sweeps continued with extend() (identical to one run).
## Prints mean K, its distribution, the sizes of the clusters beyond the
## five largest at each chunk's end, and the mean K of each chunk.
##   Rscript bench/bench-posterior-k.R N algorithm chunks seed [init]
## e.g. Rscript bench/bench-posterior-k.R 1e6 collapsed 20 1
## (init: "truth", the default, or any `init` of sample_posterior()).
suppressPackageStartupMessages(library(mcmix))
options(mcmix.threads_adapt = FALSE)
a <- commandArgs(TRUE); N <- as.numeric(a[1]); alg <- a[2]; chunks <- as.integer(a[3]); seed <- as.integer(a[4])
init <- if (length(a) >= 5) a[5] else "truth"
set.seed(42)
mu <- rbind(c(-6, -6), c(-6, 6), c(6, -6), c(6, 6), c(0, 0))
zt <- sample.int(5L, N, replace = TRUE)
x <- mu[zt, ] + matrix(stats::rnorm(2 * N), N, 2)
set.seed(seed)
t0 <- proc.time()
fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 50, burnin = 0,
   labels = FALSE, progress = FALSE, algorithm = alg, init = if (init == "truth") zt else init)
small <- list()
for (c in seq_len(chunks)) {
  if (c > 1) fit <- extend(fit, iter = 50)
  z <- fit$chains[[1]]$state$labels
  sz <- sort(tabulate(z + 1L), decreasing = TRUE); sz <- sz[sz > 0]
  small[[c]] <- sz[-(1:5)]
}
t <- proc.time() - t0
K <- fit$chains[[1]]$traces[, "n_clusters"]
cat(N, alg, seed, init, "cpu", round(t[[1]] + t[[2]], 1), "sweeps", length(K), "meanK", round(mean(K), 3),
    "meanK 2nd half", round(mean(K[-seq_len(length(K) %/% 2)]), 3),
    "K dist:", paste(names(table(K)), table(K), sep = ":", collapse = " "), "\n")
cat("extra cluster sizes at chunk ends:", paste(vapply(small, function(s) paste(s, collapse = ","), ""), collapse = " | "), "\n")
cat("K per 50:", paste(round(tapply(K, (seq_along(K) - 1) %/% 50, mean), 2), collapse = " "), "\n")
