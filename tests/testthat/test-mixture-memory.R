# Memory of mixture fits at large N (src/ffi_workspace.c, R/chains_workspace.R,
# mcx_mix_x() in src/mixture_state.h): the data are read in place, the
# chain's scratch and labels are held across chunks, and none of this
# changes a draw.

# Bytes of R vectors reachable from `keep` and nothing else: the live heap
# with `keep` minus the live heap without it (gc() counts exactly; no timing).
heap_bytes <- function() {
  g <- gc()
  g[1L, 1L] * 56 + g[2L, 1L] * 8   # cons cells and vector cells in use
}
exclusive_bytes <- function(make) {
  make()   # first run: byte-compiles the package's functions (kept, not the fit's)
  e <- new.env()
  base <- heap_bytes()
  e$fit <- make()
  heap_bytes() - base
}

test_that("a fit without labels holds no copy of its data", {
  N <- 2e5
  set.seed(1)
  x <- matrix(stats::rnorm(2 * N), N, 2)   # 3.2 MB
  data_bytes <- as.numeric(object.size(x))
  for (alg in c("subcluster", "collapsed")) {
    b <- exclusive_bytes(function()
      sample_posterior(dp_mixture(gaussian_niw()), x, iter = 2, burnin = 1, init = "one",
                       algorithm = alg, labels = FALSE, progress = FALSE))
    # the chain's state labels (4 bytes per observation) and small objects;
    # a copy of the data (transposed or not) would add 16 bytes per observation
    expect_lt(b, 4 * N + data_bytes / 2)
  }
  b <- exclusive_bytes(function()
    sample_posterior(finite_mixture(gaussian_niw(), K = 3), x, iter = 2, burnin = 1,
                     labels = FALSE, progress = FALSE))
  expect_lt(b, 4 * N + data_bytes / 2)
})

test_that("the object size of a fit without labels grows with N only by its data and state", {
  per_obs <- function(make) {
    s <- vapply(c(1000, 3000), function(N) as.numeric(object.size(make(N))), 0)
    diff(s) / 2000
  }
  x_of <- function(N, D) {
    set.seed(2)
    matrix(stats::rnorm(N * D), N, D)
  }
  # 2 chains: the data (D doubles) and one integer label per chain and observation
  pd <- per_obs(function(N) sample_posterior(dp_mixture(gaussian_niw()), x_of(N, 2), iter = 2,
                                             burnin = 1, chains = 2, algorithm = "subcluster",
                                             labels = FALSE, progress = FALSE))
  expect_lt(abs(pd - (2 * 8 + 2 * 4)), 2)   # a copy of the data would add 16
})

# Run `code` with the engine reading the data from a transposed copy
# whatever D (mixture_engine_data(), R/mixture.R).
with_transposed_data <- function(code) {
  ns <- asNamespace("mcmix")
  old <- get("mixture_in_place_max_dim", envir = ns)
  unlockBinding("mixture_in_place_max_dim", ns)
  assign("mixture_in_place_max_dim", function() 0L, envir = ns)
  on.exit({
    assign("mixture_in_place_max_dim", old, envir = ns)
    lockBinding("mixture_in_place_max_dim", ns)
  })
  force(code)
}

test_that("reading the data in place or from a transposed copy gives identical draws", {
  set.seed(3)
  x <- rbind(matrix(stats::rnorm(300), 100), matrix(stats::rnorm(300, 4), 100))
  run <- function(alg, threads = 1L) {
    set.seed(4)
    f <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 15, burnin = 5,
                          algorithm = alg, threads = threads, progress = FALSE)
    lapply(f$chains, function(ch) list(ch$traces, ch$labels, ch$state))
  }
  for (alg in c("collapsed", "subcluster", "neal8", "slice", "split_merge")) {
    in_place <- run(alg)
    transposed <- with_transposed_data(run(alg))
    expect_identical(in_place, transposed, label = alg)
  }
  # the gather buffers are per thread: 1 and 2 threads agree
  expect_identical(run("subcluster", 1L), run("subcluster", 2L))
  set.seed(5)
  f1 <- sample_posterior(finite_mixture(gaussian_niw(), K = 2), x, iter = 10, progress = FALSE)
  set.seed(5)
  f2 <- with_transposed_data(sample_posterior(finite_mixture(gaussian_niw(), K = 2), x,
                                              iter = 10, progress = FALSE))
  expect_identical(f1$chains, f2$chains)
})

test_that("a chain workspace changes no draw, and its labels never reach the fit", {
  set.seed(6)
  x <- c(stats::rnorm(40), stats::rnorm(40, 5))
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 5, burnin = 0,
                          algorithm = "subcluster", progress = FALSE)
  k <- mcmix:::fit_kernel(fit)   # the kernel bound to the fit's data
  expect_true(isTRUE(k$workspace))
  # the same chunks with and without a workspace (several chunks, so that
  # the two label buffers and the kept arena blocks are reused)
  set.seed(7)
  s0 <- k$init(1)
  plain <- ws_run <- list()
  s <- s0
  set.seed(8)
  for (g in 1:6) {
    r <- k$step(s, 2L, 1L, 2L * (g - 1L), FALSE)
    plain[[g]] <- r
    s <- r$state
  }
  ws <- mcmix:::chain_workspace(k)
  s <- s0
  set.seed(8)
  for (g in 1:6) {
    before <- s$labels + 0L           # a copy of the input state's labels
    r <- k$step(s, 2L, 1L, 2L * (g - 1L), FALSE, workspace = ws)
    expect_identical(s$labels, before)  # the input state is never modified
    s <- r$state
    # a buffer is reused two chunks later (the driver keeps only the
    # current state): keep a copy of its values
    r$state$labels <- r$state$labels + 0L
    ws_run[[g]] <- r
  }
  expect_identical(plain, ws_run)
  # detaching takes the buffer out of the workspace: a later chunk writes
  # into the other buffer, and then into a new one, never into it
  kept <- mcmix:::chain_detach(list(state = s), ws)$state
  snapshot <- kept$labels + 0L
  for (g in 7:8) s <- k$step(s, 1L, 1L, 5L + g, FALSE, workspace = ws)$state
  expect_identical(kept$labels, snapshot)
})

test_that("extend() of a fit equals one longer run with the workspace path", {
  set.seed(9)
  x <- cbind(c(stats::rnorm(60), stats::rnorm(60, 4)), stats::rnorm(120))
  for (alg in c("subcluster", "collapsed")) {
    set.seed(10)
    long <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 30, burnin = 5,
                             algorithm = alg, labels = FALSE, progress = FALSE)
    set.seed(10)
    short <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 12, burnin = 5,
                              algorithm = alg, labels = FALSE, progress = FALSE)
    ext <- extend(short, 18, progress = FALSE)
    expect_identical(ext$chains[[1]]$traces, long$chains[[1]]$traces, label = alg)
    expect_identical(ext$chains[[1]]$state, long$chains[[1]]$state, label = alg)
  }
})

test_that("a chunk that fails after the engine ran leaves the chain as it was (workspace path)", {
  set.seed(11)
  x <- cbind(c(stats::rnorm(50), stats::rnorm(50, 5)), stats::rnorm(100))
  set.seed(12)
  full <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 20, burnin = 4,
                           algorithm = "subcluster", progress = FALSE)
  k <- mcmix:::fit_kernel(full)   # the kernel bound to the data
  base_step <- k$step
  calls <- 0
  # the engine has written the chunk's labels into a workspace buffer when
  # the failure comes, before the driver commits the chunk
  k$step <- function(state, n, thin, offset, warmup, workspace = NULL) {
    r <- base_step(state, n, thin, offset, warmup, workspace = workspace)
    calls <<- calls + 1
    if (calls == 5) stop("injected failure")
    r
  }
  set.seed(12)
  e <- tryCatch(run_kernel(k, iter = 20, burnin = 4, progress = FALSE),
                error = function(e) e)
  expect_s3_class(e, "mcmix_chain_error")
  expect_lt(NROW(e$fit$chains[[1]]$traces), 20)
  done <- extend(e$fit, iter = 0, progress = FALSE)
  expect_identical(done$chains[[1]]$traces, full$chains[[1]]$traces)
  expect_identical(done$chains[[1]]$labels, full$chains[[1]]$labels)
  expect_identical(done$chains[[1]]$state, full$chains[[1]]$state)
})

test_that("a saved fit stores its data once and continues bit for bit after readRDS()", {
  N <- 2e4
  set.seed(11)
  x <- matrix(stats::rnorm(2 * N), N, 2)   # 320 kB
  x[1:N %% 2 == 0, ] <- x[1:N %% 2 == 0, ] + 4
  xm <- x
  xm[c(3, 50, 70), 2] <- NA                # imputed cells (R/impute.R)
  ser <- function(v) length(serialize(v, NULL))
  runs <- list(
    subcluster = function() sample_posterior(dp_mixture(gaussian_niw()), x, iter = 3, burnin = 1,
                                             algorithm = "subcluster", progress = FALSE),
    collapsed = function() sample_posterior(dp_mixture(gaussian_niw()), x, iter = 2, burnin = 1,
                                            algorithm = "collapsed", labels = FALSE,
                                            progress = FALSE),
    finite = function() sample_posterior(finite_mixture(gaussian_niw(), K = 2), x, iter = 2,
                                         burnin = 1, labels = FALSE, progress = FALSE),
    imputed = function() sample_posterior(dp_mixture(gaussian_niw()), xm, iter = 3, burnin = 1,
                                          progress = FALSE),
    rj = function() sample_posterior(rj_mixture(gaussian_niw(), k_max = 3), x, iter = 2,
                                     burnin = 1, labels = FALSE, progress = FALSE),
    rj_rg = function() sample_posterior(rj_mixture(rg_prior(), k_max = 3), x[, 1], iter = 2,
                                        burnin = 1, labels = FALSE, progress = FALSE),
    hdp = function() sample_posterior(hdp_mixture(gaussian_mean(cov = diag(2), prior_cov = 25)),
                                      x, group = rep(1:2, N / 2), iter = 2, burnin = 1,
                                      labels = FALSE, progress = FALSE))
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  fits <- backs <- list()
  for (nm in names(runs)) {
    set.seed(12)
    fit <- runs[[nm]]()
    # the data plus the draws (traces, labels, final states), and the HDP's
    # groups (in the fit and in its kernel): a second copy of the data (held
    # by the kernel) would add 16 bytes per observation
    expect_lt(ser(fit), 1.2 * (ser(fit$data) + ser(fit$chains)) + 2 * ser(fit$group),
              label = nm)
    expect_lt(ser(fit$kernel), ser(fit$data) / 2, label = nm)
    saveRDS(fit, f)
    back <- readRDS(f)
    a <- extend(fit, 2, progress = FALSE)
    b <- extend(back, 2, progress = FALSE)
    expect_identical(b$chains, a$chains)
    set.seed(12)
    long <- runs[[nm]]()
    long <- extend(long, 2, progress = FALSE)
    expect_identical(b$chains, long$chains)
    expect_identical(summary(back), summary(fit))
    fits[[nm]] <- fit
    backs[[nm]] <- back
  }
  # the methods that read the data work on the read fit (the point
  # estimate inside predict() draws its search's random starts)
  set.seed(3)
  pb <- predict(backs$subcluster, x[1:5, ], type = "membership")
  set.seed(3)
  expect_identical(pb, predict(fits$subcluster, x[1:5, ], type = "membership"))
  expect_identical(partition_draws(backs$subcluster), partition_draws(fits$subcluster))
  expect_identical(imputed_draws(backs$imputed), imputed_draws(fits$imputed))
})

test_that("a fit's data-free kernel run without data is refused naming `kernel`", {
  set.seed(3)
  x <- matrix(rnorm(40), 20)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 5, burnin = 0,
                          progress = FALSE)
  expect_error(run_kernel(fit$kernel, iter = 5, progress = FALSE), "`kernel` holds no data")
  expect_error(fit$kernel$step(NULL, 1, 1, 0, FALSE), "holds no data")
  expect_error(run_kernel(fit$kernel, iter = 5, data = "x", progress = FALSE),
               "`data` must be the data matrix of the fit", class = "mcmix_error_input")
  ok <- run_kernel(fit$kernel, iter = 5, data = fit$data, progress = FALSE)
  expect_s3_class(ok, "mcmix_fit")
})
