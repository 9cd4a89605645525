# Shared plumbing of the model-specific Gibbs samplers (probit_gibbs(),
# gp_classify(), ising_gibbs(), ising_swendsen_wang(), hier_lm_gibbs()).
# Each of them prepares a fixed `data` list in R and advances its state with
# one compiled step routine `ffi_<model>_step(data, state, ctrl)`; the state
# is a plain list of double/integer vectors, so chunks and extend() give the
# draws of one longer run.

# A kernel over a compiled step routine, given as a function
# `routine(data, state, ctrl)` making the .Call, e.g.
# function(d, s, c) .Call(C_ffi_probit_step, d, s, c). The symbol is looked
# up in the namespace at each call: a NativeSymbolInfo captured in the
# closure would lose its address when the kernel is sent to another R
# process (future or PSOCK backends), while the namespace is serialised by
# name.
model_kernel <- function(name, routine, data, init, trace_names, ...) {
  force(routine); force(data); force(trace_names)
  step <- function(state, n, thin, offset, warmup) {
    ctrl <- c(as.integer(n), as.integer(thin), as.integer(offset),
              as.integer(isTRUE(warmup)))
    r <- routine(data, state, ctrl)
    traces <- r$traces
    colnames(traces) <- trace_names
    list(state = r$state, draws = list(traces = traces, labels = r$spins))
  }
  new_kernel(name, init = init, step = step, trace_names = trace_names, ...)
}

# Run a model kernel with the common settings of the model samplers.
run_model <- function(kernel, iter, burnin, thin, chains, dots, model, data,
                      call, kind, class = NULL) {
  args <- c(list(kernel = kernel, iter = iter, burnin = burnin, thin = thin,
                 chains = chains, model = model, data = data, call = call),
            dots)
  nm <- names(dots)
  if (is.null(nm)) nm <- rep("", length(dots))
  bad <- nm[!nm %in% c("cores", "backend", "progress")]
  if (length(bad))
    stop(sprintf(paste0("unknown argument%s %s; further arguments may be ",
                        "`cores`, `backend` and `progress`."),
                 if (length(bad) > 1L) "s" else "",
                 paste0("`", ifelse(bad == "", "<unnamed>", bad), "`",
                        collapse = ", ")), call. = FALSE)
  fit <- do.call(run_kernel, args, quote = TRUE)
  fit_set_kind(fit, kind, class)   # R/sampler.R
}

# ---- argument checks -------------------------------------------------------

mdl_number <- function(x, arg, lower = -Inf, upper = Inf, open_lower = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) &&
    (if (open_lower) x > lower else x >= lower) && x <= upper
  if (ok) check_magnitude(x, arg)
  if (!ok) {
    what <- if (open_lower && lower == 0) "a positive number"
            else if (lower == 0) "a non-negative number"
            else if (is.finite(lower) || is.finite(upper))
              sprintf("a number in [%s, %s]", format(lower), format(upper))
            else "a finite number"
    stop(sprintf("`%s` must be %s, not %s.", arg, what, describe_value(x)),
         call. = FALSE)
  }
  as.double(x)
}

mdl_matrix <- function(x, arg, nrow = NULL, ncol = NULL) {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.numeric(x) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (!is.numeric(x) || !is.matrix(x))
    stop(sprintf("`%s` must be a numeric matrix, not %s.", arg, describe_value(x)),
         call. = FALSE)
  if (any(!is.finite(x)))
    stop(sprintf("`%s` must not contain missing or infinite values.", arg),
         call. = FALSE)
  check_magnitude(x, arg)
  if (!is.null(nrow) && nrow(x) != nrow)
    stop(sprintf("`%s` must have %d rows, not %d.", arg, nrow, nrow(x)),
         call. = FALSE)
  if (!is.null(ncol) && ncol(x) != ncol)
    stop(sprintf("`%s` must have %d columns, not %d.", arg, ncol, ncol(x)),
         call. = FALSE)
  storage.mode(x) <- "double"
  x
}

# A binary response as integer 0/1 (logical, 0/1 numbers, or a two-level
# factor whose second level is 1).
mdl_binary <- function(y, arg, n = NULL) {
  if (is.factor(y)) {
    if (nlevels(y) != 2L)
      stop(sprintf("`%s` must be a factor with two levels, not %d.", arg,
                   nlevels(y)), call. = FALSE)
    y <- as.integer(y) - 1L
  } else if (is.logical(y)) {
    y <- as.integer(y)
  } else if (is.numeric(y) && all(y[!is.na(y)] %in% c(0, 1))) {
    y <- as.integer(y)
  } else {
    stop(sprintf("`%s` must be binary (0/1, logical or a two-level factor).",
                 arg), call. = FALSE)
  }
  if (anyNA(y))
    stop(sprintf("`%s` must not contain missing values.", arg), call. = FALSE)
  if (!is.null(n) && length(y) != n)
    stop(sprintf("`%s` must have length %d (one per row of the design), not %d.",
                 arg, n, length(y)), call. = FALSE)
  y
}

# A covariance given as a positive number (times I), a vector of variances,
# or a symmetric positive definite matrix.
mdl_cov <- function(x, arg, p) {
  if (is.numeric(x) && all(is.finite(x))) check_magnitude(x, arg)
  if (is.numeric(x) && is.null(dim(x)) && length(x) %in% c(1L, p) &&
      all(is.finite(x)) && all(x > 0)) {
    return(diag(as.double(x), p))
  }
  if (is.numeric(x) && is.matrix(x) && all(dim(x) == p) && all(is.finite(x)) &&
      isSymmetric(unname(x)) &&
      !inherits(try(chol(x), silent = TRUE), "try-error")) {
    storage.mode(x) <- "double"
    return(unname(x))
  }
  stop(sprintf(paste0("`%s` must be a positive number, a vector of %d positive ",
                      "variances or a %d x %d symmetric positive definite matrix."),
               arg, p, p, p), call. = FALSE)
}

mdl_vector <- function(x, arg, p) {
  if (!is.numeric(x) || !(length(x) %in% c(1L, p)) || any(!is.finite(x)))
    stop(sprintf("`%s` must be a finite number or a vector of length %d, not %s.",
                 arg, p, describe_value(x)), call. = FALSE)
  check_magnitude(x, arg)
  rep_len(as.double(x), p)
}

# Column names of a design matrix, with blanks filled by `prefix` and position.
mdl_design_names <- function(X, prefix) {
  cn <- colnames(X)
  if (is.null(cn)) cn <- rep("", ncol(X))
  blank <- is.na(cn) | cn == ""
  cn[blank] <- paste0(prefix, seq_len(ncol(X)))[blank]
  cn
}
