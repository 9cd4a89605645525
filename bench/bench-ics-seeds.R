# ESS(log-lik) per CPU second at N = 1e4 (five bivariate clusters), mcmix
# against BNPmix's ICS sampler, one repetition per seed (set.seed(10 + s)),
# the samplers interleaved within each seed; the setting of section 3 of
# bench-scale.R (same data, NIW prior, alpha = 1, start in one cluster,
# 1000 warm-up + 20000 kept iterations, CPU time, posterior::ess_basic()).
#   Rscript bench/bench-ics-seeds.R [seeds = 1:7] [mcmix algorithms = collapsed] [ICS iterations]
# e.g. Rscript bench/bench-ics-seeds.R 1:7 collapsed,split_merge
# Prints one row per run and the three pooled estimators of bench-scale.R.
# With fewer ICS iterations than 21000 (e.g. 3000), ICS runs only to time
# its iterations (CPU ms per iteration, interleaved with mcmix); its ESS
# per seed is then the one of a full run with the same seed (a property of
# the draws, recorded in bench/RESULTS.md), and no estimator is printed.
suppressPackageStartupMessages(library(mcmix))
args <- commandArgs(TRUE)
seeds <- if (length(args) >= 1) eval(parse(text = args[1])) else 1:7
algs <- if (length(args) >= 2) strsplit(args[2], ",")[[1]] else "collapsed"
it_ics <- if (length(args) >= 3) as.integer(args[3]) else 21000L
have_bnp <- requireNamespace("BNPmix", quietly = TRUE)
cpu <- function(expr) {
  t <- system.time(expr)
  t[["user.self"]] + t[["sys.self"]] + t[["user.child"]] + t[["sys.child"]]
}
set.seed(7)   # five_clusters(1e4, seed = 7) of bench-scale.R
mu <- rbind(c(-6, -6), c(-6, 6), c(6, -6), c(6, 6), c(0, 0))
x4 <- mu[sample.int(5L, 1e4, replace = TRUE), ] + matrix(stats::rnorm(2e4), 1e4, 2)
m0 <- colMeans(x4); k0 <- 0.01; n0 <- 4; S0 <- stats::cov(x4) / 4
fam4 <- gaussian_niw(prior_mean = m0, kappa = k0, df = n0, scale = S0)
# log p(x | partition) for BNPmix's labels (the closed form of bench-scale.R)
y <- sweep(x4, 2, m0)
yy <- cbind(y * y[, 1], y * y[, 2])
lml4 <- function(z) {
  n <- as.vector(rowsum(rep(1, nrow(y)), z)); s1 <- rowsum(y, z); s2 <- rowsum(yy, z)
  s <- 0
  for (g in seq_along(n)) {
    ng <- n[g]; yb <- s1[g, ] / ng
    C <- matrix(s2[g, ], 2, 2) - ng * tcrossprod(yb)
    kn <- k0 + ng; nn <- n0 + ng
    Sn <- S0 + C + k0 * ng / kn * tcrossprod(yb)
    s <- s - ng * log(pi) + sum(lgamma((nn + 1 - 1:2) / 2)) - sum(lgamma((n0 + 1 - 1:2) / 2)) +
      n0 / 2 * as.numeric(determinant(S0)$modulus) -
      nn / 2 * as.numeric(determinant(Sn)$modulus) + log(k0 / kn)
  }
  s
}
it <- 20000L; burn <- 1000L
runs <- list()
for (s in seeds) {
  for (a in algs) {
    set.seed(10 + s)
    t <- cpu(f <- sample_posterior(dp_mixture(fam4, alpha = 1), x4, iter = it, burnin = burn,
                                   algorithm = a, init = "one", labels = FALSE,
                                   progress = FALSE))
    runs[[length(runs) + 1]] <- list(who = paste("mcmix", a), seed = s, cpu = t,
                                     v = f$chains[[1]]$traces[, "log_lik"],
                                     K = f$chains[[1]]$traces[, "n_clusters"])
  }
  if (have_bnp) {
    set.seed(10 + s)
    t <- cpu(b <- BNPmix::PYdensity(x4, mcmc = list(niter = it_ics, nburn = min(burn, it_ics - 1L),
               method = "ICS", print_message = FALSE, hyper = FALSE),
               prior = list(strength = 1, discount = 0, m0 = m0, k0 = k0, n0 = n0, Sigma0 = S0),
               output = list(grid = matrix(0, 1, 2), out_type = "CLUST")))
    runs[[length(runs) + 1]] <- list(who = "BNPmix ICS", seed = s, cpu = t,
                                     v = apply(b$clust, 1L, lml4),
                                     K = apply(b$clust, 1L, function(z) length(unique(z))))
    rm(b); invisible(gc())
  }
  for (r in runs[vapply(runs, `[[`, 0, "seed") == s])
    cat(sprintf("seed %d  %-22s CPU %6.1f s  ms/it %.3f  ESS %7.0f  mean K %.3f  load %s\n",
                10 + s, r$who, r$cpu, 1000 * r$cpu / (if (r$who == "BNPmix ICS") it_ics else it + burn),
                posterior::ess_basic(r$v), mean(r$K),
                paste(readLines("/proc/loadavg") |> strsplit(" ") |> unlist() |> head(3),
                      collapse = " ")))
}
saveRDS(runs, Sys.getenv("BENCH_ICS_RDS", file.path(tempdir(), "bench-ics-seeds.rds")))
if (it_ics < it + burn) quit(save = "no")
who <- unique(vapply(runs, `[[`, "", "who"))
est <- t(vapply(who, function(w) {
  l <- runs[vapply(runs, `[[`, "", "who") == w]
  cpu <- vapply(l, `[[`, 0, "cpu"); ess <- vapply(l, function(e) posterior::ess_basic(e$v), 0)
  c(pooled = posterior::ess_basic(do.call(cbind, lapply(l, `[[`, "v"))) / sum(cpu),
    summed = sum(ess) / sum(cpu), median_single = stats::median(ess / cpu),
    cpu_ms_it = 1000 * sum(cpu) / (length(l) * (it + burn)))
}, numeric(4)))
print(est)
if (have_bnp) {
  ref <- est["BNPmix ICS", ]
  for (w in setdiff(who, "BNPmix ICS"))
    cat(w, "/ ICS: pooled", format(est[w, 1] / ref[1], digits = 3), " summed",
        format(est[w, 2] / ref[2], digits = 3), " median of singles",
        format(est[w, 3] / ref[3], digits = 3), " CPU per iteration",
        format(est[w, 4] / ref[4], digits = 3), "\n")
}
