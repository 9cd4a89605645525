# The memory budget's estimates against measured peaks (R/chains_budget.R).
#
#   Rscript tools/budget-check.R [case ...]      (mcmix installed, R_LIBS)
#
# Each case is a large legal call of an export: one whose estimate is close
# to `options(mcmix.memory_budget = B)` (B = 2e8 bytes here). It runs
# sequentially in a child R process of its own: the data are built first,
# then the peak of the process's resident memory is reset (Linux:
# /proc/self/clear_refs), the call runs, and its peak growth (VmHWM after
# the call minus VmRSS before it) is compared with the package's estimate:
# the largest number of bytes the call asked check_budget() for (traced).
# The ratio estimate / peak must lie in [1/1.5, 1.5]. The table is printed
# and written to budget-check.csv; bench/RESULTS-notes.md keeps the last one.
# Linux only (it reads /proc/self/status). The samplers that call an R
# function per coordinate (sample_slice(), sample_gibbs()) store their draws
# as sample_mh() does and are left out: at this size they take minutes.

B <- 2e8

# the data of the two binary regressions
regression_setup <- quote({
  set.seed(1)
  X <- matrix(stats::rnorm(60 * 40), 60, 40)
  y <- stats::rbinom(60, 1, 0.5)
})

budget_cases <- list(
  sample_mh = list(
    setup = quote(tg <- target(function(x) -sum(x^2) / 2)),
    call = quote(sample_mh(tg, init = rep(0, 100), iter = 37500, burnin = 0, chains = 2,
                           progress = FALSE))),
  sample_nuts = list(
    setup = quote(tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)),
    call = quote(sample_nuts(tg, init = rep(0, 500), iter = 7500, burnin = 0, chains = 2,
                             max_treedepth = 2, adapt = FALSE, step_size = 0.5,
                             progress = FALSE))),
  sample_hmc = list(
    setup = quote(tg <- target(function(x) -sum(x^2) / 2, gradient = function(x) -x)),
    call = quote(sample_hmc(tg, init = rep(0, 500), iter = 7500, burnin = 0, chains = 2,
                            n_steps = 2, adapt = FALSE, progress = FALSE))),
  dp_labels = list(
    setup = quote({ set.seed(1); x <- c(stats::rnorm(2500, -3), stats::rnorm(2500, 3)) }),
    call = quote(sample_posterior(dp_mixture(gaussian_niw()), x, iter = 1500, burnin = 0,
                                  chains = 2, algorithm = "collapsed", labels = TRUE,
                                  progress = FALSE))),
  finite_labels = list(
    setup = quote({ set.seed(1); x <- c(stats::rnorm(2500, -3), stats::rnorm(2500, 3)) }),
    call = quote(sample_posterior(finite_mixture(gaussian_niw(), K = 2), x, iter = 1500,
                                  burnin = 0, chains = 2, algorithm = "gibbs",
                                  labels = TRUE, progress = FALSE))),
  rj_mixture = list(
    setup = quote({ set.seed(1); x <- c(stats::rnorm(2500, -3), stats::rnorm(2500, 3)) }),
    call = quote(sample_posterior(rj_mixture(), x, iter = 1500, burnin = 0, chains = 2,
                                  labels = TRUE, progress = FALSE))),
  lca = list(
    setup = quote({
      set.seed(1)
      n <- 5000
      d <- data.frame(q1 = sample(c("yes", "no"), n, TRUE), q2 = sample(c("a", "b"), n, TRUE),
                      q3 = sample(c("u", "v", "w"), n, TRUE))
    }),
    call = quote(lca(d, K = 3, iter = 1500, burnin = 0, chains = 2, progress = FALSE))),
  bayes_net = list(
    setup = quote(asia <- bayes_net_asia()),
    call = quote(sample_posterior(asia, list(dysp = "yes"), iter = 4.5e5, burnin = 0,
                                  chains = 2, blocks = list(c("tub", "lung", "either")),
                                  progress = FALSE))),
  hdp_mixture = list(
    setup = quote({
      set.seed(1)
      groups <- lapply(1:4, function(g) c(stats::rnorm(600, -4), stats::rnorm(600, 4)))
    }),
    call = quote(sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)),
                                  groups, iter = 1500, burnin = 0, chains = 2,
                                  algorithm = "gibbs", progress = FALSE))),
  lda_model = list(
    setup = quote({
      set.seed(1)
      W <- 2e5
      docs <- lapply(1:1000, function(i) sample.int(W, 100, TRUE))
      vocab <- paste0("w", seq_len(W))
    }),
    call = quote(sample_posterior(lda_model(K = 16), docs, vocab = vocab, iter = 10,
                                  burnin = 0, chains = 2, progress = FALSE))),
  logit_gibbs = list(
    setup = regression_setup,
    call = quote(logit_gibbs(X, y, iter = 100000, burnin = 0, chains = 2,
                             progress = FALSE))),
  probit_gibbs = list(
    setup = regression_setup,
    call = quote(probit_gibbs(X, y, iter = 100000, burnin = 0, chains = 2,
                              progress = FALSE))),
  rpolyagamma = list(
    setup = quote(NULL),
    call = quote(rpolyagamma(2e7, z = 1))),
  ising_gibbs = list(
    setup = quote(NULL),
    call = quote(ising_gibbs(30, 30, J = 0.3, keep_spins = TRUE, iter = 9000, burnin = 0,
                             chains = 2, progress = FALSE))),
  gp_classify = list(
    setup = quote({
      set.seed(1)
      X <- matrix(stats::rnorm(2200 * 2), 2200, 2)
      y <- stats::rbinom(2200, 1, 0.5)
    }),
    call = quote(gp_classify(X, y, keep_f = FALSE, iter = 3, burnin = 0, chains = 1,
                             progress = FALSE)))
)

budget_child <- function(name) {
  suppressPackageStartupMessages(library(mcmix))
  options(mcmix.memory_budget = B, mcmix.work_budget = 1e10)
  case <- budget_cases[[name]]
  eval(case$setup, globalenv())
  rec <- new.env()
  rec$max <- 0
  ns <- asNamespace("mcmix")
  # every request the call makes of the memory budget
  suppressMessages(trace("check_budget", where = ns, print = FALSE,
                         tracer = bquote(assign("max", max(get("max", envir = .(rec)),
                                                           bytes, na.rm = TRUE),
                                                envir = .(rec)))))
  status <- function(field) {
    s <- readLines("/proc/self/status")
    1024 * as.numeric(gsub("[^0-9]", "", grep(paste0("^", field, ":"), s, value = TRUE)))
  }
  invisible(gc(full = TRUE))
  writeLines("5", "/proc/self/clear_refs")   # the peak (VmHWM) starts again from here
  rss0 <- status("VmRSS")
  t0 <- proc.time()[[3L]]
  res <- tryCatch({
    v <- suppressWarnings(suppressMessages(eval(case$call, globalenv())))
    "ok"
  }, error = function(e) paste("error:", conditionMessage(e)))
  secs <- proc.time()[[3L]] - t0
  peak <- status("VmHWM") - rss0
  cat(sprintf("RESULT\t%s\t%.0f\t%.0f\t%.1f\t%s\n", name, rec$max, peak, secs, res))
}

budget_main <- function(which) {
  rscript <- file.path(R.home("bin"), "Rscript")
  me <- normalizePath("tools/budget-check.R")
  rows <- list()
  for (nm in which) {
    out <- suppressWarnings(system2(rscript, c(me, "--child", nm), stdout = TRUE, stderr = TRUE))
    line <- grep("^RESULT\t", out, value = TRUE)
    if (!length(line)) {
      cat(nm, ": no result\n", paste(utils::tail(out, 5), collapse = "\n"), "\n")
      next
    }
    f <- strsplit(line, "\t")[[1L]]
    rows[[nm]] <- data.frame(case = nm, estimate_MB = as.numeric(f[3]) / 1e6,
                             peak_MB = as.numeric(f[4]) / 1e6, secs = as.numeric(f[5]),
                             result = f[6])
    r <- rows[[nm]]
    cat(sprintf("%-14s estimate %7.1f MB  peak %7.1f MB  ratio %5.2f  %5.1f s  %s\n", nm,
                r$estimate_MB, r$peak_MB, r$estimate_MB / r$peak_MB, r$secs, r$result))
  }
  tab <- do.call(rbind, rows)
  tab$ratio <- round(tab$estimate_MB / tab$peak_MB, 2)
  tab$within <- tab$result == "ok" & tab$ratio >= 1 / 1.5 & tab$ratio <= 1.5
  utils::write.csv(tab, "budget-check.csv", row.names = FALSE)
  print(tab, row.names = FALSE)
  cat(sprintf("\n%d of %d within 1.5x (memory budget %.0f MB)\n", sum(tab$within), nrow(tab),
              B / 1e6))
  invisible(tab)
}

args <- commandArgs(TRUE)
if (length(args) >= 2L && args[1L] == "--child") {
  budget_child(args[2L])
} else {
  budget_main(if (length(args)) args else names(budget_cases))
}
