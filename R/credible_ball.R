# Credible balls around a point estimate of the partition (Wade and
# Ghahramani 2018, Section 3.2); distances in C (src/ffi_partition.c,
# mcx_dist_draws() in src/partition_loss.c).

#' Credible ball of a partition
#'
#' The credible ball of Wade and Ghahramani (2018, Section 3.2) around a
#' point estimate \eqn{\hat c} of the clustering: the smallest ball
#' \eqn{B_\epsilon(\hat c) = \{c : d(\hat c, c) \le \epsilon\}} whose
#' posterior probability, estimated by the fraction of the sampled
#' partitions inside it, is at least `level`. The distance \eqn{d} is the
#' variation of information (in bits) or Binder's loss (the number of pairs
#' of observations on which two partitions disagree).
#'
#' The ball is described by its bounds among the sampled partitions inside
#' it: the *upper vertical bound* (the partitions with the fewest clusters,
#' and among them those farthest from \eqn{\hat c}), the *lower vertical
#' bound* (the most clusters, farthest) and the *horizontal bound* (the
#' partitions farthest from \eqn{\hat c}).
#'
#' @param x A mixture fit with stored labels, or a label matrix (one row per
#'   draw). For a Dirichlet process mixture fit sampled with
#'   `labels = "online"`, the ball is that of the partitions of the stored
#'   subsample of observations (a message says so; their indices in
#'   `subset` of the result).
#' @param estimate The centre: a [partition()] result or a vector of labels;
#'   `NULL` computes `partition(x, loss = loss)`.
#' @param loss `"VI"` or `"binder"`.
#' @param level Posterior probability of the ball, in (0, 1).
#' @return An object of class `mcmix_credible_ball`: `estimate` (labels),
#'   `radius`, `level`, `mass` (the fraction of draws in the ball), `loss`,
#'   `distances` (of every draw to the estimate), and the bounds
#'   `upper_vertical`, `lower_vertical`, `horizontal` (matrices, one
#'   distinct partition per row, labels 1..K), with their numbers of
#'   clusters and distances in `bounds`.
#' @references Wade, S. and Ghahramani, Z. (2018). Bayesian cluster analysis:
#'   point estimation and credible balls. *Bayesian Analysis* 13(2),
#'   559--626.
#' @seealso [partition()]
#' @examples
#' set.seed(1)
#' truth <- rep(1:3, each = 10)
#' draws <- t(replicate(200, { z <- truth; i <- sample(30, 3); z[i] <- sample(3, 3, TRUE); z }))
#' b <- credible_ball(draws)
#' b
#' @export
credible_ball <- function(x, estimate = NULL, loss = c("VI", "binder"), level = 0.95) {
  loss <- match_choice(loss, c("VI", "binder"), "loss")
  level <- check_prob(level, "level")
  labs <- if (inherits(x, "mcmix_fit")) fit_labels_any(x, what = "the credible ball")
          else check_label_matrix(x, "x")
  subsample <- attr(labs, "subset")   # labels = "online" (R/mixture_online.R)
  labs <- canonical_labels(labs)
  N <- ncol(labs)
  if (is.null(estimate)) estimate <- partition(labs, loss = loss)
  est <- check_estimate(estimate, N)$labels
  d <- .Call(C_ffi_partition_dists, as.integer(est), labs, loss_codes[[loss]])
  S <- length(d)
  radius <- sort(d)[max(1, ceiling(level * S - 1e-9))]   # (at least the closest draw)
  inside <- d <= radius + 1e-10 * max(1, radius)
  K <- apply(labs, 1L, max)
  pick <- function(rows) {
    rows <- rows[d[rows] >= max(d[rows]) - 1e-10 * max(1, radius)]
    m <- labs[rows, , drop = FALSE]
    keep <- !duplicated(m)
    structure(m[keep, , drop = FALSE], distance = d[rows][keep])
  }
  ins <- which(inside)
  upper <- pick(ins[K[ins] == min(K[ins])])
  lower <- pick(ins[K[ins] == max(K[ins])])
  horiz <- pick(ins)
  bound_row <- function(m, what) data.frame(bound = what, n_clusters = max(m[1L, ]),
                                            distance = attr(m, "distance")[1L],
                                            partitions = nrow(m))
  structure(list(estimate = est, radius = radius, level = level, mass = mean(inside),
                 loss = loss, distances = d,
                 upper_vertical = upper, lower_vertical = lower, horizontal = horiz,
                 bounds = rbind(bound_row(upper, "upper vertical"),
                                bound_row(lower, "lower vertical"),
                                bound_row(horiz, "horizontal")),
                 subset = subsample),
            class = "mcmix_credible_ball")
}

#' @export
print.mcmix_credible_ball <- function(x, ...) {
  cat(sprintf("%g%% credible ball (%s distance) around a partition of %d observations into %d clusters\n",
              100 * x$level, if (x$loss == "VI") "VI" else "Binder", length(x$estimate),
              length(unique(x$estimate))))
  cat(sprintf("  radius: %s (%.1f%% of the draws inside)\n", format(x$radius, digits = 4),
              100 * x$mass))
  b <- x$bounds
  b$distance <- format(b$distance, digits = 4)
  print(b, row.names = FALSE)
  invisible(x)
}

#' @export
plot.mcmix_credible_ball <- function(x, ...) {
  graphics::hist(x$distances, breaks = 30, main = "Distances of the draws to the estimate",
                 xlab = if (x$loss == "VI") "VI (bits)" else "Binder (pairs)", ...)
  graphics::abline(v = x$radius, lty = 2, col = "red")
  invisible(x)
}
