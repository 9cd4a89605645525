# The SALSO-style search of partition() (src/partition_salso.c) against the
# greedy search and mcclust's estimates, and credible balls
# (R/credible_ball.R) against their definition and in a calibration study;
# partition() against the exact minimum VI and Binder loss (every set
# partition of small draws), and the edge cases N = 1, 2, one cluster and
# singletons.

# Expected loss of the rows of `cands` over the draws (VI) or the psm (Binder).
ps_score <- function(cands, draws, loss = "VI") {
  cands <- mcmix:::canonical_labels(rbind(cands))
  draws <- mcmix:::canonical_labels(draws)
  if (loss == "VI") .Call(mcmix:::C_ffi_partition_loss, cands, draws, NULL, 1L)
  else .Call(mcmix:::C_ffi_partition_loss, cands, NULL, mcclust::comp.psm(draws), 2L)
}

# Test cases: label matrices with different kinds of posterior uncertainty.
ps_cases <- function() {
  set.seed(10)
  truth <- rep(1:3, each = 10)
  noisy <- t(replicate(200, { z <- truth; i <- sample(30, 6); z[i] <- sample(5, 6, TRUE); z }))
  x <- c(stats::rnorm(25, -1), stats::rnorm(25, 1), stats::rnorm(10, 4))
  fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 1), x, iter = 600,
                          progress = FALSE)
  two_modes <- rbind(t(replicate(60, sample(c(rep(1, 12), rep(2, 12))))),
                     t(replicate(60, rep(1:4, 6))))
  list(noisy = noisy, dp_fit = partition_draws(fit), two_modes = two_modes)
}

test_that("the SALSO-style search is never worse than the greedy search or mcclust", {
  require_suggested("mcclust")
  cases <- ps_cases()
  for (nm in names(cases)) {
    draws <- cases[[nm]]
    psm <- mcclust::comp.psm(draws)
    for (loss in c("VI", "binder")) {
      set.seed(1)
      s <- partition(draws, loss = loss)
      set.seed(1)
      g <- partition(draws, loss = loss, method = "greedy")
      expect_identical(s$method, "salso")
      # the reported loss is the exact expected loss of the estimate
      expect_equal(s$loss, ps_score(s$labels, draws, loss), tolerance = 1e-10)
      expect_lte(s$loss, g$loss + 1e-10)
      expect_lte(s$loss, s$best_draw_loss + 1e-10)
      # mcclust's estimates, and every cut of the average- and complete-linkage
      # trees of 1 - psm (the candidates of minVI(method = "avg"/"comp") in
      # Wade's mcclust.ext; "draws" is covered by best_draw_loss above)
      cuts <- do.call(rbind, lapply(c("average", "complete"), function(m) {
        tr <- stats::hclust(stats::as.dist(1 - psm), method = m)
        t(sapply(seq_len(min(ncol(draws), 20)), function(k) stats::cutree(tr, k)))
      }))
      peers <- rbind(mcclust::minbinder(psm, draws, method = "all")$cl,
                     mcclust::medv(psm), mcclust::maxpear(psm, draws, method = "all")$cl,
                     cuts)
      expect_lte(s$loss, min(ps_score(peers, draws, loss)) + 1e-10)
    }
  }
})

test_that("SALSO runs on a large problem and reports each run's loss", {
  set.seed(3)
  N <- 2000
  truth <- sample(6, N, TRUE)
  draws <- t(replicate(100, { z <- truth; i <- sample(N, 200); z[i] <- sample(8, 200, TRUE); z }))
  s <- partition(draws, runs = 4)
  expect_length(s$run_loss, 4L)
  expect_true(all(s$run_loss >= s$loss - 1e-12))
  expect_equal(s$loss, ps_score(s$labels, draws), tolerance = 1e-10)
  expect_error(partition(draws, method = "fast"), "method")
  expect_error(partition(draws, runs = 0), "runs")
})

test_that("the credible ball follows its definition", {
  draws <- ps_cases()$noisy
  for (loss in c("VI", "binder")) {
    b <- credible_ball(draws, loss = loss, level = 0.9)
    est <- b$estimate
    # distances recomputed in R: VI in bits, Binder as disagreeing pairs
    d <- apply(draws, 1L, function(z) {
      if (loss == "VI") {
        tab <- table(est, z) / length(z)
        pr <- rowSums(tab); pc <- colSums(tab)
        sum(pr * log2(pr)) + sum(pc * log2(pc)) - 2 * sum(tab[tab > 0] * log2(tab[tab > 0]))
      } else {
        a <- outer(est, est, `==`); bb <- outer(z, z, `==`)
        sum(a[upper.tri(a)] != bb[upper.tri(bb)])
      }
    })
    expect_equal(b$distances, d, tolerance = 1e-10)
    expect_gte(b$mass, 0.9)
    expect_lt(mean(d < b$radius - 1e-9), 0.9)        # the smallest such radius
    K <- apply(draws, 1L, function(z) length(unique(z)))
    inside <- d <= b$radius + 1e-9
    expect_equal(max(b$upper_vertical[1, ]), min(K[inside]))
    expect_equal(max(b$lower_vertical[1, ]), max(K[inside]))
    expect_equal(attr(b$horizontal, "distance")[1L], max(d[inside]))
  }
  expect_output(print(b), "credible ball")
  expect_error(credible_ball(draws, level = 2), "level")
  expect_error(credible_ball(draws, estimate = 1:3), "estimate")
})

# Calibration: data sets drawn from the prior (a DP(1) partition of 6
# items, 3 binary variables with Beta(1, 1) probabilities per cluster),
# the exact posterior by enumeration, 400 posterior draws from it, and the
# 90% ball around partition(). For any ball built from the data,
# E[1(truth in ball)] = E[posterior mass of the ball], so the coverage
# must match the average exact mass of the balls within Monte Carlo error,
# and that mass must be at least about the nominal level.
test_that("credible balls contain the true partition at their posterior level", {
  set.seed(20)
  P <- mx_partitions(6)
  keys <- mx_keys(P)
  lprior <- apply(P, 1L, mx_lprior_dp, alpha = 1)
  n_sets <- 150
  cover <- mass <- numeric(n_sets)
  for (r in seq_len(n_sets)) {
    truth <- rcrp(6, 1)
    pr <- matrix(stats::rbeta(3 * max(truth), 1, 1), ncol = 3)
    x <- matrix(stats::rbinom(18, 1, pr[truth, ]), ncol = 3)
    ll <- mx_log_lik_partitions(P, x, function(X) mx_lml_bernoulli(X, 1, 1))
    post <- mx_posterior(P, ll, lprior)
    draws <- P[sample.int(nrow(P), 400, TRUE, prob = post), , drop = FALSE]
    b <- credible_ball(draws, estimate = partition(draws, runs = 4), loss = "VI", level = 0.9)
    dall <- .Call(mcmix:::C_ffi_partition_dists, as.integer(b$estimate), P, 1L)
    inside <- dall <= b$radius + 1e-9
    mass[r] <- sum(post[inside])
    cover[r] <- inside[match(mx_key(truth), keys)]
  }
  expect_lt(abs(mean(cover) - mean(mass)), 3 * sqrt(mean(mass) * (1 - mean(mass)) / n_sets) + 0.01)
  expect_gt(mean(mass), 0.85)
})

# The set partitions of 1..n (lists of label vectors) and the variation of
# information between two partitions (Meila 2007), by definition.
ps_enum <- function(n) {
  if (n == 1L) return(list(1L))
  out <- list()
  for (p in ps_enum(n - 1L)) for (j in seq_len(max(p) + 1L)) out[[length(out) + 1L]] <- c(p, j)
  out
}
ps_vi <- function(a, b) {
  t <- table(a, b) / length(a)
  pa <- rowSums(t); pb <- colSums(t)
  -sum(pa * log2(pa)) - sum(pb * log2(pb)) - 2 * sum(ifelse(t > 0, t * log2(t / outer(pa, pb)), 0))
}

test_that("partition() attains the exact minimum VI and Binder loss on small draws", {
  set.seed(108)
  for (rep in 1:6) {
    N <- sample(3:6, 1)
    L <- t(replicate(sample(4:12, 1), sample.int(sample(1:3, 1), N, TRUE)))
    parts <- ps_enum(N)
    vi <- vapply(parts, function(p) mean(apply(L, 1L, function(r) ps_vi(p, r))), 0)
    P <- psm(L)
    bi <- vapply(parts, function(p) sum(abs(outer(p, p, "==") - P)[upper.tri(P)]), 0)
    expect_equal(partition(L)$loss, min(vi), tolerance = 1e-9)
    pb <- partition(L, loss = "binder")
    expect_equal(sum(abs(outer(pb$labels, pb$labels, "==") - P)[upper.tri(P)]), min(bi),
                 tolerance = 1e-9)
  }
})

test_that("partition() and credible_ball() handle N = 1, N = 2, one cluster, singletons", {
  expect_equal(partition(matrix(1L, 5, 1))$labels, 1L)
  cb <- credible_ball(matrix(1L, 5, 1))
  expect_equal(cb$radius, 0)
  L2 <- rbind(matrix(1L, 6, 2), matrix(c(1L, 2L), 4, 2, byrow = TRUE))
  expect_equal(partition(L2)$labels, c(1L, 1L))
  cb <- credible_ball(L2, level = 0.5)
  expect_equal(cb$radius, 0)           # 60% of the draws equal the estimate
  cb <- credible_ball(L2, level = 0.95)
  expect_equal(cb$radius, 1)           # VI (log base 2) between {12} and {1}{2}
  expect_equal(cb$bounds$n_clusters, c(1, 2, 2))
  expect_equal(partition(matrix(1L, 8, 5))$labels, rep(1L, 5))
  expect_equal(partition(matrix(1:5, 8, 5, byrow = TRUE), loss = "binder")$labels, 1:5)
  # a similarity matrix given directly
  P <- matrix(c(1, .9, .1, .9, 1, .2, .1, .2, 1), 3)
  expect_equal(partition(P)$labels, c(1L, 1L, 2L))
  expect_equal(partition(P, loss = "binder")$labels, c(1L, 1L, 2L))
  expect_error(credible_ball(L2, estimate = c(1, NA)), "estimate")
  expect_error(partition(matrix(NA_integer_, 2, 2)), "`x`")
  expect_error(partition(L2, runs = 0), "runs")
})
