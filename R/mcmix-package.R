#' mcmix: MCMC samplers and Bayesian nonparametric mixtures
#'
#' Markov chain Monte Carlo samplers and Bayesian mixture models with a
#' compiled C core. Every sampler returns a fit (class `mcmix_fit`) with the
#' same methods: `print()`, `summary()` (R-hat and effective sample sizes),
#' `plot()`, [extend()] to continue the run, and conversions to a matrix, a
#' data frame, coda's `mcmc.list` and the posterior package's draws objects
#' (so bayesplot's `mcmc_*()` plots take a fit directly). The vignettes give
#' worked examples: `vignette("mcmix")` for clustering,
#' `vignette("data-frames")` for mixed-type tables with missing values,
#' `vignette("samplers")` for the generic samplers, `vignette("nonparametric")`
#' for the other nonparametric models, `vignette("evidence")` for marginal
#' likelihoods, `vignette("model-comparison")` for LOO beside the evidence and
#' `vignette("plugins")` for families and targets written in C.
#'
#' @section Mixture models and clustering:
#' * Models: [dp_mixture()] (Dirichlet process and Pitman-Yor mixtures),
#'   [finite_mixture()], [rj_mixture()] (unknown number of components, with
#'   [rg_prior()]), [hdp_mixture()] (groups sharing clusters), [lca()]
#'   (latent class analysis); priors [gamma_prior()], [beta_prior()];
#'   sampler settings [dp_control()].
#' * Component families: [gaussian_niw()], [gaussian_diag()],
#'   [gaussian_iso()], [gaussian_mean()], [gaussian_nonconj()],
#'   [bernoulli_beta()], [categorical_dirichlet()], [poisson_gamma()];
#'   [product_family()] and [auto_family()] for the columns of a data frame;
#'   [r_family()] for a family written in R; [mcmix_family()] and
#'   [mcmix_families()] for families registered by name (also from other
#'   packages, see `vignette("plugins")`).
#' * Fitting: [sample_posterior()]; [map_partition()] for the MAP partition
#'   by annealing and iterated conditional modes.
#' * The partition: [partition()] (point estimate), [online_partition()]
#'   (online estimate of a large fit), [partition_draws()],
#'   [psm()] (posterior similarity matrix), [credible_ball()],
#'   [posterior_k()] (number of clusters), [shared_clusters()] (HDP).
#' * Clusters: [component_draws()] (weights and parameters per draw),
#'   [cluster_profiles()], [lca_probs()], [imputed_draws()] (missing values),
#'   predictive densities and cluster probabilities with `predict()`
#'   ([predict.mcmix_mixture_fit()], [predict.mcmix_hdp_fit()],
#'   [predict.mcmix_rj_fit()]).
#' * Plots: [plot_clusters()], [plot_coclustering()],
#'   [plot.mcmix_profiles()], [plot.mcmix_map_partition()].
#' * Priors over partitions and measures: [rcrp()], [rdp()], [rstick()].
#'
#' @section Topic models:
#' [lda_model()] with [sample_posterior.mcmix_lda()] (corpora as token
#' lists, count matrices, Matrix and slam/tm sparse matrices or quanteda
#' dfms); [topic_word()], [doc_topic()], [top_terms()], [perplexity()];
#' new documents with [predict()][predict.mcmix_lda_fit()].
#'
#' @section Generic samplers for your own density:
#' * The target: [target()] (an R function with an optional gradient, or a
#'   compiled target from another package), [target_eval()].
#' * Samplers: [sample_mh()] with [proposals] and [adaptation],
#'   [sample_slice()], [sample_hmc()], [sample_nuts()], [sample_gibbs()]
#'   (with [mh_step()] for conditionals without a closed form),
#'   [sample_tempering()] (parallel tempering), [sample_smc()] (tempered
#'   sequential Monte Carlo), [sample_abc()] (rejection ABC), [anneal()]
#'   (simulated annealing for a mode).
#' * Your own kernel: [new_kernel()] and [run_kernel()], which give it
#'   chains, backends, interrupts and [extend()].
#' * Settings shared by every sampler: [mcmix-run-settings] (iterations,
#'   chains, cores and `future` backends, progress, memory budgets).
#'
#' @section Regression and other models:
#' [probit_gibbs()], [logit_gibbs()] (with [rpolyagamma()]),
#' [hier_lm_gibbs()], [gp_classify()] and their `predict()` methods
#' ([predict.mcmix_probit_fit()], [predict.mcmix_logit_fit()],
#' [predict.mcmix_gpclass()]); the Ising model [ising_gibbs()],
#' [ising_swendsen_wang()], [ising_mean()]; discrete Bayesian networks
#' [bayes_net()], [factor_model()], [bayes_net_asia()], [bn_marginals()],
#' [bn_map()], [posterior_marginals()].
#'
#' @section Diagnostics:
#' [summary.mcmix_fit()], [plot.mcmix_fit()], [rhat()], [ess()], [mcse()],
#' [chain_acf()], [autocorr()], [plot_acf()], [acceptance()],
#' [swap_rates()], [hmc_step_size()], [hmc_divergences()],
#' [nuts_diagnostics()].
#'
#' @section Marginal likelihood (evidence):
#' [evidence] (which method when), [chib_evidence()], [bridge_evidence()],
#' [ais()], [sample_smc()], [harmonic_mean_evidence()].
#'
#' @section Working with fits:
#' The stats generics: [coef()][coef.mcmix_fit()], `vcov()`, `confint()`,
#' [posterior_interval()], [fitted()][fitted.mcmix_fit()], `residuals()`,
#' `nobs()`, [formula()][formula.mcmix_fit()], [logLik()][logLik.mcmix_fit()],
#' `update()` and [window()][window.mcmix_fit()]; posterior predictions and
#' pointwise log-likelihoods for `loo` and `bayesplot::pp_check()`:
#' [posterior_predict()], [log_lik()]; [tidy()][tidy.mcmix_fit()] and
#' `glance()` when the generics package is installed.
#' [extend()] continues a run exactly; [as.matrix()][as.matrix.mcmix_fit()],
#' [as.data.frame()][as.data.frame.mcmix_fit()],
#' [as.array()][as.array.mcmix_fit()], [as.mcmc.list()][as.mcmc.list.mcmix_fit()]
#' and [as_draws()][as_draws.mcmix_fit()] hand the draws to other packages;
#' [format()][format.mcmix_fit()] gives one-line descriptions. Errors are
#' classed conditions ([mcmix-conditions]).
#'
#' @section Options:
#' Every option (`mcmix.cores`, `mcmix.threads`, `mcmix.backend`, the
#' budgets, the intervals of parallel runs, the defaults for large data,
#' ...), with its default and the values it takes, is on one page:
#' [mcmix-options]; see also [mcmix-run-settings] and [sample_posterior()].
#'
#' @keywords internal
#' @useDynLib mcmix, .registration = TRUE, .fixes = "C_"
"_PACKAGE"
