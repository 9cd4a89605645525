# A suggested package that a test needs. tools/install-deps.R (level "test")
# installs every one of them, so a missing package is an error of the test
# set-up, not a reason to skip: the test fails and says how to install it.
# Except under R CMD check told that suggested packages may be missing
# (_R_CHECK_FORCE_SUGGESTS_=false, as CRAN's check without them and
# tools/check-hard-deps.sh): there the test is skipped.
require_suggested <- function(pkg) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    if (tolower(Sys.getenv("_R_CHECK_FORCE_SUGGESTS_", "true")) %in% c("false", "0", "no"))
      testthat::skip(sprintf("suggested package '%s' is not installed", pkg))
    stop(sprintf(paste0("package '%s' is needed by this test; install the test ",
                        "dependencies with `Rscript tools/install-deps.R test`."), pkg),
         call. = FALSE)
  }
  invisible(TRUE)
}
