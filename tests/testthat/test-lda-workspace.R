# The LDA samplers' counts and structures kept across the chunks of a run
# (src/ffi_lda.c): every draw equals that of a rebuild from z in every
# chunk, a workspace is never used with a z it does not belong to, and a
# chunk abandoned half-way (as by an interrupt) leaves nothing behind.

# A corpus large enough for 4 x 4 cells of the blocked sampler (with
# options(mcmix.lda_block_tokens = 60)) and a model.
lda_ws_case <- function() {
  set.seed(11)
  docs <- lapply(1:80, function(d) sample.int(50, sample(4:25, 1), replace = TRUE,
                                               prob = (1:50)^(if (d %% 2) 1.5 else -1.5)))
  list(docs = docs, m = lda_model(K = 6, alpha = 0.3, beta = 0.05),
       corpus = mcmix:::lda_corpus(docs, NULL, K = 6))
}

test_that("kept structures give the draws of a rebuild in every chunk (every sampler, chunks of one sweep)", {
  cs <- lda_ws_case()
  withr::local_options(mcmix.lda_block_tokens = 60, mcmix.threads_adapt = FALSE)
  expect_equal(mcmix:::lda_blocks(length(cs$corpus$word), 60), 4L)
  for (alg in c("sparse", "dense", "blocked", "mh")) {
    run <- function(chunk, rebuild = FALSE) {
      withr::local_options(mcmix.chunk_size = chunk)
      set.seed(4)
      fit <- sample_posterior(cs$m, cs$docs, iter = 14, burnin = 6, thin = 2, chains = 2,
                              algorithm = alg, threads = 2, mh_steps = 2, progress = FALSE)
      if (!rebuild) return(fit)
      # the same kernel through a step without the workspace: the counts
      # are rebuilt from z in every chunk
      k <- mcmix:::fit_kernel(fit)
      plain <- k
      plain$step <- function(state, n, thin, offset, warmup) k$step(state, n, thin, offset, warmup)
      set.seed(4)
      run_kernel(plain, iter = 14, burnin = 6, thin = 2, chains = 2, labels = FALSE,
                 progress = FALSE, model = fit$model, data = fit$data)
    }
    kept <- run(1L)
    expect_identical(kept$chains, run(1L, rebuild = TRUE)$chains, info = alg)
    expect_identical(kept$chains, run(1000L)$chains, info = alg)
    expect_identical(topic_word(kept, chain = 2), topic_word(run(1000L), chain = 2), info = alg)
  }
})

test_that("extend() after saveRDS()/readRDS() equals one longer run", {
  cs <- lda_ws_case()
  withr::local_options(mcmix.lda_block_tokens = 60, mcmix.chunk_size = 2L)
  for (alg in c("sparse", "blocked", "mh")) {
    set.seed(8)
    a <- sample_posterior(cs$m, cs$docs, iter = 10, burnin = 5, algorithm = alg,
                          progress = FALSE)
    path <- withr::local_tempfile(fileext = ".rds")
    saveRDS(a, path)
    a <- extend(readRDS(path), 9, progress = FALSE)
    a <- extend(a, 4, progress = FALSE)
    set.seed(8)
    b <- sample_posterior(cs$m, cs$docs, iter = 23, burnin = 5, algorithm = alg,
                          progress = FALSE)
    expect_identical(a$chains, b$chains, info = alg)
    # nothing of a workspace is stored in a fit
    expect_identical(names(a$chains[[1]]$state), c("z", "phi_sum", "theta_sum", "n_draws"))
  }
})

# Chunk g + 1 (one sweep, offset g; the first three burn-in) through the
# internal step with workspace `ws` (NULL: none).
lda_ws_chunk <- function(cs, state, g, ws, alg, ...) {
  mcmix:::lda_step_c(cs$m, cs$corpus, state, 1L, 1L, g, g < 3L, alg, 1L, 60L, 2L,
                     workspace = ws, ...)
}

test_that("the workspace is used only with the z it belongs to", {
  cs <- lda_ws_case()
  N <- length(cs$corpus$word)
  for (alg in c("sparse", "blocked", "mh", "dense")) {
    set.seed(2)
    s0 <- list(z = sample.int(6, N, replace = TRUE) - 1L, phi_sum = matrix(0, 6, cs$corpus$W),
               theta_sum = matrix(0, cs$corpus$D, 6), n_draws = 0)
    # the reference: five chunks rebuilt from z every time; seeds[[g]] is
    # the generator before chunk g
    set.seed(3)
    ref <- list(s0)
    seeds <- list()
    for (g in 1:5) {
      seeds[[g]] <- .Random.seed
      ref[[g + 1L]] <- lda_ws_chunk(cs, ref[[g]], g - 1L, NULL, alg)
    }
    seeds[[6]] <- .Random.seed
    same <- function(x, g) expect_identical(x[c("z", "phi_sum", "theta_sum", "log_lik")],
                                            ref[[g + 1L]][c("z", "phi_sum", "theta_sum", "log_lik")],
                                            info = paste(alg, g))
    from <- function(state, g, ws) {
      assign(".Random.seed", seeds[[g]], envir = globalenv())
      lda_ws_chunk(cs, state, g - 1L, ws, alg)
    }
    ws <- .Call(mcmix:::C_ffi_workspace_new)
    s <- s0
    rebuilt <- logical(5)
    for (g in 1:5) {
      s <- from(s, g, ws)
      rebuilt[g] <- s$rebuilt
      same(s, g)
    }
    # built once, then continued
    expect_identical(rebuilt, c(TRUE, FALSE, FALSE, FALSE, FALSE), info = alg)
    # an older state (the workspace is at chunk 5): rebuilt from its z
    x <- from(ref[[2]], 2, ws)
    expect_true(x$rebuilt)
    same(x, 2)
    # and continued from there
    x <- from(x, 3, ws)
    expect_false(x$rebuilt)
    same(x, 3)
    # the same topics in another vector: rebuilt, the same draws
    other <- x
    other$z <- other$z + 0L
    y <- from(other, 4, ws)
    expect_true(y$rebuilt)
    same(y, 4)
    # a workspace read back by readRDS() (a NULL pointer) is not used
    path <- withr::local_tempfile(fileext = ".rds")
    saveRDS(ws, path)
    r <- from(ref[[5]], 5, readRDS(path))
    expect_true(r$rebuilt)
    same(r, 5)
  }
})

test_that("a chunk abandoned half-way leaves the workspace unused", {
  cs <- lda_ws_case()
  N <- length(cs$corpus$word)
  for (alg in c("sparse", "blocked", "mh")) {
    set.seed(2)
    s0 <- list(z = sample.int(6, N, replace = TRUE) - 1L, phi_sum = matrix(0, 6, cs$corpus$W),
               theta_sum = matrix(0, cs$corpus$D, 6), n_draws = 0)
    ws <- .Call(mcmix:::C_ffi_workspace_new)
    set.seed(3)
    s1 <- mcmix:::lda_step_c(cs$m, cs$corpus, s0, 2L, 1L, 0L, TRUE, alg, 1L, 60L,
                             workspace = ws)
    seed1 <- .Random.seed
    # the next chunk stops with an error after one of its three sweeps:
    # the workspace has moved on from s1, the chain still holds s1
    expect_error(mcmix:::lda_step_c(cs$m, cs$corpus, s1, 3L, 1L, 2L, TRUE, alg, 1L, 60L,
                                    workspace = ws, fail_after = 1L), "abandoned")
    assign(".Random.seed", seed1, envir = globalenv())
    again <- mcmix:::lda_step_c(cs$m, cs$corpus, s1, 3L, 1L, 2L, FALSE, alg, 1L, 60L,
                                workspace = ws)
    expect_true(again$rebuilt)
    assign(".Random.seed", seed1, envir = globalenv())
    ref <- mcmix:::lda_step_c(cs$m, cs$corpus, s1, 3L, 1L, 2L, FALSE, alg, 1L, 60L)
    expect_identical(again[c("z", "phi_sum", "theta_sum", "log_lik")],
                     ref[c("z", "phi_sum", "theta_sum", "log_lik")], info = alg)
  }
})

test_that("the sums change only in chunks that keep a draw", {
  cs <- lda_ws_case()
  N <- length(cs$corpus$word)
  set.seed(2)
  s0 <- list(z = sample.int(6, N, replace = TRUE) - 1L, phi_sum = matrix(0, 6, cs$corpus$W),
             theta_sum = matrix(0, cs$corpus$D, 6), n_draws = 0)
  s1 <- mcmix:::lda_step_c(cs$m, cs$corpus, s0, 3L, 1L, 0L, TRUE)
  expect_identical(s1$phi_sum, s0$phi_sum)
  # a kept draw: new sums, the old ones untouched
  s2 <- mcmix:::lda_step_c(cs$m, cs$corpus, s1, 1L, 1L, 0L, FALSE)
  expect_identical(s1$phi_sum, matrix(0, 6, cs$corpus$W))
  expect_equal(colSums(t(s2$phi_sum)), rep(1, 6))
  expect_equal(rowSums(s2$theta_sum), rep(1, cs$corpus$D))
})
