# Fit objects as an R user meets them: class per kind, one-line model
# descriptions, print() of every sampler (snapshots), and the conversions
# to coda, posterior and bayesplot for every sampler's fit.

fits <- fits_of_every_sampler()

test_that("every fit has the class of its kind", {
  kinds <- c(kernel = "mcmix_fit", mh = "mcmix_mh_fit", slice = "mcmix_slice_fit",
             hmc = "mcmix_hmc_fit", gibbs = "mcmix_gibbs_fit",
             tempering = "mcmix_tempering_fit", probit = "mcmix_probit_fit",
             gp_classify = "mcmix_gp_classify_fit", ising = "mcmix_ising_fit",
             ising_sw = "mcmix_ising_fit", hier_lm = "mcmix_hier_lm_fit",
             finite = "mcmix_finite_fit", dp = "mcmix_dp_fit", dp_slice = "mcmix_dp_fit",
             hdp = "mcmix_hdp_fit", lda = "mcmix_lda_fit", nuts = "mcmix_nuts_fit",
             logit = "mcmix_logit_fit", rj = "mcmix_rj_fit", bayes_net = "mcmix_bn_fit",
             lca = "mcmix_lca_fit")
  expect_setequal(names(fits), names(kinds))
  for (n in names(fits)) {
    cl <- class(fits[[n]])
    expect_identical(cl[1L], kinds[[n]], label = n)
    expect_identical(cl[length(cl)], "mcmix_fit", label = n)
  }
  expect_true(inherits(fits$finite, "mcmix_mixture_fit"))
  expect_true(inherits(fits$dp, "mcmix_mixture_fit"))
  # kinds are told apart by class: hmc_step_size() refuses an MH fit
  expect_error(hmc_step_size(fits$mh), "sample_hmc")
  expect_length(hmc_step_size(fits$hmc), 2L)
})

test_that("format() is one short line for every fit, whatever the model holds", {
  for (n in names(fits)) {
    f <- format(fits[[n]])
    expect_length(f, 1L)
    expect_false(grepl("\n|bytecode|function\\(|list\\(", f), label = n)
  }
  # an Ising model with evidence on a 64 x 64 image: nothing of the field
  set.seed(1)
  y <- matrix(rnorm(64 * 64), 64, 64)
  fit <- ising_gibbs(evidence = list(y = y, sigma = 1), iter = 2, burnin = 0,
                     progress = FALSE)
  out <- capture.output(print(fit))
  expect_lt(max(nchar(out)), 150)
  expect_lt(sum(nchar(out)), 1500)
  expect_match(format(fit), "64 x 64 lattice.*evidence")
  # probit: no prior covariance dumped; sample_gibbs: no function source
  expect_lt(sum(nchar(capture.output(suppressWarnings(print(fits$probit),
                                                    classes = "mcmix_warning_convergence")))),
            1500)
  expect_false(any(grepl("bytecode|<environment", capture.output(suppressWarnings(print(fits$gibbs),
                                                    classes = "mcmix_warning_mixing")))))
  # a call with inlined functions and data (do.call) stays short
  set.seed(2)
  g <- do.call(sample_mh, list(function(x) -sum(x^2) / 2, init = rnorm(200), iter = 5,
                               burnin = 0, progress = FALSE))
  out <- capture.output(print(g))
  expect_lt(length(out), 16L)
  expect_false(any(grepl("sum\\(x\\^2\\)", out)))
})

test_that("print() and summary() of every fit kind warn once exactly when the mixing guard flags", {
  for (n in names(fits)) {
    flagged <- nrow(mcmix:::fit_guard_table(fits[[n]])) > 0L
    w <- testthat::capture_warnings(capture.output(print(fits[[n]])))
    expect_length(w, as.integer(flagged))
    ws <- testthat::capture_warnings(s <- summary(fits[[n]]))
    expect_length(ws, as.integer(flagged))
    expect_identical(w, ws, label = n)
  }
  # 60 draws per chain: most kinds are flagged, LDA and HDP (print methods
  # of their own) included
  expect_gt(sum(vapply(fits, function(f) nrow(mcmix:::fit_guard_table(f)) > 0L, TRUE)), 15L)
  for (n in c("lda", "hdp", "nuts", "logit", "hier_lm"))
    expect_warning(capture.output(print(fits[[n]])), class = "mcmix_warning_mixing")
})

test_that("print() of a fit of every sampler", {
  withr::local_envvar(NOT_CRAN = "true")   # snapshots run in every test run
  for (n in names(fits))
    expect_snapshot(print(fits[[n]]), transform = print_without_time)
})

test_that("summarise_draws(), mcmc_trace() and gelman.diag() take every fit", {
  for (n in names(fits)) {
    fit <- fits[[n]]
    nm <- setdiff(colnames(fit$chains[[1]]$traces), fit$kernel$fixed_traces)
    s <- posterior::summarise_draws(fit)
    expect_identical(s$variable, nm, label = n)
    pooled <- unlist(lapply(fit$chains, function(ch) ch$traces[, nm[1]]))
    expect_equal(as.numeric(s$mean[1]), mean(pooled), label = n)
    expect_equal(unname(rhat(fit)), as.numeric(s$rhat), tolerance = 1e-6, label = n)
    p <- bayesplot::mcmc_trace(fit)
    expect_s3_class(p, "ggplot")
    expect_equal(nrow(p$data), length(pooled) * length(nm), label = n)
    ml <- as.mcmc.list(fit)
    # gelman.diag needs variation within every chain
    ok <- Reduce(`&`, lapply(ml, function(ch) apply(as.matrix(ch), 2L, stats::var) > 0))
    g <- coda::gelman.diag(ml[, ok, drop = FALSE], autoburnin = FALSE, multivariate = FALSE)
    # coda's point estimate is NaN when the chains' variances are equal (its
    # variance-of-variances term is 0/0); elsewhere it is mcmix's
    fin <- is.finite(g$psrf[, 1])
    expect_gt(sum(fin), 0L)
    expect_equal(unname(g$psrf[fin, 1]), unname(rhat(fit, "classic")[ok][fin]),
                 tolerance = 1e-8, label = n)
  }
})

test_that("draws conversions keep the draws and the iteration numbers", {
  fit <- fits$mh
  a <- as.array(fit)
  expect_identical(dimnames(a)$iteration, as.character(21:80))
  m <- as.matrix(fit)
  expect_equal(dim(m), c(120L, 2L))
  expect_equal(m[61:120, "b"], fit$chains[[2]]$traces[, "b"])
  df <- as.data.frame(fit)
  expect_named(df, c("a", "b", ".chain", ".iteration", ".draw"))
  expect_equal(df$.iteration, rep(21:80, 2))
  expect_equal(df$a[df$.chain == 2], fit$chains[[2]]$traces[, "a"])
  set.seed(3)
  th <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 100, burnin = 40, thin = 4,
                  chains = 2, progress = FALSE)
  expect_equal(as.data.frame(th)$.iteration[1:3], c(44, 48, 52))
  for (g in c("as_draws", "as_draws_array", "as_draws_df", "as_draws_list",
              "as_draws_matrix", "as_draws_rvars")) {
    d <- getExportedValue("posterior", g)(fit)
    expect_true(posterior::is_draws(d), label = g)
    expect_equal(posterior::ndraws(d), 120L, label = g)
    expect_equal(posterior::nchains(d), 2L, label = g)
    expect_equal(mean(posterior::extract_variable(posterior::as_draws_df(d), "b")),
                 mean(m[, "b"]), label = g)
  }
  # posterior's other generics read the fit's draws, its convergence
  # functions give one value per trace (agreeing with mcmix's)
  expect_identical(posterior::variables(fit), c("a", "b"))
  expect_equal(posterior::ndraws(fit), 120L)
  expect_equal(posterior::nchains(fit), 2L)
  expect_equal(posterior::variables(posterior::subset_draws(fit, "b")), "b")
  expect_equal(posterior::ess_bulk(fit), ess(fit), tolerance = 1e-6)
  expect_equal(posterior::ess_tail(fit), ess(fit, "tail"), tolerance = 1e-6)
  expect_equal(posterior::mcse_mean(fit), mcse(fit), tolerance = 1e-6)
  expect_equal(dim(posterior::mcse_quantile(fit, probs = c(0.1, 0.9))), c(2L, 2L))
  expect_equal(posterior::extract_variable_matrix(fit, "a"),
               unname(as.array(fit)[, , "a"]), ignore_attr = TRUE)
  # an HDP fit with fixed concentrations: their constant traces are kept in
  # the fit but are not draws, so coda's multivariate diagnostic applies
  h <- fits$hdp
  expect_true(all(c("gamma", "alpha") %in% colnames(h$chains[[1]]$traces)))
  expect_identical(coda::varnames(as.mcmc.list(h)), c("n_clusters", "log_lik"))
  expect_length(coda::gelman.diag(as.mcmc.list(h))$mpsrf, 1L)
  expect_identical(posterior::variables(h), c("n_clusters", "log_lik"))
  # coda: one chain by as.mcmc(), several only by as.mcmc.list()
  expect_error(coda::as.mcmc(fit), "2 chains.*as.mcmc.list")
  expect_equal(coda::niter(coda::as.mcmc(fit, chain = 2)), 60L)
  expect_equal(stats::start(coda::as.mcmc(th, chain = 1)), 44)
  one <- sample_mh(function(x) -x^2 / 2, init = 0, iter = 10, burnin = 0, progress = FALSE)
  expect_equal(nrow(coda::as.mcmc(one)), 10L)
})

# Run `code` in a fresh R process with this library path; returns its
# output lines (and fails the test on an error in the child).
run_child <- function(code) {
  f <- tempfile(fileext = ".R")
  writeLines(code, f)
  rscript <- file.path(R.home("bin"), "Rscript")
  env <- paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep))
  out <- suppressWarnings(system2(rscript, f, stdout = TRUE, stderr = TRUE, env = env))
  status <- attr(out, "status")
  expect_true(is.null(status) || status == 0L, label = paste(out, collapse = "\n"))
  out
}

test_that("diagnostics and conversions work in every attach order", {
  body <- c(
    "set.seed(1)",
    "fit <- mcmix::sample_mh(function(x) -sum(x^2) / 2, init = c(a = 0, b = 0), iter = 300,",
    "                        chains = 2, progress = FALSE)",
    "r <- rhat(fit); stopifnot(length(r) == 2, all(is.finite(r)))",
    "stopifnot(isTRUE(all.equal(unname(r), unname(mcmix::rhat(fit)))))",
    "s <- summarise_draws(fit); stopifnot(identical(s$variable, c('a', 'b')))",
    "stopifnot(isTRUE(all.equal(as.numeric(s$rhat), unname(r), tolerance = 1e-6)))",
    "x <- matrix(rnorm(400), 100, 4)",
    "stopifnot(isTRUE(all.equal(mcmix::rhat(x), posterior::rhat(x))))",
    "rv <- posterior::rvar(array(x, c(100, 4, 1)), nchains = 4)",
    "stopifnot(isTRUE(all.equal(mcmix::rhat(rv), posterior::rhat(rv))))",
    "p <- mcmc_trace(fit); stopifnot(inherits(p, 'ggplot'))",
    "g <- gelman.diag(as.mcmc.list(fit)); stopifnot(nrow(g$psrf) == 2)",
    "ml <- as.mcmc.list(fit)",
    "a <- autocorr(ml); stopifnot(identical(a, coda::autocorr(ml)))",
    "stopifnot(identical(autocorr(ml[[1]], lags = 1:2), coda::autocorr(ml[[1]], lags = 1:2)))",
    "stopifnot(length(dim(mcmix::chain_acf(fit, lag.max = 3))) == 3)",
    "stopifnot(ess(fit)[['a']] > 0, mcse(fit)[['b']] > 0)",
    "cat('OK\\n')")
  lib <- function(p) sprintf("suppressPackageStartupMessages(library(%s))", p)
  orders <- list(c("mcmix", "coda", "posterior", "bayesplot"),
                 c("bayesplot", "posterior", "coda", "mcmix"),
                 c("posterior", "mcmix", "bayesplot", "coda"))
  for (o in orders) {
    out <- run_child(c(vapply(o, lib, ""), body))
    expect_identical(out[length(out)], "OK", label = paste(o, collapse = " < "))
  }
})

test_that("print() of the results of SMC, AIS, ABC and annealing", {
  withr::local_envvar(NOT_CRAN = "true")
  set.seed(61)
  y <- c(0.8, 1.3, 0.2, 1.9, 1.1)
  ll <- function(th) sum(dnorm(y, th, 1, log = TRUE))
  lp <- function(th) dnorm(th, 0, 2, log = TRUE)
  # the layout of the SMC and AIS prints (their numbers are tested with the
  # algorithms, which evolve: they are masked here)
  numbers_masked <- function(lines) gsub("-?[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?", "#", lines)
  set.seed(62)
  expect_snapshot(print(sample_smc(ll, lp, function(n) rnorm(n, 0, 2), n_particles = 100)),
                  transform = numbers_masked)
  set.seed(63)
  expect_snapshot(print(ais(ll, lp, function(n) rnorm(n, 0, 2), temperatures = 10,
                            n_runs = 50)), transform = numbers_masked)
  set.seed(64)
  expect_snapshot(print(sample_abc(function(n) runif(n), function(p) rbinom(1, 10, p),
                                   observed = 7, tolerance = 0, n = 500)))
  set.seed(65)
  expect_snapshot(print(anneal(function(x) -(x - 1)^2, init = 0, iter = 500)))
})
