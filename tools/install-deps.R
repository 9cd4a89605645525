#!/usr/bin/env Rscript
## Install what mcmix needs to build, test and check, and nothing by hand.
##
## Usage: Rscript tools/install-deps.R [core|test|check|site|bench]
##   core   packages needed to install and run mcmix (Imports)
##   test   + testthat and the Suggests used by the tests
##   check  + roxygen2, knitr, rmarkdown, pandoc, qpdf (R CMD check --as-cran)
##   site   check + pkgdown and headless Chromium (make site)
##   bench  check + the peer packages compared in bench/
##   peers  check + topicmodels, a declared Suggests used only with peers
##          (make check; BNPmix comes from bench/install-peers.R)
##
## Debian's prebuilt r-cran-* packages are used when apt-get is available and
## we are root (fast); otherwise packages are built from CRAN sources.

args <- commandArgs(trailingOnly = TRUE)
level <- if (length(args)) args[[1L]] else "test"
## each level installs its own packages and those of the levels it builds on
levels <- list(core  = "core",
               test  = c("core", "test"),
               check = c("core", "test", "check"),
               site  = c("core", "test", "check", "site"),
               bench = c("core", "test", "check", "bench"),
               peers = c("core", "test", "check", "peers"))
if (!level %in% names(levels))
  stop("unknown level '", level, "'; use one of ", paste(names(levels), collapse = ", "))
parts <- levels[[level]]

pkgs <- list(
  core  = c("coda"),
  test  = c("testthat", "posterior", "future.apply", "future", "mcclust", "poLCA",
            "bridgesampling", "progressr", "bayesplot", "withr", "MASS", "slam", "tm",
            "loo", "generics", "rstantools", "tibble", "gridExtra"),
  check = c("roxygen2", "knitr", "rmarkdown"),
  site  = c("pkgdown", "xml2"),
  peers = c("topicmodels"),
  bench = c("mcmc", "mcclust", "BNPmix", "dirichletprocess", "lda", "text2vec", "topicmodels",
            "bench")
)
want <- unique(unlist(pkgs[parts]))
## command-line tools, named by the Debian package that provides them
system_deps <- c(if ("check" %in% parts) c(pandoc = "pandoc", qpdf = "qpdf"),
                 if ("site" %in% parts) c(chromium = "chromium"),
                 # topicmodels (from CRAN source: Debian has no r-cran-topicmodels) needs GSL
                 if (any(c("bench", "peers") %in% parts)) c("gsl-config" = "libgsl-dev"))

have <- function(p) nzchar(system.file(package = p))
missing <- want[!vapply(want, have, logical(1))]
missing_tools <- system_deps[!nzchar(Sys.which(names(system_deps)))]
need_tools <- length(missing_tools) > 0L

is_root <- identical(unname(Sys.info()[["effective_user"]]), "root")
apt <- nzchar(Sys.which("apt-get")) && is_root

if (apt && (length(missing) || need_tools)) {
  debs <- c(paste0("r-cran-", tolower(missing)), missing_tools)
  ## keep only the names Debian actually has
  system2("apt-get", c("update", "-qq"), stdout = FALSE, stderr = FALSE)
  known <- vapply(debs, function(d) {
    out <- suppressWarnings(system2("apt-cache", c("show", "--no-all-versions", d),
                                    stdout = TRUE, stderr = FALSE))
    length(out) > 0L
  }, logical(1))
  if (any(known)) {
    message("apt-get install: ", paste(debs[known], collapse = " "))
    status <- system2("apt-get", c("install", "-y", "-qq", "--no-install-recommends",
                                   debs[known]),
                      env = "DEBIAN_FRONTEND=noninteractive")
    if (status != 0L) message("apt-get failed; falling back to CRAN")
  }
  missing <- want[!vapply(want, have, logical(1))]
}

if (length(missing)) {
  message("install.packages (CRAN): ", paste(missing, collapse = " "))
  repos <- getOption("repos")
  if (is.null(repos) || identical(unname(repos["CRAN"]), "@CRAN@"))
    repos <- c(CRAN = "https://cloud.r-project.org")
  lib <- .libPaths()[1L]
  try(utils::install.packages(missing, repos = repos, lib = lib,
                              Ncpus = 2L, quiet = TRUE))
  still <- missing[!vapply(missing, have, logical(1))]
  ## lda >= 1.5 needs R >= 4.3: the last release for older R from the archive
  if ("lda" %in% still && getRversion() < "4.3.0") {
    try(utils::install.packages(
      paste0(repos[["CRAN"]], "/src/contrib/Archive/lda/lda_1.4.2.tar.gz"),
      repos = NULL, type = "source", lib = lib, quiet = TRUE))
    still <- missing[!vapply(missing, have, logical(1))]
  }
  ## bench peers are optional; the rest is required
  required <- setdiff(still, c(pkgs$bench, pkgs$peers))
  if (length(still)) message("not installed: ", paste(still, collapse = " "))
  if (length(required)) quit(status = 1L)
}
still_tools <- system_deps[!nzchar(Sys.which(names(system_deps)))]
if (length(still_tools))
  message("not available: ", paste(still_tools, collapse = " "),
          " (pandoc builds the vignettes; qpdf checks PDF sizes; chromium checks the site;",
          " libgsl-dev builds the bench peer topicmodels)")
invisible(TRUE)
