#!/usr/bin/env Rscript
## Install the peer packages of the large-data benchmark (bench-scale.R)
## into the first library of .libPaths(), from CRAN, with the ordinary
## clients only.
##
## BNPmix 1.2.3 imports ggpubr only for one branch of its plot() method, and
## ggpubr's current dependency chain needs R >= 4.4 (older ggpubr tarballs
## are not served). On R < 4.4 BNPmix is therefore installed from its CRAN
## source tarball with `ggpubr` moved from Imports to Suggests and
## `importFrom(ggpubr, ggarrange)` dropped from its NAMESPACE; its samplers
## are unchanged. bench/RESULTS.md says so.

have <- function(p) nzchar(system.file(package = p))
repos <- getOption("repos")
if (is.null(repos) || identical(unname(repos["CRAN"]), "@CRAN@"))
  repos <- c(CRAN = "https://cloud.r-project.org")
lib <- .libPaths()[1L]

install_bnpmix <- function() {
  if (have("BNPmix")) return(invisible("installed"))
  if (getRversion() >= "4.4.0") {
    utils::install.packages("BNPmix", repos = repos, lib = lib)
    return(invisible("cran"))
  }
  dir <- tempfile("bnpmix")
  dir.create(dir)
  tb <- utils::download.packages("BNPmix", destdir = dir, repos = repos,
                                 type = "source")[1L, 2L]
  utils::untar(tb, exdir = dir)
  pkg <- file.path(dir, "BNPmix")
  d <- read.dcf(file.path(pkg, "DESCRIPTION"), keep.white = TRUE)
  drop_dep <- function(field, name)
    gsub(sprintf(",?\\s*%s(\\s*\\([^)]*\\))?", name), "", field)
  d[, "Imports"] <- sub("^\\s*,\\s*", "", drop_dep(d[, "Imports"], "ggpubr"))
  sug <- if ("Suggests" %in% colnames(d)) d[, "Suggests"] else NA
  if (is.na(sug)) d <- cbind(d, Suggests = "ggpubr")
  else d[, "Suggests"] <- paste0(sug, ", ggpubr")
  write.dcf(d, file.path(pkg, "DESCRIPTION"), keep.white = colnames(d))
  ns <- readLines(file.path(pkg, "NAMESPACE"))
  writeLines(ns[!grepl("ggpubr", ns)], file.path(pkg, "NAMESPACE"))
  # its remaining Depends / Imports / LinkingTo, from CRAN
  fields <- intersect(c("Depends", "Imports", "LinkingTo"), colnames(d))
  deps <- unlist(lapply(d[, fields], function(f) trimws(sub("\\(.*", "", strsplit(f, ",")[[1L]]))))
  deps <- setdiff(deps[nzchar(deps)], c("R", rownames(utils::installed.packages(priority = "base"))))
  need <- deps[!vapply(deps, have, logical(1))]
  if (length(need)) utils::install.packages(need, repos = repos, lib = lib, Ncpus = 2L)
  utils::install.packages(pkg, repos = NULL, type = "source", lib = lib)
  invisible(if (have("BNPmix")) "patched (ggpubr import dropped)" else "failed")
}

how <- tryCatch(install_bnpmix(), error = function(e) {
  message("BNPmix not installed: ", conditionMessage(e))
  "failed"
})
cat("BNPmix:", how, if (have("BNPmix")) as.character(utils::packageVersion("BNPmix")), "\n")
