# Argument checks shared by every area: the one describer of bad values, the
# one test of positive definiteness (spd_problem()) and the generic checks,
# including those of the model samplers (check_number(), check_matrix(),
# ...). The checks of family arguments and data (fam_check_*() in
# R/family.R) are built on these. Every message names the argument in
# backquotes and shows the bad value; every error is raised by stop_input()
# (R/conditions.R) with the argument's name, so it is a condition of class
# "mcmix_error_input" whose field `arg` names the argument.

# A short description of a value for error messages: "NULL", "a function",
# "a 2 x 3 matrix", "a list of length 2", "an empty double vector", -1,
# "a", c(1, 2, 3, 4, 5, ... and 7 more), "an mcmix_family of length 4";
# strings longer than 30 characters are cut to 27 and "...".
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
  if (is.character(v)) {   # long strings (texts) cut short
    long <- !is.na(v) & nchar(v, type = "chars", allowNA = TRUE) > 30L
    long[is.na(long)] <- FALSE
    v[long] <- paste0(substr(v[long], 1L, 27L), "...")
  }
  s <- if (is.character(v)) sprintf("\"%s\"", v) else format(v, digits = 6L, trim = TRUE)
  s <- paste(s, collapse = ", ")
  if (length(x) > max) s <- sprintf("%s, ... and %s more", s, format(length(x) - max,
                                                                   big.mark = ","))
  if (length(x) > 1L) s <- paste0("c(", s, ")")
  s
}

# The first `max` of the strings `s` for a message, comma-separated, with
# "... and N more" when there are more (the values of a user's data never
# fill a message).
list_some <- function(s, max = 8L) {
  out <- paste(utils::head(s, max), collapse = ", ")
  if (length(s) > max)
    out <- sprintf("%s, ... and %s more", out, format(length(s) - max, big.mark = ","))
  out
}

# Largest magnitude accepted for a data value or hyperparameter: sums of
# squares and products of such values stay far from overflow (a value near
# the largest double would turn the linear algebra into Inf/NaN).
max_abs_value <- 1e100

# No value of `x` (ignoring NA) beyond max_abs_value in absolute value.
check_magnitude <- function(x, arg) {
  if (is.numeric(x) && any(abs(x) > max_abs_value, na.rm = TRUE)) {
    v <- x[which(abs(x) > max_abs_value)[1L]]
    stop_input(sprintf("`%s` has a value too large in magnitude (%s); rescale it (values must be below %g in absolute value).",
                 arg, format(v), max_abs_value), arg)
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
    stop_input(sprintf("`%s` must be %s, not %s.", arg, what, describe_value(x)), arg)
  }
  as.integer(x)
}

# The `probs` of a summary: 1 to 100 probabilities (the quantiles shown).
check_probs <- function(x, arg = "probs") {
  if (!is.numeric(x) || is.object(x) || !length(x) || length(x) > 100L || anyNA(x) ||
      any(x < 0 | x > 1))
    stop_input(sprintf("`%s` must be 1 to 100 probabilities (numbers between 0 and 1), not %s.",
                       arg, describe_value(x)), arg)
  as.double(x)
}

# The powers of annealed sweeps (map_partition(), bn_map()): at most 1e5
# positive numbers (Inf allowed; none for ICM sweeps only).
check_schedule <- function(x, arg = "schedule") {
  if (!is.numeric(x) || is.object(x) || anyNA(x) || any(x <= 0) ||
      !is.null(dim(x)))
    stop_input(sprintf("`%s` must be a vector of positive numbers (Inf allowed), not %s.",
                       arg, describe_value(x)), arg)
  if (length(x) > 1e5)
    stop_input(sprintf("`%s` asks for %s annealed sweeps; at most 1e5 are allowed.", arg,
                       format(length(x), big.mark = ",")), arg)
  # an inverse temperature so large overflows the log-weights: Inf (a
  # greedy sweep) says what is meant
  if (any(is.finite(x) & x > 1e100))
    stop_input(sprintf("`%s` has a finite value too large (%s); use Inf for a greedy sweep, or values at most 1e100.",
                       arg, format(x[is.finite(x) & x > 1e100][1L])), arg)
  as.double(x)
}

# The `digits` of a print method: significant digits, 1 to 20 (a method may
# show up to digits + 2, within R's limit of 22).
check_digits <- function(x, arg = "digits") check_count(x, arg, 1L, 20L)

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x))
    stop_input(sprintf("`%s` must be TRUE or FALSE, not %s.", arg, describe_value(x)), arg)
  x
}

# A positive number (or vector of length `len`, recycled from one value).
check_positive <- function(x, arg, len = 1L, allow_inf = FALSE) {
  ok <- is.numeric(x) && length(x) %in% unique(c(1L, len)) && !anyNA(x) &&
    all(x > 0) && (allow_inf || all(is.finite(x)))
  if (!ok) {
    what <- if (len == 1L) "a positive number" else
      sprintf("a positive number or a vector of %d positive numbers", len)
    stop_input(sprintf("`%s` must be %s, not %s.", arg, what, describe_value(x)), arg)
  }
  rep_len(as.double(x), len)
}

# A probability strictly between 0 and 1.
check_prob <- function(x, arg) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x <= 0 || x >= 1)
    stop_input(sprintf("`%s` must be a number strictly between 0 and 1, not %s.",
                 arg, describe_value(x)), arg)
  as.double(x)
}

# The one test of a symmetric positive-definite matrix (used by check_cov(),
# check_cov_spec() and fam_check_spd()): NULL when the finite square matrix
# `x` is one, otherwise why not: "not symmetric" (beyond rounding), or
# "smallest eigenvalue <value>" when it is not numerically positive
# definite (eigenvalues within 1e-12 of the largest, or no Cholesky factor).
spd_problem <- function(x) {
  if (max(abs(x - t(x))) > 1e-8 * max(1, max(abs(x)))) return("not symmetric")
  ev <- eigen(x, symmetric = TRUE, only.values = TRUE)$values
  if (min(ev) <= 1e-12 * max(abs(ev)) ||
      inherits(try(chol(x), silent = TRUE), "try-error"))
    return(paste("smallest eigenvalue", format(min(ev), digits = 4L)))
  NULL
}

# Symmetric positive definite d x d matrix; returns its lower Cholesky factor.
check_cov <- function(x, arg, d) {
  if (!is.null(d) && is.numeric(x) && length(x) == 1L && d == 1L)
    x <- matrix(x, 1, 1)
  if (!is.matrix(x) || !is.numeric(x) || anyNA(x) || any(!is.finite(x)) ||
      nrow(x) != ncol(x) || (!is.null(d) && nrow(x) != d))
    stop_input(sprintf("`%s` must be a %s numeric matrix, not %s.", arg,
                 if (is.null(d)) "square" else sprintf("%d x %d", d, d),
                 describe_value(x)), arg)
  why <- spd_problem(x)
  if (identical(why, "not symmetric"))
    stop_input(sprintf("`%s` must be symmetric.", arg), arg)
  if (!is.null(why))
    stop_input(sprintf("`%s` must be positive definite.", arg), arg)
  t(chol(x))
}

# A fit made by the chain driver (class mcmix_fit).
check_fit_arg <- function(x, arg = "x") {
  if (!inherits(x, "mcmix_fit"))
    stop_input(sprintf("`%s` must be an mcmix_fit, not %s.", arg, describe_value(x)), arg)
  invisible(x)
}

# The one check of further arguments: `dots` (list(...)) may hold only
# arguments named in `allowed`; otherwise an error naming the first other
# one, listing the allowed ones.
check_dots <- function(dots, allowed = character()) {
  nm <- names(dots)
  if (is.null(nm)) nm <- rep("", length(dots))
  bad <- nm[nm == "" | !nm %in% allowed]
  if (length(bad)) {
    quote_names <- function(x) paste0("`", x, "`")
    stop_input(sprintf("unknown argument%s: %s%s.", if (length(bad) > 1L) "s" else "",
                       paste(quote_names(ifelse(bad == "", "<unnamed>", bad)), collapse = ", "),
                       if (!length(allowed)) "" else
                         sprintf("; further arguments may be %s",
                                 sub(", ([^,]*)$", " and \\1",
                                     paste(quote_names(allowed), collapse = ", ")))),
               if (bad[1L] == "") "..." else bad[1L])
  }
  invisible(dots)
}

# One of `choices` (the first when `x` is the default vector of choices);
# otherwise an error naming the argument, the choices and the bad value.
match_choice <- function(x, choices, arg) {
  if (identical(x, choices)) return(choices[1L])
  if (!is.character(x) || length(x) != 1L || is.na(x) || !x %in% choices)
    stop_input(sprintf("`%s` must be one of %s, not %s.", arg,
                 paste0("\"", choices, "\"", collapse = ", "), describe_value(x)), arg)
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
    stop_input(sprintf("`%s` must contain only finite values: %s%s is %s (%d non-finite value%s).",
                 arg, if (is.null(what)) "" else paste0(what, ", "), pos,
                 format(m[i]), length(bad), if (length(bad) > 1L) "s" else ""), arg)
  }
  invisible(m)
}

# Standard deviations as a number or a plain vector: a matrix (or array) is
# refused rather than read column by column; `hint` completes the message.
check_scale_vector <- function(x, arg, hint = "") {
  if (!is.null(dim(x)))
    stop_input(sprintf("`%s` must be a number or a vector of standard deviations, not a %s %s%s.",
                 arg, paste(dim(x), collapse = " x "),
                 if (is.matrix(x)) "matrix" else "array", hint), arg)
  check_positive(x, arg, length(x))
}

# A whole number no larger than `max`, with the reason in the message.
check_count_max <- function(x, arg, min, max, why) {
  if (is.numeric(x) && length(x) == 1L && !is.na(x) && x > max)
    stop_input(sprintf("`%s` must be at most %s (%s), not %s.", arg,
                 format(max, big.mark = ",", scientific = FALSE), why, format(x)), arg)
  check_count(x, arg, min)
}

# ---- checks of model arguments (probit_gibbs(), logit_gibbs(), ...) -------

# A finite number in [lower, upper] (or (lower, upper] when open_lower).
check_number <- function(x, arg, lower = -Inf, upper = Inf, open_lower = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) &&
    (if (open_lower) x > lower else x >= lower) && x <= upper
  if (ok) check_magnitude(x, arg)
  if (!ok) {
    what <- if (open_lower && lower == 0) "a positive number"
            else if (lower == 0) "a non-negative number"
            else if (is.finite(lower) || is.finite(upper))
              sprintf("a number in [%s, %s]", format(lower), format(upper))
            else "a finite number"
    stop_input(sprintf("`%s` must be %s, not %s.", arg, what, describe_value(x)), arg)
  }
  as.double(x)
}

check_matrix <- function(x, arg, nrow = NULL, ncol = NULL) {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.numeric(x) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (!is.numeric(x) || !is.matrix(x))
    stop_input(sprintf("`%s` must be a numeric matrix, not %s.", arg, describe_value(x)), arg)
  if (any(!is.finite(x)))
    stop_input(sprintf("`%s` must not contain missing or infinite values.", arg), arg)
  check_magnitude(x, arg)
  if (!is.null(nrow) && nrow(x) != nrow)
    stop_input(sprintf("`%s` must have %d rows, not %d.", arg, nrow, nrow(x)), arg)
  if (!is.null(ncol) && ncol(x) != ncol)
    stop_input(sprintf("`%s` must have %d columns, not %d.", arg, ncol, ncol(x)), arg)
  storage.mode(x) <- "double"
  x
}

# A binary response as integer 0/1 (logical, 0/1 numbers, or a two-level
# factor whose second level is 1).
check_binary <- function(y, arg, n = NULL) {
  if (is.factor(y)) {
    if (nlevels(y) != 2L)
      stop_input(sprintf("`%s` must be a factor with two levels, not %d.", arg,
                   nlevels(y)), arg)
    y <- as.integer(y) - 1L
  } else if (is.logical(y)) {
    y <- as.integer(y)
  } else if (is.numeric(y) && all(y[!is.na(y)] %in% c(0, 1))) {
    y <- as.integer(y)
  } else {
    stop_input(sprintf("`%s` must be binary (0/1, logical or a two-level factor).",
                 arg), arg)
  }
  if (anyNA(y))
    stop_input(sprintf("`%s` must not contain missing values.", arg), arg)
  if (!is.null(n) && length(y) != n)
    stop_input(sprintf("`%s` must have length %d (one per row of the design), not %d.",
                 arg, n, length(y)), arg)
  y
}

# A covariance given as a positive number (times I), a vector of variances,
# or a symmetric positive definite matrix.
check_cov_spec <- function(x, arg, p) {
  if (is.numeric(x) && all(is.finite(x))) check_magnitude(x, arg)
  if (is.numeric(x) && is.null(dim(x)) && length(x) %in% c(1L, p) &&
      all(is.finite(x)) && all(x > 0)) {
    return(diag(as.double(x), p))
  }
  if (is.numeric(x) && is.matrix(x) && all(dim(x) == p) && all(is.finite(x)) &&
      is.null(spd_problem(x))) {
    storage.mode(x) <- "double"
    return(unname(x))
  }
  stop_input(sprintf(paste0("`%s` must be a positive number, a vector of %d positive ",
                      "variances or a %d x %d symmetric positive definite matrix."),
               arg, p, p, p), arg)
}

check_vector <- function(x, arg, p) {
  if (!is.numeric(x) || !(length(x) %in% c(1L, p)) || any(!is.finite(x)))
    stop_input(sprintf("`%s` must be a finite number or a vector of length %d, not %s.",
                 arg, p, describe_value(x)), arg)
  check_magnitude(x, arg)
  rep_len(as.double(x), p)
}

# Column names of a design matrix, with blanks filled by `prefix` and position.
design_names <- function(X, prefix) {
  cn <- colnames(X)
  if (is.null(cn)) cn <- rep("", ncol(X))
  blank <- is.na(cn) | cn == ""
  cn[blank] <- paste0(prefix, seq_len(ncol(X)))[blank]
  cn
}

# The mixture algorithm, one of `choices`.
check_algorithm <- function(algorithm, choices)
  match_choice(algorithm, choices, "algorithm")
