# A component family added from outside: the small package under
# tests/testthat/plugins/mcmixexpgamma includes <mcmix.h>, registers
# "exponential_gamma" through R_GetCCallable("mcmix", ...) when its shared
# library is loaded, and is then used by name like a built-in family.
#
# The package is copied to a temporary directory, installed there with
# `R CMD INSTALL` of the running R, and loaded once per test run (its
# descriptor stays registered for the session, so it is never unloaded).

plugin_env <- new.env(parent = emptyenv())

plugin_skip_reasons <- function() {
  header <- base::system.file("include", "mcmix.h", package = "mcmix",
                              lib.loc = .libPaths())
  if (!nzchar(header))
    return("mcmix is not installed with its header (needed for LinkingTo)")
  r <- file.path(R.home("bin"), "R")
  cc <- tryCatch(suppressWarnings(system2(r, c("CMD", "config", "CC"),
                                          stdout = TRUE, stderr = FALSE)),
                 error = function(e) "")
  cc <- strsplit(trimws(paste(cc, collapse = " ")), "[[:space:]]+")[[1]][1]
  if (is.na(cc) || !nzchar(Sys.which(cc)))
    return("no C compiler found")
  if (!nzchar(Sys.which("make")))
    return("`make` not found")
  NULL
}

# Install (once) and load the plugin; returns its namespace.
plugin_ns <- function() {
  if (!is.null(plugin_env$ns)) return(plugin_env$ns)
  if (!is.null(plugin_env$skip)) testthat::skip(plugin_env$skip)
  testthat::skip_on_cran()
  reason <- plugin_skip_reasons()
  if (!is.null(reason)) {
    plugin_env$skip <- reason
    testthat::skip(reason)
  }
  if (!"mcmix_family" %in% getNamespaceExports("mcmix"))
    testthat::skip("mcmix does not export mcmix_family() yet")
  # build from a copy, so no object files are left in the source tree
  tmp <- tempfile("mcmix-plugin-")
  dir.create(tmp)
  file.copy(testthat::test_path("plugins", "mcmixexpgamma"), tmp, recursive = TRUE)
  lib <- file.path(tmp, "lib")
  dir.create(lib)
  libs <- paste(c(lib, .libPaths()), collapse = .Platform$path.sep)
  out <- suppressWarnings(system2(
    file.path(R.home("bin"), "R"),
    c("CMD", "INSTALL", "--no-test-load", paste0("--library=", shQuote(lib)),
      shQuote(file.path(tmp, "mcmixexpgamma"))),
    stdout = TRUE, stderr = TRUE, env = paste0("R_LIBS=", shQuote(libs))))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0L)
    stop("installing the plugin package failed:\n", paste(out, collapse = "\n"))
  plugin_env$ns <- loadNamespace("mcmixexpgamma", lib.loc = lib)
  plugin_env$ns
}

family_names <- function() {
  f <- mcmix::mcmix_families()
  if (is.data.frame(f)) as.character(f$name) else as.character(f)
}

test_that("the plugin family is registered and listed by mcmix_families()", {
  plugin_ns()
  expect_true("exponential_gamma" %in% family_names())
  # the built-in families are still there
  expect_true(all(c("gaussian_niw", "poisson_gamma") %in% family_names()))
})

test_that("a plugin built for another ABI version is refused with a clear error", {
  ns <- plugin_ns()
  expect_error(ns$register_bad_abi(), "ABI version")
  expect_false("exponential_gamma_future" %in% family_names())
})

test_that("the plugin's R constructor validates its input and builds a family", {
  ns <- plugin_ns()
  fam <- ns$exponential_gamma(shape = 2, rate = 3)
  expect_s3_class(fam, "mcmix_family")
  expect_error(ns$exponential_gamma(shape = -1), "`shape`")
  expect_error(ns$exponential_gamma(rate = NA), "`rate`")
})
