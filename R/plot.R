# Base-graphics plots of fits: traces and densities, autocorrelations,
# co-clustering heatmap, clusters in the data.

# Distinct colours for chains (Okabe-Ito, then an HCL palette).
chain_colours <- function(m) {
  if (m <= 8L) {
    cols <- grDevices::palette.colors(9L, "Okabe-Ito")[c(6L, 7L, 4L, 8L, 2L, 3L, 5L, 9L)]
    return(unname(cols[seq_len(m)]))
  }
  grDevices::hcl.colors(m, "Dark 3")
}

# Restore par() on exit, keeping the user's device settings.
plot_par <- function(...) {
  old <- graphics::par(...)
  old
}

is_discrete_trace <- function(v) {
  v <- v[is.finite(v)]
  length(v) > 0L && all(v == round(v)) && length(unique(v)) <= 30L
}

select_traces <- function(fit, traces) {
  nm <- fit_trace_names(fit)
  if (is.null(traces)) return(nm)
  if (length(traces) && length(traces) <= length(nm) && is.numeric(traces) &&
      all(traces %in% seq_along(nm))) return(nm[traces])
  if (length(traces) && is.character(traces) && all(traces %in% nm)) return(unique(traces))
  stop(sprintf("`traces` must name traces of the fit (%s).", paste(nm, collapse = ", ")),
       call. = FALSE)
}

#' Plot the traces of a fit
#'
#' For every trace, the draws against the iteration number (left) and their
#' density (right; proportions for integer-valued traces such as the number
#' of clusters), chains in distinct colours. The axes follow the draws. A
#' trace whose draws are all non-negative (a variance, a rate, a
#' probability) is taken to live on \eqn{[0, \infty)}: its kernel density
#' estimate is reflected at 0 (Silverman 1986, section 2.10) so that it
#' puts no mass below 0 and is not biased down at the boundary. With many traces the panels
#' are spread over several pages of at most `per_page` traces.
#'
#' @param x An `mcmix_fit`.
#' @param traces Names or indices of the traces to plot (default: all).
#' @param per_page Maximum number of traces per page.
#' @param ... Further graphical parameters passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @seealso [plot_acf()], [plot_coclustering()], [plot_clusters()]
#' @examples
#' k <- new_kernel("iid_normal",
#'   init = function(chain) list(),
#'   step = function(state, n, thin, offset, warmup) {
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state, draws = list(traces = matrix(stats::rnorm(length(keep)),
#'       ncol = 1, dimnames = list(NULL, "x"))))
#'   }, trace_names = "x")
#' set.seed(1)
#' plot(run_kernel(k, iter = 200, chains = 2))
#' @export
plot.mcmix_fit <- function(x, traces = NULL, per_page = 4, ...) {
  x <- fit_usable(x)  # R/chains.R: the chains with draws
  nm <- select_traces(x, traces)
  per_page <- check_count(per_page, "per_page", 1L)
  mats <- fit_trace_matrices(x, quiet = TRUE)
  m <- length(mats)
  cols <- chain_colours(m)
  s <- x$settings
  n_pages <- ceiling(length(nm) / per_page)
  rows <- ceiling(length(nm) / n_pages)          # balanced pages
  pages <- split(nm, ceiling(seq_along(nm) / rows))
  old <- plot_par(mfrow = c(rows, 2L), mar = c(3.2, 3.6, 2, 0.8), mgp = c(2, 0.6, 0),
                  oma = c(0, 0, if (m > 1L) 1.2 else 0, 0))
  on.exit(graphics::par(old))
  if (length(pages) > 1L && grDevices::dev.interactive()) {
    oask <- grDevices::devAskNewPage(TRUE)
    on.exit(grDevices::devAskNewPage(oask), add = TRUE)
  }
  for (pg in pages) {
    for (v in pg) {
      n <- nrow(mats[[1L]])
      it <- s$burnin + s$thin * seq_len(n)
      ys <- vapply(mats, function(mm) mm[, v], numeric(n))
      ys <- matrix(ys, nrow = n)
      rng <- range(ys[is.finite(ys)], finite = TRUE)
      if (!all(is.finite(rng))) rng <- c(0, 1)
      graphics::plot(NA, xlim = range(it), ylim = rng, xlab = "iteration", ylab = v,
                     main = paste("Trace of", v), ...)
      for (c in seq_len(m))
        graphics::lines(it, ys[, c], col = grDevices::adjustcolor(cols[c], 0.75))
      if (is_discrete_trace(ys)) {
        vals <- sort(unique(as.vector(ys)))
        props <- vapply(seq_len(m), function(c) tabulate(match(ys[, c], vals), length(vals)) / n,
                        numeric(length(vals)))
        props <- matrix(props, nrow = length(vals))
        w <- if (length(vals) > 1L) min(diff(vals)) * 0.8 else 0.8
        graphics::plot(NA, xlim = range(vals) + c(-0.5, 0.5) * w, ylim = c(0, max(props)),
                       xlab = v, ylab = "proportion", main = paste("Distribution of", v),
                       xaxt = "n", ...)
        graphics::axis(1, at = if (length(vals) <= 15L) vals else pretty(vals))
        off <- (seq_len(m) - (m + 1) / 2) * w / max(m, 1)
        for (c in seq_len(m))
          graphics::segments(vals + off[c], 0, vals + off[c], props[, c], col = cols[c],
                             lwd = max(1, 6 / m))
      } else {
        lower <- if (all(ys[is.finite(ys)] >= 0)) 0 else -Inf
        dens <- lapply(seq_len(m), function(c) {
          y <- ys[is.finite(ys[, c]), c]
          if (length(y) < 2L) return(NULL)
          support_density(y, lower)
        })
        ok <- !vapply(dens, is.null, logical(1))
        xr <- range(unlist(lapply(dens[ok], `[[`, "x")), rng)
        ymax <- max(unlist(lapply(dens[ok], `[[`, "y")), 0)
        yr <- c(0, if (ymax > 0) ymax * 1.04 else 1)
        graphics::plot(NA, xlim = xr, ylim = yr, xlab = v, ylab = "density",
                       main = paste("Density of", v), ...)
        for (c in which(ok)) graphics::lines(dens[[c]], col = cols[c], lwd = 1.5)
      }
    }
    if (m > 1L) legend_chains(cols)
  }
  invisible(x)
}

# Kernel density estimate of `y` on [lower, Inf): when the Gaussian kernels
# would spill below `lower` (lower within 3 bandwidths of the smallest
# draw), the estimate of y and its reflection 2 lower - y, restricted to
# x >= lower and doubled (the reflection method, Silverman 1986, 2.10;
# the bandwidth is that of y alone).
support_density <- function(y, lower = -Inf) {
  d <- stats::density(y)
  if (!is.finite(lower) || min(y) - 3 * d$bw >= lower) return(d)
  to <- max(d$x)
  r <- stats::density(c(y, 2 * lower - y), bw = d$bw, from = lower, to = to)
  r$y <- 2 * r$y
  r$n <- length(y)
  r
}

# Coloured chain numbers in the outer top margin.
legend_chains <- function(cols) {
  m <- length(cols)
  at <- (seq_len(m) - 0.5) / m * min(1, 0.12 * m) + (1 - min(1, 0.12 * m)) / 2
  graphics::mtext(paste0("chain ", seq_len(m)), side = 3, outer = TRUE, at = at,
                  col = cols, line = 0, cex = 0.8, font = 2)
}

#' Plot autocorrelations of the traces of a fit
#'
#' @param x An `mcmix_fit`.
#' @param lag.max Largest lag (default as [stats::acf()]).
#' @param traces Names or indices of the traces to plot (default: all).
#' @param ... Further graphical parameters passed to [graphics::plot()].
#' @return The autocorrelations ([chain_acf()]), invisibly.
#' @examples
#' k <- new_kernel("ar1",
#'   init = function(chain) list(x = 0),
#'   step = function(state, n, thin, offset, warmup) {
#'     x <- numeric(n)
#'     for (g in seq_len(n)) x[g] <- state$x <- 0.8 * state$x + stats::rnorm(1)
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state, draws = list(traces = matrix(x[keep], ncol = 1,
#'       dimnames = list(NULL, "x"))))
#'   }, trace_names = "x")
#' set.seed(1)
#' plot_acf(run_kernel(k, iter = 300, chains = 2))
#' @export
plot_acf <- function(x, lag.max = NULL, traces = NULL, ...) {
  check_fit_arg(x)
  x <- fit_usable(x)  # R/chains.R
  nm <- select_traces(x, traces)
  ac <- chain_acf(x, lag.max = lag.max)
  m <- dim(ac)[2L]
  n <- fit_common_draws(x, quiet = TRUE)
  cols <- chain_colours(m)
  p <- length(nm)
  nc <- if (p == 1L) 1L else 2L
  old <- plot_par(mfrow = c(ceiling(p / nc), nc), mar = c(3.2, 3.6, 2, 0.8), mgp = c(2, 0.6, 0))
  on.exit(graphics::par(old))
  lags <- as.numeric(dimnames(ac)[[1L]])
  for (v in nm) {
    a <- matrix(ac[, , v], ncol = m)
    graphics::plot(NA, xlim = range(lags), ylim = range(c(-0.2, 1, a), na.rm = TRUE),
                   xlab = "lag", ylab = "autocorrelation", main = v, ...)
    graphics::abline(h = 0, col = "grey40")
    graphics::abline(h = c(-1, 1) * 1.96 / sqrt(n), lty = 2, col = "grey60")
    off <- (seq_len(m) - (m + 1) / 2) * 0.6 / m
    for (c in seq_len(m))
      graphics::segments(lags + off[c], 0, lags + off[c], a[, c], col = cols[c],
                         lwd = max(1, 4 / m))
    if (m > 1L)
      graphics::legend("topright", legend = paste("chain", seq_len(m)), col = cols,
                       lwd = 2, bty = "n", cex = 0.8)
  }
  invisible(ac)
}

#' Heatmap of the posterior similarity matrix
#'
#' Draws the co-clustering probabilities with observations ordered by the
#' point estimate of the partition (clusters in decreasing size, and within
#' a cluster by an average-linkage tree), with the cluster boundaries and a
#' colour key. Each block is labelled with its cluster's number in the
#' estimate (the numbering of [partition()], [plot_clusters()] and
#' [cluster_profiles()]), so the labels need not read 1, 2, 3 in order.
#'
#' @param x An `mcmix_fit`, a label matrix, or a similarity matrix from
#'   [psm()].
#' @param estimate A partition: an `mcmix_partition` or a label vector. By
#'   default `partition(x)` (VI loss).
#' @param col Colours from 0 to 1.
#' @param labels Labels of the observations, written along the top and
#'   right sides of the heatmap in the plotted order: a vector with one
#'   label per observation, `TRUE` (the row names of the data stored by the
#'   fit, or of a similarity matrix, else the observation numbers) or
#'   `FALSE` (none). The default, `NULL`, labels by the row names when they
#'   are stored and there are at most 60 observations, and writes none
#'   otherwise.
#' @param ... Further graphical parameters passed to [graphics::image()].
#' @return A list with the similarity matrix `psm`, the `estimate` and the
#'   `order` of the observations, and the observation `labels` drawn (in
#'   plotted order; `NULL` when none), invisibly.
#' @examples
#' set.seed(1)
#' truth <- rep(1:3, each = 10)
#' draws <- t(replicate(50, { z <- truth; i <- sample(30, 5); z[i] <- sample(3, 5, TRUE); z }))
#' plot_coclustering(draws)
#' @export
plot_coclustering <- function(x, estimate = NULL,
                              col = grDevices::hcl.colors(64, "Blues 3", rev = TRUE),
                              labels = NULL, ...) {
  if (!length(col) || !(is.character(col) || is.numeric(col)) || anyNA(col) ||
      is.numeric(col) && any(col < 0 | col > 1e6) ||
      is.character(col) && inherits(tryCatch(grDevices::col2rgb(col), error = identity), "error"))
    stop(sprintf("`col` must be a vector of colours, not %s.", describe_value(col)),
         call. = FALSE)
  P <- if (is_similarity_matrix(x)) x else psm(x)
  N <- ncol(P)
  if (is.null(estimate))   # (psm() has said when it is the stored subsample's)
    estimate <- suppressMessages(partition(if (is_similarity_matrix(x)) P else x))
  cl <- if (inherits(estimate, "mcmix_partition")) estimate$labels else estimate
  if (!is.numeric(cl) || length(cl) != N || anyNA(cl))
    stop(sprintf("`estimate` must be a partition of the %d observations.", N), call. = FALSE)
  cl <- match(cl, unique(cl))
  obs_labels <- coclustering_labels(labels, x, P, N)
  sizes <- tabulate(cl)
  rank_cl <- order(order(-sizes))       # biggest cluster first
  ord <- unlist(lapply(order(-sizes), function(k) {
    idx <- which(cl == k)
    if (length(idx) > 2L && length(idx) <= 3000L) {
      h <- stats::hclust(stats::as.dist(1 - P[idx, idx, drop = FALSE]), "average")
      idx <- idx[h$order]
    }
    idx
  }))
  Po <- P[ord, ord, drop = FALSE]
  old <- plot_par(no.readonly = TRUE)
  on.exit(graphics::par(old))
  graphics::layout(matrix(1:2, 1L), widths = c(6, 1))
  lab_cex <- 0.7
  # margin lines for the observation labels (the widest label, rotated; a
  # character is about half a line wide)
  extra <- if (is.null(obs_labels)) 0 else
    min(10, 0.5 + lab_cex * 0.55 * max(nchar(obs_labels, "width")))
  graphics::par(mar = c(3, 3, 2.5 + extra, 0.5 + extra), mgp = c(1.8, 0.5, 0))
  graphics::image(seq_len(N), seq_len(N), Po[, N:1, drop = FALSE], col = col,
                  zlim = c(0, 1), xlab = "observation (ordered)", ylab = "",
                  axes = FALSE, useRaster = N > 50, ...)
  graphics::title(main = "Posterior similarity", line = 1 + extra)
  graphics::box()
  if (!is.null(obs_labels)) {
    obs_labels <- obs_labels[ord]
    graphics::axis(3, at = seq_len(N), labels = obs_labels, las = 2, cex.axis = lab_cex,
                   tick = FALSE, line = -0.5)
    graphics::axis(4, at = N:1, labels = obs_labels, las = 1, cex.axis = lab_cex,
                   tick = FALSE, line = -0.5)
  }
  bounds <- cumsum(sizes[order(-sizes)])
  bounds <- bounds[-length(bounds)] + 0.5
  graphics::abline(v = bounds, col = "firebrick", lwd = 1.5)
  graphics::abline(h = N + 1 - bounds, col = "firebrick", lwd = 1.5)
  centres <- cumsum(sizes[order(-sizes)]) - sizes[order(-sizes)] / 2 + 0.5
  # blocks by decreasing size, each labelled with its number in `estimate`
  # (the numbering of partition(), plot_clusters() and cluster_profiles())
  graphics::axis(1, at = centres, labels = order(-sizes), tick = FALSE)
  graphics::axis(2, at = N + 1 - centres, labels = order(-sizes), tick = FALSE, las = 1)
  graphics::par(mar = c(3, 0.5, 2.5, 3))
  z <- seq(0, 1, length.out = length(col) + 1L)
  graphics::image(1, z[-1L] - diff(z) / 2, matrix(z[-1L] - diff(z) / 2, nrow = 1),
                  col = col, zlim = c(0, 1), axes = FALSE, xlab = "", ylab = "")
  graphics::axis(4, las = 1)
  graphics::box()
  graphics::layout(1)
  invisible(list(psm = P, estimate = cl, order = ord, cluster_rank = rank_cl,
                 labels = obs_labels))
}

# The observation labels of plot_coclustering() (see its `labels`), in the
# order of the data, or NULL for none.
coclustering_labels <- function(labels, x, P, N) {
  stored <- if (inherits(x, "mcmix_fit")) x$row_names else rownames(P)
  if (length(stored) != N) stored <- NULL   # (the stored subsample's psm)
  if (is.null(labels)) return(if (N <= 60L) stored)
  if (isFALSE(labels)) return(NULL)
  if (isTRUE(labels)) return(if (is.null(stored)) as.character(seq_len(N)) else stored)
  if ((is.character(labels) || is.factor(labels) || is.numeric(labels)) &&
      is.null(dim(labels)) && length(labels) == N && !anyNA(labels))
    return(as.character(labels))
  stop_input(sprintf(paste0("`labels` must be TRUE, FALSE, NULL or one label per ",
                            "observation (%d, no NA), not %s."), N, describe_value(labels)),
             "labels")
}

#' Plot the clusters in the data
#'
#' One-dimensional data: a histogram with the posterior predictive density
#' (the average over kept draws of the mixture of the clusters' collapsed
#' predictive densities, plus the mass of a new cluster) and a pointwise 95%
#' band over draws, the observations marked by estimated cluster below.
#' Two dimensions: a scatter plot coloured by the estimated partition. More:
#' a [graphics::pairs()] plot coloured the same way. The axes are named by
#' the columns of the data; for a fit to a data frame (a [product_family()]
#' or [auto_family()]), by the data frame's column names, with
#' `column=level` for the indicator columns of a categorical or binary
#' column, and missing cells are left out of the plot. The scatter and
#' pairs plots have a legend of the clusters (number and size; the 15
#' largest when there are more). Given as `data`, a data frame is plotted
#' column by column (a factor or character column by its level codes).
#'
#' @param x An `mcmix_fit` with stored labels (or online co-clustering
#'   counts).
#' @param data The data (default: the data stored in the fit): a numeric
#'   vector or matrix, or a data frame with one row per observation.
#' @param estimate A partition (default `partition(x)`, or for a fit sampled
#'   with `labels = "online"` [online_partition()]`(x)`).
#' @param draws Maximum number of draws used for the predictive density.
#' @param ... Further graphical parameters passed to the plotting function.
#' @return The estimate, invisibly.
#' @examples
#' set.seed(1)
#' x <- c(rnorm(40, -2), rnorm(40, 2))
#' fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 100,
#'                         progress = FALSE)
#' plot_clusters(fit)
#' @export
plot_clusters <- function(x, data = x$data, estimate = NULL, draws = 100, ...) {
  check_fit_arg(x)
  draws <- check_count(draws, "draws", 1L)
  if (is.null(data))
    stop("`data` must be given: the fit does not store its data.", call. = FALSE)
  if (!is.numeric(data) && !is.data.frame(data))
    stop(sprintf("`data` must be a numeric vector or matrix, not %s.", describe_value(data)),
         call. = FALSE)
  if (is.data.frame(data) && (!ncol(data) || !nrow(data)))
    stop_input(sprintf("`data` must have one row per observation and at least one column, not %d x %d.",
                       nrow(data), ncol(data)), "data")
  if (is.data.frame(data))   # the user's data frame: its columns by name, factors as codes
    data <- matrix(unlist(lapply(data, function(col)
      if (is.factor(col) || is.character(col)) as.double(as.integer(factor(col)))
      else as.double(unclass(col)))), nrow(data), dimnames = list(NULL, names(data)))
  X <- as.matrix(data)
  if (missing(data) && is.null(colnames(X))) {   # a data frame's columns, by name
    nm <- fit_data_names(x)
    if (length(nm) == ncol(X)) colnames(X) <- nm
  }
  if (is.numeric(X) && ncol(X) > 1L) X[is.nan(X)] <- NA   # missing cells: not drawn
  if (!is.numeric(X) || (ncol(X) == 1L && anyNA(X)))
    stop(paste0("`data` must be a numeric vector or matrix (without missing values when ",
                "it has one column)."), call. = FALSE)
  if (is.null(estimate))   # labels = "online": the estimate of every observation
    estimate <- if (fit_is_online(x)) online_partition(x) else partition(x)
  cl <- if (inherits(estimate, "mcmix_partition")) estimate$labels else estimate
  if (length(cl) != nrow(X))
    stop(sprintf("`data` has %d observations but the partition has %d.", nrow(X), length(cl)),
         call. = FALSE)
  cl <- match(cl, unique(cl))
  K <- max(cl)
  cols <- if (K <= 8L) chain_colours(K) else grDevices::hcl.colors(K, "Dark 3")
  D <- ncol(X)
  if (D == 1L) {
    plot_clusters_1d(x, X[, 1L], cl, cols, draws,
                     xlab = if (is.null(colnames(X))) "x" else colnames(X)[1L], ...)
  } else if (D == 2L) {
    nm <- colnames(X)
    if (is.null(nm)) nm <- c("x1", "x2")
    old <- plot_par(mar = c(3.5, 3.5, 2.5, 0.8), mgp = c(2, 0.6, 0))
    on.exit(graphics::par(old))
    graphics::plot(X[, 1L], X[, 2L], col = cols[cl], pch = 19, cex = 0.8,
                   xlab = nm[1L], ylab = nm[2L],
                   main = sprintf("Estimated partition: %d cluster%s", K, if (K > 1) "s" else ""),
                   ...)
    cluster_legend("topright", cl, cols)
  } else {
    if (is.null(colnames(X))) colnames(X) <- paste0("x", seq_len(D))
    old <- graphics::par(no.readonly = TRUE)
    on.exit(graphics::par(old))
    graphics::pairs(X, col = cols[cl], pch = 19, cex = 0.5, oma = c(3, 3, 4.5, 9),
                    main = sprintf("Estimated partition: %d cluster%s", K, if (K > 1) "s" else ""),
                    ...)
    # the legend in the right margin kept free by `oma`, over the whole device
    graphics::par(fig = c(0, 1, 0, 1), oma = c(0, 0, 0, 0), mar = c(0, 0, 0, 0), new = TRUE)
    graphics::plot.new()
    cluster_legend("right", cl, cols)
  }
  invisible(estimate)
}

# The legend of the clusters of plot_clusters(): "k (size)" with its
# colour, the 15 largest when there are more (the title says so).
cluster_legend <- function(where, cl, cols, ...) {
  sizes <- tabulate(cl)
  show <- seq_along(sizes)
  if (length(show) > 15L) show <- sort(order(-sizes)[1:15])
  graphics::legend(where, legend = paste0(show, " (", sizes[show], ")"), col = cols[show],
                   pch = 19, bty = "n", cex = 0.8, xpd = NA,
                   title = if (length(show) < length(sizes))
                     sprintf("cluster (15 largest of %d)", length(sizes)) else "cluster", ...)
}

# The names of the columns of the data matrix of a fit to a data frame (a
# product family): the data's column names, `column=level` for the
# indicator columns of a categorical or binary part (as in
# cluster_profiles()); NULL for other fits.
fit_data_names <- function(fit) {
  prep <- fit$family
  if (!is.list(prep) || !identical(prep$name, "product")) return(NULL)
  nm <- paste0("x", seq_len(prep$dim))
  for (b in profile_blocks(prep))   # R/profiles.R
    nm[b$cols] <- if (is.na(b$category) || b$parameter != "prob") b$column
                  else paste0(b$column, "=", b$category)
  nm
}

plot_clusters_1d <- function(fit, y, cl, cols, draws, xlab = "x", ...) {
  old <- plot_par(mar = c(3.5, 3.5, 2.5, 0.8), mgp = c(2, 0.6, 0))
  on.exit(graphics::par(old))
  h <- graphics::hist(y, breaks = max(10L, min(60L, 2L * ceiling(sqrt(length(y))))), plot = FALSE)
  grid <- seq(min(h$breaks), max(h$breaks), length.out = 200L)
  pred <- tryCatch(predictive_density_1d(fit, y, grid, draws), error = function(e) NULL)
  top <- max(h$density, if (!is.null(pred)) pred$upper)
  graphics::plot(h, freq = FALSE, col = "grey90", border = "grey60", ylim = c(-0.06, 1.04) * top,
                 main = "Data and posterior predictive density", xlab = xlab, ...)
  if (!is.null(pred)) {
    graphics::polygon(c(grid, rev(grid)), c(pred$lower, rev(pred$upper)),
                      col = grDevices::adjustcolor("steelblue", 0.3), border = NA)
    graphics::lines(grid, pred$mean, col = "navy", lwd = 2)
  }
  graphics::points(y, rep(-0.03 * top, length(y)), col = cols[cl], pch = "|")
  leg <- c(if (!is.null(pred)) c("predictive mean", "95% band"),
           paste("cluster", seq_along(cols)))
  graphics::legend("topright", legend = leg,
                   col = c(if (!is.null(pred)) c("navy", grDevices::adjustcolor("steelblue", 0.3)),
                           cols),
                   lwd = c(if (!is.null(pred)) c(2, 8), rep(NA, length(cols))),
                   pch = c(if (!is.null(pred)) c(NA, NA), rep(15, length(cols))),
                   bty = "n", cex = 0.8)
}

# Posterior predictive density of a 1-D mixture fit on `grid`: for each of
# up to `draws` kept partitions, sum_k w_k p(y | cluster k's members) +
# w_new p(y) (collapsed predictives of the family); w_k proportional to
# n_k + a_k (finite mixture, Dirichlet a) or n_k (DP), the new cluster to
# the prior mass (alpha for a DP, the empty components' a for a finite
# mixture). Returns the mean and pointwise 2.5% / 97.5% quantiles.
predictive_density_1d <- function(fit, y, grid, draws) {
  if (!inherits(fit, "mcmix_mixture_fit") || is.null(fit$family)) return(NULL)
  labs <- fit_labels(fit, need = FALSE)
  if (is.null(labs)) return(NULL)
  prep <- fit$family
  S <- nrow(labs)
  use <- unique(round(seq(1, S, length.out = min(draws, S))))
  alpha_tr <- NULL
  if ("alpha" %in% fit_trace_names(fit))
    alpha_tr <- unlist(lapply(fit$chains, function(ch) ch$traces[, "alpha"]))
  model <- fit$model
  is_dp <- inherits(model, "mcmix_dp_mixture")
  gm <- matrix(grid, ncol = 1L)
  prior <- exp(.family_eval(prep, matrix(0, 0L, 1L), "log_predictive", gm))
  dens <- vapply(use, function(s) {
    z <- labs[s, ]
    ks <- unique(z)
    n <- vapply(ks, function(k) sum(z == k), numeric(1))
    if (is_dp) {
      a <- if (!is.null(alpha_tr)) alpha_tr[s] else as.numeric(model$alpha)
      w <- c(n, a)
    } else {
      dir <- rep_len(as.numeric(model$alpha), model$K)
      used <- min(length(ks), model$K)
      w <- c(n + dir[seq_len(used)], sum(dir[-seq_len(used)]))
    }
    w <- w / sum(w)
    out <- w[length(w)] * prior
    for (j in seq_along(ks))
      out <- out + w[j] * exp(.family_eval(prep, matrix(y[z == ks[j]], ncol = 1L),
                                          "log_predictive", gm))
    out
  }, numeric(length(grid)))
  dens <- matrix(dens, nrow = length(grid))
  list(mean = rowMeans(dens),
       lower = apply(dens, 1L, stats::quantile, 0.025, names = FALSE),
       upper = apply(dens, 1L, stats::quantile, 0.975, names = FALSE))
}
