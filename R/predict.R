# Posterior predictive of mixture fits (src/ffi_mixture_dp.c,
# ffi_mixture_predict()): densities at new points with a pointwise credible
# band, and co-clustering probabilities of new points with the clusters of
# the point estimate of the partition.

#' Predictions from a mixture fit
#'
#' `type = "density"`: the posterior predictive density at each new point.
#' For every kept draw of the partition \eqn{z}, the predictive density
#' given the partition is, for a Dirichlet process (`discount` \eqn{d = 0})
#' or Pitman-Yor mixture with \eqn{K} clusters,
#' \deqn{p(x_{new} \mid x, z) = \sum_{k=1}^K \frac{n_k - d}{\alpha + N}
#'   p(x_{new} \mid x_k) + \frac{\alpha + d K}{\alpha + N} p(x_{new}),}
#' with \eqn{p(x_{new} \mid x_k)} the family's collapsed predictive given the
#' members of cluster k and \eqn{p(x_{new})} its prior predictive (for a
#' finite mixture of \eqn{K} components with symmetric Dirichlet
#' \eqn{(\alpha/K)} weights: \eqn{(n_k + \alpha/K)/(\alpha + N)} on each
#' component). The estimate is the average over draws, and the band holds
#' the pointwise `(1 - level) / 2` and `(1 + level) / 2` quantiles over draws.
#'
#' `type = "membership"` (the mclust `z` matrix): for each new point, the
#' posterior probability that it belongs to each cluster \eqn{c} of a
#' point estimate of the partition (`estimate`, by default
#' [partition()]`(object)`, with its numbering), and in a last column
#' `new` the probability that it opens a cluster of its own. In draw
#' \eqn{s} the new point joins the draw's cluster \eqn{k} with probability
#' \eqn{q_k} proportional to the \eqn{k}-th term of the predictive density
#' above, and a new cluster with the remaining probability \eqn{q_0} (for a
#' finite mixture: one of its empty components). The draw's cluster
#' \eqn{k} is shared out among the estimated clusters in proportion to its
#' members, \eqn{n^{(s)}_{ck} / n^{(s)}_k}, so the entry for \eqn{c} is
#' \deqn{S^{-1} \sum_s \sum_k q_k^{(s)} n^{(s)}_{ck} / n^{(s)}_k}
#' (the probability that the new point joins the cluster of a member of
#' \eqn{c}), the entry `new` is \eqn{S^{-1} \sum_s q_0^{(s)}}, and every row
#' sums to 1.
#'
#' Without `newdata`, the memberships are those of the fitted rows: in
#' draw \eqn{s} row \eqn{i} is in its draw cluster \eqn{k_i}, and the entry
#' for the estimated cluster \eqn{c} is the share of \eqn{k_i}'s members
#' (row \eqn{i} included) that are in \eqn{c},
#' \deqn{S^{-1} \sum_s n^{(s)}_{c k_i} / n^{(s)}_{k_i},}
#' so every row sums to 1 and the column `new` is 0 (these need only the
#' stored labels, for any family). Rows are named by the row names of the
#' data (of `newdata`, or of the fitted data when it is not given; a data
#' frame's automatic row names `1`, `2`, ... are left off), and so are the
#' classes and uncertainties.
#'
#' `type = "class"`: the estimated cluster of largest membership
#' probability (the `new` column left out; mclust's `classification`).
#' `type = "uncertainty"`: one minus the largest membership probability of
#' the row, `new` included (mclust's `uncertainty`).
#'
#' Needs a fit with stored labels and a conjugate family (the collapsed
#' predictive has a closed form): a fit sampled with `labels = "online"`
#' (the labels of a subsample only) is refused with an error naming
#' `labels`.
#'
#' @param object A mixture fit from [sample_posterior()].
#' @param newdata New observations, in the form of the fitted data (a
#'   vector for one-dimensional data, else a matrix or data frame). May be
#'   left out for `type = "membership"`, `"class"` and `"uncertainty"`:
#'   the fitted rows.
#' @param type `"density"`, `"membership"`, `"class"` or `"uncertainty"`.
#' @param level Credible level of the band, in (0, 1).
#' @param estimate `type = "membership"`, `"class"` or `"uncertainty"`:
#'   the point estimate of the partition of the fitted data, as a
#'   [partition()] result or a vector of one label per observation; `NULL`
#'   (the default) computes [partition()]`(object)`, which costs about a
#'   second on large fits, so pass a precomputed one when predicting
#'   repeatedly.
#' @param ... Unused (an error if given).
#' @return `"density"`: a data frame with columns `density` (posterior
#'   mean), `lower` and `upper` (the band), one row per new point, and
#'   attribute `draws` (the draws x points matrix of densities).
#'   `"membership"`: a matrix, new points x (estimated clusters + 1),
#'   columns `cluster1`, ..., `clusterC` and `new`, rows summing to 1,
#'   with attribute `partition` (the estimate). `"class"`: an integer
#'   vector, the estimated cluster of each new point. `"uncertainty"`: a
#'   numeric vector in \[0, 1).
#' @examples
#' set.seed(1)
#' x <- c(rnorm(30, -3), rnorm(30, 3))
#' fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 200,
#'                         progress = FALSE)
#' grid <- seq(-6, 6, length.out = 5)
#' predict(fit, grid)
#' est <- partition(fit)
#' predict(fit, c(-3, 0, 3, 20), type = "membership", estimate = est)
#' predict(fit, c(-3, 0, 3, 20), type = "class", estimate = est)
#' predict(fit, c(-3, 0, 3, 20), type = "uncertainty", estimate = est)
#' head(predict(fit, type = "membership", estimate = est))   # the fitted rows
#' @export
predict.mcmix_mixture_fit <- function(object, newdata,
                                      type = c("density", "membership", "class", "uncertainty"),
                                      level = 0.95, estimate = NULL, ...) {
  type <- match_choice(type, c("density", "membership", "class", "uncertainty"), "type")
  level <- check_prob(level, "level")
  check_dots(list(...))   # R/checks.R
  if (missing(newdata)) {
    if (type == "density")
      stop("`newdata` is missing: give the points at which to predict the density.",
           call. = FALSE)
    return(membership_fitted(object, type, estimate))
  }
  prep <- object$family
  if (!family_is_conjugate(prep$family))
    stop(sprintf("`object` was fitted with the non-conjugate family %s: predictive ",
                 family_label(prep$family)),
         "densities need a conjugate family (closed-form predictive).", call. = FALSE)
  if (is.null(fit_labels(object, need = FALSE))) stop_no_labels(object, "predict()", "object")
  z <- partition_draws(object)
  newx <- tryCatch(fam_convert_with(prep, newdata, min_rows = 1L),
                   error = function(e)   # the checks name the fitted `data`
                     stop(gsub("`data`", "`newdata`", conditionMessage(e), fixed = TRUE),
                          call. = FALSE))
  S <- nrow(z)
  check_predict_budget(S, nrow(newx))   # R/chains_budget.R
  tr <- do.call(rbind, lapply(object$chains, `[[`, "traces"))
  model <- object$model
  if (identical(object$mixture, "finite")) {
    if (!isTRUE(model$symmetric))
      stop("`object` is a finite mixture with an asymmetric Dirichlet prior on the ",
           "weights: predictions need the symmetric one.", call. = FALSE)
    w <- cbind(sum(model$alpha), 0, model$K)
  } else {
    alpha <- if ("alpha" %in% colnames(tr)) tr[, "alpha"] else as.double(model$alpha)
    d <- if ("discount" %in% colnames(tr)) tr[, "discount"] else as.double(model$discount)
    w <- cbind(alpha, d, 0)
  }
  w <- matrix(as.double(w), S, 3L, byrow = nrow(w) == 1L)
  if (nrow(w) != S) w <- w[rep_len(seq_len(nrow(w)), S), , drop = FALSE]
  xt <- t(object$data)
  storage.mode(xt) <- "double"
  nt <- t(newx)
  storage.mode(nt) <- "double"
  if (type == "density") {
    dens <- .Call(C_ffi_mixture_predict, prep$name, as.integer(prep$dim),
                  as.double(prep$hyper), xt, z, w, nt, NULL)
    probs <- c((1 - level) / 2, (1 + level) / 2)
    q <- apply(dens, 2L, stats::quantile, probs = probs, names = FALSE)
    out <- data.frame(density = colMeans(dens), lower = q[1L, ], upper = q[2L, ])
    attr(out, "draws") <- dens
    return(out)
  }
  est <- if (is.null(estimate)) partition(object) else check_estimate(estimate, object$N)
  lab <- as.integer(est$labels)
  out <- .Call(C_ffi_mixture_predict, prep$name, as.integer(prep$dim),
               as.double(prep$hyper), xt, z, w, nt, lab)
  out <- cbind(out, new = pmax(0, 1 - rowSums(out)))
  colnames(out) <- c(paste0("cluster", seq_len(ncol(out) - 1L)), "new")
  rn <- if (is.data.frame(newdata) || is.matrix(newdata)) rownames(newdata) else names(newdata)
  if (length(rn) == nrow(out)) rownames(out) <- rn
  membership_as(out, type, est)
}

# predict(type = "membership" / "class" / "uncertainty") without `newdata`:
# the fitted rows, from the stored labels alone (any family).
membership_fitted <- function(object, type, estimate) {
  if (is.null(fit_labels(object, need = FALSE))) stop_no_labels(object, "predict()", "object")
  z <- partition_draws(object)
  est <- if (is.null(estimate)) partition(object) else check_estimate(estimate, object$N)
  lab <- as.integer(est$labels)
  C <- max(lab)
  out <- cbind(membership_shares(z, lab, C), 0)
  colnames(out) <- c(paste0("cluster", seq_len(C)), "new")
  if (length(object$row_names) == nrow(out)) rownames(out) <- object$row_names
  membership_as(out, type, est)
}

# Memberships of the fitted rows in the C clusters of a point estimate
# (`lab`, labels 1..C): in draw s, row i is in its draw cluster k_i, shared
# out among the estimated clusters in proportion to k_i's members (row i
# included), n_{c k_i} / n_{k_i}; averaged over the draws `use` of `z`
# (draws x rows). Each row sums to 1.
membership_shares <- function(z, lab, C, use = seq_len(nrow(z))) {
  memb <- matrix(0, length(lab), C)
  for (s in use) {
    zs <- match(z[s, ], unique(z[s, ]))
    K <- max(zs)
    tab <- matrix(tabulate(zs + K * (lab - 1L), K * C), K, C)
    memb <- memb + (tab / rowSums(tab))[zs, , drop = FALSE]
  }
  memb / length(use)
}

# A membership matrix (rows summing to 1, last column `new`) as asked by
# `type` of predict(): the matrix, the class (largest membership among the
# estimated clusters) or the uncertainty (1 - largest membership).
membership_as <- function(m, type, est) {
  if (type == "class") {
    C <- ncol(m) - 1L
    return(stats::setNames(max.col(m[, seq_len(C), drop = FALSE], ties.method = "first"),
                           rownames(m)))
  }
  if (type == "uncertainty") return(stats::setNames(1 - apply(m, 1L, max), rownames(m)))
  attr(m, "partition") <- est
  m
}

# A point estimate of the partition given to predict(): an mcmix_partition
# or one label per fitted observation; returns an mcmix_partition-like list
# with labels 1..C in order of first appearance.
check_estimate <- function(estimate, N) {
  lab <- if (inherits(estimate, "mcmix_partition")) estimate$labels else estimate
  if (is.factor(lab)) lab <- as.character(lab)
  if (!is.atomic(lab) || is.null(lab) || length(lab) != N || anyNA(lab))
    stop(sprintf(paste0("`estimate` must be a partition() result or a vector of %d labels ",
                        "(one per fitted observation, no NA), not %s."),
                 as.integer(N), describe_value(estimate)), call. = FALSE)
  if (inherits(estimate, "mcmix_partition")) {
    estimate$labels <- match(lab, unique(lab))
    return(estimate)
  }
  lab <- match(lab, unique(lab))
  list(labels = lab, n_clusters = length(unique(lab)), sizes = tabulate(lab))
}
