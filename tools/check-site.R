#!/usr/bin/env Rscript
## Build the pkgdown site and check every page in headless Chromium.
##
## Usage: Rscript tools/check-site.R [destination] [--no-build]
##   destination  where the site is built (default docs/)
##   --no-build   check an existing site only
##
## Uses the installed mcmix (make site installs it first) and pkgdown; fails
## (exit status 1) when
##   * pkgdown warns while building (reference topics, examples, articles),
##   * a page has a link or image pointing inside the site at a file that
##     does not exist,
##   * a page does not load in headless Chromium, or one of its images or
##     other resources inside the site fails to load there (each page is
##     loaded from a copy that reports, from the page's load event, its
##     failed resources and broken images),
##   * an article has no rendered plot although its source has plot code.
## Resources outside the site (fonts and scripts from CDNs) are not checked:
## the check runs without network access.
args <- commandArgs(trailingOnly = TRUE)
build <- !"--no-build" %in% args
args <- setdiff(args, "--no-build")
dest <- if (length(args)) args[[1L]] else "docs"

for (p in c("pkgdown", "xml2"))
  if (!requireNamespace(p, quietly = TRUE))
    stop("the site needs the ", p, " package: Rscript tools/install-deps.R site")
chromium <- Sys.which(c("chromium", "chromium-browser", "google-chrome"))
chromium <- chromium[nzchar(chromium)][1L]
if (is.na(chromium))
  stop("headless Chromium not found: Rscript tools/install-deps.R site")

problems <- character()
problem <- function(...) problems <<- c(problems, paste0(...))

## ---- build ---------------------------------------------------------------
## The site does not look mcmix up on CRAN or Bioconductor (pkgdown would,
## for a link in the sidebar): the build is the same with or without network.
options(pkgdown.internet = FALSE)
if (build) {
  warns <- character()
  withCallingHandlers(
    pkgdown::build_site(".", examples = TRUE, lazy = FALSE, preview = FALSE,
                        new_process = FALSE, install = FALSE, devel = FALSE,
                        override = list(destination = dest)),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  for (w in unique(warns)) problem("pkgdown warning: ", w)
}
dest <- normalizePath(dest, mustWork = TRUE)
pages <- list.files(dest, pattern = "[.]html$", recursive = TRUE)
pages <- pages[!grepl("^(deps|lib)/", pages)]
if (!length(pages)) stop("no pages in ", dest)

## ---- the reference index: topics not yet placed in a section -------------
idx <- file.path(dest, "reference", "index.html")
if (file.exists(idx)) {
  doc <- xml2::read_html(idx)
  other <- xml2::xml_find_first(doc, "//*[@id='other-functions']")
  if (!inherits(other, "xml_missing")) {
    sec <- xml2::xml_find_all(other, "./ancestor-or-self::*[self::section or self::div][1]//dt//a | ./following-sibling::dl[1]//dt//a")
    left <- unique(xml2::xml_text(sec))
    if (length(left))
      message("NOTE: topics in 'Other functions' of the reference index (place them ",
              "in a section of _pkgdown.yml): ", paste(left, collapse = ", "))
  }
}

## ---- static check: internal links and images point at existing files ----
is_internal <- function(u) {
  !is.na(u) & nzchar(u) & !grepl("^[a-zA-Z][a-zA-Z0-9+.-]*:", u) & !startsWith(u, "//") &
    !startsWith(u, "#")
}
n_links <- 0L
for (page in pages) {
  doc <- xml2::read_html(file.path(dest, page))
  refs <- c(xml2::xml_attr(xml2::xml_find_all(doc, "//a[@href]"), "href"),
            xml2::xml_attr(xml2::xml_find_all(doc, "//img[@src]"), "src"),
            xml2::xml_attr(xml2::xml_find_all(doc, "//link[@href]"), "href"),
            xml2::xml_attr(xml2::xml_find_all(doc, "//script[@src]"), "src"))
  refs <- unique(refs[is_internal(refs)])
  n_links <- n_links + length(refs)
  for (r in refs) {
    path <- utils::URLdecode(sub("[?#].*$", "", r))
    if (!nzchar(path)) next
    target <- file.path(dirname(file.path(dest, page)), path)
    if (dir.exists(target)) target <- file.path(target, "index.html")
    if (!file.exists(target)) problem(page, ": broken internal link or image '", r, "'")
  }
}

## ---- articles show their plots -------------------------------------------
for (rmd in list.files("vignettes", pattern = "[.]Rmd$")) {
  page <- file.path("articles", sub("[.]Rmd$", ".html", rmd))
  if (!file.exists(file.path(dest, page))) {
    problem(page, ": article not built from vignettes/", rmd)
    next
  }
  src <- readLines(file.path("vignettes", rmd), warn = FALSE)
  plots <- any(grepl("^\\s*(plot|hist|barplot|image|plot_[a-z]+|bayesplot::|pp_check)\\(|\\bplot\\(",
                     src))
  imgs <- xml2::xml_find_all(xml2::read_html(file.path(dest, page)), "//main//img")
  if (plots && !length(imgs)) problem(page, ": no plot rendered")
}

## ---- headless Chromium: every page loads with its images -----------------
## Each page is loaded from a copy of the site in which the page reports, in
## an attribute of <html> set at its load event, the resources inside the
## site that failed to load and the images without pixels.
probe <- paste0(
  "<script>(function(){var bad=[];",
  "window.addEventListener('error',function(e){var t=e.target||{};",
  "var u=t.src||t.href;if(u&&u.indexOf('file:')===0)bad.push('failed: '+u);},true);",
  "window.addEventListener('load',function(){",
  "Array.prototype.forEach.call(document.images,function(i){",
  "if(i.src.indexOf('file:')===0&&(!i.complete||i.naturalWidth===0))bad.push('image: '+i.src);});",
  "document.documentElement.setAttribute('data-site-check',",
  "JSON.stringify({loaded:true,title:document.title,bad:bad}));});})();</script>")
copy <- tempfile("site-check-")
dir.create(copy)
file.copy(list.files(dest, full.names = TRUE, all.files = TRUE, no.. = TRUE), copy,
          recursive = TRUE)
profile <- tempfile("chromium-profile-")
on.exit(unlink(c(copy, profile), recursive = TRUE), add = TRUE)
flags <- c("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--disable-extensions", "--allow-file-access-from-files",
           paste0("--user-data-dir=", profile), "--virtual-time-budget=15000",
           "--dump-dom")
for (page in pages) {
  f <- file.path(copy, page)
  html <- readLines(f, warn = FALSE, encoding = "UTF-8")
  head_at <- grep("<head[^>]*>", html)[1L]
  if (is.na(head_at)) {
    problem(page, ": no <head>")
    next
  }
  html[head_at] <- sub("(<head[^>]*>)", paste0("\\1", probe), html[head_at])
  writeLines(html, f, useBytes = TRUE)
  out <- suppressWarnings(system2(chromium, c(flags, shQuote(paste0("file://", f))),
                                  stdout = TRUE, stderr = FALSE, timeout = 90))
  status <- attr(out, "status")
  dom <- paste(out, collapse = "\n")
  m <- regmatches(dom, regexpr("data-site-check=\"[^\"]*\"", dom))
  if (!is.null(status) && status != 0L) {
    problem(page, ": Chromium exited with status ", status)
  } else if (!length(m)) {
    problem(page, ": did not finish loading in Chromium")
  } else {
    json <- gsub("&quot;", "\"", sub("^data-site-check=\"(.*)\"$", "\\1", m), fixed = TRUE)
    json <- gsub("&amp;", "&", json, fixed = TRUE)
    bad <- regmatches(json, gregexpr("(failed|image): [^\"]*", json))[[1L]]
    for (b in bad) problem(page, ": in Chromium, ", sub(paste0("file://", copy, "/"), "", b,
                                                        fixed = TRUE))
  }
}

cat(sprintf("site %s: %d pages, %d internal links and images checked, %d pages loaded in %s\n",
            dest, length(pages), n_links, length(pages), basename(chromium)))
if (length(problems)) {
  cat(paste0("  ", problems), sep = "\n")
  cat(sprintf("%d problems\n", length(problems)))
  quit(status = 1L)
}
cat("no problems\n")
