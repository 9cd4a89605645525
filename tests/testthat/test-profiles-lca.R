# Cluster profiles (R/profiles.R) and latent class analysis (R/lca.R).

test_that("cluster profiles summarise every column with the conjugate posterior", {
  set.seed(7)
  df <- data.frame(age = c(rnorm(25, 30, 3), rnorm(25, 60, 3)),
                   smoker = rep(c(TRUE, FALSE), each = 25),
                   region = factor(c(sample(c("N", "S"), 25, TRUE), rep("E", 25))))
  df$age[c(2, 30)] <- NA
  fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE)), df, iter = 300,
                          progress = FALSE)
  truth <- rep(1:2, each = 25)
  pr <- cluster_profiles(fit, estimate = truth, draws = 300, format = "long")
  expect_s3_class(pr, "mcmix_profiles_long")
  expect_setequal(unique(pr$column), c("age", "smoker", "region"))
  # observed summaries: means and proportions of the non-missing values
  a1 <- pr[pr$column == "age" & pr$cluster == 1, ]
  expect_equal(a1$observed, mean(df$age[1:25], na.rm = TRUE))
  s2 <- pr[pr$column == "smoker" & pr$cluster == 2, ]
  expect_identical(s2$category, "TRUE")
  expect_equal(s2$observed, 0)
  r2 <- pr[pr$column == "region" & pr$cluster == 2, ]
  expect_equal(sum(r2$observed), 1)
  # the category probabilities of a draw's matched cluster are
  # Dirichlet(alpha + counts), alpha the data-scaled default of
  # categorical_dirichlet(): 3 (n_k + 1/2) / (n + 3/2) over the whole table
  alpha <- 3 * (as.vector(table(df$region)) + 0.5) / (nrow(df) + 1.5)
  parts <- fit$family$family$resolved
  expect_equal(parts[[which(vapply(parts, `[[`, "", "label") == "region")]]$family$args$alpha,
               alpha)
  z <- partition_draws(fit)
  use <- unique(round(seq(1, nrow(z), length.out = 300)))
  r1 <- pr[pr$column == "region" & pr$cluster == 1, ]
  ex <- rowMeans(vapply(use, function(s) {
    k <- as.integer(names(which.max(table(z[s, 1:25]))))
    reg <- df$region[z[s, ] == k & !is.na(df$region)]
    a <- alpha[match(r1$category, levels(df$region))]
    (a + as.vector(table(reg)[r1$category])) / (sum(alpha) + length(reg))
  }, numeric(3)))
  expect_lt(max(abs(r1$mean - ex)), 4 * max(r1$sd) / sqrt(length(use)))
  expect_true(all(pr$lower <= pr$mean & pr$mean <= pr$upper))
  expect_output(print(pr), "Cluster profiles")
  pdf(NULL)
  expect_silent(plot(pr))
  expect_error(plot(pr, columns = "nope"), "columns")
  dev.off()
  expect_error(cluster_profiles(1), "fit")
  expect_error(cluster_profiles(fit, level = 3), "level")
})

test_that("LCA on poLCA's carcinoma data agrees with poLCA's ML estimates", {
  require_suggested("poLCA")
  data("carcinoma", package = "poLCA", envir = environment())
  set.seed(3)
  ml <- poLCA::poLCA(cbind(A, B, C, D, E, F, G) ~ 1, carcinoma, nclass = 3,
                     verbose = FALSE, nrep = 5)
  mlp <- sapply(ml$probs, function(m) m[, 2])         # 3 classes x 7 raters
  set.seed(4)
  fit <- lca(carcinoma, K = 3, iter = 2000, progress = FALSE)
  expect_s3_class(fit, "mcmix_lca_fit")
  p <- lca_probs(fit)
  expect_length(p$sizes, 3L)
  post <- sapply(p$mean, function(m) m[, 2])
  sds <- sapply(p$sd, function(m) m[, 2])
  perms <- rbind(c(1, 2, 3), c(1, 3, 2), c(2, 1, 3), c(2, 3, 1), c(3, 1, 2), c(3, 2, 1))
  err <- apply(perms, 1L, function(o) sum((post[o, ] - mlp)^2))
  o <- perms[which.min(err), ]
  # posterior means within 3 posterior sds (+ the prior's pull at the boundary)
  expect_true(all(abs(post[o, ] - mlp) < 3 * sds[o, ] + 0.03))
  expect_equal(p$sizes[o] / nrow(carcinoma), as.vector(ml$P), tolerance = 0.1)
  # a DP number of classes runs too
  fit2 <- lca(carcinoma, iter = 100, progress = FALSE)
  expect_gte(length(lca_probs(fit2)$sizes), 1L)
  expect_error(lca(data.frame(a = c(0.5, 1.2))), "categorical")
})

test_that("the table front ends refuse bad input naming the argument", {
  expect_error(lca(1:5), "`data`")
  expect_error(lca(data.frame(a = c("x", "y", "x")), K = 0), "`K`")
  expect_error(auto_family(1), "`data`")
  expect_error(auto_family(data.frame(a = 1:3), quiet = NA), "`quiet`")
  expect_error(imputed_draws(1), "`fit`")
  expect_error(credible_ball("a"), "`x`")
  expect_error(cluster_profiles(1), "`fit`")
})

test_that("cluster profiles work for a single (non-product) family", {
  set.seed(9)
  x <- cbind(c(rnorm(20, -3), rnorm(20, 3)), c(rnorm(20, -3), rnorm(20, 3)))
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 100, progress = FALSE)
  pr <- cluster_profiles(fit, estimate = rep(1:2, each = 20), draws = 50, format = "long")
  expect_identical(unique(pr$column), c("x1", "x2"))
  expect_equal(pr$observed[pr$column == "x1"], c(mean(x[1:20, 1]), mean(x[21:40, 1])))
  expect_true(all(pr$parameter == "mean"))
})
