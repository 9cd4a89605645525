# The recipes of inst/design.md ("How to add ..."), enforced: each test
# below fails when one piece of a recipe is left out. The C tables are
# read from the sources (src/family_builtin.h, src/mixture_dp.h,
# src/model_lda.h) and, where the package exposes them, from the running
# code; the R tables from the namespace; the sweeps from the test helpers
# (helper-sweep.R, helper-interrupt.R, helper-lda.R).

recipe_root <- function() test_path("..", "..")

# The names of an X-macro table `macro` in the header `file` of src/.
recipe_xmacro <- function(file, macro) {
  txt <- paste(readLines(file.path(recipe_root(), "src", file)), collapse = "\n")
  def <- regmatches(txt, regexpr(sprintf("#define %s\\(X\\)([^\n]*\\\\\n)*[^\n]*", macro), txt))
  if (!length(def)) stop("no table ", macro, " in ", file)
  m <- regmatches(def, gregexpr("X\\(([a-z0-9_]+)\\)", def))[[1L]]
  sub("X\\(([a-z0-9_]+)\\)", "\\1", m)
}

skip_without_sources <- function()
  skip_if_not(file.exists(file.path(recipe_root(), "src", "family_builtin.h")),
              "the package source tree is not available")

test_that("every built-in family has its R constructor, simulator, exact-posterior check and README mention", {
  skip_without_sources()
  fams <- recipe_xmacro("family_builtin.h", "MCX_BUILTIN_FAMILIES")
  expect_gt(length(fams), 8L)
  # the C table is what the registry holds at load time
  expect_true(all(fams %in% .Call(mcmix:::C_ffi_families)))
  constructor <- stats::setNames(fams, fams)
  constructor["product"] <- "product_family"      # the combinator's constructor
  exports <- getNamespaceExports("mcmix")
  readme <- paste(readLines(file.path(recipe_root(), "README.md")), collapse = "\n")
  ns <- asNamespace("mcmix")
  for (f in fams) {
    ctor <- constructor[[f]]
    expect_true(ctor %in% exports, label = sprintf("%s: R constructor %s() exported", f, ctor))
    expect_true(exists(paste0("family_simulate.mcmix_family_", f), envir = ns, inherits = FALSE),
                label = sprintf("%s: simulator family_simulate.mcmix_family_%s (R/predictive.R)",
                                f, f))
    kind <- sw_family_kind[f]
    elsewhere <- sw_family_elsewhere[f]
    expect_true(!is.na(kind) || !is.na(elsewhere),
                label = sprintf("%s: a kind of the exact sweep or an exact test (helper-sweep.R)", f))
    if (!is.na(kind))
      expect_true(kind %in% sw_all_kinds, label = sprintf("%s: kind %s in the exact sweep", f, kind))
    if (!is.na(elsewhere))
      expect_true(grepl(paste0(ctor, "("), paste(readLines(test_path(elsewhere)), collapse = "\n"),
                        fixed = TRUE), label = sprintf("%s: %s() in %s", f, ctor, elsewhere))
    expect_true(grepl(paste0("`", ctor, "()`"), readme, fixed = TRUE),
                label = sprintf("%s: `%s()` in README.md", f, ctor))
  }
})

test_that("every DP algorithm row is in both tables, the exact sweep and the interrupt sweep", {
  skip_without_sources()
  c_rows <- recipe_xmacro("mixture_dp.h", "MCX_DP_ALGORITHMS")
  expect_setequal(names(mcmix:::dp_algorithms), c_rows)
  swept <- unique(vapply(sw_algorithms, `[[`, "", "algorithm"))
  expect_setequal(setdiff(c_rows, swept), character(0))
  # the algorithms the interrupt sweep's DP cases run (as the fits say)
  cases <- interrupt_cases()
  dp <- cases[grepl("^dp_", names(cases))]
  ran <- unique(vapply(dp, function(run) { set.seed(1); run()$algorithm }, ""))
  expect_setequal(setdiff(c_rows, ran), character(0))
})

test_that("every LDA sampler row is in both tables (same order) and tested for exactness or documented as approximate", {
  skip_without_sources()
  c_rows <- recipe_xmacro("model_lda.h", "MCX_LDA_SAMPLERS")
  rows <- mcmix:::lda_samplers
  # the code passed to C is the row's index: the orders must agree
  expect_identical(names(rows), c_rows)
  expect_identical(.Call(mcmix:::C_ffi_lda_samplers), c_rows)
  expect_identical(eval(formals(mcmix:::sample_posterior.mcmix_lda)$algorithm), names(rows))
  exact <- names(rows)[vapply(rows, `[[`, TRUE, "exact")]
  expect_setequal(setdiff(exact, unlist(lda_exact_tested)), character(0))
  for (file in names(lda_exact_tested))     # the exact tests loop over the list
    expect_true(grepl(sprintf('lda_exact_tested[["%s"]]', file),
                      paste(readLines(test_path(file)), collapse = "\n"), fixed = TRUE),
                label = sprintf("%s loops over lda_exact_tested", file))
  # an approximate row says so in the help of `algorithm`
  rd <- tools::Rd_db("mcmix")[["sample_posterior.mcmix_lda.Rd"]]
  txt <- paste(capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))),
               collapse = " ")
  txt <- gsub("[[:space:]]+", " ", txt)
  arg <- regmatches(txt, regexpr("algorithm: .*?threads:", txt))
  expect_length(arg, 1L)
  for (a in setdiff(names(rows), exact))
    expect_match(arg, sprintf('"%s"[^"]*approximat', a), label = sprintf("%s documented as approximate", a))
})

test_that("the simulators of categorical_dirichlet, gaussian_nonconj and product draw from the likelihood", {
  set.seed(5)
  n <- 20000
  nc <- gaussian_nonconj()
  x <- mcmix:::family_simulate(nc, c(1.5, 4), n)
  expect_identical(dim(x), c(as.integer(n), 1L))
  # mean and variance of N(1.5, 4) within 5 standard errors
  expect_lt(abs(mean(x) - 1.5) / sqrt(4 / n), 5)
  expect_lt(abs(stats::var(x[, 1]) - 4) / (4 * sqrt(2 / n)), 5)
  fam <- categorical_dirichlet()
  fam$dim <- 3L
  p <- c(0.2, 0.5, 0.3)
  y <- mcmix:::family_simulate(fam, c(p, log(p)), n)
  expect_true(all(rowSums(y) == 1))
  expect_lt(max(abs(colMeans(y) - p) / sqrt(p * (1 - p) / n)), 5)
  # a product: the parts' columns side by side, each from its block
  df <- data.frame(a = c(-1, 0.5, 2, 0.1), b = c(0L, 3L, 1L, 2L))
  prod <- mcmix:::family_prepare(product_family(a = gaussian_diag(), b = poisson_gamma()), df)
  pf <- if (inherits(prod, "mcmix_family")) prod else prod$family
  lay <- lapply(pf$resolved, function(r) mcmix:::family_layout(r$family)$size)
  theta <- c(c(2, 0.25, rep(0, lay[[1]] - 2)), c(3, rep(0, lay[[2]] - 1)))
  z <- mcmix:::family_simulate(pf, theta, n)
  expect_identical(dim(z), c(as.integer(n), 2L))
  expect_lt(abs(mean(z[, 1]) - 2) / sqrt(0.25 / n), 5)
  expect_lt(abs(mean(z[, 2]) - 3) / sqrt(3 / n), 5)
  expect_true(all(z[, 2] == round(z[, 2])))
})
