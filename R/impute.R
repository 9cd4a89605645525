# Missing coordinates of joint Gaussian blocks (gaussian_niw, gaussian_mean
# parts of a product family, R/product_family.R): imputed at every sweep
# from their conditional given the cluster (src/mixture_impute.c through
# src/ffi_impute.c), with the imputed values kept as draws.
#
# The mixture kernel (R/mixture.R, R/mixture_dp.R) is wrapped: each
# iteration runs one sweep of the sampler on the completed data, then one
# imputation step given the new partition.  A sampler whose state keeps
# the clusters' parameters across sweeps (kernel field `carried_params`:
# "neal8", state$params) has its missing cells drawn given those very
# parameters, p(x_mis | theta_k, x_obs), so that the sweep stays a Gibbs
# update of (z, theta, x_mis); the other samplers' state is (z, x_mis), and
# the step draws theta_k given the cluster first (data augmentation).
# The chain's state gains
# `imputed` (the current values of the missing cells), so a chunked run
# equals one long run; the clusters' stats are recomputed from the labels
# after each imputation (`stats = NULL`).

# The blocks to impute, for ffi_impute_step(): NULL when there are none.
impute_blocks <- function(prepared) {
  if (!identical(prepared$name, "product")) return(NULL)
  off <- poff <- 0L
  out <- list()
  for (p in prepared$family$resolved) {
    if (isTRUE(p$impute)) {
      cov <- if (identical(p$family$name, "gaussian_mean"))
        matrix(as.double(p$family$args$cov), p$dim, p$dim) else NULL
      out[[length(out) + 1L]] <- list(family = p$family$name,
                                      hyper = as.double(family_hyper(p$family)),
                                      off = as.integer(off), dim = as.integer(p$dim),
                                      cov = cov, poff = as.integer(poff),
                                      columns = p$columns)
    }
    off <- off + p$dim
    # the parts' parameters lie side by side (src/family_product.c)
    poff <- poff + as.integer(family_layout(p$family)$size)
  }
  if (length(out)) out else NULL
}

# Wrap a mixture kernel (mixture_kernel(), R/mixture.R) so that the missing
# cells of `blocks` of the data `x` (NaN) are imputed after every sweep. Like
# the kernel it wraps, the wrapper holds no data: its `bind(data)` gives
# the init and step on the fit's data (fit_kernel(), R/chains.R).
impute_kernel <- function(base, x, blocks) {
  cells <- impute_layout(x, blocks)$cells
  x <- NULL
  k <- base
  k$imputed_cells <- cells
  k$step_on <- NULL
  k$bind <- impute_binder(base, blocks)
  k
}

impute_binder <- function(base, blocks) {
  force(base)
  force(blocks)
  function(data) impute_bind(base, data, blocks)
}

# The missing cells of `blocks` in x (NaN): `mask` (N x D), the column
# names of the data, and `cells` (row, column) in row-by-row order of x
# (the order of `state$imputed`).
impute_layout <- function(x, blocks) {
  mask <- matrix(FALSE, nrow(x), ncol(x))
  col_names <- character(ncol(x))
  for (b in blocks) {
    cols <- b$off + seq_len(b$dim)
    mask[, cols] <- is.nan(x[, cols])
    col_names[cols] <- b$columns
  }
  tm <- which(t(mask), arr.ind = TRUE)
  list(mask = mask, cells = data.frame(row = tm[, 2L], column = col_names[tm[, 1L]]))
}

# The fields (init, step) of the imputing kernel of `base` on the data x.
impute_bind <- function(base, x, blocks) {
  mask <- impute_layout(x, blocks)$mask
  obs <- x
  obs[mask] <- NA
  fill <- colMeans(obs, na.rm = TRUE)
  x0 <- x
  x0[mask] <- fill[col(x)[mask]]
  # the data and the cells as the engine sees them: dim x N, cells in
  # row-by-row order of x (the order of `state$imputed`)
  xt0 <- t(x0)
  tmask <- t(mask)
  miss_t <- tmask
  storage.mode(miss_t) <- "integer"
  obs <- x0 <- mask <- x <- NULL
  blocks_c <- lapply(blocks, function(b) b[c("family", "hyper", "off", "dim", "cov", "poff")])
  carried <- isTRUE(base$carried_params)
  step <- function(state, n, thin, offset, warmup, workspace = NULL) {
    traces <- labels <- labels_subset <- extra <- list()
    xt <- xt0
    for (g in seq_len(n)) {
      xt[tmask] <- state$imputed
      # one sweep of the sampler on the dim x N completed data
      r <- base$step_on(xt, FALSE)(state[names(state) != "imputed"], 1L, thin,
                                   offset + g - 1L, warmup, workspace = workspace)
      st <- r$state
      if (carried) {
        # the chain's own parameters, column k + 1 for engine cluster k
        z <- st$labels
        params <- st$params
      } else {
        z <- match(st$labels, unique(st$labels)) - 1L
        params <- NULL
      }
      new_xt <- .Call(C_ffi_impute_step, xt, z, blocks_c, miss_t, params)
      st["stats"] <- list(NULL)
      st$imputed <- new_xt[tmask]
      state <- st
      d <- r$draws
      if (!is.null(d$traces) && nrow(d$traces)) {
        traces[[length(traces) + 1L]] <- d$traces
        if (!is.null(d$labels)) labels[[length(labels) + 1L]] <- d$labels
        if (!is.null(d$labels_subset))
          labels_subset[[length(labels_subset) + 1L]] <- d$labels_subset
        e <- if (length(d$extra)) d$extra[[1L]] else list()
        e$imputed <- state$imputed
        extra[[length(extra) + 1L]] <- e
      }
    }
    tr <- if (length(traces)) do.call(rbind, traces) else
      matrix(numeric(), 0L, length(base$trace_names), dimnames = list(NULL, base$trace_names))
    list(state = state, draws = list(traces = tr,
                                     labels = if (length(labels)) do.call(rbind, labels),
                                     labels_subset = if (length(labels_subset))
                                       do.call(rbind, labels_subset),
                                     extra = extra))
  }
  list(init = function(chain) {
         s <- base$init(chain)
         s$imputed <- xt0[tmask]
         s
       },
       step = step)
}

# Data with missing values, for a family other than a product: a product
# family with the family as its one part (R/product_family.R splits
# coordinate-separable families into one part per column).
product_wrap <- function(family, data) {
  df <- if (is.data.frame(data)) data
        else if (is.matrix(data)) {
          if (is.null(colnames(data))) colnames(data) <- paste0("x", seq_len(ncol(data)))
          as.data.frame(data, stringsAsFactors = TRUE)
        } else data.frame(x = data)
  list(family = product_family(x = family, .columns = list(x = names(df))), data = df)
}

fam_any_na <- function(data) {
  cols <- if (is.data.frame(data)) data else list(data)
  # anyNA() first: is.nan() allocates a logical copy of the data
  for (v in cols) if (is.double(v) && anyNA(v) && any(is.nan(v)))
    stop(paste0("`data` has a NaN value; missing values must be NA ",
                "(NaN usually comes from a failed computation)."), call. = FALSE)
  if (is.data.frame(data)) any(vapply(data, anyNA, logical(1)))
  else is.atomic(data) && anyNA(data)
}

#' Draws of the imputed missing values
#'
#' For a mixture fitted to data with missing coordinates in a joint
#' Gaussian block ([gaussian_niw()] or [gaussian_mean()], alone or as a
#' part of a [product_family()]), the values imputed at each kept
#' iteration from their conditional distribution given the cluster (the
#' imputation step of the data-augmentation algorithm of Tanner and Wong
#' 1987). Missing values of the other families are integrated out exactly
#' and are not imputed.
#'
#' @param fit A mixture fit.
#' @return A matrix, kept draws (chains stacked) x missing cells, with
#'   column names `"column[row]"`, attribute `chain` and attribute `cells`
#'   (a data frame of the rows and columns of the cells).
#' @references Tanner, M. A. and Wong, W. H. (1987). The calculation of
#'   posterior distributions by data augmentation. *JASA* 82, 528--540.
#' @examples
#' set.seed(1)
#' x <- cbind(c(rnorm(20, -2), rnorm(20, 2)), c(rnorm(20, -2), rnorm(20, 2)))
#' x[c(3, 30), 2] <- NA
#' fit <- sample_posterior(dp_mixture(gaussian_niw()), x, iter = 100, progress = FALSE)
#' colMeans(imputed_draws(fit))
#' @export
imputed_draws <- function(fit) {
  if (!inherits(fit, "mcmix_mixture_fit"))
    stop(sprintf("`fit` must be a mixture fit, not %s.", describe_value(fit)), call. = FALSE)
  cells <- fit$kernel$imputed_cells
  if (is.null(cells))
    stop("`fit` imputed no values: missing values were integrated out, or there were none.",
         call. = FALSE)
  per <- lapply(fit$chains, function(ch)
    do.call(rbind, lapply(ch$extra, `[[`, "imputed")))
  out <- do.call(rbind, per)
  colnames(out) <- sprintf("%s[%d]", cells$column, cells$row)
  attr(out, "chain") <- rep(seq_along(per), vapply(per, function(m) NROW(m), integer(1)))
  attr(out, "cells") <- cells
  out
}
