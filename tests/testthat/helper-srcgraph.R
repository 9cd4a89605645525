# The graph of the C sources (test-source-map.R, tools/src-graph.R): a
# node per file of src/, an edge from a file to each header it includes
# (#include "...") and to each .c file that defines a function or a
# descriptor it uses. Uses are read from the preprocessed file (so the
# X-macro tables and the family descriptor macros count), attributed to
# the file each line comes from (a header's inline functions are the
# header's), and only inside braces (bodies and initialisers), so a
# prototype is not a use. A name a file defines itself (static or not)
# is not a use of another file's.

srcgraph_cc <- local({
  cc <- NULL
  function() {
    if (is.null(cc))
      cc <<- strsplit(trimws(system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CC"),
                                     stdout = TRUE)), "[[:space:]]+")[[1]]
    cc
  }
})

# The preprocessed text of `file` (lines), or an error. Kept for the
# test run (test-layers.R and test-source-map.R read the same files),
# keyed by the file's path, size and time.
srcgraph_cache <- new.env(parent = emptyenv())
srcgraph_preprocess <- function(file, src) {
  info <- file.info(file)
  key <- paste(normalizePath(file, mustWork = FALSE), info$size, as.numeric(info$mtime))
  if (!is.null(srcgraph_cache[[key]])) return(srcgraph_cache[[key]])
  out <- srcgraph_run_cpp(file, src)
  assign(key, out, envir = srcgraph_cache)
  out
}

srcgraph_run_cpp <- function(file, src) {
  cc <- srcgraph_cc()
  flags <- c("-E", paste0("-I", R.home("include")),
             paste0("-I", normalizePath(file.path(src, "..", "inst", "include"), mustWork = FALSE)),
             paste0("-I", normalizePath(src)))
  out <- suppressWarnings(system2(cc[1], c(cc[-1], flags, shQuote(file)),
                                  stdout = TRUE, stderr = FALSE))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop("the preprocessor failed on ", file)
  out
}

# The lines of the preprocessed text `pp` by the src/ file they come from
# (a named list of character vectors; files outside `src` are dropped).
srcgraph_origins <- function(pp, src) {
  mark <- grepl('^# [0-9]+ "', pp)
  origin <- sub('^# [0-9]+ "([^"]+)".*$', "\\1", pp[mark])
  where <- cumsum(mark)
  keep <- !mark & where > 0L
  from <- origin[where[keep]]
  base <- basename(from)
  local <- dirname(from) %in% c(".", src, normalizePath(src)) |
    normalizePath(dirname(from), mustWork = FALSE) == normalizePath(src)
  split(pp[keep][local], base[local])
}

# Tokens of C text (comments are gone after preprocessing; string and
# character literals are dropped).
srcgraph_tokens <- function(lines) {
  txt <- paste(lines, collapse = "\n")
  txt <- gsub('"([^"\\\\]|\\\\.)*"', " ", txt, perl = TRUE)
  txt <- gsub("'([^'\\\\]|\\\\.)*'", " ", txt, perl = TRUE)
  regmatches(txt, gregexpr("[A-Za-z_][A-Za-z0-9_]*|[{}()\\[\\];=]", txt, perl = TRUE))[[1L]]
}

# Definitions (non-static and static) and uses in a token vector.
srcgraph_scan <- function(tok) {
  n <- length(tok)
  if (!n) return(list(global = character(), local = character(), uses = character()))
  open <- tok == "{"
  close <- tok == "}"
  depth <- cumsum(open) - cumsum(close) - open + 0L      # depth of each token, braces outside
  pd <- cumsum(tok == "(") - cumsum(tok == ")")           # paren depth after each token
  ident <- grepl("^[A-Za-z_]", tok)
  top <- which(ident & depth == 0L & c(tok[-1L], "") %in% c("(", "=", "["))
  global <- local <- character()
  stmt_start <- c(0L, which(tok %in% c(";", "{", "}")))
  for (i in top) {
    nxt <- tok[i + 1L]
    is_def <- FALSE
    if (nxt == "(") {
      level <- pd[i]
      j <- i + 1L + match(level, pd[(i + 1L):n])           # the matching ")"
      is_def <- !is.na(j) && j <= n && tok[j] == "{"
      if (is_def && pd[i] != 0L) is_def <- FALSE
    } else if (nxt == "=") {
      is_def <- pd[i] == 0L
    } else {
      k <- i + 1L
      while (k <= n && tok[k] != "]") k <- k + 1L
      is_def <- k < n && tok[k + 1L] == "=" && pd[i] == 0L
    }
    if (!is_def) next
    s <- max(stmt_start[stmt_start < i])
    words <- tok[(s + 1L):i]
    if ("typedef" %in% words || "extern" %in% words) next
    if ("static" %in% words) local <- c(local, tok[i]) else global <- c(global, tok[i])
  }
  uses <- unique(tok[ident & depth > 0L])
  list(global = unique(global), local = unique(local), uses = uses)
}

# The graph of the files in `src`: list(nodes, edges = data.frame(from, to,
# why)) with why "include" or the first name used.
srcgraph_build <- function(src) {
  files <- sort(list.files(src, pattern = "[.][ch]$"))
  scans <- list()
  for (f in files[grepl("[.]c$", files)]) {
    parts <- srcgraph_origins(srcgraph_preprocess(file.path(src, f), src), src)
    # (a header reads the same wherever it is included: scanned once)
    for (o in setdiff(names(parts), names(scans)))
      scans[[o]] <- srcgraph_scan(srcgraph_tokens(parts[[o]]))
  }
  owner <- character()
  for (o in names(scans)) for (g in scans[[o]]$global) owner[g] <- o
  edges <- list()
  for (f in files) {
    inc <- sub('^#[[:space:]]*include[[:space:]]*"([^"]+)".*$', "\\1",
               grep('^#[[:space:]]*include[[:space:]]*"', readLines(file.path(src, f)),
                    value = TRUE))
    inc <- unique(inc[inc %in% files & inc != f])
    if (length(inc)) edges[[length(edges) + 1L]] <- data.frame(from = f, to = inc, why = "include")
    s <- scans[[f]]
    if (is.null(s)) next
    used <- setdiff(intersect(s$uses, names(owner)), c(s$global, s$local))
    # (a header's inline helpers may call its own implementation file)
    used <- used[owner[used] != f & owner[used] != sub("[.]h$", ".c", f)]
    if (length(used)) {
      to <- owner[used]
      first <- tapply(used, to, function(u) u[1L])
      edges[[length(edges) + 1L]] <- data.frame(from = f, to = names(first),
                                                why = unname(as.character(first)))
    }
  }
  e <- do.call(rbind, edges)
  e <- e[!duplicated(e[c("from", "to")]), ]
  rownames(e) <- NULL
  list(nodes = files, edges = e)
}

# The circles of graph `g`: a list of the strongly connected components
# with more than one file (each a character vector), empty when the graph
# is a DAG.
srcgraph_cycles <- function(g) {
  n <- length(g$nodes)
  a <- matrix(FALSE, n, n, dimnames = list(g$nodes, g$nodes))
  a[cbind(match(g$edges$from, g$nodes), match(g$edges$to, g$nodes))] <- TRUE
  r <- a
  for (k in seq_len(n)) r <- r | outer(r[, k], r[k, ], "&")
  both <- r & t(r)
  comp <- unique(lapply(seq_len(n), function(i) g$nodes[both[i, ]]))
  Filter(function(x) length(x) > 1L, comp)
}
