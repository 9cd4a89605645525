# HDP mixture (R/hdp.R, src/model_hdp.c): exact log_lik, Geweke
# joint-distribution test, recovery of shared clusters, extend(), bad input.
# The exact answers (marginal, franchise prior) are in helper-hdp.R.

test_that("the HDP log_lik trace is the collapsed marginal of the partition", {
  set.seed(3)
  g <- list(a = c(-2.1, -1.7, 0.3, 2), b = c(0.1, 2.4, 1.9))
  fam <- gaussian_mean(cov = 0.5, prior_mean = 0.2, prior_cov = 3)
  fit <- sample_posterior(hdp_mixture(fam, gamma = 1.5, alpha = gamma_prior(2, 1)), g,
                          iter = 30, burnin = 0, progress = FALSE)
  lab <- fit$chains[[1]]$labels
  tr <- fit$chains[[1]]$traces
  x <- unlist(g)
  for (s in c(1, 10, 30))
    expect_equal(unname(tr[s, "log_lik"]), hdp_log_marginal_r(x, lab[s, ], 0.5, 0.2, 3),
                 tolerance = 1e-10)
  expect_equal(unname(tr[, "n_clusters"]), apply(lab, 1, function(l) length(unique(l))))
  expect_true(all(tr[, "gamma"] == 1.5))
  expect_true(all(tr[, "alpha"] > 0) && length(unique(tr[, "alpha"])) > 1)
  st <- fit$chains[[1]]$state
  expect_equal(length(st$beta), max(st$z) + 2L)
  expect_equal(sum(st$beta), 1)
})

test_that("the HDP sampler reproduces the exact posterior over partitions", {
  skip_on_cran()
  grp <- c(1, 1, 1, 2, 2)
  parts <- set_partitions(5)
  # the prior over the 52 partitions is a distribution (checks the formula)
  expect_equal(sum(exp(vapply(parts, hdp_log_prior_r, 0, grp = grp, gamma = 0.7,
                              alpha = 1.3))), 1, tolerance = 1e-10)
  x <- c(-1, -0.6, 1.2, 1, -0.8)
  lp <- vapply(parts, function(z) hdp_log_prior_r(z, grp, 0.7, 1.3) +
                 hdp_log_marginal_r(x, z, 0.5, 0, 2), 0)
  post <- exp(lp - max(lp)); post <- post / sum(post)
  key <- vapply(parts, paste, "", collapse = "")
  set.seed(1)
  fit <- sample_posterior(hdp_mixture(gaussian_mean(cov = 0.5, prior_mean = 0, prior_cov = 2),
                                      gamma = 0.7, alpha = 1.3),
                          x, group = grp, iter = 50000, burnin = 1000, progress = FALSE)
  lab <- fit$chains[[1]]$labels
  canon <- apply(lab, 1, function(l) paste(match(l, unique(l)), collapse = ""))
  freq <- as.numeric(table(factor(canon, key))) / nrow(lab)
  # twice the expected total-variation error of n / 4 independent draws
  # (allows for autocorrelation); a sampler with alpha = 2.5 instead of 1.3
  # gives 0.12
  n_eff <- nrow(lab) / 4
  expect_lt(0.5 * sum(abs(freq - post)), 2 * 0.5 * sum(sqrt(post * (1 - post) / n_eff)))
})

# The split-merge moves alone (no Gibbs scan of z: the moves, the table
# counts, beta and the concentrations) against the exact posterior over the
# 203 partitions of 6 observations in 3 groups, for each kind of proposal:
# sequential allocation (with the reallocation moves), restricted Gibbs,
# sub-clusters (2-means splits followed by sequentially allocated moves with
# merge partners by gain), and the latter moves alone. Checked: the
# total-variation distance (bound as above) and the posterior mean of the
# number of clusters within 4 batch-means standard errors. Power: with
# log(gamma), the group terms sum_j log Gamma(alpha beta_k + n_jk) /
# Gamma(alpha beta_k), the density of the weight proposal w, or the terms
# -log w - log(1 - w) left out of the acceptance ratio, every kind of
# proposal misses E[K] by 0.14 to 2.2 (far beyond 4 standard errors), and
# all but the third exceed the TV bound. For the moves with merge partners
# by gain (whose w is uniform), the density of a Beta(M_A, M_B) w put in
# the ratio as in the other splits misses E[K] by 0.09 (with the 2-means
# moves) and 0.15 (alone, TV 0.100 against the bound 0.084).
test_that("the HDP split-merge moves alone reproduce the exact posterior over partitions", {
  skip_on_cran()
  grp <- c(1, 1, 2, 2, 3, 3)
  x <- c(-1.1, 0.9, -0.7, 1.3, 1, -0.9)
  gm <- 0.8; al <- 1.5; s2 <- 0.5; s0 <- 2
  parts <- set_partitions(6)
  lp <- vapply(parts, function(z) hdp_log_prior_r(z, grp, gm, al) +
                 hdp_log_marginal_r(x, z, s2, 0, s0), 0)
  post <- exp(lp - max(lp)); post <- post / sum(post)
  key <- vapply(parts, paste, "", collapse = "")
  k_exact <- sum(post * vapply(parts, max, 0))
  model <- hdp_mixture(gaussian_mean(cov = s2, prior_mean = 0, prior_cov = s0),
                       gamma = gm, alpha = al)
  grouped <- mcmix:::hdp_grouped_data(model$family, x, factor(grp))
  runs <- list(sams = list("split_merge", dp_control(moves = 4)),
               restricted_gibbs = list("split_merge",
                                       dp_control(moves = 4, proposal = "restricted_gibbs", t = 2)),
               subcluster = list("subcluster", dp_control(sc_moves = 4)),
               # the sequentially allocated moves with merge partners by
               # gain alone (src/model_hdp_sams.c; no 2-means moves)
               gain_sams = list("subcluster", dp_control(sc_moves = 4), moves = 0L))
  n_iter <- 60000
  for (r in names(runs)) {
    spec <- mcmix:::hdp_spec(model, grouped$prepared, 3L, runs[[r]][[1]], runs[[r]][[2]])
    spec$gibbs <- 0L
    if (!is.null(runs[[r]]$moves)) spec$moves <- runs[[r]]$moves
    state <- list(z = integer(6), beta = c(0.5, 0.5), gamma = gm, alpha = al)
    set.seed(11)
    out <- mcmix:::hdp_step_c(spec, matrix(x, nrow = 1), as.integer(grp) - 1L, state,
                              n_iter, 1L, 0L, FALSE, keep_labels = TRUE)
    lab <- out$labels
    expect_gt(out$n_accept, 0.2 * out$n_prop)
    canon <- apply(lab, 1, function(l) paste(match(l, unique(l)), collapse = ""))
    freq <- as.numeric(table(factor(canon, key))) / nrow(lab)
    n_eff <- nrow(lab) / 4
    expect_lt(0.5 * sum(abs(freq - post)), 2 * 0.5 * sum(sqrt(post * (1 - post) / n_eff)),
              label = paste("TV distance,", r))
    k <- apply(lab, 1, function(l) length(unique(l)))
    batch <- colMeans(matrix(k, ncol = 50))           # 50 batches of 1200 draws
    se <- stats::sd(batch) / sqrt(50)
    expect_lt(abs(mean(k) - k_exact), 4 * se + 1e-3, label = paste("E[K] error,", r))
  }
})

# A group-level concentration alpha so large that each group's DP is its
# base measure: the HDP prior over partitions is then the Chinese
# restaurant process CRP(gamma) of all observations pooled (every customer
# at a table of its own, the tables' dishes from the top-level restaurant),
# exact in doubles at alpha = 1e20 (the difference is O(n / alpha)). The
# split-merge moves alone (sequential allocation, and the sub-cluster
# moves with partners by gain) against that exact posterior over the 52
# partitions of 5 observations: their group terms log Gamma(alpha beta_k
# + n_jk) - log Gamma(alpha beta_k) were differences of two numbers of
# order 1e21 (no digit left), now from Stirling's series.
test_that("the HDP split-merge moves are exact at a huge group-level concentration", {
  skip_on_cran()
  grp <- c(1, 1, 2, 2, 2)
  x <- c(-1.1, 0.9, -0.7, 1.3, -0.9)
  gm <- 0.8; s2 <- 0.5; s0 <- 2
  parts <- set_partitions(5)
  lp <- vapply(parts, function(z) mx_lprior_dp(z, gm) + hdp_log_marginal_r(x, z, s2, 0, s0), 0)
  post <- exp(lp - max(lp)); post <- post / sum(post)
  key <- vapply(parts, paste, "", collapse = "")
  model <- hdp_mixture(gaussian_mean(cov = s2, prior_mean = 0, prior_cov = s0),
                       gamma = gm, alpha = 1e20)
  grouped <- mcmix:::hdp_grouped_data(model$family, x, factor(grp))
  runs <- list(sams = list("split_merge", dp_control(moves = 4)),
               gain_sams = list("subcluster", dp_control(sc_moves = 4), moves = 0L))
  for (r in names(runs)) {
    spec <- mcmix:::hdp_spec(model, grouped$prepared, 2L, runs[[r]][[1]], runs[[r]][[2]])
    spec$gibbs <- 0L
    if (!is.null(runs[[r]]$moves)) spec$moves <- runs[[r]]$moves
    state <- list(z = integer(5), beta = c(0.5, 0.5), gamma = gm, alpha = 1e20)
    set.seed(12)
    out <- mcmix:::hdp_step_c(spec, matrix(x, nrow = 1), as.integer(grp) - 1L, state,
                              20000L, 1L, 0L, FALSE, keep_labels = TRUE)
    lab <- out$labels
    canon <- apply(lab, 1, function(l) paste(match(l, unique(l)), collapse = ""))
    freq <- as.numeric(table(factor(canon, key))) / nrow(lab)
    n_eff <- nrow(lab) / 4
    expect_lt(0.5 * sum(abs(freq - post)), 2 * 0.5 * sum(sqrt(post * (1 - post) / n_eff)),
              label = paste("TV distance,", r))
  }
})

# Geweke (2004): the successive-conditional simulator alternates one Gibbs
# sweep (z, table counts, gamma, beta, alpha | x) with a draw of x | z from
# the collapsed predictive. The statistics seen right after the sweep must
# follow their prior law, obtained by forward simulation of the Chinese
# restaurant franchise. Compared: the number of clusters (chi-square), gamma
# and alpha (Kolmogorov-Smirnov) and the within-cluster sum of squares of x
# (Kolmogorov-Smirnov), which couples the partition with the data. The
# chain is thinned so that successive kept draws are nearly independent.
# Power: the same test run with the sampler's alpha prior rate off by a
# factor 1.5 fails.
test_that("the HDP sampler passes a Geweke joint-distribution test", {
  skip_on_cran()
  set.seed(101)
  s2 <- 1; m0 <- 0; s0 <- 4
  sizes <- c(3L, 3L)
  grp <- rep(seq_along(sizes), sizes)
  N <- sum(sizes)
  a_g <- 3; b_g <- 2; a_a <- 3; b_a <- 2
  model <- hdp_mixture(gaussian_mean(cov = s2, prior_mean = m0, prior_cov = s0),
                       gamma = gamma_prior(a_g, b_g), alpha = gamma_prior(a_a, b_a))
  draw_x <- function(z) geweke_draw_x(z, s2, m0, s0)  # x | z, cluster by cluster
  wss <- geweke_wss
  crf <- function(gamma, alpha) {        # forward simulation of the partition
    dish_tables <- integer(); z <- integer(N)
    for (j in seq_along(sizes)) {
      table_dish <- integer(); table_n <- integer()
      for (i in which(grp == j)) {
        t <- sample.int(length(table_n) + 1L, 1, prob = c(table_n, alpha))
        if (t > length(table_n)) {
          d <- sample.int(length(dish_tables) + 1L, 1, prob = c(dish_tables, gamma))
          if (d > length(dish_tables)) dish_tables <- c(dish_tables, 0L)
          dish_tables[d] <- dish_tables[d] + 1L
          table_dish <- c(table_dish, d); table_n <- c(table_n, 0L)
        }
        table_n[t] <- table_n[t] + 1L
        z[i] <- table_dish[t]
      }
    }
    z
  }
  n_fwd <- 20000
  fwd <- t(replicate(n_fwd, {
    gm <- stats::rgamma(1, a_g, b_g); al <- stats::rgamma(1, a_a, b_a)
    z <- crf(gm, al); x <- draw_x(z)
    c(length(unique(z)), gm, al, wss(x, z))
  }))

  grouped <- mcmix:::hdp_grouped_data(model$family, rnorm(N), factor(grp))
  spec <- mcmix:::hdp_spec(model, grouped$prepared, 2L)
  group0 <- as.integer(grp) - 1L
  state <- list(z = integer(N), beta = c(0.5, 0.5), gamma = a_g / b_g, alpha = a_a / b_a)
  x <- draw_x(state$z)
  thin <- 10; n_keep <- 2500
  sc <- matrix(0, n_keep, 4)
  for (g in seq_len(n_keep * thin)) {
    r <- mcmix:::hdp_step_c(spec, matrix(x, nrow = 1), group0, state, 1L, 1L,
                            g - 1L, TRUE, keep_labels = FALSE)
    state <- r[c("z", "beta", "gamma", "alpha")]
    if (g %% thin == 0)
      sc[g / thin, ] <- c(length(unique(state$z)), state$gamma, state$alpha,
                          wss(x, state$z))
    x <- draw_x(state$z)
  }
  # 4 comparisons, each at level 0.001
  expect_gt(geweke_count_pvalue(sc[, 1], fwd[, 1], N, min_count = 20), 1e-3)
  for (j in 2:4)
    expect_gt(suppressWarnings(stats::ks.test(sc[, j], fwd[, j])$p.value), 1e-3)
})

test_that("the HDP recovers clusters shared across groups", {
  skip_on_cran()
  set.seed(42)
  n <- 40
  groups <- list(g1 = c(rnorm(n, -5), rnorm(n, 0)),
                 g2 = c(rnorm(n, 0), rnorm(n, 5)),
                 g3 = c(rnorm(n, -5), rnorm(n, 5)))
  truth <- rep(c(-5, 0, 0, 5, -5, 5), each = n)
  fit <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_mean = 0, prior_cov = 25),
                                      gamma = gamma_prior(1, 1), alpha = gamma_prior(1, 1)),
                          groups, iter = 300, progress = FALSE)
  tab <- shared_clusters(fit)
  expect_equal(colnames(tab), c("g1", "g2", "g3"))
  expect_equal(sum(tab), 6 * n)
  lab <- as.integer(factor(match(fit$chains[[1]]$state$z, unique(fit$chains[[1]]$state$z))))
  # each true cluster lies (>= 95%) in one estimated cluster, all distinct
  main <- vapply(c(-5, 0, 5), function(m) {
    t <- table(lab[truth == m]); as.integer(names(t)[which.max(t)])
  }, integer(1))
  share <- vapply(c(-5, 0, 5), function(m) max(table(lab[truth == m])) / sum(truth == m),
                  numeric(1))
  expect_true(all(share >= 0.95))
  expect_equal(length(unique(main)), 3L)
  # and is shared by exactly the two groups that use it
  used <- tab[main, , drop = FALSE] >= 0.9 * n
  expect_equal(unname(used * 1), rbind(c(1, 0, 1), c(1, 1, 0), c(0, 1, 1)))
  expect_true(all(attr(tab, "shared")[main]))
  # grouping factor instead of a list: same data, same result with the same seed
  set.seed(42)
  x <- unlist(groups)
  f <- factor(rep(c("g1", "g2", "g3"), each = 2 * n))
  set.seed(7)
  a <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1)), groups, iter = 20,
                        progress = FALSE)
  set.seed(7)
  b <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1)), x, group = f, iter = 20,
                        progress = FALSE)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  expect_identical(unname(shared_clusters(a)), unname(shared_clusters(b)))
})

test_that("the HDP split-merge moves find every cluster where Gibbs sampling does not", {
  skip_on_cran()
  # 6 clusters (unit covariance, means on a circle of radius 5) in 10
  # groups of 600 with Dirichlet(2, ..., 2) weights; 30 sweeps from one
  # cluster. A true cluster is found when one estimated cluster holds 90% of
  # it and is 90% made of it.
  set.seed(2)
  N <- 6000; J <- 10; Kt <- 6
  ang <- 2 * pi * seq_len(Kt) / Kt
  mu <- 5 * cbind(cos(ang), sin(ang))
  grp <- rep(seq_len(J), each = N / J)
  w <- matrix(rgamma(J * Kt, 2), J, Kt); w <- w / rowSums(w)
  z <- unlist(lapply(seq_len(J), function(j) sample.int(Kt, N / J, TRUE, w[j, ])))
  x <- mu[z, ] + matrix(rnorm(2 * N), N, 2)
  m <- hdp_mixture(gaussian_niw(), gamma = 1, alpha = gamma_prior(1, 1))
  found <- function(fit) {
    tab <- table(fit$chains[[1]]$state$z, z)
    sum(vapply(seq_len(Kt), function(t) {
      k <- which.max(tab[, t])
      tab[k, t] >= 0.9 * sum(tab[, t]) && tab[k, t] >= 0.9 * sum(tab[k, ])
    }, logical(1)))
  }
  fits <- lapply(c(gibbs = "gibbs", split_merge = "split_merge"), function(alg) {
    set.seed(1)
    sample_posterior(m, x, group = grp, iter = 30, burnin = 0, labels = FALSE,
                     progress = FALSE, algorithm = alg)
  })
  expect_equal(found(fits$split_merge), Kt)
  expect_lte(found(fits$gibbs), Kt - 2)
  st <- fits$split_merge$chains[[1]]$state
  expect_gt(st$n_accept, 0)
  expect_equal(st$n_prop, 30 * 15)
})

test_that("extend() equals a longer run", {
  set.seed(9)
  g <- list(c(rnorm(10, -2), rnorm(5, 2)), rnorm(8, 2))
  m <- hdp_mixture(gaussian_niw(), gamma = gamma_prior(2, 2), alpha = gamma_prior(2, 1))
  for (alg in c("split_merge", "subcluster")) {
    set.seed(10)
    a <- sample_posterior(m, g, iter = 20, burnin = 5, thin = 3, chains = 2, progress = FALSE,
                          algorithm = alg)
    a <- extend(a, 25, progress = FALSE)
    set.seed(10)
    b <- sample_posterior(m, g, iter = 45, burnin = 5, thin = 3, chains = 2, progress = FALSE,
                          algorithm = alg)
    # The draws are identical; log_lik may differ in the last bits because
    # the family's cached statistics are rebuilt at chunk boundaries.
    for (c in 1:2) {
      expect_equal(a$chains[[c]]$traces, b$chains[[c]]$traces, tolerance = 1e-12)
      expect_identical(a$chains[[c]]$labels, b$chains[[c]]$labels)
      expect_identical(a$chains[[c]]$state, b$chains[[c]]$state)
    }
    expect_gt(b$chains[[1]]$state$n_prop, 0)
  }
})

test_that("bad input is refused with messages naming the argument", {
  fam <- gaussian_mean(cov = 1)
  expect_error(hdp_mixture("gaussian"), "`family`")
  fake <- structure(list(name = "nc", nonconjugate = TRUE), class = "mcmix_family")
  expect_error(hdp_mixture(fake), "`family`")
  expect_error(hdp_mixture(fam, gamma = -1), "`gamma`")
  expect_error(hdp_mixture(fam, gamma = c(1, 2)), "`gamma`")
  expect_error(hdp_mixture(fam, alpha = "a"), "`alpha`")
  expect_error(hdp_mixture(fam, alpha = 0), "`alpha`")
  m <- hdp_mixture(fam)
  x <- c(0.1, 0.5, 1.2, 3)
  expect_error(sample_posterior(m, x, progress = FALSE), "`group`")
  expect_error(sample_posterior(m, x, group = c(1, 2), progress = FALSE), "`group`")
  expect_error(sample_posterior(m, x, group = c(1, NA, 2, 2), progress = FALSE), "`group`")
  expect_error(sample_posterior(m, list(x, x), group = 1:8, progress = FALSE), "`group`")
  expect_error(sample_posterior(m, list(x, numeric()), progress = FALSE), "`data`")
  expect_error(sample_posterior(m, list(x, c(1, NA)), progress = FALSE), "data")
  expect_error(sample_posterior(m, list(x, x), init = "random", progress = FALSE), "`init`")
  expect_error(sample_posterior(m, list(x, x), init = 1:3, progress = FALSE), "`init`")
  expect_error(sample_posterior(m, list(x, x), iter = -1, progress = FALSE), "`iter`")
  expect_error(sample_posterior(m, list(x, x), bogus = 1, progress = FALSE), "`bogus`")
  expect_error(sample_posterior(m, list(x, x), algorithm = "collapsed", progress = FALSE),
               "`algorithm`")
  expect_error(sample_posterior(m, list(x, x), control = list(moves = 2), progress = FALSE),
               "`control`")
  set.seed(1)
  fit <- sample_posterior(m, list(a = x, b = x + 1), iter = 5, progress = FALSE)
  expect_error(shared_clusters(list()), "`fit`")
  expect_error(shared_clusters(fit, labels = 1:3), "`labels`")
  expect_error(shared_clusters(fit, chain = 2), "`chain`")
  tab <- shared_clusters(fit, labels = rep(1:2, 4))
  expect_equal(unname(unclass(tab)[, ]), matrix(2, 2, 2))
  expect_output(print(fit), "HDP mixture fit")
  expect_output(print(m), "Hierarchical")
})

test_that("concentrations at the extremes: fixed ones run, gamma priors without a finite mean are refused", {
  groups <- list(a = c(-4.2, -3.9, 0.1, 0.3), b = c(0.2, -0.1, 3.8, 4.1))
  fam <- gaussian_mean(cov = 1, prior_cov = 25)
  # fixed values anywhere in (0, Inf) run: at 1e300 every observation is
  # its own cluster, at 1e-300 the groups share one cluster
  set.seed(2)
  big <- sample_posterior(hdp_mixture(fam, gamma = 1e300, alpha = 1e300), groups, iter = 5,
                          progress = FALSE)
  expect_true(all(big$chains[[1]]$traces[, "n_clusters"] == 8))
  small <- sample_posterior(hdp_mixture(fam, gamma = 1e-300, alpha = 1e-300), groups,
                            iter = 5, progress = FALSE)
  expect_true(all(small$chains[[1]]$traces[, "n_clusters"] == 1))
  # a gamma prior whose mean overflows or underflows: the chain would start
  # from Inf or 0 (it failed with an internal error)
  for (p in list(gamma_prior(1e300, 1e-300), gamma_prior(1e-300, 1e300))) {
    for (arg in c("gamma", "alpha")) {
      a <- list(fam, p)
      names(a) <- c("family", arg)
      e <- expect_error(do.call(hdp_mixture, a), "starting value", class = "mcmix_error_input")
      expect_identical(e$arg, arg)
    }
    m <- hdp_mixture(fam)
    m$alpha <- p                      # edited by hand
    e <- expect_error(sample_posterior(m, groups, iter = 5, progress = FALSE),
                      class = "mcmix_error_input")
    expect_identical(e$arg, "alpha")
  }
})
