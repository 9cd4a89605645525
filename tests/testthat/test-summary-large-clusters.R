# summary() of a mixture fit: the posterior of the number of clusters
# holding at least 1% of the observations, from the stored labels.

test_that("the clusters holding at least 1% of the observations are counted per draw", {
  set.seed(1)
  x <- c(rnorm(300), rnorm(300, 10))
  fit <- sample_posterior(dp_mixture(gaussian_mean()), x, iter = 6, burnin = 2,
                          chains = 2, progress = FALSE)
  # labels with known cluster sizes: 1% of 600 is 6 observations
  sizes <- list(c(300, 294, 5, 1),        # two of at least 6
                c(300, 300),              # two
                rep(100, 6),              # six
                c(594, 6),                # two: 6 is enough
                c(590, 5, 5),             # one
                c(200, 200, 194, 6))      # four
  lab <- t(vapply(sizes, function(s) rep(seq_along(s), s), integer(600)))
  fit$chains[[1]]$labels <- lab
  fit$chains[[2]]$labels <- lab[6:1, ]
  s <- summary(fit)
  k <- s$n_large_clusters
  expect_equal(attr(k, "min_size"), 6)
  expect_equal(attr(k, "n_obs"), 600L)
  expect_equal(names(k), c("1", "2", "4", "6"))
  expect_equal(as.numeric(k), c(2, 6, 2, 2) / 12)
  out <- capture.output(print(s))
  expect_true(any(grepl("at least 1% of the observations (6 or more of 600)", out, fixed = TRUE)))
})

test_that("no count of large clusters without labels or with 100 observations or fewer", {
  set.seed(2)
  x <- c(rnorm(150), rnorm(150, 8))
  f <- sample_posterior(dp_mixture(gaussian_mean()), x, iter = 5, burnin = 2,
                        progress = FALSE, labels = FALSE)
  expect_null(summary(f)$n_large_clusters)
  expect_false(any(grepl("at least 1%", capture.output(print(summary(f))))))
  g <- sample_posterior(dp_mixture(gaussian_mean()), x[1:100], iter = 5, burnin = 2,
                        progress = FALSE)
  expect_null(summary(g)$n_large_clusters)
  expect_false(is.null(summary(g)$n_clusters))
})
