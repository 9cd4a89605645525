#' mcmix: MCMC samplers and Bayesian nonparametric mixtures
#'
#' Markov chain Monte Carlo samplers and Bayesian mixture models with a
#' compiled C core. Start with [dp_mixture()] and [sample_posterior()] for
#' clustering, or the generic samplers for your own log density.
#'
#' @keywords internal
#' @useDynLib mcmix, .registration = TRUE, .fixes = "C_"
"_PACKAGE"
