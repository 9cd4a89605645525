# Classed error conditions (R/conditions.R), deprecated argument forms and
# the run settings shared by every sampler.

# The condition raised by `expr` (an error is expected).
cond_of <- function(expr) tryCatch({ expr; NULL }, error = function(e) e)

expect_input_error <- function(expr, arg) {
  e <- cond_of(expr)
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(class(e)[(length(class(e)) - 3L):length(class(e))],
                   c("mcmix_error_input", "mcmix_error", "error", "condition"))
  expect_identical(e$arg, arg)
  # the message names the argument
  expect_match(conditionMessage(e), paste0("`", arg), fixed = TRUE)
}

test_that("stop_input() and stop_internal() raise classed conditions", {
  e <- cond_of(mcmix:::stop_input("`iter` must be positive.", "iter"))
  expect_identical(class(e), c("mcmix_error_input", "mcmix_error", "error", "condition"))
  expect_identical(e$arg, "iter")
  expect_null(conditionCall(e))
  e <- cond_of(mcmix:::stop_input("give one of them.", NULL))
  expect_identical(e$arg, NA_character_)
  e <- cond_of(mcmix:::stop_internal("a broken invariant"))
  expect_identical(class(e), c("mcmix_error_internal", "mcmix_error", "error", "condition"))
  expect_identical(conditionMessage(e), "mcmix internal error: a broken invariant")
})

test_that("the package's stop() reads the argument and honours call.", {
  st <- mcmix:::stop
  f <- function(x) st(sprintf("`x` must be positive, not %s; see `y`.", x), call. = FALSE)
  e <- cond_of(f(-1))
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "x")
  expect_identical(conditionMessage(e), "`x` must be positive, not -1; see `y`.")
  expect_null(conditionCall(e))
  g <- function() st("`a` is bad")
  expect_identical(conditionCall(cond_of(g())), quote(g()))
  # explicit argument, no back-quoted name, internal errors
  expect_identical(cond_of(st("`a` and `b` disagree.", arg = "b"))$arg, "b")
  expect_identical(cond_of(st("no name here"))$arg, NA_character_)
  expect_identical(cond_of(st("`base(3)` returned 2 values"))$arg, "base")
  expect_s3_class(cond_of(st("mcmix internal error: oops")), "mcmix_error_internal")
  expect_s3_class(cond_of(st("internal error: oops")), "mcmix_error_internal")
  # a condition object is signalled unchanged
  cnd <- errorCondition("custom", class = "my_error")
  expect_identical(cond_of(st(cnd)), cnd)
})

test_that("errors from the C glue get the package's classes", {
  wc <- mcmix:::with_c_errors
  e <- cond_of(wc(base::stop("mcmix internal error: bad chunk arguments")))
  expect_s3_class(e, "mcmix_error_internal")
  e <- cond_of(wc(base::stop("`data` has the wrong size")))
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "data")
  e <- cond_of(wc(base::stop("plain"), arg = "x"))
  expect_identical(e$arg, "x")
  inner <- errorCondition("kept", class = c("mcmix_error_input", "mcmix_error"), arg = "z")
  expect_identical(cond_of(wc(base::stop(inner))), inner)
})

test_that("an error raised in a compiled family is classed", {
  x <- matrix(c(0.1, 0.4, -0.3), 3)
  e <- cond_of(mcmix:::.family_eval(gaussian_nonconj(), x, "log_marginal"))
  expect_s3_class(e, "mcmix_error")
  expect_match(conditionMessage(e), "not conjugate")
})

test_that("the argument checks carry the argument name", {
  expect_input_error(mcmix:::check_count(0, "iter"), "iter")
  expect_input_error(mcmix:::check_flag(NA, "progress"), "progress")
  expect_input_error(mcmix:::check_positive(-1, "scale"), "scale")
  expect_input_error(mcmix:::check_prob(1, "level"), "level")
  expect_input_error(mcmix:::check_cov(matrix(c(1, 2, 2, 1), 2), "cov", 2L), "cov")
  expect_input_error(mcmix:::check_cov_spec(-1, "prior_cov", 2L), "prior_cov")
  expect_input_error(mcmix:::check_matrix("a", "X"), "X")
  expect_input_error(mcmix:::check_binary(c(0, 2), "y"), "y")
  expect_input_error(mcmix:::check_number(NA, "t0"), "t0")
  expect_input_error(mcmix:::check_vector(1:3, "mu0", 2L), "mu0")
  expect_input_error(mcmix:::match_choice("x", c("a", "b"), "loss"), "loss")
  expect_input_error(mcmix:::check_magnitude(1e300, "data"), "data")
  expect_input_error(mcmix:::check_dots(list(foo = 1)), "foo")
})

test_that("one positive-definiteness test, with the messages of each caller", {
  spd <- mcmix:::spd_problem
  expect_null(spd(diag(2)))
  expect_identical(spd(matrix(c(1, 0.5, 0, 1), 2)), "not symmetric")
  expect_match(spd(matrix(1, 2, 2)), "^smallest eigenvalue")
  expect_match(spd(diag(c(1, -1))), "^smallest eigenvalue -1$")
  bad <- matrix(c(1, 2, 2, 1), 2)
  expect_error(mcmix:::check_cov(bad, "cov", 2L), "`cov` must be positive definite.",
               fixed = TRUE)
  expect_error(gaussian_mean(cov = bad),
               "`cov` must be a symmetric positive-definite matrix; its smallest eigenvalue is -1.")
  expect_error(mcmix:::check_cov_spec(bad, "V0", 2L), "symmetric positive definite matrix")
})

test_that("exported constructors and samplers raise input errors naming the argument", {
  tg <- function(x) -sum(x^2) / 2
  X <- cbind(1, c(-1, -0.5, 0.5, 1))
  y <- c(0, 0, 1, 1)
  expect_input_error(rcrp(-1, alpha = 1), "n")
  expect_input_error(rstick(5, alpha = -1), "alpha")
  expect_input_error(rstick(alpha = 1, tol = 2), "tol")
  expect_input_error(rdp(3, alpha = 1, base = 1), "base")
  expect_input_error(finite_mixture(gaussian_niw(), K = 0), "K")
  expect_input_error(dp_mixture(gaussian_niw(), alpha = -1), "alpha")
  expect_input_error(gaussian_niw(kappa = -1), "kappa")
  expect_input_error(sample_mh(tg, init = 0, iter = -1), "iter")
  expect_input_error(sample_slice(tg, init = 0, thin = 0), "thin")
  expect_input_error(sample_hmc(tg, init = 0, chains = 0), "chains")
  expect_input_error(sample_mh(tg, init = 0, progress = NA), "progress")
  expect_input_error(probit_gibbs(X, y, prior_cov = -1), "prior_cov")
  expect_input_error(probit_gibbs(X, y, foo = 1), "foo")
  expect_input_error(gp_classify(X[, 2], y, variance = 0), "variance")
  expect_input_error(hier_lm_gibbs(X, c(y, 1), 1:4), "y")
  expect_input_error(ising_gibbs(0, 3), "nrow")
  expect_input_error(anneal(tg, init = 0, iter = 0), "iter")
  expect_input_error(anneal(tg, init = 0, n_iters = 10), "n_iters")
})

test_that("rstick(n, alpha) comes first; the former order is deprecated", {
  set.seed(1); new <- rstick(10, alpha = 2)
  set.seed(1); named <- rstick(alpha = 2, n = 10)
  expect_identical(new, named)
  expect_length(new, 10L)
  # rstick(alpha) with the truncation by mass, and rstick(alpha, n) with a
  # fractional alpha, still work with a deprecation warning
  set.seed(2); a <- rstick(alpha = 2, tol = 1e-3)
  set.seed(2)
  expect_warning(b <- rstick(2, tol = 1e-3), class = "mcmix_deprecated")
  expect_identical(a, b)
  set.seed(3); a <- rstick(10, alpha = 0.5)
  set.seed(3)
  expect_warning(b <- rstick(0.5, 10), "rstick(n, alpha)", fixed = TRUE)
  expect_identical(a, b)
  # whole numbers in both places are read in the new order, silently
  set.seed(4)
  expect_silent(w <- rstick(3, 2))
  expect_length(w, 3L)
})

test_that("hier_lm_gibbs(X, y, group); the former order is deprecated", {
  set.seed(5)
  g <- rep(1:3, each = 4)
  x <- stats::rnorm(12)
  yy <- 1 + x + stats::rnorm(12, sd = 0.3)
  X <- cbind(1, x)
  set.seed(6)
  new <- hier_lm_gibbs(X, yy, g, iter = 20, progress = FALSE)
  set.seed(6)
  expect_warning(old <- hier_lm_gibbs(yy, X, g, iter = 20, progress = FALSE),
                 class = "mcmix_deprecated")
  expect_identical(old$chains[[1]]$traces, new$chains[[1]]$traces)
  expect_identical(old$call$x, quote(X))
  expect_identical(old$call$y, quote(yy))
})

test_that("anneal(iter = ) replaces anneal(n_iter = )", {
  f <- function(x) -sum((x - 1)^2)
  set.seed(7)
  a <- anneal(f, init = 0, iter = 200, t0 = 1, scale = 0.5)
  set.seed(7)
  expect_warning(b <- anneal(f, init = 0, n_iter = 200, t0 = 1, scale = 0.5),
                 class = "mcmix_deprecated")
  expect_identical(a$par, b$par)
  expect_identical(a$path, b$path)
  expect_warning(expect_error(anneal(f, init = 0, n_iter = 0), "`n_iter`"),
                 class = "mcmix_deprecated")
})

test_that("every sampler names its run settings alike, burnin = floor(iter / 2)", {
  ns <- asNamespace("mcmix")
  exported <- getNamespaceExports("mcmix")
  fns <- Filter(function(f) is.function(ns[[f]]) && "burnin" %in% names(formals(ns[[f]])),
                exported)
  methods <- c("sample_posterior.mcmix_finite_mixture", "sample_posterior.mcmix_dp_mixture",
               "sample_posterior.mcmix_hdp", "sample_posterior.mcmix_lda",
               "sample_posterior.mcmix_rj_mixture", "sample_posterior.mcmix_factor_model")
  # run_kernel() is the low-level driver for user-written kernels: it keeps
  # burnin = 0 (documented there), since the kernel's author decides warm-up.
  fns <- c(setdiff(fns, "run_kernel"), methods)
  expect_true(all(c("sample_mh", "sample_nuts", "probit_gibbs", "hier_lm_gibbs",
                    "ising_gibbs", "logit_gibbs", "gp_classify") %in% fns))
  for (f in fns) {
    fm <- formals(ns[[f]])
    expect_identical(deparse(fm$burnin), "floor(iter/2)", info = f)
    expect_true(all(c("iter", "thin", "chains") %in% names(fm)), info = f)
    expect_identical(fm$iter, 1000, info = f)
    expect_identical(fm$thin, 1, info = f)
    # Bayesian networks start 4 chains: one cannot show it is stuck
    expect_identical(fm$chains, if (f == "sample_posterior.mcmix_factor_model") 4 else 1,
                     info = f)
    expect_false(any(c("n_iter", "warmup", "n_chains", "n_burnin") %in% names(fm)), info = f)
    # cores and progress are arguments, or passed through `...`
    expect_true(all(c("cores", "progress") %in% names(fm)) || "..." %in% names(fm), info = f)
  }
  # the prior simulators take the number of draws first
  for (f in c("rcrp", "rdp", "rstick", "rpolyagamma"))
    expect_identical(names(formals(ns[[f]]))[1L], "n", info = f)
})

test_that("the model samplers keep their burn-in rule in the fit", {
  X <- cbind(1, c(-1, -0.5, 0.5, 1))
  fit <- probit_gibbs(X, c(0, 0, 1, 1), iter = 30, progress = FALSE)
  expect_identical(as.integer(fit$settings$burnin), 15L)
  expect_s3_class(fit, "mcmix_probit_fit")
})
