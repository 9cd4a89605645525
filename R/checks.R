# Argument checks shared by several areas.

# One of `choices` (the first when `x` is the default vector of choices);
# otherwise an error naming the argument, the choices and the bad value.
match_choice <- function(x, choices, arg) {
  if (identical(x, choices)) return(choices[1L])
  if (!is.character(x) || length(x) != 1L || is.na(x) || !x %in% choices)
    stop(sprintf("`%s` must be one of %s, not %s.", arg,
                 paste0("\"", choices, "\"", collapse = ", "), describe_object(x)),
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
