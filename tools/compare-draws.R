# Draws of every sampler kind on fixed seeds, from two installed builds of
# mcmix, compared bit for bit: a restructuring that must not change any
# draw is checked by installing the old sources into one library and the
# new ones into another.
#   Rscript tools/compare-draws.R OLD_LIB NEW_LIB   run both, compare
#   Rscript tools/compare-draws.R --run OUT.rds     (internal: one build,
#                                                    the one on R_LIBS)
# The fits are those of tests/testthat/helper-fits.R (every sampler, two
# chains) plus every DP, finite-mixture, HDP and LDA algorithm, OpenMP
# threads, forked chains (cores = 2), extend(), and the population
# samplers (SMC, AIS, ABC, annealing). Compared: each chain's traces,
# labels and other fields but its timing, and the fit's class. Exits with
# status 1 when any result differs.
args <- commandArgs(TRUE)
here <- normalizePath(".")

if (length(args) == 2L && args[1L] == "--run") {
  suppressPackageStartupMessages(library(mcmix))
  sys.source(file.path(here, "tests/testthat/helper-fits.R"), envir = environment())
  strip <- function(f) {
    if (inherits(f, "mcmix_fit"))
      list(class = class(f), traces = lapply(f$chains, `[[`, "traces"),
           labels = lapply(f$chains, `[[`, "labels"),
           other = lapply(f$chains, function(ch)
             ch[setdiff(names(ch), c("traces", "labels", "time", "timing", "elapsed", "kernel"))]))
    else if (is.list(f)) f[setdiff(names(f), c("call", "time", "elapsed", "timing"))] else f
  }
  out <- list()
  fs <- suppressMessages(fits_of_every_sampler())
  for (nm in names(fs)) out[[nm]] <- strip(fs[[nm]])
  env <- attr(fs, "env")
  x3 <- env$x3
  ld <- function(x) -sum(x^2) / 2
  run <- function(expr) { set.seed(7); expr }   # lazy: the seed is set first
  for (alg in c("split_merge", "subcluster", "collapsed", "neal8", "slice"))
    out[[paste0("dp_", alg)]] <- strip(run(sample_posterior(
      dp_mixture(gaussian_niw()), x3, algorithm = alg, iter = 40, burnin = 10, chains = 2,
      progress = FALSE)))
  out$dp_threads2 <- strip(run(sample_posterior(
    dp_mixture(gaussian_niw()), x3, algorithm = "subcluster", iter = 40, burnin = 10,
    chains = 2, threads = 2, progress = FALSE)))
  for (alg in c("collapsed", "collapsed_weights", "gibbs"))
    out[[paste0("finite_", alg)]] <- strip(run(sample_posterior(
      finite_mixture(gaussian_niw(), K = 3), x3, algorithm = alg, iter = 40, burnin = 10,
      chains = 2, progress = FALSE)))
  for (alg in c("gibbs", "split_merge", "subcluster"))
    out[[paste0("hdp_", alg)]] <- strip(run(sample_posterior(
      hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)), env$groups, algorithm = alg,
      iter = 30, burnin = 10, chains = 2, progress = FALSE)))
  for (alg in c("sparse", "dense", "blocked", "mh"))
    out[[paste0("lda_", alg)]] <- strip(run(sample_posterior(
      lda_model(K = 2, alpha = 0.5, beta = 0.1), env$docs, algorithm = alg, iter = 30,
      burnin = 10, chains = 2, progress = FALSE)))
  out$rj_conjugate <- strip(run(sample_posterior(rj_mixture(gaussian_niw(), k_max = 5), x3,
                                                 iter = 40, burnin = 10, chains = 2,
                                                 progress = FALSE)))
  # forked chains equal sequential ones, in every build
  out$mh_cores2 <- strip(run(sample_mh(ld, init = c(0, 0), iter = 50, chains = 2, cores = 2,
                                       progress = FALSE)))
  out$dp_cores2 <- strip(run(sample_posterior(dp_mixture(gaussian_niw()), x3, iter = 40,
                                              chains = 2, cores = 2, progress = FALSE)))
  out$rj_cores2 <- strip(run(sample_posterior(rj_mixture(k_max = 5), x3, iter = 40, chains = 2,
                                              cores = 2, progress = FALSE)))
  out$bn_cores2 <- strip(run(suppressMessages(sample_posterior(
    bayes_net_asia(), list(dysp = "yes"), iter = 40, chains = 2, cores = 2, progress = FALSE))))
  out$logit_cores2 <- strip(run(logit_gibbs(cbind(1, x3), as.integer(x3 > 0), iter = 40,
                                            chains = 2, cores = 2, progress = FALSE)))
  f <- run(sample_posterior(dp_mixture(gaussian_niw()), x3, iter = 20, chains = 2,
                            progress = FALSE))
  out$dp_extend <- strip(extend(f, iter = 20, progress = FALSE))
  ll <- function(t) dnorm(1, t, 1, log = TRUE)
  lp <- function(t) dnorm(t, 0, 2, log = TRUE)
  pr <- function(n) matrix(rnorm(n, 0, 2))
  out$smc <- strip(run(sample_smc(ll, lp, pr, n_particles = 200)))
  out$ais <- strip(run(ais(ll, lp, pr, n_runs = 20)))
  out$anneal <- strip(run(anneal(function(x) -sum((x - 1)^2), init = c(0, 0), iter = 500)))
  out$abc <- strip(run(sample_abc(function(n) matrix(rnorm(n)), function(th) rnorm(5, th),
                                  rnorm(5, 1), n = 500, quantile = 0.1)))
  saveRDS(out, args[2L])
  quit(status = 0L)
}

if (length(args) != 2L) {
  message("usage: Rscript tools/compare-draws.R OLD_LIB NEW_LIB")
  quit(status = 2L)
}
results <- lapply(args, function(lib) {
  out <- tempfile(fileext = ".rds")
  rscript <- file.path(R.home("bin"), "Rscript")
  status <- system2(rscript, c("tools/compare-draws.R", "--run", out),
                    env = paste0("R_LIBS=", normalizePath(lib)))
  if (status != 0L) stop("the run with library ", lib, " failed")
  readRDS(out)
})
a <- results[[1L]]
b <- results[[2L]]
differ <- setdiff(union(names(a), names(b)), intersect(names(a), names(b)))
for (nm in intersect(names(a), names(b)))
  if (!identical(a[[nm]], b[[nm]])) differ <- c(differ, nm)
cat(sprintf("%d results compared; %s\n", length(union(names(a), names(b))),
            if (length(differ)) paste("different:", paste(differ, collapse = ", "))
            else "all identical"))
quit(status = if (length(differ)) 1L else 0L)
