# A suggested package that a test needs. tools/install-deps.R (level "test")
# installs every one of them, so a missing package is an error of the test
# set-up, not a reason to skip: the test fails and says how to install it.
require_suggested <- function(pkg) {
  if (!requireNamespace(pkg, quietly = TRUE))
    stop(sprintf(paste0("package '%s' is needed by this test; install the test ",
                        "dependencies with `Rscript tools/install-deps.R test`."), pkg),
         call. = FALSE)
  invisible(TRUE)
}
