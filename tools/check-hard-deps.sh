#!/bin/sh
# R CMD check --as-cran with only the hard dependencies installed, as CRAN's
# check without the suggested packages: the library seen by the check holds
# the packages of Depends and Imports (and theirs) and R's own library
# (base and recommended packages), no site or user library (nor the site
# Renviron file, which may add one), and
# _R_CHECK_FORCE_SUGGESTS_=false. Examples, tests and vignettes must skip
# what needs a suggested package. The tarball is built first in the usual
# libraries (with its vignettes, as for a submission).
# Usage: tools/check-hard-deps.sh [tarball]
# HARDDEPS_DIR: where the library and the check go (default .harddeps).
set -e
DIR=${HARDDEPS_DIR:-$(pwd)/.harddeps}
RSCRIPT=${RSCRIPT:-Rscript}
R=${R:-R}
rm -rf "$DIR"
mkdir -p "$DIR/lib" "$DIR/empty"
: > "$DIR/Renviron.site"   # no site file: it may add site libraries
# The non-base hard dependencies, recursively, linked from where they are
# installed (never installed or changed here).
"$RSCRIPT" -e '
  lib <- commandArgs(TRUE)[1]
  d <- read.dcf("DESCRIPTION", c("Depends", "Imports", "LinkingTo"))
  need <- unique(unlist(tools:::.extract_dependency_package_names(paste(d[!is.na(d)], collapse = ","))))
  need <- setdiff(need, "R")
  db <- installed.packages()
  seen <- character()
  while (length(need)) {
    p <- need[1L]; need <- need[-1L]
    if (p %in% seen) next
    seen <- c(seen, p)
    if (!p %in% rownames(db)) stop("hard dependency ", p, " is not installed")
    if (db[p, "LibPath"] == .Library) next      # base and recommended
    file.symlink(file.path(db[p, "LibPath"], p), file.path(lib, p))
    deps <- db[p, c("Depends", "Imports", "LinkingTo")]
    need <- c(need, setdiff(unlist(tools:::.extract_dependency_package_names(
      paste(deps[!is.na(deps)], collapse = ","))), "R"))
  }
  cat("hard dependencies linked:", paste(list.files(lib), collapse = ", "), "\n")
' "$DIR/lib"
# --as-cran looks up the missing suggested packages in CRAN's package
# database (whether they are orphaned), which machines that reach only a
# package mirror cannot fetch: unless R_CRAN_WEB names CRAN's web area, a
# local one lists the suggested packages as maintained (not looked up).
if [ -z "$R_CRAN_WEB" ]; then
  mkdir -p "$DIR/cranweb/web/packages"
  "$RSCRIPT" -e '
    s <- read.dcf("DESCRIPTION", "Suggests")[1, 1]
    p <- unlist(tools:::.extract_dependency_package_names(s))
    saveRDS(data.frame(Package = p, Maintainer = "(not looked up)"),
            file.path(commandArgs(TRUE)[1], "web", "packages", "packages.rds"))
  ' "$DIR/cranweb"
  R_CRAN_WEB="file://$DIR/cranweb"
  export R_CRAN_WEB
fi
if [ -n "$1" ]; then
  TARBALL=$1
else
  VERSION=$(sed -n 's/^Version: *//p' DESCRIPTION)
  rm -f "mcmix_$VERSION.tar.gz"
  "$R" CMD build --no-manual .
  TARBALL=mcmix_$VERSION.tar.gz
fi
rm -f src/*.o src/*.so
# the library the check sees, shown for the record
R_LIBS="$DIR/lib" R_LIBS_USER="$DIR/empty" R_LIBS_SITE="$DIR/empty" R_ENVIRON="$DIR/Renviron.site" \
  "$RSCRIPT" -e 'cat("libraries:", .libPaths(), "\n"); cat("testthat:", requireNamespace("testthat", quietly = TRUE), "knitr:", requireNamespace("knitr", quietly = TRUE), "\n")'
R_LIBS="$DIR/lib" R_LIBS_USER="$DIR/empty" R_LIBS_SITE="$DIR/empty" R_ENVIRON="$DIR/Renviron.site" \
  _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_ORPHANED_=false \
  "$R" CMD check --as-cran --no-manual --output="$DIR" "$TARBALL"
