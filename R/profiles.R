# Cluster profiles of the point-estimate partition (R/partition.R): per
# cluster and per column, the observed means or proportions and the
# posterior of the cluster's parameter with credible intervals.

#' Cluster profiles of the point estimate of the partition
#'
#' For each cluster of a point estimate of the partition (by default
#' [partition()]`(fit)`) and each column of the data, the observed mean (or
#' category proportion) in the cluster and the posterior mean and credible
#' interval of the cluster's parameter: the component mean for Gaussian
#' columns, the probability of each category (or of 1 / the second level)
#' for categorical and binary columns, the rate for counts.
#'
#' The parameter's posterior accounts for the uncertainty in the partition:
#' for each kept draw \eqn{s} (at most `draws` of them, evenly spaced) and
#' each estimated cluster \eqn{c}, the cluster of draw \eqn{s} holding most
#' of the members of \eqn{c} is matched to \eqn{c} (a relabelling of the
#' draw to the point estimate), and a parameter is drawn from its posterior
#' given the data of that cluster (the family's conjugate posterior). The
#' summaries are the mean and the `(1 - level) / 2` and `(1 + level) / 2`
#' quantiles of these draws. Missing values are left out of the observed
#' summaries and contribute nothing to the posterior.
#'
#' @param fit A mixture fit with stored labels and a conjugate family.
#' @param estimate The point estimate: a [partition()] result or one label
#'   per observation; `NULL` computes `partition(fit)`. The clusters keep
#'   its numbering (the one of [partition()], [plot_clusters()],
#'   [plot_coclustering()] and `predict(type = "membership")`).
#' @param level Credible level of the intervals.
#' @param draws Largest number of kept draws used.
#' @param format `"wide"` (one row per cluster) or `"long"` (one row per
#'   cluster, column and category, with intervals).
#' @return `format = "wide"`: a data frame of class `mcmix_profiles` with
#'   one row per cluster: `cluster`, `size`, then the posterior mean of
#'   each column's parameter, named like the data's columns: the mean of a
#'   numeric column, the rate of a count column, and for binary and
#'   categorical columns the probability of each level, named
#'   `column=level` (a binary column has one, for its second level or
#'   `TRUE`). It prints with the clusters as columns; `as.data.frame()`
#'   gives the plain data frame. The long table is in its attribute `long`.
#'
#'   `format = "long"`: a data frame of class `mcmix_profiles_long` with
#'   one row per cluster, column and category: `cluster`, `size`,
#'   `column`, `category` (`NA` for numeric columns), `parameter`
#'   (`"mean"`, `"prob"`, `"rate"`), `observed`, `mean`, `sd`, `lower`,
#'   `upper`.
#' @seealso [plot.mcmix_profiles()], [lca()], [product_family()].
#' @examples
#' set.seed(1)
#' df <- data.frame(age = c(rnorm(20, 30, 3), rnorm(20, 60, 3)),
#'                  smoker = rep(c(TRUE, FALSE), each = 20))
#' fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE)), df, iter = 200,
#'                         progress = FALSE)
#' pr <- cluster_profiles(fit)
#' pr
#' pr[, c("cluster", "age")]
#' as.data.frame(pr)
#' head(cluster_profiles(fit, format = "long"))
#' @export
cluster_profiles <- function(fit, estimate = NULL, level = 0.95, draws = 500,
                             format = c("wide", "long")) {
  format <- match_choice(format, c("wide", "long"), "format")
  if (!inherits(fit, "mcmix_mixture_fit"))
    stop(sprintf("`fit` must be a mixture fit from sample_posterior(), not %s.",
                 describe_value(fit)), call. = FALSE)
  level <- check_prob(level, "level")
  draws <- check_count(draws, "draws", 1L)
  prep <- fit$family
  if (!family_is_conjugate(prep$family))
    stop("`fit` has a non-conjugate family: profiles need a conjugate family.", call. = FALSE)
  if (is.null(fit_labels(fit, need = FALSE))) stop_no_labels(fit, "cluster_profiles()", "fit")
  z <- partition_draws(fit)
  est <- if (is.null(estimate)) partition(fit) else check_estimate(estimate, fit$N)
  lab <- as.integer(est$labels)
  x <- profile_data(fit)
  S <- nrow(z)
  use <- unique(round(seq(1, S, length.out = min(S, draws))))
  C <- max(lab)
  theta <- array(NA_real_, c(length(use), C, family_layout(prep$family)$size))
  for (u in seq_along(use)) {
    zs <- z[use[u], ]
    for (c in seq_len(C)) {
      tab <- table(zs[lab == c])
      k <- names(tab)[which.max(tab)]
      rows <- x[zs == as.integer(k), , drop = FALSE]
      theta[u, c, ] <- .Call(C_ffi_family_eval, prep$name, as.double(prep$hyper), rows,
                             "param_draw", 1)
    }
  }
  nm <- colnames(fit$data)
  blocks <- profile_blocks(prep, if (!is.null(nm) && length(nm) == prep$dim &&
                                     !identical(prep$name, "categorical_dirichlet"))
                                   nm else paste0("x", seq_len(prep$dim)))
  probs <- c((1 - level) / 2, (1 + level) / 2)
  out <- list()
  for (b in blocks) {
    for (c in seq_len(C)) {
      xc <- x[lab == c, b$cols, drop = FALSE]
      xc[is.nan(xc)] <- NA
      obs <- colMeans(xc, na.rm = TRUE)
      obs[is.nan(obs)] <- NA                 # every value missing in the cluster
      th <- theta[, c, b$theta, drop = FALSE]
      dim(th) <- c(length(use), length(b$theta))
      q <- apply(th, 2L, stats::quantile, probs = probs, names = FALSE)
      out[[length(out) + 1L]] <- data.frame(
        cluster = c, size = sum(lab == c), column = b$column, category = b$category,
        parameter = b$parameter, observed = unname(obs), mean = colMeans(th),
        sd = apply(th, 2L, stats::sd), lower = q[1L, ], upper = q[2L, ],
        stringsAsFactors = FALSE)
    }
  }
  res <- do.call(rbind, out)
  rownames(res) <- NULL
  long <- structure(res, class = c("mcmix_profiles_long", "data.frame"), level = level,
                    partition = est)
  if (format == "long") return(long)
  profiles_wide(long)
}

# The wide table of a long one: one row per cluster, one column per
# parameter entry (a numeric column's name, or `column=level`).
profiles_wide <- function(long) {
  key <- ifelse(is.na(long$category) | long$parameter != "prob", long$column,
                paste0(long$column, "=", long$category))
  keys <- unique(key)
  C <- max(long$cluster)
  m <- matrix(NA_real_, C, length(keys))
  m[cbind(long$cluster, match(key, keys))] <- long$mean
  sizes <- integer(C)
  sizes[long$cluster] <- long$size
  wide <- data.frame(cluster = seq_len(C), size = sizes)
  wide[keys] <- as.data.frame(m)
  structure(wide, class = c("mcmix_profiles", "data.frame"), level = attr(long, "level"),
            partition = attr(long, "partition"), long = long)
}

#' @export
as.data.frame.mcmix_profiles <- function(x, row.names = NULL, optional = FALSE, ...) {
  attr(x, "long") <- NULL
  attr(x, "partition") <- NULL
  attr(x, "level") <- NULL
  class(x) <- "data.frame"
  x
}

#' @export
as.data.frame.mcmix_profiles_long <- function(x, row.names = NULL, optional = FALSE, ...) {
  attr(x, "partition") <- NULL
  attr(x, "level") <- NULL
  class(x) <- "data.frame"
  x
}

# The fitted data matrix (N x dim), NaN where missing (imputed cells are not
# filled in: the observed summaries use the observed values only).
profile_data <- function(fit) {
  x <- fit$data
  if (is.null(x)) stop("`fit` does not hold its data.", call. = FALSE)
  x <- as.matrix(x)
  storage.mode(x) <- "double"
  x
}

# The data columns and parameter entries to summarise: one block per
# column (a categorical column has one row per category).
profile_blocks <- function(prep, data_names = paste0("x", seq_len(prep$dim))) {
  lay <- family_layout(prep$family)
  starts <- cumsum(c(0L, vapply(lay$components, prod, 1)))
  pos <- stats::setNames(starts[-length(starts)], names(lay$components))
  parts <- if (identical(prep$name, "product")) prep$family$resolved else
    list(list(label = "", family = prep$family, columns = data_names,
              dim = prep$dim, levels = prep$family$levels))
  out <- list()
  off <- 0L
  for (p in parts) {
    pre <- if (nzchar(p$label)) paste0(p$label, ".") else ""
    own <- names(lay$components)
    if (nzchar(pre)) own <- substring(own[startsWith(own, pre)], nchar(pre) + 1L)
    loc <- intersect(c("mean", "prob", "rate"), own)
    if (!length(loc)) { off <- off + p$dim; next }
    th0 <- pos[[paste0(pre, loc[1L])]]
    cat_part <- identical(p$family$name, "categorical_dirichlet")
    if (cat_part) {
      lev <- if (!is.null(p$levels)) p$levels else as.character(seq_len(p$dim))
      for (j in seq_len(p$dim))
        out[[length(out) + 1L]] <- list(cols = off + j, theta = th0 + j, column = p$columns[1L],
                                        category = lev[j], parameter = loc[1L])
    } else {
      for (j in seq_len(p$dim)) {
        cat_lab <- if (identical(p$family$name, "bernoulli_beta"))
          (if (!is.null(p$levels)) p$levels[2L] else "1") else NA_character_
        out[[length(out) + 1L]] <- list(cols = off + j, theta = th0 + j,
                                        column = p$columns[min(j, length(p$columns))],
                                        category = cat_lab, parameter = loc[1L])
      }
    }
    off <- off + p$dim
  }
  out
}

#' @export
print.mcmix_profiles <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)   # R/checks.R
  y <- as.data.frame(x)
  cl <- if ("cluster" %in% names(y)) y$cluster else seq_len(nrow(y))
  y$cluster <- NULL
  cat(sprintf("Cluster profiles: %d cluster%s (posterior means; intervals in format = \"long\")\n",
              length(cl), if (length(cl) == 1L) "" else "s"))
  if (!ncol(y) || !nrow(y)) return(invisible(x))
  # one row per variable, one column per cluster; each row in one format
  txt <- t(vapply(y, function(v) profile_format(v, digits), character(nrow(y))))
  if (nrow(y) == 1L) txt <- t(txt)
  dimnames(txt) <- list(names(y), cl)
  print(noquote(txt), right = TRUE)
  invisible(x)
}

#' @export
print.mcmix_profiles_long <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)   # R/checks.R
  y <- as.data.frame(x)
  cat(sprintf("Cluster profiles: %d clusters, %g%% credible intervals\n",
              length(unique(y$cluster)), 100 * attr(x, "level")))
  num <- intersect(c("observed", "mean", "sd", "lower", "upper"), names(y))
  for (v in num) y[[v]] <- profile_format(y[[v]], digits)
  if ("category" %in% names(y)) y$category[is.na(y$category)] <- ""
  print(y, row.names = FALSE, right = TRUE)
  invisible(x)
}

# Numbers in one fixed (never scientific) format with `digits` significant
# digits for the typical magnitude of the vector.
profile_format <- function(v, digits) {
  if (!is.numeric(v)) return(as.character(v))
  if (is.integer(v)) return(format(v))
  big <- max(abs(v[is.finite(v)]), 0)
  dec <- if (big > 0) max(0L, digits - 1L - floor(log10(big))) else digits
  formatC(round(v, dec), format = "f", digits = dec)
}

#' Plot cluster profiles
#'
#' One panel per column of the data: the posterior mean of each cluster's
#' parameter (points) with its credible interval (bars), and the observed
#' value (crosses); categorical columns show one group of clusters per
#' category.
#'
#' @param x A [cluster_profiles()] result (wide or long).
#' @param columns Columns to show (default: all).
#' @param ... Passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @aliases plot.mcmix_profiles_long
#' @examples
#' set.seed(1)
#' df <- data.frame(age = c(rnorm(20, 30, 3), rnorm(20, 60, 3)),
#'                  smoker = rep(c(TRUE, FALSE), each = 20))
#' fit <- sample_posterior(dp_mixture(auto_family(quiet = TRUE)), df, iter = 200,
#'                         progress = FALSE)
#' plot(cluster_profiles(fit))
#' @export
plot.mcmix_profiles <- function(x, columns = NULL, ...) {
  orig <- x
  if (!inherits(x, "mcmix_profiles_long")) {
    if (is.null(attr(x, "long")))
      stop("`x` must be a cluster_profiles() result (a subset has lost its intervals).",
           call. = FALSE)
    x <- attr(x, "long")
  }
  cols <- unique(x$column)
  if (!is.null(columns)) {
    if (!is.character(columns) || !length(columns) || anyNA(columns))
      stop(sprintf("`columns` must be NULL or names of columns of the profiles (%s), not %s.",
                   paste0("\"", cols, "\"", collapse = ", "), describe_value(columns)),
           call. = FALSE)
    columns <- unique(columns)
    bad <- setdiff(columns, cols)
    if (length(bad))
      stop(sprintf("`columns` has `%s`, which is not a column of the profiles.", bad[1L]),
           call. = FALSE)
    cols <- columns
  }
  n <- length(cols)
  old <- graphics::par(mfrow = c(ceiling(n / min(n, 3L)), min(n, 3L)),
                       mar = c(4, 4, 2.5, 1))
  on.exit(graphics::par(old))
  C <- max(x$cluster)
  pal <- grDevices::hcl.colors(max(C, 2L), "Dark 3")[seq_len(C)]
  for (cl in cols) {
    d <- x[x$column == cl, , drop = FALSE]
    cats <- unique(d$category)
    g <- match(d$category, cats)
    pos <- (g - 1) * (C + 1) + d$cluster
    graphics::plot(pos, d$mean, ylim = range(d$lower, d$upper, d$observed, na.rm = TRUE),
                   xlim = c(0.5, max(pos) + 0.5), pch = 19, col = pal[d$cluster],
                   xaxt = "n", xlab = "", ylab = d$parameter[1L], main = cl, ...)
    graphics::segments(pos, d$lower, pos, d$upper, col = pal[d$cluster])
    graphics::points(pos, d$observed, pch = 4)
    at <- (seq_along(cats) - 1) * (C + 1) + (C + 1) / 2
    graphics::axis(1, at = at, labels = ifelse(is.na(cats), "", cats), tick = FALSE)
    if (cl == cols[1L])
      graphics::legend("topright", legend = paste("cluster", seq_len(C)), col = pal,
                       pch = 19, bty = "n", cex = 0.8)
  }
  invisible(orig)
}

#' @export
plot.mcmix_profiles_long <- function(x, columns = NULL, ...) plot.mcmix_profiles(x, columns, ...)
