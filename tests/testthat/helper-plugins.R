# Install one of the example plugin packages shipped with mcmix
# (inst/plugins/<name>, installed as system.file("plugins", <name>,
# package = "mcmix")) into a temporary library (once per session) and load
# its namespace. Skips when not possible (on CRAN, no compiler, mcmix
# installed without its header); the example packages are always installed.
plugin_cache <- new.env(parent = emptyenv())

install_test_plugin <- function(name) {
  if (!is.null(plugin_cache[[name]])) return(plugin_cache[[name]])
  testthat::skip_on_cran()
  header <- base::system.file("include", "mcmix.h", package = "mcmix")
  if (!nzchar(header)) testthat::skip("mcmix is installed without its header")
  src <- base::system.file("plugins", name, package = "mcmix")
  if (!nzchar(src))
    stop("mcmix is installed without its example plugin packages (inst/plugins)")
  if (!nzchar(Sys.which("make"))) testthat::skip("`make` not found")
  cc <- tryCatch(suppressWarnings(system2(file.path(R.home("bin"), "R"),
                                          c("CMD", "config", "CC"),
                                          stdout = TRUE, stderr = FALSE)),
                 error = function(e) "")
  cc <- strsplit(trimws(paste(cc, collapse = " ")), "[[:space:]]+")[[1]][1]
  if (is.na(cc) || !nzchar(Sys.which(cc))) testthat::skip("no C compiler found")
  tmp <- tempfile(paste0(name, "-"))
  dir.create(tmp)
  file.copy(src, tmp, recursive = TRUE)
  lib <- file.path(tmp, "lib")
  dir.create(lib)
  libs <- paste(c(lib, .libPaths()), collapse = .Platform$path.sep)
  out <- suppressWarnings(system2(
    file.path(R.home("bin"), "R"),
    c("CMD", "INSTALL", "--no-test-load", paste0("--library=", shQuote(lib)),
      shQuote(file.path(tmp, name))),
    stdout = TRUE, stderr = TRUE, env = paste0("R_LIBS=", shQuote(libs))))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0L)
    stop("installing the plugin package ", name, " failed:\n",
         paste(out, collapse = "\n"))
  plugin_cache[[name]] <- loadNamespace(name, lib.loc = lib)
  plugin_cache[[name]]
}
