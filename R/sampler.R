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

# Initial values when `init` is missing: as Stan, uniform(-2, 2) in every
# coordinate (the targets here are densities on the whole real space, the
# unconstrained scale), drawn for each chain from the chain's own random
# number stream, so the runs are reproducible whatever the backend. Needs
# the target's dimension: a compiled target's, or target(..., dim = ).
random_init <- function(target) {
  tg <- as_target(target)
  if (is.na(tg$dim))
    stop_input(paste0("`init` is missing and the dimension of the target is unknown: give ",
                      "`init` (initial values), or the dimension with target(f, dim = ) ",
                      "for initial values drawn uniformly on (-2, 2)."), "init")
  d <- tg$dim
  structure(function(chain) stats::runif(d, -2, 2), class = "mcmix_random_init")
}

# How the initial values were chosen, for the fit's model description.
init_label <- function(init)
  if (inherits(init, "mcmix_random_init")) "random initial values, uniform(-2, 2)" else NULL

# Names of the parameters: names(init) when given, else theta[1], ...
param_names <- function(init, d) {
  nm <- if (is.numeric(init)) names(init) else if (is.list(init)) names(init[[1L]])
  if (is.null(nm) || length(nm) != d || anyNA(nm) || any(!nzchar(nm)))
    nm <- if (d == 1L) "theta" else sprintf("theta[%d]", seq_len(d))
  nm
}

# The checks that open sample_hmc() and sample_nuts(): the counts, the
# target and its dimension (see init_dim()).
sampler_setup <- function(target, init, iter, burnin, chains) {
  iter <- check_count(iter, "iter", 1L)
  tg <- as_target(target)
  chains <- check_count(chains, "chains", 1L)
  burnin <- check_count(burnin, "burnin", 0L)
  list(iter = iter, tg = tg, chains = chains, burnin = burnin,
       d = init_dim(init, tg))
}

# Dimension implied by `init` (for checks done before any chain starts): the
# target's, else the length of the initial values (of init(1) for a function).
init_dim <- function(init, tg) {
  if (!is.na(tg$dim)) return(tg$dim)
  if (is.function(init)) {
    # the dimension is the length of init(1); the call is made with the
    # caller's generator saved and put back, so it changes no draw
    saved <- rng_save()
    on.exit(rng_restore(saved))
    v <- tryCatch(init(1L), error = function(e)
      stop(sprintf("`init` is a function, and init(1) failed (%s); give `dim` in target().",
                   conditionMessage(e)), call. = FALSE))
    if (!is.numeric(v) || !length(v))
      stop(sprintf("`init` must be a function returning a numeric vector; init(1) returned %s.",
                   describe_value(v)), call. = FALSE)
    return(length(v))
  }
  if (is.list(init) && !length(init))
    stop(sprintf("`init` must be a numeric vector, a list of them (one per chain) or a function, not %s.",
                 describe_value(init)), call. = FALSE)
  d <- if (is.list(init)) length(init[[1L]]) else length(init)
  check_budget(64 * as.double(d), "init", sprintf("a target of dimension %s", format_count(d)),
               fix = "use a target of lower dimension")
  d
}

# The chunk of a kernel's step() as the C glue reads it (src/mcmix_chunk.h):
# iterations offset + 1 .. offset + n, kept iff !warmup && g %% thin == 0.
chunk_ctrl <- function(n, thin, offset, warmup)
  as.integer(c(n, thin, offset, warmup))

# Run one chunk of a compiled sampler: `fn(targets, io, state, run, spec)`
# makes the .Call (a literal routine in the caller, so that the registration
# of the call can be checked), `targets` its first argument. Returns what a kernel's step() returns.
sampler_chunk <- function(fn, targets, dim, state, n, thin, offset, warmup,
                          spec, names) {
  run <- chunk_ctrl(n, thin, offset, warmup)
  spec$names <- names  # the C code names the columns (no copy of the draws)
  # points rejected for a non-finite value of the target (a state saved
  # before the count existed starts it at 0)
  if (is.null(state$n_nonfinite)) state$n_nonfinite <- 0
  res <- with_target_io(dim, function(io)
    fn(targets, io, state, run, spec))
  # NUTS: the sampler parameters of each kept iteration, one list element
  # per iteration (so the chain's `extra` does not depend on the chunks)
  sp <- res$sampler_params
  extra <- if (NROW(sp)) lapply(seq_len(nrow(sp)), function(i) sp[i, ])
  list(state = res$state, draws = list(traces = res$traces, extra = extra))
}

# The common tail of sample_mh(), sample_hmc() and sample_slice(): a kernel
# `name` over the target `tg` of dimension `d` whose chains start from
# `init_state(theta)`, theta = init_fun(chain) (see init_function()), and
# advance by `routine` (see sampler_chunk()). Fixed initial values are
# checked against the target before any chain starts. Returns the fit.
run_target_sampler <- function(name, routine, tg, d, init, init_fun, init_state,
                               spec, iter, burnin, thin, chains, cores, backend,
                               progress, model, call) {
  names <- param_names(init, d)
  kernel <- new_kernel(name,
    init = function(chain) init_state(init_fun(chain)),
    step = function(state, n, thin, offset, warmup)
      sampler_chunk(routine, tg, d, state, n, thin, offset, warmup, spec, names),
    trace_names = names, width_arg = "init")   # the dimension, for check_draws_budget()
  if (!is.function(init)) target_probe(tg, init_fun(1L))
  run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress,
              model = model, call = call, kind = name)
}

# The class of a fit says what it is: c("mcmix_<kind>_fit", <intermediate
# classes>, "mcmix_fit"), with `kind` one of mh, slice, hmc, gibbs,
# tempering, probit, gp_classify, ising, hier_lm, finite, dp, hdp, lda.
# Methods tell kinds apart by class (never by fit$model$type).
fit_set_kind <- function(fit, kind, extra = NULL) {
  class(fit) <- unique(c(paste0("mcmix_", kind, "_fit"), extra, "mcmix_fit"))
  fit
}

# Sum of a numeric state element over the chains of a fit.
state_sum <- function(fit, name) {
  Reduce(`+`, lapply(fit$chains, function(ch) ch$state[[name]]))
}
