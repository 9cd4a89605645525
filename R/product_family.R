# Product families (src/family_product.c): one family per column or block
# of columns of a data table, independent given the cluster, and the helper
# auto_family() (R/auto_family.R) that picks them from the columns' values.
#
# A product family object holds its parts (unresolved families) and their
# columns.  Preparing it with data (product_prepare(), called by
# family_prepare()) resolves every part on its observed rows, converts each
# block to the numeric columns its C descriptor reads (NaN where missing)
# and records the resolved parts in `family$resolved`:
#   list(label, family, columns, dim, impute)
# `impute` marks a joint Gaussian block with partly missing rows, whose
# missing coordinates are imputed each sweep (R/impute.R); every other
# missing block is skipped by the C combinator (exact marginalisation).

#' Product of component families for the columns of a data table
#'
#' A component family for mixed data: each column (or block of columns) has
#' its own family, and the blocks are independent given the cluster, so a
#' cluster's marginal likelihood, predictive density and likelihood are the
#' products of the parts' ones (and its parameter the concatenation of the
#' parts' parameters). Any conjugate family can be a part, including one
#' registered by another package ([mcmix_family()]).
#'
#' The data are a data frame (or a matrix with column names; a matrix
#' without them gives its columns to the parts in order when they are as
#' many). By default each part is the column named like the argument; `.columns` assigns
#' several columns (names or numbers) to one part, e.g. a [gaussian_niw()]
#' block with correlated coordinates. Columns for [bernoulli_beta()] may be
#' logical, 0/1 or factors with two levels (the second level is 1);
#' columns for [categorical_dirichlet()] are factors (or character).
#'
#' **Missing values** (`NA`) are allowed. A missing entry contributes
#' nothing to its part's likelihood: it is integrated out exactly, because
#' the parts are independent given the cluster and coordinate-separable
#' families ([gaussian_diag()], [bernoulli_beta()], [poisson_gamma()]) get
#' one part per column. Missing coordinates of a joint Gaussian block
#' ([gaussian_niw()], [gaussian_mean()]) that is only partly missing are
#' imputed at every sweep from their conditional distribution given the
#' cluster (see [imputed_draws()]).
#'
#' @param ... Named component families, one per part; the name is the
#'   column (or, with `.columns`, the label of the block).
#' @param .columns Optional named list giving the columns of some parts.
#' @return An object of class `mcmix_family`.
#' @seealso [auto_family()] picks the parts from the column types;
#'   [cluster_profiles()].
#' @family component families
#' @examples
#' fam <- product_family(age = gaussian_diag(), smoker = bernoulli_beta(),
#'                       region = categorical_dirichlet())
#' fam
#' set.seed(1)
#' df <- data.frame(age = c(rnorm(15, 30, 3), rnorm(15, 60, 3)),
#'                  smoker = rep(c(TRUE, FALSE), each = 15),
#'                  region = factor(sample(c("N", "S", "E"), 30, TRUE)))
#' df$age[3] <- NA
#' fit <- sample_posterior(dp_mixture(fam), df, iter = 100, progress = FALSE)
#' partition(fit)$n_clusters
#' @export
product_family <- function(..., .columns = NULL) {
  parts <- list(...)
  if (!length(parts))
    stop("`...` must give at least one component family.", call. = FALSE)
  nm <- names(parts)
  if (is.null(nm) || any(!nzchar(nm)) || anyDuplicated(nm))
    stop("`...` must be named families (one distinct name per part, e.g. `age = gaussian_diag()`).",
         call. = FALSE)
  for (p in nm) product_check_part(parts[[p]], p)
  if (!is.null(.columns)) {
    if (!is.list(.columns) || is.null(names(.columns)) || !all(names(.columns) %in% nm))
      stop(sprintf("`.columns` must be a list named by parts (%s), not %s.",
                   paste(nm, collapse = ", "), describe_value(.columns)), call. = FALSE)
    for (p in names(.columns)) {
      v <- .columns[[p]]
      if (!(is.character(v) || is.numeric(v)) || !length(v) || anyNA(v) || anyDuplicated(v))
        stop(sprintf("`.columns$%s` must be distinct column names or numbers, not %s.",
                     p, describe_value(v)), call. = FALSE)
    }
  }
  new_builtin_family("product", list(), data_type = "mixed", parts = parts,
                     columns = .columns)
}

product_check_part <- function(f, label) {
  if (!inherits(f, "mcmix_family"))
    stop(sprintf("`%s` must be a component family such as gaussian_diag(), not %s.",
                 label, describe_value(f)), call. = FALSE)
  if (inherits(f, c("mcmix_family_product", "mcmix_family_auto")))
    stop(sprintf("`%s` must be a single family, not a product family.", label), call. = FALSE)
  if (!family_is_conjugate(f))
    stop(sprintf("`%s` must be a conjugate family: %s has no closed-form marginal likelihood.",
                 label, family_label(f)), call. = FALSE)
  invisible(f)
}

#' @export
format.mcmix_family_product <- function(x, ...) {
  parts <- if (!is.null(x$resolved)) {
    vapply(x$resolved, function(p) sprintf("%s = %s", p$label, p$family$name), "")
  } else if (!is.null(x$parts)) {
    sprintf("%s = %s", names(x$parts), vapply(x$parts, `[[`, "", "name"))
  }
  if (is.null(parts)) return(x$name)
  sprintf("%s(%s)", x$name, paste(parts, collapse = ", "))
}

#' @export
print.mcmix_family_product <- function(x, ...) {
  cat("<mcmix_family> product of ", length(if (is.null(x$resolved)) x$parts else x$resolved),
      " parts\n", sep = "")
  if (!is.null(x$auto) && is.null(x$resolved)) {     # chosen by auto_family()
    print_auto(x$auto)   # R/auto_family.R
  } else if (!is.null(x$resolved)) {
    tab <- data.frame(
      part = vapply(x$resolved, `[[`, "", "label"),
      columns = vapply(x$resolved, function(p) paste(p$columns, collapse = ", "), ""),
      family = vapply(x$resolved, function(p) p$family$name, ""),
      dim = vapply(x$resolved, `[[`, 1L, "dim"),
      missing = vapply(x$resolved, function(p) if (p$impute) "imputed" else "integrated out", ""))
    print(tab, row.names = FALSE)
  } else {
    for (p in names(x$parts)) {
      cols <- x$columns[[p]]
      cat("  ", p, if (!is.null(cols)) sprintf(" [%s]", paste(cols, collapse = ", ")),
          ": ", family_label(x$parts[[p]]), "\n", sep = "")
    }
  }
  invisible(x)
}

# ---------------------------------------------------------------------------
# Preparing the data (family_prepare() and fam_convert_with() hooks)

product_data_frame <- function(data, convert_dates = TRUE) {
  if (is.matrix(data)) {
    if (is.null(colnames(data))) colnames(data) <- paste0("V", seq_len(ncol(data)))
    data <- as.data.frame(data, stringsAsFactors = TRUE)
  }
  if (!is.data.frame(data))
    stop(sprintf("`data` must be a data frame (or a matrix with column names) for a product family, not %s.",
                 fam_type_label(data)), call. = FALSE)
  if (is.null(names(data)) || any(!nzchar(names(data))) || anyDuplicated(names(data)))
    stop("`data` must have distinct column names.", call. = FALSE)
  chr <- vapply(data, is.character, logical(1))
  data[chr] <- lapply(data[chr], factor)
  if (convert_dates) data <- auto_convert_dates(data)   # R/auto_family.R
  data
}

# Column indices of each part.
product_map <- function(family, df) {
  # a matrix without column names (columns V1, V2, ...): one column per
  # part, in order, when the parts and the columns are as many
  unnamed <- identical(names(df), paste0("V", seq_len(ncol(df)))) &&
    !any(names(family$parts) %in% names(df)) && is.null(family$columns)
  if (unnamed && length(family$parts) == ncol(df)) return(as.list(seq_len(ncol(df))))
  lapply(names(family$parts), function(p) {
    cols <- if (!is.null(family$columns[[p]])) family$columns[[p]] else p
    idx <- if (is.numeric(cols)) cols else match(cols, names(df))
    if (anyNA(idx) || any(idx < 1 | idx > ncol(df) | idx != round(idx)))
      stop(sprintf("`data` has no column %s (for the part `%s`).",
                   format(cols[is.na(idx) | !(idx %in% seq_len(ncol(df)))][1L]), p),
           call. = FALSE)
    as.integer(idx)
  })
}

# Families whose columns are independent given the cluster: one part each.
product_separable <- c("gaussian_diag", "bernoulli_beta", "poisson_gamma")
product_joint_gaussian <- c("gaussian_niw", "gaussian_mean")

# Logical and two-level factor columns as 0/1 for a Bernoulli part.
product_binary <- function(col, label) {
  if (is.logical(col)) return(as.double(col))
  if (is.factor(col)) {
    if (nlevels(col) > 2L)
      stop(sprintf("`data` column `%s` is a factor with %d levels: a bernoulli_beta() part needs two.",
                   label, nlevels(col)), call. = FALSE)
    return(as.double(as.integer(col) - 1L))
  }
  col
}

# The argument of a separable family for column j of `nc`.
product_split_args <- function(fam, j, nc, label) {
  for (a in names(fam$args)) {
    v <- fam$args[[a]]
    if (is.null(v) || length(v) == 1L) next
    if (length(v) != nc)
      stop(sprintf("`%s` of the part `%s` has length %d but the part has %d columns.",
                   a, label, length(v), nc), call. = FALSE)
    fam$args[[a]] <- v[j]
  }
  fam
}

product_prepare <- function(family, data, min_rows = 2L) {
  if (inherits(family, "mcmix_family_auto"))
    family <- do.call(auto_family, c(list(data), family$overrides, family$by_type,
                                     list(quiet = family$quiet)))
  df <- auto_apply_factors(product_data_frame(data), family$as_factor)
  if (nrow(df) < min_rows)
    stop(sprintf("`data` must have at least %d rows, not %d.", min_rows, nrow(df)), call. = FALSE)
  map <- product_map(family, df)
  used <- unlist(map)
  if (anyDuplicated(used))
    stop(sprintf("`data` column `%s` is used by two parts.", names(df)[used[duplicated(used)][1L]]),
         call. = FALSE)
  unused <- setdiff(names(df)[-used], family$drop)
  if (length(unused))
    stop(sprintf("`data` has column%s not used by the family: %s; drop %s or add parts.",
                 if (length(unused) > 1L) "s" else "", list_some(paste0("`", unused, "`")),
                 if (length(unused) > 1L) "them" else "it"), call. = FALSE)
  resolved <- list()
  xs <- list()
  for (b in seq_along(map)) {
    label <- names(family$parts)[b]
    fam <- family$parts[[b]]
    cols <- map[[b]]
    if (fam$name %in% product_separable && length(cols) > 1L) {
      for (j in seq_along(cols)) {
        r <- product_part(product_split_args(fam, j, length(cols), label), df[cols[j]],
                          paste0(label, ".", names(df)[cols[j]]))
        resolved[[length(resolved) + 1L]] <- r
        xs[[length(xs) + 1L]] <- r$x
      }
    } else {
      r <- product_part(fam, df[cols], label)
      resolved[[length(resolved) + 1L]] <- r
      xs[[length(xs) + 1L]] <- r$x
    }
  }
  for (b in seq_along(resolved)) resolved[[b]]$x <- NULL
  family$resolved <- resolved
  x <- do.call(cbind, xs)
  list(name = "product", dim = ncol(x), hyper = family_hyper(family), x = unname(x),
       family = family)
}

# The data of a block as its family reads them: one column of category codes
# (numbers, factor or character) for a categorical part is a vector.
product_block <- function(fam, sub) {
  if (identical(fam$name, "categorical_dirichlet") && ncol(sub) == 1L) sub[[1L]] else sub
}

# Resolve one part on its observed rows; x = N x dim with NaN where missing.
product_part <- function(fam, sub, label) {
  N <- nrow(sub)
  levels <- if (ncol(sub) == 1L && is.logical(sub[[1L]])) c("FALSE", "TRUE")
            else if (ncol(sub) == 1L && is.factor(sub[[1L]])) levels(sub[[1L]])
  if (identical(fam$name, "bernoulli_beta"))
    sub[] <- lapply(names(sub), function(nm) product_binary(sub[[nm]], nm))
  na <- is.na(as.matrix(sub))
  n_na <- rowSums(na)
  ok <- n_na == 0L
  if (sum(ok) < 2L)
    stop(sprintf("`data` has fewer than 2 complete (non-missing) rows for the part `%s`.", label), call. = FALSE)
  x_ok <- family_convert(fam, product_block(fam, sub[ok, , drop = FALSE]))
  x_ok <- tryCatch(fam_check_matrix(x_ok, 2L), error = function(e)
    stop(sprintf("%s (part `%s`)", conditionMessage(e), label), call. = FALSE))
  family_check_values(fam, x_ok)
  if (!is.null(attr(x_ok, "levels"))) levels <- attr(x_ok, "levels")
  r <- family_resolve(fam, x_ok)
  r$dim <- ncol(x_ok)
  x <- matrix(NaN, N, ncol(x_ok))
  x[ok, ] <- x_ok
  partial <- n_na > 0L & n_na < ncol(sub)
  impute <- any(partial)
  if (impute) {
    if (!fam$name %in% product_joint_gaussian)
      stop(sprintf(paste0("`data` row %d is partly missing in the part `%s`: a %s block must be ",
                          "observed or missing as a whole (give its columns their own parts)."),
                   which(partial)[1L], label, fam$name), call. = FALSE)
    xp <- fam_numeric_matrix(sub[partial, , drop = FALSE])
    xp[is.na(xp)] <- NaN
    if (any(abs(xp[!is.nan(xp)]) > max_abs_value))
      stop(sprintf("`data` has a value too large in magnitude in the part `%s`.", label),
           call. = FALSE)
    x[partial, ] <- xp
  }
  list(label = label, family = r, columns = names(sub), dim = ncol(x_ok),
       impute = impute, levels = levels, x = x)
}

# New data converted with a prepared product family (predict()).
product_convert_new <- function(prep, data, min_rows) {
  fam <- prep$family
  df <- auto_apply_factors(product_data_frame(data), fam$as_factor)
  if (nrow(df) < min_rows)
    stop(sprintf("`data` must have at least %d row%s, not %d.", min_rows,
                 if (min_rows == 1L) "" else "s", nrow(df)), call. = FALSE)
  xs <- lapply(fam$resolved, function(p) {
    miss <- setdiff(p$columns, names(df))
    if (length(miss)) stop(sprintf("`data` has no column `%s`.", miss[1L]), call. = FALSE)
    sub <- df[p$columns]
    if (identical(p$family$name, "bernoulli_beta"))
      sub[] <- lapply(names(sub), function(nm) product_binary(sub[[nm]], nm))
    n_na <- rowSums(is.na(as.matrix(sub)))
    if (any(n_na > 0L & n_na < ncol(sub)))
      stop(sprintf("`data` row %d is partly missing in the part `%s`.",
                   which(n_na > 0L & n_na < ncol(sub))[1L], p$label), call. = FALSE)
    ok <- n_na == 0L
    x <- matrix(NaN, nrow(df), p$dim)
    if (any(ok)) {
      x_ok <- family_convert(p$family, product_block(p$family, sub[ok, , drop = FALSE]))
      x_ok <- fam_check_matrix(x_ok, 1L)
      family_check_values(p$family, x_ok)
      if (ncol(x_ok) != p$dim)
        stop(sprintf("`data` gives %d columns for the part `%s`, which has dimension %d.",
                     ncol(x_ok), p$label, p$dim), call. = FALSE)
      x[ok, ] <- x_ok
    }
    x
  })
  unname(do.call(cbind, xs))
}

# ---------------------------------------------------------------------------
# Methods of the internal family generics (R/family.R)

family_hyper.mcmix_family_product <- function(family) {
  if (is.null(family$resolved))
    stop("mcmix internal error: a product family must be prepared with data first.",
         call. = FALSE)
  h <- lapply(family$resolved, function(p) {
    hb <- family_hyper(p$family)
    c(nchar(p$family$name, type = "bytes"), utf8ToInt(enc2utf8(p$family$name)),
      p$dim, length(hb), hb)
  })
  as.double(c(length(h), unlist(h)))
}

family_layout.mcmix_family_product <- function(family) {
  comps <- list()
  size <- 0L
  for (p in family$resolved) {
    lay <- family_layout(p$family)
    pub <- 0L
    for (nm in names(lay$components)) {
      comps[[paste0(p$label, ".", nm)]] <- lay$components[[nm]]
      pub <- pub + prod(lay$components[[nm]])
    }
    if (lay$size > pub) comps[[paste0(p$label, "..cache")]] <- lay$size - pub
    size <- size + lay$size
  }
  list(components = comps, size = size)
}
