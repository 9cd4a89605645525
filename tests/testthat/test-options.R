# The options table (R/options.R): every option the namespace reads is a
# row of the table and an item of ?`mcmix-options`, every default passes
# its row's check, a bad value is an error naming the option, and the
# options of a run are checked before its chains start (a bad one never
# loses draws at a Ctrl-C).

# The calls to `fun` (a name) anywhere in `x`: functions (formals and
# bodies, nested ones included), calls and lists of functions.
calls_to <- function(x, fun) {
  out <- list()
  walk <- function(e) {
    if (is.function(e)) {
      if (!is.primitive(e)) { walk(as.list(formals(e))); walk(body(e)) }
    } else if (is.call(e)) {
      if (identical(e[[1L]], as.name(fun))) out[[length(out) + 1L]] <<- e
      for (i in seq_along(e)) if (!is.symbol(e[[i]])) walk(e[[i]])
    } else if (is.list(e) || is.pairlist(e) || is.expression(e)) {
      for (i in seq_along(e)) if (!is.symbol(e[[i]])) walk(e[[i]])
    }
  }
  walk(x)
  out
}

ns <- asNamespace("mcmix")
ns_objects <- mget(ls(ns, all.names = TRUE), envir = ns)
tab <- mcmix:::mcmix_options_table

test_that("every option read in the namespace is a row of the table, and every row is read", {
  # no option of the package is read with getOption() but by mcmix_option()
  gets <- unlist(lapply(ns_objects[names(ns_objects) != "mcmix_option"], calls_to, "getOption"),
                 recursive = FALSE)
  first <- vapply(gets, function(cl) paste(deparse(cl[[2L]]), collapse = ""), "")
  expect_identical(unname(first[grepl("mcmix", first) | !grepl("^\"", first)]), character())
  # a literal name, but in check_run_options(), which reads those of `run_options`
  reads <- unlist(lapply(ns_objects[names(ns_objects) != "check_run_options"], calls_to,
                         "mcmix_option"), recursive = FALSE)
  nms <- vapply(reads, function(cl) if (is.character(cl[[2L]])) cl[[2L]] else NA_character_, "")
  expect_false(anyNA(nms))
  expect_identical(unname(vapply(calls_to(ns$check_run_options, "mcmix_option"),
                                 function(cl) deparse(cl[[2L]]), "")), "nm")
  nms <- c(nms, mcmix:::run_options)
  expect_length(setdiff(nms, names(tab)), 0L)     # every name read is a row
  expect_length(setdiff(names(tab), nms), 0L)     # every row is read
})

test_that("every option named in the sources (code and help) is a row of the table or of the options of other packages", {
  dir <- test_path("..", "..", "R")
  skip_if_not(dir.exists(dir), "the package's R sources are not at hand")
  src <- unlist(lapply(list.files(dir, pattern = "[.]R$", full.names = TRUE), readLines))
  grab <- function(pattern) {
    m <- regmatches(src, gregexpr(pattern, src, perl = TRUE))
    unique(unlist(lapply(m, function(x) sub(pattern, "\\1", x, perl = TRUE))))
  }
  # mcmix_option("name") and getOption("mcmix.name", ...) in code and in
  # the roxygen text; `mcmix.name` anywhere (help pages quote options so)
  read <- c(grab("mcmix_option\\([\"']([A-Za-z0-9_.]+)[\"']"),
            grab("getOption\\([\"']mcmix[.]([A-Za-z0-9_.]+)[\"']"),
            grab("`mcmix[.]([a-z][a-z0-9_]*)`"))
  read <- setdiff(sub("^mcmix[.]", "", read), "h")   # (`mcmix.h`: the public C header)
  expect_gt(length(read), 20L)
  expect_identical(setdiff(read, names(tab)), character())
  # getOption() of any other option: listed among the options of other packages
  others <- grab("getOption\\([\"']([A-Za-z0-9_.]+)[\"']")
  others <- others[!startsWith(others, "mcmix.")]
  expect_identical(setdiff(others, names(mcmix:::other_options_read)), character())
  expect_identical(setdiff(names(mcmix:::other_options_read), others), character())
  # getOption() with a computed name only in mcmix_option()
  code <- sub("#.*$", "", src)
  dynamic <- grep("getOption\\((?![\"'])", code, perl = TRUE, value = TRUE)
  expect_identical(trimws(dynamic), "v <- getOption(full)")
})

test_that("every default passes its row's check and is what mcmix_option() gives unset", {
  for (nm in names(tab)) {
    r <- tab[[nm]]
    expect_true(r$ok(r$default) || is.null(r$default), label = nm)
    expect_identical(r$as(r$default), r$default, label = nm)
    withr::with_options(setNames(list(NULL), paste0("mcmix.", nm)),
                        expect_identical(mcmix_option(nm), r$default, label = nm))
    expect_true(is.character(r$reads) && is.character(r$does) && is.character(r$what) &&
                  isTRUE(r$testing) || isFALSE(r$testing), label = nm)
  }
  # the defaults the code had before the table (the draws depend on some)
  expect_identical(lapply(tab[c("cores", "backend", "threads", "stop_wait", "checkpoint_interval",
                                "progress_interval", "memory_budget", "work_budget",
                                "subcluster_min_n", "warm_start_n", "warm_start_m",
                                "warm_start_sweeps", "label_subsample", "lda_max_bytes",
                                "psm_max_bytes", "partition_budget")], `[[`, "default"),
                   list(cores = 1L, backend = "auto", threads = 1L, stop_wait = 5,
                        checkpoint_interval = 10, progress_interval = 10, memory_budget = 4e9,
                        work_budget = 1e8, subcluster_min_n = 20000, warm_start_n = 5e4,
                        warm_start_m = 20000L, warm_start_sweeps = 100L, label_subsample = 2000,
                        lda_max_bytes = 2e9, psm_max_bytes = 1e9, partition_budget = 1e8))
  expect_identical(tab$lda_block_tokens$default, mcmix:::lda_block_tokens_default)
})

test_that("the help page lists every option of the table with its default and values", {
  rd <- tools::Rd_db("mcmix")[["mcmix-options.Rd"]]
  expect_false(is.null(rd))
  txt <- paste(capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))),
               collapse = " ")
  txt <- gsub("[[:space:]]+", " ", gsub("[\u2018\u2019\u201c\u201d'\"]", "", txt))
  for (nm in names(tab)) {
    r <- tab[[nm]]
    item <- gsub("\"", "", sprintf("mcmix.%s (default %s; %s)", nm,
                                    mcmix:::opt_format_default(r$default), r$what))
    expect_true(grepl(item, txt, fixed = TRUE), label = item)
  }
  # the testing options are in their own section
  testing <- names(tab)[vapply(tab, `[[`, logical(1), "testing")]
  expect_setequal(testing, c("fork", "psock_future", "signals", "proc_stat", "openmp",
                             "worker_files", "online_narrow_max"))
  after <- sub(".*Testing options", "", txt)
  for (nm in testing) expect_match(after, paste0("mcmix.", nm), fixed = TRUE)
  # and the options of R and other packages that the package reads
  after <- sub(".*Options of R and other packages", "", txt)
  for (nm in names(mcmix:::other_options_read)) expect_match(after, nm, fixed = TRUE)
})

test_that("a bad value of every option is an error naming the option and the value", {
  for (nm in names(tab)) for (bad in list("zzz", NA, c(1, 2), list(1))) {
    full <- paste0("mcmix.", nm)
    e <- withr::with_options(setNames(list(bad), full),
                             tryCatch(mcmix_option(nm), error = identity))
    expect_s3_class(e, "mcmix_error_option")
    expect_s3_class(e, "mcmix_error_input")
    expect_identical(e$arg, full)
    expect_match(conditionMessage(e), sprintf("option `%s` must be", full), fixed = TRUE)
    expect_match(conditionMessage(e), mcmix:::describe_value(bad), fixed = TRUE)
  }
  withr::local_options(mcmix.stop_wait = -1)
  expect_snapshot(mcmix_option("stop_wait"), error = TRUE)
  e <- expect_error(mcmix_option("nope"), class = "mcmix_error_input")
  expect_identical(e$arg, "name")
  expect_identical(expect_error(mcmix_option(1), class = "mcmix_error_input")$arg, "name")
  # the full name is accepted too, and set values are converted
  withr::local_options(mcmix.cores = 2)
  expect_identical(mcmix_option("mcmix.cores"), 2L)
})

test_that("options that were read unchecked are errors naming them (DP default algorithm, LDA, PSM, progress)", {
  x <- c(-2, -1.5, 1.5, 2)
  m <- dp_mixture(gaussian_niw(), alpha = 1)
  for (bad in list("a", NA, -1)) {
    e <- withr::with_options(list(mcmix.subcluster_min_n = bad), expect_error(
      sample_posterior(m, x, iter = 2, progress = FALSE), class = "mcmix_error_option"))
    expect_identical(e$arg, "mcmix.subcluster_min_n")
    e <- withr::with_options(list(mcmix.lda_max_bytes = bad), expect_error(
      sample_posterior(lda_model(2), matrix(c(1, 2, 0, 1), 2), iter = 2, progress = FALSE),
      class = "mcmix_error_option"))
    expect_identical(e$arg, "mcmix.lda_max_bytes")
    e <- withr::with_options(list(mcmix.psm_max_bytes = bad), expect_error(
      psm(matrix(c(1L, 1L, 2L, 1L), 2)), class = "mcmix_error_option"))
    expect_identical(e$arg, "mcmix.psm_max_bytes")
  }
  for (nm in c("progress_interval", "fork", "worker_files", "psock_future", "threads_adapt")) {
    e <- withr::with_options(setNames(list("a"), paste0("mcmix.", nm)), expect_error(
      if (nm == "threads_adapt")
        sample_posterior(m, x, iter = 2, threads = 2, progress = FALSE)
      else run_kernel(iid_kernel(), iter = 5, progress = FALSE),
      class = "mcmix_error_option"))
    expect_identical(e$arg, paste0("mcmix.", nm))
  }
})

test_that("a bad mcmix.stop_wait stops a run on two cores before any chain starts, not at its Ctrl-C", {
  skip_on_os("windows")
  withr::local_preserve_seed()
  flag <- tempfile()
  k <- iid_kernel(session_interrupt_hook(Sys.getpid(), flag, slow = 0.2), chain = NULL)
  for (bad in list("a", -1, NA)) {
    withr::local_options(mcmix.stop_wait = bad)
    set.seed(10)
    e <- expect_error(run_kernel(k, iter = 1e4, chains = 2, cores = 2, progress = FALSE),
                      class = "mcmix_error_option")
    expect_identical(e$arg, "mcmix.stop_wait")
    expect_false(file.exists(flag))   # no chain ran: no draw was made, none lost
  }
  # the interrupt bookkeeping reads its wait when it is made: serving a
  # Ctrl-C reads no option
  withr::local_options(mcmix.stop_wait = 0)
  ledger <- mcmix:::interrupt_ledger(function() NULL)
  options(mcmix.stop_wait = "a")
  ledger$on_interrupt(NULL)
  Sys.sleep(0.01)
  expect_true(ledger$late())
  expect_true(ledger$give_up())
})
