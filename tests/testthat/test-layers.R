# The layers of the C code (inst/design.md, "Layers and headers"): the glue
# (src/ffi_*.c and src/init.c) converts SEXPs; every other C file is engine
# and must not see R's API. Each engine file is preprocessed with the
# compiler R uses and the package's include flags; the test fails if
# Rinternals.h (SEXP, PROTECT, ...) or R_ext/Rdynload.h is reached from it.
# Files are classified by name, so new files are covered without listing.

src_dir <- function() test_path("..", "..", "src")

is_glue <- function(file) grepl("^ffi_.*[.]c$", file) || file == "init.c"

# The header files seen by `file` after preprocessing with the compiler
# R uses and the package's include flags (srcgraph_preprocess(),
# helper-srcgraph.R).
headers_seen <- function(file, src) {
  out <- srcgraph_preprocess(file, src)
  marks <- regmatches(out, regexpr('^# [0-9]+ "[^"]+"', out))
  unique(sub('^# [0-9]+ "([^"]+)"$', "\\1", marks))
}

sees_r_api <- function(headers) any(grepl("(^|/)(Rinternals|Rdynload)[.]h$", headers))

test_that("no engine file sees Rinternals.h", {
  src <- src_dir()
  skip_if_not(dir.exists(src), "the package source tree is not available")
  files <- list.files(src, pattern = "[.]c$")
  engine <- files[!vapply(files, is_glue, logical(1))]
  expect_gt(length(engine), 30L)
  bad <- engine[vapply(engine, function(f)
    sees_r_api(headers_seen(file.path(src, f), src)), logical(1))]
  expect_identical(bad, character(0))
})

test_that("the layer check detects an engine file that includes the R API", {
  src <- src_dir()
  skip_if_not(dir.exists(src), "the package source tree is not available")
  tmp <- tempfile(fileext = ".c")
  on.exit(unlink(tmp))
  # through the public plugin header (which includes mcmix_r.h) ...
  writeLines(c('#include "mcmix_engine.h"', '#include <mcmix.h>',
               "int f(void) { return 0; }"), tmp)
  expect_true(sees_r_api(headers_seen(tmp, src)))
  # ... while the engine hub and the pure ABI header alone are clean
  writeLines(c('#include "mcmix_engine.h"', '#include <mcmix_abi.h>',
               "int f(void) { return 0; }"), tmp)
  expect_false(sees_r_api(headers_seen(tmp, src)))
  # glue files are told apart by name
  expect_true(is_glue("ffi_new_sampler.c"))
  expect_true(is_glue("init.c"))
  expect_false(is_glue("mixture_new.c"))
})
