# labels = "online" for DP mixtures (R/mixture_online.R,
# src/mixture_online.c): the labels of an evenly spaced subsample and an
# online relabelled-mode estimate of the partition of every observation.
# The draws must be those of labels = FALSE; the subsample labels must be
# the columns of the full label draws; the online estimate must be the one
# the documented algorithm gives on the full label draws (computed here in
# R, independently of the C code); extend() and saveRDS() must continue it
# exactly.

# The relabelled mode of the help page of online_partition(), in plain R,
# from the label draws Z (draws x N, labels 1..K numbered as the engine
# keeps them): list(counts = N x L, mode = 1-based slots).
online_reference <- function(Z, max_slots) {
  N <- ncol(Z)
  counts <- matrix(0L, N, 0L)
  mode <- integer(N)                     # 0: no draw yet
  for (t in seq_len(nrow(Z))) {
    z <- Z[t, ]
    K <- max(z)
    size <- tabulate(z, K)
    L0 <- ncol(counts)
    map <- rep(NA_integer_, K)
    used <- logical(max_slots)
    tab <- matrix(0L, K, max(L0, 1L))
    if (L0 > 0L) {
      tab <- matrix(tabulate((z - 1L) * L0 + mode, K * L0), K, L0, byrow = TRUE)
      nz <- which(tab > 0L, arr.ind = TRUE)
      nz <- nz[order(-tab[nz], nz[, 1L], nz[, 2L]), , drop = FALSE]
      for (r in seq_len(nrow(nz))) {
        k <- nz[r, 1L]
        l <- nz[r, 2L]
        if (is.na(map[k]) && !used[l]) {
          map[k] <- l
          used[l] <- TRUE
        }
      }
    }
    holders <- tabulate(mode[mode > 0L], max(1L, ncol(counts)))
    un <- which(is.na(map))
    for (k in un[order(-size[un], un)]) {
      L <- ncol(counts)
      free <- which(!used[seq_len(L)] & holders[seq_len(L)] == 0L)
      if (length(free)) {
        l <- free[1L]
        counts[, l] <- 0L
      } else if (L < max_slots) {
        counts <- cbind(counts, 0L)
        l <- L + 1L
      } else {
        l <- if (L0 > 0L) which.max(tab[k, seq_len(L0)]) else 1L
      }
      map[k] <- l
      used[l] <- TRUE
    }
    s <- map[z]
    ij <- cbind(seq_len(N), s)
    counts[ij] <- counts[ij] + 1L
    cur <- ifelse(mode > 0L, counts[cbind(seq_len(N), pmax(mode, 1L))], -1L)
    upd <- s != mode & (mode == 0L | counts[ij] > cur)
    mode[upd] <- s[upd]
  }
  list(counts = counts, mode = mode)
}

online_data <- function() {
  set.seed(11)
  c(rnorm(60, -8), rnorm(50, 0, 0.7), rnorm(40, 8), rnorm(3, 20))
}

online_fit <- function(x, labels, iter = 80, burnin = 10, ...) {
  set.seed(12)
  sample_posterior(dp_mixture(gaussian_niw(), alpha = 2), x, iter = iter, burnin = burnin,
                   labels = labels, progress = FALSE, ...)
}

test_that("labels = \"online\" leaves the draws unchanged and keeps the subsample's labels", {
  x <- online_data()
  withr::local_options(mcmix.label_subsample = 40)
  on <- online_fit(x, "online")
  full <- online_fit(x, TRUE)
  none <- online_fit(x, FALSE)
  expect_identical(on$chains[[1]]$traces, none$chains[[1]]$traces)
  expect_identical(on$chains[[1]]$state$labels, none$chains[[1]]$state$labels)
  expect_false(on$settings$labels)
  expect_null(on$chains[[1]]$labels)
  idx <- on$settings$label_subset
  expect_identical(idx, as.integer(round(seq(1, length(x), length.out = 40))))
  Z <- partition_draws(full)
  expect_identical(on$chains[[1]]$labels_subset, unname(Z[, idx]))
  # psm(), partition() and credible_ball() work on the subsample and say so
  expect_message(P <- psm(on), "labels of 40 of its 153 observations")
  expect_equal(unname(P), unname(psm(Z[, idx])), ignore_attr = TRUE)
  expect_identical(attr(P, "subset"), idx)
  expect_equal(unname(suppressMessages(psm(on, subset = idx[3:5]))),
               unname(psm(Z[, idx[3:5]])), ignore_attr = TRUE)
  e <- expect_error(suppressMessages(psm(on, subset = 2)), class = "mcmix_error_input")
  expect_identical(e$arg, "subset")
  set.seed(3)
  expect_message(p_on <- partition(on), "the point estimate is for them only")
  set.seed(3)
  p_ref <- partition(Z[, idx])
  expect_identical(p_on$labels, p_ref$labels)
  expect_identical(p_on$subset, idx)
  expect_output(print(p_on), "the stored subsample")
  expect_message(cb <- credible_ball(on, estimate = p_on), "credible ball")
  expect_equal(cb$distances, credible_ball(Z[, idx], estimate = p_ref)$distances)
})

test_that("the online estimate is the relabelled mode of the label draws", {
  x <- online_data()
  full <- online_fit(x, TRUE)
  Z <- partition_draws(full)
  on <- online_fit(x, "online")
  o <- on$chains[[1]]$state$online
  ref <- online_reference(Z, on$kernel$spec$online$max_slots)
  expect_identical(mcmix:::online_counts(o), ref$counts)
  expect_type(o$counts, "raw")   # 16-bit counts (at most 65535 draws)
  expect_identical(o$mode + 1L, ref$mode)
  expect_identical(o$n_draws, 80)
  est <- online_partition(on)
  expect_s3_class(est, "mcmix_partition")
  expect_identical(est$labels, match(ref$mode, unique(ref$mode)))
  expect_equal(est$frequency, ref$counts[cbind(seq_along(x), ref$mode)] / 80)
  # well separated clusters: the estimate is the truth
  truth <- rep(1:4, c(60, 50, 40, 3))
  expect_identical(est$labels, truth)
  expect_output(print(est), "relabelled mode over 80 draws")
  # many clusters (K x slots > N: the overlaps are counted cluster by cluster)
  set.seed(12)
  many <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 200), x, iter = 20,
                           burnin = 2, labels = TRUE, progress = FALSE)
  set.seed(12)
  many_on <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 200), x, iter = 20,
                              burnin = 2, labels = "online", progress = FALSE)
  Zm <- partition_draws(many)
  refm <- online_reference(Zm, many_on$kernel$spec$online$max_slots)
  expect_gt(min(apply(Zm, 1L, max)) * ncol(refm$counts), length(x))
  expect_identical(mcmix:::online_counts(many_on$chains[[1]]$state$online), refm$counts)
  expect_identical(many_on$chains[[1]]$state$online$mode + 1L, refm$mode)
  # with only two slots (a tiny memory budget): unmatched clusters share
  # the slot of largest overlap, as documented
  withr::local_options(mcmix.memory_budget = 5000)
  on2 <- online_fit(x, "online")
  expect_identical(on2$kernel$spec$online$max_slots, 2L)
  ref2 <- online_reference(Z, 2L)
  expect_identical(mcmix:::online_counts(on2$chains[[1]]$state$online), ref2$counts)
  expect_identical(on2$chains[[1]]$state$online$mode + 1L, ref2$mode)
})

test_that("extend() and saveRDS() continue the online estimate exactly", {
  x <- online_data()
  long <- online_fit(x, "online", iter = 60)
  short <- online_fit(x, "online", iter = 25)
  f <- tempfile(fileext = ".rds")
  withr::defer(unlink(f))
  saveRDS(short, f)
  ext <- extend(readRDS(f), 35, progress = FALSE)
  expect_identical(ext$chains[[1]]$state$online, long$chains[[1]]$state$online)
  expect_identical(ext$chains[[1]]$labels_subset, long$chains[[1]]$labels_subset)
  expect_identical(ext$chains[[1]]$traces, long$chains[[1]]$traces)
  expect_identical(online_partition(ext), online_partition(long))
})

test_that("16-bit counts are widened before they could overflow, also across extend()", {
  x <- online_data()
  full <- online_fit(x, TRUE, iter = 60)
  ref <- online_reference(partition_draws(full), 64L)
  withr::local_options(mcmix.online_narrow_max = 30)   # instead of 65535
  long <- online_fit(x, "online", iter = 60)
  o <- long$chains[[1]]$state$online
  expect_type(o$counts, "integer")
  expect_identical(o$counts, ref$counts)
  expect_identical(o$mode + 1L, ref$mode)
  expect_equal(online_partition(long)$frequency,
               ref$counts[cbind(seq_along(x), ref$mode)] / 60)
  short <- online_fit(x, "online", iter = 25)
  expect_type(short$chains[[1]]$state$online$counts, "raw")
  ext <- extend(short, 35, progress = FALSE)
  expect_identical(ext$chains[[1]]$state$online, o)
})

test_that("several chains: the estimates are matched to the first chain and added", {
  x <- online_data()
  two <- online_fit(x, "online", iter = 30, chains = 2)
  est <- online_partition(two)
  expect_identical(est$n_draws, 60)
  a <- two$chains[[1]]$state$online
  b <- two$chains[[2]]$state$online
  # the slots of chain 2 relabelled to those of chain 1 by their overlap
  map <- mcmix:::online_match(b$mode + 1L, ncol(mcmix:::online_counts(b)), a$mode + 1L,
                              ncol(mcmix:::online_counts(a)))
  ac <- mcmix:::online_counts(a)
  bc <- mcmix:::online_counts(b)
  tot <- cbind(ac, matrix(0L, nrow(ac), max(0L, max(map) - ncol(ac))))
  for (l in seq_len(ncol(bc))) tot[, map[l]] <- tot[, map[l]] + bc[, l]
  m <- max.col(tot, ties.method = "first")
  expect_identical(est$labels, match(m, unique(m)))
  expect_identical(est$labels, rep(1:4, c(60, 50, 40, 3)))
  expect_equal(est$frequency, tot[cbind(seq_along(m), m)] / 60)
})

test_that("sub-cluster runs keep the same online estimate with any number of threads", {
  set.seed(60)
  mu <- rbind(c(-5, 0), c(5, 0), c(0, 6))
  z <- rep(1:3, length.out = 3000)
  x <- mu[z, ] + matrix(rnorm(6000), 3000)
  withr::local_options(mcmix.threads_adapt = FALSE)
  run <- function(threads) {
    set.seed(61)
    sample_posterior(dp_mixture(gaussian_niw()), x, iter = 8, burnin = 4,
                     algorithm = "subcluster", labels = "online", threads = threads,
                     progress = FALSE)
  }
  f1 <- run(1)
  f2 <- run(2)
  expect_identical(f1$chains[[1]]$state$online, f2$chains[[1]]$state$online)
  expect_identical(f1$chains[[1]]$labels_subset, f2$chains[[1]]$labels_subset)
  expect_identical(online_partition(f1)$labels, z)
})

test_that("by default beyond the memory budget a DP fit keeps the subsample and the estimate", {
  set.seed(5)
  z <- rep(1:3, each = 1000)
  x <- cbind(c(-6, 0, 6)[z], c(0, 6, 0)[z]) + matrix(rnorm(6000), 3000)
  m <- dp_mixture(gaussian_niw())
  # the labels of 30 kept draws: 30 x 3000 x 8 = 720 kB, over half of 1 MB
  withr::local_options(mcmix.memory_budget = 1e6, mcmix.label_subsample = 300)
  expect_message(fit <- sample_posterior(m, x, iter = 30, burnin = 10, progress = FALSE),
                 "Cluster labels are not stored for every observation")
  expect_length(fit$settings$label_subset, 300L)
  expect_equal(dim(fit$chains[[1]]$labels_subset), c(30L, 300L))
  est <- online_partition(fit)
  expect_identical(est$labels, z)
  expect_gt(stats::median(est$frequency), 0.95)
  expect_gt(min(est$frequency), 0.5)
  expect_message(pp <- partition(fit), "for them only")
  expect_identical(pp$labels, z[fit$settings$label_subset])
  # the functions that need every label refuse, naming the fit's argument
  # and saying how to keep the labels
  calls <- list(object = quote(predict(fit, x[1:3, ], type = "class")),
                object = quote(predict(fit, x[1:3, ])),
                fit = quote(cluster_profiles(fit)),
                fit = quote(partition_draws(fit)))
  for (i in seq_along(calls)) {
    e <- expect_error(eval(calls[[i]]), class = "mcmix_error_input")
    expect_identical(e$arg, names(calls)[i])
    expect_match(conditionMessage(e), "labels = \"online\"", fixed = TRUE)
  }
  # plot_clusters() colours every observation by the online estimate
  pdf(NULL)
  withr::defer(grDevices::dev.off())
  expect_identical(plot_clusters(fit)$labels, z)
  # given explicitly beyond the budget: an error naming `labels`
  e <- expect_error(sample_posterior(m, x, iter = 30, labels = TRUE, progress = FALSE),
                    class = "mcmix_error_input")
  expect_identical(e$arg, "labels")
  # labels = FALSE keeps nothing of the kind; the refusal names the fit
  # and says to sample with `labels = TRUE`
  none <- sample_posterior(m, x, iter = 5, labels = FALSE, progress = FALSE)
  expect_null(none$settings$label_subset)
  e <- expect_error(partition_draws(none), class = "mcmix_error_input")
  expect_identical(e$arg, "fit")
  expect_match(conditionMessage(e), "labels = TRUE", fixed = TRUE)
  e <- expect_error(online_partition(none), class = "mcmix_error_input")
  expect_identical(e$arg, "fit")
})

test_that("bad `labels` values and budgets are refused naming `labels`", {
  x <- online_data()
  m <- dp_mixture(gaussian_niw())
  for (bad in list("yes", NA, c(TRUE, FALSE), 1))
    expect_identical(expect_error(sample_posterior(m, x, iter = 5, labels = bad),
                                  class = "mcmix_error_input")$arg, "labels")
  # not even two slots of the online estimate fit
  withr::local_options(mcmix.memory_budget = 3000)
  e <- expect_error(sample_posterior(m, x, iter = 5, labels = "online", progress = FALSE),
                    class = "mcmix_error_input")
  expect_identical(e$arg, "labels")
  expect_error(sample_posterior(finite_mixture(gaussian_niw(), 2), x, iter = 5,
                                labels = "online"), "`labels`")
})
