# The test suite needs testthat, a suggested package: a check with only the
# hard dependencies installed (tools/check-hard-deps.sh, CRAN's check
# without the suggested packages) skips it and says so.
if (requireNamespace("testthat", quietly = TRUE)) {
  library(testthat)
  library(mcmix)
  test_check("mcmix")
} else {
  message("The tests of mcmix need the suggested package testthat: skipped.")
}
