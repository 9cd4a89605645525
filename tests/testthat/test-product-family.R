# Product families (src/family_product.c, R/product_family.R): closed forms,
# exact posterior by enumeration with and without missing entries, data
# frames and the automatic choice of parts.

test_that("the product's log marginal is the sum of its parts' closed forms", {
  df <- tb_mixed(12, 11)
  prep <- mcmix:::family_prepare(tb_family(), df)
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_marginal"), tb_lml_mixed(df),
               tolerance = 1e-10)
  # and the sum of the parts evaluated through their own descriptors
  parts <- c(
    mcmix:::.family_eval(gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                         df[c("x1", "x2")], "log_marginal"),
    mcmix:::.family_eval(categorical_dirichlet(alpha = 1), df$cat, "log_marginal"),
    mcmix:::.family_eval(bernoulli_beta(), as.numeric(df$bin), "log_marginal"))
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_marginal"), sum(parts), tolerance = 1e-10)
  # missing entries contribute nothing: the closed forms on the observed values
  df$x1[c(2, 7)] <- NA
  df$cat[3] <- NA
  df$bin[c(3, 9)] <- NA
  prep <- mcmix:::family_prepare(tb_family(), df)
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_marginal"), tb_lml_mixed(df),
               tolerance = 1e-10)
  # predictive = difference of log marginals, also for a partly missing row
  new <- df[c(2, 3, 5), ]
  lp <- mcmix:::.family_eval(prep, NULL, "log_predictive", new)
  expect_equal(lp, vapply(1:3, function(i) tb_lml_mixed(rbind(df, new[i, ])) - tb_lml_mixed(df), 0),
               tolerance = 1e-10)
  # stats survive random add/remove exactly
  ar <- mcmix:::.family_eval(prep, NULL, "add_remove", 2000)
  expect_lt(ar[["log_marginal"]], 1e-9)
})

test_that("missing entries inside a multi-column gaussian_diag part are skipped per coordinate", {
  df <- tb_mixed(10, 12)
  df$x1[4] <- NA
  df$x2[c(1, 4, 8)] <- NA
  fam <- product_family(num = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                        cat = categorical_dirichlet(), bin = bernoulli_beta(),
                        .columns = list(num = c("x1", "x2")))
  prep <- mcmix:::family_prepare(fam, df)
  expect_equal(prep$dim, 2L + 3L + 1L)
  # the default priors of the categorical and binary parts are scaled to the
  # data (categorical_dirichlet(), bernoulli_beta()): the closed forms with
  # those hyperparameters
  cnt <- as.vector(table(df$cat))
  alpha <- 3 * (cnt + 0.5) / (sum(cnt) + 1.5)
  bin <- as.numeric(df$bin)
  p <- (sum(bin) + 0.5) / (length(bin) + 1)
  exact <- tb_lml_nig(df$x1, 0, 0.5, 2, 1) + tb_lml_nig(df$x2, 0, 0.5, 2, 1) +
    tb_lml_cat(df$cat, alpha) + tb_lml_bern(bin, 2 * p, 2 * (1 - p))
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_marginal"), exact, tolerance = 1e-10)
  # with the uniform priors of tb_family()
  fam1 <- product_family(num = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                         cat = categorical_dirichlet(1), bin = bernoulli_beta(1, 1),
                         .columns = list(num = c("x1", "x2")))
  expect_equal(mcmix:::.family_eval(mcmix:::family_prepare(fam1, df), NULL, "log_marginal"),
               tb_lml_mixed(df), tolerance = 1e-10)
})

# Exact posterior over the 4140 partitions of 8 rows under a DP(1) prior.
tb_exact <- function(df) {
  n <- nrow(df)
  P <- mx_partitions(n)
  # the log marginal of every subset of rows, indexed by its bitmask
  lml <- vapply(seq_len(2^n - 1), function(b) tb_lml_mixed(df[bitwAnd(b, 2^(0:(n - 1))) > 0, ]), 0)
  ll <- apply(P, 1L, function(z)
    sum(lml[vapply(split(seq_along(z), z), function(i) sum(2^(i - 1)), 0)]))
  list(P = P, p = mx_posterior(P, ll, apply(P, 1L, mx_lprior_dp, alpha = 1)))
}

# Exact and sampled co-clustering probabilities.
tb_psm_exact <- function(P, p) {
  n <- ncol(P)
  Reduce(`+`, lapply(seq_len(nrow(P)), function(r) p[r] * outer(P[r, ], P[r, ], `==`)))
}

test_that("every DP algorithm matches the exact posterior of a mixed table, with and without missing entries", {
  df <- tb_mixed(8, 1)
  dfm <- df
  dfm$x1[2] <- NA
  dfm$cat[3] <- NA
  dfm$bin[5] <- NA
  dfm$x2[5] <- NA
  for (d in list(df, dfm)) {
    ex <- tb_exact(d)
    psm <- tb_psm_exact(ex$P, ex$p)
    top <- which.max(ex$p)
    for (alg in c("collapsed", "neal8", "slice", "split_merge")) {
      r <- mx_check(dp_mixture(tb_family(), alpha = 1), d, ex$p, iter = 12000, thin = 2,
                    algorithm = alg, seed = 5)
      expect_lt(r$tv, r$bound)
      z <- partition_draws(r$fit)
      S <- nrow(z)
      # pairwise co-clustering: 5 s.e. of a proportion, doubled for autocorrelation
      emp <- Reduce(`+`, lapply(seq_len(S), function(s) outer(z[s, ], z[s, ], `==`))) / S
      expect_lt(max(abs(emp - psm)), 10 * 0.5 / sqrt(S))
      f_top <- mean(mx_keys(z) == names(ex$p)[top])
      expect_lt(abs(f_top - ex$p[[top]]), 10 * sqrt(ex$p[[top]] * (1 - ex$p[[top]]) / S))
    }
  }
})

test_that("the collapsed finite mixture matches the exact posterior of a mixed table with missing entries", {
  d <- tb_mixed(7, 2)
  d$x2[c(1, 4)] <- NA
  d$cat[6] <- NA
  P <- mx_partitions(7)
  p <- mx_posterior(P, log(tb_exact(d)$p), apply(P, 1L, mx_lprior_finite, K = 3, a = 1 / 3) -
                      apply(P, 1L, mx_lprior_dp, alpha = 1))
  r <- mx_check(finite_mixture(tb_family(), K = 3, alpha = 1), d, p, iter = 12000,
                thin = 2, seed = 6)
  expect_lt(r$tv, r$bound)
  top <- which.max(p)
  f_top <- mean(mx_keys(partition_draws(r$fit)) == names(p)[top])
  expect_lt(abs(f_top - p[[top]]), 10 * sqrt(p[[top]] * (1 - p[[top]]) / 6000))
})

test_that("finite mixtures and predict() work with product families", {
  df <- tb_mixed(30, 3)
  df$x1[c(1, 9)] <- NA
  set.seed(4)
  fit <- sample_posterior(finite_mixture(tb_family(), K = 3), df, iter = 100,
                          algorithm = "gibbs", progress = FALSE)
  expect_s3_class(fit, "mcmix_mixture_fit")
  pr <- predict(fit, df[1:3, ])
  expect_true(all(is.finite(pr$density) & pr$density > 0))
  expect_error(predict(fit, df[1:3, 1:2]), "newdata")
})

test_that("a plugin family is a part of a product family", {
  ns <- install_test_plugin("mcmixexpgamma")
  df <- tb_mixed(30, 3)
  df$x1[c(1, 9)] <- NA
  set.seed(5)
  df$wait <- stats::rexp(30, ifelse(df$bin, 0.5, 5))
  fam <- product_family(x1 = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                        wait = ns$exponential_gamma(shape = 2, rate = 1))
  prep <- mcmix:::family_prepare(fam, df[c("x1", "wait")])
  a <- 2; b <- 1; w <- df$wait
  lml_exp <- a * log(b) - lgamma(a) + lgamma(a + length(w)) - (a + length(w)) * log(b + sum(w))
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_marginal"),
               tb_lml_nig(df$x1, 0, 0.5, 2, 1) + lml_exp, tolerance = 1e-10)
  fit <- sample_posterior(dp_mixture(fam), df[c("x1", "wait")], iter = 50, progress = FALSE,
                          algorithm = "split_merge")
  expect_true(all(is.finite(fit$chains[[1]]$traces)))
})

test_that("auto_family() picks families from column types and takes overrides", {
  df <- data.frame(h = c(1.7, 1.8, 1.6, 1.5), smoker = c(TRUE, FALSE, TRUE, NA),
                   sex = factor(c("f", "m", "m", "f")), region = c("N", "S", "E", "N"),
                   visits = c(0L, 3L, 1L, 2L), flag = c(0L, 1L, 1L, 0L))
  out <- capture.output(fam <- auto_family(df))
  expect_true(any(grepl("categorical_dirichlet", out)))
  expect_identical(vapply(fam$parts, `[[`, "", "name"),
                   c(h = "gaussian_diag", smoker = "bernoulli_beta", sex = "bernoulli_beta",
                     region = "categorical_dirichlet", visits = "poisson_gamma",
                     flag = "bernoulli_beta"))
  fam2 <- auto_family(df, h = gaussian_niw(), visits = NULL, quiet = TRUE)
  expect_identical(fam2$parts$h$name, "gaussian_niw")
  expect_false("visits" %in% names(fam2$parts))
  prep <- mcmix:::family_prepare(fam2, df)
  expect_equal(prep$dim, 1L + 1L + 1L + 3L + 1L)
  expect_error(auto_family(df, nope = gaussian_diag()), "nope")
  expect_error(auto_family(data.frame(a = I(list(1, 2)))), "`a`")
  # a model with auto_family() and no data chooses at fit time
  set.seed(2)
  df2 <- tb_mixed(20, 2)
  expect_output(fit <- sample_posterior(dp_mixture(auto_family()), df2, iter = 30,
                                        progress = FALSE), "gaussian_diag")
  expect_identical(fit$family$name, "product")
})

test_that("product families refuse bad parts and data with messages naming them", {
  expect_error(product_family(), "at least one")
  expect_error(product_family(gaussian_diag()), "named")
  expect_error(product_family(a = 1), "`a`")
  expect_error(product_family(a = gaussian_nonconj()), "conjugate")
  expect_error(product_family(a = gaussian_diag(), .columns = list(b = "x")), ".columns")
  df <- tb_mixed(10, 1)
  fam <- tb_family()
  expect_error(mcmix:::family_prepare(fam, df[1:3]), "bin")
  expect_error(mcmix:::family_prepare(fam, cbind(df, extra = 1)), "extra")
  expect_error(mcmix:::family_prepare(fam, 1:10), "data frame")
  # an unnamed matrix gives one column per part, in order
  m <- cbind(df$x1, df$x2, as.integer(df$cat), as.numeric(df$bin))
  prep_m <- mcmix:::family_prepare(fam, m)
  expect_equal(mcmix:::.family_eval(prep_m, NULL, "log_marginal"), tb_lml_mixed(df),
               tolerance = 1e-10)
  df$bin <- factor(sample(c("x", "y", "z"), 10, TRUE))
  expect_error(mcmix:::family_prepare(fam, df), "two")
  df <- tb_mixed(10, 1)
  df$x1 <- NA
  expect_error(mcmix:::family_prepare(fam, df), "x1")
  # a categorical count block partly missing cannot be skipped
  cnt <- data.frame(a = c(1, 2, NA, 0), b = c(0, 1, 2, 3))
  expect_error(mcmix:::family_prepare(
    product_family(k = categorical_dirichlet(), .columns = list(k = c("a", "b"))), cnt),
    "partly missing")
})

test_that("a Poisson + Bernoulli + categorical product with NA equals its closed forms", {
  df <- data.frame(cnt = c(0L, 3L, 1L, NA, 5L, 2L, 0L),
                   lgl = c(TRUE, NA, FALSE, TRUE, TRUE, FALSE, TRUE),
                   cat = factor(c("u", "v", "w", "u", NA, "w", "u"),
                                levels = c("u", "v", "w", "z")))
  fam <- product_family(cnt = poisson_gamma(shape = 2, rate = 0.5),
                        lgl = bernoulli_beta(a = 2, b = 3),
                        cat = categorical_dirichlet(alpha = 0.7))
  lml_pois <- function(x, a = 2, b = 0.5) {
    x <- x[!is.na(x)]
    a * log(b) - lgamma(a) + lgamma(a + sum(x)) - (a + sum(x)) * log(b + length(x)) -
      sum(lgamma(x + 1))
  }
  lml_cat <- function(cc, al = rep(0.7, 4))
    lgamma(sum(al)) - lgamma(sum(al) + sum(cc)) + sum(lgamma(al + cc) - lgamma(al))
  z <- df$lgl[!is.na(df$lgl)]
  cc <- as.numeric(table(df$cat))
  exact <- lml_pois(df$cnt) + lbeta(2 + sum(z), 3 + sum(!z)) - lbeta(2, 3) + lml_cat(cc)
  prep <- mcmix:::family_prepare(fam, df)
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_marginal"), exact, tolerance = 1e-10)
  # the predictive of a new row with a missing logical and an unseen category
  new <- data.frame(cnt = 4L, lgl = NA, cat = factor("z", levels = levels(df$cat)))
  cc2 <- cc + c(0, 0, 0, 1)
  expect_equal(mcmix:::.family_eval(prep, NULL, "log_predictive", new),
               lml_pois(c(df$cnt, 4L)) - lml_pois(df$cnt) + lml_cat(cc2) - lml_cat(cc),
               tolerance = 1e-10)
  # an all-NA column is refused by name; an all-NA row is accepted
  d2 <- df
  d2$none <- NA_real_
  expect_error(auto_family(d2, quiet = TRUE), "none")
  d3 <- df
  d3[2, ] <- NA
  set.seed(106)
  f3 <- sample_posterior(dp_mixture(fam), d3, iter = 30, progress = FALSE)
  expect_length(partition(f3)$labels, nrow(d3))
})
