# Geweke (2004) joint-distribution tests of the Pitman-Yor samplers with a
# random discount. The successive-conditional simulator alternates one
# sweep of the sampler (partition, discount | x) with a draw of x given the
# state; the statistics right after the sweep must follow their prior law,
# obtained by forward simulation: d ~ Beta(a, b), z ~ CRP(alpha, d) (rcrp(),
# itself tested against the exact Pitman-Yor EPPF), x | z. Compared: d
# (Kolmogorov-Smirnov), the number of clusters (chi-square) and the
# within-cluster sum of squares of x (Kolmogorov-Smirnov), which couples the
# partition with the data. Thinned so that kept draws are nearly
# independent.

test_that("the random-discount samplers pass a Geweke joint-distribution test", {
  skip_on_cran()
  set.seed(202)
  N <- 6; alpha <- 0.8; a <- 2; b <- 2; s2 <- 1; m0 <- 0; s0 <- 4
  draw_x <- function(z) geweke_draw_x(z, s2, m0, s0)  # x | z, means integrated out
  wss <- geweke_wss
  n_fwd <- 20000
  fwd <- t(replicate(n_fwd, {
    d <- stats::rbeta(1, a, b)
    z <- rcrp(N, alpha, discount = d)
    c(d, length(unique(z)), wss(draw_x(z), z))
  }))
  fam <- gaussian_mean(cov = s2, prior_mean = m0, prior_cov = s0)
  model <- dp_mixture(fam, alpha = alpha, discount = beta_prior(a, b))
  prep <- mcmix:::family_prepare(fam, rnorm(N))
  run <- function(alg, discount_prior = c(a, b)) {
    k <- mcmix:::dp_kernel(model, prep, alg, "prior", dp_control())
    spec <- k$spec
    spec$discount_prior <- discount_prior
    state <- k$init(1)
    x <- draw_x(state$labels + 1L)
    thin <- 10; n_keep <- 2000
    sc <- matrix(0, n_keep, 3)
    for (g in seq_len(n_keep * thin)) {
      state["stats"] <- list(NULL)       # x changed: stats from the labels
      r <- .Call(mcmix:::C_ffi_dp_step, spec, matrix(x, nrow = 1), state,
                 c(1L, 1L, as.integer(g - 1L), 0L))
      state <- r$state
      z <- state$labels
      if (g %% thin == 0) sc[g / thin, ] <- c(state$discount, length(unique(z)), wss(x, z))
      # neal8 instantiates the means: x | z, theta; else x | z
      x <- if (alg == "neal8") stats::rnorm(N, state$params[1, z + 1L], sqrt(s2))
           else draw_x(z)
    }
    sc
  }
  # power: a sampler with the wrong prior on the discount fails
  sc <- run("collapsed", c(2, 4))
  expect_lt(suppressWarnings(stats::ks.test(sc[, 1], fwd[, 1])$p.value), 0.001)
  for (alg in c("collapsed", "split_merge", "neal8")) {
    sc <- run(alg)
    expect_gt(suppressWarnings(stats::ks.test(sc[, 1], fwd[, 1])$p.value), 0.001,
              label = paste(alg, "discount"))
    expect_gt(suppressWarnings(stats::ks.test(sc[, 3], fwd[, 3])$p.value), 0.001,
              label = paste(alg, "wss"))
    expect_gt(geweke_count_pvalue(sc[, 2], fwd[, 2], N), 0.001,
              label = paste(alg, "K"))
  }
})
