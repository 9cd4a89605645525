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
    r <- with_c_errors(routine(data, state, ctrl))   # R/conditions.R
    traces <- r$traces
    colnames(traces) <- trace_names
    list(state = r$state, draws = list(traces = traces, labels = r$spins))
  }
  new_kernel(name, init = init, step = step, trace_names = trace_names, ...)
}

# The one run path of the samplers: run `kernel` with the common settings
# (see ?mcmix-run-settings) and return the fit, of class
# c("mcmix_<kind>_fit", class, "mcmix_fit") (see fit_set_kind() in
# R/sampler.R). Every sampler takes `chains`, `cores`, `backend` and
# `progress` as arguments of its own, with the defaults of run_settings
# below, and passes them here unchanged (tests/testthat/test-conventions.R
# checks both); `threads`, where a sampler has threads, goes through
# run_threads() into its kernel. No other function of the package calls
# run_kernel().
run_fit <- function(kernel, iter, burnin, thin, chains, cores, backend, progress,
                    labels = FALSE, psm = FALSE, model = NULL, data = NULL, call = NULL,
                    kind, class = NULL) {
  fit <- run_kernel(kernel, iter = iter, burnin = burnin, thin = thin,
                    chains = chains, cores = cores, backend = backend,
                    progress = progress, labels = labels, psm = psm,
                    model = model, data = data, call = call)
  fit_set_kind(fit, kind, class)
}

# The defaults of the run settings, as every sampler writes them in its
# signature (checked by tests/testthat/test-conventions.R).
run_settings <- alist(chains = 1, cores = mcmix_option("cores"),
                      backend = mcmix_option("backend"), progress = interactive(),
                      threads = mcmix_option("threads"))

# The OpenMP threads of a chain of the samplers that have them (DP
# mixtures, LDA): `threads` checked, then at most the idle cores
# (R/mixture_dp.R). The draws never depend on it.
run_threads <- function(threads) threads_available(check_threads(threads))

#' Settings shared by every sampler
#'
#' Every sampler of the package (`sample_mh()`, `sample_posterior()`,
#' `probit_gibbs()`, ...) takes the same run settings, with the same names
#' and defaults:
#'
#' * `iter`: the number of iterations per chain that are kept (before
#'   thinning), run after the burn-in; default 1000.
#' * `burnin`: the number of burn-in iterations per chain, run first and
#'   not kept (adaptive samplers tune their proposal or step size there);
#'   default `floor(iter / 2)` everywhere.
#' * `thin`: keep every `thin`-th iteration; default 1.
#' * `chains`: the number of independent chains; default 1 (4 for the Gibbs
#'   sampler of Bayesian networks and factor models, whose near-deterministic
#'   tables can leave one chain stuck with nothing to show for it).
#' * `cores`: the number of chains run at the same time (option
#'   `mcmix.cores`, default 1).
#' * `backend`: how chains run in parallel (option `mcmix.backend`; see
#'   [run_kernel()]).
#' * `progress`: report progress (default `interactive()`).
#' * `threads`: OpenMP threads within each chain, for the samplers that have
#'   them (DP mixtures, LDA; option `mcmix.threads`, default 1).
#'
#' Every sampler takes these as arguments of its own, under these names and
#' with these defaults, and runs its chains through the same driver
#' ([run_kernel()]); [extend()] takes `cores`, `backend` and `progress`
#' again.
#'
#' Draws depend only on the seed set by [set.seed()] and these settings,
#' never on `cores` or `backend`; [extend()] of a fit gives the draws of one
#' longer run. The kernels that advance a chain call the burn-in phase
#' "warmup" (the `warmup` flag of the step function in [new_kernel()]).
#'
#' @section Argument order and names:
#' What is sampled comes first, then where the chains start, then the
#' model's options, then the run settings above:
#' * samplers of a density: the target first, then `init`
#'   ([sample_mh()], [sample_slice()], [sample_hmc()], [sample_nuts()]; the
#'   conditionals of [sample_gibbs()]); `init` may be left out when the
#'   target's dimension is known (uniform(-2, 2) starting values);
#' * models: the model, then the data ([sample_posterior()],
#'   [map_partition()]);
#' * regressions: the design matrix `x` (or a formula), then the response
#'   `y` ([logit_gibbs()], [probit_gibbs()], [gp_classify()],
#'   [hier_lm_gibbs()]).
#'
#' Former orders and names (`sample_gibbs(init, conditionals)`,
#' `hier_lm_gibbs(y, X, group)`, `X` and `X_test` in [gp_classify()]) still
#' work with a warning of class `mcmix_deprecated`.
#'
#' @name mcmix-run-settings
#' @seealso [run_kernel()], [extend()]
NULL
