# Latent class fits: one class numbering across the summaries, the evidence
# and pointwise log-likelihood of lca() and data-frame mixtures against
# enumeration, and lca()'s checks of `prior` and its profiles of factor and
# logical columns.

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
  # bridge sampling needs the parameters: a mixture fit is sent to Chib's method
  expect_error(bridge_evidence(fit), "chib_evidence", class = "mcmix_error_input")
})

test_that("log_lik() of an lca() fit mixes over the classes with the missing cells integrated out", {
  df <- data.frame(a = c("x", "x", "y", NA, "y", "x", "y", "y"),
                   b = c("p", "q", "q", "p", NA, "r", "r", NA))
  set.seed(21)
  fit <- lca(df, K = 2, iter = 60, progress = FALSE)
  set.seed(5)
  ll <- log_lik(fit)
  set.seed(5)
  cs <- mcmix:::component_sample(fit, relabel = "none")
  expect_identical(dim(ll), c(cs$S, nrow(df)))
  nm <- mcmix:::family_param_names(fit$family, all = TRUE)
  ia <- as.integer(factor(df$a))
  ib <- as.integer(factor(df$b))
  for (s in c(1L, cs$S)) for (i in seq_len(nrow(df))) {
    f <- vapply(1:2, function(k) {
      pa <- if (is.na(ia[i])) 1 else cs$theta[s, k, match(sprintf("a.prob[%d]", ia[i]), nm)]
      pb <- if (is.na(ib[i])) 1 else cs$theta[s, k, match(sprintf("b.prob[%d]", ib[i]), nm)]
      pa * pb
    }, 0)
    expect_equal(ll[s, i], log(sum(cs$weights[s, ] * f)))
  }
})

test_that("log_lik() of a one-class lca() fit gives the exact posterior predictive and LOO", {
  require_suggested("loo")
  set.seed(31)
  df <- data.frame(a = sample(c("x", "y"), 30, TRUE, prob = c(0.7, 0.3)),
                   b = sample(c("p", "q", "r"), 30, TRUE))
  df$b[c(3, 9)] <- NA
  fit <- lca(df, K = 1, iter = 2000, progress = FALSE)
  ll <- log_lik(fit)
  # p(x_i | rest) = prod over observed columns of (1 + n_jx) / (L_j + n_j),
  # the Dirichlet(1)-multinomial predictive, with the counts n of the other
  # rows (LOO) or of all rows (posterior predictive)
  pred <- function(i, loo) {
    out <- 0
    for (v in names(df)) {
      if (is.na(df[[v]][i])) next
      keep <- if (loo) -i else seq_len(nrow(df))
      x <- df[[v]][keep]
      x <- x[!is.na(x)]
      out <- out + log((1 + sum(x == df[[v]][i])) / (nlevels(factor(df[[v]])) + length(x)))
    }
    out
  }
  exact_pp <- vapply(seq_len(nrow(df)), pred, 0, loo = FALSE)
  pp <- log(colMeans(exp(ll)))
  expect_lt(max(abs(pp - exact_pp)), 0.02)
  lo <- suppressWarnings(loo::loo(fit))
  exact_loo <- sum(vapply(seq_len(nrow(df)), pred, 0, loo = TRUE))
  # PSIS-LOO within 4 Monte Carlo standard errors (+ 0.05 for its bias)
  expect_lt(abs(lo$estimates["elpd_loo", "Estimate"] - exact_loo), 4 * loo::mcse_loo(lo) + 0.05)
})

test_that("logLik() and BIC() of lca() fits are poLCA's (maximum likelihood, poLCA's npar)", {
  require_suggested("poLCA")
  data("carcinoma", package = "poLCA", envir = environment())
  bic <- pol <- numeric(3)
  for (K in 1:3) {
    set.seed(40 + K)
    fit <- lca(carcinoma, K = K, iter = 150, progress = FALSE)
    set.seed(3)
    ml <- poLCA::poLCA(cbind(A, B, C, D, E, F, G) ~ 1, carcinoma, nclass = K,
                       verbose = FALSE, nrep = 5)
    l <- logLik(fit)
    expect_equal(as.numeric(l), ml$llik, tolerance = 1e-4)
    expect_equal(attr(l, "df"), ml$npar)
    bic[K] <- BIC(fit)
    pol[K] <- ml$bic
  }
  expect_equal(bic, pol, tolerance = 1e-5)
  expect_identical(which.min(bic), which.min(pol))
  # a Dirichlet process fit answers the Bayesian logLik() (lppd, WAIC penalty)
  set.seed(2)
  dp <- lca(carcinoma[1:40, 1:3], iter = 60, progress = FALSE)
  expect_s3_class(logLik(dp), "logLik")
})

test_that("lca() checks `prior` by its own name and profiles factor/logical columns", {
  tab <- data.frame(q1 = factor(c("y", "y", "n", "n", "y", "n")),
                    q2 = c(TRUE, TRUE, FALSE, FALSE, TRUE, FALSE),
                    q3 = c(1L, 1L, 2L, 2L, 1L, 3L))
  expect_error(lca(tab, K = 2, prior = -1), "`prior`")
  expect_error(lca(tab, K = 2, prior = NA), "`prior`")
  set.seed(107)
  fit <- lca(tab, K = 2, iter = 200, progress = FALSE)
  pr <- lca_probs(fit)
  for (m in pr$mean) expect_equal(unname(rowSums(m)), rep(1, nrow(m)), tolerance = 1e-10)
  # profiles: a logical column gives P(TRUE), a factor one row per level
  n <- 30
  g <- rep(1:2, each = 15)
  df <- data.frame(num = c(rnorm(15, 0), rnorm(15, 6)), yes = g == 1,
                   f = factor(ifelse(g == 1, "hi", "lo")))
  df$yes[4] <- NA
  fit <- sample_posterior(dp_mixture(auto_family(df, quiet = TRUE)), df, iter = 200,
                          progress = FALSE)
  prof <- cluster_profiles(fit, estimate = g, format = "long")
  yes <- prof[prof$column == "yes", ]
  expect_equal(yes$category, c("TRUE", "TRUE"))
  expect_equal(yes$observed, c(1, 0))
  f <- prof[prof$column == "f", ]
  expect_equal(f$observed, c(0, 1))   # P(second level "lo") by cluster
  expect_true(all(f$lower <= f$mean & f$mean <= f$upper))
})

test_that("choosing K on carcinoma: the evidence picks poLCA's BIC choice, loo_compare() ranks K = 1..4", {
  require_suggested("poLCA")
  require_suggested("loo")
  data("carcinoma", package = "poLCA", envir = environment())
  # poLCA's own BIC choice (maximum likelihood with 5 random starts)
  set.seed(3)
  pol_bic <- vapply(1:4, function(K)
    poLCA::poLCA(cbind(A, B, C, D, E, F, G) ~ 1, carcinoma, nclass = K, verbose = FALSE,
                 nrep = 5)$bic, 0)
  expect_identical(which.min(pol_bic), 3L)
  fits <- lapply(1:4, function(K) {
    set.seed(K)
    lca(carcinoma, K = K, iter = 2000, progress = FALSE)
  })
  ev <- lapply(fits, chib_evidence)
  le <- vapply(ev, function(e) e$log_evidence, 0)
  se <- vapply(ev, function(e) e$se, 0)
  expect_identical(which.max(le), which.min(pol_bic))
  # one and two classes are far below (tens of nats, the s.e. a tenth of one)
  expect_gt(le[3] - le[2], 4)
  expect_gt(le[2] - le[1], 100)
  expect_true(all(se < 0.2))
  # K = 1's evidence is closed form: Dirichlet(1)-multinomial per item
  one <- sum(vapply(carcinoma, function(v) {
    n <- tabulate(as.integer(factor(v)))
    lgamma(length(n)) - lgamma(length(n) + sum(n)) + sum(lgamma(1 + n))
  }, 0))
  expect_equal(le[1], one, tolerance = 1e-8)
  # leave-one-out: three and four classes on top (within 2 s.e. of each
  # other), then two, then one, each clearly below
  loos <- lapply(fits, function(f) suppressWarnings(loo::loo(window(f, thin = 4))))
  names(loos) <- paste0("K", 1:4)
  cmp <- loo::loo_compare(loos)
  expect_setequal(rownames(cmp)[1:2], c("K3", "K4"))
  expect_identical(rownames(cmp)[3:4], c("K2", "K1"))
  expect_lt(abs(cmp[2, "elpd_diff"]), 2 * cmp[2, "se_diff"] + 0.5)
  expect_lt(cmp["K2", "elpd_diff"], -2 * cmp["K2", "se_diff"])
  expect_lt(cmp["K1", "elpd_diff"], -2 * cmp["K1", "se_diff"])
})
