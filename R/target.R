# Targets: the densities sampled by the generic samplers (DESIGN 2.2).
#
# An "mcmix_target" is a list with
#   log_density  R function of a numeric vector, or NULL for a compiled target
#   gradient     R function (numeric vector of length dim) or NULL
#   args         list of further arguments of both functions (target()'s
#                `...`, added to their calls in C), or NULL
#   xptr         external pointer of class "mcmix_target_ptr" or NULL
#   dim          integer, NA when not known until an initial value is given
#   has_gradient logical
#   combined     logical: log_density returns its gradient with the value
#                (attribute "gradient" or list(value, gradient)); for a
#                compiled target, it has the slot log_density_gradient
# The C side (src/ffi_target.c, the R adapter in src/ffi_target_r.c) turns it
# into an engine handle; both kinds go through the same samplers.

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
#' be a single number that is not `NA`. `-Inf` means that the point is
#' outside the support (a proposal there is rejected). As in Stan, a `NaN`
#' or `+Inf` log density, or a gradient with a non-finite coordinate, at a
#' point proposed during sampling (a density that overflows far out in the
#' tails, say) rejects that point: every sampler counts these points
#' (`n_nonfinite` in the final state of each chain, and in `summary()`),
#' and [sample_nuts()] and [sample_hmc()] count them as divergent
#' transitions (the step-size search counts its rejected trial steps in
#' `n_nonfinite` only, and halves the step there). At the
#' initial values the same values are an error of class
#' `"mcmix_error_init"` naming `init`. A value of the wrong type or length,
#' or an error raised by the function, stops the sampler with a message
#' naming the iteration and the parameter value.
#'
#' @section One call for the log density and its gradient:
#' Gradient samplers ([sample_nuts()], [sample_hmc()]) need the log density
#' and its gradient at every leapfrog step, and the two usually share most
#' of their work. With `gradient = TRUE`, `log_density` returns both from
#' one call, either as `list(value = , gradient = )`, or as the number with
#' the gradient as its attribute `"gradient"` (as for [stats::nlm()], and
#' as functions made by [stats::deriv()] return it). The
#' samplers then make one R call per leapfrog step instead of two (the
#' draws are the same as with two functions computing the same values);
#' samplers that need only the log density use the value and ignore the
#' gradient. Where the log density is `-Inf` the gradient may be left out.
#' What this saves is the work the two functions would both do (a linear
#' predictor, transformed parameters: about twice the gradients per second
#' on a 42-parameter hierarchical model), not the call itself, which costs
#' R about as much as one small vector operation: for a target whose log
#' density and gradient share nothing (`-sum(x^2) / 2` and `-x`) the two
#' forms are about as fast. Prefer the list: setting the attribute
#' (`attr(v, "gradient") <- g`) costs R about as much as a second call, and
#' [structure()] several (bench/RESULTS.md in the sources).
#' A compiled target does the same through its `log_density_gradient` slot
#' (ABI version 5, `inst/include/mcmix_abi.h`).
#'
#' @param log_density An R function `function(theta, ...)` returning the log
#'   density (up to an additive constant) at the numeric vector `theta`, or
#'   an external pointer of class `"mcmix_target_ptr"` (a compiled target).
#' @param gradient Optional R function `function(theta, ...)` returning the
#'   gradient of the log density (a numeric vector like `theta`), or `TRUE`
#'   when `log_density` returns the gradient together with its value (see
#'   the section One call). Without it, samplers that need a gradient use
#'   central finite differences. Not used with a compiled target (which
#'   carries its own gradient, if any).
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
#'
#' # the same target, value and gradient from one call
#' tg1 <- target(function(x) {
#'   r <- x - c(1, 2)
#'   g <- -as.vector(P %*% r)
#'   list(value = sum(r * g) / 2, gradient = g)
#' }, gradient = TRUE, init = c(0, 0))
#' target_eval(tg1, c(0, 0), gradient = TRUE)
#' @export
target <- function(log_density, gradient = NULL, dim = NULL, init = NULL, ...) {
  extra <- list(...)
  if (inherits(log_density, "mcmix_target")) {
    tg <- log_density
  } else if (inherits(log_density, "mcmix_target_ptr")) {
    if (!is.null(gradient) && !isFALSE(gradient))
      stop("`gradient` cannot be given with a compiled target (it carries its ",
           "own gradient, if any).", call. = FALSE)
    info <- .Call(C_ffi_target_info, log_density)
    if (!is.null(dim) && !identical(as.integer(dim), info$dim))
      stop(sprintf("`dim` is %s, but the compiled target has dimension %d.",
                   format(dim), info$dim), call. = FALSE)
    tg <- structure(list(log_density = NULL, gradient = NULL,
                         xptr = log_density, dim = info$dim,
                         has_gradient = info$has_gradient,
                         combined = info$one_call),
                    class = "mcmix_target")
  } else if (is.function(log_density)) {
    combined <- isTRUE(gradient)
    if (combined) gradient <- NULL
    if (!is.null(gradient) && !is.function(gradient))
      stop(sprintf("`gradient` must be NULL, a function or TRUE, not %s.",
                   describe_value(gradient)), call. = FALSE)
    if (!is.null(dim)) dim <- check_count(dim, "dim", 1L)
    # the further arguments are added to the call of the functions in C
    # (src/ffi_target_r.c), not through an R wrapper evaluated at every call
    tg <- structure(list(log_density = log_density, gradient = gradient,
                         args = if (length(extra)) extra,
                         xptr = NULL,
                         dim = if (is.null(dim)) NA_integer_ else dim,
                         has_gradient = combined || !is.null(gradient),
                         combined = combined),
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
      if (isTRUE(x$combined)) ", with gradient (one call for both)"
      else if (x$has_gradient) ", with gradient" else
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
  one <- if (isTRUE(tg$combined)) ", one call with the log density" else ""
  if (is.null(tg$xptr)) paste0("analytic gradient (an R function", one, ")")
  else paste0("analytic gradient (compiled", one, ")")
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

# Evaluate the target at `theta`, the initial value of a chain, and require
# a finite value there (and a finite gradient when `gradient` is TRUE): a
# -Inf log density means `arg` is outside the support, a NaN or +Inf value
# or a non-finite gradient is an error of class "mcmix_error_init" naming
# `arg` (during sampling the same values only reject the point). Returns
# the log density, or list(logd, grad) when `gradient` is TRUE (one call of
# a target that gives both at once).
target_probe <- function(tg, theta, arg = "init",
                         label = if (is.character(attr(tg, "given_as"))) attr(tg, "given_as")
                                 else "log_density", gradient = FALSE) {
  r <- tryCatch(with_target_io(length(theta), function(io)
    .Call(C_ffi_target_start, tg, io, as.double(theta), as.integer(gradient))),
    error = function(e) {
      if (label == "log_density") stop(e)
      stop(gsub("`log_density`", paste0("`", label, "`"), conditionMessage(e),
                fixed = TRUE), call. = FALSE)
    })
  at <- list_some(format(theta, digits = 6, trim = TRUE))   # R/checks.R
  arg_name <- sub("[[(].*$", "", arg)   # "init(2)", "init[[2]]" -> "init"
  if (r$status == 1L)   # MCX_EVAL_OUTSIDE (src/sampler_target.h)
    stop_input(sprintf(paste0("`%s` is outside the support of the target: the log ",
                              "density at (%s) is -Inf."), arg, at), arg_name)
  if (r$status == 2L)   # MCX_EVAL_BAD_VALUE
    stop_input(sprintf(paste0("`%s` is not a valid starting point: `%s` returned %s at (%s). ",
                              "The log density must be finite at the initial values (during ",
                              "sampling a non-finite value only rejects the point)."),
                       arg, label, format(r$logd), at), arg_name, class = "mcmix_error_init")
  if (r$status == 3L) {  # MCX_EVAL_BAD_GRAD
    j <- which(!is.finite(r$grad))[1L]
    if (!isTRUE(tg$has_gradient))
      stop_input(sprintf(paste0("`%s` is not a valid starting point: the gradient of `%s` cannot ",
                                "be computed by finite differences at (%s) (the log density is ",
                                "not finite next to it)."), arg, label, at), arg_name,
                 class = "mcmix_error_init")
    who <- if (is.function(tg$gradient)) "`gradient` returned"   # the user's own function
           else sprintf("the gradient of `%s` has", label)
    stop_input(sprintf(paste0("`%s` is not a valid starting point: %s a non-finite value ",
                              "(%s in coordinate %d) at (%s)."),
                       arg, who, format(r$grad[j]), j, at), arg_name,
               class = "mcmix_error_init")
  }
  if (gradient) r[c("logd", "grad")] else invisible(r$logd)
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
