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
##   * an article has no rendered plot although its source has plot code,
##   * an example or article prints a summary with R-hat above 1.01.
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
## Nor does downlit look up on CRAN the packages that code in the articles
## loads but that are not installed (the example plugin packages of the
## plugins vignette): their names are simply not linked.
if (exists("CRAN_urls", envir = asNamespace("downlit"), inherits = FALSE))
  utils::assignInNamespace("CRAN_urls", function()
    data.frame(Package = character(), URL = character()), ns = "downlit")
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
## Two fixes of the pages pkgdown 2.0.7 writes: it puts an empty logo image
## (<img src="">) into the title of every page of a package without a logo
## (a logo would make it fetch favicons from a web service), and Debian's
## pkgdown loads MathJax from a file of this machine
## (file:///usr/share/javascript/mathjax/MathJax.js), which a reader of the
## site does not have: load it from the CDN that upstream pkgdown uses (the
## integrity hash in the page is that of this file).
for (page in pages) {
  f <- file.path(dest, page)
  html <- readLines(f, warn = FALSE, encoding = "UTF-8")
  fixed <- gsub('<img src="" class="logo" alt="">', "", html, fixed = TRUE)
  fixed <- gsub("file:///usr/share/javascript/mathjax/MathJax.js",
                "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.5/MathJax.js",
                fixed, fixed = TRUE)
  if (!identical(fixed, html)) writeLines(fixed, f, useBytes = TRUE)
}

## ---- the reference index: topics not yet placed in a section -------------
## The last section of _pkgdown.yml is the untitled catch-all (all topics
## minus those of the sections above); name what it holds.
left <- tryCatch({
  pkg <- pkgdown::as_pkgdown(".")
  last <- pkg$meta$reference[[length(pkg$meta$reference)]]
  if (is.null(last$title))
    pkg$topics$name[pkgdown:::select_topics(last$contents, pkg$topics)]
}, error = function(e) NULL)
if (length(left))
  message("NOTE: topics not yet placed in a section of _pkgdown.yml (listed at the end ",
          "of the reference index): ", paste(left, collapse = ", "))

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
  local <- unique(refs[!is.na(refs) & grepl("^file:", refs, ignore.case = TRUE)])
  for (r in local) problem(page, ": link to a file of this machine '", r, "'")
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

## ---- examples and articles show converged runs ----------------------------
for (page in pages) {
  txt <- readLines(file.path(dest, page), warn = FALSE, encoding = "UTF-8")
  if (any(grepl("R-hat above 1.01", txt, fixed = TRUE)))
    problem(page, ": shows a run that has not converged (R-hat above 1.01): run it longer")
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
## One Chromium process loads a driver page that opens every page of a copy
## of the site in an iframe, one after the other. Each copied page carries a
## probe that records, at its load event, the resources inside the site that
## failed to load; the driver adds the images without pixels and writes one
## line per page into its own DOM, which Chromium prints at the end.
probe <- paste0(
  "<script>(function(){var bad=[];",
  "window.addEventListener('error',function(e){var t=e.target||{};",
  "var u=t.src||t.href;if(u&&u.indexOf('file:')===0)bad.push('failed to load '+u);},true);",
  "window.addEventListener('load',function(){",
  "document.documentElement.setAttribute('data-site-check',bad.join(' | ')||'ok');});",
  "})();</script>")
driver <- paste0(
  "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>",
  "<iframe id='f' style='width:1200px;height:900px'></iframe><pre id='out'></pre>",
  "<script>var pages=", "%s", ";var i=0,f=document.getElementById('f'),",
  "out=document.getElementById('out');",
  "function report(p,msg){out.appendChild(document.createTextNode(p+'\\t'+msg+'\\n'));}",
  "function next(){if(i>=pages.length){out.setAttribute('data-done','1');return;}",
  "var p=pages[i++],seen=false;",
  "f.onload=function(){if(seen)return;seen=true;var msg;",
  "try{var d=f.contentDocument,st=d.documentElement.getAttribute('data-site-check');",
  "if(st===null){msg='did not load';}else{var bad=st==='ok'?[]:[st];",
  "Array.prototype.forEach.call(d.images,function(im){",
  "if(!im.complete||im.naturalWidth===0)bad.push('broken image '+(im.getAttribute('src')||'(empty src)'));});",
  "msg=bad.length?bad.join(' | '):'ok';}}catch(e){msg='did not load ('+e+')';}",
  "report(p,msg);setTimeout(next,0);};f.src=p;}",
  "next();</script></body></html>")
copy <- tempfile("site-check-")
dir.create(copy)
invisible(file.copy(list.files(dest, full.names = TRUE, all.files = TRUE, no.. = TRUE), copy,
                    recursive = TRUE))
profile <- tempfile("chromium-profile-")
on.exit(unlink(c(copy, profile), recursive = TRUE), add = TRUE)
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
}
js_pages <- paste0("[", paste0("'", gsub("'", "\\\\'", pages), "'", collapse = ","), "]")
driver_file <- file.path(copy, "__site_check__.html")
writeLines(sprintf(driver, js_pages), driver_file)
flags <- c("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--disable-extensions", "--allow-file-access-from-files",
           "--disable-web-security", paste0("--user-data-dir=", profile),
           "--virtual-time-budget=3600000", "--dump-dom")
t0 <- proc.time()[["elapsed"]]
out <- suppressWarnings(system2(chromium, c(flags, shQuote(paste0("file://", driver_file))),
                                stdout = TRUE, stderr = FALSE, timeout = 1200))
status <- attr(out, "status")
loaded <- character()
if (!is.null(status) && status != 0L) {
  problem("Chromium exited with status ", status, " (124: timed out)")
} else {
  pre <- xml2::xml_find_first(xml2::read_html(paste(out, collapse = "\n")), "//pre[@id='out']")
  if (inherits(pre, "xml_missing") || is.na(xml2::xml_attr(pre, "data-done")))
    problem("Chromium did not get through the pages")
  if (!inherits(pre, "xml_missing")) {
    lines <- strsplit(xml2::xml_text(pre), "\n", fixed = TRUE)[[1L]]
    lines <- lines[nzchar(lines)]
    res <- do.call(rbind, strsplit(lines, "\t", fixed = TRUE))
    if (length(res)) {
      loaded <- res[res[, 2L] == "ok", 1L]
      for (k in which(res[, 2L] != "ok"))
        problem(res[k, 1L], ": in Chromium, ", gsub(paste0("file://", copy, "/"), "",
                                                     res[k, 2L], fixed = TRUE))
    }
    for (p in setdiff(pages, res[, 1L])) problem(p, ": not reached in Chromium")
  }
}

cat(sprintf("site %s: %d pages, %d internal links and images checked, %d pages loaded in %s (%.0f s)\n",
            dest, length(pages), n_links, length(loaded), basename(chromium),
            proc.time()[["elapsed"]] - t0))
if (length(problems)) {
  cat(paste0("  ", problems), sep = "\n")
  cat(sprintf("%d problems\n", length(problems)))
  quit(status = 1L)
}
cat("no problems\n")
