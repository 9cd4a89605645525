# Chib's candidate method (Murphy 2012, section 24.7.1, eq. 24.108;
# Chib 1995): log p(y) = log p(y | theta*) + log p(theta*) - log p(theta* | y)
# at a point theta* of high posterior density, the posterior ordinate
# estimated by Rao-Blackwellisation over the Gibbs output (and reduced runs
# for the blocks after the first).  The reduced runs are done here in R on
# the closed-form full conditionals, so the compiled samplers are untouched.

#' Chib's candidate method for the evidence of a Gibbs fit
#'
#' Computes the log marginal likelihood by the identity (Murphy 2012,
#' eq. 24.108; Chib 1995)
#' \deqn{\log p(y) = \log p(y \mid \theta^*) + \log p(\theta^*) -
#'   \log p(\theta^* \mid y)}
#' at a point \eqn{\theta^*} of high posterior density, estimating the
#' posterior ordinate from the Gibbs output with the full conditionals:
#'
#' * [probit_gibbs()]: \eqn{\theta^* = } the posterior mean of
#'   \eqn{\beta}; \eqn{p(\beta^* \mid y)} is the average over the draws of
#'   the normal full conditional \eqn{N(\beta^*; B_n(B_0^{-1} b_0 + X^\top
#'   z), B_n)}, \eqn{B_n = (B_0^{-1} + X^\top X)^{-1}}, with the latent
#'   \eqn{z} drawn from its truncated-normal full conditional given each
#'   stored \eqn{\beta} (Chib 1995, section 3.1; Albert and Chib 1993).
#' * [hier_lm_gibbs()]: \eqn{\theta^* = (\mu^*, \Sigma^*, \sigma^{2*})}
#'   (posterior means), the group coefficients integrated out in closed
#'   form for \eqn{p(y \mid \theta^*)}; the ordinate is
#'   \eqn{p(\sigma^{2*} \mid y)\, p(\mu^* \mid \sigma^{2*}, y)\,
#'   p(\Sigma^* \mid \mu^*, \sigma^{2*}, y)}: the first factor averages the
#'   inverse-gamma full conditional over the Gibbs output, the other two
#'   average the normal and inverse-Wishart full conditionals (Hoff 2009,
#'   section 11.2) over two reduced Gibbs runs of `n_reduced` iterations
#'   with \eqn{\sigma^2}, then also \eqn{\mu}, held fixed (Chib 1995,
#'   section 2.2).
#' * Finite mixtures of a conjugate family ([finite_mixture()] fitted by
#'   [sample_posterior()] with stored labels, any algorithm):
#'   \eqn{\theta^* = } (weights, component parameters) is the most likely of
#'   `n_candidates` draws from the conditional posterior given the best
#'   stored allocation; the ordinate averages over the stored allocations
#'   \eqn{z} the full conditional \eqn{\mathrm{Dir}(w^*; \alpha + n(z))
#'   \prod_k p(\theta_k^* \mid y_{z = k})} (Chib 1995, section 3.2), with
#'   each component posterior written as \eqn{p(y_{z=k} \mid \theta_k^*)
#'   p_0(\theta_k^*) / m(y_{z=k})} (the prior factors \eqn{p_0} cancel
#'   against those of \eqn{p(\theta^*)}, so any conjugate family works).
#'   With a symmetric prior the average also runs over all relabellings
#'   of \eqn{\theta^*} (at most 720 of them), which corrects the estimate
#'   when the sampler does not switch labels (Neal 1999; Berkhof, van
#'   Mechelen and Gelman 2003).
#'
#' `se` is the standard error of the log ordinate(s), from the effective
#' sample size of the averaged terms. Other fits are refused with an error
#' of class `mcmix_error_chib_unsupported`: use [bridge_evidence()] or
#' [sample_smc()] there (see [evidence]).
#'
#' @param fit A fit of [probit_gibbs()], [hier_lm_gibbs()], or a finite
#'   mixture ([sample_posterior()] on a [finite_mixture()]).
#' @param n_reduced Iterations of each reduced run (hierarchical linear
#'   model; default: the number of stored draws, at least 1000).
#' @param n_candidates Candidate points for \eqn{\theta^*} (mixtures).
#' @return An object of class `mcmix_evidence`: `log_evidence`, `se`,
#'   `method`, `theta_star`, `log_lik` (\eqn{\log p(y \mid \theta^*)}),
#'   `log_prior` and `log_ordinate` (\eqn{\log \hat p(\theta^* \mid y)}).
#' @references Chib, S. (1995). Marginal likelihood from the Gibbs output.
#'   *JASA* 90, 1313-1321. Neal, R. M. (1999). Erroneous results in
#'   "Marginal likelihood from the Gibbs output". Berkhof, J., van
#'   Mechelen, I. and Gelman, A. (2003). A Bayesian approach to the
#'   selection and testing of mixture models. *Statistica Sinica* 13,
#'   423-442. Hoff, P. D. (2009). *A First Course in Bayesian Statistical
#'   Methods*, chapter 11. Murphy, K. P. (2012), section 24.7.1.
#' @seealso [evidence], [bridge_evidence()]
#' @examples
#' set.seed(1)
#' x <- rnorm(40)
#' y <- rbinom(40, 1, pnorm(0.3 + x))
#' fit <- probit_gibbs(cbind(1, x), y, prior_cov = 4, iter = 1000, burnin = 200)
#' chib_evidence(fit)
#' @export
chib_evidence <- function(fit, n_reduced = NULL, n_candidates = 200) {
  if (!is.null(n_reduced)) n_reduced <- check_count(n_reduced, "n_reduced", 10L, 1e7)
  n_candidates <- check_count(n_candidates, "n_candidates", 1L, 1e5)
  type <- if (inherits(fit, "mcmix_mixture_fit") && identical(fit$mixture, "finite"))
    "finite_mixture" else if (inherits(fit, "mcmix_fit")) fit$model$type
  if (is.null(type) || !type %in% c("probit", "hier_lm", "finite_mixture"))
    stop_evidence(sprintf(paste0("`fit` must be a Gibbs fit whose full conditionals ",
                                 "are known (Chib's method): probit_gibbs(), hier_lm_gibbs() ",
                                 "or a finite mixture, not %s. Use bridge_evidence() or ",
                                 "sample_smc() instead."),
                          if (inherits(fit, "mcmix_mixture_fit")) "a Dirichlet process mixture fit"
                          else if (inherits(fit, "mcmix_fit") && !is.null(type))
                            sprintf("a fit of type \"%s\"", type)
                          else if (inherits(fit, "mcmix_fit")) "a fit of run_kernel()"
                          else describe_value(fit)),
                  "fit", "mcmix_error_chib_unsupported")
  switch(type,
         probit = chib_probit(fit),
         hier_lm = chib_hier_lm(fit, n_reduced),
         finite_mixture = chib_mixture(fit, n_candidates))
}

# Trace matrices of all chains, stacked, and their chain lengths.
chib_traces <- function(fit) {
  ms <- lapply(fit$chains, function(ch) ch$traces)
  list(m = do.call(rbind, ms), lens = vapply(ms, nrow, 0L))
}

# log mean of exp(terms) and its standard error from the effective size.
chib_ordinate <- function(terms, lens) {
  lo <- log_mean_exp(terms)
  w <- exp(terms - max(terms))
  se <- if (length(w) > 1L && stats::var(w) > 0)
    stats::sd(w) / (mean(w) * sqrt(ess_chains(w, lens))) else 0
  c(log = lo, se = se)
}

# Multivariate normal log density with covariance S.
chib_ldmvn <- function(x, m, S) {
  R <- chol(S)
  z <- backsolve(R, x - m, transpose = TRUE)
  -sum(log(diag(R))) - 0.5 * length(x) * log(2 * pi) - 0.5 * sum(z^2)
}

# Inverse-Wishart IW(eta, S) log density at Sigma (mean S / (eta - p - 1)).
chib_ldiw <- function(Sigma, eta, S) {
  p <- nrow(S)
  0.5 * eta * as.numeric(determinant(S)$modulus) - 0.5 * eta * p * log(2) -
    (p * (p - 1) / 4 * log(pi) + sum(lgamma((eta + 1 - seq_len(p)) / 2))) -
    0.5 * (eta + p + 1) * as.numeric(determinant(Sigma)$modulus) -
    0.5 * sum(diag(S %*% solve(Sigma)))
}

# Inverse-gamma IG(a, b) log density.
chib_ldig <- function(x, a, b) a * log(b) - lgamma(a) - (a + 1) * log(x) - b / x

# A draw from N(solve(P) l, solve(P)) given the precision P and l.
chib_rmvn_prec <- function(P, l) {
  R <- chol(P)
  backsolve(R, backsolve(R, l, transpose = TRUE) + stats::rnorm(length(l)))
}

# ---- probit (Albert and Chib 1993; Chib 1995, section 3.1) ----------------
# Data augmentation as in Murphy (2012), section 24.5.1: z_i | beta, y_i is
# N(x_i' beta, 1) truncated to z_i > 0 (y_i = 1) or z_i < 0 (y_i = 0), and
# beta | z is N(B_n (B_0^-1 b_0 + X' z), B_n), B_n = (B_0^-1 + X'X)^-1.

chib_probit <- function(fit) {
  X <- fit$data$X
  y <- fit$data$y
  b0 <- fit$model$prior_mean
  B0 <- fit$model$prior_cov
  tr <- chib_traces(fit)
  B <- tr$m
  beta_star <- colMeans(B)
  P0 <- solve(B0)
  Pn <- P0 + crossprod(X)
  Bn <- solve(Pn)
  s <- 2 * y - 1
  terms <- vapply(seq_len(nrow(B)), function(g) {
    eta <- as.vector(X %*% B[g, ])
    # z - eta is N(0, 1) truncated to s (z) > 0: by inversion on the log scale
    u <- log(stats::runif(length(eta)))
    w <- -s * stats::qnorm(u + stats::pnorm(s * eta, log.p = TRUE), log.p = TRUE)
    z <- eta + w
    chib_ldmvn(beta_star, as.vector(Bn %*% (P0 %*% b0 + crossprod(X, z))), Bn)
  }, 0)
  ord <- chib_ordinate(terms, tr$lens)
  ll <- sum(stats::pnorm(s * as.vector(X %*% beta_star), log.p = TRUE))
  lp <- chib_ldmvn(beta_star, b0, B0)
  new_evidence(ll + lp - ord[["log"]], ord[["se"]], "Chib's method (probit)",
               theta_star = beta_star, log_lik = ll, log_prior = lp,
               log_ordinate = ord[["log"]])
}

# ---- hierarchical linear model (Hoff 2009, section 11.2) -------------------

chib_hier_lm <- function(fit, n_reduced) {
  mod <- fit$model
  X <- fit$data$X
  y <- fit$data$y
  g <- as.integer(fit$data$group)
  p <- ncol(X)
  m <- max(g)
  N <- length(y)
  tr <- chib_traces(fit)
  G <- nrow(tr$m)
  if (is.null(n_reduced)) n_reduced <- max(G, 1000L)
  low <- lower.tri(diag(p), diag = TRUE)
  unpack <- function(row) {
    S <- matrix(0, p, p)
    S[low] <- row[p + seq_len(sum(low))]
    S <- S + t(S) - diag(diag(S), p)
    list(mu = row[seq_len(p)], Sigma = S, sigma2 = row[p + sum(low) + 1L])
  }
  rows <- split(seq_len(N), g)
  Xs <- lapply(rows, function(r) X[r, , drop = FALSE])
  ys <- lapply(rows, function(r) y[r])
  XtX <- lapply(Xs, crossprod)
  Xty <- Map(crossprod, Xs, ys)
  V0i <- solve(mod$V0)
  # full conditionals (Murphy 2012, section 24.2.5: beta_j eq. 24.34-24.35,
  # mu eq. 24.36-24.37, Sigma inverse-Wishart with eta0 + m degrees of
  # freedom and scale S0 + sum_j (beta_j - mu)(beta_j - mu)', sigma2
  # IG((nu0 + N) / 2, (nu0 s0sq + SSR) / 2); Hoff 2009, section 11.2)
  draw_beta <- function(mu, Sigma, sigma2) {
    Si <- solve(Sigma)
    matrix(vapply(seq_len(m), function(j)
      chib_rmvn_prec(Si + XtX[[j]] / sigma2, Si %*% mu + Xty[[j]] / sigma2), double(p)),
      p, m)
  }
  mu_cond <- function(beta, Sigma) {
    Si <- solve(Sigma)
    V <- solve(V0i + m * Si)
    list(mean = as.vector(V %*% (V0i %*% mod$mu0 + Si %*% rowSums(beta))), cov = V)
  }
  Sigma_scale <- function(beta, mu) {
    r <- beta - mu
    mod$S0 + tcrossprod(r)
  }
  ssr <- function(beta) sum(vapply(seq_len(m), function(j)
    sum((ys[[j]] - Xs[[j]] %*% beta[, j])^2), 0))
  draw_Sigma <- function(S) solve(stats::rWishart(1L, mod$eta0 + m, solve(S))[, , 1L])
  draws <- lapply(seq_len(G), function(i) unpack(tr$m[i, ]))
  star <- list(mu = Reduce(`+`, lapply(draws, `[[`, "mu")) / G,
               Sigma = Reduce(`+`, lapply(draws, `[[`, "Sigma")) / G,
               sigma2 = mean(vapply(draws, `[[`, 0, "sigma2")))
  a_n <- (mod$nu0 + N) / 2
  # 1. p(sigma2* | y): beta redrawn from its full conditional at each draw
  t1 <- vapply(draws, function(d) {
    beta <- draw_beta(d$mu, d$Sigma, d$sigma2)
    chib_ldig(star$sigma2, a_n, (mod$nu0 * mod$s0sq + ssr(beta)) / 2)
  }, 0)
  # 2. p(mu* | sigma2*, y): reduced run over (beta, mu, Sigma)
  mu <- star$mu
  Sigma <- star$Sigma
  t2 <- double(n_reduced)
  burn <- n_reduced %/% 10L
  for (it in seq_len(n_reduced + burn)) {
    beta <- draw_beta(mu, Sigma, star$sigma2)
    mc <- mu_cond(beta, Sigma)
    if (it > burn) t2[it - burn] <- chib_ldmvn(star$mu, mc$mean, mc$cov)
    mu <- as.vector(chib_rmvn_prec(solve(mc$cov), solve(mc$cov, mc$mean)))
    Sigma <- draw_Sigma(Sigma_scale(beta, mu))
  }
  # 3. p(Sigma* | mu*, sigma2*, y): reduced run over (beta, Sigma)
  Sigma <- star$Sigma
  t3 <- double(n_reduced)
  for (it in seq_len(n_reduced + burn)) {
    beta <- draw_beta(star$mu, Sigma, star$sigma2)
    S <- Sigma_scale(beta, star$mu)
    if (it > burn) t3[it - burn] <- chib_ldiw(star$Sigma, mod$eta0 + m, S)
    Sigma <- draw_Sigma(S)
  }
  o1 <- chib_ordinate(t1, tr$lens)
  o2 <- chib_ordinate(t2, n_reduced)
  o3 <- chib_ordinate(t3, n_reduced)
  # p(y | theta*) with the group coefficients integrated out
  ll <- sum(vapply(seq_len(m), function(j)
    chib_ldmvn(ys[[j]], as.vector(Xs[[j]] %*% star$mu),
               Xs[[j]] %*% star$Sigma %*% t(Xs[[j]]) + diag(star$sigma2, length(ys[[j]]))), 0))
  lp <- chib_ldmvn(star$mu, mod$mu0, mod$V0) + chib_ldiw(star$Sigma, mod$eta0, mod$S0) +
    chib_ldig(star$sigma2, mod$nu0 / 2, mod$nu0 * mod$s0sq / 2)
  lo <- o1[["log"]] + o2[["log"]] + o3[["log"]]
  new_evidence(ll + lp - lo, sqrt(o1[["se"]]^2 + o2[["se"]]^2 + o3[["se"]]^2),
               "Chib's method (hierarchical linear model)",
               theta_star = star, log_lik = ll, log_prior = lp, log_ordinate = lo)
}

# ---- finite mixtures of a conjugate family (Chib 1995, section 3.2) --------

# Dirichlet log density at w with parameters a; the full conditional of
# the weights is Dir(alpha + n(z)) (De Bacco and Valera, lecture notes on Bayesian mixture models, eq. 2).
chib_lddir <- function(w, a) lgamma(sum(a)) - sum(lgamma(a)) + sum((a - 1) * log(w))

# All permutations of 1..K (rows), or `n` random ones (the identity first)
# when K! is larger than 720.
chib_perms <- function(K, n = 720L) {
  if (factorial(K) > n)
    return(rbind(seq_len(K), t(replicate(n - 1L, sample.int(K)))))
  if (K == 1L) return(matrix(1L, 1L, 1L))
  p <- chib_perms(K - 1L, Inf)
  do.call(rbind, lapply(seq_len(K), function(k) cbind(k, ifelse(p >= k, p + 1L, p))))
}

chib_mixture <- function(fit, n_candidates) {
  prep <- fit$family
  x <- fit$data
  N <- nrow(x)
  K <- fit$model$K
  alpha <- fit$model$alpha
  labs <- lapply(fit$chains, function(ch) ch$labels)
  if (any(vapply(labs, is.null, NA)) || any(vapply(labs, nrow, 0L) == 0L))
    stop_evidence(paste0("`fit` has no stored labels: refit with `labels = TRUE` ",
                         "(the default)."), "fit", "mcmix_error_chib_unsupported")
  Z <- do.call(rbind, labs)
  lens <- vapply(labs, nrow, 0L)
  # fit$data is already converted by the family: evaluate on its rows as
  # the prepared data (converting them again fails for a product family,
  # whose converter reads a data frame by column names)
  fam <- function(rows, op, arg = NULL) {
    sub <- prep
    sub$x <- x[rows, , drop = FALSE]
    .family_eval(sub, NULL, op, arg)
  }
  # per stored allocation: counts and log marginals of the clusters, cached
  # by distinct allocation
  key <- apply(Z, 1L, paste, collapse = ",")
  first <- !duplicated(key)
  uz <- Z[first, , drop = FALSE]
  ukey <- key[first]
  counts <- t(apply(uz, 1L, tabulate, nbins = K))
  if (K == 1L) counts <- t(counts)
  lmarg <- t(apply(uz, 1L, function(z)
    vapply(seq_len(K), function(k) fam(z == k, "log_marginal"), 0)))
  if (K == 1L) lmarg <- t(lmarg)
  # theta*: the most likely of n_candidates conditional posterior draws given
  # the allocation of highest posterior probability among the stored ones
  lpz <- apply(counts, 1L, function(n) sum(lgamma(alpha + n) - lgamma(alpha))) +
    rowSums(lmarg)
  zb <- uz[which.max(lpz), ]
  nb <- counts[which.max(lpz), ]
  cand_w <- matrix(stats::rgamma(n_candidates * K, alpha + rep(nb, each = n_candidates)),
                   n_candidates)
  cand_w <- cand_w / rowSums(cand_w)
  cand_th <- lapply(seq_len(K), function(k) fam(zb == k, "param_draw", n_candidates))
  loglik_at <- function(w, th) {
    lf <- vapply(seq_len(K), function(k) fam(seq_len(N), "log_lik", th[[k]]), double(N))
    if (N == 1L) lf <- matrix(lf, 1L)
    lw <- sweep(lf, 2L, log(w), `+`)
    mx <- apply(lw, 1L, max)
    list(ll = sum(mx + log(rowSums(exp(lw - mx)))), lf = lf)
  }
  score <- vapply(seq_len(n_candidates), function(c) {
    w <- cand_w[c, ]
    if (any(w <= 0)) return(-Inf)
    loglik_at(w, lapply(cand_th, function(m) m[c, ]))$ll + chib_lddir(w, alpha)
  }, 0)
  best <- which.max(score)
  w_star <- cand_w[best, ]
  th_star <- lapply(cand_th, function(m) m[best, ])
  at <- loglik_at(w_star, th_star)
  lf <- at$lf
  # Rao-Blackwellised ordinate: for allocation z and relabelling s,
  # Dir(w*_s; alpha + n) prod_k p(y_k | theta*_s(k)) / m(y_k)
  sym <- length(unique(alpha)) == 1L
  perms <- if (sym) chib_perms(K) else matrix(seq_len(K), 1L)
  uterm <- vapply(seq_len(nrow(uz)), function(u) {
    z <- uz[u, ]
    tt <- apply(perms, 1L, function(s) {
      chib_lddir(w_star[s], alpha + counts[u, ]) +
        sum(lf[cbind(seq_len(N), s[z])]) - sum(lmarg[u, ])
    })
    log_mean_exp(tt)
  }, 0)
  terms <- uterm[match(key, ukey)]
  ord <- chib_ordinate(terms, lens)
  lp_w <- chib_lddir(w_star, alpha)
  new_evidence(at$ll + lp_w - ord[["log"]], ord[["se"]],
               "Chib's method (finite mixture)",
               theta_star = list(weights = w_star, params = th_star), log_lik = at$ll,
               log_prior = lp_w, log_ordinate = ord[["log"]],
               note = if (sym) sprintf("(averaged over %d relabellings)", nrow(perms)))
}
