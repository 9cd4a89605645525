# The documentation says what the code does: defaults named in the help
# pages and vignettes, citations, the installed example packages and the
# package's citation entry.

test_that("the DP algorithms in the usage of sample_posterior() are those of the sampler table", {
  algs <- eval(formals(mcmix:::sample_posterior.mcmix_dp_mixture)$algorithm)
  expect_setequal(algs, names(mcmix:::dp_algorithms))
})

test_that("the default DP algorithm is the one the docs name: split_merge, subcluster from 20,000 observations", {
  set.seed(1)
  x <- c(rnorm(10), rnorm(10, 5))
  m <- dp_mixture(gaussian_niw(), alpha = 1)
  expect_identical(sample_posterior(m, x, iter = 4, progress = FALSE)$algorithm, "split_merge")
  big <- withr::with_options(list(mcmix.subcluster_min_n = 20),
                             sample_posterior(m, x, iter = 4, progress = FALSE))
  expect_identical(big$algorithm, "subcluster")
  # a non-conjugate family: the collapsed sampler is not for it, and says so
  expect_error(sample_posterior(dp_mixture(gaussian_nonconj(), alpha = 1), x, iter = 4,
                                progress = FALSE), "neal8")
})

test_that("adapt_haario() keeps adapting over the kept iterations by default (samplers vignette)", {
  expect_identical(adapt_haario()$during, "always")
  expect_identical(adapt_haario(during = "burnin")$during, "burnin")
})

test_that("no help page cites the reference texts by file number", {
  db <- tools::Rd_db("mcmix")
  txt <- vapply(db, function(rd) paste(as.character(rd), collapse = ""), "")
  hits <- names(txt)[grepl("reference (text |file )?0[0-9][0-9]|\\b00[0-4], section", txt)]
  expect_identical(hits, character())
})

test_that("the usage of every help page names only objects a user can see", {
  db <- tools::Rd_db("mcmix")
  exports <- getNamespaceExports("mcmix")
  visible <- function(nm) nm %in% exports ||
    exists(nm, envir = asNamespace("base")) ||
    any(vapply(c("stats", "utils", "graphics", "grDevices"), function(p)
      exists(nm, envir = asNamespace(p)), logical(1)))
  bad <- character()
  for (nm in names(db)) {
    usage <- Filter(function(x) identical(attr(x, "Rd_tag"), "\\usage"), db[[nm]])
    if (!length(usage)) next
    code <- paste(as.character(usage[[1]]), collapse = "")
    code <- gsub("\\\\method\\{([^}]*)\\}\\{([^}]*)\\}", "\\1.\\2", code)
    code <- gsub("\\\\(dots|ldots)", "...", code)
    code <- gsub("\\\\[a-zA-Z]+\\{[^}]*\\}", "", code)
    exprs <- tryCatch(parse(text = code, keep.source = FALSE), error = function(e) NULL)
    expect_false(is.null(exprs), label = paste("usage of", nm, "parses"))
    for (e in exprs) {
      if (!is.call(e)) next
      args <- as.list(e)[-1L]
      argn <- if (is.null(names(args))) rep("", length(args)) else names(args)
      formal <- c(argn[nzchar(argn)],
                  vapply(args[!nzchar(argn)], function(a) paste(deparse(a), collapse = ""), ""))
      for (a in args[nzchar(argn)]) {
        used <- setdiff(all.names(a), c(formal, "...", loadedNamespaces()))
        bad <- c(bad, paste0(nm, ": ", used[!vapply(used, visible, logical(1))]))
      }
    }
  }
  expect_identical(bad[!grepl(": $", bad)], character())
})

test_that("the example plugin packages are installed and their sources complete", {
  for (p in c("mcmixexpgamma", "mcmixtarget")) {
    dir <- system.file("plugins", p, package = "mcmix")
    expect_true(nzchar(dir), label = p)
    desc <- read.dcf(file.path(dir, "DESCRIPTION"))
    expect_identical(unname(desc[, "Package"]), p)
    expect_match(unname(desc[, "LinkingTo"]), "mcmix")
    expect_true(length(list.files(file.path(dir, "src"), pattern = "[.]c$")) > 0L, label = p)
  }
})

test_that("citation('mcmix') has a year and gives no warning", {
  expect_no_warning(cit <- utils::citation("mcmix"))
  expect_match(format(cit, style = "text"), "\\(20[0-9][0-9]\\)")
  expect_match(unname(packageDescription("mcmix")$Date), "^20[0-9][0-9]-[0-9]{2}-[0-9]{2}$")
})

test_that("DESCRIPTION has the project's URL and bug tracker", {
  d <- packageDescription("mcmix")
  expect_match(d$URL, "^https://")
  expect_match(d$BugReports, "^https://.*/issues$")
})

test_that("the nonparametric vignette says membership rows sum to one, as predict() gives", {
  rmd <- c(test_path("../../vignettes/nonparametric.Rmd"),
           system.file("doc", "nonparametric.Rmd", package = "mcmix"))
  rmd <- rmd[nzchar(rmd) & file.exists(rmd)]
  skip_if(!length(rmd), "the vignette source is not available")
  text <- paste(readLines(rmd[1L], warn = FALSE), collapse = " ")
  text <- gsub("\\s+", " ", text)
  expect_false(grepl("sum to less, or more, than one", text, fixed = TRUE))
  expect_true(grepl("sums to one", text, fixed = TRUE))
  # and so they do: new points and the fitted rows
  x <- c(-5.2, -5, -4.8, 4.9, 5, 5.3)
  fam <- gaussian_niw(prior_mean = 0, kappa = 0.05, df = 3, scale = 0.1)
  fit <- withr::with_seed(5, sample_posterior(dp_mixture(fam, alpha = 1), x, iter = 100,
                                              progress = FALSE))
  est <- partition(fit)
  for (m in list(predict(fit, c(-5, 0, 5, 40), type = "membership", estimate = est),
                 predict(fit, type = "membership", estimate = est))) {
    expect_true(all(m >= 0))
    expect_equal(unname(rowSums(m)), rep(1, nrow(m)), tolerance = 1e-12)
  }
})

test_that("every test file starts with a header saying what it checks, and every full-mode file is run by make exact", {
  files <- list.files(test_path(), pattern = "^(test|helper)-.*[.]R$")
  first <- vapply(files, function(f) readLines(test_path(f), n = 1L, warn = FALSE)[1L], "")
  expect_identical(names(first)[!startsWith(first, "# ")], character())
  # no files by review round: tests live with their subject
  expect_identical(grep("^test-qa", files, value = TRUE), character())
  # the files with a full form (helper-full-mode.R) are those `make exact` runs
  mk <- test_path("..", "..", "Makefile")
  skip_if_not(file.exists(mk), "the Makefile is not at hand")
  re <- sub("^EXACT_FILES := ", "", grep("^EXACT_FILES := ", readLines(mk), value = TRUE))
  expect_length(re, 1L)
  re <- gsub("$$", "$", re, fixed = TRUE)
  tests <- setdiff(grep("^test-", files, value = TRUE), "test-docs.R")
  uses <- tests[vapply(tests, function(f)
    any(grepl("exact_iter\\(|exact_full\\(|MCMIX_EXACT_SWEEP", readLines(test_path(f)))), NA)]
  run <- tests[grepl(re, sub("^test-(.*)[.]R$", "\\1", tests))]
  expect_gte(length(uses), 6L)
  expect_identical(setdiff(uses, run), character())
})

test_that("the table of defaults (?mcmix-defaults) has a row for every exported sampler", {
  rd <- tools::Rd_db("mcmix")[["mcmix-defaults.Rd"]]
  txt <- paste(utils::capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))),
               collapse = " ")
  ex <- getNamespaceExports("mcmix")
  samplers <- sort(ex[grepl(paste0("^sample_|_gibbs$|^(dp|finite|hdp|rj)_mixture$|",
                                   "^ising_(gibbs|swendsen_wang)$|^(ais|anneal|map_partition|",
                                   "bn_map|gp_classify|lca|lda_model|bayes_net|factor_model)$"),
                            ex) & ex != "sample_posterior"])
  expect_gt(length(samplers), 20L)
  listed <- vapply(samplers, function(f) grepl(paste0(f, "()"), txt, fixed = TRUE), NA)
  expect_identical(names(listed)[!listed], character())
})
