# Inputs that used to end in a message of R itself (an error of a base
# function, a dispatch error, warnings of file functions), each now a
# result or a classed error naming the argument. The latent class checks
# are against closed forms (one class: the Dirichlet posterior of each
# item's probabilities, the maximum likelihood estimate of the mode).

test_that("lca_probs() of a one-class lca() is the closed form (poLCA's carcinoma data)", {
  require_suggested("poLCA")
  withr::local_preserve_seed()
  env <- new.env()
  utils::data("carcinoma", package = "poLCA", envir = env)
  d <- env$carcinoma
  set.seed(1)
  fit <- lca(d, K = 1, iter = 1000, progress = FALSE)
  p <- lca_probs(fit)
  N <- nrow(d)
  expect_identical(p$K, 1L)
  expect_equal(unname(p$membership[, 1]), rep(1, N))
  expect_identical(p$class, rep(1L, N))
  expect_equal(p$sizes, N)
  ll <- 0
  for (j in names(d)) {
    n <- as.vector(table(factor(d[[j]])))
    L <- length(n)
    # posterior Dirichlet(1 + n): means (1 + n) / (L + N); the draws of the
    # probabilities are exact and independent (one class: the partition
    # is fixed), so their mean is within 5 Monte Carlo standard errors
    a <- 1 + n
    m <- a / sum(a)
    s <- sqrt(m * (1 - m) / (sum(a) + 1))
    S <- 1000
    expect_true(all(abs(p$mean[[j]][1, ] - m) < 5 * s / sqrt(S)), label = j)
    # the mode with prior 1 is the maximum likelihood estimate n / N
    expect_equal(unname(p$mode$probs[[j]][1, ]), n / N, tolerance = 1e-6)
    ll <- ll + sum(n * log(n / N))
  }
  expect_equal(p$mode$log_lik, ll, tolerance = 1e-8)
})

test_that("lca_probs() of an lca() with a tiny prior (0.001 and below) gives finite summaries", {
  withr::local_preserve_seed()
  set.seed(1)
  df <- data.frame(a = sample(c("x", "y"), 40, TRUE), b = sample(1:3, 40, TRUE))
  for (prior in c(0.002, 0.001, 1e-10)) {
    set.seed(1)
    fit <- lca(df, K = 2, prior = prior, iter = 100, progress = FALSE)
    p <- lca_probs(fit)
    expect_false(anyNA(p$membership), label = format(prior))
    expect_equal(unname(rowSums(p$membership)), rep(1, 40))
    expect_false(anyNA(unlist(p$mean)))
    expect_true(all(is.finite(unlist(p$mode$probs))))
    # a latent class log-likelihood is at most the saturated model's
    pat <- table(interaction(df$a, df$b, drop = TRUE))
    expect_lte(p$mode$log_lik, sum(pat * log(pat / 40)) + 1e-8)
  }
})

test_that("bayesplot::nuts_params() of a fit of another sampler says what it applies to", {
  require_suggested("bayesplot")
  withr::local_preserve_seed()
  set.seed(1)
  ld <- function(x) -sum(x^2) / 2
  for (fit in list(sample_mh(ld, init = c(0, 0), iter = 20, progress = FALSE),
                   sample_hmc(ld, init = c(0, 0), iter = 20, progress = FALSE),
                   run_kernel(iid_kernel(), iter = 5, progress = FALSE))) {
    e <- expect_error(bayesplot::nuts_params(fit), class = "mcmix_error_generic")
    expect_s3_class(e, "mcmix_error_input")
    expect_identical(e$arg, "object")
    expect_match(conditionMessage(e), "applies to fits of sample_nuts()", fixed = TRUE)
  }
  expect_snapshot(bayesplot::nuts_params(sample_mh(ld, init = c(0, 0), iter = 20,
                                                   progress = FALSE)), error = TRUE)
  # a NUTS fit still gives its sampler parameters
  nf <- sample_nuts(ld, init = c(0, 0), iter = 10, progress = FALSE)
  expect_identical(nrow(bayesplot::nuts_params(nf)), 10L * 6L)
})

test_that("cores = 2: both forked workers crashing is one classed error, without warnings, and the session keeps its temporary directory", {
  skip_on_os("windows")
  skip_on_cran()
  withr::local_preserve_seed()
  # each worker crashes as in a segfault of compiled code: R's crash
  # handler removes the temporary directory (which a forked worker shares
  # with the session), then the process ends (done here without a core
  # dump or the handler's traceback)
  k <- iid_kernel(function(offset, warmup) {
    unlink(tempdir(), recursive = TRUE)
    tools::pskill(Sys.getpid(), tools::SIGKILL)
  }, chain = NULL)
  set.seed(4)
  e <- expect_no_warning(tryCatch(
    run_kernel(k, iter = 200, chains = 2, cores = 2, progress = FALSE), error = identity))
  expect_s3_class(e, "mcmix_chain_error")
  expect_match(conditionMessage(e), "chain [12] died")
  expect_length(e$fit$chains, 2L)
  expect_true(fault_counters_ok(e$fit))
  expect_true(dir.exists(tempdir()))
  f <- tempfile()
  expect_true(file.create(f))
  unlink(f)
})

# The calls in the package's sources (R/*.R) as list(fun = <top-level
# object the call is in>, call = <the call>), for the functions named in
# `funs` (also as base::fun).
source_calls <- function(funs) {
  dir <- test_path("..", "..", "R")
  skip_if_not(dir.exists(dir), "the package's R sources are not at hand")
  out <- list()
  walk <- function(e, top) {
    if (is.call(e)) {
      f <- e[[1L]]
      if (is.call(f) && identical(f[[1L]], as.name("::"))) f <- f[[3L]]
      if (is.symbol(f) && as.character(f) %in% funs)
        out[[length(out) + 1L]] <<- list(fun = top, call = e)
      for (i in seq_along(e)) if (!is.symbol(e[[i]])) walk(e[[i]], top)
    } else if (is.pairlist(e) || is.list(e)) {
      for (i in seq_along(e)) if (!is.symbol(e[[i]])) walk(e[[i]], top)
    }
  }
  for (f in list.files(dir, pattern = "[.]R$", full.names = TRUE)) {
    for (e in parse(f, keep.source = FALSE)) {
      top <- if (is.call(e) && as.character(e[[1L]]) %in% c("<-", "=") && is.symbol(e[[2L]]))
        as.character(e[[2L]]) else "<top level>"
      walk(e, paste0(basename(f), ": ", top))
    }
  }
  out
}

test_that("every warning of the package is classed: warning() only in warn(), and warn() with an mcmix class", {
  ws <- source_calls(c("warning", "warningCondition"))
  where <- vapply(ws, `[[`, "", "fun")
  # base::warning() and warningCondition() appear in warn() only (a
  # new warning("...") anywhere else fails here: raise it with warn())
  expect_identical(unique(where), "conditions.R: warn")
  calls <- source_calls("warn")
  expect_gt(length(calls), 8L)
  for (cl in calls) {
    call <- cl$call
    if (identical(cl$fun, "conditions.R: warn")) next
    cls <- if ("class" %in% names(call)) call[["class"]] else call[[3L]]
    cls <- eval(cls, baseenv())   # a literal class or c() of literals
    expect_true(is.character(cls) && length(cls) >= 1L && all(startsWith(cls[1L], "mcmix_")),
                label = paste(cl$fun, paste(deparse(call), collapse = " ")))
  }
})

test_that("the warnings of the evidence estimators and of interrupted runs carry their classes", {
  withr::local_preserve_seed()
  set.seed(1)
  w <- expect_warning(harmonic_mean_evidence(rnorm(20)), class = "mcmix_warning_harmonic_mean")
  expect_s3_class(w, c("mcmix_warning_harmonic_mean", "mcmix_warning_evidence", "mcmix_warning",
                       "warning", "condition"), exact = TRUE)
  expect_null(conditionCall(w))
  # AIS with two temperatures and one move: the weights of a narrow
  # likelihood under a wide prior are degenerate
  set.seed(1)
  w <- expect_warning(ais(function(t) sum(dnorm(rep(3, 50), t, 0.1, log = TRUE)),
                          function(t) dnorm(t, 0, 10, log = TRUE),
                          function(n) matrix(rnorm(n, 0, 10)), temperatures = c(0, 1),
                          n_runs = 50, n_moves = 1), class = "mcmix_warning_ais_ess")
  expect_s3_class(w, "mcmix_warning_evidence")
  # an interrupted run (the kernel raises an interrupt in its second chunk,
  # helper-faults.R)
  set.seed(1)
  w <- expect_warning(run_kernel(interrupting_kernel(iid_kernel(), k = 2L), iter = 40,
                                 progress = FALSE), class = "mcmix_warning_interrupted")
  expect_s3_class(w, c("mcmix_warning_interrupted", "mcmix_warning_interrupt", "mcmix_warning",
                       "warning", "condition"), exact = TRUE)
})
