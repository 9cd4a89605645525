# Conversions of fits to coda (as.mcmc.list), posterior (as.array) and
# summary tables: iteration numbers, chains and values carried over
# unchanged, checked against the draws themselves and against coda's and
# posterior's own functions; summaries survive saveRDS().

test_that("as.mcmc.list carries iterations and works with coda", {
  set.seed(1)
  fit <- run_kernel(diag_ar_kernel(), iter = 400, burnin = 100, thin = 2, chains = 3,
                    progress = FALSE)
  ml <- as.mcmc.list(fit)
  expect_s3_class(ml, "mcmc.list")
  expect_equal(coda::nchain(ml), 3L)
  expect_equal(coda::niter(ml), 200L)
  expect_equal(stats::start(ml), 102)
  expect_equal(coda::thin(ml), 2)
  expect_equal(coda::varnames(ml), c("theta1", "theta2"))
  expect_equal(unclass(ml[[2]])[, "theta2"], fit$chains[[2]]$traces[, "theta2"],
               ignore_attr = TRUE)
  g <- coda::gelman.diag(ml, autoburnin = FALSE)
  expect_equal(unname(g$psrf[, 1]), unname(rhat(fit, "classic")), tolerance = 1e-10)
  expect_length(coda::effectiveSize(ml), 2L)
  s <- summary(ml)
  expect_equal(unname(s$statistics[, "Mean"]),
               unname(colMeans(do.call(rbind, lapply(fit$chains, `[[`, "traces")))))
  m1 <- coda::as.mcmc(fit, chain = 2)
  expect_equal(stats::start(m1), 102)
  expect_error(coda::as.mcmc(fit), "as.mcmc.list")
  expect_error(coda::as.mcmc(fit, chain = 4), "`chain`")
})

test_that("as.array is accepted by posterior", {
  require_suggested("posterior")
  set.seed(2)
  fit <- run_kernel(diag_ar_kernel(), iter = 300, chains = 4, progress = FALSE)
  a <- as.array(fit)
  expect_equal(dim(a), c(300L, 4L, 2L))
  d <- posterior::as_draws_array(a)
  expect_equal(posterior::variables(d), c("theta1", "theta2"))
  expect_equal(posterior::nchains(d), 4L)
  expect_equal(unname(rhat(fit)), as.numeric(posterior::summarise_draws(d, "rhat")$rhat),
               tolerance = 1e-6)
  expect_equal(unname(a[, 3, "theta1"]), unname(fit$chains[[3]]$traces[, "theta1"]))
})

test_that("summary gives one row per trace and survives saveRDS", {
  set.seed(3)
  fit <- run_kernel(diag_ar_kernel(), iter = 500, chains = 2, progress = FALSE)
  f <- tempfile(fileext = ".rds")
  saveRDS(fit, f)
  fit2 <- readRDS(f)
  s <- summary(fit2)
  expect_s3_class(s, "summary.mcmix_fit")
  expect_equal(rownames(s$table), c("theta1", "theta2"))
  expect_named(s$table, c("mean", "sd", "2.5%", "50%", "97.5%", "rhat", "ess_bulk", "ess_tail"))
  x1 <- c(fit$chains[[1]]$traces[, 1], fit$chains[[2]]$traces[, 1])
  expect_equal(s$table$mean[1], mean(x1))
  expect_equal(s$table$sd[1], sd(x1))
  expect_equal(s$table[["97.5%"]][1], unname(quantile(x1, 0.975)))
  expect_equal(s$table$ess_bulk, unname(ess(fit)))
  out <- capture.output(print(s))
  expect_true(any(grepl("theta2", out)))
  expect_true(any(grepl("Chains", capture.output(print(fit2)))))
  expect_error(summary(fit, probs = 2), "`probs`")
})

test_that("mixture summaries show the distribution of the number of clusters", {
  set.seed(4)
  fit <- diag_toy_mixture_fit()
  s <- summary(fit)
  k <- unlist(lapply(fit$chains, function(ch) ch$traces[, "n_clusters"]))
  expect_equal(as.numeric(s$n_clusters), as.numeric(prop.table(table(k))))
  expect_true(any(grepl("number of clusters", capture.output(print(s)))))
})
