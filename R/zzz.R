# Load hooks: S3 methods for generics of suggested packages (posterior,
# bayesplot) are registered when those packages are loaded, so that they
# need not be installed, and so that the methods are found whatever the
# order in which packages are attached.

.onLoad <- function(libname, pkgname) {
  register_posterior_methods()   # R/convert.R
  register_model_methods()       # R/tidy.R: generics, rstantools, bayesplot, loo
  register_peer_methods()
  invisible(NULL)
}

# Exported names that peer packages also export as S3 generics: methods for
# mcmix's classes on their generics, so that a call still reaches mcmix when
# the peer is attached after it (BNPmix's partition() generic masks
# mcmix's partition(); posterior's and bayesplot's rhat() are registered in
# R/convert.R), and on their S4 generics (topicmodels's perplexity() masks
# mcmix's perplexity()). The peers' other shared names (coda's as.mcmc.list is the
# same function; coda's autocorr() is handled by mcmix's own, see
# chain_acf()) need nothing.
register_peer_methods <- function() {
  s3_register("BNPmix::partition", "mcmix_fit",
              function(object, ...) partition(object, ...))
  s4_register("topicmodels::perplexity", c("mcmix_lda_fit", "mcmix_fit"),
              function(object, newdata, ...)
                perplexity(object, if (missing(newdata)) NULL else newdata, ...))
}

# The S4 methods registered on peers' generics (and the S3 classes they are
# for) live here, not in the sealed namespace.
s4_methods <- new.env()

# Register `method` on the S4 generic "pkg::generic" for the S3 class
# `class` (its classes, most specific first), now if `pkg` is loaded and
# again each time it is loaded, as s3_register() does for S3 generics.
s4_register <- function(generic, class, method) {
  force(generic); force(class); force(method)
  parts <- strsplit(generic, "::", fixed = TRUE)[[1L]]
  pkg <- parts[1L]
  gen <- parts[2L]
  register <- function(...) {
    envir <- asNamespace(pkg)
    if (!exists(gen, envir = envir, inherits = FALSE) ||
        !methods::is(get(gen, envir = envir), "genericFunction")) return(invisible())
    methods::setOldClass(class, where = s4_methods)
    methods::setMethod(methods::getGeneric(gen, where = envir), class[1L], method,
                       where = s4_methods)
  }
  setHook(packageEvent(pkg, "onLoad"), function(...) register())
  if (isNamespaceLoaded(pkg)) register()
  invisible(NULL)
}

# Register `method` for the generic "pkg::generic" and class `class`: now if
# `pkg` is loaded, and again each time it is loaded. The same technique as
# vctrs's s3_register() (r-lib/vctrs, R/register-s3.R).
s3_register <- function(generic, class, method) {
  force(generic); force(class); force(method)   # the hook runs later
  stopifnot(is.character(generic), length(generic) == 1L, is.function(method))
  parts <- strsplit(generic, "::", fixed = TRUE)[[1L]]
  pkg <- parts[1L]
  gen <- parts[2L]
  register <- function(...) {
    envir <- asNamespace(pkg)
    if (exists(gen, envir = envir, inherits = FALSE))
      registerS3method(gen, class, method, envir = envir)
  }
  setHook(packageEvent(pkg, "onLoad"), function(...) register())
  if (isNamespaceLoaded(pkg)) register()
  invisible(NULL)
}
