# The run settings (?mcmix-run-settings): every sampler takes `chains`,
# `cores`, `backend`, `progress` (and `threads` where it has threads) as
# arguments of its own with the same defaults, and runs through the one
# run path run_fit() (R/models.R); checked on the namespace's code and by
# running every sampler with a bad setting (the error names the setting,
# so the setting reached the driver).

ns <- asNamespace("mcmix")
ns_funs <- Filter(is.function, mget(ls(ns, all.names = TRUE), envir = ns))

# The names of the functions called in `f`'s body (and its nested functions).
called <- function(f) {
  out <- character()
  walk <- function(e) {
    if (is.call(e)) {
      if (is.symbol(e[[1L]])) out <<- c(out, as.character(e[[1L]]))
      for (i in seq_along(e)) if (!is.symbol(e[[i]])) walk(e[[i]])
    } else if (is.pairlist(e) || is.list(e)) {
      for (i in seq_along(e)) if (!is.symbol(e[[i]])) walk(e[[i]])
    }
  }
  walk(as.list(formals(f)))
  walk(body(f))
  unique(out)
}
calls <- lapply(ns_funs, called)

# The functions of the namespace that reach `target` through calls.
reaching <- function(target) {
  s <- target
  repeat {
    more <- names(calls)[vapply(calls, function(cl) any(cl %in% s), logical(1))]
    more <- setdiff(more, s)
    if (!length(more)) return(setdiff(s, target))
    s <- c(s, more)
  }
}

test_that("run_fit() is the only caller of run_kernel() in the package", {
  users <- names(calls)[vapply(calls, function(cl) "run_kernel" %in% cl, logical(1))]
  expect_identical(users, "run_fit")
})

test_that("every sampler takes chains, cores, backend, progress (and threads) with the same defaults", {
  defaults <- mcmix:::run_settings
  exported <- getNamespaceExports("mcmix")
  samplers <- intersect(reaching("run_fit"),
                        c(exported, grep("^sample_posterior[.]", names(ns_funs), value = TRUE)))
  # every kind of sampler is found (a sampler not reaching run_fit() would
  # be missing here)
  expect_true(all(c("sample_mh", "sample_slice", "sample_hmc", "sample_nuts", "sample_gibbs",
                    "sample_tempering", "probit_gibbs", "logit_gibbs", "gp_classify",
                    "hier_lm_gibbs", "ising_gibbs", "ising_swendsen_wang",
                    "sample_posterior.mcmix_finite_mixture", "sample_posterior.mcmix_dp_mixture",
                    "sample_posterior.mcmix_hdp", "sample_posterior.mcmix_lda",
                    "sample_posterior.mcmix_rj_mixture", "sample_posterior.mcmix_factor_model")
                  %in% samplers))
  for (s in samplers) {
    fm <- formals(ns_funs[[s]])
    # (the default of `chains` is 1, but 4 for Bayesian networks)
    expect_true("chains" %in% names(fm), label = sprintf("%s has `chains`", s))
    for (nm in c("cores", "backend", "progress"))
      expect_identical(fm[[nm]], defaults[[nm]], label = sprintf("%s: default of `%s`", s, nm))
  }
  # the samplers with OpenMP threads
  has_threads <- samplers[vapply(samplers, function(s) "threads" %in% names(formals(ns_funs[[s]])),
                                 logical(1))]
  expect_setequal(has_threads, c("sample_posterior.mcmix_dp_mixture", "sample_posterior.mcmix_lda"))
  for (s in has_threads) expect_identical(formals(ns_funs[[s]])$threads, defaults$threads)
  # extend() takes the same settings again
  fm <- formals(ns_funs$extend.mcmix_fit)
  for (nm in c("cores", "backend", "progress")) expect_identical(fm[[nm]], defaults[[nm]])
})

test_that("every sampler passes its settings to the run driver, and refuses unknown arguments naming them", {
  withr::local_preserve_seed()
  fits <- fits_of_every_sampler()   # helper-fits.R
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    if (nm == "kernel") next
    for (bad in list(list(backend = "nope"), list(progress = NA), list(cores = 0),
                     list(chains = 0), list(not_an_argument = 1))) {
      cl <- do.call(stats::update, c(list(fit), bad, evaluate = FALSE))
      e <- tryCatch(eval(cl, attr(fits, "env")), error = identity)
      expect_s3_class(e, "mcmix_error_input")
      expect_identical(e$arg, names(bad), label = sprintf("%s(%s = )", nm, names(bad)))
    }
  }
})
