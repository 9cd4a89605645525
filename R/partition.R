# Point estimates of the clustering (src/partition_loss.c,
# src/partition_search.c).

loss_codes <- c(VI = 1L, binder = 2L, VI_lb = 3L)

#' Point estimate of the partition
#'
#' Finds the partition minimising the posterior expected loss: the
#' variation of information (VI; Meila 2007, Wade and Ghahramani 2018) or
#' Binder's loss (unit costs), by randomised sequential allocations
#' (`method = "salso"`, Dahl, Johnson and Mueller 2022) and greedy searches
#' (each sweep moves every observation to the cluster, or a new cluster,
#' that lowers the loss most) from several starting partitions.
#'
#' **How the loss is computed.** With label draws (a fit with stored
#' labels, or a label matrix), the expected VI is computed *exactly* over
#' all the draws, both in the search and in the reported loss, in bits
#' (log base 2). The distinct sampled partitions are candidates: the one
#' with the smallest expected VI starts the first search (so the estimate
#' is never worse than the best candidate scored) and `restarts - 1` other
#' scored candidates drawn at random start the others.
#'
#' **Cost.** Scoring one candidate exactly costs about `draws x N`
#' operations. When all the distinct candidates fit in `budget` operations
#' (`distinct x draws x N <= budget`), all are scored exactly and the
#' estimate is never worse than the best sampled partition. Otherwise the
#' candidates are first ranked by their expected VI over an evenly thinned
#' subset of the draws (half the budget; an evenly spaced subset of the
#' candidates when even that is too much), and only the best
#' `max(10, budget / 2 / (draws x N))` of them by that ranking are scored
#' exactly: the estimate is then never worse than the best of the
#' candidates scored exactly (`best_draw_loss`), which is almost always the
#' best sampled partition, but not guaranteed to be. When the per-draw
#' contingency tables of the search would exceed about 100 MB, moves are
#' scored on an evenly thinned subset of the draws; the reported loss is
#' still exact over all draws. With Binder's loss a candidate costs `N^2`
#' operations and, if they exceed the budget, an evenly spaced subset of
#' the candidates is scored. From a similarity matrix alone, the expected VI is not
#' available; the search then minimises the lower bound of Wade and
#' Ghahramani (2018, eq. 11) and reports it as `"VI lower bound"`, starting
#' from cuts of an average-linkage tree of `1 - psm`. Binder's loss is
#' always exact from the similarity matrix: `sum_{i<j} 1(c_i = c_j)(1 -
#' p_ij) + 1(c_i != c_j) p_ij`.
#'
#' @param x An `mcmix_fit` (with stored labels or online co-clustering
#'   counts), a label matrix (one row per draw), or a similarity matrix as
#'   returned by [psm()]; for `as.integer()` and `as.vector()`, an
#'   `mcmix_partition`.
#' @param loss `"VI"` or `"binder"`.
#' @param restarts Number of starting partitions.
#' @param max_sweeps Maximum number of sweeps of each greedy search.
#' @param budget Approximate number of operations allowed for scoring the
#'   sampled partitions (see "Cost"); the default, `1e8`, takes about a
#'   second. Set the option `mcmix.partition_budget` to change it for a
#'   session.
#' @param method `"salso"` (the default): the search of Dahl, Johnson and
#'   Mueller (2022), `runs` randomised sequential allocations (the
#'   observations taken in a random order, each put in the cluster, or a new
#'   one, minimising the expected loss of the observations placed so far)
#'   each followed by greedy sweeps (on at most 1000 evenly spaced draws),
#'   plus the greedy searches of `"greedy"` (only the one from the best
#'   sampled partition when the others would cost more than a tenth of
#'   `budget`); the best of all is returned. `"greedy"`: the greedy
#'   search from `restarts` starting partitions. From a similarity matrix
#'   with `loss = "VI"` (the lower bound) the search is always greedy.
#' @param runs Number of random sequential allocations of `"salso"`.
#' @param ... Unused.
#' @return An object of class `mcmix_partition`: the integer vector of
#'   labels (`1..K` in order of first appearance), one per observation and
#'   named by the row names of the fitted data when the fit stored them (a
#'   data frame with row names), as mclust's `classification`. So
#'   `table(p)` gives the cluster sizes, and `as.integer(p)`,
#'   `as.factor(p)`, `length(p)`, `p[i]`, `split(x, p)`, `tapply(x, p, f)`
#'   and `data.frame(x, cluster = p)` work on the labels (subsetting and
#'   arithmetic give plain integer vectors). The summary of the estimate is
#'   read with `$`: `p$labels` (the labels, unnamed), `p$row_names`, `p$loss`
#'   (the posterior expected loss of the estimate), `p$loss_type`,
#'   `p$best_draw_loss` (the smallest expected loss among the sampled
#'   partitions scored exactly, when draws are available), `p$n_clusters`,
#'   `p$sizes`, `p$candidates` (the number of distinct sampled partitions)
#'   and `p$scored` (how many were scored exactly), `p$method`, and
#'   `p$run_loss` (the expected loss reached by each sequential allocation
#'   of `"salso"`, over the draws the search used: at most 1000 evenly
#'   spaced ones; the reported `loss` is over all draws). [credible_ball()]
#'   gives the uncertainty around the estimate. For a Dirichlet process
#'   mixture fit sampled with `labels = "online"`, the estimate is that of
#'   the evenly spaced subsample of observations whose labels are stored (a
#'   message says so), and `p$subset` holds their indices;
#'   [online_partition()] gives an estimate for every observation.
#' @references Dahl, D. B., Johnson, D. J. and Mueller, P. (2022). Search
#'   algorithms and loss functions for Bayesian clustering. *Journal of
#'   Computational and Graphical Statistics* 31(4), 1189--1201.
#'
#'   Wade, S. and Ghahramani, Z. (2018). Bayesian cluster analysis:
#'   point estimation and credible balls. *Bayesian Analysis* 13(2),
#'   559--626.
#' @examples
#' set.seed(1)
#' truth <- rep(1:3, each = 10)
#' draws <- t(replicate(50, { z <- truth; i <- sample(30, 3); z[i] <- sample(3, 3, TRUE); z }))
#' p <- partition(draws)
#' p
#' table(p)              # the cluster sizes
#' table(p, truth)
#' p[1:5]
#' p$loss
#' @export
partition <- function(x, loss = c("VI", "binder"), restarts = 10, max_sweeps = 100,
                      budget = mcmix_option("partition_budget"),
                      method = c("salso", "greedy"), runs = 16, ...) {
  loss <- match_choice(loss, c("VI", "binder"), "loss")
  method <- match_choice(method, c("salso", "greedy"), "method")
  runs <- check_count_max(runs, "runs", 1L, 1e4, "runs")
  restarts <- check_count(restarts, "restarts", 1L)
  max_sweeps <- check_count(max_sweeps, "max_sweeps", 1L)
  budget <- as.double(check_positive(budget, "budget", allow_inf = TRUE))
  labs <- NULL
  p <- NULL
  row_names <- NULL
  if (inherits(x, "mcmix_fit")) {
    check_clustering_fit(x)   # R/psm.R
    row_names <- x$row_names
    x <- fit_usable(x)        # R/chains.R: the chains with draws
    labs <- fit_labels(x, need = FALSE)
    if (is.null(labs) && is.null(x$chains[[1L]]$psm))   # labels = "online": the subsample
      labs <- fit_labels_any(x, need = FALSE, what = "the point estimate")
    if (is.null(labs)) p <- psm(x)
  } else if (is_similarity_matrix(x)) {
    p <- unname(x)
    storage.mode(p) <- "double"
  } else {
    labs <- check_label_matrix(x, "x")
  }
  subsample <- attr(labs, "subset")
  if (!is.null(labs)) labs <- canonical_labels(labs)
  if (loss == "binder" && is.null(p)) p <- psm(labs)
  code <- if (loss == "binder") "binder" else if (is.null(labs)) "VI_lb" else "VI"
  N <- if (!is.null(labs)) ncol(labs) else ncol(p)
  score <- function(cands, draws = labs)
    .Call(C_ffi_partition_loss, cands, draws, p, loss_codes[[code]])

  best_draw_loss <- NA_real_
  n_cand <- n_scored <- NA_integer_
  if (!is.null(labs)) {
    cands <- labs[!duplicated(labs), , drop = FALSE]
    n_cand <- nrow(cands)
    cands <- partition_candidates(cands, labs, code, budget, score)
    n_scored <- nrow(cands)
    losses <- score(cands)
    o <- order(losses)
    best_draw_loss <- losses[o[1L]]
    others <- o[-1L]
    pick <- if (length(others) > restarts - 1L) sample(others, restarts - 1L) else others
    starts <- cands[c(o[1L], pick), , drop = FALSE]
  } else {
    starts <- psm_starts(p, restarts)
  }
  salso <- method == "salso" && code != "VI_lb"
  # with salso, the greedy restarts too when they are cheap, else the greedy
  # search from the best draw only
  if (salso && as.numeric(N) * (if (is.null(labs)) N else nrow(labs)) * nrow(starts) >
      budget / 10)
    starts <- starts[1L, , drop = FALSE]
  results <- lapply(seq_len(nrow(starts)), function(r)
    .Call(C_ffi_partition_greedy, starts[r, ], labs, p, loss_codes[[code]],
          max_sweeps))
  run_loss <- NULL
  if (salso) {
    sa <- partition_salso(labs, p, code, runs, max_sweeps)
    run_loss <- sa$run_loss
    results <- c(results, list(structure(sa$labels, sweeps = NA_integer_)))
  }
  res_mat <- do.call(rbind, results)
  storage.mode(res_mat) <- "integer"
  res_loss <- score(res_mat)
  b <- which.min(res_loss)
  best <- as.integer(res_mat[b, ])
  best_loss <- res_loss[b]
  if (!is.na(best_draw_loss) && best_draw_loss < best_loss) {
    best <- starts[1L, ]
    best_loss <- best_draw_loss
  }
  best <- match(best, unique(best))
  if (!is.null(subsample) && length(row_names)) row_names <- row_names[subsample]
  if (length(row_names) != length(best)) row_names <- NULL
  new_partition(best, list(loss = best_loss,
                           loss_type = c(VI = "VI", binder = "binder", VI_lb = "VI lower bound")[[code]],
                           best_draw_loss = best_draw_loss, n_clusters = length(unique(best)),
                           sizes = tabulate(best), candidates = n_cand, scored = n_scored,
                           starts = nrow(starts), method = if (salso) "salso" else "greedy",
                           run_loss = run_loss,
                           sweeps = vapply(results, function(r) attr(r, "sweeps"), integer(1)),
                           subset = subsample),
                row_names)
}

# An mcmix_partition is the integer vector of labels itself (named by the
# row names of the fitted data when the fit stored them), as mclust's
# `classification`, so table(p), as.factor(p), length(p), p[i], split(x, p)
# and tapply(x, p, f) work on the labels; the summary fields ride along in
# the attribute "partition_info" and are read as p$loss, p$sizes, ...
# (p$labels: the unnamed labels, p$row_names: the names). Subsetting and
# arithmetic give plain integer vectors (the fields describe the whole
# estimate, not a piece of it).
new_partition <- function(labels, fields, row_names = NULL,
                          class = "mcmix_partition") {
  out <- as.integer(labels)
  if (length(row_names) == length(out)) names(out) <- as.character(row_names)
  attr(out, "partition_info") <- fields
  class(out) <- class
  out
}

# The labels of a partition as a plain integer vector (names kept).
partition_labels <- function(x) {
  out <- as.integer(unclass(x))
  if (!is.null(nm <- names(x))) names(out) <- nm
  out
}

#' @export
`$.mcmix_partition` <- function(x, name) {
  if (!is.character(name) || length(name) != 1L || is.na(name))
    stop_input(sprintf("`name` must be the name of a field of the partition, not %s.",
                       describe_value(name)), "name")
  if (identical(name, "labels")) return(as.integer(unclass(x)))
  if (identical(name, "row_names")) return(names(x))
  attr(x, "partition_info", exact = TRUE)[[name, exact = TRUE]]
}

#' @export
`[[.mcmix_partition` <- function(x, i, ...) {
  if (is.character(i) && length(i) == 1L) return(`$.mcmix_partition`(x, i))
  partition_labels(x)[[i, ...]]
}

#' @export
`$<-.mcmix_partition` <- function(x, name, value) {
  if (identical(name, "labels")) {
    if (length(value) != length(x))
      stop_input(sprintf("the labels must be %d values, not %d.", length(x), length(value)),
                 "value")
    info <- attr(x, "partition_info", exact = TRUE)
    return(new_partition(value, info, names(x), class(x)))
  }
  if (identical(name, "row_names")) {
    names(x) <- value
    return(x)
  }
  info <- attr(x, "partition_info", exact = TRUE)
  info[[name]] <- value
  attr(x, "partition_info") <- info
  x
}

#' @export
`[.mcmix_partition` <- function(x, i, ...) partition_labels(x)[i, ...]

#' @export
Ops.mcmix_partition <- function(e1, e2) {
  if (inherits(e1, "mcmix_partition")) e1 <- partition_labels(e1)
  if (!missing(e2) && inherits(e2, "mcmix_partition")) e2 <- partition_labels(e2)
  if (missing(e2)) get(.Generic)(e1) else get(.Generic)(e1, e2)
}

#' @export
Math.mcmix_partition <- function(x, ...) get(.Generic)(partition_labels(x), ...)

#' @export
as.data.frame.mcmix_partition <- function(x, row.names = NULL, optional = FALSE, ...,
                                          nm = deparse1(substitute(x))) {
  as.data.frame.vector(partition_labels(x), row.names = row.names, optional = optional,
                       ..., nm = nm)
}

#' @export
as.list.mcmix_partition <- function(x, ...) as.list(partition_labels(x), ...)

#' @export
format.mcmix_partition <- function(x, ...) format(partition_labels(x), ...)

#' @rdname partition
#' @param mode For `as.vector()`: as in [base::as.vector()].
#' @export
as.integer.mcmix_partition <- function(x, ...) partition_labels(x)

#' @rdname partition
#' @export
as.vector.mcmix_partition <- function(x, mode = "any") {
  out <- as.integer.mcmix_partition(x)
  if (identical(mode, "any") || identical(mode, "integer")) out
  else if (identical(mode, "list")) as.list(out)
  else as.vector(out, mode)
}

#' @export
print.mcmix_partition <- function(x, ...) {
  cat("Partition point estimate (", x$loss_type, " loss): ", x$n_clusters,
      " cluster", if (x$n_clusters != 1L) "s", " of ", length(x$labels),
      " observations", if (!is.null(x$subset)) " (the stored subsample)", "\n", sep = "")
  cat("  sizes: ", paste(x$sizes, collapse = " "), "\n", sep = "")
  cat("  posterior expected loss: ", format(x$loss, digits = 4), "\n", sep = "")
  if (!is.na(x$best_draw_loss)) {
    cat("  best sampled partition:  ", format(x$best_draw_loss, digits = 4), sep = "")
    if (!is.null(x$scored) && !is.na(x$scored) && x$scored < x$candidates)
      cat(" (of the ", x$scored, " scored exactly out of ", x$candidates, " distinct)", sep = "")
    cat("\n")
  }
  invisible(x)
}

# SALSO-style search (src/partition_salso.c through src/ffi_partition.c):
# `runs` random permutations, each allocated sequentially and sweetened by
# greedy sweeps, on at most `max_draws` evenly spaced draws (the loss of
# the result is then recomputed exactly over all draws by partition()); the
# VI tables allow up to max(2 L, L + 10) clusters, L the largest number of
# clusters of a draw.
partition_salso <- function(labs, p, code, runs, max_sweeps, max_draws = 1000L) {
  N <- if (!is.null(labs)) ncol(labs) else ncol(p)
  if (!is.null(labs) && nrow(labs) > max_draws)   # the search on evenly thinned draws
    labs <- labs[unique(round(seq(1, nrow(labs), length.out = max_draws))), , drop = FALSE]
  perms <- vapply(seq_len(runs), function(r) sample.int(N) - 1L, integer(N))
  if (N == 1L) perms <- matrix(perms, 1L)
  L <- if (!is.null(labs)) max(labs) else N
  kmax <- as.integer(min(N, max(2L * L, L + 10L)))
  .Call(C_ffi_partition_salso, perms, if (code == "VI") labs else NULL,
        if (code == "binder") p else NULL, loss_codes[[code]], as.integer(max_sweeps), kmax)
}

# The distinct sampled partitions `cands` to score exactly within `budget`
# operations (see partition(), "Cost"): all of them when they fit; for VI,
# else the best by the expected VI over an evenly thinned subset of the
# draws (pre-scored with the other half of the budget, on an evenly spaced
# subset of the candidates if need be); for Binder's loss (cost N^2 each,
# no draws involved), an evenly spaced subset.
partition_candidates <- function(cands, labs, code, budget, score) {
  S <- nrow(labs)
  N <- ncol(labs)
  evenly <- function(n, m) unique(round(seq(1, n, length.out = m)))
  per <- if (code == "VI") as.numeric(S) * N else as.numeric(N)^2
  n_c <- nrow(cands)
  if (n_c * per <= budget) return(cands)
  max_c <- max(10, floor(budget / 2 / per))
  if (max_c >= n_c) return(cands)
  if (code != "VI") return(cands[evenly(n_c, max_c), , drop = FALSE])
  # pre-scoring: S1 thinned draws, at least 20 (or all) of them
  S1 <- min(S, max(20, floor(budget / 2 / (as.numeric(n_c) * N))))
  pre <- cands
  n_pre <- max(max_c, floor(budget / 2 / (as.numeric(S1) * N)))
  if (n_pre < n_c) pre <- cands[evenly(n_c, n_pre), , drop = FALSE]
  approx <- score(pre, labs[evenly(S, S1), , drop = FALSE])
  pre[order(approx)[seq_len(min(max_c, nrow(pre)))], , drop = FALSE]
}

# Canonical labels 1..K per draw, in order of first appearance.
canonical_labels <- function(labs) {
  out <- t(apply(labs, 1L, function(z) match(z, unique(z))))
  if (ncol(labs) == 1L) out <- t(out)
  storage.mode(out) <- "integer"
  out
}

is_similarity_matrix <- function(x) {
  is.matrix(x) && is.numeric(x) && nrow(x) == ncol(x) && nrow(x) > 0L &&
    !anyNA(x) && all(x >= 0 & x <= 1) && all(abs(diag(x) - 1) < 1e-12) &&
    isSymmetric(unname(x))
}

# Starting partitions from a similarity matrix: cuts of an average-linkage
# tree on 1 - p at several numbers of clusters.
psm_starts <- function(p, restarts) {
  N <- ncol(p)
  if (N == 1L) return(matrix(1L, 1L, 1L))
  tree <- stats::hclust(stats::as.dist(1 - p), method = "average")
  ks <- unique(pmin(N, round(seq(1, min(N, max(2, 2 * sqrt(N))), length.out = restarts))))
  out <- t(vapply(ks, function(k) as.integer(stats::cutree(tree, k)), integer(N)))
  storage.mode(out) <- "integer"
  out
}
