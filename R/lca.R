# Latent class analysis: a mixture of products of categorical families
# (R/product_family.R) with a finite or Dirichlet process number of classes.

#' Latent class analysis
#'
#' Fits the latent class model (Lazarsfeld and Henry 1968; Goodman 1974):
#' the rows of a table of categorical variables are a mixture of classes
#' within which the variables are independent, each categorical with
#' class-specific probabilities. In Bayesian form each class's
#' probabilities have a Dirichlet(`prior`) prior, so the model is a
#' [finite_mixture()] (with `K` classes) or a [dp_mixture()] (`K = NULL`,
#' the number of classes inferred) of a [product_family()] of
#' [categorical_dirichlet()] parts, one per column. Missing answers (`NA`)
#' are integrated out.
#'
#' **Choosing the number of classes.** Fit each `K` and compare. poLCA's
#' choice is the smallest [stats::BIC()] (at the maximum likelihood, see
#' [logLik.mcmix_lca_fit()]); the Bayesian ones are the log evidence
#' \eqn{\log p(x \mid K)} of [chib_evidence()] (exact up to Monte Carlo
#' error: the largest wins, and differences are log Bayes factors) and the
#' expected log predictive density of leave-one-out cross-validation,
#' `loo::loo_compare()` on `loo::loo()` of each fit (through
#' [log_lik()]). On poLCA's `carcinoma` (seven pathologists rating 118
#' slides; the example below, 2000 iterations each) the three agree on
#' three classes: BIC 1082.3, 706.1, **697.1**, 726.5 for K = 1..4 (poLCA's
#' values); log evidence -540.07, -357.82, **-352.13**, -352.42 (s.e. about
#' 0.07; other seeds give -352.1 to -352.3 for K = 3 and -352.5 to -352.8
#' for K = 4); and `loo_compare()` puts K = 3 first, K = 4 at 0.0 (s.e.
#' 0.2), K = 2 at -15.8 (5.2) and K = 1 at -214.4 (17.4). Three and four
#' classes are nearly tied in both Bayesian measures: a Bayes factor of
#' about 1.3 for three, and no difference in predictive accuracy, because
#' with the default `alpha = 1` (Dirichlet(1/K) weights) a fourth class can
#' stay nearly empty at little cost, and then predicts as three classes
#' do. Both rule out one and two classes decisively.
#'
#' @param data A data frame (or matrix) of categorical variables: factors,
#'   character, logical, or whole-number codes.
#' @param K Number of classes, or `NULL` for a Dirichlet process mixture.
#' @param alpha Concentration of the class weights: the total of a
#'   symmetric Dirichlet prior for `K` classes, or the DP concentration (a
#'   number or a [gamma_prior()]).
#' @param prior Dirichlet parameter of the class-conditional probabilities.
#' @param ... Passed to [sample_posterior()]: `iter`, `algorithm`, ...,
#'   and the run settings `chains`, `cores`, `backend`, `progress` (and
#'   `threads` without `K`), as every sampler takes them
#'   ([mcmix-run-settings]).
#' @return The fit (class `mcmix_lca_fit`, a mixture fit); [lca_probs()]
#'   summarises the class-conditional probabilities, [cluster_profiles()]
#'   gives them as a table.
#' @references Goodman, L. A. (1974). Exploratory latent structure analysis
#'   using both identifiable and unidentifiable models. *Biometrika* 61,
#'   215--231.
#' @examples
#' set.seed(1)
#' cls <- rep(1:2, each = 40)
#' df <- data.frame(q1 = ifelse(runif(80) < c(0.9, 0.2)[cls], "yes", "no"),
#'                  q2 = ifelse(runif(80) < c(0.8, 0.1)[cls], "yes", "no"),
#'                  q3 = sample(c("a", "b", "c"), 80, TRUE))
#' fit <- lca(df, K = 2, iter = 200, progress = FALSE)
#' lca_probs(fit)$mean$q1
#' \donttest{
#' # choosing the number of classes on poLCA's carcinoma (see Details)
#' if (requireNamespace("poLCA", quietly = TRUE)) {
#'   data("carcinoma", package = "poLCA")
#'   fits <- lapply(1:4, function(K) {
#'     set.seed(K)
#'     lca(carcinoma, K = K, iter = 2000, progress = FALSE)
#'   })
#'   names(fits) <- paste0("K", 1:4)
#'   sapply(fits, BIC)                                        # poLCA's BIC
#'   sapply(fits, function(f) chib_evidence(f)$log_evidence)  # log p(x | K)
#'   if (requireNamespace("loo", quietly = TRUE))
#'     loo::loo_compare(lapply(fits, function(f) suppressWarnings(loo::loo(f))))
#' }
#' }
#' @export
lca <- function(data, K = NULL, alpha = 1, prior = 1, ...) {
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  prior <- check_positive(prior, "prior")
  check_magnitude(prior, "prior")   # (categorical_dirichlet() would name its `alpha`)
  df <- product_data_frame(data)
  if (!ncol(df))
    stop_input("`data` must have at least one column (one categorical item).", "data")
  df[] <- lapply(names(df), function(nm) {
    v <- df[[nm]]
    if (is.factor(v)) return(v)
    if (is.logical(v) || is.numeric(v) && all(v[!is.na(v)] == round(v[!is.na(v)])))
      return(factor(v))
    stop(sprintf("`data` column `%s` must be categorical (a factor, character, logical or whole-number codes), not %s.",
                 nm, fam_type_label(v)), call. = FALSE)
  })
  parts <- stats::setNames(lapply(names(df), function(nm) categorical_dirichlet(alpha = prior)),
                           names(df))
  fam <- do.call(product_family, parts)
  model <- if (is.null(K)) dp_mixture(fam, alpha = alpha) else finite_mixture(fam, K = K, alpha = alpha)
  fit <- sample_posterior(model, df, ...)
  fit$call <- match.call()
  class(fit) <- c("mcmix_lca_fit", class(fit))
  fit
}

#' Class-conditional probabilities of a latent class model
#'
#' The summaries a poLCA user reads: for each class and each variable, the
#' posterior of the probability of each category (named by the levels),
#' the class sizes with credible intervals, and each row's posterior class
#' membership probabilities and predicted class.
#'
#' **Fixed number of classes** (`lca(K = )`, a finite mixture): the classes
#' are the K components, relabelled in every draw by ECR as in
#' [component_draws()] (so the K classes are reported even when the point
#' estimate of the partition has merged some), and numbered as the clusters
#' of [partition()]`(fit)` (the numbering of [cluster_profiles()],
#' `predict(type = "class")` and the plots): each class takes the number of
#' the cluster sharing most of its membership, and classes the point
#' estimate merged away come last, by decreasing posterior mean weight.
#' For each kept draw \eqn{s} (at most `draws`, evenly spaced) the weights
#' \eqn{w^{(s)}} and probabilities
#' \eqn{\theta^{(s)}} are drawn from their conditional posterior given the
#' draw's partition ([component_draws()]), and the membership probability
#' of row \eqn{i} is the average over draws of
#' \deqn{P(z_i = k \mid x_i, w^{(s)}, \theta^{(s)}) \propto w^{(s)}_k
#'   \prod_j \theta^{(s)}_{k j x_{ij}}}
#' (missing answers left out of the product), the Bayesian counterpart of
#' poLCA's `posterior`; the predicted class is its largest entry
#' (poLCA's `predclass`).
#'
#' **Dirichlet process** (`lca(K = NULL)`): classes have no identity across
#' draws; the classes are those of the point estimate of the partition
#' (see [cluster_profiles()] for how draws are matched to them), the
#' membership probability of row i in class c is the average over draws
#' of the share of the members of row i's cluster that are in c, and the
#' sizes are the numbers of members (without intervals).
#'
#' @param fit A fit from [lca()] (or any mixture fit with categorical
#'   parts).
#' @param level Credible level of the intervals.
#' @param draws Largest number of kept draws used.
#' @param ... Passed to [cluster_profiles()] for a Dirichlet process fit
#'   (`estimate`).
#' @return An object of class `mcmix_lca_probs`, a list with `mean`, `sd`,
#'   `lower`, `upper` (each a list with one classes x categories matrix per
#'   variable, named by the levels), `sizes` (posterior mean number of
#'   rows in each class), `weights` (classes x (`mean`, `lower`, `upper`):
#'   the class proportions), `membership` (rows x classes, each row
#'   summing to 1), `class` (the predicted class of each row), `K`, and
#'   for a fixed K `mode`: the posterior mode of the weights and
#'   probabilities under the fit's Dirichlet priors on the probabilities and
#'   a uniform prior on the weights (`weights`, `probs`, `log_lik`), found
#'   by EM from the posterior memberships and from 10 random starts (drawn
#'   with a fixed seed, leaving the caller's random numbers untouched).
#'   With the default `prior = 1` of [lca()] it is the maximum likelihood
#'   estimate that poLCA reports; when the likelihood is flat it can lie
#'   far from the posterior means, whose classes carry the posterior mass.
#'   Its classes are numbered as the others, by the membership they share.
#' @examples
#' set.seed(2)
#' df <- data.frame(a = sample(c("x", "y"), 40, TRUE), b = sample(1:3, 40, TRUE))
#' fit <- lca(df, K = 2, iter = 100, progress = FALSE)
#' p <- lca_probs(fit)
#' p
#' p$mean
#' head(p$membership)
#' @export
lca_probs <- function(fit, level = 0.95, draws = 1000, ...) {
  if (!inherits(fit, "mcmix_mixture_fit"))
    stop(sprintf("`fit` must be a fit of lca() or a mixture with categorical parts, not %s.",
                 describe_value(fit)), call. = FALSE)
  level <- check_prob(level, "level")
  draws <- check_count(draws, "draws", 1L)
  if (!inherits(fit, "mcmix_finite_fit")) return(lca_probs_dp(fit, level, draws, ...))
  check_dots(list(...))   # R/checks.R
  prep <- fit$family
  parts <- if (identical(prep$name, "product")) prep$family$resolved else
    list(list(label = "", family = prep$family, columns = "x", dim = prep$dim,
              levels = prep$family$levels))
  cats <- vapply(parts, function(p) p$family$name %in% c("categorical_dirichlet", "bernoulli_beta"),
                 logical(1))
  if (!any(cats))
    stop("`fit` must be a fit of lca() or a mixture with categorical parts.", call. = FALSE)
  cd <- component_draws(fit)
  S <- nrow(cd$weights)
  use <- unique(round(seq(1, S, length.out = min(S, draws))))
  K <- ncol(cd$weights)
  w <- cd$weights[use, , drop = FALSE]
  ord <- order(-colMeans(w))                   # classes by decreasing weight
  w <- w[, ord, drop = FALSE]
  x <- profile_data(fit)
  N <- nrow(x)
  loglik <- matrix(0, length(use) * N, K)      # draws stacked by rows
  probs <- list()
  off <- 0L
  for (p in parts) {
    cols <- off + seq_len(p$dim)
    off <- off + p$dim
    nm <- if (nzchar(p$label)) paste0(p$label, ".prob") else "prob"
    th <- cd$params[[nm]]
    if (is.null(th) || !p$family$name %in% c("categorical_dirichlet", "bernoulli_beta")) next
    th <- th[use, ord, , drop = FALSE]          # draws x K x categories
    xp <- x[, cols, drop = FALSE]
    if (p$family$name == "bernoulli_beta") {   # P(second level) -> both levels
      lev <- if (length(p$levels) == 2L) p$levels else c("0", "1")
      th <- array(c(1 - th, th), c(dim(th)[1:2], 2L))
      xp <- cbind(1 - xp, xp)
    } else {
      lev <- if (!is.null(p$levels)) p$levels else as.character(seq_len(p$dim))
    }
    xp[is.nan(xp) | is.na(xp)] <- 0             # missing answers contribute nothing
    for (u in seq_along(use)) {
      # K x categories; a probability drawn as 0 (a tiny `prior` underflows)
      # floored as in lca_mode(), so that no row has -Inf in every class
      lt <- log(pmax(matrix(th[u, , ], K), 1e-300))
      rows <- (u - 1L) * N + seq_len(N)
      loglik[rows, ] <- loglik[rows, ] + xp %*% t(lt)
    }
    lab <- if (nzchar(p$label)) p$label else p$columns[1L]
    probs[[lab]] <- list(th = th, lev = lev)
  }
  lw <- log(w)[rep(seq_along(use), each = N), , drop = FALSE]
  lp <- loglik + lw
  lp <- exp(lp - apply(lp, 1L, max))
  lp <- lp / rowSums(lp)
  memb <- matrix(0, N, K)
  for (u in seq_along(use)) memb <- memb + lp[(u - 1L) * N + seq_len(N), , drop = FALSE]
  memb <- memb / length(use)
  # the one class numbering: that of partition(fit) (which cluster_profiles(),
  # predict() and the plots follow); the columns are permuted here, once
  renum <- lca_class_numbering(fit, memb, colMeans(w))
  ord <- ord[renum]
  w <- w[, renum, drop = FALSE]
  memb <- memb[, renum, drop = FALSE]
  for (j in names(probs)) probs[[j]]$th <- probs[[j]]$th[, renum, , drop = FALSE]
  cls <- paste0("class", seq_len(K))
  dimnames(memb) <- list(fit$row_names, cls)
  q <- c((1 - level) / 2, (1 + level) / 2)
  summ <- function(f) lapply(probs, function(pr) {
    m <- apply(pr$th, c(2L, 3L), f)
    matrix(m, K, dimnames = list(cls, pr$lev))
  })
  weights <- cbind(mean = colMeans(w), lower = apply(w, 2L, stats::quantile, q[1L], names = FALSE),
                   upper = apply(w, 2L, stats::quantile, q[2L], names = FALSE))
  rownames(weights) <- cls
  sizes <- unname(colMeans(cd$sizes[use, ord, drop = FALSE]))
  prior <- lca_prior_of(parts, probs)
  mode <- lca_mode(x, parts, probs, K, prior, start = memb, numbering = memb)
  structure(list(mean = summ(mean), sd = summ(stats::sd),
                 lower = summ(function(v) stats::quantile(v, q[1L], names = FALSE)),
                 upper = summ(function(v) stats::quantile(v, q[2L], names = FALSE)),
                 sizes = sizes, weights = weights, membership = memb,
                 class = max.col(memb, ties.method = "first"), mode = mode, K = K,
                 level = level, kind = "finite"),
            class = "mcmix_lca_probs")
}

# The numbering of the K classes of a finite latent class fit, as a
# permutation of the columns of `memb` (rows x classes, in order of
# decreasing weight `wmean`): the classes are matched to the clusters of
# partition(fit) by greatest shared membership (greedily, largest overlap
# first), so that class c is the cluster labelled c and the predicted
# classes are the partition's labels wherever they agree; classes matched to
# no cluster (the estimate merged them) follow by decreasing weight. Without
# stored labels the classes are numbered by first appearance of each row's
# predicted class, the rule of partition()'s labels. The caller's random
# number stream is left untouched.
lca_class_numbering <- function(fit, memb, wmean) {
  K <- ncol(memb)
  labs <- if (!is.null(fit_labels(fit, need = FALSE))) {
    saved <- rng_save()   # R/chains.R
    on.exit(rng_restore(saved))
    suppressMessages(partition(fit))$labels
  } else {
    pc <- max.col(memb, ties.method = "first")
    match(pc, unique(pc))
  }
  C <- max(labs)
  ov <- vapply(seq_len(C), function(c) colSums(memb[labs == c, , drop = FALSE]), double(K))
  ov <- matrix(ov, K, C)
  pick <- lca_match(ov)
  pick <- pick[!is.na(pick)]
  rest <- setdiff(seq_len(K), pick)
  c(pick, rest[order(-wmean[rest])])
}

# Greedy matching on an overlap matrix (rows x columns): the largest
# entry first, then the largest among the rows and columns left. The row
# matched to each column (NA for columns left when the rows run out).
lca_match <- function(ov) {
  pick <- rep(NA_integer_, ncol(ov))
  for (step in seq_len(min(dim(ov)))) {
    m <- which(ov == max(ov), arr.ind = TRUE)[1L, ]
    pick[m[2L]] <- m[1L]
    ov[m[1L], ] <- -Inf
    ov[, m[2L]] <- -Inf
  }
  pick
}

#' Log-likelihood of a latent class fit at its EM mode
#'
#' For a fixed number of classes (`lca(K = )`), the log-likelihood at the
#' posterior mode found by EM in [lca_probs()] (`$mode`): with the default
#' `prior = 1` of [lca()] it is the maximum likelihood that poLCA reports,
#' with `df` poLCA's number of free parameters \eqn{(K - 1) + K \sum_j
#' (L_j - 1)} (\eqn{L_j} the categories of variable \eqn{j}), so
#' [stats::BIC()] and [stats::AIC()] are poLCA's `bic` and `aic`. A
#' Dirichlet process fit (`K = NULL`) has no fixed number of parameters:
#' its `logLik()` is the Bayesian one of [logLik.mcmix_fit()] (the log
#' pointwise predictive density, `df` the WAIC penalty). For a Bayesian
#' comparison of numbers of classes use `loo::loo()` on the fits (see
#' [log_lik()]) or [chib_evidence()].
#'
#' @param object A fit of [lca()].
#' @param ... Passed to [lca_probs()] (`draws`).
#' @return An object of class `logLik` with attributes `df` and `nobs`.
#' @examples
#' if (requireNamespace("poLCA", quietly = TRUE)) {
#'   data("carcinoma", package = "poLCA")
#'   set.seed(1)
#'   fits <- lapply(1:4, function(K) lca(carcinoma, K = K, iter = 200, progress = FALSE))
#'   bic <- sapply(fits, BIC)
#'   bic          # poLCA's BIC for 1 to 4 classes
#'   which.min(bic)
#'   if (requireNamespace("loo", quietly = TRUE)) {
#'     # the Bayesian comparison: leave-one-out predictive accuracy
#'     loos <- lapply(fits, function(f) suppressWarnings(loo::loo(f)))
#'     names(loos) <- paste0("K", 1:4)
#'     loo::loo_compare(loos)
#'   }
#' }
#' @export
logLik.mcmix_lca_fit <- function(object, ...) {
  if (!inherits(object, "mcmix_finite_fit")) return(NextMethod())
  mode <- lca_probs(object, ...)$mode
  L <- vapply(mode$probs, ncol, 1L)
  K <- length(mode$weights)
  structure(mode$log_lik, df = (K - 1) + K * sum(L - 1), nobs = nrow(object$data),
            class = "logLik")
}

# The Dirichlet prior parameters of the categorical parts summarised by
# lca_probs() (`probs` is named by part), as a list of vectors.
lca_prior_of <- function(parts, probs) {
  out <- list()
  for (p in parts) {
    lab <- if (nzchar(p$label)) p$label else p$columns[1L]
    if (is.null(probs[[lab]])) next
    out[[lab]] <- if (p$family$name == "bernoulli_beta") c(p$family$args$b, p$family$args$a)
                  else p$family$args$alpha
  }
  out
}

# The posterior mode of a latent class model's weights and class-conditional
# probabilities under Dirichlet(`prior`) priors on the probabilities and a
# uniform prior on the weights, by EM (Dempster, Laird and Rubin 1977; the
# M-step adds prior - 1 to the expected counts): with the uniform prior
# (`prior` = 1) it is the maximum likelihood estimate of poLCA. Started from
# the posterior membership probabilities `start` and from 10 random
# memberships drawn with a fixed seed (the caller's random number stream is
# left untouched); the start reaching the highest log posterior wins.
lca_mode <- function(x, parts, probs, K, prior, start, numbering = NULL, iter_max = 2000L,
                     tol = 1e-9) {
  blocks <- list()
  off <- 0L
  for (p in parts) {
    cols <- off + seq_len(p$dim)
    off <- off + p$dim
    lab <- if (nzchar(p$label)) p$label else p$columns[1L]
    if (is.null(probs[[lab]])) next
    xp <- x[, cols, drop = FALSE]
    if (p$family$name == "bernoulli_beta") xp <- cbind(1 - xp, xp)
    obs <- !(is.nan(xp[, 1L]) | is.na(xp[, 1L]))
    xp[!obs, ] <- 0
    blocks[[lab]] <- list(x = xp, obs = obs, a = rep_len(prior[[lab]], ncol(xp)) - 1)
  }
  N <- nrow(x)
  one_run <- function(r) {
    last <- -Inf
    for (it in seq_len(iter_max)) {
      w <- colSums(r) / N
      lp <- matrix(log(pmax(w, 1e-300)), N, K, byrow = TRUE)
      lpri <- 0
      th <- list()
      for (j in names(blocks)) {
        b <- blocks[[j]]
        cnt <- pmax(crossprod(b$x, r) + b$a, 0)           # L x K expected counts + prior
        th[[j]] <- t(cnt) / pmax(colSums(cnt), 1e-300)     # K x L, rows sum to 1
        lt <- log(pmax(th[[j]], 1e-300))
        lp <- lp + tcrossprod(b$x, lt)
        lpri <- lpri + sum(lt %*% b$a)
      }
      mx <- lp[cbind(seq_len(N), max.col(lp, ties.method = "first"))]
      r <- exp(lp - mx)
      rs <- rowSums(r)
      ll <- sum(mx + log(rs))
      r <- r / rs
      if (abs(ll + lpri - last) < tol * (1 + abs(last))) break
      last <- ll + lpri
    }
    list(weights = w, probs = th, log_lik = ll, log_post = ll + lpri, r = r)
  }
  saved <- rng_save()   # R/chains.R: the caller's generator, put back on any exit
  on.exit(rng_restore(saved))
  set.seed(20250101L, kind = "Mersenne-Twister", normal.kind = "Inversion")
  starts <- c(list(start), lapply(seq_len(10L), function(i) {
    g <- matrix(stats::rexp(N * K), N, K)
    g / rowSums(g)
  }))
  runs <- lapply(starts, one_run)
  best <- runs[[which.max(vapply(runs, `[[`, 1, "log_post"))]]
  o <- order(-best$weights)
  if (!is.null(numbering)) {   # the classes of `numbering` (rows x classes)
    o <- lca_match(crossprod(best$r, numbering))
  }
  cls <- paste0("class", seq_len(K))
  list(weights = stats::setNames(best$weights[o], cls),
       probs = lapply(stats::setNames(names(blocks), names(blocks)), function(j) {
         m <- best$probs[[j]][o, , drop = FALSE]
         dimnames(m) <- list(cls, probs[[j]]$lev)
         m
       }),
       log_lik = best$log_lik)
}

# lca_probs() of a Dirichlet process fit: the classes of the point estimate.
lca_probs_dp <- function(fit, level, draws, ...) {
  prof <- cluster_profiles(fit, level = level, draws = draws, format = "long", ...)
  est <- attr(prof, "partition")
  prof <- prof[prof$parameter == "prob", , drop = FALSE]
  if (!nrow(prof))
    stop("`fit` must be a fit of lca() or a mixture with categorical parts.", call. = FALSE)
  C <- max(est$labels)
  cls <- paste0("class", seq_len(C))
  one <- function(what) {
    lapply(stats::setNames(nm = unique(prof$column)), function(cl) {
      d <- prof[prof$column == cl, , drop = FALSE]
      cats <- unique(d$category)
      m <- matrix(NA_real_, C, length(cats), dimnames = list(cls, cats))
      m[cbind(d$cluster, match(d$category, cats))] <- d[[what]]
      m
    })
  }
  # membership: in each draw, row i's cluster shared out among the
  # estimated classes in proportion to its members
  z <- partition_draws(fit)
  use <- unique(round(seq(1, nrow(z), length.out = min(nrow(z), draws))))
  lab <- as.integer(est$labels)
  memb <- membership_shares(z, lab, C, use)   # R/predict.R
  dimnames(memb) <- list(fit$row_names, cls)
  sizes <- as.double(tabulate(est$labels, C))
  N <- length(est$labels)
  weights <- cbind(mean = sizes / N, lower = NA_real_, upper = NA_real_)
  rownames(weights) <- cls
  structure(list(mean = one("mean"), sd = one("sd"), lower = one("lower"), upper = one("upper"),
                 sizes = sizes, weights = weights, membership = memb,
                 class = as.integer(est$labels), K = C, level = level, kind = "dp"),
            class = "mcmix_lca_probs")
}

#' @export
print.mcmix_lca_probs <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat(sprintf("Latent classes: %d (%s), %g%% credible intervals\n", x$K,
              if (x$kind == "finite") "fixed K, draws relabelled by ECR"
              else "Dirichlet process, classes of the point estimate",
              100 * x$level))
  w <- x$weights
  sz <- data.frame(class = seq_len(x$K), share = profile_format(w[, "mean"], digits),
                   lower = profile_format(w[, "lower"], digits),
                   upper = profile_format(w[, "upper"], digits),
                   rows = profile_format(x$sizes, digits),
                   predicted = tabulate(x$class, x$K))
  cat("Class sizes (share of the rows; rows: expected number; predicted: rows whose most probable class it is):\n")
  print(sz, row.names = FALSE)
  if (!is.null(x$mode))
    cat(sprintf("Posterior mode (EM; log-likelihood %s): shares %s; see `$mode`\n",
                format(x$mode$log_lik, nsmall = 2),
                paste(profile_format(x$mode$weights, digits), collapse = " ")))
  cat("Class-conditional probabilities (posterior means):\n")
  for (v in names(x$mean)) {
    m <- x$mean[[v]]
    txt <- matrix(profile_format(as.vector(m), digits), nrow(m), dimnames = dimnames(m))
    cat("$", v, "\n", sep = "")
    print(noquote(txt), right = TRUE)
  }
  invisible(x)
}
