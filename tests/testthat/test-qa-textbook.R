# Independent checks of reversible jump, MAP partitions and Bayesian
# networks against exact answers on data sets and networks other than the
# ones in test-rjmcmc.R, test-map-partition.R and test-bayesnet.R.

test_that("collapsed RJMCMC matches p(K | y) by enumerating all allocations (Poisson-gamma)", {
  skip_on_cran()
  y <- c(0, 1, 3, 2, 8, 10, 9, 15); sh <- 2; rt <- 0.3; kmax <- 4; delta <- 0.7
  kp <- c(0.1, 0.2, 0.3, 0.4)
  lmp <- function(v) {
    n <- length(v)
    if (!n) return(0)
    sh * log(rt) - lgamma(sh) + lgamma(sh + sum(v)) - (sh + sum(v)) * log(rt + n) -
      sum(lgamma(v + 1))
  }
  # p(y | K) = sum over labelled allocations of Dirichlet-multinomial times
  # the Poisson-gamma marginals
  lpk <- vapply(seq_len(kmax), function(K) {
    Z <- as.matrix(expand.grid(rep(list(seq_len(K)), length(y))))
    a <- rep(delta, K)
    lz <- apply(Z, 1L, function(z) {
      n <- tabulate(z, K)
      lgamma(sum(a)) - lgamma(sum(a) + length(y)) + sum(lgamma(a + n) - lgamma(a)) +
        sum(vapply(seq_len(K), function(k) lmp(y[z == k]), 0))
    })
    max(lz) + log(sum(exp(lz - max(lz))))
  }, 0)
  lpost <- lpk + log(kp)
  ex <- exp(lpost - max(lpost)); ex <- ex / sum(ex)
  set.seed(5)
  fit <- sample_posterior(rj_mixture(poisson_gamma(sh, rt), k_max = kmax, k_prior = kp,
                                     delta = delta), y,
                          iter = 10000, burnin = 1000, chains = 2, progress = FALSE)
  pk <- posterior_k(fit)
  est <- pk$prob[match(seq_len(kmax), pk$K)]
  est[is.na(est)] <- 0
  se <- pk$mcse[match(seq_len(kmax), pk$K)]
  se[is.na(se)] <- 0
  expect_true(all(abs(est - ex) < 4 * se + 0.005))
})

test_that("Richardson-Green sampler reproduces the published galaxy p(K) (RG 1997, Table 1)", {
  skip_on_cran()
  y <- MASS::galaxies / 1000
  set.seed(11)
  fit <- sample_posterior(rj_mixture(), y, iter = 15000, burnin = 3000, progress = FALSE)
  pk <- posterior_k(fit)
  p <- stats::setNames(pk$prob, pk$K)
  # Table 1 of Richardson and Green (1997), galaxy data, uniform p(K) on 1..30
  rg <- c(`3` = 0.061, `4` = 0.128, `5` = 0.182, `6` = 0.199, `7` = 0.160, `8` = 0.109)
  expect_true(as.integer(names(p)[which.max(p)]) %in% 5:7)
  expect_true(all(abs(p[names(rg)] - rg) < 0.06))
  expect_lt(sum(p[as.integer(names(p)) <= 2]), 0.01)
})

test_that("map_partition() finds the exact MAP of Bernoulli-beta mixtures (brute force)", {
  Y <- rbind(c(1, 1, 0), c(1, 1, 1), c(1, 0, 0), c(1, 1, 0), c(0, 0, 1), c(0, 1, 1),
             c(0, 0, 1), c(0, 0, 0), c(1, 1, 1))
  a0 <- 0.5; b0 <- 0.5; K <- 3; alpha <- 1.5; N <- nrow(Y)
  rgs <- function(n) {
    out <- list(1L)
    for (i in 2:n) out <- unlist(lapply(out, function(z) lapply(seq_len(max(z) + 1L),
                                                                function(k) c(z, k))),
                                 recursive = FALSE)
    do.call(rbind, out)
  }
  P <- rgs(N)
  lml <- function(v) {
    s <- colSums(v); n <- nrow(v)
    sum(lbeta(a0 + s, b0 + n - s) - lbeta(a0, b0))
  }
  score <- function(z, fin) {
    j <- max(z); n <- tabulate(z)
    ll <- sum(vapply(seq_len(j), function(k) lml(Y[z == k, , drop = FALSE]), 0))
    if (fin) {
      if (j > K) return(-Inf)
      ll + lfactorial(K) - lfactorial(K - j) + lgamma(alpha) - lgamma(alpha + N) +
        sum(lgamma(alpha / K + n) - lgamma(alpha / K))
    } else ll + j * log(alpha) + sum(lgamma(n)) + lgamma(alpha) - lgamma(alpha + N)
  }
  for (fin in c(TRUE, FALSE)) {
    lp <- apply(P, 1L, score, fin = fin)
    best <- P[which.max(lp), ]
    expect_gt(max(lp) - sort(lp, decreasing = TRUE)[2L], 1e-3)
    model <- if (fin) finite_mixture(bernoulli_beta(a0, b0), K = K, alpha = alpha) else
      dp_mixture(bernoulli_beta(a0, b0), alpha = alpha)
    inits <- list("prior", "one", "singletons", rep(1:3, 3))
    for (s in seq_along(inits)) {
      set.seed(s)
      mp <- map_partition(model, Y, restarts = 1, init = inits[[s]])
      expect_identical(as.integer(mp$labels), as.integer(best))
      expect_equal(mp$log_post, max(lp), tolerance = 1e-8)
    }
  }
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(mp), mp)
})

# A five-node network with a loop (A -> B -> D <- C <- A), a three-level
# root, and its tree-structured variant; exact answers by brute force.
qa_net <- local({
  L3 <- c("lo", "mid", "hi"); yn <- c("y", "n")
  A <- c(lo = 0.3, mid = 0.5, hi = 0.2)
  B <- array(c(0.9, 0.1, 0.5, 0.5, 0.2, 0.8), c(2, 3), list(B = yn, A = L3))
  C <- array(c(0.1, 0.3, 0.6, 0.7, 0.2, 0.1, 0.3, 0.4, 0.3), c(3, 3), list(C = L3, A = L3))
  D <- array(c(0.95, 0.05, 0.6, 0.4, 0.5, 0.5, 0.3, 0.7, 0.2, 0.8, 0.01, 0.99), c(2, 2, 3),
             list(D = yn, B = yn, C = L3))
  D2 <- array(c(0.9, 0.1, 0.2, 0.8), c(2, 2), list(D = yn, B = yn))
  E <- array(c(0.8, 0.2, 0.25, 0.75), c(2, 2), list(E = yn, D = yn))
  lv <- list(A = L3, B = yn, C = L3, D = yn, E = yn)
  grid <- expand.grid(A = 1:3, B = 1:2, C = 1:3, D = 1:2, E = 1:2)
  joint <- function(Dt) apply(grid, 1L, function(g) {
    dpart <- if (length(dim(Dt)) == 3L) Dt[g["D"], g["B"], g["C"]] else Dt[g["D"], g["B"]]
    A[g["A"]] * B[g["B"], g["A"]] * C[g["C"], g["A"]] * dpart * E[g["E"], g["D"]]
  })
  brute <- function(p, ev) {
    keep <- rep(TRUE, nrow(grid))
    for (v in names(ev)) keep <- keep & grid[[v]] == match(ev[[v]], lv[[v]])
    pp <- p * keep
    list(marg = lapply(stats::setNames(names(lv), names(lv)), function(v)
      stats::setNames(as.vector(tapply(pp, grid[[v]], sum)) / sum(pp), lv[[v]])),
      logZ = log(sum(pp)), map = grid[which.max(pp), ], maxlp = log(max(pp)))
  }
  list(loop = bayes_net(list(A = A, B = B, C = C, D = D, E = E)),
       tree = bayes_net(list(A = A, B = B, C = C, D = D2, E = E)),
       p_loop = joint(D), p_tree = joint(D2), brute = brute, lv = lv)
})

test_that("Bayes-net marginals, evidence and MAP equal brute force on a loopy network", {
  ev <- list(E = "y")
  ex <- qa_net$brute(qa_net$p_loop, ev)
  bm <- bn_marginals(qa_net$loop, evidence = ev)
  for (v in c("A", "B", "C", "D")) expect_equal(unname(bm[[v]]), unname(ex$marg[[v]]), tolerance = 1e-12)
  expect_equal(attr(bm, "log_evidence"), ex$logZ, tolerance = 1e-12)
  expect_error(bn_marginals(qa_net$loop, evidence = list(E = "n"), method = "sum_product"),
               "tree")
  for (m in c("auto", "anneal")) {
    set.seed(7)
    mp <- bn_map(qa_net$loop, evidence = ev, method = m)
    expect_equal(mp$log_prob, ex$maxlp, tolerance = 1e-12)
    expect_identical(unname(mp$state),
                     vapply(c("A", "B", "C", "D"), function(v)
                       qa_net$lv[[v]][ex$map[[v]]], "", USE.NAMES = FALSE))
  }
  skip_on_cran()
  set.seed(3)
  fit <- sample_posterior(qa_net$loop, ev, iter = 20000, burnin = 1000, progress = FALSE)
  pm <- posterior_marginals(fit)
  se <- attr(pm, "mcse")
  for (v in c("A", "B", "C", "D"))
    expect_true(all(abs(pm[[v]] - ex$marg[[v]]) < 4 * se[[v]] + 1e-3))
})

test_that("sum-product and max-product equal brute force on a tree with evidence", {
  ev <- list(E = "n", C = "hi")
  ex <- qa_net$brute(qa_net$p_tree, ev)
  sp <- bn_marginals(qa_net$tree, evidence = ev, method = "sum_product")
  for (v in c("A", "B", "D")) expect_equal(unname(sp[[v]]), unname(ex$marg[[v]]), tolerance = 1e-12)
  expect_equal(attr(sp, "log_evidence"), ex$logZ, tolerance = 1e-12)
  mx <- bn_map(qa_net$tree, evidence = ev, method = "max_product")
  expect_equal(mx$log_prob, ex$maxlp, tolerance = 1e-12)
  # observing C cuts the loop: sum-product applies to the loopy network too
  ex2 <- qa_net$brute(qa_net$p_loop, ev)
  sp2 <- bn_marginals(qa_net$loop, evidence = ev, method = "sum_product")
  for (v in c("A", "B", "D")) expect_equal(unname(sp2[[v]]), unname(ex2$marg[[v]]), tolerance = 1e-12)
})

test_that("bn_map() checks its annealing arguments whatever the method", {
  asia <- bayes_net_asia()
  expect_error(bn_map(asia, schedule = "a"), "`schedule`")
  expect_error(bn_map(asia, schedule = -1), "`schedule`")
  expect_error(bn_map(asia, restarts = 0), "`restarts`")
  expect_error(bn_map(asia, restarts = NA), "`restarts`")
  expect_error(bn_map(asia, max_icm = -1), "`max_icm`")
  expect_error(bn_map(asia, blocks = list("nonode")), "`blocks`")
  expect_error(bn_map(asia, method = "enumerate", restarts = "a"), "`restarts`")
})

test_that("Gibbs sampling refuses evidence of probability zero instead of returning -Inf draws", {
  asia <- bayes_net_asia()
  set.seed(1)
  expect_error(sample_posterior(asia, list(either = "no", tub = "yes"), iter = 50,
                                progress = FALSE), "`data` has probability zero")
  expect_error(bn_map(asia, evidence = list(either = "no", tub = "yes"), method = "anneal"),
               "`evidence` has probability zero")
  # rare but possible evidence still starts from a state of positive probability
  set.seed(2)
  fit <- sample_posterior(asia, list(either = "yes", tub = "yes", lung = "yes", asia = "yes"),
                          iter = 50, progress = FALSE)
  expect_true(all(is.finite(fit$chains[[1]]$traces[, "log_prob"])))
})

test_that("Richardson-Green RJMCMC matches p(K | y) by enumeration and quadrature (other data, priors)", {
  skip_on_cran()
  y <- c(-1.2, -0.8, 0.9, 1.4, 3.1); N <- length(y)
  xi <- 0.5; kappa <- 0.2; al <- 2; g <- 0.5; h <- 1; delta <- 1; kmax <- 4
  # one cluster's marginal given the precision tau: N(v; xi 1, I / tau + 11' / kappa)
  lm_tau <- function(v, tau) {
    n <- length(v); s2 <- 1 / tau; t2 <- 1 / kappa; r <- v - xi
    -0.5 * n * log(2 * pi) - 0.5 * ((n - 1) * log(s2) + log(s2 + n * t2)) -
      0.5 * (sum(r^2) - t2 * sum(r)^2 / (s2 + n * t2)) / s2
  }
  # ... integrated over tau ~ Gamma(alpha, beta) on a log grid
  m_beta <- function(v, beta) {
    if (!length(v)) return(1)
    uu <- seq(log(al / beta) - 20, log(al / beta) + 20, length.out = 4001)
    lf <- stats::dgamma(exp(uu), al, beta, log = TRUE) + lm_tau(v, exp(uu)) + uu
    lf[!is.finite(lf)] <- -Inf
    sum(exp(lf - max(lf))) * (uu[2] - uu[1]) * exp(max(lf))
  }
  subsets <- lapply(0:(2^N - 1), function(b) which(bitwAnd(b, 2^(0:(N - 1))) > 0))
  allocs <- lapply(seq_len(kmax), function(K) as.matrix(expand.grid(rep(list(seq_len(K)), N))))
  key <- function(idx) sum(2^(idx - 1)) + 1
  pyk_beta <- function(beta) {
    ms <- vapply(subsets, function(S) m_beta(y[S], beta), 0)
    vapply(seq_len(kmax), function(K) {
      a <- rep(delta, K)
      sum(apply(allocs[[K]], 1L, function(z) {
        n <- tabulate(z, K)
        exp(lgamma(sum(a)) - lgamma(sum(a) + N) + sum(lgamma(a + n) - lgamma(a))) *
          prod(vapply(seq_len(K), function(k) ms[key(which(z == k))], 0))
      }))
    }, 0)
  }
  # ... and over beta ~ Gamma(g, h) on a log grid
  lb <- seq(log(1e-6), log(1e3), length.out = 300)
  vals <- t(vapply(exp(lb), function(b) pyk_beta(b) * stats::dgamma(b, g, h) * b, numeric(kmax)))
  ex <- colSums(vals) / sum(vals)
  set.seed(21)
  fit <- sample_posterior(rj_mixture(rg_prior(xi = xi, kappa = kappa, alpha = al, g = g, h = h),
                                     k_max = kmax, delta = delta), y,
                          iter = 15000, burnin = 2000, progress = FALSE)
  pk <- posterior_k(fit)
  expect_equal(pk$K, 1:4)
  expect_true(all(abs(pk$prob - ex) < 4 * pk$mcse + 0.005))
})
