#!/usr/bin/env Rscript
## Is the installed mcmix built from the sources in this tree?
##
## Usage: Rscript tools/install-stamp.R check|write
##   check  exit 0 when the installed mcmix carries the stamp of the current
##          sources (so `make install` can skip the build), 1 otherwise
##   write  record the stamp of the current sources in the installed package
##
## The stamp is an MD5 hash over the R version and the path and content of
## every file that R CMD build puts into the tarball, except the tests,
## which are run from the tree (tools/run-tests.R) and so need no new build.
## It is kept in the installed package (file "source-stamp"), so another
## install of mcmix from other sources invalidates it. With CI=true the
## check always fails: CI tests a fresh build.
args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args)) args[[1L]] else "check"
if (!mode %in% c("check", "write")) stop("usage: install-stamp.R check|write")

source_stamp <- function(top = ".") {
  files <- list.files(top, recursive = TRUE, all.files = TRUE, no.. = TRUE)
  ignore <- c(readLines(file.path(top, ".Rbuildignore"), warn = FALSE),
              "^tests/", "^\\.git", "(^|/)\\.Rhistory$", "\\.(o|so|dll)$",
              "^docs/", "^\\.install-stamp")
  ignore <- ignore[nzchar(trimws(ignore))]
  ## as R CMD build: a file is left out when its path or the path of any
  ## folder above it matches a pattern
  parts <- strsplit(files, "/", fixed = TRUE)
  prefixes <- unlist(lapply(parts, function(p)
    vapply(seq_along(p), function(k) paste(p[seq_len(k)], collapse = "/"), "")))
  owner <- rep(seq_along(files), lengths(parts))
  hit <- Reduce(`|`, lapply(ignore, function(p)
    grepl(p, prefixes, perl = TRUE, ignore.case = TRUE)), FALSE)
  drop <- seq_along(files) %in% owner[hit]
  files <- sort(files[!drop])
  sums <- unname(tools::md5sum(file.path(top, files)))
  lines <- c(R.version.string, paste(files, sums))
  tmp <- tempfile()
  on.exit(unlink(tmp))
  writeLines(lines, tmp)
  unname(tools::md5sum(tmp))
}

installed <- system.file(package = "mcmix")
stamp_file <- if (nzchar(installed)) file.path(installed, "source-stamp") else ""

if (mode == "write") {
  if (!nzchar(installed)) stop("mcmix is not installed")
  writeLines(source_stamp(), stamp_file)
  quit(status = 0L)
}
if (identical(tolower(Sys.getenv("CI")), "true")) quit(status = 1L)
ok <- nzchar(stamp_file) && file.exists(stamp_file) &&
  identical(readLines(stamp_file, warn = FALSE)[1L], source_stamp())
if (ok) message("mcmix installed in ", dirname(installed),
                " is up to date with the sources; not rebuilt (make FORCE=1 rebuilds)")
quit(status = if (ok) 0L else 1L)
