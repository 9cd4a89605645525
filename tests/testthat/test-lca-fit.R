# Latent class fits: one class numbering across the summaries, and the
# evidence and pointwise log-likelihood of lca() and data-frame mixtures.

test_that("lca_probs(), partition(), cluster_profiles(), predict() and the plots number the classes alike", {
  require_suggested("poLCA")
  data("carcinoma", package = "poLCA", envir = environment())
  set.seed(1)
  fit <- lca(carcinoma, K = 3, iter = 400, progress = FALSE)
  p <- lca_probs(fit)
  est <- partition(fit)
  expect_identical(as.integer(p$class), as.integer(est$labels))
  # class c of lca_probs() is cluster c of cluster_profiles(): the same
  # category probabilities (the two summaries differ only in how the
  # draws are matched to the classes)
  pr <- cluster_profiles(fit, format = "long")
  for (c in seq_len(est$n_clusters)) {
    a <- pr[pr$column == "A" & pr$cluster == c & pr$category == "1", "mean"]
    expect_lt(abs(a - p$mean$A[c, "1"]), 0.1)
  }
  # predict() classifies by the predictive of the estimated clusters, so a
  # few borderline rows may differ, but the numbering is the same: under
  # any other permutation most rows would disagree
  expect_gt(mean(predict(fit, carcinoma, type = "class") == p$class), 0.9)
  # the mode's classes are the same classes: its predicted classes agree
  # with the posterior ones on nearly every row
  th <- p$mode$probs
  lp <- matrix(log(p$mode$weights), nrow(carcinoma), 3L, byrow = TRUE)
  for (v in names(th)) lp <- lp + log(t(th[[v]][, as.character(carcinoma[[v]])]))
  expect_gt(mean(max.col(lp) == p$class), 0.9)
})

# Exact log evidence of a finite mixture of products of categorical parts
# (Dirichlet(prior) probabilities, symmetric Dirichlet(alpha / K) weights)
# by summing over all K^N allocations.
lca_exact_evidence <- function(df, K, alpha = 1, prior = 1) {
  N <- nrow(df)
  a <- rep(alpha / K, K)
  codes <- lapply(df, function(v) as.integer(factor(v)))
  L <- vapply(df, function(v) nlevels(factor(v)), 1L)
  Z <- as.matrix(expand.grid(rep(list(seq_len(K)), N)))
  lz <- apply(Z, 1L, function(z) {
    n <- tabulate(z, K)
    out <- lgamma(sum(a)) - lgamma(sum(a) + N) + sum(lgamma(a + n) - lgamma(a))
    for (j in seq_along(codes)) for (k in seq_len(K)) {
      cnt <- tabulate(codes[[j]][z == k], L[j])
      b <- rep(prior, L[j])
      out <- out + lgamma(sum(b)) - lgamma(sum(b) + sum(cnt)) + sum(lgamma(b + cnt) - lgamma(b))
    }
    out
  })
  max(lz) + log(sum(exp(lz - max(lz))))
}

test_that("chib_evidence() of lca() fits and data-frame mixtures is exact (all allocations enumerated)", {
  df <- data.frame(a = c("x", "x", "x", "y", "y", "y", "x", "y"),
                   b = c("p", "p", "q", "r", "r", "r", "p", "q"))
  set.seed(11)
  fit <- lca(df, K = 2, iter = 1500, burnin = 200, progress = FALSE)
  ch <- chib_evidence(fit)
  expect_s3_class(ch, "mcmix_evidence")
  expect_lt(abs(ch$log_evidence - lca_exact_evidence(df, 2)), 4 * ch$se + 0.02)
  # the same model written as a data-frame finite mixture
  set.seed(12)
  fam <- product_family(a = categorical_dirichlet(alpha = 1), b = categorical_dirichlet(alpha = 1))
  fit2 <- sample_posterior(finite_mixture(fam, K = 2, alpha = 1), df, iter = 1500,
                           burnin = 200, progress = FALSE)
  ch2 <- chib_evidence(fit2)
  expect_lt(abs(ch2$log_evidence - lca_exact_evidence(df, 2)), 4 * ch2$se + 0.02)
})
