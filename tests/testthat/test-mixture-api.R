# Model constructors, the run verb, reproducibility, resuming, and input checks.

mx_data <- function(n = 40) {
  set.seed(100)
  c(stats::rnorm(n / 2, -3), stats::rnorm(n / 2, 3))
}

test_that("models are built, validated and printed", {
  m <- finite_mixture(gaussian_niw(), K = 3, alpha = 1.5)
  expect_s3_class(m, "mcmix_finite_mixture")
  expect_equal(m$alpha, rep(0.5, 3))
  expect_equal(finite_mixture(poisson_gamma(), K = 2, alpha = c(1, 4))$alpha, c(1, 4))
  expect_output(print(m), "K = 3")
  d <- dp_mixture(gaussian_niw(), alpha = gamma_prior(2, 4))
  expect_s3_class(d, "mcmix_dp_mixture")
  expect_output(print(d), "Gamma\\(shape = 2, rate = 4\\)")
  expect_output(print(dp_mixture(poisson_gamma(), 2)), "Dirichlet process")
  expect_output(print(gamma_prior(1, 2)), "Gamma")

  expect_error(finite_mixture(gaussian_niw(), K = 0), "`K`")
  expect_error(finite_mixture(gaussian_niw(), K = 2.5), "`K`")
  expect_error(finite_mixture(gaussian_niw(), K = 3, alpha = -1), "`alpha`.*-1")
  expect_error(finite_mixture(gaussian_niw(), K = 3, alpha = c(1, 2)), "`alpha`")
  expect_error(finite_mixture("gaussian", K = 3), "`family`")
  expect_error(dp_mixture(gaussian_niw(), alpha = 0), "`alpha`.*0")
  expect_error(dp_mixture(gaussian_niw(), alpha = c(1, 2)), "`alpha`")
  expect_error(dp_mixture(gaussian_niw(), alpha = NA), "`alpha`")
  expect_error(dp_mixture(list(), alpha = 1), "`family`")
  expect_error(gamma_prior(-1, 1), "`shape`.*-1")
  expect_error(gamma_prior(1, Inf), "`rate`")
})

test_that("sample_posterior refuses bad data and arguments", {
  m <- dp_mixture(gaussian_niw())
  expect_error(sample_posterior(m, c(1, NA, NA), iter = 10, progress = FALSE), "NA|missing")
  expect_error(sample_posterior(m, c(1, Inf, 3), iter = 10, progress = FALSE), "finite|Inf")
  expect_error(sample_posterior(m, 1, iter = 10, progress = FALSE), "2")
  expect_error(sample_posterior(dp_mixture(gaussian_niw(prior_mean = c(0, 0))),
                                cbind(1:5, 1:5, 1:5), iter = 10, progress = FALSE),
               "column|dimension")
  expect_error(sample_posterior(dp_mixture(poisson_gamma()), c(1, 2.5, 3),
                                iter = 10, progress = FALSE), "count|whole|integer")
  x <- mx_data()
  expect_error(sample_posterior(m, x, iter = 0, progress = FALSE), "`iter`")
  expect_error(sample_posterior(m, x, iter = 10, thin = 0, progress = FALSE), "`thin`")
  expect_error(sample_posterior(m, x, iter = 10, algorithm = "gibbs", progress = FALSE),
               "`algorithm`")
  expect_error(sample_posterior(finite_mixture(gaussian_niw(), 2), x, iter = 10,
                                algorithm = "slice", progress = FALSE), "`algorithm`")
  expect_error(sample_posterior(m, x, iter = 10, init = "kmeans", progress = FALSE),
               "`init`")
  expect_error(sample_posterior(m, x, iter = 10, init = 1:3, progress = FALSE), "`init`")
  expect_error(sample_posterior(finite_mixture(gaussian_niw(), 2), x, iter = 10,
                                init = rep(c(5, 6, 7, 8), 10), progress = FALSE),
               "`init`.*K = 2")
  expect_error(sample_posterior(m, x, iter = 10, progress = FALSE, foo = 1), "`foo`")
  expect_error(sample_posterior(list(), x), "`model`")
})

test_that("set.seed reproduces the draws and extend() equals one longer run", {
  x <- mx_data()
  models <- list(
    list(dp_mixture(gaussian_niw(), alpha = gamma_prior(1, 1)), "collapsed"),
    list(finite_mixture(gaussian_niw(), K = 3), "gibbs"),
    list(finite_mixture(gaussian_niw(), K = 3), "collapsed_weights"),
    list(finite_mixture(gaussian_niw(), K = 3), "collapsed"))
  for (mm in models) {
    run <- function(iter) {
      set.seed(42)
      sample_posterior(mm[[1]], x, iter = iter, burnin = 50, thin = 2, chains = 2,
                       algorithm = mm[[2]], progress = FALSE)
    }
    a <- run(500)
    b <- run(500)
    expect_identical(a$chains[[2]]$traces, b$chains[[2]]$traces)
    expect_identical(partition_draws(a), partition_draws(b))
    long <- run(1000)
    ext <- extend(a, 500, progress = FALSE)
    for (ch in 1:2) {
      expect_identical(ext$chains[[ch]]$traces, long$chains[[ch]]$traces)
      expect_identical(ext$chains[[ch]]$labels, long$chains[[ch]]$labels)
      expect_identical(ext$chains[[ch]]$extra, long$chains[[ch]]$extra)
      expect_identical(ext$chains[[ch]]$state, long$chains[[ch]]$state)
    }
    expect_equal(nrow(ext$chains[[1]]$traces), 500L)       # 1000 / thin
    expect_s3_class(ext, "mcmix_mixture_fit")
  }
})

test_that("the fit holds what the methods need", {
  x <- mx_data()
  set.seed(1)
  fit <- sample_posterior(finite_mixture(gaussian_niw(), K = 2), x, iter = 20,
                          burnin = 5, algorithm = "gibbs", chains = 2, progress = FALSE)
  expect_s3_class(fit, c("mcmix_mixture_fit", "mcmix_fit"))
  expect_equal(fit$N, 40L)
  expect_equal(fit$algorithm, "gibbs")
  expect_equal(fit$family$name, "gaussian_niw")
  expect_equal(colnames(fit$chains[[1]]$traces), c("n_clusters", "log_lik"))
  ex <- fit$chains[[1]]$extra
  expect_length(ex, 20L)
  expect_equal(sum(ex[[1]]$weights), 1)
  expect_equal(dim(ex[[1]]$params), c(4L, 2L))    # 2 D^2 + D + 1 doubles per component
  th <- mcmix:::family_param_unpack(fit$family, ex[[1]]$params[, 1])
  expect_true(th$cov > 0)
  # the kept log_lik of "gibbs" is log p(x | z, theta) at the kept draw
  z <- fit$chains[[1]]$labels[20, ]
  P <- ex[[20]]$params
  ll <- sum(vapply(seq_along(x), function(i) {
    p <- mcmix:::family_param_unpack(fit$family, P[, z[i]])
    stats::dnorm(x[i], p$mean, sqrt(p$cov), log = TRUE)
  }, numeric(1)))
  expect_equal(fit$chains[[1]]$traces[[20, "log_lik"]], ll, tolerance = 1e-10)
  # labels are component numbers in 1..K
  expect_true(all(partition_draws(fit) %in% 1:2))
  expect_equal(attr(partition_draws(fit), "chain"), rep(1:2, each = 20))

  # DP: the kept log_lik is the collapsed log p(x | partition)
  set.seed(2)
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
  d <- sample_posterior(dp_mixture(fam, alpha = gamma_prior(1, 1)), x, iter = 10,
                        progress = FALSE)
  expect_equal(colnames(d$chains[[1]]$traces), c("n_clusters", "alpha", "log_lik"))
  z <- d$chains[[1]]$labels[10, ]
  ll <- sum(vapply(split(x, z), function(v)
    mx_lml_niw(matrix(v), 0, 0.5, 3, matrix(1)), numeric(1)))
  expect_equal(d$chains[[1]]$traces[[10, "log_lik"]], ll, tolerance = 1e-8)
  expect_equal(d$chains[[1]]$traces[[10, "n_clusters"]], length(unique(z)))
  expect_null(d$chains[[1]]$extra)
  # internal labels are compact: 1..K
  expect_equal(sort(unique(z)), seq_len(length(unique(z))))
})

test_that("labels = FALSE keeps only traces; partition_draws says so", {
  set.seed(3)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), mx_data(), iter = 10,
                          labels = FALSE, progress = FALSE)
  expect_null(fit$chains[[1]]$labels)
  expect_equal(nrow(fit$chains[[1]]$traces), 10L)
  expect_error(partition_draws(fit), "labels = TRUE")
  expect_error(partition_draws(list()), "`fit`")
})

test_that("init options start where asked", {
  x <- mx_data()
  z0 <- rep(c(7, 9), 20)
  set.seed(4)
  fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 1, burnin = 0,
                          init = z0, progress = FALSE)
  expect_equal(fit$kernel$init(1)$labels, rep(0:1, 20))
  expect_equal(unique(fit$kernel$init(1)$labels), 0:1)
  k1 <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 1, init = "one",
                         progress = FALSE)$kernel
  expect_equal(k1$init(1)$labels, integer(40))
  kf <- sample_posterior(finite_mixture(gaussian_niw(), 3), x, iter = 1,
                         init = function(chain) rep(chain, 40), progress = FALSE)$kernel
  expect_equal(kf$init(2)$labels, rep(1L, 40))
  # a finite init in 1..K keeps the component numbers
  kf <- sample_posterior(finite_mixture(gaussian_niw(), 3), x, iter = 1,
                         init = rep(3, 40), progress = FALSE)$kernel
  expect_equal(kf$init(1)$labels, rep(2L, 40))
})

test_that("the engine state survives a save and reload (deleting clusters keeps order)", {
  x <- mx_data(60)
  set.seed(5)
  fit <- sample_posterior(dp_mixture(gaussian_niw(), alpha = 5), x, iter = 30,
                          burnin = 0, init = seq_along(x), progress = FALSE)
  # starting from singletons exercises cluster deletion and creation
  expect_lt(fit$chains[[1]]$traces[30, "n_clusters"], 60)
  f <- tempfile(fileext = ".rds")
  saveRDS(fit, f)
  back <- readRDS(f)
  a <- extend(fit, 20, progress = FALSE)
  b <- extend(back, 20, progress = FALSE)
  expect_identical(a$chains[[1]]$labels, b$chains[[1]]$labels)
})

test_that("the cached statistics do not drift over a long run", {
  skip_on_cran()
  set.seed(6)
  x <- c(stats::rnorm(100, -2), stats::rnorm(100, 2))
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.5, df = 3, scale = 1)
  fit <- sample_posterior(dp_mixture(fam, alpha = 1), x, iter = 1500, burnin = 0,
                          thin = 1, progress = FALSE)
  tr <- fit$chains[[1]]$traces
  for (s in c(1000, 1500)) {                 # 1000 is not a multiple of 64
    z <- fit$chains[[1]]$labels[s, ]
    ll <- sum(vapply(split(x, z), function(v)
      mx_lml_niw(matrix(v), 0, 0.5, 3, matrix(1)), numeric(1)))
    expect_equal(tr[[s, "log_lik"]], ll, tolerance = 1e-9)
  }
  # finite "collapsed" as well
  fit <- sample_posterior(finite_mixture(fam, K = 3), x, iter = 1000, burnin = 0,
                          progress = FALSE)
  z <- fit$chains[[1]]$labels[1000, ]
  ll <- sum(vapply(split(x, z), function(v)
    mx_lml_niw(matrix(v), 0, 0.5, 3, matrix(1)), numeric(1)))
  expect_equal(fit$chains[[1]]$traces[[1000, "log_lik"]], ll, tolerance = 1e-9)
})

test_that("the cluster buffers grow when the number of clusters exceeds their capacity", {
  set.seed(7)
  x <- stats::rnorm(300)
  # from one cluster with a huge alpha: K jumps far beyond the initial capacity (64)
  run <- function(iter) {
    set.seed(8)
    sample_posterior(dp_mixture(gaussian_niw(), alpha = 500), x, iter = iter, burnin = 0,
                     init = "one", progress = FALSE)
  }
  a <- run(6)
  K <- a$chains[[1]]$traces[, "n_clusters"]
  expect_gt(max(K), 64)
  z <- partition_draws(a)
  expect_equal(unname(K), apply(z, 1L, function(v) length(unique(v))))
  expect_true(all(apply(z, 1L, function(v) all(sort(unique(v)) == seq_along(unique(v))))))
  expect_identical(extend(run(3), 3, progress = FALSE)$chains[[1]]$labels,
                   a$chains[[1]]$labels)
})
