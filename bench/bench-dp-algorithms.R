#!/usr/bin/env Rscript
## ESS per second of the DP mixture samplers: "collapsed" (CRP Gibbs),
## "neal8" (Neal's algorithm 8, m = 3), "slice" (Kalli-Griffin-Walker,
## xi = w, with label-switching moves; "slice_geometric": xi_j = 0.1 * 0.9^(j-1)) and "split_merge" (Jain-Neal, t = 5, one proposal per collapsed
## scan), on the traces n_clusters and log_lik (the collapsed
## log p(x | partition) for every algorithm, so the traces are comparable).
##
## Usage: Rscript bench/bench-dp-algorithms.R [N] [iter]
## Uses the installed mcmix (set R_LIBS to choose which).
##
## Data (seed 1), D = 2, gaussian_niw() with its data-driven defaults,
## alpha = 1, init = "prior", 4 chains of `iter` kept iterations after
## iter / 4 warm-up iterations:
##   separated:   4 clusters, means (+-4, 0), (0, +-4), unit covariance;
##   overlapping: 4 clusters, means (+-1.2, 0), (0, +-1.2), unit covariance.
## ESS: mcmix::ess() (bulk, rank-normalised, over the chains); time: CPU
## (user + sys) of sample_posterior().

suppressPackageStartupMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
N <- if (length(args) >= 1) as.integer(args[1]) else 500L
iter <- if (length(args) >= 2) as.integer(args[2]) else 2000L

make_data <- function(N, sep) {
  set.seed(1)
  mu <- sep * rbind(c(-1, 0), c(1, 0), c(0, 1), c(0, -1))
  z <- sample.int(4L, N, replace = TRUE)
  mu[z, ] + matrix(stats::rnorm(2 * N), N, 2)
}

algs <- c("collapsed", "neal8", "slice", "slice_geometric", "split_merge")
rows <- list()
for (scen in c(separated = 4, overlapping = 1.2)) {
  name <- names(which(c(separated = 4, overlapping = 1.2) == scen))
  x <- make_data(N, scen)
  for (alg in algs) {
    set.seed(2)
    ctl <- if (alg == "slice_geometric") dp_control(xi = "geometric", kappa = 0.9)
           else dp_control()
    t <- system.time(fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 1), x,
                                             iter = iter, burnin = iter %/% 4, chains = 4,
                                             algorithm = sub("_geometric", "", alg),
                                             control = ctl, progress = FALSE,
                                             labels = FALSE))
    cpu <- t[["user.self"]] + t[["sys.self"]]
    tr <- lapply(c("n_clusters", "log_lik"), function(v)
      sapply(fit$chains, function(ch) ch$traces[, v]))
    e <- vapply(tr, function(m) ess(m), numeric(1))
    rows[[length(rows) + 1L]] <- data.frame(
      data = name, algorithm = alg, cpu_s = round(cpu, 2),
      mean_K = round(mean(tr[[1]]), 2),
      ess_K = round(e[1]), ess_ll = round(e[2]),
      ess_K_per_s = round(e[1] / cpu, 1), ess_ll_per_s = round(e[2] / cpu, 1))
  }
}
res <- do.call(rbind, rows)
print(res, row.names = FALSE)
cat("\nMarkdown:\n\n| data | algorithm | CPU s | mean K | ESS K | ESS log_lik | ESS/s K | ESS/s log_lik |\n|---|---|---|---|---|---|---|---|\n")
for (r in seq_len(nrow(res))) with(res[r, ], cat(sprintf("| %s | %s | %.2f | %.2f | %d | %d | %.1f | %.1f |\n",
  data, algorithm, cpu_s, mean_K, as.integer(ess_K), as.integer(ess_ll), ess_K_per_s, ess_ll_per_s)))
