# Exact answers for the table-driven enumeration tests (test-exact-sweep.R,
# test-impute-exact.R): the posterior over the partitions of a few rows
# for every family kind, with missing cells integrated out in closed form
# (also those the samplers impute), under the four partition priors;
# and the comparison of a fit's kept partitions with it.  Computed in R
# independently of the C code (helper-mixture.R: partitions, priors).

# ---- log marginal likelihood of the observed cells of one cluster ----------

# gaussian_mean: mu ~ N(m0, V0), x_i | mu ~ N(mu, S). The observed cells
# of the cluster are jointly Gaussian (any pattern of missing cells).
sw_lml_gmean <- function(X, S, m0, V0) {
  X <- as.matrix(X)
  d <- ncol(X)
  tx <- t(X)
  obs <- which(!is.na(tx))
  if (!length(obs)) return(0)
  v <- tx[obs]
  row <- (obs - 1L) %/% d + 1L
  col <- (obs - 1L) %% d + 1L
  C <- V0[col, col, drop = FALSE] + outer(row, row, "==") * S[col, col, drop = FALSE]
  r <- v - m0[col]
  -length(v) / 2 * log(2 * pi) - as.numeric(determinant(C)$modulus) / 2 -
    sum(r * solve(C, r)) / 2
}

# gaussian_niw, D = 2, rows complete, missing as a whole, or missing
# coordinate 2 only. Under the NIW prior the marginal parameters of
# coordinate 1, (mu_1, S_11) ~ NIW_1(m0[1], kappa, nu - 1, Psi[1, 1]), are
# independent of those of the regression of coordinate 2 on coordinate 1
# (the partition of the inverse-Wishart; Bartlett), so
#   p(x_obs) = p_1(x_1, all rows) p(complete rows) / p_1(x_1, complete rows).
sw_lml_niw <- function(X, m0, kappa, nu, Psi) {
  X <- as.matrix(X)
  X <- X[!is.na(X[, 1L]), , drop = FALSE]
  if (any(is.na(X[, 1L]))) stop("coordinate 1 must be observed in partial rows")
  if (!nrow(X)) return(0)
  comp <- !is.na(X[, 2L])
  l1 <- function(v) mx_lml_niw(matrix(v, ncol = 1L), m0[1L], kappa, nu - 1, Psi[1L, 1L, drop = FALSE])
  l1(X[, 1L]) + mx_lml_niw(X[comp, , drop = FALSE], m0, kappa, nu, Psi) - l1(X[comp, 1L])
}

# gaussian_diag: one Normal-inverse-gamma per column (NIW_1 with nu = 2
# shape, Psi = 2 rate), missing cells skipped.
sw_lml_diag <- function(X, m0, kappa, shape, rate) {
  X <- as.matrix(X)
  sum(vapply(seq_len(ncol(X)), function(j) {
    v <- X[!is.na(X[, j]), j]
    mx_lml_niw(matrix(v, ncol = 1L), m0[j], kappa, 2 * shape, matrix(2 * rate))
  }, 0))
}

# gaussian_iso: shared variance, s2 ~ IG(a0, b0), mu | s2 ~ N(m0, s2 / k0 I);
# rows missing as a whole are skipped.
sw_lml_iso <- function(X, m0, kappa, a0, b0) {
  X <- as.matrix(X)
  X <- X[stats::complete.cases(X), , drop = FALSE]
  n <- nrow(X)
  d <- ncol(X)
  if (!n) return(0)
  xb <- colMeans(X)
  kn <- kappa + n
  an <- a0 + n * d / 2
  bn <- b0 + (sum(sweep(X, 2L, xb)^2) + kappa * n / kn * sum((xb - m0)^2)) / 2
  lgamma(an) - lgamma(a0) + a0 * log(b0) - an * log(bn) + d / 2 * log(kappa / kn) -
    n * d / 2 * log(2 * pi)
}

sw_lml_bern <- function(X, a, b) {
  X <- as.matrix(X)
  sum(vapply(seq_len(ncol(X)), function(j) {
    v <- X[!is.na(X[, j]), j]
    lbeta(a + sum(v), b + length(v) - sum(v)) - lbeta(a, b)
  }, 0))
}

sw_lml_pois <- function(X, shape, rate) {
  X <- as.matrix(X)
  sum(vapply(seq_len(ncol(X)), function(j) {
    v <- X[!is.na(X[, j]), j]
    mx_lml_poisson(matrix(v, ncol = 1L), shape, rate)
  }, 0))
}

# categorical_dirichlet, codes 1..L (NA skipped), Dirichlet(a) prior.
sw_lml_cat <- function(v, a) {
  v <- v[!is.na(v)]
  nl <- tabulate(v, length(a))
  lgamma(sum(a)) - lgamma(sum(a) + length(v)) + sum(lgamma(a + nl) - lgamma(a))
}

# ---- the cases: family kind x missing-value mode ---------------------------

# Data of N rows (N <= 8) for a family kind, with missing cells by `na`:
#   "none"       complete data;
#   "integrated" a row missing as a whole (or a cell of a separable family),
#                integrated out by the samplers;
#   "imputed"    coordinate 2 of a joint Gaussian block missing in some
#                rows (imputed by the samplers); for gaussian_iso an error.
# Returns list(family, data, lml = function(rows) log p(x_obs[rows])), or
# NULL when the mode does not apply to the kind (a separable family has no
# partly missing block).
sw_case <- function(kind, na = c("none", "integrated", "imputed"), N = 5L) {
  na <- match.arg(na)
  stopifnot(N >= 5L, N <= 8L)
  xy <- rbind(c(-1.2, -0.9), c(-0.8, -1.1), c(0.9, 1.3), c(1.4, 0.8), c(0.1, 0.3),
              c(-0.2, 0.2), c(1.1, 0.9), c(-1.0, -0.7))[seq_len(N), ]
  cnt <- c(0, 1, 4, 6, 2, 3, 5, 1)[seq_len(N)]
  bin <- cbind(c(0, 0, 1, 1, 0, 1, 1, 0), c(0, 1, 1, 1, 0, 0, 1, 0))[seq_len(N), ]
  ct <- c(1L, 1L, 3L, 2L, 3L, 1L, 2L, 1L)[seq_len(N)]
  S <- matrix(c(0.5, 0.4, 0.4, 0.5), 2L); m0 <- c(0, 0); V0 <- diag(3, 2L)
  kap <- 0.5; nu <- 4; Psi <- diag(0.5, 2L)
  joint_na <- function(X) {
    if (na == "integrated") X[2L, ] <- NA
    if (na == "imputed") X[c(2L, 4L, 5L), 2L] <- NA
    X
  }
  cell_na <- function(X) {
    if (na == "integrated") X[2L, 1L] <- NA
    if (na == "integrated" && ncol(X) > 1L) X[4L, 2L] <- NA
    X
  }
  sep_only <- kind %in% c("gaussian_diag", "bernoulli_beta", "poisson_gamma",
                          "categorical_dirichlet", "product_mixed", "product_categorical")
  if (na == "imputed" && sep_only) return(NULL)
  switch(kind,
    gaussian_mean = {
      X <- joint_na(xy)
      list(family = gaussian_mean(cov = S, prior_mean = m0, prior_cov = V0), data = X,
           lml = function(r) sw_lml_gmean(X[r, , drop = FALSE], S, m0, V0))
    },
    gaussian_niw = {
      X <- joint_na(xy)
      list(family = gaussian_niw(prior_mean = m0, kappa = kap, df = nu, scale = Psi), data = X,
           lml = function(r) sw_lml_niw(X[r, , drop = FALSE], m0, kap, nu, Psi))
    },
    gaussian_diag = {
      X <- cell_na(xy)
      list(family = gaussian_diag(prior_mean = m0, kappa = kap, shape = 2, rate = 0.5),
           data = X, lml = function(r) sw_lml_diag(X[r, , drop = FALSE], m0, kap, 2, 0.5))
    },
    gaussian_iso = {
      X <- joint_na(xy)
      list(family = gaussian_iso(prior_mean = m0, kappa = kap, shape = 2, rate = 0.5),
           data = X, lml = function(r) sw_lml_iso(X[r, , drop = FALSE], m0, kap, 2, 0.5))
    },
    bernoulli_beta = {
      X <- cell_na(bin)
      list(family = bernoulli_beta(a = 0.5, b = 0.5), data = X,
           lml = function(r) sw_lml_bern(X[r, , drop = FALSE], 0.5, 0.5))
    },
    poisson_gamma = {
      v <- cnt
      if (na == "integrated") v[2L] <- NA
      list(family = poisson_gamma(shape = 2, rate = 1), data = matrix(v, ncol = 1L),
           lml = function(r) sw_lml_pois(v[r], 2, 1))
    },
    categorical_dirichlet = {
      v <- ct
      if (na == "integrated") v[2L] <- NA
      a <- c(0.5, 0.5, 0.5)
      list(family = categorical_dirichlet(alpha = a),
           data = factor(c("a", "b", "c")[v], levels = c("a", "b", "c")),
           lml = function(r) sw_lml_cat(v[r], a))
    },
    product_family = {
      X <- joint_na(xy)
      v <- cnt
      k <- ct
      if (na == "integrated") { v[3L] <- NA; k[4L] <- NA }
      df <- data.frame(x = X[, 1L], y = X[, 2L], n = v,
                       k = factor(c("a", "b", "c")[k], levels = c("a", "b", "c")))
      a <- c(0.5, 0.5, 0.5)
      list(family = product_family(xy = gaussian_niw(prior_mean = m0, kappa = kap, df = nu,
                                                     scale = Psi),
                                   n = poisson_gamma(shape = 2, rate = 1),
                                   k = categorical_dirichlet(alpha = a),
                                   .columns = list(xy = c("x", "y"))),
           data = df,
           lml = function(r) sw_lml_niw(X[r, , drop = FALSE], m0, kap, nu, Psi) +
             sw_lml_pois(v[r], 2, 1) + sw_lml_cat(k[r], a))
    },
    # a continuous (gaussian_diag), a categorical and a count column, each
    # with missing cells ("integrated"; a row may miss several)
    product_mixed = {
      g <- xy[, 1L]
      v <- cnt
      k <- ct
      if (na == "integrated") {
        g[3L] <- NA
        k[4L] <- NA
        v[5L] <- NA
        if (N >= 8L) { g[8L] <- NA; k[8L] <- NA }
      }
      df <- data.frame(g = g, k = factor(c("a", "b", "c")[k], levels = c("a", "b", "c")),
                       n = v)
      a <- c(0.5, 0.5, 0.5)
      list(family = product_family(g = gaussian_diag(prior_mean = 0, kappa = kap, shape = 2,
                                                     rate = 0.5),
                                   k = categorical_dirichlet(alpha = a),
                                   n = poisson_gamma(shape = 2, rate = 1)),
           data = df,
           lml = function(r) sw_lml_diag(g[r], 0, kap, 2, 0.5) + sw_lml_cat(k[r], a) +
             sw_lml_pois(v[r], 2, 1))
    },
    # the model of lca(): categorical columns (the answers to three
    # questions), Dirichlet(1) priors; a missing answer ("integrated")
    product_categorical = {
      q <- cbind(c(2L, 2L, 1L, 2L, 1L, 1L, 2L, 1L), c(2L, 2L, 2L, 2L, 1L, 1L, 1L, 1L),
                 c(1L, 1L, 2L, 1L, 3L, 3L, 2L, 3L))[seq_len(N), ]
      if (na == "integrated") q[4L, 2L] <- NA
      lv <- list(c("n", "y"), c("n", "y"), c("a", "b", "c"))
      df <- as.data.frame(lapply(1:3, function(j) factor(lv[[j]][q[, j]], levels = lv[[j]])))
      names(df) <- c("q1", "q2", "q3")
      list(family = product_family(q1 = categorical_dirichlet(alpha = c(1, 1)),
                                   q2 = categorical_dirichlet(alpha = c(1, 1)),
                                   q3 = categorical_dirichlet(alpha = c(1, 1, 1))),
           data = df,
           lml = function(r) sw_lml_cat(q[r, 1L], c(1, 1)) + sw_lml_cat(q[r, 2L], c(1, 1)) +
             sw_lml_cat(q[r, 3L], c(1, 1, 1)))
    },
    stop("unknown kind ", kind))
}

# ---- partition priors ------------------------------------------------------

# The four priors of the sweep: the dp_mixture() arguments and the exact
# posterior over the partitions P given their log-likelihoods.
sw_priors <- list(
  fixed = list(alpha = 1, discount = 0),
  gamma = list(alpha = gamma_prior(2, 2), discount = 0),
  py = list(alpha = 0.5, discount = 0.3),
  beta = list(alpha = 0.5, discount = beta_prior(2, 3)))

sw_exact <- function(P, loglik, prior) {
  a <- sw_priors[[prior]]
  switch(prior,
    fixed = mx_posterior(P, loglik, apply(P, 1L, mx_lprior_dp, alpha = a$alpha)),
    py = mx_posterior(P, loglik, apply(P, 1L, mx_lprior_py, alpha = a$alpha, d = a$discount)),
    gamma = {
      # p(z) = prod Gamma(n_k) * int alpha^K Gamma(alpha) / Gamma(alpha + n) Ga(alpha) d alpha
      n <- ncol(P)
      IK <- vapply(seq_len(n), function(K) stats::integrate(function(al)
        exp(K * log(al) + lgamma(al) - lgamma(al + n) +
              stats::dgamma(al, a$alpha$shape, a$alpha$rate, log = TRUE)),
        0, Inf, rel.tol = 1e-10)$value, 0)
      lp <- apply(P, 1L, function(z) sum(lgamma(mx_sizes(z))) + log(IK[max(z)]))
      mx_posterior(P, loglik, lp)
    },
    beta = {
      # p(z) = int p(z | d) Beta(d) dd, which depends on the block sizes only
      key <- apply(P, 1L, function(z) paste(sort(mx_sizes(z)), collapse = " "))
      u <- unique(key)
      lpu <- vapply(u, function(k) {
        z <- rep(seq_along(nk <- as.integer(strsplit(k, " ")[[1L]])), nk)
        log(stats::integrate(function(g) vapply(g, function(d)
          exp(mx_lprior_py(z, a$alpha, d) +
                stats::dbeta(d, a$discount$a, a$discount$b, log = TRUE)), 0),
          0, 1, rel.tol = 1e-10)$value)
      }, 0)
      mx_posterior(P, loglik, lpu[key])
    })
}

# The partitions of N items (memoised: 4140 rows at N = 8).
sw_memo <- new.env(parent = emptyenv())
sw_partitions <- function(N) {
  key <- paste0("P", N)
  if (is.null(sw_memo[[key]])) sw_memo[[key]] <- mx_partitions(N)
  sw_memo[[key]]
}

# log p(x | partition) of every partition of the case's rows: the log
# marginal likelihood of each of the 2^N - 1 subsets once, then a sum per
# partition over its blocks (their subsets' indices from the labels).
sw_case_ll <- function(case) {
  N <- NROW(case$data)
  P <- sw_partitions(N)
  L <- vapply(seq_len(2^N - 1), function(m) case$lml(which(bitwAnd(m, 2^(0:(N - 1))) > 0)), 0)
  w <- 2^(0:(N - 1))
  rowSums(vapply(seq_len(N), function(k) {
    m <- as.vector((P == k) %*% w)
    ifelse(m > 0, L[pmax(m, 1)], 0)
  }, numeric(nrow(P))))
}

# Exact posterior of a case under a prior (named by partition key); `ll`
# from sw_case_ll() (computed when NULL).
sw_case_exact <- function(case, prior, ll = NULL) {
  P <- sw_partitions(NROW(case$data))
  if (is.null(ll)) ll <- sw_case_ll(case)
  sw_exact(P, ll, prior)
}

# ---- comparing a sampler with the exact posterior ---------------------------

# The compared statistics of kept partitions Z (draws x N): P(K = k),
# k = 1..N, and P(i and j together) for every pair; for the exact
# posterior p over the partitions P (rows, in the order of names(p)).
sw_stats <- function(Z) {
  N <- ncol(Z)
  K <- apply(Z, 1L, function(z) length(unique(z)))
  s <- lapply(seq_len(N), function(k) as.numeric(K == k))
  names(s) <- paste0("P(K=", seq_len(N), ")")
  for (i in seq_len(N - 1L)) for (j in (i + 1L):N)
    s[[sprintf("P(%d~%d)", i, j)]] <- as.numeric(Z[, i] == Z[, j])
  do.call(cbind, s)
}

# z-scores of the sampled statistics against the exact ones. Standard
# error: the larger of batch means with 25 and with 10 batches (short runs
# of slowly mixing chains -- imputed cells move the partition slowly --
# have autocorrelations longer than 25 small batches see), floored by the
# i.i.d. one so a statistic that never moved in a short run still counts.
# `n_eff` (optional) replaces the number of draws in that floor: short runs
# visit partitions of small probability in rare bursts, which batch means
# miss when no burst falls in the run; the effective sample size of the
# number of clusters (ess()) is then the scale of the Monte Carlo error.
sw_zscores <- function(Z, p, n_eff = NULL) {
  N <- ncol(Z)
  key <- paste0("S", N)
  if (is.null(sw_memo[[key]])) {
    P <- sw_partitions(N)
    sw_memo[[key]] <- list(keys = mx_keys(P), stats = sw_stats(P))
  }
  ps <- sw_memo[[key]]
  stopifnot(identical(ps$keys, names(p)))
  exact <- colSums(ps$stats * p)
  draws <- sw_stats(Z)
  S <- nrow(draws)
  bm <- function(nb) {
    bs <- S %/% nb
    apply(draws[seq_len(bs * nb), , drop = FALSE], 2L, function(v)
      stats::sd(colMeans(matrix(v, bs))) / sqrt(nb))
  }
  n0 <- if (is.null(n_eff) || !is.finite(n_eff)) S else min(S, n_eff)
  se <- pmax(bm(25L), bm(10L), sqrt(exact * (1 - exact) / n0))
  est <- colMeans(draws)
  list(z = (est - exact) / se, est = est, exact = exact, se = se)
}

# The family kinds of the sweep (test-exact-sweep.R; sw_case() builds each).
sw_all_kinds <- c("gaussian_mean", "gaussian_niw", "gaussian_diag", "gaussian_iso",
                  "bernoulli_beta", "poisson_gamma", "categorical_dirichlet",
                  "product_family", "product_mixed", "product_categorical")

# The sweep's kind of every built-in family (src/family_builtin.h), or,
# for a family the sweep cannot enumerate, the test file that compares it
# with an exact posterior instead; test-recipes.R checks that every
# built-in family has one or the other.
sw_family_kind <- c(gaussian_mean = "gaussian_mean", gaussian_niw = "gaussian_niw",
                    gaussian_diag = "gaussian_diag", gaussian_iso = "gaussian_iso",
                    bernoulli_beta = "bernoulli_beta", poisson_gamma = "poisson_gamma",
                    categorical_dirichlet = "categorical_dirichlet", product = "product_family")
# non-conjugate (neal8 only): enumerated there with marginal likelihoods by
# quadrature
sw_family_elsewhere <- c(gaussian_nonconj = "test-dp-algorithms-exact.R")

# The samplers of the sweep: name -> sample_posterior() arguments. Every
# one runs with the state verified after every move (check_moves of
# dp_control_testing(): the labels, sizes and every cluster's statistics
# against those recomputed from its members, an error naming the move
# otherwise); "subcluster_small" with the size thresholds lowered too (the
# thinning of the split / merge moves from unions of 3, the 2-means
# sub-clusters fitted to a subsample from 4 members, the sequential
# allocation gathering 2 members at a time), so that the code paths of
# large clusters run on these few rows.
sw_algorithms <- list(
  collapsed = list(algorithm = "collapsed"),
  neal8 = list(algorithm = "neal8"),
  slice = list(algorithm = "slice"),
  split_merge_sams = list(algorithm = "split_merge", control = dp_control(proposal = "sams")),
  split_merge_rgibbs = list(algorithm = "split_merge",
                            control = dp_control(proposal = "restricted_gibbs")),
  subcluster = list(algorithm = "subcluster"),
  subcluster_small = list(algorithm = "subcluster", small = TRUE))

# The sample_posterior() arguments of algorithm `alg`: its row above with
# the testing settings (dp_control_testing(), R/testing.R) applied.
sw_alg_args <- function(alg) {
  a <- sw_algorithms[[alg]]
  ctl <- if (is.null(a$control)) dp_control() else a$control
  a$control <- mcmix:::dp_control_testing(ctl, small = isTRUE(a$small), check = TRUE)
  a$small <- NULL
  a
}

# Run one combination; returns the z-scores (or the error when the
# combination is refused).
sw_run <- function(kind, na, prior, alg, iter, seed = 1L, N = 5L) {
  case <- sw_case(kind, na, N)
  if (is.null(case)) return(NULL)
  a <- sw_priors[[prior]]
  args <- c(list(dp_mixture(case$family, alpha = a$alpha, discount = a$discount), case$data,
                 iter = iter, burnin = 200L, progress = FALSE), sw_alg_args(alg))
  set.seed(seed)
  fit <- tryCatch(do.call(sample_posterior, args), error = function(e) e)
  if (inherits(fit, "error")) return(fit)
  c(sw_zscores(partition_draws(fit), sw_case_exact(case, prior)), list(fit = fit))
}

# One combination of the sweep (test-exact-sweep.R): sampled and compared
# with the exact posterior `ex` (or the refusal asserted), one expectation
# labelled with the combination.
sw_expect <- function(case, kind, na, prior, alg, N, iter, zmax, ex, refusal = NULL) {
  label <- sprintf("[N = %d, family %s, missing %s, prior %s, algorithm %s]", N, kind, na,
                   prior, alg)
  a <- sw_priors[[prior]]
  args <- c(list(dp_mixture(case$family, alpha = a$alpha, discount = a$discount),
                 case$data, iter = iter, burnin = 200L, progress = FALSE),
            sw_alg_args(alg))
  if (!is.null(refusal)) {
    expect_error(do.call(sample_posterior, args), refusal, label = label)
    return(invisible())
  }
  set.seed(1)
  fit <- tryCatch(do.call(sample_posterior, args), error = function(e) e)
  if (inherits(fit, "error")) {
    fail(sprintf("%s: %s", label, conditionMessage(fit)))
    return(invisible())
  }
  Z <- partition_draws(fit)
  K <- apply(Z, 1L, function(zz) length(unique(zz)))
  z <- sw_zscores(Z, ex, n_eff = if (stats::var(K) > 0) ess(K))$z
  expect_lt(max(abs(z)), zmax,
            label = sprintf("%s: max |z| (%s)", label, names(z)[which.max(abs(z))]))
}
