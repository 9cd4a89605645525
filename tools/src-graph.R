# The file graph of src/ (includes and calls; tests/testthat/helper-srcgraph.R
# builds it): prints its circles and exits with status 1 when there is one.
#   Rscript tools/src-graph.R            the circles (none: "no circles")
#   Rscript tools/src-graph.R graph.dot  also the graph in Graphviz's format
source(file.path("tests", "testthat", "helper-srcgraph.R"))
args <- commandArgs(trailingOnly = TRUE)
g <- srcgraph_build("src")
if (length(args)) {
  e <- g$edges
  writeLines(c("digraph src {", "  rankdir = TB;",
               sprintf('  "%s" -> "%s"%s;', e$from, e$to,
                       ifelse(e$why == "include", " [style = dashed]", "")),
               "}"), args[1])
}
cyc <- srcgraph_cycles(g)
cat(sprintf("%d files, %d edges (%d includes, %d uses)\n", length(g$nodes), nrow(g$edges),
            sum(g$edges$why == "include"), sum(g$edges$why != "include")))
if (!length(cyc)) {
  cat("no circles\n")
} else {
  for (c in cyc) {
    cat("circle:", paste(c, collapse = " "), "\n")
    e <- g$edges[g$edges$from %in% c & g$edges$to %in% c, ]
    cat(sprintf("  %s -> %s (%s)\n", e$from, e$to, e$why), sep = "")
  }
  quit(status = 1)
}
