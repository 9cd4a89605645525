#' Exponential likelihood with a Gamma prior on the rate
#'
#' x | lambda ~ Exponential(rate lambda), lambda ~ Gamma(shape, rate).
#' The descriptor "exponential_gamma" is registered with mcmix when this
#' package's shared library is loaded (src/init.c).
#'
#' @param shape,rate Positive numbers, the Gamma prior of the rate.
#' @return An mcmix family object.
exponential_gamma <- function(shape = 1, rate = 1) {
  check_positive(shape, "shape")
  check_positive(rate, "rate")
  mcmix_family(name = "exponential_gamma", hyper = c(shape, rate), dim = 1L,
               data_type = "positive", param_names = "rate")
}

check_positive <- function(x, arg) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x <= 0)
    stop(sprintf("`%s` must be a positive number, not %s.", arg,
                 paste(format(x), collapse = ", ")), call. = FALSE)
  invisible(x)
}

# Try to register a descriptor built for a newer plugin ABI (test only).
register_bad_abi <- function() .Call(C_expgamma_register_bad_abi)
