# Diagnostics against posterior, coda and stats on the same draws.

ar1_chains <- function(n, chains, phi, seed, shift = 0) {
  set.seed(seed)
  x <- vapply(seq_len(chains), function(j)
    as.numeric(stats::filter(rnorm(n), phi, "recursive")) + shift * (j == 1),
    numeric(n))
  x
}

test_that("rhat, ess, mcse equal posterior's on AR(1) draws", {
  require_suggested("posterior")
  cases <- list(list(n = 1000, phi = 0.5, seed = 1, shift = 0),
                list(n = 1001, phi = 0.9, seed = 2, shift = 0),   # odd n
                list(n = 500, phi = 0.99, seed = 3, shift = 0),   # slow: FFT path
                list(n = 2000, phi = -0.3, seed = 4, shift = 0),  # antithetic
                list(n = 800, phi = 0.7, seed = 5, shift = 1))    # a shifted chain
  for (cs in cases) {
    x <- ar1_chains(cs$n, 4, cs$phi, cs$seed, cs$shift)
    expect_equal(rhat(x), posterior::rhat(x), tolerance = 1e-6)
    expect_equal(ess(x), posterior::ess_bulk(x), tolerance = 1e-6)
    expect_equal(ess(x, "tail"), posterior::ess_tail(x), tolerance = 1e-6)
    expect_equal(ess(x, "basic"), posterior::ess_basic(x), tolerance = 1e-6)
    expect_equal(mcse(x), posterior::mcse_mean(x), tolerance = 1e-6)
  }
})

test_that("ties, a single chain and discrete draws agree with posterior", {
  require_suggested("posterior")
  set.seed(7)
  x <- matrix(rpois(4000, 3), ncol = 4)           # many ties
  expect_equal(rhat(x), posterior::rhat(x), tolerance = 1e-6)
  expect_equal(ess(x), posterior::ess_bulk(x), tolerance = 1e-6)
  expect_equal(ess(x, "tail"), posterior::ess_tail(x), tolerance = 1e-6)
  v <- as.numeric(stats::filter(rnorm(999), 0.6, "recursive"))
  expect_equal(ess(v), posterior::ess_bulk(v), tolerance = 1e-6)
  expect_equal(rhat(v), posterior::rhat(v), tolerance = 1e-6)
})

test_that("constant draws give NA; missing draws are an error naming `x`", {
  expect_true(is.na(rhat(matrix(1, 100, 2))))
  expect_true(is.na(ess(matrix(1, 100, 2))))
  x <- matrix(rnorm(200), 100, 2)
  x[3] <- NA
  expect_error(ess(x), "`x` must contain only finite values: draw 3 of chain 1 is NA")
})

test_that("classic rhat equals coda::gelman.diag", {
  for (seed in 1:3) {
    x <- ar1_chains(700, 4, 0.8, seed, shift = 0.3 * (seed - 1))
    ml <- coda::as.mcmc.list(lapply(1:4, function(j) coda::mcmc(x[, j])))
    expect_equal(rhat(x, "classic"),
                 unname(coda::gelman.diag(ml, autoburnin = FALSE)$psrf[, 1]),
                 tolerance = 1e-10)
  }
})

test_that("autocorr equals stats::acf", {
  x <- ar1_chains(500, 2, 0.7, 11)
  a <- chain_acf(x, lag.max = 20)
  expect_equal(unname(a[, 2]), as.numeric(stats::acf(x[, 2], lag.max = 20, plot = FALSE)$acf),
               tolerance = 1e-10)
  a <- chain_acf(x[, 1], lag.max = 499)   # all lags: FFT path
  expect_equal(unname(a[, 1]), as.numeric(stats::acf(x[, 1], lag.max = 499, plot = FALSE)$acf),
               tolerance = 1e-8)
})

test_that("diagnostics accept fits, mcmc and mcmc.list, per trace", {
  k <- new_kernel("ar1",
    init = function(chain) list(x = stats::rnorm(2)),
    step = function(state, n, thin, offset, warmup) {
      out <- matrix(0, n, 2)
      for (g in seq_len(n)) {
        state$x <- c(0.5, 0.9) * state$x + stats::rnorm(2)
        out[g, ] <- state$x
      }
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = out[keep, , drop = FALSE] |>
                                         `colnames<-`(c("a", "b"))))
    }, trace_names = c("a", "b"))
  set.seed(5)
  fit <- run_kernel(k, iter = 300, chains = 3)
  r <- rhat(fit)
  expect_named(r, c("a", "b"))
  xa <- sapply(fit$chains, function(ch) ch$traces[, "a"])
  expect_equal(unname(r["a"]), rhat(xa))
  expect_equal(ess(fit)[["b"]], ess(sapply(fit$chains, function(ch) ch$traces[, "b"])))
  ml <- coda::as.mcmc.list(lapply(fit$chains, function(ch) coda::mcmc(ch$traces)))
  expect_equal(ess(ml), ess(fit))
  expect_equal(rhat(ml[[1]]), rhat(ml[[1]][, c("a", "b")]))
  # unequal chain lengths (as after an interrupt): common minimum, with a note
  fit$chains[[2]]$traces <- fit$chains[[2]]$traces[1:250, ]
  expect_message(r2 <- rhat(fit), "different numbers of draws")
  expect_equal(unname(r2["a"]), rhat(xa[1:250, ]))
})

test_that("acceptance reads the counters; bad input is named", {
  k <- new_kernel("rw",
    init = function(chain) list(x = 0, n_accept = c(a = 0, b = 0), n_prop = c(a = 0, b = 0)),
    step = function(state, n, thin, offset, warmup) {
      state$n_prop <- state$n_prop + n
      state$n_accept <- state$n_accept + c(n, n %/% 2)
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      list(state = state, draws = list(traces = matrix(rnorm(length(keep)), ncol = 1,
                                                       dimnames = list(NULL, "x"))))
    }, trace_names = "x")
  set.seed(1)
  fit <- run_kernel(k, iter = 100, chains = 2)
  acc <- acceptance(fit)
  expect_equal(dim(acc), c(2L, 2L))
  expect_equal(colnames(acc), c("a", "b"))
  expect_true(all(acc[, "a"] == 1))
  expect_true(all(abs(acc[, "b"] - 0.5) < 0.02))
  expect_error(acceptance(1), "`fit`")
  expect_error(rhat("a"), "`x`")
  expect_error(chain_acf(rnorm(10), lag.max = -1), "`lag.max`")
})
