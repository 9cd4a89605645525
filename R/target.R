# Targets: the densities sampled by the generic samplers (DESIGN 2.2).
#
# An "mcmix_target" is a list with
#   log_density  R function of a numeric vector, or NULL for a compiled target
#   gradient     R function (numeric vector of length dim) or NULL
#   xptr         external pointer of class "mcmix_target_ptr" or NULL
#   dim          integer, NA when not known until an initial value is given
#   has_gradient logical
# The C side (src/ffi_target_r.c) turns it into an engine handle; both kinds go
# through the same samplers.

#' Define a target density
#'
#' Wraps an unnormalised log density for the generic samplers
#' ([sample_mh()], [sample_slice()], [sample_hmc()], [sample_tempering()],
#' ...). The density is either an R function of a numeric vector, or a
#' compiled target provided by another package through the C interface of
#' mcmix (`inst/include/mcmix.h`, function `mcmix_target_xptr()`), given as
#' the external pointer that package returns.
#'
#' Every value returned by an R function is checked while sampling: it must
#' be a single number that is not `NA`, `NaN` or `+Inf`. `-Inf` means that
#' the point is outside the support (a proposal there is rejected). A bad
#' value, or an error raised by the function, stops the sampler with a
#' message naming the iteration and the parameter value.
#'
#' @param log_density An R function `function(theta, ...)` returning the log
#'   density (up to an additive constant) at the numeric vector `theta`, or
#'   an external pointer of class `"mcmix_target_ptr"` (a compiled target).
#' @param gradient Optional R function `function(theta, ...)` returning the
#'   gradient of the log density (a numeric vector like `theta`). Without
#'   it, samplers that need a gradient use central finite differences. Not
#'   used with a compiled target (which carries its own gradient, if any).
#' @param dim Length of `theta`, when known (taken from the compiled target,
#'   or from the initial values of a sampler otherwise).
#' @param init Optional numeric vector at which the density is evaluated once
#'   to check it (and to set `dim`).
#' @param ... Further arguments passed to `log_density` and `gradient`.
#' @return An object of class `mcmix_target`.
#' @seealso [sample_mh()], [sample_hmc()]
#' @examples
#' # correlated 2-D Gaussian
#' S <- matrix(c(1, 0.8, 0.8, 2), 2)
#' P <- solve(S)
#' tg <- target(function(x) -0.5 * sum((x - c(1, 2)) * (P %*% (x - c(1, 2)))),
#'              gradient = function(x) -as.vector(P %*% (x - c(1, 2))),
#'              init = c(0, 0))
#' tg
#' @export
target <- function(log_density, gradient = NULL, dim = NULL, init = NULL, ...) {
  extra <- list(...)
  if (inherits(log_density, "mcmix_target")) {
    tg <- log_density
  } else if (inherits(log_density, "mcmix_target_ptr")) {
    if (!is.null(gradient))
      stop("`gradient` cannot be given with a compiled target (it carries its ",
           "own gradient, if any).", call. = FALSE)
    info <- .Call(C_ffi_target_info, log_density)
    if (!is.null(dim) && !identical(as.integer(dim), info$dim))
      stop(sprintf("`dim` is %s, but the compiled target has dimension %d.",
                   format(dim), info$dim), call. = FALSE)
    tg <- structure(list(log_density = NULL, gradient = NULL,
                         xptr = log_density, dim = info$dim,
                         has_gradient = info$has_gradient),
                    class = "mcmix_target")
  } else if (is.function(log_density)) {
    if (!is.null(gradient) && !is.function(gradient))
      stop(sprintf("`gradient` must be NULL or a function, not %s.",
                   describe_value(gradient)), call. = FALSE)
    if (length(extra)) {
      f <- log_density
      log_density <- function(theta) do.call(f, c(list(theta), extra))
      if (!is.null(gradient)) {
        g <- gradient
        gradient <- function(theta) do.call(g, c(list(theta), extra))
      }
    }
    if (!is.null(dim)) dim <- check_count(dim, "dim", 1L)
    tg <- structure(list(log_density = log_density, gradient = gradient,
                         xptr = NULL,
                         dim = if (is.null(dim)) NA_integer_ else dim,
                         has_gradient = !is.null(gradient)),
                    class = "mcmix_target")
  } else {
    stop(sprintf(paste0("`log_density` must be a function or a compiled target ",
                        "(an external pointer made by mcmix_target_xptr()), not %s."),
                 describe_value(log_density)), call. = FALSE)
  }
  if (!is.null(init)) {
    init <- check_init(init, tg, "init")
    tg$dim <- length(init)
    target_probe(tg, init, "init")
  }
  tg
}

#' @export
print.mcmix_target <- function(x, ...) {
  kind <- if (is.null(x$xptr)) "R function" else "compiled"
  d <- if (is.na(x$dim)) "dimension set by the initial values" else
    paste("dimension", x$dim)
  cat("<mcmix target: ", kind, ", ", d,
      if (x$has_gradient) ", with gradient" else
        ", gradient by finite differences", ">\n", sep = "")
  invisible(x)
}

#' @export
print.mcmix_target_ptr <- function(x, ...) {
  info <- tryCatch(.Call(C_ffi_target_info, x), error = function(e) NULL)
  if (is.null(info)) cat("<invalid compiled mcmix target>\n")
  else cat("<compiled mcmix target of dimension ", info$dim, ">\n", sep = "")
  invisible(x)
}

# How the gradient of a target is computed, for print() of fits.
gradient_label <- function(tg) {
  if (is.null(tg)) return("gradient unknown")
  if (!isTRUE(tg$has_gradient)) return("gradient by central finite differences")
  if (is.null(tg$xptr)) "analytic gradient (an R function)" else "analytic gradient (compiled)"
}

# Turn `x` (an mcmix_target, an R function, or a compiled target pointer)
# into an mcmix_target; `arg` names the argument in messages.
as_target <- function(x, arg = "target") {
  if (inherits(x, "mcmix_target")) return(x)
  if (is.function(x) || inherits(x, "mcmix_target_ptr")) {
    # the user gave the log density itself as `arg`: messages about the
    # log density name that argument (target_probe())
    tg <- target(x)
    attr(tg, "given_as") <- arg
    return(tg)
  }
  stop(sprintf(paste0("`%s` must be a function (the log density), a target() ",
                      "or a compiled target, not %s."), arg, describe_value(x)),
       call. = FALSE)
}

# Check initial values: a finite numeric vector of the target's dimension.
check_init <- function(init, tg, arg = "init") {
  if (!is.numeric(init) || !length(init) || anyNA(init) || any(!is.finite(init)))
    stop(sprintf("`%s` must be a numeric vector of finite values, not %s.",
                 arg, describe_value(init)), call. = FALSE)
  if (!is.na(tg$dim) && length(init) != tg$dim)
    stop(sprintf("`%s` has length %d, but the target has dimension %d.",
                 arg, length(init), tg$dim), call. = FALSE)
  as.double(init)
}

# The callback codes of src/ffi_target_r.h (io[1]), as shown in messages.
callback_names <- c("log_density", "gradient", "log_lik", "gradient of log_lik",
                    "log_prior", "gradient of log_prior", "the proposal's draw",
                    "the proposal's log_density")

# Evaluate `f(io)` where `io` is a fresh context vector of length dim + 2 that
# the C code fills before calling a user R function (src/ffi_target_r.h). An
# error raised inside a user function is re-raised with the name of the
# function, the iteration and theta; other errors pass through unchanged,
# without the call `f(io)` of this helper (the messages of the compiled code
# already name the user's function and where it failed).
with_target_io <- function(dim, f) {
  io <- double(dim + 2L)
  tryCatch(f(io), error = function(e) {
    code <- io[1L]
    if (code == 0) {
      if (identical(conditionCall(e), quote(f(io)))) e$call <- NULL
      stop(e)
    }
    where <- if (io[2L] <= 0) "at the initial value" else
      sprintf("at iteration %d", as.integer(io[2L]))
    theta <- io[-(1:2)]
    shown <- paste(vapply(theta[seq_len(min(10L, length(theta)))], format,
                          character(1), digits = 6),
                   collapse = ", ")
    if (length(theta) > 10L) shown <- paste0(shown, ", ...")
    stop(sprintf("`%s` failed %s (theta = %s): %s", callback_names[code], where,
                 shown, conditionMessage(e)), call. = FALSE)
  })
}

# Evaluate the target at `theta` with the samplers' checks, and require a
# finite value (the starting point must be inside the support).
target_probe <- function(tg, theta, arg = "init",
                         label = if (is.character(attr(tg, "given_as"))) attr(tg, "given_as")
                                 else "log_density") {
  v <- tryCatch(with_target_io(length(theta), function(io)
    .Call(C_ffi_target_eval, tg, as.double(theta), io, 0L)),
    error = function(e) {
      if (label == "log_density") stop(e)
      stop(gsub("`log_density`", paste0("`", label, "`"), conditionMessage(e),
                fixed = TRUE), call. = FALSE)
    })
  if (!is.finite(v))
    stop(sprintf(paste0("`%s` is outside the support of the target: the log ",
                        "density at (%s) is -Inf."), arg,
                 list_some(format(theta, digits = 6, trim = TRUE))),   # R/checks.R
         call. = FALSE)
  invisible(v)
}

#' Evaluate a target
#'
#' Evaluates the log density of a target (or its gradient) at a point, with
#' the same checks as the samplers. Useful to test a target before sampling.
#'
#' @param target A [target()], an R function or a compiled target.
#' @param theta Numeric vector.
#' @param gradient If `TRUE`, return the gradient (the target's own, or by
#'   finite differences) instead of the log density.
#' @return A number, or a numeric vector for the gradient.
#' @examples
#' tg <- target(function(x) -sum(x^2) / 2)
#' target_eval(tg, c(1, 2))
#' target_eval(tg, c(1, 2), gradient = TRUE)
#' @export
target_eval <- function(target, theta, gradient = FALSE) {
  tg <- as_target(target)
  theta <- check_init(theta, tg, "theta")
  gradient <- check_flag(gradient, "gradient")
  with_target_io(length(theta), function(io)
    .Call(C_ffi_target_eval, tg, theta, io, as.integer(gradient)))
}
