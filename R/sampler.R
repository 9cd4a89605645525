# Helpers shared by the generic samplers (src/ffi_sampler.c): initial
# values, argument checks and the chunk runner that calls the C engine.

# Initial values for chain `chain`: `init` is a numeric vector (all chains),
# a list of numeric vectors (one per chain) or a function(chain) returning a
# numeric vector. Returns function(chain) -> checked numeric vector.
init_function <- function(init, tg, chains, arg = "init") {
  if (is.function(init)) {
    return(function(chain) {
      v <- init(chain)
      check_init(v, tg, sprintf("%s(%d)", arg, chain))
    })
  }
  if (is.list(init)) {
    if (length(init) != chains)
      stop(sprintf("`%s` is a list of length %d, but there are %d chains.",
                   arg, length(init), chains), call. = FALSE)
    vals <- lapply(seq_along(init), function(i)
      check_init(init[[i]], tg, sprintf("%s[[%d]]", arg, i)))
    if (length(unique(lengths(vals))) != 1L)
      stop(sprintf("the elements of `%s` must have the same length.", arg),
           call. = FALSE)
    return(function(chain) vals[[chain]])
  }
  v <- check_init(init, tg, arg)
  function(chain) v
}

# Names of the parameters: names(init) when given, else theta[1], ...
param_names <- function(init, d) {
  nm <- if (is.numeric(init)) names(init) else if (is.list(init)) names(init[[1L]])
  if (is.null(nm) || length(nm) != d || anyNA(nm) || any(!nzchar(nm)))
    nm <- if (d == 1L) "theta" else sprintf("theta[%d]", seq_len(d))
  nm
}

# Dimension implied by `init` (for checks done before any chain starts).
init_dim <- function(init, tg) {
  if (!is.na(tg$dim)) return(tg$dim)
  if (is.function(init)) {
    stop("`init` is a function, so the dimension of the target is unknown; ",
         "give `dim` in target().", call. = FALSE)
  }
  if (is.list(init)) length(init[[1L]]) else length(init)
}

# A positive number (or vector of length `len`, recycled from one value).
check_positive <- function(x, arg, len = 1L, allow_inf = FALSE) {
  ok <- is.numeric(x) && length(x) %in% unique(c(1L, len)) && !anyNA(x) &&
    all(x > 0) && (allow_inf || all(is.finite(x)))
  if (!ok) {
    what <- if (len == 1L) "a positive number" else
      sprintf("a positive number or a vector of %d positive numbers", len)
    stop(sprintf("`%s` must be %s, not %s.", arg, what, describe_object(x)),
         call. = FALSE)
  }
  rep_len(as.double(x), len)
}

# A probability strictly between 0 and 1.
check_prob <- function(x, arg) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x <= 0 || x >= 1)
    stop(sprintf("`%s` must be a number strictly between 0 and 1, not %s.",
                 arg, describe_object(x)), call. = FALSE)
  as.double(x)
}

# Symmetric positive definite d x d matrix; returns its lower Cholesky factor.
check_cov <- function(x, arg, d) {
  if (!is.null(d) && is.numeric(x) && length(x) == 1L && d == 1L)
    x <- matrix(x, 1, 1)
  if (!is.matrix(x) || !is.numeric(x) || anyNA(x) || any(!is.finite(x)) ||
      nrow(x) != ncol(x) || (!is.null(d) && nrow(x) != d))
    stop(sprintf("`%s` must be a %s numeric matrix, not %s.", arg,
                 if (is.null(d)) "square" else sprintf("%d x %d", d, d),
                 describe_object(x)), call. = FALSE)
  if (max(abs(x - t(x))) > 1e-8 * max(1, max(abs(x))))
    stop(sprintf("`%s` must be symmetric.", arg), call. = FALSE)
  L <- tryCatch(t(chol(x)), error = function(e) NULL)
  if (is.null(L))
    stop(sprintf("`%s` must be positive definite.", arg), call. = FALSE)
  L
}

# Run one chunk of a compiled sampler: `fn(targets, io, state, run, spec)`
# makes the .Call (a literal routine in the caller, so that the registration
# of the call can be checked), `targets` its first argument. Returns what a kernel's step() returns.
sampler_chunk <- function(fn, targets, dim, state, n, thin, offset, warmup,
                          spec, names) {
  run <- as.integer(c(n, thin, offset, warmup))
  spec$names <- names  # the C code names the columns (no copy of the draws)
  res <- with_target_io(dim, function(io)
    fn(targets, io, state, run, spec))
  list(state = res$state, draws = list(traces = res$traces))
}

# The common tail of every sampler: run the kernel and return the fit.
run_sampler <- function(kernel, iter, burnin, thin, chains, cores, backend,
                        progress, model, call) {
  run_kernel(kernel, iter = iter, burnin = burnin, thin = thin, chains = chains,
             cores = cores, backend = backend, progress = progress,
             labels = FALSE, model = model, call = call)
}

# Sum of a numeric state element over the chains of a fit.
state_sum <- function(fit, name) {
  Reduce(`+`, lapply(fit$chains, function(ch) ch$state[[name]]))
}
