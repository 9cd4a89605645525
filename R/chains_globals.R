# The global variables of the user's functions, for workers that do not
# share the session's memory (future workers other than forked ones).
#
# A function written at the console (its environment is the global
# environment) finds its global variables there; on a worker started
# afresh they are missing ("object 's' not found"). Before the chains are
# sent, the functions of the user held by the fit (targets, gradients,
# Gibbs conditionals, ABC simulators, R families: any closure reached from
# the kernel whose environment is the global environment) are scanned with
# the globals package (the detection future itself uses); the variables
# found in the global environment travel with the chains and are assigned
# in the worker's global environment before the chain runs, and the
# packages the functions use are attached there.

user_globals <- function(fit) {
  none <- list(objects = list(), packages = character())
  fns <- user_functions(fit$kernel)
  if (!length(fns) || !requireNamespace("globals", quietly = TRUE)) return(none)
  objects <- list()
  packages <- character()
  for (f in fns) {
    g <- tryCatch(globals::globalsOf(f, envir = globalenv(), mustExist = FALSE,
                                     recursive = TRUE, method = "ordered"),
                  error = function(e) NULL)
    if (is.null(g) || !length(g)) next
    where <- attr(g, "where")
    for (nm in names(g)) {
      e <- where[[nm]]
      if (identical(e, globalenv())) {
        if (!is.null(g[[nm]])) objects[[nm]] <- g[[nm]]
      } else if (is.environment(e)) {
        pkg <- environmentName(topenv(e))
        if (nzchar(pkg) && !pkg %in% c("base", "R_GlobalEnv", "mcmix")) packages <- c(packages, pkg)
      }
    }
  }
  check_budget(as.double(utils::object.size(objects)), "the global variables of your functions",
               "copies sent to every worker",
               fix = "keep the large objects out of the functions' global variables")
  list(objects = objects, packages = unique(packages))
}

# The closures reached from `x` (lists and the environments of closures
# that are neither namespaces nor the global environment) whose
# environment is the global environment.
user_functions <- function(x) {
  found <- list()
  seen <- list()
  visit <- function(v, depth) {
    if (depth > 8L) return(invisible())
    if (is.function(v)) {
      e <- environment(v)
      if (is.null(e)) return(invisible())
      if (identical(e, globalenv())) {
        if (!any(vapply(found, identical, logical(1), v))) found[[length(found) + 1L]] <<- v
        return(invisible())
      }
      visit(e, depth + 1L)
    } else if (is.environment(v)) {
      if (isNamespace(v) || identical(v, globalenv()) || identical(v, baseenv()) ||
          identical(v, emptyenv()) || environmentName(v) != "") return(invisible())
      if (any(vapply(seen, identical, logical(1), v))) return(invisible())
      seen[[length(seen) + 1L]] <<- v
      for (nm in ls(v, all.names = TRUE)) {
        w <- tryCatch(get(nm, envir = v, inherits = FALSE), error = function(e) NULL)
        if (is.function(w) || is.environment(w) || is.list(w)) visit(w, depth + 1L)
      }
      if (!identical(parent.env(v), emptyenv())) visit(parent.env(v), depth + 1L)
    } else if (is.list(v) && !is.data.frame(v)) {
      for (w in v) if (is.function(w) || is.environment(w) || is.list(w)) visit(w, depth + 1L)
    }
    invisible()
  }
  visit(x, 0L)
  found
}

# On the worker (a process of its own, never the user's session): the
# user's global variables into its global environment, where the
# functions written at the console look them up, as future does for the
# globals of its own futures.
globals_install <- function(globals) {
  if (length(globals)) list2env(globals, envir = globalenv())
  invisible(NULL)
}
