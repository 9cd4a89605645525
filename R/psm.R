# Posterior similarity (co-clustering) matrices (src/diag_psm.c).

#' Posterior similarity matrix
#'
#' The posterior probability that observations `i` and `j` are in the same
#' cluster, estimated by the proportion of kept draws in which they are.
#' It is computed in C from the stored cluster labels of a fit (or from a
#' label matrix), or read from the counts accumulated during sampling with
#' `psm = TRUE` (then labels need not be stored).
#'
#' For a Dirichlet process mixture fit sampled with `labels = "online"`
#' (see [sample_posterior()]), only the labels of an evenly spaced
#' subsample of the observations are stored: the matrix is then that of
#' the subsample (rows and columns named by the observations' indices,
#' attribute `subset`), and a message says so.
#'
#' A dense `N x N` matrix takes `8 N^2` bytes. Beyond
#' `getOption("mcmix.psm_max_bytes", 1e9)` bytes `psm()` refuses and names
#' the alternatives: raise the option, use a `subset` of the observations,
#' or accumulate online during sampling with `psm = TRUE`.
#'
#' @param x An `mcmix_fit` with stored labels or online counts, or an
#'   integer matrix of labels with one row per draw and one column per
#'   observation (positive integers; only equality matters).
#' @param subset Optional indices of the observations to keep (for a fit
#'   with `labels = "online"`, among those of the stored subsample).
#' @param ... Unused.
#' @return A symmetric numeric `N x N` matrix with unit diagonal, with
#'   attribute `n_draws` (and `subset` for the subsample of a fit with
#'   `labels = "online"`).
#' @seealso [partition()], [plot_coclustering()]
#' @examples
#' labels <- rbind(c(1, 1, 2, 2), c(1, 1, 1, 2), c(3, 3, 1, 1))
#' psm(labels)
#' @export
psm <- function(x, subset = NULL, ...) {
  if (inherits(x, "mcmix_fit")) {
    check_clustering_fit(x)   # R/psm.R
    x <- fit_usable(x)        # R/chains.R: the chains with draws
    labs <- fit_labels(x, need = FALSE)
    if (is.null(labs) && is.null(x$chains[[1L]]$psm) && !is.null(fit_label_subset(x)))
      return(psm_subsample(fit_labels_any(x, what = "the similarity matrix"), subset, x$N))
    if (is.null(labs)) {
      acc <- lapply(x$chains, `[[`, "psm")
      if (any(vapply(acc, is.null, logical(1))) && inherits(x, "mcmix_sharded_fit"))
        stop_no_labels(x, "psm()")
      if (any(vapply(acc, is.null, logical(1))))
        stop_input(paste0("`x` has neither stored labels nor online co-clustering counts: ",
                          "sample with `labels = TRUE` or `psm = TRUE`."), "labels")
      n <- sum(vapply(x$chains, function(ch) as.numeric(ch$psm_n), numeric(1)))
      N <- nrow(acc[[1L]])
      idx <- check_subset(subset, N)
      psm_check_budget(length(idx), N)
      out <- Reduce(`+`, lapply(acc, function(a) a[idx, idx, drop = FALSE])) / n
      return(structure(out, n_draws = n))
    }
  } else {
    labs <- check_label_matrix(x, "x")
  }
  N <- ncol(labs)
  idx <- check_subset(subset, N)
  psm_check_budget(length(idx), N)
  if (length(idx) < N) labs <- labs[, idx, drop = FALSE]
  out <- .Call(C_ffi_psm_counts, labs, NULL, 1 / nrow(labs))
  structure(out, n_draws = nrow(labs))
}

# The similarity of the subsample whose labels a fit stores (labels =
# "online", R/mixture_online.R): `labs` has attribute `subset` (the
# observations); `subset` picks observations among them (indices 1..N).
psm_subsample <- function(labs, subset, N) {
  obs <- attr(labs, "subset")
  cols <- seq_along(obs)
  if (!is.null(subset)) {
    cols <- match(check_subset(subset, N), obs)
    if (anyNA(cols))
      stop_input(sprintf(paste0("`subset` must name observations whose labels are stored ",
                                "(`fit$settings$label_subset`, %d of the %d): %s %s not."),
                         length(obs), as.integer(N),
                         paste(utils::head(check_subset(subset, N)[is.na(cols)], 5L),
                               collapse = ", "),
                         if (sum(is.na(cols)) > 1L) "are" else "is"), "subset")
  }
  psm_check_budget(length(cols), length(obs))
  out <- .Call(C_ffi_psm_counts, labs[, cols, drop = FALSE], NULL, 1 / nrow(labs))
  dimnames(out) <- list(obs[cols], obs[cols])
  structure(out, n_draws = nrow(labs), subset = obs[cols])
}

# Online accumulation used by the chain driver (R/chains.R).
psm_accumulate_c <- function(acc, labels) {
  storage.mode(labels) <- "integer"
  if (!is.null(acc)) storage.mode(acc) <- "double"
  .Call(C_ffi_psm_counts, labels, acc, 1)
}

# `online`: the check made before accumulating the matrix while sampling
# (`psm = TRUE`), which has other alternatives.
psm_check_budget <- function(n, N, online = FALSE) {
  budget <- mcmix_option("psm_max_bytes")
  bytes <- 8 * as.numeric(n)^2
  if (bytes > budget && online)
    stop(sprintf(paste0(
      "`psm = TRUE` accumulates a dense %d x %d similarity matrix, which needs %s, ",
      "more than the budget of %s (option `mcmix.psm_max_bytes`). Alternatives: ",
      "sample with `psm = FALSE` and `labels = TRUE` (the default) and compute ",
      "psm(fit, subset = idx) for a subset of the observations; or raise the budget ",
      "with options(mcmix.psm_max_bytes = %.3g)."),
      n, n, format_bytes(bytes), format_bytes(budget), bytes * 1.01), call. = FALSE)
  if (bytes > budget)
    stop(sprintf(paste0(
      "A dense %d x %d similarity matrix needs %s, more than the budget of %s ",
      "(option `mcmix.psm_max_bytes`). Alternatives: raise the budget with ",
      "options(mcmix.psm_max_bytes = %.3g); use a subset of the observations, ",
      "psm(fit, subset = idx); or accumulate the matrix while sampling with ",
      "`psm = TRUE` (labels need not be stored)."),
      n, n, format_bytes(bytes), format_bytes(budget), bytes * 1.01), call. = FALSE)
  invisible(TRUE)
}

format_bytes <- function(b) {
  u <- c("bytes", "kB", "MB", "GB", "TB")
  i <- max(1L, min(length(u), floor(log(max(b, 1), 1000)) + 1L))
  sprintf("%.3g %s", b / 1000^(i - 1L), u[i])
}

check_subset <- function(subset, N) {
  if (is.null(subset)) return(seq_len(N))
  if (is.logical(subset) && length(subset) == N && !anyNA(subset)) return(which(subset))
  if (!is.numeric(subset) || anyNA(subset) || any(subset != floor(subset)) ||
      any(subset < 1 | subset > N) || anyDuplicated(subset) || !length(subset))
    stop(sprintf("`subset` must be distinct indices between 1 and %d.", N), call. = FALSE)
  as.integer(subset)
}

# All stored labels of a fit (draws of every chain, one after another).
# A fit whose model clusters the data (mixture and HDP fits, or any fit
# that stored labels or co-clustering counts); otherwise an error saying
# that the fit has no clusters (advice about `labels = TRUE` would mislead).
check_clustering_fit <- function(x, arg = "x") {
  if (inherits(x, c("mcmix_mixture_fit", "mcmix_hdp_fit"))) return(invisible(x))
  has <- any(vapply(x$chains, function(ch) !is.null(ch$labels) || !is.null(ch$psm),
                    logical(1)))
  if (!has)
    stop(sprintf(paste0("`%s` is a fit of the \"%s\" sampler, which does not cluster the data: ",
                        "partitions and co-clustering need a mixture fit (sample_posterior() ",
                        "of dp_mixture() or finite_mixture(), hdp_mixture()) or a matrix of ",
                        "cluster labels."), arg, x$kernel$name),
         call. = FALSE)
  invisible(x)
}

fit_labels <- function(fit, need = TRUE) {
  # the chains with kept draws (after an interrupt, a chain that never
  # started holds no labels)
  n <- fit_draw_counts(fit)   # R/summary.R
  labs <- lapply(fit$chains[n > 0L | !length(n)], `[[`, "labels")
  if (!length(labs)) labs <- list(NULL)
  if (any(vapply(labs, is.null, logical(1)))) {
    if (need)
      stop("`x` has no stored cluster labels: sample with `labels = TRUE` (the default).",
           call. = FALSE)
    return(NULL)
  }
  out <- do.call(rbind, labs)
  storage.mode(out) <- "integer"
  out
}

check_label_matrix <- function(x, arg) {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.numeric(x) && is.null(dim(x))) x <- matrix(x, nrow = 1L)
  if (!is.matrix(x) || !is.numeric(x) || !length(x) || anyNA(x) ||
      any(x != round(x)) || any(abs(x) > .Machine$integer.max))
    stop(sprintf(paste0("`%s` must be an mcmix fit or a matrix of integer cluster ",
                        "labels (one row per draw, one column per observation)."), arg),
         call. = FALSE)
  if (any(x < 1)) {
    i <- which(x < 1)[1L]
    stop(sprintf(paste0("`%s` must contain positive integer cluster labels: the ",
                        "label of observation %d in draw %d is %s."), arg,
                 (i - 1L) %/% nrow(x) + 1L, (i - 1L) %% nrow(x) + 1L, format(x[i])),
         call. = FALSE)
  }
  storage.mode(x) <- "integer"
  x
}
