# What a Dirichlet process mixture chain keeps of its partitions when the
# labels of every observation at every kept draw do not fit the memory
# budget (`labels = "online"`, the default then; src/mixture_online.c
# through src/ffi_mixture_online.c): the labels of a fixed subsample of the
# observations at every kept draw, and an online point estimate of the
# partition of all of them (the "relabelled mode").
#
# In a fit: fit$settings$label_subset (the subsample, 1-based indices),
# fit$chains[[c]]$labels_subset (kept draws x subsample labels) and
# fit$chains[[c]]$state$online = list(counts = N x L counts, mode = N
# integers (0-based slot, -1 before the first draw), n_draws), carried by
# the chain's state so that extend() continues it exactly. The counts are
# 16-bit (a raw vector of 2 N L bytes, native byte order) while no count
# can exceed 65535, else an N x L integer matrix (online_counts()).

#' Online point estimate of the partition
#'
#' The point estimate of the partition of *all* observations kept by a
#' Dirichlet process mixture fit run with `labels = "online"` (the default
#' of [sample_posterior()] when the labels of every observation at every
#' kept draw would take more than half of the memory budget), with the
#' posterior frequency of each observation's estimated cluster.
#'
#' **What it is.** A *relabelled mode*, not the minimiser of a loss such as
#' the variation of information or Binder's loss (which [partition()]
#' computes, here on the subsample of observations whose labels are
#' stored). While sampling, each kept draw of the partition is relabelled
#' to the current estimate: its clusters are matched to the estimate's
#' clusters ("slots") by their overlap, greedily (the pair of a draw's
#' cluster and a slot sharing the most observations first, then the next
#' largest among the pairs still free, and so on), a cluster left unmatched
#' taking a slot that is the estimated cluster of no observation, or a new
#' slot. Each observation counts how often it fell in each slot, and its
#' estimated cluster is the slot it fell in most often (ties: the earlier
#' slot); `frequency` is that count over the number of kept draws, an
#' uncertainty: the posterior probability, under this relabelling, that the
#' observation is in its estimated cluster. The first kept draw opens the
#' first slots. At most `max_slots` slots are kept (fixed by the memory
#' budget, at most 64): once they are all in use, a draw's unmatched
#' cluster shares the slot of largest overlap. Relabelling draws by matching
#' their clusters to a reference is the approach of Stephens (2000) and
#' Papastamoulis and Iliopoulos (2010); here the reference is the running
#' estimate and each draw costs O(N) time. The state is N x (slots) counts
#' (2 bytes each while there are at most 65535 kept draws per chain, else
#' 4) and N estimated clusters (4 bytes each) per chain, held twice while
#' sampling (the state a chunk starts from and the one it returns).
#'
#' With several chains, the estimates are combined: each chain's slots are
#' matched to those of the first chain the same way (by the overlap of the
#' estimated clusters), the counts added, and the mode taken again. The
#' estimate counts every kept draw of each chain (also those left out by
#' [window()][window.mcmix_fit()] or, after an interrupt, beyond the
#' common number of draws), and [extend()] continues it exactly as one
#' longer run would have.
#'
#' @param fit A Dirichlet process mixture fit from [sample_posterior()]
#'   with `labels = "online"`.
#' @return An object of class `c("mcmix_online_partition",
#'   "mcmix_partition")`: as [partition()]'s, the integer vector of labels
#'   (one per observation, `1..K` in order of first appearance, named by the
#'   fitted data's row names when the fit stored them; `table(est)` gives
#'   the sizes), with the fields `est$labels`, `est$frequency` (per
#'   observation, in (0, 1]), `est$n_clusters`, `est$sizes`, `est$n_draws`
#'   (kept draws counted, all chains) and `est$method` (`"relabelled
#'   mode"`). It can be given as `estimate` to
#'   [plot_clusters()] and to `predict()` methods that take a partition.
#' @references Stephens, M. (2000). Dealing with label switching in mixture
#'   models. *Journal of the Royal Statistical Society B* 62, 795--809.
#'
#'   Papastamoulis, P. and Iliopoulos, G. (2010). An artificial allocations
#'   based solution to the label switching problem in Bayesian analysis of
#'   mixtures of distributions. *Journal of Computational and Graphical
#'   Statistics* 19, 313--331.
#' @seealso [sample_posterior()] (argument `labels`), [partition()]
#' @examples
#' set.seed(1)
#' x <- c(rnorm(300, -3), rnorm(300, 3))
#' fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 100,
#'                         labels = "online", progress = FALSE)
#' est <- online_partition(fit)
#' est
#' table(est, rep(1:2, each = 300))
#' summary(est$frequency)
#' @export
online_partition <- function(fit) {
  if (!inherits(fit, "mcmix_mixture_fit") || !fit_is_online(fit))
    stop_input(sprintf(paste0("`fit` must be a Dirichlet process mixture fit sampled with ",
                              "`labels = \"online\"`, not %s; for a fit with stored labels ",
                              "use partition()."),
                       if (inherits(fit, "mcmix_mixture_fit")) "one without an online estimate"
                       else describe_value(fit)), "fit")
  if (isTRUE(fit$windowed))
    message("The online estimate counts every kept draw of the run, not only those of ",
            "the window() of `fit`.")
  fit <- fit_usable(fit, quiet = TRUE)
  acc <- Filter(function(o) !is.null(o) && o$n_draws > 0,
                lapply(fit$chains, function(ch) ch$state$online))
  if (!length(acc))
    stop_input("`fit` has no kept draw yet: extend(fit, iter = 0) completes the run.", "fit")
  mode <- acc[[1L]]$mode + 1L
  n_draws <- acc[[1L]]$n_draws
  if (length(acc) == 1L) {   # (the counts at the modes only: no N x L copy)
    best <- online_count_at(acc[[1L]], mode)
  } else {
    counts <- online_counts(acc[[1L]])
    for (o in acc[-1L]) {
      L <- online_slots(o)
      map <- online_match(o$mode + 1L, L, mode, ncol(counts))
      if (max(map) > ncol(counts))
        counts <- cbind(counts, matrix(0L, nrow(counts), max(map) - ncol(counts)))
      for (l in seq_len(L))
        counts[, map[l]] <- counts[, map[l]] + online_count_at(o, rep(l, length(o$mode)))
      n_draws <- n_draws + o$n_draws
      mode <- max.col(counts, ties.method = "first")
    }
    best <- counts[cbind(seq_along(mode), mode)]
  }
  labels <- match(mode, unique(mode))
  new_partition(labels, list(frequency = best / n_draws,   # R/partition.R
                             n_clusters = length(unique(labels)), sizes = tabulate(labels),
                             n_draws = n_draws, method = "relabelled mode"),
                fit$row_names, class = c("mcmix_online_partition", "mcmix_partition"))
}

#' @export
print.mcmix_online_partition <- function(x, ...) {
  cat("Online point estimate of the partition (relabelled mode over ", format(x$n_draws),
      " draws): ", x$n_clusters, " cluster", if (x$n_clusters != 1L) "s", " of ",
      length(x$labels), " observations\n", sep = "")
  cat("  sizes: ", paste(x$sizes, collapse = " "), "\n", sep = "")
  q <- stats::quantile(x$frequency, c(0, 0.05, 0.5), names = FALSE)
  cat("  frequency of the estimated cluster: min ", format(q[1L], digits = 3), ", 5% ",
      format(q[2L], digits = 3), ", median ", format(q[3L], digits = 3), "\n", sep = "")
  invisible(x)
}

# The slots 1..L_from of estimate `from` (modes) matched to those of `to`
# (slots 1..L_to) by the greedy overlap rule of the engine: the pairs by
# decreasing overlap, then unmatched slots to new slots L_to + 1, ...
online_match <- function(from, L_from, to, L_to) {
  tab <- matrix(tabulate((from - 1L) * L_to + to, L_from * L_to), L_from, L_to, byrow = TRUE)
  map <- rep(NA_integer_, L_from)
  used <- logical(L_to)
  nz <- which(tab > 0, arr.ind = TRUE)
  if (nrow(nz)) {
    nz <- nz[order(-tab[nz], nz[, 1L], nz[, 2L]), , drop = FALSE]
    for (r in seq_len(nrow(nz))) {
      k <- nz[r, 1L]
      l <- nz[r, 2L]
      if (is.na(map[k]) && !used[l]) {
        map[k] <- l
        used[l] <- TRUE
      }
    }
  }
  left <- which(is.na(map))
  map[left] <- L_to + seq_along(left)
  map
}

# The counts of a chain's online estimate as an N x L integer matrix; its
# number of slots L; the count of each observation i in slot slot[i].
online_counts <- function(o) {
  if (is.integer(o$counts)) return(o$counts)
  N <- length(o$mode)
  v <- readBin(o$counts, "integer", n = length(o$counts) %/% 2L, size = 2L,
               signed = FALSE, endian = .Platform$endian)
  dim(v) <- c(N, length(v) %/% N)
  v
}
online_slots <- function(o) {
  N <- length(o$mode)
  if (is.integer(o$counts)) ncol(o$counts) else length(o$counts) %/% (2L * N)
}
online_count_at <- function(o, slot) {
  N <- length(o$mode)
  at <- (as.double(slot) - 1) * N + seq_len(N)   # cells, column-major
  if (is.integer(o$counts)) return(o$counts[at])
  lo <- as.integer(o$counts[2 * at - 1])
  hi <- as.integer(o$counts[2 * at])
  if (.Platform$endian == "little") lo + 256L * hi else hi + 256L * lo
}

# Is `fit` a DP mixture fit run with labels = "online"?
fit_is_online <- function(fit) !is.null(fit$settings$label_subset)

# The labels kept for the subsample: list(labels = draws x S integer
# matrix, chains stacked, subset = the observations), or NULL.
fit_label_subset <- function(fit) {
  idx <- fit$settings$label_subset
  if (is.null(idx)) return(NULL)
  labs <- lapply(fit$chains, `[[`, "labels_subset")
  if (any(vapply(labs, is.null, logical(1)))) return(NULL)
  out <- do.call(rbind, labs)
  storage.mode(out) <- "integer"
  list(labels = out, subset = idx)
}

# The label draws a partition summary works on: the stored labels of every
# observation, else those of the subsample (with attribute `subset`, and a
# message saying so unless `quiet`), else NULL (need = FALSE) or an error
# naming `labels`.
fit_labels_any <- function(fit, need = TRUE, what = "the result", quiet = FALSE, arg = "x") {
  labs <- fit_labels(fit, need = FALSE)   # R/psm.R
  if (!is.null(labs)) return(labs)
  sub <- fit_label_subset(fit)
  if (!is.null(sub)) {
    if (!quiet)
      message(sprintf(paste0(
        "The fit stores the labels of %s of its %s observations (an evenly spaced ",
        "subsample, `fit$settings$label_subset`): %s is for them only. ",
        "online_partition(fit) estimates the partition of every observation."),
        format_count(length(sub$subset)), format_count(fit$N), what))
    return(structure(sub$labels, subset = sub$subset))
  }
  if (need) stop_no_labels(fit, what, arg)
  NULL
}

# The error of a function that needs the labels of every observation at
# every kept draw (classed, naming `arg`, the argument that gave the fit;
# the message says how to sample with them).
stop_no_labels <- function(fit, what, arg = "x") {
  if (inherits(fit, "mcmix_sharded_fit"))
    stop_input(sprintf(paste0(
      "%s needs the cluster labels of the kept draws, but a sharded fit keeps its labels on ",
      "the workers, where they change every sweep: shard_labels(fit) collects those of the ",
      "last draw (%s), e.g. to tabulate them or to predict with the clusters' statistics."),
      what, format_bytes(4 * fit$N)), arg)
  if (fit_is_online(fit))
    stop_input(sprintf(paste0(
      "%s needs the cluster labels of every observation at every kept draw, but the fit ",
      "was sampled with `labels = \"online\"` (the labels of %s of its %s observations ",
      "and an online point estimate are stored). Refit with `labels = TRUE` (a larger ",
      "`thin` keeps them within the memory budget, option `mcmix.memory_budget`), or use ",
      "online_partition(fit), or partition() and psm() on the subsample."),
      what, format_count(length(fit$settings$label_subset)), format_count(fit$N)),
      arg)
  stop_input(sprintf(paste0(
    "%s needs the cluster labels of the kept draws, but the fit has none stored: ",
    "sample with `labels = TRUE` (the default when they fit the memory budget)."),
    what), arg)
}

# The settings of labels = "online" for `chains` chains of `iter` / `thin`
# kept draws of N observations: the subsample (at most
# mcmix_option("label_subsample") observations, evenly spaced,
# within a quarter of the memory budget) and the number of slots of the
# online estimate (two copies of N x slots counts per chain while sampling,
# within half the budget; at most 64). Refused, naming `labels`, when not
# even two slots fit.
online_settings <- function(N, chains, iter, thin) {
  budget <- memory_budget()
  kept <- max(1, floor(as.double(iter) / thin))
  smax <- mcmix_option("label_subsample")
  S <- min(N, floor(smax), floor(budget / 4 / (as.double(chains) * kept * 12)))
  S <- max(1, S)
  slots <- min(64, floor(budget / 2 / (as.double(chains) * 8 * N)))
  if (slots < 2)
    stop_input(sprintf(paste0(
      "`labels = \"online\"` keeps an online estimate of the partition of %s observations ",
      "in each of %s chains, which needs at least %s, more than half the memory budget of %s ",
      "(option `mcmix.memory_budget`): use `labels = FALSE` (the traces and the final ",
      "partition are kept) or raise the budget."),
      format_count(N), format_count(chains), format_bytes(as.double(chains) * 16 * N),
      format_bytes(budget)), "labels")
  list(subset = as.integer(unique(round(seq(1, N, length.out = S)))),
       max_slots = as.integer(slots),
       # tests only: 16-bit counts up to this many draws (default 65535)
       narrow_max = mcmix_option("online_narrow_max"))
}
