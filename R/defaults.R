#' Default priors and tuning constants of every sampler, and their scale
#'
#' Every default prior and tuning constant of the package is either
#' scale-free (a count, a probability, a concentration, a number on a
#' scale fixed by the model, such as the probit or logit scale), scaled to
#' the data, or tuned to the target during burn-in. The table below lists
#' them, sampler by sampler, with the scale each one is on. A default on
#' the scale of the user's variables would give a different answer for the
#' same data in other units; none is left, except where the table says
#' "units of the target" (a density you write yourself, whose scale the
#' package cannot know): there the adaptation, or the mixing warning of
#' `print()` and `summary()` (class `mcmix_warning_mixing`, see
#' [summary.mcmix_fit()]), says when the constant does not suit it.
#' Arguments you give are always used as given.
#'
#' @section Regression priors scaled to the data:
#' The regression samplers put their default priors on the centred
#' coefficients and map them back to the columns of the design matrix you
#' gave, as rstanarm does for its default priors; the draws, traces and
#' `predict()` are on the original scale. For a design matrix with an
#' intercept column (a column whose entries all equal one number
#' \eqn{c}) and other columns \eqn{x_j} with mean \eqn{m_j} and standard
#' deviation \eqn{s_j}, the linear predictor is written
#' \eqn{\alpha + \sum_j \beta_j (x_j - m_j)} with the centred intercept
#' \eqn{\alpha = c\beta_1 + \sum_j m_j \beta_j}, and the prior is
#' \deqn{\alpha \sim N(a_0, (k\, s_y)^2), \qquad
#'       \beta_j \sim N(0, (k\, s_y / s_j)^2)}
#' independently, which is a normal prior with a full covariance matrix on
#' the coefficients of the design matrix. Without an intercept column,
#' \eqn{s_j} is the root mean square of \eqn{x_j}. The constants are
#' * [hier_lm_gibbs()] (Gaussian response): \eqn{a_0} the mean of
#'   \eqn{y}, \eqn{s_y} its standard deviation, \eqn{k = 2.5} for the
#'   population mean \eqn{\mu} (`mu0`, `V0`); the inverse-Wishart scale
#'   `S0` is \eqn{\max(\eta_0 - p - 1, 1)} times the same covariance with
#'   \eqn{k = 1} (so the prior mean of \eqn{\Sigma} says that group
#'   coefficients vary by about one standard deviation of \eqn{y} per
#'   standard deviation of \eqn{x_j}), and `s0sq` is the variance of
#'   \eqn{y};
#' * [logit_gibbs()]: \eqn{a_0 = 0}, \eqn{s_y = 1}, \eqn{k = 2.5} on the
#'   logit scale;
#' * [probit_gibbs()]: \eqn{a_0 = 0}, \eqn{s_y = 1},
#'   \eqn{k = 2.5\, \mathrm{dlogis}(0)/\mathrm{dnorm}(0) \approx 1.57},
#'   since probit coefficients are about 0.63 times logit ones.
#'
#' [gp_classify()]'s default lengthscale is the standard deviation of each
#' input column. `print()` and `summary()` of these fits show a `Priors:`
#' line that says which priors were scaled to the data (with the
#' standard deviations used) and which were given. Chains of
#' [logit_gibbs()] and [probit_gibbs()] start at the prior mean plus a
#' normal jitter of standard deviation \eqn{k/2.5} on the centred intercept
#' and \eqn{(k/2.5)/s_j} on the slopes (a slope per dollar starts near 0
#' per dollar).
#'
#' @section The table:
#' | Sampler | Argument | Default | Scale |
#' |:--------|:---------|:--------|:------|
#' | [sample_mh()] | `proposal` | `proposal_rw()`: random walk with standard deviation 2.38 / sqrt(d) | units of the target; tuned by `adapt` |
#' | | `adapt` | `NULL`: `adapt_scale()` (burn-in only, target acceptance 0.234) for a random walk with burn-in, `adapt_none()` otherwise | scale-free (brings the step to the target's scale) |
#' | [adapt_scale()], [adapt_haario()] | `target_accept`, `kappa`, `start`, `eps` | 0.234, 0.6, 100, 1e-6 | scale-free (`eps` is added to a covariance in the target's units) |
#' | [mh_step()] (a block of [sample_gibbs()]) | `scale` | 1 | units of the target (the acceptance rate is checked) |
#' | [sample_gibbs()] | `blocks`, `scan` | one block per coordinate, systematic | scale-free |
#' | [sample_slice()] | `width`, `max_steps` | 1, 100 | units of the target: stepping out reaches 100 times `width`, shrinking any smaller scale |
#' | [sample_hmc()] | `step_size`, `n_steps`, `mass`, `target_accept` | 0.1 (tuned in burn-in), 20, 1, 0.65 | step size tuned to the target; `mass` in units of the target (ideally the inverse posterior variances) |
#' | [sample_nuts()] | `step_size`, `inv_metric`, `max_treedepth`, `target_accept` | 1 and 1 (both tuned in burn-in), 10, 0.8 | tuned to the target |
#' | [sample_tempering()] | `scale` | 2.38 / sqrt(d t) at temperature t | units of the target (the acceptance rate is checked) |
#' | [sample_smc()] | `n_particles`, `cess`, `resample_threshold`, `n_moves`, `scale` | 1000, 0.9, 0.5, 10, 2.38 / sqrt(d) times the particle covariance | scale-free (the particles carry the scale) |
#' | [ais()] | `temperatures`, `n_runs`, `n_moves`, `proposal_cov` | 100 d steps, 100, 3, tuned by pilot runs | scale-free |
#' | [anneal()] | `t0`, `t_final`, `scale` | from 100 trial moves at `init`; 1e-3 (or `t0 / 1000` if smaller); adapted per stage | scaled to the target (`t_final` on the scale of the log density) |
#' | [sample_abc()] | `tolerance` or `quantile` | none (one must be given) | units of the summaries |
#' | [map_partition()], [bn_map()] (`"anneal"`) | `schedule`, `restarts`, `max_icm` | powers 1 to 100 of the posterior, 200 steps evenly spaced on the log scale; 5; 100 | scale-free (powers of the posterior, counts) |
#' | [probit_gibbs()] | `prior_mean`, `prior_cov` | 0; scaled to the data, k = 1.57 (above) | probit scale, scaled to the covariates |
#' | [logit_gibbs()] | `prior_mean`, `prior_cov`, `prior_var` | 0; scaled to the data, k = 2.5 (above); `NULL` | logit scale, scaled to the covariates |
#' | | `nu`, `t_scale` | 8; pi sqrt((nu - 2) / (3 nu)) (the logistic's variance) | scale-free |
#' | [hier_lm_gibbs()] | `mu0`, `V0`, `S0`, `s0sq` | scaled to the data (above) | units of y and x |
#' | | `eta0`, `nu0` | p + 2, 1 | scale-free (degrees of freedom) |
#' | [gp_classify()] | `lengthscale`, `variance` | standard deviation of each column of `x`; 1 | units of `x`; probit scale |
#' | [ising_gibbs()], [ising_swendsen_wang()] | `J`, `h` | 1, 0 | scale-free (spins are +1 or -1) |
#' | [dp_mixture()] | `alpha`, `discount` | 1, 0 | scale-free |
#' | [finite_mixture()] | `alpha` | 1 | scale-free |
#' | [hdp_mixture()] | `gamma`, `alpha` | 1, 1 | scale-free |
#' | [rj_mixture()] | `components`, `k_max`, `k_prior`, `delta` | `rg_prior()`, 30, uniform, 1 | scale-free |
#' | [rg_prior()] | `xi`, `kappa`, `h`; `alpha`, `g` | midrange xi, 1 / R^2, 10 / R^2 of the data's range R; 2, 0.2 | scaled to the data; scale-free |
#' | [lda_model()] | `alpha`, `beta` | 50 / K, 0.01 | scale-free (counts) |
#' | [lca()] | `alpha`, `prior` | 1, 1 | scale-free (categories) |
#' | [bayes_net()], [factor_model()] | (none) | the tables given | scale-free |
#' | [dp_control()] | `m`, `kappa`, `t`, `moves`, `sc_moves` | 3, 0.5, 5, 1, 4 | scale-free (counts) |
#' | [gaussian_mean()] | `cov`, `prior_mean`, `prior_cov` | S / 4, column means, S (S the sample covariance) | scaled to the data |
#' | [gaussian_niw()] | `prior_mean`, `kappa`, `df`, `scale` | column means, 0.01, D + 2, max(df - D - 1, 1) S / 4 | scaled to the data |
#' | [gaussian_diag()], [gaussian_iso()] | `prior_mean`, `kappa`, `shape`, `rate` | column means, 0.01, 2, a quarter of the (mean) column variance | scaled to the data |
#' | [gaussian_nonconj()] | `prior_mean`, `prior_var`, `shape`, `rate` | the mean, the variance, 2, (shape - 1) times a quarter of the variance | scaled to the data |
#' | [bernoulli_beta()] | `a`, `b` | centred on each column's proportion, weight 2 | scaled to the data |
#' | [categorical_dirichlet()] | `alpha` | centred on each column's frequencies, weight K | scaled to the data |
#' | [poisson_gamma()] | `shape`, `rate` | 1, shape / (column mean) (prior mean the column mean) | scaled to the data |
#' | [product_family()], [auto_family()] | the families of the columns | as above, per column | scaled to the data |
#' | [r_family()] | (yours) | | |
#'
#' Run settings (`iter`, `burnin = floor(iter / 2)`, `thin`, `chains`)
#' are counts, the same for every sampler: see [mcmix-run-settings].
#'
#' @name mcmix-defaults
#' @aliases mcmix-defaults
#' @seealso [summary.mcmix_fit()] for the mixing warning; [auto_family()]
#'   for the mixture families chosen and scaled from a data frame.
#' @references Gabry, J. and Goodrich, B. Prior distributions for rstanarm
#'   models (rstanarm vignette). Vehtari, A., Gelman, A., Simpson, D.,
#'   Carpenter, B. and Bürkner, P.-C. (2021). Rank-normalization, folding,
#'   and localization: an improved R-hat for assessing convergence of MCMC.
#'   *Bayesian Analysis* 16, 667-718.
#' @examples
#' # the same data in other units give the same posterior, rescaled
#' set.seed(1)
#' x <- rnorm(50, 2000, 10)
#' y <- rbinom(50, 1, plogis(0.2 * (x - 2000)))
#' fit <- logit_gibbs(cbind(1, x), y, iter = 400, progress = FALSE)
#' fit
#' colMeans(as.matrix(fit))
NULL
