# psm() against a naive computation of the posterior similarity matrix
# (every pair counted in R), its memory budget, and partition() against
# planted partitions and the expected variation of information of every
# sampled partition (computed in R).

naive_psm <- function(labs) {
  N <- ncol(labs)
  out <- matrix(0, N, N)
  for (s in seq_len(nrow(labs))) out <- out + outer(labs[s, ], labs[s, ], "==")
  out / nrow(labs)
}

# VI in bits from the joint distribution (Meila 2007), independently of C.
naive_vi <- function(a, b) {
  a <- match(a, unique(a))
  b <- match(b, unique(b))
  n <- length(a)
  joint <- tabulate((a - 1L) * max(b) + b, max(a) * max(b)) / n
  h <- function(q) { q <- q[q > 0]; -sum(q * log2(q)) }
  2 * h(joint) - h(tabulate(a) / n) - h(tabulate(b) / n)
}

naive_binder <- function(cl, p) {
  same <- outer(cl, cl, "==")
  sum((same * (1 - p) + (!same) * p)[upper.tri(p)])
}

test_that("psm equals a naive computation (odd sizes, tiles, any coding)", {
  set.seed(1)
  for (N in c(1, 7, 300)) {
    labs <- matrix(sample(c(1L, 5L, 9L, 100L), 23 * N, TRUE), 23, N)
    expect_equal(unclass(psm(labs)), naive_psm(labs), ignore_attr = TRUE)
  }
  labs <- matrix(sample(3, 40 * 20, TRUE), 40, 20)
  expect_equal(psm(labs, subset = c(3, 1, 7)), naive_psm(labs[, c(3, 1, 7)]),
               ignore_attr = TRUE)
  expect_equal(attr(psm(labs), "n_draws"), 40L)
})

test_that("psm of a fit uses all chains; online counts agree", {
  set.seed(2)
  k <- diag_label_kernel(N = 12, K = 3, noise = 0.3)
  fit <- run_kernel(k, iter = 60, chains = 2, psm = TRUE, progress = FALSE)
  labs <- rbind(fit$chains[[1]]$labels, fit$chains[[2]]$labels)
  expect_equal(unclass(psm(fit)), naive_psm(labs), ignore_attr = TRUE)
  expect_equal(fit$chains[[1]]$psm, naive_psm(fit$chains[[1]]$labels) * 60)
  set.seed(2)
  fit2 <- run_kernel(k, iter = 60, chains = 2, psm = TRUE, labels = FALSE, progress = FALSE)
  expect_null(fit2$chains[[1]]$labels)
  expect_equal(unclass(psm(fit2)), naive_psm(labs), ignore_attr = TRUE)
  expect_equal(unclass(psm(fit2, subset = 2:4)), naive_psm(labs[, 2:4]), ignore_attr = TRUE)
})

test_that("the memory budget refuses large matrices and names the alternatives", {
  labs <- matrix(1L, 2, 100)
  old <- options(mcmix.psm_max_bytes = 1000)
  on.exit(options(old))
  expect_error(psm(labs), "mcmix.psm_max_bytes")
  expect_error(psm(labs), "subset")
  expect_error(psm(labs), "psm = TRUE")
  expect_equal(dim(psm(labs, subset = 1:10)), c(10L, 10L))
  expect_error(psm(labs, subset = 0), "`subset`")
  expect_error(psm("a"), "`x`")
})

test_that("partition recovers a planted partition from label draws", {
  set.seed(3)
  truth <- rep(1:4, times = c(10, 8, 7, 5))
  draws <- t(replicate(200, {
    z <- truth
    i <- sample(30, 6)
    z[i] <- sample(5, 6, TRUE)
    z
  }))
  p <- partition(draws, loss = "VI")
  expect_s3_class(p, "mcmix_partition")
  expect_equal(p$labels, match(truth, unique(truth)))
  # reported loss is the exact expected VI over the draws
  expect_equal(p$loss, mean(apply(draws, 1, naive_vi, b = p$labels)), tolerance = 1e-10)
  pb <- partition(draws, loss = "binder")
  expect_equal(pb$labels, match(truth, unique(truth)))
  expect_equal(pb$loss, naive_binder(pb$labels, naive_psm(draws)), tolerance = 1e-10)
  expect_output(print(p), "4 clusters")
})

test_that("partition recovers a planted partition from a similarity matrix", {
  set.seed(4)
  truth <- rep(1:3, times = c(12, 9, 9))
  N <- length(truth)
  P <- ifelse(outer(truth, truth, "=="), 0.8, 0.1) + matrix(runif(N * N, -0.05, 0.05), N)
  P <- (P + t(P)) / 2
  diag(P) <- 1
  for (l in c("VI", "binder")) {
    p <- partition(P, loss = l)
    expect_equal(p$labels, truth)
  }
  p <- partition(P, "VI")
  expect_equal(p$loss_type, "VI lower bound")
  # Wade and Ghahramani (2018), eq. 11, computed directly
  same <- outer(p$labels, p$labels, "==")
  lb <- mean(log2(rowSums(same)) - 2 * log2(rowSums(same * P)) + log2(rowSums(P)))
  expect_equal(p$loss, lb, tolerance = 1e-10)
})

test_that("partition is never worse in expected VI than the best sampled partition", {
  for (seed in 1:4) {
    set.seed(seed)
    N <- 25
    # a diffuse posterior: overlapping groups, many distinct draws
    draws <- t(replicate(80, sample(sample(2:5, 1), N, TRUE)))
    p <- partition(draws, restarts = 3)
    sampled <- apply(draws, 1, function(z) mean(apply(draws, 1, naive_vi, b = z)))
    expect_lte(p$loss, min(sampled) + 1e-12)
    expect_equal(p$best_draw_loss, min(sampled), tolerance = 1e-10)
  }
})

test_that("partition within a small budget is never worse than the best candidate it scored", {
  set.seed(3)
  N <- 25
  draws <- t(replicate(80, sample(sample(2:5, 1), N, TRUE)))
  sampled <- apply(draws, 1, function(z) mean(apply(draws, 1, naive_vi, b = z)))
  full <- partition(draws, restarts = 3)
  expect_equal(full$scored, full$candidates)
  p <- partition(draws, restarts = 3, budget = 2e4)   # 10 exact candidates of 80
  expect_equal(p$candidates, 80L)
  expect_equal(p$scored, 10L)
  expect_lte(p$loss, p$best_draw_loss + 1e-12)
  # best_draw_loss is the exact expected VI of one sampled partition
  expect_true(any(abs(sampled - p$best_draw_loss) < 1e-10))
  expect_gte(p$best_draw_loss, min(sampled) - 1e-12)
  expect_error(partition(draws, budget = 0), "`budget`")
  expect_error(partition(draws, budget = "a"), "`budget`")
})

test_that("partition works on fits and checks its arguments", {
  set.seed(5)
  fit <- diag_toy_mixture_fit(N = 15, K = 3, noise = 0.05)
  p <- partition(fit)
  expect_equal(p$labels, match(fit$kernel$truth, unique(fit$kernel$truth)))
  expect_error(partition(fit, loss = "x"))
  expect_error(partition(fit, restarts = 0), "`restarts`")
  expect_error(partition(list()), "`x`")
})

test_that("partition of a fit with online counts only uses the similarity matrix", {
  set.seed(6)
  k <- diag_label_kernel(N = 18, K = 3, noise = 0.1)
  fit <- run_kernel(k, iter = 80, chains = 2, psm = TRUE, labels = FALSE, progress = FALSE)
  p <- partition(fit)
  expect_equal(p$loss_type, "VI lower bound")
  expect_equal(p$labels, match(k$truth, unique(k$truth)))
  pb <- partition(fit, loss = "binder")
  expect_equal(pb$labels, match(k$truth, unique(k$truth)))
  expect_equal(pb$loss, naive_binder(pb$labels, unclass(psm(fit))), tolerance = 1e-10)
})
