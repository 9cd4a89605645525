# component_draws(): component parameters of finite and DP mixtures from
# their conditional posterior given the sampled partition, with ECR
# relabelling of finite mixtures; predict() for probit and HDP fits;
# held-out perplexity of LDA.

# Normal-inverse-gamma (D = 1 NIW) posterior of the mean given the members
# x of a cluster: mean and sd of its Student-t marginal (BDA3 section 3.3).
niw_mean_posterior <- function(x, prep) {
  a <- prep$family$args
  n <- length(x)
  k0 <- a$kappa; m0 <- a$prior_mean; nu0 <- a$df; S0 <- a$scale
  kn <- k0 + n; nun <- nu0 + n
  mn <- (k0 * m0 + n * mean(x)) / kn
  Sn <- S0 + sum((x - mean(x))^2) + k0 * n / kn * (mean(x) - m0)^2
  c(mean = mn, sd = sqrt(Sn / (kn * (nun - 2))))
}

test_that("component_draws() recovers the means of a well-separated 3-component mixture after relabelling", {
  set.seed(31)
  mu <- c(-8, 0, 8)
  n <- c(60, 80, 100)
  truth <- rep(1:3, n)
  x <- rnorm(sum(n), mu[truth])
  fit <- sample_posterior(finite_mixture(gaussian_niw(), K = 3), x, iter = 400,
                          burnin = 100, chains = 3, progress = FALSE)
  # the chains label the components differently: label switching to undo
  z <- partition_draws(fit)
  first <- vapply(1:3, function(c) z[which(attr(z, "chain") == c)[1], 1], integer(1))
  expect_gt(length(unique(first)), 1L)
  # the posterior partition is the truth (separation of 8 sd)
  expect_true(all(apply(z, 1L, function(r) length(unique(paste(r, truth))) == 3L)))
  set.seed(32)
  cd <- component_draws(fit)
  expect_s3_class(cd, "mcmix_component_draws")
  S <- nrow(z)
  expect_equal(dim(cd$params$mean), c(S, 3L, 1L))
  expect_equal(dim(cd$params$cov), c(S, 3L, 1L, 1L))
  expect_equal(dim(cd$weights), c(S, 3L))
  expect_equal(rowSums(cd$weights), rep(1, S))
  # after relabelling every draw of every chain has the pivot's labels
  est <- colMeans(cd$params$mean[, , 1])
  k_of <- vapply(1:3, function(j) which.min(abs(est - mu[j])), integer(1))
  expect_setequal(k_of, 1:3)
  for (j in 1:3) {
    k <- k_of[j]
    m <- cd$params$mean[, k, 1]
    # exact conditional posterior given the true allocation (= the sampled one)
    ex <- niw_mean_posterior(x[truth == j], fit$family)
    mcse <- ex[["sd"]] / sqrt(S)            # parameters drawn independently per draw
    expect_lt(abs(mean(m) - ex[["mean"]]), 4 * mcse)
    expect_lt(abs(sd(m) / ex[["sd"]] - 1), 0.1)
    expect_lt(abs(mean(m) - mu[j]), 4 * ex[["sd"]])     # the true mean
    # every chain agrees once relabelled
    for (c in 1:3) expect_lt(abs(mean(m[cd$chain == c]) - ex[["mean"]]), 5 * ex[["sd"]] / sqrt(S / 3))
    # weights: Dirichlet(alpha / K + n_k)
    a <- fit$model$alpha
    expect_lt(abs(mean(cd$weights[, k]) - (a[1] + n[j]) / (sum(a) + sum(n))), 0.01)
    # sizes and the relabelled allocation
    expect_true(all(cd$sizes[, k] == n[j]))
  }
  # without relabelling the chains disagree on component 1
  set.seed(32)
  raw <- component_draws(fit, relabel = "none")
  expect_null(raw$permutations)
  by_chain <- tapply(raw$params$mean[, 1, 1], raw$chain, mean)
  expect_gt(diff(range(by_chain)), 5)
  expect_output(print(cd), "relabelled \\(ECR\\)")
})

test_that("the assignment solver finds the best permutation", {
  set.seed(33)
  perms <- function(v) if (length(v) <= 1L) list(v) else
    do.call(c, lapply(seq_along(v), function(i) lapply(perms(v[-i]), function(p) c(v[i], p))))
  for (K in 2:5) {
    all_p <- perms(seq_len(K))
    for (r in 1:5) {
      C <- matrix(rpois(K * K, 5), K, K)
      p <- mcmix:::assignment_max(C)
      best <- max(vapply(all_p, function(q) sum(C[cbind(seq_len(K), q)]), numeric(1)))
      expect_equal(sort(p), seq_len(K))
      expect_equal(sum(C[cbind(seq_len(K), p)]), best)
    }
  }
})

test_that("component_draws() of a DP mixture: weights given the partition", {
  set.seed(34)
  x <- c(rnorm(40, -6), rnorm(40, 6))
  fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 2), x, iter = 200,
                          burnin = 50, progress = FALSE)
  set.seed(35)
  cd <- component_draws(fit)
  expect_identical(cd$kind, "dp")
  K <- rowSums(!is.na(cd$weights))
  expect_equal(K, unname(fit$chains[[1]]$traces[, "n_clusters"]))
  expect_equal(rowSums(cd$weights, na.rm = TRUE) + cd$rest, rep(1, nrow(cd$weights)))
  # sizes in decreasing order; E[rest] = alpha / (alpha + N) given the partition
  expect_true(all(apply(cd$sizes, 1L, function(s) !is.unsorted(rev(s[!is.na(s)])))))
  expect_lt(abs(mean(cd$rest) - 2 / 82), 4 * sqrt(2 * 80 / (82^2 * 83)) / sqrt(200) + 0.002)
  expect_error(component_draws(sample_mh(function(x) -x^2, init = 0, iter = 5, burnin = 0,
                                         progress = FALSE)),
               "`fit` must be a fit of a finite_mixture\\(\\) or dp_mixture\\(\\)")
  expect_error(component_draws(fit, relabel = "stephens"), "`relabel`")
  expect_error(component_draws(sample_posterior(finite_mixture(gaussian_niw(), K = 2), x,
                                                iter = 5, progress = FALSE),
                               pivot = 1:3), "`pivot`")
})

test_that("predict() of a probit fit agrees with the probit MLE under a flat prior", {
  set.seed(36)
  d <- data.frame(x = rnorm(400), f = factor(sample(c("a", "b"), 400, TRUE)))
  d$y <- as.integer(0.3 + d$x - 0.5 * (d$f == "b") + rnorm(400) > 0)
  fit <- probit_gibbs(y ~ x + f, data = d, prior_cov = 1e4, iter = 2000, burnin = 200,
                      progress = FALSE)
  nd <- data.frame(x = c(-1, 0, 1), f = factor(c("a", "b", "a"), levels = c("a", "b")))
  p <- predict(fit, nd)
  ml <- stats::predict(stats::glm(y ~ x + f, data = d, family = binomial("probit")),
                       nd, type = "response")
  expect_named(p, c("fit", "lower", "upper"))
  expect_lt(max(abs(p$fit - ml)), 0.02)
  expect_true(all(p$lower < ml & ml < p$upper))
  lk <- predict(fit, nd, type = "link")
  expect_equal(colMeans(attr(lk, "draws")), lk$fit)
  expect_equal(p$fit, colMeans(stats::pnorm(attr(lk, "draws"))))
  expect_equal(nrow(predict(fit)), 400L)
  expect_error(predict(fit, cbind(1, 2)), "`newdata`")
  fit2 <- probit_gibbs(cbind(1, d$x), d$y, iter = 50, burnin = 10, progress = FALSE)
  expect_equal(nrow(predict(fit2, cbind(1, c(0, 1)))), 2L)
  expect_error(predict(fit2, cbind(1, 2, 3)), "`newdata` must have 2 columns")
})

test_that("predict() of an HDP fit is a density in every group and in a new group", {
  set.seed(37)
  groups <- list(a = c(rnorm(20, -4), rnorm(20)), b = c(rnorm(20), rnorm(20, 4)))
  fit <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)), groups,
                          iter = 60, burnin = 20, chains = 2, progress = FALSE)
  grid <- seq(-20, 20, by = 0.05)
  for (g in list(NULL, "a", 2)) {
    p <- predict(fit, grid, group = g)
    expect_equal(sum(p$density) * 0.05, 1, tolerance = 1e-3)
    expect_equal(dim(attr(p, "draws")), c(120L, length(grid)))
    expect_true(all(p$lower <= p$density & p$density <= p$upper))
  }
  pa <- predict(fit, c(-4, 4), group = "a")$density
  pb <- predict(fit, c(-4, 4), group = "b")$density
  expect_gt(pa[1], 5 * pa[2])
  expect_gt(pb[2], 5 * pb[1])
  expect_error(predict(fit, 0, group = "c"), "`group`")
  # beta is kept per draw without changing the draws
  set.seed(38)
  one <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)), groups,
                          iter = 30, burnin = 10, thin = 3, progress = FALSE)
  expect_length(one$chains[[1]]$extra, 10L)
  set.seed(38)
  short <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)), groups,
                            iter = 15, burnin = 10, thin = 3, progress = FALSE)
  long <- extend(short, 15)
  expect_identical(long$chains[[1]]$labels, one$chains[[1]]$labels)
  expect_equal(long$chains[[1]]$traces, one$chains[[1]]$traces, tolerance = 1e-12)
  expect_equal(long$chains[[1]]$extra, one$chains[[1]]$extra, tolerance = 1e-12)
})

test_that("held-out perplexity of LDA by document completion", {
  # one topic: theta = 1, so the perplexity is exp(-mean log phi_w) of the
  # scored (second-half) tokens
  docs <- list(c(1, 1, 2, 3), c(2, 2, 3, 3, 1), c(1, 3))
  set.seed(39)
  f1 <- sample_posterior(lda_model(K = 1, alpha = 1, beta = 0.5), docs, iter = 20,
                         progress = FALSE)
  phi <- topic_word(f1)[1, ]
  held <- list(c(3, 1, 1, 2), c(2, 3, 3))
  scored <- c(1, 2, 3, 3)
  expect_equal(as.numeric(perplexity(f1, held)), exp(-mean(log(phi[scored]))))
  expect_equal(attr(perplexity(f1, held), "n_tokens"), 4)
  # two well-separated topics: the fitted model beats one topic, and comes
  # close to the perplexity of the true model
  set.seed(40)
  W <- 20
  topics <- rbind(c(rep(0.1, 10), rep(0, 10)), c(rep(0, 10), rep(0.1, 10)))
  gen <- function(D) lapply(seq_len(D), function(d) {
    k <- sample(2, 1)
    sample(W, 30, replace = TRUE, prob = topics[k, ])
  })
  train <- gen(60)
  test <- gen(20)
  f2 <- sample_posterior(lda_model(K = 2, alpha = 0.1, beta = 0.01), train, iter = 200,
                         progress = FALSE)
  f1 <- sample_posterior(lda_model(K = 1, alpha = 0.1, beta = 0.01), train, iter = 50,
                         progress = FALSE)
  p2 <- perplexity(f2, test)
  expect_lt(p2, 11)             # true model: 10 equally likely words
  expect_gt(perplexity(f1, test), 18)
  dtm <- t(vapply(test, function(d) tabulate(d, W), numeric(W)))
  expect_true(is.finite(perplexity(f2, dtm)))
  expect_error(perplexity(f2, list(c(1, 25))), "vocabulary")
  expect_error(perplexity(f2, dtm[, 1:5]), "vocabulary")
})

test_that("component_draws() covariances follow the Normal-inverse-Wishart posterior", {
  set.seed(46)
  truth <- rep(1:2, c(50, 70))
  S <- matrix(c(1, 0.6, 0.6, 2), 2)
  x <- t(chol(S)) %*% matrix(rnorm(240), 2)
  x <- t(x) + rbind(c(-10, 0), c(10, 5))[truth, ]
  fit <- sample_posterior(finite_mixture(gaussian_niw(), K = 2), x, iter = 600,
                          burnin = 50, progress = FALSE)
  expect_true(all(apply(partition_draws(fit), 1L,
                        function(r) length(unique(paste(r, truth))) == 2L)))
  set.seed(47)
  cd <- component_draws(fit)
  a <- fit$family$family$args
  for (j in 1:2) {
    xj <- x[truth == j, , drop = FALSE]
    n <- nrow(xj)
    xb <- colMeans(xj)
    kn <- a$kappa + n
    Sn <- a$scale + crossprod(sweep(xj, 2L, xb)) +
      a$kappa * n / kn * tcrossprod(xb - a$prior_mean)
    ESigma <- Sn / (a$df + n - 2 - 1)                  # inverse-Wishart mean
    Emu <- (a$kappa * a$prior_mean + n * xb) / kn
    k <- which.min(abs(colMeans(cd$params$mean[, , 1]) - Emu[1]))
    draws <- cd$params$cov[, k, , ]
    se <- apply(draws, c(2, 3), sd) / sqrt(dim(draws)[1])
    expect_true(all(abs(apply(draws, c(2, 3), mean) - ESigma) < 4.5 * se))
    expect_true(all(abs(colMeans(cd$params$mean[, k, ]) - Emu) <
                    4.5 * apply(cd$params$mean[, k, ], 2, sd) / sqrt(600)))
  }
})
