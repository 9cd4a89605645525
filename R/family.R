# Component families (DESIGN section 2.1): the R side of the C descriptors
# in src/family_*.c.
#
# A family object is a classed list
#   list(name, args, dim, data_type, ...)
# of class c("mcmix_family_<name>", "mcmix_family") for the built-in
# families (args = the user's hyperparameters, NULL where a data-driven
# default applies) and c("mcmix_family") for plugin families made by
# mcmix_family() (which carry the final numeric `hyper` vector).
#
# The samplers never read the object directly: they call
#   family_prepare(family, data)  -> list(name, dim, hyper, x, family)
# which converts and checks the data, fills in the defaults and builds the
# numeric hyperparameter vector handed to the descriptor's hyper_init(), and
#   family_param_unpack(prepared, theta), family_param_names(prepared)
# to read a parameter vector drawn by the descriptor's param_draw().
#
# Internal generics, one method per family (R/family_gaussian.R,
# R/family_discrete.R), default method = plugin family:
#   family_convert(family, data)  data -> numeric matrix (no checks of values)
#   family_check_values(family, x) refuse values outside the support
#   family_resolve(family, x)     defaults filled in, dim set, dims checked
#   family_hyper(family)          numeric hyperparameter vector
#   family_layout(family)         parameter layout: list(components, size)

# ---------------------------------------------------------------------------
# Constructors and registry

#' Component families registered with mcmix
#'
#' Lists the component families known to the compiled code: the built-in
#' ones (seven conjugate families and the non-conjugate `"gaussian_nonconj"`)
#' and any family registered by another package through the C interface in
#' `mcmix.h` (see [mcmix_family()]). `"r_family"` is the descriptor behind
#' [r_family()] (whose hyperparameters are R functions, so build it with
#' that constructor).
#'
#' @return A character vector of family names.
#' @seealso [gaussian_niw()], [mcmix_family()].
#' @examples
#' mcmix_families()
#' @export
mcmix_families <- function() {
  .Call(C_ffi_families)
}

#' Low-level constructor of a component family
#'
#' Builds a family object for a family registered in the compiled code by
#' name, typically one added by another package through the C interface
#' (`inst/include/mcmix.h`). The built-in families have their own
#' constructors ([gaussian_mean()], [gaussian_niw()], [gaussian_diag()], [gaussian_iso()],
#' [bernoulli_beta()], [categorical_dirichlet()], [poisson_gamma()] and the
#' non-conjugate [gaussian_nonconj()]), which validate their
#' hyperparameters and fill in data-driven defaults.
#'
#' @param name Name of a registered family (see [mcmix_families()]).
#' @param hyper Numeric vector of hyperparameters, handed unchanged to the
#'   family's `hyper_init()` in C (its layout is defined by the family).
#' @param dim Length of one observation, or `NULL` to take it from the data.
#' @param data_type What the data are, used to check them: `"real"` (finite
#'   numbers), `"binary"` (0/1), `"count"` (non-negative whole numbers),
#'   `"positive"` (positive numbers) or `"categorical"` (rows of category
#'   counts).
#' @param param_names Names of the leading entries of a parameter vector
#'   drawn by the family (the rest, if any, is treated as an internal
#'   cache); `NULL` names every entry `theta[j]`.
#' @param ... Further fields stored in the object.
#' @return An object of class `mcmix_family`.
#' @examples
#' # the built-in Poisson-Gamma family through the low-level constructor:
#' # hyperparameters c(shape, rate) for one count column
#' f <- mcmix_family("poisson_gamma", hyper = c(2, 1), dim = 1,
#'                   data_type = "count", param_names = "rate")
#' f
#' @export
mcmix_family <- function(name, hyper, dim = NULL,
                         data_type = c("real", "binary", "count", "positive",
                                       "categorical"),
                         param_names = NULL, ...) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name))
    stop(sprintf("`name` must be a family name (a string), not %s.", describe_value(name)),
         call. = FALSE)
  known <- mcmix_families()
  if (!name %in% known)
    stop(sprintf("`name` must be a registered family, not \"%s\"; registered families are: %s.",
                 name, paste(known, collapse = ", ")), call. = FALSE)
  if (!is.numeric(hyper) || anyNA(hyper) || any(!is.finite(hyper)))
    stop(sprintf("`hyper` must be a numeric vector of finite values, not %s.",
                 describe_value(hyper)), call. = FALSE)
  if (!is.null(dim)) fam_check_count(dim, "dim")
  types <- eval(formals(sys.function())$data_type)
  if (!is.character(data_type) || length(data_type) < 1L || !data_type[1L] %in% types)
    stop(sprintf("`data_type` must be one of %s, not %s.",
                 paste0("\"", types, "\"", collapse = ", "), describe_value(data_type)),
         call. = FALSE)
  data_type <- data_type[1L]
  if (!is.null(param_names) &&
      (!is.character(param_names) || anyNA(param_names) || length(param_names) == 0L))
    stop(sprintf("`param_names` must be a character vector, not %s.",
                 describe_value(param_names)), call. = FALSE)
  builtin_type <- fam_builtin_types[name]
  if (!is.na(builtin_type) && data_type != builtin_type)
    stop(sprintf("`data_type` must be \"%s\" for the %s family, not \"%s\".",
                 builtin_type, name, data_type), call. = FALSE)
  if (!is.null(dim)) fam_validate_hyper(name, hyper, dim)
  structure(list(name = name, args = list(), dim = if (is.null(dim)) NULL else as.integer(dim),
                 data_type = data_type, hyper = as.double(hyper),
                 param_names = param_names, ...),
            class = "mcmix_family")
}

# Common constructor of the built-in families.
new_builtin_family <- function(name, args, data_type, ...) {
  structure(list(name = name, args = args, dim = NULL, data_type = data_type, ...),
            class = c(paste0("mcmix_family_", name), "mcmix_family"))
}

#' @export
print.mcmix_family <- function(x, ...) {
  cat("<mcmix_family> ", x$name, "\n", sep = "")
  cat("  data: ", x$data_type,
      if (!is.null(x$dim)) sprintf(" (dimension %d)", x$dim), "\n", sep = "")
  if (length(x$args)) {
    for (a in names(x$args)) {
      v <- x$args[[a]]
      txt <- if (is.null(v)) "default from the data" else describe_value(v, max = 6L)
      cat("  ", a, ": ", txt, "\n", sep = "")
    }
  } else if (!is.null(x$hyper)) {
    cat("  hyper: ", describe_value(x$hyper, max = 8L), "\n", sep = "")
  }
  invisible(x)
}

# ---------------------------------------------------------------------------
# What the samplers use

#' Prepare a family for the compiled code
#'
#' Converts and checks `data`, fills in the data-driven defaults, and builds
#' the numeric hyperparameter vector of the family's C descriptor.
#'
#' @param family An `mcmix_family`.
#' @param data Data (vector, matrix or data frame; a factor for
#'   [categorical_dirichlet()]).
#' @param min_rows Fewest rows accepted.
#' @return `list(name, dim, hyper, x, family)`: `x` is the N x dim numeric
#'   matrix handed to C, `family` the family with every default resolved
#'   (preparing new data with it converts them the same way).
#' @noRd
family_prepare <- function(family, data, min_rows = 2L, missing = FALSE) {
  if (!inherits(family, "mcmix_family"))
    stop(sprintf("`family` must be an mcmix family such as `gaussian_niw()`, not %s.",
                 describe_value(family)), call. = FALSE)
  if (inherits(family, c("mcmix_family_product", "mcmix_family_auto")))
    return(product_prepare(family, data, min_rows))    # R/product_family.R
  if (missing && fam_any_na(data) && family_is_conjugate(family) &&
      !identical(family$name, "product")) {            # missing values: R/impute.R
    w <- product_wrap(family, data)
    return(product_prepare(w$family, w$data, min_rows))
  }
  x <- family_convert(family, data)
  x <- fam_check_matrix(x, min_rows)
  family_check_values(family, x)
  fam <- family_resolve(family, x)
  if (!is.null(fam$dim) && ncol(x) != fam$dim)
    stop(sprintf("`data` has %d column%s but the family has dimension %d.",
                 ncol(x), if (ncol(x) == 1L) "" else "s", fam$dim), call. = FALSE)
  fam$dim <- ncol(x)
  list(name = fam$name, dim = ncol(x), hyper = family_hyper(fam), x = x, family = fam)
}

#' Names of the parameters of one component
#'
#' @param prepared Result of `family_prepare()`.
#' @param all Also name the trailing cache entries of the parameter vector.
#' @return Character vector: the leading (public) entries of a parameter
#'   vector drawn by the family, e.g. `mean[1]`, `cov[1,2]`.
#' @noRd
family_param_names <- function(prepared, all = FALSE) {
  lay <- family_layout(prepared$family)
  nm <- unlist(Map(fam_component_names, names(lay$components), lay$components),
               use.names = FALSE)
  if (all && lay$size > length(nm))
    nm <- c(nm, sprintf(".cache[%d]", seq_len(lay$size - length(nm))))
  nm
}

#' Unpack one parameter vector
#'
#' @param prepared Result of `family_prepare()`.
#' @param theta A parameter vector drawn by the family (full length, or at
#'   least the public entries).
#' @return Named list, e.g. `list(mean = , cov = )`; matrices as matrices.
#' @noRd
family_param_unpack <- function(prepared, theta) {
  lay <- family_layout(prepared$family)
  out <- list()
  pos <- 0L
  for (nm in names(lay$components)) {
    shape <- lay$components[[nm]]
    len <- prod(shape)
    v <- unname(theta[pos + seq_len(len)])
    if (length(shape) == 2L) v <- matrix(v, shape[1L], shape[2L])
    out[[nm]] <- v
    pos <- pos + len
  }
  out
}

#' Evaluate a family through its C descriptor (tests and utilities)
#'
#' Works for any registered family, including plugins, through
#' `ffi_family_eval()` in src/ffi_family.c.
#'
#' @param prepared_or_family A family, or the result of `family_prepare()`.
#' @param data The data of the cluster. With a family it is prepared (at
#'   least 2 rows); with a prepared family it is converted with it (any
#'   number of rows, 0 for the prior), or `NULL` for the prepared data.
#' @param op `"log_marginal"`, `"log_predictive"` (`arg` = new points, one
#'   per row), `"add_remove"` (`arg` = number of random operations; returns
#'   the absolute changes of the log marginal and log predictive after they
#'   are undone, the number of times the cluster became empty and its
#'   largest size), `"param_draw"` (`arg` = number of draws; a matrix, one
#'   draw per row, every entry including the cache), `"log_lik"`
#'   (`arg` = a parameter vector; one value per row of data), `"info"`,
#'   `"combine"` (`arg` = m: the stats of the first m rows and of the rest
#'   combined, against all rows added one by one; two rows of
#'   `c(log_marginal, log_predictive of row 1, stats block)`).
#'   `"loo"` (for each row, log p(row | the other rows) by the family's
#'   leave-one-out slot, NA without one, by copy-remove-predictive, and the
#'   family's cheap lower bound on it, NA without one: an n x 3 matrix).
#'   `"bound"` (for each row of `arg`, the family's cheap upper bound on its
#'   log predictive given `data`, as the collapsed scan computes it, and the
#'   log predictive: an m x 2 matrix; gaussian_niw only).
#' @noRd
.family_eval <- function(prepared_or_family, data, op, arg = NULL) {
  if (inherits(prepared_or_family, "mcmix_family")) {
    prep <- family_prepare(prepared_or_family, data)
    x <- prep$x
  } else {
    prep <- prepared_or_family
    x <- if (is.null(data)) prep$x else fam_convert_with(prep, data, min_rows = 0L)
  }
  op <- match.arg(op, c("log_marginal", "log_predictive", "add_remove",
                        "param_draw", "log_lik", "info", "combine", "loo", "bound",
                        "moments", "log_lik_all"))
  arg <- switch(op,
    log_predictive = , bound = fam_convert_with(prep, arg, min_rows = 1L),
    add_remove = , param_draw = , combine = as.double(arg),
    log_lik = , moments = , log_lik_all = as.double(arg),
    NULL)
  out <- with_c_errors(.Call(C_ffi_family_eval, prep$name, as.double(prep$hyper), x, op, arg))
  if (op == "param_draw") {
    nm <- family_param_names(prep, all = TRUE)
    if (length(nm) == ncol(out)) colnames(out) <- nm
  }
  if (op == "info") names(out) <- c("hyper_size", "stats_size", "work_size", "param_size")
  out
}

# Convert (and check) further data with a prepared family.
fam_convert_with <- function(prep, data, min_rows) {
  if (identical(prep$name, "product")) return(product_convert_new(prep, data, min_rows))
  x <- family_convert(prep$family, data)
  x <- fam_check_matrix(x, min_rows)
  family_check_values(prep$family, x)
  if (ncol(x) != prep$dim)
    stop(sprintf("`data` has %d column%s but the family has dimension %d.",
                 ncol(x), if (ncol(x) == 1L) "" else "s", prep$dim), call. = FALSE)
  x
}

# ---------------------------------------------------------------------------
# Internal generics; the default methods serve plugin families.

family_convert <- function(family, data) UseMethod("family_convert")
family_check_values <- function(family, x) UseMethod("family_check_values")
family_resolve <- function(family, x) UseMethod("family_resolve")
family_hyper <- function(family) UseMethod("family_hyper")
family_layout <- function(family) UseMethod("family_layout")

family_convert.mcmix_family <- function(family, data) {
  if (identical(family$data_type, "categorical")) fam_categorical_matrix(data, family$dim)
  else fam_numeric_matrix(data)
}

family_check_values.mcmix_family <- function(family, x) {
  switch(family$data_type,
    binary = fam_check_binary(x, family$name),
    count = , categorical = fam_check_counts(x, family$name),
    positive = fam_check_positive_data(x, family$name),
    invisible(x))
}

family_resolve.mcmix_family <- function(family, x) {
  # only families from mcmix_family() itself; subclasses check their own
  if (identical(class(family), "mcmix_family") && is.null(family$dim))
    fam_validate_hyper(family$name, family$hyper, ncol(x))
  family
}

# Data types of the built-in families, checked by the low-level constructor.
fam_builtin_types <- c(gaussian_mean = "real", gaussian_niw = "real",
                       gaussian_diag = "real", gaussian_iso = "real",
                       gaussian_nonconj = "real",
                       bernoulli_beta = "binary", poisson_gamma = "count",
                       categorical_dirichlet = "categorical")

# Let the family's C descriptor check `hyper` for dimension `dim`, and turn a
# refusal into an error about `hyper`.
fam_validate_hyper <- function(name, hyper, dim) {
  why <- tryCatch({
    .Call(C_ffi_family_eval, name, as.double(hyper), matrix(0, 0L, dim), "info", NULL)
    NULL
  }, error = function(e) sub("^.*family '[^']*' ", "", conditionMessage(e)))
  if (!is.null(why))
    stop(sprintf("`hyper` (%s) is not a valid hyperparameter vector for the %s family in dimension %d: the family %s.",
                 describe_value(hyper), name, as.integer(dim), why), call. = FALSE)
  invisible(hyper)
}

family_hyper.mcmix_family <- function(family) {
  if (is.null(family$hyper)) stop("internal error: a built-in family lacks its hyper method")
  family$hyper
}

family_layout.mcmix_family <- function(family) {
  size <- .Call(C_ffi_family_eval, family$name, as.double(family$hyper),
                matrix(0, 0L, family$dim), "info", NULL)[4L]
  nm <- family$param_names
  if (is.null(nm)) {
    comps <- list(theta = size)
  } else {
    comps <- stats::setNames(rep(list(1L), length(nm)), nm)
  }
  list(components = comps, size = size)
}

fam_component_names <- function(name, shape) {
  if (length(shape) == 2L) {
    ij <- expand.grid(i = seq_len(shape[1L]), j = seq_len(shape[2L]))
    sprintf("%s[%d,%d]", name, ij$i, ij$j)
  } else if (shape == 1L && name != "theta") {
    name
  } else {
    sprintf("%s[%d]", name, seq_len(shape))
  }
}

# ---------------------------------------------------------------------------
# Data conversion and checks

fam_numeric_matrix <- function(data) {
  if (is.data.frame(data)) {
    ok <- vapply(data, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (!all(ok))
      stop(sprintf("`data` must have numeric columns only; column %s is %s. For columns of mixed types use auto_family() or product_family().",
                   fam_col_label(data, which(!ok)[1L]),
                   fam_type_label(data[[which(!ok)[1L]]])), call. = FALSE)
    data <- as.matrix(data)
    storage.mode(data) <- "double"
    return(unname(data))
  }
  if (!(is.numeric(data) || is.logical(data)) || is.factor(data) ||
      !(is.null(dim(data)) || length(dim(data)) == 2L))
    stop(sprintf("`data` must be a numeric vector, matrix or data frame, not %s.",
                 fam_type_label(data)), call. = FALSE)
  if (is.null(dim(data))) data <- matrix(data, ncol = 1L)
  # change only what needs changing: each of these copies the whole data
  if (!is.double(data)) storage.mode(data) <- "double"
  if (!is.null(dimnames(data))) data <- unname(data)
  data
}

# Categorical data: a factor / character / integer vector of categories, or
# a matrix (data frame) of counts with one column per category.
fam_categorical_matrix <- function(data, K = NULL, levels = NULL) {
  if (is.data.frame(data) && ncol(data) == 1L && !is.numeric(data[[1L]]))
    data <- data[[1L]]
  if (is.character(data))
    data <- if (is.null(levels)) factor(data) else factor(data, levels = unique(c(levels, data)))
  if (is.factor(data)) {
    if (!is.null(levels) && !identical(levels(data), levels)) {
      bad <- setdiff(levels(data)[table(data) > 0], levels)
      if (length(bad))
        stop(sprintf("`data` has a category not seen when the family was set up: \"%s\".",
                     bad[1L]), call. = FALSE)
      data <- factor(as.character(data), levels = levels)
    }
    lev <- levels(data)
    codes <- as.integer(data)
    na <- which(is.na(codes))
    if (length(na))
      stop(sprintf("`data` has a missing value in row %d.", na[1L]), call. = FALSE)
    x <- matrix(0, length(codes), length(lev))
    x[cbind(seq_along(codes), codes)] <- 1
    attr(x, "levels") <- lev
    return(x)
  }
  if ((is.numeric(data) || is.logical(data)) && is.null(dim(data))) {
    na <- which(is.na(data))
    if (length(na))
      stop(sprintf("`data` has a missing value in row %d.", na[1L]), call. = FALSE)
    if (!length(data))
      stop("`data` must have at least one observation, not 0.", call. = FALSE)
    bad <- which(!is.finite(data) | data < 1 | data != round(data) |
                 data > .Machine$integer.max)
    if (length(bad))
      stop(sprintf("`data` must hold category numbers 1, 2, ...; row %d is %s.",
                   bad[1L], format(data[bad[1L]])), call. = FALSE)
    K <- if (is.null(K)) max(data) else K
    if (length(data) && max(data) > K)
      stop(sprintf("`data` has category %d in row %d but the family has %d categories.",
                   as.integer(max(data)), which.max(data), K), call. = FALSE)
    # The one-hot matrix below is length(data) x K, and the sampler keeps K
    # counts for each of at least 64 clusters: bound both (8e8 bytes).
    if ((as.double(length(data)) + 64) * K > fam_max_cells)
      stop(sprintf("`data` has category number %s in row %d: too many categories for %d observations (at most %s cells in the %d x K indicator matrix); number the categories 1, 2, ..., K without gaps (or give a factor).",
                   format(max(data)), which.max(data), length(data),
                   format(fam_max_cells), length(data)), call. = FALSE)
    x <- matrix(0, length(data), K)
    x[cbind(seq_along(data), as.integer(data))] <- 1
    return(x)
  }
  fam_numeric_matrix(data)
}

fam_check_matrix <- function(x, min_rows) {
  if (nrow(x) < min_rows)
    stop(sprintf("`data` must have at least %d row%s, not %d.", min_rows,
                 if (min_rows == 1L) "" else "s", nrow(x)), call. = FALSE)
  if (ncol(x) < 1L)
    stop("`data` must have at least one column.", call. = FALSE)
  if (anyNA(x)) {
    p <- fam_first_where(is.na(x))
    stop(sprintf("`data` has a missing value in row %d, column %d.", p[1L], p[2L]),
         call. = FALSE)
  }
  # min() and max() scan without the full-size temporaries of is.finite(x),
  # abs(x) or range(x) (they matter at N = 1e6); positions only on failure
  lo <- if (length(x)) min(x) else 0
  hi <- if (length(x)) max(x) else 0
  if (!is.finite(lo) || !is.finite(hi)) {
    p <- fam_first_where(!is.finite(x))
    stop(sprintf("`data` has a non-finite value (%s) in row %d, column %d.",
                 format(x[p[1L], p[2L]]), p[1L], p[2L]), call. = FALSE)
  }
  # Sufficient statistics hold sums of squares and cross-products, which
  # overflow to Inf (and then NaN) for values near the largest double.
  if (max(-lo, hi) > max_abs_value) {
    p <- fam_first_where(abs(x) > max_abs_value)
    stop(sprintf("`data` has a value too large in magnitude (%s) in row %d, column %d; rescale the data (values must be below %g in absolute value).",
                 format(x[p[1L], p[2L]]), p[1L], p[2L], max_abs_value), call. = FALSE)
  }
  x
}

# Largest number of cells of the category-indicator data and cluster counts.
fam_max_cells <- 1e8

# `data` values that family `name` accepts: `bad` marks the others, `need`
# says what the family needs; the error names the first bad cell (row by row).
fam_check_cells <- function(x, bad, need, name) {
  if (any(bad)) {
    p <- fam_first_where(bad)
    stop(sprintf("`data` must contain %s for the %s family; row %d, column %d is %s.",
                 need, name, p[1L], p[2L], format(x[p[1L], p[2L]])), call. = FALSE)
  }
  invisible(x)
}

fam_check_binary <- function(x, name)
  fam_check_cells(x, x != 0 & x != 1, "only 0 and 1", name)

# counts above 2^53 are not whole numbers in double precision
fam_check_counts <- function(x, name)
  fam_check_cells(x, x < 0 | x != round(x) | x > 2^53,
                  "non-negative whole numbers (counts)", name)

fam_check_positive_data <- function(x, name)
  fam_check_cells(x, x <= 0, "positive numbers", name)

# Row and column of the first TRUE, scanning row by row.
fam_first_where <- function(m) {
  w <- which(m, arr.ind = TRUE)
  if (is.null(dim(w))) w <- matrix(w, ncol = 2L)
  w[order(w[, 1L], w[, 2L])[1L], ]
}

# ---------------------------------------------------------------------------
# Hyperparameter checks (messages name the argument and the value)

fam_type_label <- function(x) {
  if (is.factor(x)) return("a factor")
  if (is.data.frame(x)) return("a data frame")
  if (is.matrix(x)) return(sprintf("a %s matrix", typeof(x)))
  if (is.list(x)) return("a list")
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  # a classed vector (Date, POSIXct, difftime, ...) by its class, not its type
  cls <- oldClass(x)
  if (!is.null(cls)) return(sprintf("a %s vector", cls[1L]))
  sprintf("a %s vector", typeof(x))
}

fam_col_label <- function(df, j) {
  nm <- names(df)[j]
  if (is.null(nm) || !nzchar(nm)) as.character(j) else sprintf("%d (`%s`)", j, nm)
}

fam_is_num <- function(x) is.numeric(x) && !is.factor(x)

# Hyperparameters are held to the same magnitude bound as the data
# (check_magnitude()): a prior mean of 1e300 turned the predictive weights
# into NaN.

# A positive finite number.
fam_check_positive <- function(x, arg) {
  check_positive(x, arg)
  check_magnitude(x, arg)
  invisible(x)
}

# A positive whole number.
fam_check_count <- function(x, arg) {
  check_count(x, arg, 1L)
  invisible(x)
}

# A vector of finite numbers (positive ones if `positive`), recycled later.
fam_check_vector <- function(x, arg, positive = FALSE) {
  what <- if (positive) "positive numbers" else "finite numbers"
  if (is.logical(x) && length(x) && all(is.na(x))) x <- as.double(x)
  if (!fam_is_num(x) || length(x) < 1L || !is.null(dim(x)) && length(dim(x)) > 1L &&
      min(dim(x)) > 1L)
    stop(sprintf("`%s` must be a number or a vector of %s, not %s.", arg, what,
                 if (fam_is_num(x)) describe_value(x) else fam_type_label(x)), call. = FALSE)
  bad <- is.na(x) | !is.finite(x) | (positive & x <= 0)
  if (any(bad)) {
    msg <- if (length(x) == 1L)
      sprintf("`%s` must be a %s number, not %s.", arg,
              if (positive) "positive" else "finite", describe_value(x))
    else
      sprintf("`%s` must contain %s only, not %s (element %d is %s).", arg, what,
              describe_value(x), which(bad)[1L], format(x[which(bad)[1L]]))
    stop(msg, call. = FALSE)
  }
  check_magnitude(x, arg)
  invisible(as.vector(x))
}

# A symmetric positive-definite matrix, or a positive number s (meaning s I).
fam_check_spd <- function(x, arg) {
  if (length(x) == 1L && (fam_is_num(x) || is.atomic(x) && is.na(x))) {
    if (is.na(x) || !is.finite(x) || x <= 0)
      stop(sprintf("`%s` must be a positive number or a symmetric positive-definite matrix, not %s.",
                   arg, describe_value(as.vector(x))), call. = FALSE)
    check_magnitude(x, arg)
    return(invisible(x))
  }
  if (!fam_is_num(x) || !is.matrix(x) || nrow(x) != ncol(x))
    stop(sprintf("`%s` must be a symmetric positive-definite matrix, not %s.", arg,
                 if (fam_is_num(x) && !is.matrix(x)) describe_value(x) else fam_type_label(x)),
         call. = FALSE)
  if (anyNA(x) || any(!is.finite(x)))
    stop(sprintf("`%s` must be a symmetric positive-definite matrix, not a matrix with %s.",
                 arg, if (anyNA(x)) "missing values" else "non-finite values"), call. = FALSE)
  check_magnitude(x, arg)
  why <- spd_problem(x)   # R/checks.R
  if (!is.null(why))
    stop_input(sprintf("`%s` must be a symmetric positive-definite matrix; %s.", arg,
                       if (why == "not symmetric") "it is not symmetric"
                       else sub("^smallest eigenvalue", "its smallest eigenvalue is", why)),
               arg)
  invisible(x)
}

# Arguments that fix the dimension must agree with each other: `args` is a
# named list of checked hyperparameters (NULL = default, a number = any
# dimension, a longer vector = its length, a matrix = its order).
fam_check_same_dim <- function(args) {
  dims <- vapply(args, function(v) {
    if (is.null(v) || length(v) == 1L) NA_integer_
    else if (is.matrix(v)) nrow(v) else length(v)
  }, integer(1))
  fixed <- which(!is.na(dims))
  if (length(fixed) > 1L && any(dims[fixed] != dims[fixed[1L]])) {
    i <- fixed[1L]
    j <- fixed[dims[fixed] != dims[i]][1L]
    what <- function(k) if (is.matrix(args[[k]]))
      sprintf("is a %d x %d matrix", dims[k], dims[k]) else sprintf("has length %d", dims[k])
    stop(sprintf("`%s` %s but `%s` %s; they must have the same dimension.",
                 names(args)[j], what(j), names(args)[i], what(i)), call. = FALSE)
  }
  invisible(args)
}

# Expand a checked spd argument to a D x D matrix.
fam_as_spd <- function(x, D, arg) {
  if (length(x) == 1L) return(diag(as.vector(x), D))
  if (nrow(x) != D)
    stop(sprintf("`%s` is a %d x %d matrix but `data` has %d column%s.", arg,
                 nrow(x), ncol(x), D, if (D == 1L) "" else "s"), call. = FALSE)
  x <- unname(x)
  (x + t(x)) / 2
}

# Recycle a checked vector argument to length D.
fam_recycle <- function(x, D, arg, what = "column") {
  if (length(x) == 1L) return(rep(as.double(x), D))
  if (length(x) != D)
    stop(sprintf("`%s` has length %d but `data` has %d %s%s.", arg, length(x), D,
                 what, if (D == 1L) "" else "s"), call. = FALSE)
  as.double(x)
}

# Recycle the checked vector arguments `args` of a family to the D = ncol(x)
# columns of `data`, and fix its dimension.
fam_resolve_vectors <- function(family, x, args) {
  D <- ncol(x)
  for (a in args) family$args[[a]] <- fam_recycle(family$args[[a]], D, a)
  family$dim <- D
  family
}

# The prior mean: given (recycled to the columns of `data`) or their means.
fam_default_mean <- function(prior_mean, x) {
  if (is.null(prior_mean)) .colMeans(x, nrow(x), ncol(x))   # no copy of x
  else fam_recycle(prior_mean, ncol(x), "prior_mean")
}

# The hyperparameter vector for C: the family's arguments `args` in order.
fam_hyper <- function(family, args)
  as.double(unlist(family$args[args], use.names = FALSE))

# Sample covariance for data-driven defaults; diagonal when singular.
fam_sample_cov <- function(x, arg) {
  S <- stats::cov(x)
  ok <- !inherits(try(chol(S), silent = TRUE), "try-error") &&
    min(eigen(S, symmetric = TRUE, only.values = TRUE)$values) > 1e-10 * max(diag(S))
  if (!ok) {
    v <- diag(S)
    if (any(v <= 0))
      stop(sprintf("Cannot derive a default for `%s` from `data`: column %d is constant; give `%s` explicitly.",
                   arg, which(v <= 0)[1L], arg), call. = FALSE)
    S <- diag(v, ncol(x))
  }
  unname(S)
}
