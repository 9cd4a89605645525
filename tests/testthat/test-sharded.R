# The sharded DP mixture chain (R/mixture_sharded.R, R/chains_shard.R,
# src/shard_mixture.h). Checked against: the exact posterior over all
# partitions of a few rows (helper-sweep.R, computed in R independently of
# the C code) with the rows spread over 1, 2 and 3 shards and the moves'
# thinning lowered so that every code path runs; identity of the draws for
# 1, 2 and 3 PSOCK workers and in process; faults (a shard that fails to
# load, a killed worker, Ctrl-C) against their documented outcomes.

sharded_fit <- function(x, S, cl = NULL, iter = 30L, seed = 12L, ...) {
  set.seed(seed)
  sample_posterior(dp_mixture(gaussian_niw(), alpha = 2), x, shards = S, cl = cl, iter = iter,
                   burnin = 0L, progress = FALSE, ...)
}

sharded_data_3 <- function() {
  set.seed(11)
  x <- rbind(matrix(rnorm(600, -1), ncol = 2), matrix(rnorm(600, 1), ncol = 2),
             matrix(rnorm(200), ncol = 2) + 3)
  x[sample(nrow(x)), ]
}

test_that("sharded chains match the exact posterior over partitions on 1, 2 and 3 shards", {
  skip_on_cran()
  # MCMIX_EXACT_SWEEP=full (make exact): every shard count under every
  # prior, and the other real-valued families
  full <- identical(Sys.getenv("MCMIX_EXACT_SWEEP"), "full")
  N <- 6L
  ctl <- mcmix:::dp_control_testing(dp_control(), small = TRUE, check = TRUE)
  kinds <- if (full) c("gaussian_niw", "gaussian_iso", "gaussian_diag", "gaussian_mean")
           else "gaussian_niw"
  for (kind in kinds) {
    case <- sw_case(kind, "none", N)
    for (prior in c("fixed", "py", "gamma")) {
      ex <- sw_case_exact(case, prior)
      a <- sw_priors[[prior]]
      # (default suite: one shard count under each prior, 1, 2 and 3 in turn)
      for (S in if (full) 1:3 else match(prior, c("gamma", "py", "fixed"))) {
        set.seed(1)
        fit <- sample_posterior(dp_mixture(case$family, alpha = a$alpha, discount = a$discount),
                                case$data, iter = if (full) 3000L else 1200L, burnin = 200L,
                                progress = FALSE, shards = S, control = ctl)
        Z <- partition_draws(fit)
        K <- apply(Z, 1L, function(zz) length(unique(zz)))
        z <- sw_zscores(Z, ex, n_eff = ess(K))$z
        expect_lt(max(abs(z)), 4.5, label = sprintf("[%s, prior %s, %d shards] max |z| (%s)",
                                                    kind, prior, S, names(z)[which.max(abs(z))]))
        st <- fit$chains[[1]]$state
        expect_gt(st$n_accept, 0, label = sprintf("[%s, %s, %d shards] accepted moves", kind,
                                                  prior, S))
      }
    }
  }
})

test_that("sharded draws are identical for 1, 2 and 3 PSOCK workers and in process", {
  skip_on_cran()
  x <- sharded_data_3()
  ref <- as.matrix(sharded_fit(x, 3L))
  expect_gt(length(unique(ref[, "log_lik"])), 5)   # the chain moves
  cl <- shard_test_cluster(3L)
  on.exit(parallel::stopCluster(cl))
  for (w in 1:3) {
    f <- sharded_fit(x, 3L, cl = cl[seq_len(w)])
    expect_identical(as.matrix(f), ref, label = sprintf("traces on %d workers", w))
    expect_s3_class(f, "mcmix_sharded_fit")
  }
  # extend() on the same workers equals one longer run
  f <- sharded_fit(x, 3L, cl = cl[1:2], iter = 20L)
  f <- extend(f, iter = 10L)
  expect_identical(as.matrix(f), ref)
  expect_identical(sort(unique(shard_labels(f))), seq_along(f$chains[[1]]$state$size))
})

test_that("shard sources load on the workers, and a shard that fails is named", {
  skip_on_cran()
  x <- sharded_data_3()
  dir <- tempfile("mcmix-shards")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  # the rows of the 3 shards an in-memory matrix is cut into (234 each)
  rows <- split(seq_len(nrow(x)), ceiling(seq_len(nrow(x)) / 234))
  paths <- file.path(dir, sprintf("s%d.rds", seq_along(rows)))
  for (i in seq_along(rows)) saveRDS(x[rows[[i]], , drop = FALSE], paths[i])
  a <- sharded_fit(shard_source(paths), NULL)
  b <- sharded_fit(x, 3L)
  expect_identical(as.matrix(a), as.matrix(b))
  src <- shard_source(c(paths[1], file.path(dir, "missing.rds"), paths[2]))
  e <- tryCatch(sharded_fit(src, NULL), error = function(e) e)
  expect_s3_class(e, "mcmix_error_shard")
  expect_identical(e$shard, 2L)
  expect_match(conditionMessage(e), "Shard 2 .*missing.rds")
  f <- shard_source(fun = function(i) if (i == 2) stop("no such table") else matrix(rnorm(20), 10),
                    n = 3)
  e <- tryCatch(sharded_fit(f, NULL), error = function(e) e)
  expect_s3_class(e, "mcmix_error_shard")
  expect_match(conditionMessage(e), "Shard 2 failed to load: no such table")
  expect_error(shard_source(), class = "mcmix_error_input")
  expect_error(shard_source(fun = 3, n = 2), class = "mcmix_error_input")
  expect_error(sharded_fit(x, 2L, cl = "no cluster"), class = "mcmix_error_input")
  expect_error(sample_posterior(dp_mixture(poisson_gamma()), matrix(1:20, 10), shards = 2),
               "families", class = "mcmix_error_input")
  xn <- x
  xn[5, 1] <- NA
  expect_error(sharded_fit(xn, 2L), "missing values", class = "mcmix_error_shard")
})

test_that("a killed worker ends the run with a classed error naming it, and extend() continues on a new cluster", {
  skip_on_cran()
  skip_on_os("windows")
  x <- sharded_data_3()
  r <- shard_kill_and_continue(function(cl) sharded_fit(x, 3L, cl = cl, iter = 10L),
                               "mcmix_sharded_fit")        # helper-shard.R
  on.exit(parallel::stopCluster(r$cl))
  expect_identical(length(shard_labels(r$g)), nrow(x))
})

test_that("Ctrl-C returns the sweeps done, and extend() then equals one longer run", {
  skip_on_cran()
  skip_on_os("windows")
  x <- sharded_data_3()
  ref <- as.matrix(sharded_fit(x, 3L, iter = 3000L))
  job <- parallel::mcparallel({
    cmd <- sprintf("sleep 3; kill -INT %d", Sys.getpid())
    system2("sh", c("-c", shQuote(cmd)), wait = FALSE)
    f <- suppressWarnings(sharded_fit(x, 3L, iter = 3000L))
    list(n = nrow(as.matrix(f)), interrupted = f$interrupted,
         done = as.matrix(suppressWarnings(extend(f, iter = 0L))))
  }, silent = TRUE)
  r <- parallel::mccollect(job, wait = TRUE, timeout = 300)[[1L]]
  expect_true(is.list(r), label = paste("the interrupted run returned:", format(r)[1L]))
  expect_true(r$interrupted)
  expect_lt(r$n, 3000L)
  expect_identical(r$done, ref)
})

test_that("the shards of a garbage-collected fit are freed, in process and on the workers", {
  skip_on_cran()
  x <- sharded_data_3()
  runs <- function(cl = NULL) {
    if (is.null(cl)) return(ls(mcmix:::shard_store))
    unlist(parallel::clusterCall(cl, function() ls(mcmix:::shard_store)))
  }
  f <- sharded_fit(x, 3L, iter = 2L)
  run <- f$data$handle$run
  expect_true(run %in% runs())
  rm(f)
  invisible(gc())
  expect_false(run %in% runs())
  cl <- shard_test_cluster(2L)
  on.exit(parallel::stopCluster(cl))
  f <- sharded_fit(x, 3L, cl = cl, iter = 20L)
  run <- f$data$handle$run
  expect_identical(runs(cl), c(run, run))
  # a fit extended from it holds the same workers' run: extend() goes on
  # after the first fit is collected, bit for bit as one longer run
  g <- sharded_fit(x, 3L, cl = cl, iter = 10L)
  run_g <- g$data$handle$run
  # (the same seed: each run keeps its own shards on the workers)
  expect_identical(length(shard_labels(f)), nrow(x))
  g <- extend(g, iter = 10L)
  invisible(gc())
  g <- extend(g, iter = 0L)
  expect_identical(as.matrix(g), as.matrix(f))
  rm(f)
  invisible(gc())
  # the next call on the workers drops the collected run
  expect_identical(length(shard_labels(g)), nrow(x))
  expect_identical(runs(cl), c(run_g, run_g))
})

test_that("a shard's matrix is kept as loaded, not copied", {
  skip_on_cran()
  skip_if_not(capabilities("profmem"))
  # tracemem() prints a line when the matrix is duplicated
  src <- shard_source(fun = function(i) {
    m <- matrix(as.double(1:20), 10)
    tracemem(m)
    m
  }, n = 1)
  out <- capture.output(x <- mcmix:::shard_load_one(src, 1L, NULL))
  expect_identical(out, character())
  expect_identical(x, matrix(as.double(1:20), 10))
})
