# sample_mh() with every proposal against exact moments (Gaussians, a
# five-state distribution with detailed balance), scale adaptation against
# its target acceptance rate, extend() and unaligned chunks against one
# longer run (bit for bit), and refusal of bad tuning arguments.

test_that("sample_mh reproduces the moments of a correlated 2-D Gaussian for every proposal", {
  skip_on_cran()
  props <- list(
    rw_cov = list(proposal_rw(cov = gauss_S), adapt_none()),
    rw_scale = list(proposal_rw(scale = 1), adapt_none()),
    adapt_scale = list(proposal_rw(scale = 0.1), adapt_scale()),
    adapt_scale_always = list(proposal_rw(scale = 0.1), adapt_scale(during = "always")),
    haario = list(proposal_rw(scale = 0.1), adapt_haario(start = 200)),
    haario_always = list(proposal_rw(scale = 0.1), adapt_haario(start = 200, during = "always")),
    independent = list(proposal_independent(gauss_mu, 2 * gauss_S), adapt_none()),
    independent_r = list(proposal_independent(
      draw = function() gauss_mu + rnorm(2) * 2,
      log_density = function(y) sum(dnorm(y, gauss_mu, 2, log = TRUE))), adapt_none()),
    custom_asym = list(proposal_custom(
      draw = function(x) x + c(0.3, 0) + rnorm(2),
      log_density = function(y, x) sum(dnorm(y - x - c(0.3, 0), log = TRUE))), adapt_none()),
    mixture = list(proposal_mixture(list(proposal_rw(0.2), proposal_rw(cov = 3 * gauss_S),
                                         proposal_independent(gauss_mu, 2 * gauss_S)),
                                    c(0.3, 0.5, 0.2)), adapt_none()))
  for (nm in names(props)) {
    set.seed(11)
    n <- if (grepl("_r$|custom", nm)) 8000 else 30000
    fit <- sample_mh(gauss_ld, init = c(0, 0), iter = n, burnin = 2000,
                     proposal = props[[nm]][[1]], adapt = props[[nm]][[2]])
    tr <- fit$chains[[1]]$traces
    expect_equal(dim(tr), c(n, 2))
    expect_gauss_moments(tr)
    st <- fit$chains[[1]]$state
    expect_equal(st$n_prop, n)
    expect_gt(st$n_accept, 0)
  }
})

test_that("scale adaptation reaches the target acceptance rate", {
  skip_on_cran()
  set.seed(2)
  fit <- sample_mh(gauss_ld, c(0, 0), iter = 20000, burnin = 5000,
                   proposal = proposal_rw(scale = 0.01), adapt = adapt_scale(0.3))
  st <- fit$chains[[1]]$state
  rate <- st$n_accept / st$n_prop
  expect_lt(abs(rate - 0.3), 0.03)
  expect_equal(acceptance(fit)[[1, 1]], rate)
})

test_that("MH with a ring proposal samples the five-state distribution with detailed balance", {
  skip_on_cran()
  ring <- proposal_custom(function(x) (x + sample(c(-1, 1), 1)) %% 5)
  set.seed(5)
  n <- 40000
  fit <- sample_mh(five_ld, init = 2, iter = n, burnin = 100, proposal = ring)
  x <- fit$chains[[1]]$traces[, 1]
  expect_true(all(x %in% 0:4))
  for (k in 0:4) {
    ind <- as.numeric(x == k)
    expect_lt(abs(mean(ind) - five_pi[k + 1]), 5 * bm_se(ind))
  }
  # transition counts: N(i -> j) against the exact pi_i P_ij, and N(i->j) ~ N(j->i)
  from <- x[-n]
  to <- x[-1]
  for (i in 0:4) {
    j <- (i + 1) %% 5
    pij <- 0.5 * min(1, five_pi[j + 1] / five_pi[i + 1])
    ind_ij <- as.numeric(from == i & to == j)
    ind_ji <- as.numeric(from == j & to == i)
    expect_lt(abs(mean(ind_ij) - five_pi[i + 1] * pij), 5 * bm_se(ind_ij))
    nij <- sum(ind_ij)
    nji <- sum(ind_ji)
    expect_lt(abs(nij - nji), 5 * sqrt(nij + nji))
  }
})

test_that("extend() equals one longer run, also for adaptive MH", {
  for (ad in list(adapt_none(), adapt_scale(during = "always"),
                  adapt_haario(start = 20, during = "always"), adapt_haario(start = 20))) {
    set.seed(3)
    f1 <- sample_mh(gauss_ld, c(0, 0), iter = 150, burnin = 50, thin = 3,
                    chains = 2, proposal = proposal_rw(0.5), adapt = ad)
    f1 <- extend(f1, 150)
    set.seed(3)
    f2 <- sample_mh(gauss_ld, c(0, 0), iter = 300, burnin = 50, thin = 3,
                    chains = 2, proposal = proposal_rw(0.5), adapt = ad)
    for (c in 1:2) {
      expect_identical(f1$chains[[c]]$traces, f2$chains[[c]]$traces)
      expect_identical(f1$chains[[c]]$state, f2$chains[[c]]$state)
    }
  }
})

test_that("chunks not aligned with thin give the draws of one run", {
  # the kernel's step() called directly with cut points that are not
  # multiples of thin (the driver usually aligns them)
  fit <- sample_mh(gauss_ld, c(0, 0), iter = 10, burnin = 0,
                   proposal = proposal_rw(cov = gauss_S))
  k <- fit$kernel
  s0 <- k$init(1L)
  set.seed(5)
  a <- k$step(s0, 7, 3, 0, FALSE)
  b <- k$step(a$state, 11, 3, 7, FALSE)
  set.seed(5)
  ab <- k$step(s0, 18, 3, 0, FALSE)
  expect_identical(rbind(a$draws$traces, b$draws$traces), ab$draws$traces)
  expect_identical(b$state, ab$state)
  expect_equal(nrow(ab$draws$traces), 6)
})

test_that("random-walk MH in odd dimension (polar normals) has the exact moments", {
  skip_on_cran()
  # 3-D Gaussian, correlated proposal covariance (triangular factor), and a
  # 1-D target with a diagonal scale: both use an odd number of normals
  mu3 <- c(-1, 0, 2)
  S3 <- matrix(c(1, 0.5, 0.2, 0.5, 2, -0.3, 0.2, -0.3, 0.5), 3)
  P3 <- solve(S3)
  ld3 <- function(x) -0.5 * sum((x - mu3) * (P3 %*% (x - mu3)))
  set.seed(11)
  tr <- sample_mh(ld3, c(0, 0, 0), iter = 40000, burnin = 1000,
                  proposal = proposal_rw(cov = S3))$chains[[1]]$traces
  for (j in 1:3) {
    expect_lt(abs(mean(tr[, j]) - mu3[j]), 5 * bm_se(tr[, j]))
    v <- (tr[, j] - mu3[j])^2
    expect_lt(abs(mean(v) - S3[j, j]), 5 * bm_se(v))
  }
  set.seed(12)
  x <- sample_mh(function(x) dgamma(x, 3, 2, log = TRUE), 1, iter = 40000,
                 burnin = 1000, proposal = proposal_rw(1))$chains[[1]]$traces[, 1]
  expect_lt(abs(mean(x) - 1.5), 5 * bm_se(x))
  expect_lt(abs(mean(x^2) - (0.75 + 2.25)), 5 * bm_se(x^2))
})

test_that("extend() equals one longer run with proposals drawn by R functions", {
  # the R functions use R's generator inside the compiled loop
  prop <- proposal_mixture(list(
    proposal_custom(function(x) x + rnorm(2, sd = 0.5)),
    proposal_independent(draw = function() gauss_mu + rnorm(2) * 2,
                         log_density = function(y) sum(dnorm(y, gauss_mu, 2, log = TRUE)))))
  f2 <- expect_extend_matches(function(iter)
    sample_mh(gauss_ld, c(0, 0), iter = iter, burnin = 10, proposal = prop),
    iter = 60, more = 40, seed = 8)
  expect_equal(sum(f2$chains[[1]]$state$proposal_prop), 110)
})

test_that("sample_mh refuses bad tuning arguments with messages naming them", {
  expect_error(sample_mh(gauss_ld, c(0, 0), proposal = "rw"), "`proposal`")
  expect_error(sample_mh(gauss_ld, c(0, 0), adapt = 1), "`adapt`")
  expect_error(proposal_rw(scale = -1), "`scale`")
  expect_error(proposal_rw(cov = matrix(c(1, 2, 2, 1), 2)), "`cov`")
  expect_error(proposal_rw(cov = matrix(1:6, 2)), "`cov`")
  expect_error(proposal_mixture(list(proposal_rw()), weights = -1), "`weights`")
  expect_error(proposal_mixture(list(1)), "`proposals`")
  expect_error(proposal_custom(3), "`draw`")
  expect_error(adapt_scale(target_accept = 1.5), "`target_accept`")
  expect_error(adapt_scale(kappa = 2), "`kappa`")
  expect_error(adapt_haario(during = "sometimes"), "`during`")
  expect_error(sample_mh(gauss_ld, c(0, 0), burnin = 0, adapt = adapt_scale()), "`burnin`")
  expect_error(sample_mh(gauss_ld, c(0, 0), adapt = adapt_scale(),
                         proposal = proposal_independent(c(0, 0))), "random-walk")
  expect_error(sample_mh(gauss_ld, c(0, NA)), "`init`")
  expect_error(sample_mh(gauss_ld, c(0, 0), iter = 0), "`iter`")
  expect_error(sample_mh(gauss_ld, c(0, 0), thin = 1.5), "`thin`")
  expect_error(sample_mh(gauss_ld, c(0, 0), chains = -1), "`chains`")
  expect_error(sample_mh(gauss_ld, c(0, 0), proposal = proposal_rw(scale = c(1, 1, 1))),
               "`scale`")
  expect_error(sample_mh(gauss_ld, list(c(0, 0)), chains = 2), "`init`")
  expect_error(sample_mh(function(x) "a", c(0, 0)), "character string")
  expect_error(sample_mh(function(x) -Inf, c(0, 0)), "outside the support")
  inconsistent <- proposal_custom(function(x) x + 1, function(y, x) -Inf)
  expect_error(sample_mh(gauss_ld, c(0, 0), proposal = inconsistent, iter = 5, burnin = 0),
               "do not agree")
  nan_q <- proposal_custom(function(x) x + 1, function(y, x) NaN)
  expect_error(sample_mh(gauss_ld, c(0, 0), proposal = nan_q, iter = 5, burnin = 0),
               "proposal's `log_density` returned NaN")
  bad_draw <- proposal_custom(function(x) c(x, 1))
  expect_error(sample_mh(gauss_ld, c(0, 0), proposal = bad_draw, iter = 5, burnin = 0),
               "`draw` must return a numeric vector of length 2.*iteration 1")
})

test_that("MH rejects and counts proposals where the log density is NaN, and samples the truncated density", {
  set.seed(91)
  fit <- sample_mh(trunc_ld, init = c(0, 0), iter = 20000, burnin = 500,
                   proposal = proposal_rw(scale = 1.5), progress = FALSE)
  expect_trunc_moments(fit$chains[[1]]$traces)
  n_bad <- fit$chains[[1]]$state$n_nonfinite
  expect_gt(n_bad, 0)
  expect_output(print(fit), sprintf("Rejected:  %s proposed point", format_count(n_bad)))
  # the same with the general loop (adaptation) and with +Inf
  set.seed(92)
  fit <- sample_mh(function(x) if (abs(x[1]) < trunc_r) -sum(x^2) / 2 else Inf,
                   init = c(0, 0), iter = 2000, adapt = adapt_scale(), progress = FALSE)
  expect_true(all(abs(fit$chains[[1]]$traces[, 1]) < trunc_r))
  expect_gt(fit$chains[[1]]$state$n_nonfinite, 0)
  e <- tryCatch(sample_mh(trunc_ld, init = c(2, 0), progress = FALSE), error = function(e) e)
  expect_s3_class(e, "mcmix_error_init")
  expect_identical(e$arg, "init")
})
