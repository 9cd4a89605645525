# Draws of every sampler on fixed seeds, saved by one build and compared
# with another: a restructuring of the C code must leave them bit for bit.
#   R_LIBS=<old library> Rscript tools/same-draws.R save draws.rds
#   R_LIBS=<new library> Rscript tools/same-draws.R compare draws.rds
# Runs every case of the interrupt sweep (tests/testthat/helper-interrupt.R:
# every DP algorithm, finite mixtures, HDP, LDA, NUTS, the generic and the
# model samplers) and, beyond it, every built-in family under two DP
# algorithms, every LDA sampler, the HDP's three algorithms, NUTS with a
# dense metric, SMC, AIS, annealing and ABC. Compares the chains of each
# fit (traces, states, labels, seeds) with identical(), timings left out.
args <- commandArgs(trailingOnly = TRUE)
stopifnot(length(args) == 2L, args[1] %in% c("save", "compare"))
suppressPackageStartupMessages(library(mcmix))
options(mcmix.chunk_size = 7L)   # several chunks per run, whatever the machine's speed
source(file.path("tests", "testthat", "helper-interrupt.R"))
q <- function(expr) suppressWarnings(suppressMessages(expr))

x2 <- cbind(c(-2.1, -1.9, -2.3, 1.8, 2.2, 2.0, 2.4, -1.7, 0.1, 0.3),
            c(1.1, 0.9, 1.3, -0.8, -1.2, -1.0, -1.4, 0.7, 0.2, 0.0))
families <- list(
  gaussian_mean = list(gaussian_mean(cov = diag(2), prior_cov = diag(4, 2)), x2),
  gaussian_niw = list(gaussian_niw(), x2),
  gaussian_diag = list(gaussian_diag(), x2),
  gaussian_iso = list(gaussian_iso(), x2),
  bernoulli_beta = list(bernoulli_beta(), x2 > 0),
  categorical_dirichlet = list(categorical_dirichlet(), c(1, 2, 3, 1, 2, 1, 3, 3, 2, 1)),
  poisson_gamma = list(poisson_gamma(), c(0, 1, 0, 7, 9, 8, 1, 6, 2, 3)),
  product = list(product_family(a = gaussian_diag(), b = poisson_gamma()),
                 data.frame(a = x2[, 1], b = c(0, 1, 0, 7, 9, 8, 1, 6, 2, 3))))
cases <- interrupt_cases()
for (nm in names(families)) for (alg in c("collapsed", "subcluster", "neal8")) local({
  f <- families[[nm]]
  a <- alg
  cases[[paste("family", nm, a)]] <<- function()
    q(sample_posterior(dp_mixture(f[[1]], alpha = 1), f[[2]], iter = 30, burnin = 10,
                       algorithm = a, progress = FALSE))
})
cases[["family gaussian_nonconj neal8"]] <- function()
  q(sample_posterior(dp_mixture(gaussian_nonconj()), x2[, 1], iter = 30, burnin = 10,
                     algorithm = "neal8", progress = FALSE))
docs <- lapply(1:12, function(d) ((d * 7 + seq_len(15) * 3) %% 9) + 1)
for (alg in c("sparse", "dense", "blocked", "mh")) local({
  a <- alg
  cases[[paste("lda", a)]] <<- function()
    q(sample_posterior(lda_model(K = 3, alpha = 0.5, beta = 0.1), docs, iter = 30,
                       burnin = 10, algorithm = a, progress = FALSE,
                       threads = if (a == "blocked") 2L else 1L))
})
groups <- list(a = c(-4.2, -3.9, 0.1, 0.3, -4.0), b = c(0.2, -0.1, 3.8, 4.1, 4.0),
               c = c(3.9, -4.1, 0.0, 0.2, 4.2))
for (alg in c("split_merge", "subcluster", "gibbs")) local({
  a <- alg
  cases[[paste("hdp", a)]] <<- function()
    q(sample_posterior(hdp_mixture(gaussian_niw(), gamma = gamma_prior(2, 2)), groups,
                       iter = 30, burnin = 10, algorithm = a, progress = FALSE))
})
tg <- target(function(x) -sum(x^2 / c(1, 4)) / 2, gradient = function(x) -x / c(1, 4))
cases[["nuts dense"]] <- function() q(sample_nuts(tg, init = c(1, 1), iter = 60, burnin = 40,
                                                  metric = "dense"))
ll <- function(th) sum(stats::dnorm(c(0.5, 1.2, -0.3), th, 1, log = TRUE))
lp <- function(th) stats::dnorm(th, 0, 2, log = TRUE)
ps <- function(n) matrix(stats::rnorm(n, 0, 2), ncol = 1)
cases[["smc"]] <- function() q(sample_smc(ll, lp, ps, n_particles = 100))
cases[["ais"]] <- function() q(ais(ll, lp, ps, temperatures = seq(0, 1, length.out = 6),
                                   n_runs = 50))
cases[["abc"]] <- function() q(sample_abc(function(n) stats::rnorm(n, 0, 2),
                                          function(th) stats::rnorm(5, th, 1), c(0.5, 1.2, -0.3, 0.1, 0.4),
                                          quantile = 0.1, n = 500))
cases[["anneal"]] <- function() q(anneal(function(x) -sum((x - 1)^2), init = c(0, 0),
                                         iter = 200))

# What is compared of a result: the chains of a fit without their timings,
# or the whole object for the results that are not fits.
draws_of <- function(r) {
  if (inherits(r, "mcmix_fit"))
    return(lapply(r$chains, function(ch) ch[setdiff(names(ch), c("time", "timing"))]))
  drop <- intersect(names(r), c("timing", "time", "call", "elapsed"))
  if (is.list(r)) r[setdiff(names(r), drop)] else r
}
out <- list()
for (nm in names(cases)) {
  set.seed(20261129)
  r <- tryCatch(cases[[nm]](), error = function(e) e)
  out[[nm]] <- if (inherits(r, "error")) paste("error:", conditionMessage(r)) else draws_of(r)
}
if (args[1] == "save") {
  saveRDS(out, args[2])
  cat(length(out), "cases saved;", sum(vapply(out, is.character, TRUE)), "errors\n")
} else {
  old <- readRDS(args[2])
  diff <- setdiff(union(names(old), names(out)),
                  names(old)[vapply(names(old), function(n) identical(old[[n]], out[[n]]), TRUE)])
  errs <- names(out)[vapply(out, is.character, TRUE)]
  cat(length(out), "cases compared;", length(diff), "differ:", diff, "\n")
  if (length(errs)) cat("errors:", errs, "\n")
  if (length(diff)) quit(status = 1)
}
