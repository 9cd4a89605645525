# Data frames as users have them (R/auto_family.R, data-scaled default
# priors in R/family_discrete.R, lca_probs(), predict(type = "membership"),
# cluster_profiles(), methods on peers' generics in R/zzz.R).

auto_families <- function(fam) vapply(fam$parts, `[[`, "", "name")

test_that("auto_family() reads airquality, Cars93 and survey from the values", {
  require_suggested("MASS")
  data("Cars93", package = "MASS", envir = environment())
  data("survey", package = "MASS", envir = environment())
  fa <- auto_family(airquality, quiet = TRUE)
  expect_identical(unname(auto_families(fa)[c("Ozone", "Solar.R", "Wind", "Temp")]),
                   rep("gaussian_diag", 4))
  expect_identical(fa$parts$Month$name, "categorical_dirichlet")   # 5 codes
  expect_identical(fa$parts$Day$name, "poisson_gamma")   # 1 to 31, mean 15.8
  expect_match(fa$auto$reason[fa$auto$column == "Day"], "overdispersed")
  expect_output(expect_message(fc <- auto_family(Cars93),
                               "dropped `Manufacturer`, `Model`, `Make`"),
                "identifier-like: 93 values in 93 rows")
  expect_false(any(c("Manufacturer", "Model", "Make") %in% names(fc$parts)))
  expect_identical(fc$drop, c("Manufacturer", "Model", "Make"))
  # 32 manufacturers in 93 rows: too many levels, kept when named
  expect_identical(fc$auto$reason[1], "too many levels: 32 in 93 rows")
  expect_identical(fc$auto$override[1], "categorical = \"Manufacturer\"")
  expect_message(auto_family(Cars93), "; `categorical = \"Manufacturer\"` keeps it\\.")
  fk <- auto_family(Cars93, categorical = "Manufacturer", quiet = TRUE)
  expect_identical(fk$parts$Manufacturer$name, "categorical_dirichlet")
  expect_identical(fc$parts$Passengers$name, "categorical_dirichlet")   # 2 and 4 to 8
  expect_false("poisson_gamma" %in% auto_families(fc))
  expect_identical(fc$parts$Horsepower$name, "gaussian_diag")
  expect_identical(fc$parts$Weight$name, "gaussian_diag")
  expect_identical(fc$parts$Type$name, "categorical_dirichlet")
  expect_identical(fc$parts$Origin$name, "bernoulli_beta")
  fs <- auto_family(survey, quiet = TRUE)
  expect_identical(fs$parts$Pulse$name, "gaussian_diag")
  expect_identical(fs$parts$Sex$name, "bernoulli_beta")
  expect_identical(fs$parts$Smoke$name, "categorical_dirichlet")
  # print(): one line per column with its family, reason and override
  out <- capture.output(print(fa))
  expect_length(grep("^  (Ozone|Solar.R|Wind|Temp|Month|Day) ", out), 6L)
  expect_match(out[grep("^  Temp ", out)], "gaussian_diag .*mean 77.9 > 20.*\\[count = \"Temp\"\\]")
})

test_that("auto_family() rules: counts, codes, identifiers, dates and overrides", {
  set.seed(1)
  n <- 60
  df <- data.frame(cnt = rpois(n, 3), big = rpois(n, 80), over = rnbinom(n, size = 0.5, mu = 5),
                   id = seq_len(n), name = paste0("r", seq_len(n)), const = 2,
                   two = rep(c(3, 7), n / 2), day = as.Date("2024-01-01") + seq_len(n),
                   x = rnorm(n))
  fam <- suppressMessages(auto_family(df, quiet = TRUE))
  expect_identical(auto_families(fam),
                   c(cnt = "poisson_gamma", big = "gaussian_diag", over = "poisson_gamma",
                     two = "bernoulli_beta", day = "gaussian_diag", x = "gaussian_diag"))
  expect_setequal(fam$drop, c("id", "name", "const"))
  expect_message(auto_family(df), "dropped `id`, `name`, `const`")
  expect_message(auto_family(df), "`day` converted to numbers \\(date")
  expect_message(auto_family(df), "`over`: counts more variable than one Poisson's, kept as")
  expect_match(fam$auto$reason[fam$auto$column == "over"],
               "^counts, overdispersed \\(var/mean [0-9.]+\\): Poisson within clusters$")
  # the family fits: dates as days, two-valued numbers as a binary factor
  prep <- mcmix:::family_prepare(fam, df)
  parts <- vapply(prep$family$resolved, `[[`, "", "label")
  day <- prep$x[, match("day", parts)]
  expect_equal(day, as.numeric(df$day))
  expect_equal(prep$x[, match("two", parts)], as.numeric(df$two == 7))
  # overrides by argument
  fo <- auto_family(df, count = "big", categorical = "two", continuous = "cnt",
                    drop = c("over", "day"), quiet = TRUE)
  expect_identical(auto_families(fo),
                   c(cnt = "gaussian_diag", big = "poisson_gamma", two = "categorical_dirichlet",
                     x = "gaussian_diag"))
  expect_identical(fo$auto$reason[fo$auto$column == "big"], "given (`count`)")
  expect_error(auto_family(df, count = "x"), "`count` names column `x`")
  expect_error(auto_family(df, count = "nope"), "`count` names a column that `data` does not have")
  expect_error(auto_family(df, count = "x", drop = "x"), "named in two overrides")
  expect_error(auto_family(df, drop = 1), "`drop`")
})

test_that("auto_family(): few whole numbers are codes unless shaped like counts", {
  fm <- auto_family(mtcars, quiet = TRUE)
  expect_identical(auto_families(fm)[c("cyl", "gear", "carb")],
                   c(cyl = "categorical_dirichlet", gear = "categorical_dirichlet",
                     carb = "poisson_gamma"))
  expect_identical(fm$as_factor$cyl, c(4, 6, 8))
  expect_identical(fm$auto$reason[fm$auto$column == "cyl"], "whole, 3 distinct values: codes")
  # the boundaries of the rule: 0 / 1 start, half of the range filled, 12 rows
  codes <- function(v) auto_families(auto_family(data.frame(v = v), quiet = TRUE))[["v"]]
  expect_identical(codes(rep(c(0, 1, 2, 3, 1, 0), 2)), "poisson_gamma")
  expect_identical(codes(rep(c(2, 3, 4, 2, 3, 3), 2)), "categorical_dirichlet")   # starts at 2
  expect_identical(codes(rep(c(1, 2, 7, 1, 2, 1), 2)), "categorical_dirichlet")   # 3 of 1..7
  expect_identical(codes(rep(c(1, 2, 6, 1, 2, 1), 2)), "poisson_gamma")   # 3 of 1..6
  expect_identical(codes(rep(c(0, 1, 2, 5, 1, 0), 2)), "poisson_gamma")   # 4 of 0..5
  expect_identical(codes(c(4, 6, 8, 4, 6)), "poisson_gamma")   # too few rows for codes
  # few levels or many rows per level: kept
  many <- function(n, k) auto_families(auto_family(
    data.frame(f = factor(rep_len(seq_len(k), n)), x = seq_len(n) / 7), quiet = TRUE))
  expect_identical(many(49, 10)[["f"]], "categorical_dirichlet")    # not more than 10 levels
  expect_identical(many(55, 11)[["f"]], "categorical_dirichlet")    # 5 rows per level
  expect_false("f" %in% names(many(54, 11)))
})

# Three groups: a normal, a category and a Poisson count with means 1, 5
# and 10 (the counts are overdispersed as a whole: var / mean about 3.6).
three_groups <- function(n_per) {
  g <- rep(1:3, each = n_per)
  df <- data.frame(num = stats::rnorm(3 * n_per, c(-3, 0, 3)[g]),
                   col = factor(c("a", "b", "c")[g]),
                   cnt = stats::rpois(3 * n_per, c(1, 5, 10)[g]))
  df$num[c(5, 3 * n_per - 7)] <- NA
  df$col[c(11, n_per + 3)] <- NA
  df$cnt[c(2 * n_per + 1, 17)] <- NA
  df
}

test_that("overdispersed small counts stay Poisson: three groups give three clusters", {
  set.seed(3)
  df <- three_groups(1000)
  fam <- auto_family(df, quiet = TRUE)
  expect_identical(fam$parts$cnt$name, "poisson_gamma")
  set.seed(3)
  fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE)), df, progress = FALSE)
  p <- partition(fit)
  big <- p$sizes[p$sizes >= 0.01 * nrow(df)]
  expect_length(big, 3L)
  # each group is (nearly all) one cluster
  tab <- table(p$labels, rep(1:3, each = 1000))
  expect_true(all(apply(tab, 2, max) >= 990))
})

test_that("default priors are scaled to the data by their documented formulas", {
  x <- c(2000, 3100, 2800, 4000)
  r <- mcmix:::family_prepare(poisson_gamma(), x)$family$args
  expect_equal(c(r$shape, r$rate), c(1, 1 / mean(x)))
  r <- mcmix:::family_prepare(poisson_gamma(shape = 3), cbind(x, 0))$family$args
  expect_equal(r$rate, c(3 / mean(x), 3))
  b <- c(1, 0, 0, 0, 1, 0, 0)
  r <- mcmix:::family_prepare(bernoulli_beta(), b)$family$args
  p <- (2 + 0.5) / (7 + 1)
  expect_equal(c(r$a, r$b), c(2 * p, 2 * (1 - p)))
  f <- factor(c("a", "b", "b", "c", "b", "b"))
  r <- mcmix:::family_prepare(categorical_dirichlet(), f)$family$args
  expect_equal(r$alpha, 3 * (c(1, 4, 1) + 0.5) / (6 + 1.5))
  # explicit values are kept
  expect_equal(mcmix:::family_prepare(bernoulli_beta(1, 1), b)$family$args$a, 1)
  # the closed form with the data-scaled prior: Poisson-Gamma marginal
  lml <- mcmix:::.family_eval(poisson_gamma(), x, "log_marginal")
  a <- 1; bb <- 1 / mean(x)
  expect_equal(lml, a * log(bb) - lgamma(a) + lgamma(a + sum(x)) - (a + sum(x)) * log(bb + 4) -
                 sum(lgamma(x + 1)), tolerance = 1e-10)
})

test_that("all 27 columns of Cars93 reach more than 2 clusters", {
  require_suggested("MASS")
  data("Cars93", package = "MASS", envir = environment())
  set.seed(93)
  fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE)), Cars93, iter = 200,
                          progress = FALSE)
  k <- fit$chains[[1]]$traces[, "n_clusters"]
  expect_gt(min(k), 2)
  p <- partition(fit)
  expect_gt(p$n_clusters, 2)
  # profiles: one row per cluster, the data's names
  pr <- cluster_profiles(fit, estimate = p, draws = 50)
  expect_identical(nrow(pr), p$n_clusters)
  expect_identical(pr$size, p$sizes)
  expect_true(all(c("Price", "Horsepower", "Type=Van", "Origin=non-USA") %in% names(pr)))
  expect_false(any(c("Make", "Model") %in% names(pr)))
})

test_that("lca(K = 2) on survey reports 2 classes; its mode is poLCA's MLE", {
  require_suggested("MASS")
  require_suggested("poLCA")
  data("survey", package = "MASS", envir = environment())
  sv <- survey[, c("Sex", "W.Hnd", "Fold", "Clap", "Exer", "Smoke", "M.I")]
  set.seed(1)
  ml <- poLCA::poLCA(cbind(Sex, W.Hnd, Fold, Clap, Exer, Smoke, M.I) ~ 1, sv, nclass = 2,
                     verbose = FALSE, nrep = 5, na.rm = FALSE)
  set.seed(2)
  fit <- lca(sv, K = 2, iter = 300, progress = FALSE)
  p <- lca_probs(fit)
  expect_identical(p$K, 2L)
  expect_identical(dim(p$membership), c(nrow(sv), 2L))
  expect_equal(unname(rowSums(p$membership)), rep(1, nrow(sv)), tolerance = 1e-12)
  expect_identical(p$class, max.col(p$membership, ties.method = "first"))
  expect_identical(colnames(p$mean$Smoke), levels(sv$Smoke))
  expect_true(all(p$weights[, "lower"] <= p$weights[, "mean"] &
                    p$weights[, "mean"] <= p$weights[, "upper"]))
  for (m in p$mean) expect_equal(unname(rowSums(m)), c(1, 1), tolerance = 1e-10)
  # the posterior mode (EM from the posterior memberships and from random
  # starts) under the uniform priors is the maximum likelihood estimate
  err <- function(o) max(abs(p$mode$weights[o] - ml$P),
                         unlist(Map(function(a, b) abs(a[o, ] - b), p$mode$probs, ml$probs)))
  expect_lt(min(err(1:2), err(2:1)), 0.1)
  expect_equal(p$mode$log_lik, ml$llik, tolerance = 1e-4)
  # no internal names in any output
  outs <- c(capture.output(print(p)), capture.output(print(component_draws(fit))))
  expect_false(any(grepl("..cache|\\[[0-9]+\\]", outs)))
  expect_true(any(grepl("Smoke.prob=Never", outs)))
  expect_null(component_draws(fit)$params[["Sex..cache"]])
})

test_that("memberships sum to 1 with a new-cluster column; class and uncertainty", {
  x <- c(-5.2, -5, -4.8, 4.9, 5, 5.3, 5.1)
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.05, df = 3, scale = 0.1)
  set.seed(5)
  fit <- sample_posterior(dp_mixture(fam, alpha = 1), x, iter = 200, progress = FALSE)
  est <- partition(fit)
  newx <- c(-5, 5, 40)
  m <- predict(fit, newx, type = "membership", estimate = est)
  expect_identical(colnames(m), c("cluster1", "cluster2", "new"))
  expect_equal(unname(rowSums(m)), rep(1, 3), tolerance = 1e-12)
  expect_gt(m[3, "new"], 0.95)
  cl <- predict(fit, newx, type = "class", estimate = est)
  expect_identical(cl[1:2], est$labels[c(1, 4)])
  expect_equal(predict(fit, newx, type = "uncertainty", estimate = est), 1 - apply(m, 1, max))
})

test_that("predict() without newdata: memberships of the fitted rows, named by the data's rows", {
  df <- data.frame(a = c(-5.2, -5, -4.8, 4.9, 5, 5.3, 5.1, 0.2),
                   b = factor(c("x", "x", "x", "y", "y", "y", "y", "z")),
                   n = c(0L, 1L, 0L, 4L, 5L, 3L, NA, 2L),
                   row.names = paste0("r", 1:8))
  set.seed(5)
  fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE), alpha = 1), df, iter = 60,
                          progress = FALSE)
  est <- partition(fit)
  C <- est$n_clusters
  m <- predict(fit, type = "membership", estimate = est)
  # the definition, row by row: the share of row i's draw cluster in each c
  z <- partition_draws(fit)
  ref <- matrix(0, 8, C)
  for (s in seq_len(nrow(z))) for (i in 1:8) {
    members <- which(z[s, ] == z[s, i])
    ref[i, ] <- ref[i, ] + tabulate(est$labels[members], C) / length(members)
  }
  expect_equal(unname(m[, seq_len(C)]), ref / nrow(z), tolerance = 1e-12)
  expect_identical(dimnames(m), list(rownames(df), c(paste0("cluster", seq_len(C)), "new")))
  expect_identical(unname(m[, "new"]), rep(0, 8))
  expect_equal(unname(rowSums(m)), rep(1, 8), tolerance = 1e-12)
  cl <- predict(fit, type = "class", estimate = est)
  expect_identical(names(cl), rownames(df))
  expect_identical(unname(cl), max.col(ref, ties.method = "first"))
  expect_identical(names(predict(fit, type = "uncertainty", estimate = est)), rownames(df))
  expect_identical(rownames(predict(fit, df[c("r2", "r6"), ], type = "membership",
                                    estimate = est)), c("r2", "r6"))
  expect_error(predict(fit, type = "density"), "`newdata` is missing")
  # automatic row names are left off
  df2 <- df
  rownames(df2) <- NULL
  set.seed(5)
  fit2 <- sample_posterior(dp_mixture(auto_family(quiet = TRUE), alpha = 1), df2, iter = 20,
                           progress = FALSE)
  expect_null(rownames(predict(fit2, type = "membership")))
  # plot_clusters() names the axes by the data frame's columns
  expect_identical(mcmix:::fit_data_names(fit), c("a", "b=x", "b=y", "b=z", "n"))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot_clusters(fit, estimate = est), est)
  # a data frame without rows or columns, a partition field that is no name:
  # refused naming the argument
  expect_error(plot_clusters(fit, data = data.frame()), "`data`", class = "mcmix_error_input")
  expect_error(plot_clusters(fit, data = data.frame(x = numeric(0))), "`data`",
               class = "mcmix_error_input")
  for (nm in list(NULL, NA, 0.5, 1e300))
    expect_error(getS3method("$", "mcmix_partition")(est, nm), "`name`",
                 class = "mcmix_error_input")
})

test_that("plot_clusters() on a data-frame fit: axes named by the columns, a legend of the clusters", {
  set.seed(2)
  df <- data.frame(len = c(rnorm(15, -4), rnorm(15, 4)), wid = c(rnorm(15, 0), rnorm(15, 6)),
                   kind = factor(rep(c("u", "v"), each = 15)), ht = rnorm(30))
  fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE), alpha = 1), df, iter = 40,
                          progress = FALSE)
  est <- partition(fit)
  # the strings drawn on the device (the display list's text)
  drawn <- function(expr) {
    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off())
    grDevices::dev.control("enable")
    force(expr)
    dl <- grDevices::recordPlot()[[1L]]
    unique(unlist(lapply(dl, function(e) Filter(is.character, as.list(e[[2L]])))))
  }
  legend_text <- c("cluster", paste0(seq_len(est$n_clusters), " (", est$sizes, ")"))
  txt <- drawn(plot_clusters(fit, estimate = est))   # the pairs plot
  expect_true(all(c("len", "wid", "kind=v", "ht") %in% txt))
  expect_false(any(grepl("^x[0-9]", txt)))
  expect_true(all(legend_text %in% txt))
  # the user's data frame as `data`: one panel per column, named
  txt <- drawn(plot_clusters(fit, data = df, estimate = est))
  expect_true(all(c("len", "wid", "kind", "ht", legend_text) %in% txt))
  # two columns: a scatter plot with named axes and the legend
  txt <- drawn(plot_clusters(fit, data = df[c("len", "wid")], estimate = est))
  expect_true(all(c("len", "wid", legend_text) %in% txt))
})

test_that("cluster_profiles() is a wide data frame that subsets and converts", {
  set.seed(7)
  df <- data.frame(age = c(rnorm(20, 30, 3), rnorm(20, 60, 3)),
                   smoker = rep(c(TRUE, FALSE), each = 20))
  fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE)), df, iter = 100,
                          progress = FALSE)
  est <- rep(1:2, each = 20)
  pr <- cluster_profiles(fit, estimate = est, draws = 50)
  expect_identical(names(pr), c("cluster", "size", "age", "smoker=TRUE"))
  expect_identical(pr$size, c(20L, 20L))
  long <- attr(pr, "long")
  expect_s3_class(long, "mcmix_profiles_long")
  expect_equal(pr$age, long$mean[long$column == "age"])
  expect_s3_class(cluster_profiles(fit, estimate = est, draws = 5, format = "long"),
                  "mcmix_profiles_long")
  expect_output(print(pr[, c("cluster", "age")]), "age")
  expect_output(print(pr[2, ]), "Cluster profiles: 1 cluster")
  d <- as.data.frame(pr)
  expect_identical(class(d), "data.frame")
  expect_null(attr(d, "long"))
  expect_output(print(pr), "^Cluster profiles: 2 clusters")
  expect_error(cluster_profiles(fit, format = "tall"), "`format`")
})

test_that("partition(fit) works with BNPmix attached after mcmix", {
  skip_if_not_installed("BNPmix")
  set.seed(3)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), c(rnorm(10, -3), rnorm(10, 3)),
                          iter = 50, progress = FALSE)
  suppressPackageStartupMessages(library(BNPmix))
  on.exit(detach("package:BNPmix"), add = TRUE)
  # as typed at the console: `partition` found on the search path
  user <- list2env(list(fit = fit), parent = globalenv())
  expect_identical(environment(get("partition", envir = user)), asNamespace("BNPmix"))
  p <- evalq(partition(fit), user)
  expect_s3_class(p, "mcmix_partition")
  expect_identical(p$labels, mcmix::partition(fit)$labels)
})
