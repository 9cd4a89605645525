# The map of the C sources cannot go stale and the file graph has no
# circles (inst/design.md, section 8.1): every file of src/ is in the
# source map and every file the map names exists; every file carries an
# area prefix of the map and README.md's layout names every area; the
# graph of includes and calls (helper-srcgraph.R) is a DAG; the blocks of
# src/init.c are headed by the file that defines their entries.

map_root <- function() test_path("..", "..")

skip_without_sources <- function()
  skip_if_not(file.exists(file.path(map_root(), "src", "init.c")) &&
                file.exists(file.path(map_root(), "inst", "design.md")),
              "the package source tree is not available")

# The source map of inst/design.md: a data frame (area, files, owns), the
# area carried down from the row that names it.
source_map <- function() {
  lines <- readLines(file.path(map_root(), "inst", "design.md"))
  a <- grep("^<!-- source map", lines)
  b <- grep("^<!-- end of source map", lines)
  stopifnot(length(a) == 1L, length(b) == 1L, b > a)
  rows <- grep("^\\| ", lines[(a + 1L):(b - 1L)], value = TRUE)[-1L]
  rows <- rows[!grepl("^\\|---", rows)]
  cells <- lapply(strsplit(rows, " *\\| *"), function(x) x[-1L])
  area <- vapply(cells, `[`, "", 1L)
  for (i in seq_along(area)) if (!nzchar(area[i])) area[i] <- area[i - 1L]
  data.frame(area = area, files = vapply(cells, `[`, "", 2L), owns = vapply(cells, `[`, "", 3L))
}

map_files <- function(map) unlist(regmatches(map$files, gregexpr("[a-z0-9_]+[.][ch]", map$files)))

# The prefixes the map gives its areas: `prefix_`, or a bare `name` (the
# area's own header or file name, e.g. linalg, rng).
map_prefixes <- function(map) {
  p <- unlist(regmatches(map$area, gregexpr("`[a-z]+_?`", map$area)))
  unique(gsub("`", "", p))
}

test_that("the source map lists every file of src/ and only those", {
  skip_without_sources()
  map <- source_map()
  listed <- map_files(map)
  files <- list.files(file.path(map_root(), "src"), pattern = "[.][ch]$")
  expect_identical(sort(setdiff(files, listed)), character(0))   # missing from the map
  expect_identical(sort(setdiff(listed, files)), character(0))   # in the map, not in src/
  expect_false(anyDuplicated(listed) > 0L)
})

test_that("every file of src/ carries its area's prefix, and README.md's layout names every area", {
  skip_without_sources()
  map <- source_map()
  pre <- map_prefixes(map)
  expect_true(all(c("ffi_", "mcmix_", "family_", "mixture_", "model_", "sampler_", "diag_",
                    "partition_", "shard_") %in% pre))
  has_prefix <- function(f) {
    stem <- sub("[.][ch]$", "", f)
    any(vapply(pre, function(p) if (endsWith(p, "_")) startsWith(stem, p) ||
                 stem == sub("_$", "", p) else stem == p || startsWith(stem, paste0(p, "_")),
               logical(1)))
  }
  files <- map_files(map)
  bad <- files[!vapply(files, has_prefix, logical(1)) & files != "init.c"]
  expect_identical(bad, character(0))
  # and each file is in the row of its own area
  for (i in seq_len(nrow(map))) {
    p <- unlist(regmatches(map$area[i], gregexpr("`[a-z]+_?`", map$area[i])))
    if (!length(p)) next
    fs <- map_files(map[i, ])
    ok <- vapply(fs, function(f) any(vapply(gsub("`", "", p), function(q) {
      stem <- sub("[.][ch]$", "", f)
      if (endsWith(q, "_")) startsWith(stem, q) || stem == sub("_$", "", q) else
        stem == q || startsWith(stem, paste0(q, "_"))
    }, logical(1))), logical(1))
    expect_true(all(ok), label = paste(map$area[i], ":", paste(fs[!ok], collapse = ", ")))
  }
  readme <- readLines(file.path(map_root(), "README.md"))
  s <- grep("^## Layout", readme)
  expect_length(s, 1L)
  e <- c(grep("^## ", readme), length(readme) + 1L)
  layout <- paste(readme[s:(min(e[e > s]) - 1L)], collapse = "\n")
  for (p in pre)
    expect_match(layout, paste0("`src/", p), fixed = TRUE, label = paste("README.md layout:", p))
})

test_that("the C include / call graph has no circles", {
  skip_without_sources()
  g <- srcgraph_build(file.path(map_root(), "src"))
  expect_gt(nrow(g$edges), 100L)
  cyc <- srcgraph_cycles(g)
  expect_identical(vapply(cyc, paste, "", collapse = " <-> "), character(0))
})

test_that("the circle check finds a circle of calls and one through a header", {
  skip_without_sources()
  dir <- tempfile("srcgraph-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  writeLines(c('#include "b.h"', "int a_f(int x) { return x > 0 ? b_f(x - 1) : 0; }"),
             file.path(dir, "a.c"))
  writeLines("int b_f(int x);", file.path(dir, "b.h"))
  writeLines(c("int a_f(int x);", "int b_f(int x) { return a_f(x); }"), file.path(dir, "b.c"))
  writeLines("static int c_g(void) { return 1; }\nint c_f(void) { return c_g(); }",
             file.path(dir, "c.c"))
  g <- srcgraph_build(dir)
  expect_identical(srcgraph_cycles(g), list(c("a.c", "b.c")))
  # a header whose inline function calls the file that includes it (a
  # new directory: the preprocessed files are kept by path)
  dir2 <- file.path(dir, "two")
  dir.create(dir2)
  file.copy(file.path(dir, "a.c"), dir2)
  writeLines(c("int a_f(int x);", "static inline int b_in(void) { return a_f(1); }"),
             file.path(dir2, "b.h"))
  writeLines("int b_f(int x) { return x; }", file.path(dir2, "b.c"))
  expect_identical(srcgraph_cycles(srcgraph_build(dir2)), list(c("a.c", "b.h")))
})

test_that("the blocks of init.c's table are headed by the file defining their entries", {
  skip_without_sources()
  src <- file.path(map_root(), "src")
  init <- readLines(file.path(src, "init.c"))
  a <- grep("call_methods\\[\\] = \\{", init)
  b <- grep("\\{NULL, NULL, 0\\}", init)
  heading <- NA_character_
  n <- 0L
  for (l in init[(a + 1L):(b - 1L)]) {
    if (grepl("^ */\\* --- .*\\(([a-z0-9_]+[.]c)\\) --- \\*/", l)) {
      heading <- sub("^.*\\(([a-z0-9_]+[.]c)\\) --- \\*/.*$", "\\1", l)
      next
    }
    fn <- sub("^ *CALLDEF\\(([a-z0-9_]+),.*$", "\\1", l)
    if (identical(fn, l)) next
    n <- n + 1L
    expect_false(is.na(heading), label = paste(fn, "under a heading"))
    def <- grepl(paste0("^SEXP ", fn, "\\("), readLines(file.path(src, heading)))
    expect_true(any(def), label = sprintf("%s defined in %s", fn, heading))
  }
  expect_gt(n, 40L)
})
