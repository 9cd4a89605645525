# Controls of the chain driver (R/chains.R) used to check its promises:
# fixed chunk lengths.

# The chunk length fixed by the option `mcmix.chunk_size` (a positive
# whole number of iterations), or NA when chunks adapt to the elapsed time
# (the default). The draws never depend on it: every kernel gives the same
# chain whatever the chunks (tests/testthat/test-chunks.R).
chunk_size_option <- function() {
  v <- mcmix_option("chunk_size")   # R/options.R
  if (is.null(v)) NA_integer_ else v
}
