# Controls of the chain driver (R/chains.R) used to check its promises:
# fixed chunk lengths.

# The chunk length fixed by `getOption("mcmix.chunk_size")` (a positive
# whole number of iterations), or NA when chunks adapt to the elapsed time
# (the default). The draws never depend on it: every kernel gives the same
# chain whatever the chunks (tests/testthat/test-chunks.R).
chunk_size_option <- function() {
  v <- getOption("mcmix.chunk_size")
  if (is.null(v)) return(NA_integer_)
  if (!is.numeric(v) || length(v) != 1L || is.na(v) || v < 1 || v != floor(v) ||
      v > .Machine$integer.max)
    stop(sprintf("the option `mcmix.chunk_size` must be NULL or a positive whole number, not %s.",
                 describe_value(v)), call. = FALSE)
  as.integer(v)
}
