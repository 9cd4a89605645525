# A fixed random sample of the bad-input campaign (helper-faults.R): calls of
# the exported functions and S3 methods as in their examples, one argument
# replaced by a bad value, each in a forked child with a time limit. The
# whole campaign is `make fuzz` (tools/fuzz.R).

test_that("the campaign reaches every exported function (each has a runnable example)", {
  db <- tools::Rd_db("mcmix")
  missing <- fault_unreached(db)
  expect(length(missing) == 0L,
         paste("exported functions without a call in any example:",
               paste(missing, collapse = ", ")))
  # and the generator finds the calls of S3 methods and auto-printed values
  ex <- fault_examples(db[["summary.mcmix_fit.Rd"]])
  expect_true(any(vapply(ex$calls, fault_fun_name, "") == "print"))
  v <- fault_variants(quote(summary(fit, probs = c(0.1, 0.9))), list(bad = NA),
                      method = "summary.mcmix_fit")
  expect_identical(vapply(v, `[[`, "", "arg"), "probs")
  expect_identical(v[[1L]]$call, quote(summary(object = fit, probs = NA)))
})

test_that("a sample of the bad-input campaign: no crash, hang, silent NaN, internal message or wrong argument name", {
  withr::local_preserve_seed()
  skip_on_os("windows")   # forked children
  # pages with quick examples (each page's examples run once to build the
  # objects the calls use)
  db <- tools::Rd_db("mcmix")
  pages <- c("psm.Rd", "rhat.Rd", "ess.Rd", "new_kernel.Rd", "dp_control.Rd", "gaussian_niw.Rd",
             "beta_prior.Rd", "target.Rd", "proposals.Rd", "rcrp.Rd", "extend.Rd", "run_kernel.Rd",
             "summary.mcmix_fit.Rd")
  res <- fault_campaign(db[intersect(pages, names(db))], sample = 40, seed = 20261123,
                        timeout = 20, max_base = 1L)
  expect_gt(nrow(res), 30L)
  bad <- res[res$outcome %in% c("wrong_arg", "internal", "nan", "hang", "crash"), ]
  expect(nrow(bad) == 0L, paste(c("problems:", sprintf("[%s] %s: %s", bad$outcome, bad$call,
                                                         bad$message)), collapse = "\n"))
  # the campaign tells these outcomes apart
  expect_equal(fault_classify_error(simpleError("`x` must be positive.")), "error")
  expect_equal(fault_classify_error(simpleError("subscript out of bounds")), "internal")
  # an error naming an argument the function does not have (`data` for
  # `newdata`), and not one naming its own argument, an option or a column
  v <- list(fun = "rcrp", call = quote(rcrp(n = -1, alpha = 1)))
  expect_true(fault_wrong_arg(simpleError("`newdata` must be a matrix."), v))
  expect_false(fault_wrong_arg(simpleError("`alpha` must be positive."), v))
  expect_false(fault_wrong_arg(simpleError("option `mcmix.work_budget` is too small."), v))
  expect_false(fault_wrong_arg(simpleError("column `q1` has one level."), v))
  expect_equal(fault_run_one(list(fun = "rcrp", call = quote(stop("`newdata` is bad."))),
                             globalenv(), 5)$outcome, "wrong_arg")
  expect_equal(fault_run_one(list(call = quote(stop("x"))), globalenv(), 5)$outcome, "internal")
  expect_equal(fault_run_one(list(call = quote(c(1, NaN))), globalenv(), 5)$outcome, "nan")
  expect_equal(fault_run_one(list(call = quote(Sys.sleep(30))), globalenv(), 0.25)$outcome, "hang")
  expect_equal(fault_run_one(list(call = quote(repeat NULL)), globalenv(), 0.25)$outcome, "hang")
  expect_equal(fault_run_one(list(call = quote(tools::pskill(Sys.getpid(), tools::SIGKILL))),
                             globalenv(), 5)$outcome, "crash")
})
