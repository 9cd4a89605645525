# Benchmark: effective sample size per gradient evaluation of sample_nuts()
# against sample_hmc() with a fixed number of leapfrog steps, on
# ill-conditioned Gaussians (condition number 1e4 of the covariance).
#
# Run from the repository root, with mcmix installed:
#   Rscript bench/bench-nuts.R [reps]
# Goal: NUTS at least 5x the ESS per gradient of fixed-path HMC.
# Fair comparison: same target (vectorised R function with its gradient),
# same initial value, 1000 warm-up and 1000 kept iterations for every
# sampler; HMC adapts its step size by dual averaging during warm-up (mass
# matrix identity, as sample_hmc() offers no metric adaptation), NUTS adapts
# step size and metric (Stan's windows).  Gradients are counted, not timed:
# NUTS reports its leapfrog steps after warm-up (nuts_diagnostics()), HMC
# uses n_steps per iteration.  One more HMC run is given the exact
# posterior variances as its (diagonal) mass matrix, which NUTS has to learn.  ESS is the rank-normalised bulk ESS of each
# coordinate (ess()); the table gives the minimum and the median over the
# coordinates, per 1000 gradients, median over `reps` seeds.
suppressPackageStartupMessages(library(mcmix))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[[1]]) else 3L

gaussians <- list(
  "100-D diagonal, sd 1..100" = local({
    s <- exp(seq(0, log(100), length.out = 100))
    list(d = 100, mass = 1 / s^2,
         tg = target(function(x) -0.5 * sum((x / s)^2),
                     gradient = function(x) -x / s^2))
  }),
  "20-D rotated, eigenvalues 1..1e4" = local({
    set.seed(99)
    d <- 20
    Q <- qr.Q(qr(matrix(rnorm(d * d), d)))
    ev <- exp(seq(0, log(1e4), length.out = d))
    P <- Q %*% diag(1 / ev) %*% t(Q)
    S <- Q %*% diag(ev) %*% t(Q)
    list(d = d, mass = 1 / diag(S), tg = target(function(x) -0.5 * sum(x * (P %*% x)),
                            gradient = function(x) -as.vector(P %*% x)))
  }))

runs <- list(
  "NUTS, diag metric" = function(g) {
    f <- sample_nuts(g$tg, init = rep(0.5, g$d), iter = 1000, burnin = 1000,
                     progress = FALSE)
    list(fit = f, grads = nuts_diagnostics(f)$n_leapfrog)
  },
  "NUTS, dense metric" = function(g) {
    f <- sample_nuts(g$tg, init = rep(0.5, g$d), iter = 1000, burnin = 1000,
                     metric = "dense", progress = FALSE)
    list(fit = f, grads = nuts_diagnostics(f)$n_leapfrog)
  },
  "HMC, 10 steps" = function(g) {
    f <- sample_hmc(g$tg, init = rep(0.5, g$d), iter = 1000, burnin = 1000,
                    n_steps = 10, progress = FALSE)
    list(fit = f, grads = 1000 * 10)
  },
  "HMC, 50 steps" = function(g) {
    f <- sample_hmc(g$tg, init = rep(0.5, g$d), iter = 1000, burnin = 1000,
                    n_steps = 50, progress = FALSE)
    list(fit = f, grads = 1000 * 50)
  },
  "HMC, 20 steps, exact inverse variances as mass" = function(g) {
    f <- sample_hmc(g$tg, init = rep(0.5, g$d), iter = 1000, burnin = 1000,
                    n_steps = 20, mass = g$mass, progress = FALSE)
    list(fit = f, grads = 1000 * 20)
  })

rows <- list()
for (gn in names(gaussians)) {
  g <- gaussians[[gn]]
  for (rn in names(runs)) {
    res <- vapply(seq_len(reps), function(r) {
      set.seed(1000 + r)
      out <- runs[[rn]](g)
      e <- apply(out$fit$chains[[1]]$traces, 2, ess)
      c(min(e), stats::median(e)) / out$grads * 1000
    }, numeric(2))
    rows[[length(rows) + 1L]] <- data.frame(target = gn, sampler = rn,
      min_ess_per_1000_grad = stats::median(res[1, ]),
      median_ess_per_1000_grad = stats::median(res[2, ]))
  }
}
tab <- do.call(rbind, rows)
for (gn in names(gaussians)) {
  sub <- tab[tab$target == gn, ]
  best_hmc <- max(sub$min_ess_per_1000_grad[grepl("HMC", sub$sampler)])
  tab$ratio_vs_best_hmc[tab$target == gn] <- sub$min_ess_per_1000_grad / best_hmc
}
cat("| target | sampler | min ESS / 1000 gradients | median ESS / 1000 gradients | min-ESS ratio vs best HMC |\n")
cat("|---|---|---|---|---|\n")
for (i in seq_len(nrow(tab)))
  cat(sprintf("| %s | %s | %.3g | %.3g | %.3g |\n", tab$target[i], tab$sampler[i],
              tab$min_ess_per_1000_grad[i], tab$median_ess_per_1000_grad[i],
              tab$ratio_vs_best_hmc[i]))
