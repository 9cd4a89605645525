# Argument checks shared by every area: the one describer of bad values and
# the generic checks. Area-specific checks (fam_check_*() in R/family.R,
# mdl_*() in R/models.R, ...) are built on these. Every message names the
# argument in backquotes and shows the bad value.

# A short description of a value for error messages: "NULL", "a function",
# "a 2 x 3 matrix", "a list of length 2", "an empty double vector", -1,
# "a", c(1, 2, 3, 4, 5, ...), "an mcmix_family of length 4".
describe_value <- function(x, max = 5L) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (is.matrix(x)) return(sprintf("a %d x %d matrix", nrow(x), ncol(x)))
  if (is.list(x) || !is.atomic(x) || is.factor(x)) {
    cls <- class(x)[1L]
    return(paste0(if (grepl("^[aeiou]", cls)) "an " else "a ", cls, " of length ",
                  length(x)))
  }
  if (length(x) == 0L) return(sprintf("an empty %s vector", typeof(x)))
  v <- x[seq_len(min(length(x), max))]
  s <- if (is.character(v)) sprintf("\"%s\"", v) else format(v, digits = 6L, trim = TRUE)
  s <- paste(s, collapse = ", ")
  if (length(x) > max) s <- paste0(s, ", ...")
  if (length(x) > 1L) s <- paste0("c(", s, ")")
  s
}

# Largest magnitude accepted for a data value or hyperparameter: sums of
# squares and products of such values stay far from overflow (a value near
# the largest double would turn the linear algebra into Inf/NaN).
max_abs_value <- 1e100

# No value of `x` (ignoring NA) beyond max_abs_value in absolute value.
check_magnitude <- function(x, arg) {
  if (is.numeric(x) && any(abs(x) > max_abs_value, na.rm = TRUE)) {
    v <- x[which(abs(x) > max_abs_value)[1L]]
    stop(sprintf("`%s` has a value too large in magnitude (%s); rescale it (values must be below %g in absolute value).",
                 arg, format(v), max_abs_value), call. = FALSE)
  }
  invisible(x)
}

# A whole number in [min, max], as an integer.
check_count <- function(x, arg, min = 1L, max = .Machine$integer.max) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x != floor(x) ||
      x < min || x > max) {
    what <- if (max != .Machine$integer.max)
      sprintf("a whole number between %s and %s", min, max)
    else if (min == 1) "a positive whole number"
    else paste0("a whole number >= ", min)
    stop(sprintf("`%s` must be %s, not %s.", arg, what, describe_value(x)),
         call. = FALSE)
  }
  as.integer(x)
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x))
    stop(sprintf("`%s` must be TRUE or FALSE, not %s.", arg, describe_value(x)),
         call. = FALSE)
  x
}

# A positive number (or vector of length `len`, recycled from one value).
check_positive <- function(x, arg, len = 1L, allow_inf = FALSE) {
  ok <- is.numeric(x) && length(x) %in% unique(c(1L, len)) && !anyNA(x) &&
    all(x > 0) && (allow_inf || all(is.finite(x)))
  if (!ok) {
    what <- if (len == 1L) "a positive number" else
      sprintf("a positive number or a vector of %d positive numbers", len)
    stop(sprintf("`%s` must be %s, not %s.", arg, what, describe_value(x)),
         call. = FALSE)
  }
  rep_len(as.double(x), len)
}

# A probability strictly between 0 and 1.
check_prob <- function(x, arg) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x <= 0 || x >= 1)
    stop(sprintf("`%s` must be a number strictly between 0 and 1, not %s.",
                 arg, describe_value(x)), call. = FALSE)
  as.double(x)
}

# Symmetric positive definite d x d matrix; returns its lower Cholesky factor.
check_cov <- function(x, arg, d) {
  if (!is.null(d) && is.numeric(x) && length(x) == 1L && d == 1L)
    x <- matrix(x, 1, 1)
  if (!is.matrix(x) || !is.numeric(x) || anyNA(x) || any(!is.finite(x)) ||
      nrow(x) != ncol(x) || (!is.null(d) && nrow(x) != d))
    stop(sprintf("`%s` must be a %s numeric matrix, not %s.", arg,
                 if (is.null(d)) "square" else sprintf("%d x %d", d, d),
                 describe_value(x)), call. = FALSE)
  if (max(abs(x - t(x))) > 1e-8 * max(1, max(abs(x))))
    stop(sprintf("`%s` must be symmetric.", arg), call. = FALSE)
  L <- tryCatch(t(chol(x)), error = function(e) NULL)
  if (is.null(L))
    stop(sprintf("`%s` must be positive definite.", arg), call. = FALSE)
  L
}

# A fit made by the chain driver (class mcmix_fit).
check_fit_arg <- function(x, arg = "x") {
  if (!inherits(x, "mcmix_fit"))
    stop(sprintf("`%s` must be an mcmix_fit, not %s.", arg, describe_value(x)),
         call. = FALSE)
  invisible(x)
}

# The `backend` among the further arguments `dots` of a sample_posterior()
# method (the option mcmix.backend when absent); any other argument is an
# error naming it.
dots_backend <- function(dots) {
  backend <- if (is.null(dots$backend)) getOption("mcmix.backend", "auto") else dots$backend
  dots$backend <- NULL
  if (length(dots))
    stop(sprintf("unknown argument%s: %s.", if (length(dots) > 1L) "s" else "",
                 paste0("`", names(dots), "`", collapse = ", ")), call. = FALSE)
  backend
}

# One of `choices` (the first when `x` is the default vector of choices);
# otherwise an error naming the argument, the choices and the bad value.
match_choice <- function(x, choices, arg) {
  if (identical(x, choices)) return(choices[1L])
  if (!is.character(x) || length(x) != 1L || is.na(x) || !x %in% choices)
    stop(sprintf("`%s` must be one of %s, not %s.", arg,
                 paste0("\"", choices, "\"", collapse = ", "), describe_value(x)),
         call. = FALSE)
  x
}

# Numeric draws with no NA, NaN or Inf; otherwise an error naming the argument,
# the quantity and the position of the first bad value.
check_finite_draws <- function(m, arg, what = NULL) {
  bad <- which(!is.finite(m))
  if (length(bad)) {
    i <- bad[1L]
    pos <- if (is.matrix(m))
      sprintf("draw %d of chain %d", (i - 1L) %% nrow(m) + 1L, (i - 1L) %/% nrow(m) + 1L)
    else sprintf("element %d", i)
    stop(sprintf("`%s` must contain only finite values: %s%s is %s (%d non-finite value%s).",
                 arg, if (is.null(what)) "" else paste0(what, ", "), pos,
                 format(m[i]), length(bad), if (length(bad) > 1L) "s" else ""),
         call. = FALSE)
  }
  invisible(m)
}

# Standard deviations as a number or a plain vector: a matrix (or array) is
# refused rather than read column by column; `hint` completes the message.
check_scale_vector <- function(x, arg, hint = "") {
  if (!is.null(dim(x)))
    stop(sprintf("`%s` must be a number or a vector of standard deviations, not a %s %s%s.",
                 arg, paste(dim(x), collapse = " x "),
                 if (is.matrix(x)) "matrix" else "array", hint), call. = FALSE)
  check_positive(x, arg, length(x))
}

# A whole number no larger than `max`, with the reason in the message.
check_count_max <- function(x, arg, min, max, why) {
  if (is.numeric(x) && length(x) == 1L && !is.na(x) && x > max)
    stop(sprintf("`%s` must be at most %s (%s), not %s.", arg,
                 format(max, big.mark = ",", scientific = FALSE), why, format(x)),
         call. = FALSE)
  check_count(x, arg, min)
}
