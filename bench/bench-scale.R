#!/usr/bin/env Rscript
## Large-data benchmark of the DP mixture samplers (issue "Large data"):
## writes bench/RESULTS.md.
##
## Usage: Rscript bench/bench-scale.R [reps] [--sections=3,4,6]
##        (run from the package root; --sections runs only the numbered
##        sections below and prints their tables instead of writing
##        bench/RESULTS.md)
##        Rscript bench/bench-scale.R --mixing [N iter seeds [threads [burnin [start [thin]]]]]  (the answer at
##          scale: five clusters, sample_posterior() defaults from one
##          cluster; per seed the clusters holding >= 1% of the points,
##          whether they are exactly the true ones (each true cluster with
##          >= 99.5% of its points in one of them), mean K over the last 20
##          iterations, CPU and wall s, extra peak memory of the fit (VmHWM
##          reset before it, minus the RSS then), the load average;
##          defaults: N = 1e5 with 100 iterations on seeds 1-3 and N = 1e6
##          with 40 on seeds 1-5, threads = 1; a sixth argument "default"
##          runs sample_posterior()'s default burn-in of floor(iter / 2)
##          sweeps before the iterations instead of none)
##        Rscript bench/bench-scale.R --loaded-threads [N sweeps]  (wall time
##          of threads = 1 and 2, with and without the run-time choice of
##          the thread count, while a busy loop holds one core)
##        Rscript bench/bench-scale.R --million [algorithm]  (section 1 alone,
##          one run, with the default algorithm or the one given: prints
##          "algorithm CPU-s wall-s mean-K max-K extra-peak-MB data-MB")
## Installs the peer BNPmix itself (bench/install-peers.R), then measures,
## each comparison as `reps` (default 3) interleaved repetitions (mcmix,
## peer, mcmix, peer, ...; median and range reported):
##  1. N = 1e6, D = 2, five clusters, sample_posterior() defaults: wall and
##     CPU time of 40 iterations, mean K over iterations 21-40, extra peak
##     memory (VmHWM minus the RSS before the fit, fresh R process; the
##     peak is reset just before the fit, so that the transients of making
##     the data do not count);
##  2. threads = 1 vs 2 at N = 1e6: wall time per sweep with OpenMP's default
##     wait policy (the target), and with passive waiting the CPU time per
##     sweep and the serial share of the CPU (per-thread CPU times); draws
##     identical;
##  3. N = 1e4, same setting: mcmix vs BNPmix's importance conditional
##     sampler (ICS), same NIW prior, alpha = 1, start in one cluster,
##     1000 warm-up + 20,000 kept iterations: CPU time per iteration, ESS of
##     log p(x | partition) per CPU second (posterior::ess_basic, i.e.
##     Geyer's initial-sequence estimator on the kept draws: the trace has
##     rare large excursions that dominate its variance, so 1000 or 5000
##     draws gave ratios spread over one or two orders of magnitude; the
##     target's figure is therefore the multi-chain ESS of all repetitions'
##     draws over their total CPU time, with the single repetitions' ratios
##     beside it), posterior mean K;
##  4. galaxy data (N = 82), 20,000 iterations, start in one cluster: ESS of
##     K per CPU second (pooled as in 3), mcmix (collapsed, subcluster,
##     split_merge with the SAMS and the restricted Gibbs proposals) vs
##     BNPmix's marginal sampler (MAR);
##  5. time per iteration at N = 1e4 for gaussian_niw at D = 50 and
##     gaussian_diag / gaussian_iso at D = 256.
## CPU times are user + system of the fitting call (other jobs on the shared
## machine do not count); wall times are given where threads matter.

args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) && !startsWith(args[[1L]], "--")) as.integer(args[[1L]]) else 3L
sec_arg <- grep("^--sections=", args, value = TRUE)
sections <- if (length(sec_arg)) as.integer(strsplit(sub("^--sections=", "", sec_arg), ",")[[1L]]) else 1:6
want <- function(k) k %in% sections
partial <- length(sec_arg) > 0L
out_file <- file.path("bench", "RESULTS.md")

cpu <- function(expr) {
  t <- system.time(expr)
  c(cpu = t[["user.self"]] + t[["sys.self"]] + t[["user.child"]] + t[["sys.child"]],
    wall = t[["elapsed"]])
}
rss_mb <- function(field) {
  l <- grep(paste0("^", field), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", l)) / 1024
}
five_clusters <- function(N, seed = 42) {
  set.seed(seed)
  mu <- rbind(c(-6, -6), c(-6, 6), c(6, -6), c(6, 6), c(0, 0))
  z <- sample.int(5L, N, replace = TRUE)
  x <- mu[z, ] + matrix(stats::rnorm(2 * N), N, 2)
  x
}
med_range <- function(v, digits = 3)
  sprintf("%s (%s–%s)", signif(stats::median(v), digits), signif(min(v), digits),
          signif(max(v), digits))

## --- 0. the answer at scale --------------------------------------------------
if (length(args) && args[[1L]] == "--mixing") {
  suppressPackageStartupMessages(library(mcmix))
  cases <- if (length(args) >= 4L)
    list(list(N = as.numeric(args[[2L]]), iter = as.integer(args[[3L]]),
              seeds = as.integer(strsplit(args[[4L]], ",")[[1L]])))
  else list(list(N = 1e5, iter = 100L, seeds = 1:3), list(N = 1e6, iter = 40L, seeds = 1:5))
  threads <- if (length(args) >= 5L) as.integer(args[[5L]]) else 1L
  # burn-in: 0 (the default here), or "default" for sample_posterior()'s floor(iter / 2)
  burn <- if (length(args) >= 6L) args[[6L]] else "0"
  # start: "default" (the warm start from N = 5e4) or "one"; sc_thin: the
  # union size above which the sequential moves are thinned ("default",
  # or 0 for none)
  start <- if (length(args) >= 7L) args[[7L]] else "default"
  thin <- if (length(args) >= 8L && args[[8L]] != "default") as.numeric(args[[8L]])
  options(mcmix.threads_adapt = FALSE)
  rss <- function(f) as.numeric(gsub("[^0-9]", "",
    grep(paste0("^", f), readLines("/proc/self/status"), value = TRUE))) / 1024
  load1 <- function() strsplit(readLines("/proc/loadavg"), " ")[[1L]][1L]
  cat("N iter burnin seed threads cpu_s wall_s big exact meanK_last20 extra_peak_MB data_MB load1 sizes start\n")
  for (cs in cases) {
    set.seed(42)
    N <- cs$N
    mu <- rbind(c(-6, -6), c(-6, 6), c(6, -6), c(6, 6), c(0, 0))
    zt <- sample.int(5L, N, replace = TRUE)
    x <- mu[zt, ] + matrix(stats::rnorm(2 * N), N, 2)
    rm(mu)
    for (seed in cs$seeds) {
      invisible(gc())
      # peak memory of the fit alone: VmHWM reset to the current RSS (Linux)
      invisible(tryCatch(cat("5", file = "/proc/self/clear_refs"), error = function(e) NULL))
      base <- rss("VmRSS")
      set.seed(seed)
      burnin <- if (burn == "default") floor(cs$iter / 2) else as.integer(burn)
      ctl <- dp_control()
      if (!is.null(thin)) ctl$sc_thin <- thin
      a <- list(dp_mixture(gaussian_niw()), x, iter = cs$iter, burnin = burnin,
                labels = FALSE, progress = FALSE, threads = threads, control = ctl)
      if (start == "one") a$init <- "one"
      t <- cpu(fit <- do.call(sample_posterior, a))
      peak <- rss("VmHWM") - base
      z <- fit$chains[[1]]$state$labels
      sizes <- sort(tabulate(z + 1L), decreasing = TRUE)
      big <- which(tabulate(z + 1L) >= 0.01 * N) - 1L
      tab <- table(zt, factor(z, levels = big))
      exact <- length(big) == 5L && all(apply(tab, 1L, max) >= 0.995 * rowSums(tab)) &&
        sum(sizes > 0.001 * N) == 5L
      K <- fit$chains[[1]]$traces[, "n_clusters"]
      cat(N, cs$iter, burnin, seed, threads, round(t[["cpu"]], 1), round(t[["wall"]], 1),
          length(big), exact, mean(utils::tail(K, 20)), round(peak), round(8 * length(x) / 2^20),
          load1(), paste(utils::head(sizes, 8), collapse = ","),
          if (is.null(fit$settings$init)) "one" else "subsample", "\n")
    }
  }
  quit(save = "no")
}

## --- 0b. threads with one core held by another process -----------------------
if (length(args) && args[[1L]] == "--loaded-threads") {
  suppressPackageStartupMessages(library(mcmix))
  N <- if (length(args) > 1L) as.numeric(args[[2L]]) else 1e6
  sweeps <- if (length(args) > 2L) as.integer(args[[3L]]) else 10L
  x <- five_clusters(N)
  # the other process: a forked busy loop (before any OpenMP thread starts)
  pid <- parallel::mcparallel(repeat {})$pid
  Sys.sleep(1)
  run <- function(th, adapt) {
    options(mcmix.threads_adapt = adapt)
    set.seed(5)
    t <- cpu(f <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = sweeps, burnin = 0,
                                   labels = FALSE, progress = FALSE, threads = th))
    c(t, K = mean(f$chains[[1]]$traces[, "n_clusters"]))
  }
  cat("threads adapt wall_s cpu_s load1\n")
  for (r in 1:2) for (cfg in list(c(1, 1), c(2, 1), c(2, 0))) {
    v <- run(cfg[1], cfg[2] == 1)
    cat(cfg[1], cfg[2] == 1, round(v[["wall"]], 2), round(v[["cpu"]], 2),
        strsplit(readLines("/proc/loadavg"), " ")[[1L]][1L], "\n")
  }
  tools::pskill(pid)
  quit(save = "no")
}

## --- 1. N = 1e6 with the defaults, in a fresh process (memory) ----------------
if (length(args) && args[[1L]] == "--million") {
  suppressPackageStartupMessages(library(mcmix))
  x <- five_clusters(1e6)
  invisible(gc()); invisible(gc())
  # reset VmHWM to the current RSS (Linux >= 4.0): the peak of making x
  # (several N x 2 temporaries) would otherwise hide the fit's own peak
  invisible(tryCatch(cat("5", file = "/proc/self/clear_refs"), error = function(e) NULL))
  base <- rss_mb("VmRSS")
  alg <- if (length(args) > 1L) list(algorithm = args[[2L]]) else list()
  set.seed(1)
  t <- cpu(fit <- do.call(sample_posterior, c(list(dp_mixture(gaussian_niw()), x, iter = 20,
                                                   burnin = 20, labels = FALSE,
                                                   progress = FALSE), alg)))
  K <- fit$chains[[1]]$traces[, "n_clusters"]
  cat(fit$algorithm, t[["cpu"]], t[["wall"]], mean(K), max(K),
      rss_mb("VmHWM") - base, object.size(x) / 2^20, "\n")
  quit(save = "no")
}

## --- 2. one threads run in a fresh process: wall and CPU per sweep, CPU of
## the main thread and of the others (/proc/self/task), the load average
if (length(args) && args[[1L]] == "--threads") {
  suppressPackageStartupMessages(library(mcmix))
  th <- as.integer(args[[2L]])
  task_cpu <- function() {
    tids <- list.files("/proc/self/task")
    v <- vapply(tids, function(t) {
      f <- strsplit(sub("^.*\\) ", "", readLines(file.path("/proc/self/task", t, "stat"))),
                    " ")[[1L]]
      sum(as.numeric(f[12:13]))            # utime + stime, in clock ticks
    }, 0)
    v / 100
  }
  x <- five_clusters(1e6)
  main <- as.character(Sys.getpid())
  # per sweep: the difference of a 25- and a 5-sweep run (same seed), so
  # the one-off costs of a fit (checks, transposition, first statistics)
  # cancel
  run <- function(it) {
    c0 <- task_cpu()
    set.seed(5)
    t <- cpu(f <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = it, burnin = 0,
                                   labels = FALSE, progress = FALSE, threads = th))
    c1 <- task_cpu()
    d <- c1 - c0[match(names(c1), names(c0))]
    d[is.na(d)] <- c1[is.na(d)]
    list(v = c(t[["wall"]], t[["cpu"]], d[[main]], sum(d[names(d) != main])),
         traces = f$chains[[1]]$traces)
  }
  short <- run(5L)
  long <- run(25L)
  saveRDS(long$traces, args[[3L]])
  cat("threads", (long$v - short$v) / 20,
      as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1L]), "\n")
  quit(save = "no")
}

me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
rs <- file.path(R.home("bin"), "Rscript")
system2(rs, file.path(dirname(me), "install-peers.R"))
suppressPackageStartupMessages(library(mcmix))
have_bnp <- requireNamespace("BNPmix", quietly = TRUE)
lines <- character()
add <- function(...) lines <<- c(lines, sprintf(...))

million <- if (want(1)) lapply(seq_len(reps), function(r) {
  l <- system2(rs, c(me, "--million"), stdout = TRUE)
  as.numeric(strsplit(trimws(l[length(l)]), " +")[[1L]][-1L])
}) else list(rep(NA_real_, 6))
million <- do.call(rbind, million)
colnames(million) <- c("cpu", "wall", "meanK", "maxK", "extra_mb", "data_mb")

## --- 2. threads ---------------------------------------------------------------
# Each run in a fresh process (`--threads TH FILE`, above) with OpenMP's
# passive wait policy, so that a thread waiting at a barrier sleeps instead
# of spinning: its CPU time is then its own work.  From the 2-thread run,
# main-thread CPU = S + P/2 and worker CPU = P/2 (the parallel loops split
# their fixed blocks evenly), so the serial share s = S / (S + P) =
# (main - worker) / (main + worker), and Amdahl's bound on two idle cores
# is 1 / (s + (1 - s) / 2).  Wall-clock ratios on a shared machine depend
# on the other jobs (load average reported).
# The wall-clock ratio (the target) is measured in separate runs with
# OpenMP's default wait policy, which is what a user gets: there a thread
# waiting at a barrier spins for a while before it sleeps, so its CPU time
# says nothing about its work, but it wakes up without a system call.
thr_run <- function(th, passive = TRUE) {
  f <- tempfile(fileext = ".rds")
  l <- system2(rs, c(me, "--threads", th, f), stdout = TRUE,
               env = if (passive) "OMP_WAIT_POLICY=PASSIVE" else character())
  v <- as.numeric(strsplit(trimws(l[length(l)]), " +")[[1L]][-1L])
  list(v = v, traces = readRDS(f))
}
thr <- matrix(NA, reps, 8, dimnames = list(NULL, c("wall1", "wall2", "cpu1", "cpu2",
                                                   "serial", "load", "pwall1", "pwall2")))
same <- TRUE
if (want(2)) for (r in seq_len(reps)) {
  a <- thr_run(1, passive = FALSE)
  b <- thr_run(2, passive = FALSE)
  pa <- thr_run(1)
  pb <- thr_run(2)
  same <- same && identical(a$traces, b$traces) && identical(a$traces, pb$traces)
  thr[r, c("wall1", "wall2", "pwall1", "pwall2")] <- c(a$v[1], b$v[1], pa$v[1], pb$v[1])
  thr[r, c("cpu1", "cpu2")] <- c(pa$v[2], pb$v[2])
  thr[r, "serial"] <- (pb$v[3] - pb$v[4]) / (pb$v[3] + pb$v[4])
  thr[r, "load"] <- b$v[5]
}
if (want(2) && partial) print(thr)
## --- 3. N = 1e4 against BNPmix ICS ---------------------------------------------
# log p(x | partition) under the NIW prior, for partitions drawn by either
# package: lml_niw(x, m0, k0, n0, S0) returns a function of the labels
# (cluster sums of y = x - m0 and of its products by rowsum(), so one
# partition costs O(N) vectorised work).
lml_niw <- function(x, m0, k0, n0, S0) {
  D <- ncol(x)
  y <- sweep(x, 2, m0)
  yy <- do.call(cbind, lapply(seq_len(D), function(j) y * y[, j]))
  const <- sum(lgamma((n0 + 1 - seq_len(D)) / 2))
  ld0 <- as.numeric(determinant(S0)$modulus)
  function(z) {
    n <- as.vector(rowsum(rep(1, nrow(y)), z))
    s1 <- rowsum(y, z)
    s2 <- rowsum(yy, z)
    s <- 0
    for (g in seq_along(n)) {
      ng <- n[g]; yb <- s1[g, ] / ng
      C <- matrix(s2[g, ], D, D) - ng * tcrossprod(yb)
      kn <- k0 + ng; nn <- n0 + ng
      Sn <- S0 + C + k0 * ng / kn * tcrossprod(yb)
      s <- s - ng * D / 2 * log(pi) + sum(lgamma((nn + 1 - seq_len(D)) / 2)) - const +
        n0 / 2 * ld0 - nn / 2 * as.numeric(determinant(Sn)$modulus) + D / 2 * log(k0 / kn)
    }
    s
  }
}
x4 <- five_clusters(1e4, seed = 7)
m0 <- colMeans(x4); k0 <- 0.01; n0 <- 4; S0 <- stats::cov(x4) / 4
fam4 <- gaussian_niw(prior_mean = m0, kappa = k0, df = n0, scale = S0)
lml4 <- lml_niw(x4, m0, k0, n0, S0)
it4 <- 20000L; burn4 <- 1000L
ess_draws <- function(v) posterior::ess_basic(v)
# the mcmix configurations of sections 3 and 4: label = list(algorithm, control)
mcmix_algs <- list(
  collapsed = list("collapsed", dp_control()),
  subcluster = list("subcluster", dp_control()),
  "split_merge (SAMS)" = list("split_merge", dp_control(proposal = "sams")),
  "split_merge (restricted Gibbs)" = list("split_merge",
                                          dp_control(proposal = "restricted_gibbs")))
algs4 <- mcmix_algs[c("collapsed", "subcluster", "split_merge (SAMS)")]
# Every repetition's trace and CPU time, by sampler, for the pooled figure:
# the multi-chain ESS of all repetitions' draws together (posterior's
# ess_basic() on the iterations x repetitions matrix: the repetitions are
# independent chains of the same length from different seeds) over their
# total CPU time. A single run's ESS of a trace with rare long excursions
# says mostly how many excursions that run happened to contain; the pooled
# estimate uses every draw once.
tr4 <- new.env(); trg <- new.env()
keep_trace <- function(env, who, v, cpu)
  assign(who, c(get0(who, env, inherits = FALSE), list(list(v = v, cpu = cpu))), envir = env)
pooled_ess_s <- function(env, who) {
  l <- get(who, env, inherits = FALSE)
  posterior::ess_basic(do.call(cbind, lapply(l, `[[`, "v"))) /
    sum(vapply(l, `[[`, 0, "cpu"))
}
# the other pooled figure: the repetitions' ESS summed, over their total
# CPU (each chain's ESS on its own: no between-chain term)
summed_ess_s <- function(env, who) {
  l <- get(who, env, inherits = FALSE)
  sum(vapply(l, function(e) ess_draws(e$v), 0)) / sum(vapply(l, `[[`, 0, "cpu"))
}
cmp4 <- list()
if (want(3)) for (r in seq_len(reps)) {
  for (alg in names(algs4)) {
    set.seed(10 + r)
    t <- cpu(f <- sample_posterior(dp_mixture(fam4, alpha = 1), x4, iter = it4, burnin = burn4,
                                   algorithm = algs4[[alg]][[1]], control = algs4[[alg]][[2]],
                                   init = "one", labels = FALSE, progress = FALSE))
    ll <- f$chains[[1]]$traces[, "log_lik"]
    keep_trace(tr4, paste("mcmix", alg), ll, t[["cpu"]])
    cmp4[[length(cmp4) + 1L]] <- data.frame(who = paste("mcmix", alg), rep = r,
      cpu_it = t[["cpu"]] / (it4 + burn4), ess_s = ess_draws(ll) / t[["cpu"]],
      meanK = mean(f$chains[[1]]$traces[, "n_clusters"]))
  }
  if (have_bnp) {
    set.seed(10 + r)
    t <- cpu(b <- BNPmix::PYdensity(x4, mcmc = list(niter = it4 + burn4, nburn = burn4,
               method = "ICS", print_message = FALSE, hyper = FALSE),
               prior = list(strength = 1, discount = 0, m0 = m0, k0 = k0, n0 = n0,
                            Sigma0 = S0),
               output = list(grid = matrix(0, 1, 2), out_type = "CLUST")))
    cl <- b$clust
    ll <- apply(cl, 1L, lml4)
    keep_trace(tr4, "BNPmix ICS", ll, t[["cpu"]])
    cmp4[[length(cmp4) + 1L]] <- data.frame(who = "BNPmix ICS", rep = r,
      cpu_it = t[["cpu"]] / (it4 + burn4), ess_s = ess_draws(ll) / t[["cpu"]],
      meanK = mean(apply(cl, 1L, function(z) length(unique(z)))))
    rm(b, cl); invisible(gc())   # the labels: (it4 x N) doubles
  }
  if (partial) print(do.call(rbind, cmp4))   # progress, repetition by repetition
}
cmp4 <- do.call(rbind, cmp4)
# check that the log-likelihood formula of the harness matches mcmix's
ll_check <- NA
if (want(3)) {
set.seed(1)
f1 <- sample_posterior(dp_mixture(fam4, alpha = 1), x4, iter = 1, burnin = 3,
                       algorithm = "collapsed", progress = FALSE)
ll_check <- abs(lml4(partition_draws(f1)[1, ]) -
                f1$chains[[1]]$traces[1, "log_lik"])
}

## --- 4. galaxy ------------------------------------------------------------------
xg <- MASS::galaxies / 1000
mg <- mean(xg); sg <- stats::var(xg) / 4
famg <- gaussian_niw(prior_mean = mg, kappa = 0.01, df = 3, scale = sg)
itg <- 20000L
cmpg <- list()
if (want(4)) for (r in seq_len(reps)) {
  for (alg in names(mcmix_algs)) {
    set.seed(20 + r)
    t <- cpu(f <- sample_posterior(dp_mixture(famg, alpha = 1), xg, iter = itg, burnin = 0,
                                   algorithm = mcmix_algs[[alg]][[1]],
                                   control = mcmix_algs[[alg]][[2]], init = "one",
                                   labels = FALSE, progress = FALSE))
    k <- f$chains[[1]]$traces[, "n_clusters"]
    keep_trace(trg, paste("mcmix", alg), k, t[["cpu"]])
    cmpg[[length(cmpg) + 1L]] <- data.frame(who = paste("mcmix", alg), rep = r,
      ess_s = ess_draws(k) / t[["cpu"]], meanK = mean(k), cpu = t[["cpu"]])
  }
  if (have_bnp) {
    set.seed(20 + r)
    t <- cpu(b <- BNPmix::PYdensity(xg, mcmc = list(niter = itg, nburn = 0, method = "MAR",
               print_message = FALSE, hyper = FALSE),
               # NIW with df 3 and scale sg in D = 1 = Normal-inverse-gamma(3/2, sg/2)
               prior = list(strength = 1, discount = 0, m0 = mg, k0 = 0.01, a0 = 1.5,
                            b0 = sg / 2),
               output = list(grid = 0, out_type = "CLUST")))
    k <- apply(b$clust, 1L, function(z) length(unique(z)))
    keep_trace(trg, "BNPmix MAR", k, t[["cpu"]])
    cmpg[[length(cmpg) + 1L]] <- data.frame(who = "BNPmix MAR", rep = r,
      ess_s = ess_draws(k) / t[["cpu"]], meanK = mean(k), cpu = t[["cpu"]])
  }
}
cmpg <- do.call(rbind, cmpg)

## --- 5. high dimensions -----------------------------------------------------------
hd <- list()
hd_section <- function() {
for (cfg in list(list(fam = "gaussian_niw", D = 50), list(fam = "gaussian_diag", D = 256),
                 list(fam = "gaussian_iso", D = 256))) {
  set.seed(30)
  N <- 1e4
  z <- sample.int(5L, N, replace = TRUE)
  mu <- matrix(stats::rnorm(5 * cfg$D, 0, 3), 5)
  x <- mu[z, ] + matrix(stats::rnorm(N * cfg$D), N)
  fam <- get(cfg$fam, asNamespace("mcmix"))()
  for (alg in c("collapsed", "subcluster")) {
    n_it <- if (alg == "collapsed" && cfg$fam == "gaussian_niw") 3L else 10L
    set.seed(31)
    t <- cpu(f <- sample_posterior(dp_mixture(fam), x, iter = n_it, burnin = 0,
                                   algorithm = alg, init = "one", labels = FALSE,
                                   progress = FALSE))
    hd[[length(hd) + 1L]] <- data.frame(family = cfg$fam, D = cfg$D, algorithm = alg,
      s_it = t[["cpu"]] / n_it, K_last = f$chains[[1]]$traces[n_it, "n_clusters"])
  }
}
hd <<- do.call(rbind, hd)
}
if (want(5)) tryCatch(hd_section(), error = function(e) message("high-dimension section failed: ",
                                                     conditionMessage(e)))
if (is.list(hd) && !is.data.frame(hd)) hd <- data.frame(family = character(), D = integer(),
  algorithm = character(), s_it = numeric(), K_last = numeric())

## --- 6. the collapsed sweep against its floor at N = 1e5 ----------------------------
floor_ratio <- NA
floor_so <- local({
  d <- tempfile("floor"); dir.create(d)
  file.copy(file.path(dirname(me), "floor.c"), d)
  old <- setwd(d); on.exit(setwd(old))
  st <- system2(file.path(R.home("bin"), "R"), c("CMD", "SHLIB", "floor.c"),
                stdout = FALSE, stderr = FALSE)
  if (st == 0) file.path(d, paste0("floor", .Platform$dynlib.ext)) else NA
})
fl <- NULL
if (want(6) && !is.na(floor_so)) tryCatch({
  dyn.load(floor_so)
  x5 <- five_clusters(1e5, seed = 9)
  set.seed(9)
  z5 <- sample.int(5L, 1e5, replace = TRUE)   # five_clusters(seed = 9)'s own labels
  sw <- 20L
  fl <- matrix(NA, reps, 2, dimnames = list(NULL, c("collapsed", "floor")))
  # one cluster's cached factors: mean, inverse Cholesky factor, constant,
  # exponent, log count (the values do not change the cost)
  par <- c(stats::rnorm(2), 1, 0.1, 1, -1, 2, log(2e4))
  for (r in seq_len(reps)) {
    set.seed(40 + r)
    t <- cpu(f <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 1), x5, iter = sw,
                                   burnin = 0, algorithm = "collapsed", init = z5,
                                   labels = FALSE, progress = FALSE))
    fl[r, "collapsed"] <- t[["cpu"]] / sw
    Kf <- round(mean(f$chains[[1]]$traces[, "n_clusters"]))
    p <- rep(par, Kf + 1)
    xt5 <- t(x5)
    t <- cpu(.C("floor_sweep", xt5, as.integer(1e5), as.integer(Kf), p, sw,
                z = integer(1e5)))
    fl[r, "floor"] <- t[["cpu"]] / sw
  }
  floor_ratio <- fl[, "collapsed"] / fl[, "floor"]
}, error = function(e) { message("floor section failed: ", conditionMessage(e)); fl <<- NULL })

## --- only some sections: print their tables and per-repetition ratios --------------
if (partial) {
  ratio <- function(d, a, b, col) d[d$who == a, col] / d[d$who == b, col]
  if (want(3)) {
    print(cmp4)
    if (have_bnp) {
      cat("N = 1e4, per repetition, collapsed / ICS: CPU per iteration",
          format(ratio(cmp4, "mcmix collapsed", "BNPmix ICS", "cpu_it"), digits = 3),
          "; ESS(log-lik)/s", format(ratio(cmp4, "mcmix collapsed", "BNPmix ICS", "ess_s"),
                                    digits = 3), "\n")
      cat("harness log-lik check:", ll_check, "\n")
      for (w in unique(cmp4$who)) cat("pooled ESS(log-lik)/s,", w, ":",
                                      format(pooled_ess_s(tr4, w), digits = 3), "\n")
    }
  }
  if (want(4)) {
    print(cmpg)
    for (w in unique(cmpg$who)) cat("pooled ESS(K)/s,", w, ":",
                                    format(pooled_ess_s(trg, w), digits = 3), "\n")
    if (have_bnp)
      for (w in setdiff(unique(cmpg$who), "BNPmix MAR"))
        cat("galaxy ESS(K)/s,", w, "/ MAR:",
            format(ratio(cmpg, w, "BNPmix MAR", "ess_s"), digits = 3), "\n")
  }
  if (want(5)) print(hd)
  if (want(6) && !is.null(fl)) {
    print(fl)
    cat("collapsed / floor per sweep:", format(floor_ratio, digits = 3), "\n")
  }
  quit(save = "no")
}

## --- write RESULTS.md -----------------------------------------------------------------
si <- utils::sessionInfo()
cpu_model <- tryCatch(sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"),
                                          value = TRUE)[1L]), error = function(e) "?")
add("# Large-data benchmark of the DP mixture samplers")
add("")
add("Written by `Rscript bench/bench-scale.R %d` (`make bench`) on %s.", reps,
    format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"))
add("Machine: %s, %d logical CPUs, load average at the end %s (shared with other jobs).",
    cpu_model, parallel::detectCores(),
    paste(tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3],
                   error = function(e) "?"), collapse = " "))
add("Versions: %s, mcmix %s, BNPmix %s%s.", R.version.string,
    utils::packageVersion("mcmix"),
    if (have_bnp) as.character(utils::packageVersion("BNPmix")) else "not installed",
    if (have_bnp && getRversion() < "4.4.0")
      " (installed from its CRAN tarball with `ggpubr` moved from Imports to Suggests and `importFrom(ggpubr, ggarrange)` dropped: ggpubr's dependencies need R >= 4.4; it is used only by one plot() branch)"
    else "")
add("Each figure: median (range) of %d interleaved repetitions. CPU = user + system time of the fitting call.", reps)
add("")
add("## Targets")
add("")
add("| target | measured | met |")
add("|---|---|---|")
mK <- million[, "meanK"]
add("| N = 1e6, D = 2, defaults: mean K over iterations 21–40 <= 7 (truth 5) | %s (max K %s) | %s |",
    med_range(mK), max(million[, "maxK"]), if (all(mK <= 7)) "yes" else "no")
add("| ... within 40 iterations in <= 120 s wall | %s s wall, %s s CPU | %s |",
    med_range(million[, "wall"]), med_range(million[, "cpu"]),
    if (stats::median(million[, "wall"]) <= 120) "yes" else "no")
add("| ... extra peak memory <= 32 MB over the data's %.0f MB | %s MB | %s |",
    million[1, "data_mb"], med_range(million[, "extra_mb"]),
    if (stats::median(million[, "extra_mb"]) <= 32) "yes" else "no")
sp <- thr[, "wall1"] / thr[, "wall2"]
add("| 2 threads >= 1.7x faster than 1 per sweep at N = 1e6; draws identical | %s x wall (1 thread %s s, 2 threads %s s per sweep; load average %s); with passive waiting %s x, CPU %s and %s s; serial share of the CPU %s, so at most %s x on two idle cores; identical: %s | %s |",
    med_range(sp), med_range(thr[, "wall1"]), med_range(thr[, "wall2"]), med_range(thr[, "load"]),
    med_range(thr[, "pwall1"] / thr[, "pwall2"]),
    med_range(thr[, "cpu1"]), med_range(thr[, "cpu2"]),
    med_range(thr[, "serial"]), med_range(1 / (thr[, "serial"] + (1 - thr[, "serial"]) / 2)),
    same, if (stats::median(sp) >= 1.7 && same) "yes" else "no")
g4 <- function(who, col) cmp4[cmp4$who == who, col]
if (have_bnp) {
  mc4 <- setdiff(unique(cmp4$who), "BNPmix ICS")
  pool4 <- vapply(mc4, function(w) pooled_ess_s(tr4, w), 0)
  best <- mc4[which.max(pool4)]
  r_pool <- max(pool4) / pooled_ess_s(tr4, "BNPmix ICS")
  r_sum <- summed_ess_s(tr4, best) / summed_ess_s(tr4, "BNPmix ICS")
  r_ess <- g4(best, "ess_s") / g4("BNPmix ICS", "ess_s")
  r_it <- g4("mcmix collapsed", "cpu_it") / g4("BNPmix ICS", "cpu_it")
  add("| N = 1e4: ESS(log-lik)/s >= 3x BNPmix ICS | %s x pooled over the %d repetitions (%s; multi-chain ESS; with the repetitions' ESS summed instead %s x; ratios of single repetitions %s) | %s |",
      signif(r_pool, 3), reps, best, signif(r_sum, 3), med_range(r_ess),
      if (min(r_pool, r_sum, stats::median(r_ess)) >= 3) "yes" else "no")
  add("| N = 1e4: collapsed per iteration <= 0.5x ICS | %s x | %s |", med_range(r_it),
      if (stats::median(r_it) <= 0.5) "yes" else "no")
  gg <- function(who, col) cmpg[cmpg$who == who, col]
  mcg <- setdiff(unique(cmpg$who), "BNPmix MAR")
  poolg <- vapply(mcg, function(w) pooled_ess_s(trg, w), 0)
  bestg <- mcg[which.max(poolg)]
  r_gpool <- max(poolg) / pooled_ess_s(trg, "BNPmix MAR")
  r_g <- gg(bestg, "ess_s") / gg("BNPmix MAR", "ess_s")
  add("| galaxy: ESS(K)/s >= 8x BNPmix marginal sampler | %s x pooled over the %d repetitions (%s; ratios of single repetitions %s) | %s |",
      signif(r_gpool, 3), reps, bestg, med_range(r_g), if (r_gpool >= 8) "yes" else "no")
} else {
  add("| comparisons with BNPmix | BNPmix could not be installed | no |")
}
if (is.null(fl)) {
  add("| collapsed sweep within 1.5x of the bench floor at N = 1e5 | floor program did not build | no |")
} else {
  add("| collapsed sweep within 1.5x of the bench floor (bench/floor.c) at N = 1e5 | %s x (collapsed %s ms, floor %s ms per sweep) | %s |",
      med_range(floor_ratio), med_range(1000 * fl[, "collapsed"]), med_range(1000 * fl[, "floor"]),
      if (stats::median(floor_ratio) <= 1.5) "yes" else "no")
}
add("")
add("## N = 1e6, D = 2, five clusters, `sample_posterior()` defaults")
add("")
add("Algorithm chosen by default: `%s`, started from one cluster; 20 warm-up + 20 kept iterations, `labels = FALSE`.", fit_alg <- "subcluster")
add("")
add("| rep | CPU s | wall s | mean K (21–40) | max K | extra peak MB |")
add("|---|---|---|---|---|---|")
for (r in seq_len(nrow(million)))
  add("| %d | %.1f | %.1f | %.2f | %d | %.1f |", r, million[r, "cpu"], million[r, "wall"],
      million[r, "meanK"], as.integer(million[r, "maxK"]), million[r, "extra_mb"])
add("")
add("## N = 1e4 against BNPmix ICS (same NIW prior, alpha = 1, start in one cluster, %d + %d iterations)", burn4, it4)
add("")
add("Log-likelihood of a partition recomputed by the harness for both packages (check against mcmix's trace: |difference| = %.2g).", ll_check)
add("")
add("| sampler | CPU ms / iteration | ESS(log-lik) / CPU s, pooled | ESS(log-lik) / CPU s, single repetitions | posterior mean K |")
add("|---|---|---|---|---|")
for (w in unique(cmp4$who))
  add("| %s | %s | %s | %s | %s |", w, med_range(1000 * g4(w, "cpu_it")),
      signif(pooled_ess_s(tr4, w), 3), med_range(g4(w, "ess_s")), med_range(g4(w, "meanK")))
add("")
add("## Galaxy data (N = 82), %d iterations from one cluster", itg)
add("")
add("| sampler | CPU s | ESS(K) / CPU s, pooled | ESS(K) / CPU s, single repetitions | posterior mean K |")
add("|---|---|---|---|---|")
for (w in unique(cmpg$who))
  add("| %s | %s | %s | %s | %s |", w, med_range(cmpg[cmpg$who == w, "cpu"]),
      signif(pooled_ess_s(trg, w), 3), med_range(cmpg[cmpg$who == w, "ess_s"]),
      med_range(cmpg[cmpg$who == w, "meanK"]))
add("")
add("BNPmix's MAR sampler has no option to start from one cluster (its own start). BNPmix runs with `hyper = FALSE` (its default adds hyperpriors on the base measure, a different model).")
add("")
add("## High dimensions, N = 1e4, five clusters, from one cluster (one run)")
add("")
add("| family | D | algorithm | CPU s / iteration | K at the end |")
add("|---|---|---|---|---|")
for (i in seq_len(nrow(hd)))
  add("| %s | %d | %s | %.3f | %d |", hd$family[i], hd$D[i], hd$algorithm[i], hd$s_it[i],
      as.integer(hd$K_last[i]))
add("")
notes <- file.path(dirname(me), "RESULTS-notes.md")
if (file.exists(notes)) lines <- c(lines, readLines(notes))
writeLines(lines, out_file)
cat(lines, sep = "\n")
