#!/usr/bin/env Rscript
## HDP mixture from one cluster: number of clusters after 10, 20, 30, 40
## sweeps, true clusters found and CPU per point per sweep, for
## direct-assignment Gibbs alone ("gibbs") against Gibbs with split, merge
## and reallocation moves ("split_merge", the default) and with sub-cluster
## moves ("subcluster"): sample_posterior(hdp_mixture(...), algorithm =).
##
## Usage: Rscript bench/bench-hdp.R [N] [sweeps] [algorithms] [seeds]
##   e.g. Rscript bench/bench-hdp.R 1e5 40 gibbs,split_merge,subcluster 2,3,4
## Uses the installed mcmix (set R_LIBS to choose which).
##
## Data (seed 1): J = 1000 groups of N / J points, D = 2, 10 clusters with
## unit covariance and means 7 (cos, sin)(2 pi k / 9) for k = 1..9 and
## (0, 0) for k = 10; each group draws its cluster weights from
## Dirichlet(1, ..., 1). Model: gaussian_niw() (data-driven defaults),
## gamma = gamma_prior(1, 1), alpha = gamma_prior(1, 1); one chain, 40
## sweeps from one cluster (burnin = 0), labels kept off; the chain's seed
## is set before each run (default 2).
## The algorithms run one after the other; CPU = user + system time of the
## call. After each run, `ref` Gibbs sweeps started from its final
## partition (same K) give the cost of a Gibbs sweep at that number of
## clusters ("gibbs at same K"), measured right after it in the same
## process: a Gibbs sweep costs K + 1 predictive evaluations per point, so
## this is the cost the moves are compared with.

suppressPackageStartupMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
N <- if (length(args) >= 1) as.integer(as.numeric(args[1])) else 100000L
sweeps <- if (length(args) >= 2) as.integer(args[2]) else 40L
algs <- if (length(args) >= 3) strsplit(args[3], ",")[[1]] else c("gibbs", "split_merge", "subcluster")
seeds <- if (length(args) >= 4) as.integer(strsplit(args[4], ",")[[1]]) else 2L
ref <- 5L
J <- 1000L

make_data <- function(N, J) {
  set.seed(1)
  ang <- 2 * pi * (1:9) / 9
  mu <- rbind(7 * cbind(cos(ang), sin(ang)), c(0, 0))
  grp <- rep(seq_len(J), length.out = N)
  grp <- sort(grp)
  w <- matrix(stats::rgamma(10 * J, 1), J, 10)
  w <- w / rowSums(w)
  z <- unlist(lapply(seq_len(J), function(j)
    sample.int(10L, sum(grp == j), replace = TRUE, prob = w[j, ])))
  x <- mu[z, ] + matrix(stats::rnorm(2 * N), N, 2)
  list(x = x, group = grp, z = z)
}
d <- make_data(N, J)
model <- hdp_mixture(gaussian_niw(), gamma = gamma_prior(1, 1), alpha = gamma_prior(1, 1))
cat(sprintf("N = %d, J = %d, true K = %d; %s\n", N, J, length(unique(d$z)),
            paste(readLines("/proc/loadavg"), collapse = "")))
# true clusters found: an estimated cluster holds >= 80% of its points,
# and >= 80% of that cluster's points are from it
found <- function(z, truth) {
  tab <- table(z, truth)
  sum(vapply(seq_len(ncol(tab)), function(t) {
    k <- which.max(tab[, t])
    tab[k, t] >= 0.8 * sum(tab[, t]) && tab[k, t] >= 0.8 * sum(tab[k, ])
  }, logical(1)))
}
load_now <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
for (seed in seeds) for (alg in algs) {
  set.seed(seed)
  t <- system.time(fit <- sample_posterior(model, d$x, group = d$group, iter = sweeps,
                                           burnin = 0, labels = FALSE, progress = FALSE,
                                           algorithm = alg))
  K <- fit$chains[[1]]$traces[, "n_clusters"]
  cpu <- t[["user.self"]] + t[["sys.self"]]
  st <- fit$chains[[1]]$state
  sizes <- tabulate(st$z + 1L)
  at <- c(10, 20, 30, 40)[c(10, 20, 30, 40) <= length(K)]
  l1 <- load_now()
  # Gibbs sweeps at the same K, from the final partition
  set.seed(seed)
  tg <- system.time(fg <- sample_posterior(model, d$x, group = d$group, iter = ref, burnin = 0,
                                           init = st$z + 1L, labels = FALSE, progress = FALSE,
                                           algorithm = "gibbs"))
  cpu_g <- tg[["user.self"]] + tg[["sys.self"]]
  cat(sprintf("seed %d %-12s K after sweeps %s: %s; at the end %d clusters hold >= 1%% of the points (sizes %s), %d of the 10 true clusters found; moves accepted %g of %g; CPU %.2f s = %.0f ns per point per sweep; gibbs at same K (%s): %.0f ns per point per sweep, ratio %.2f; load %s / %s\n",
              seed, alg, paste(at, collapse = "/"), paste(K[at], collapse = "/"),
              sum(sizes >= 0.01 * N), paste(sort(sizes[sizes >= 0.01 * N], decreasing = TRUE), collapse = ","),
              found(st$z, d$z),
              if (is.null(st$n_accept)) 0 else st$n_accept,
              if (is.null(st$n_prop)) 0 else st$n_prop, cpu, 1e9 * cpu / (N * sweeps),
              paste(range(fg$chains[[1]]$traces[, "n_clusters"]), collapse = "-"),
              1e9 * cpu_g / (N * ref), (cpu / sweeps) / (cpu_g / ref), l1, load_now()))
}
