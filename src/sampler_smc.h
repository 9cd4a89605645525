/*
 * sampler_smc.h -- population methods on targets (SEXP-free): tempered
 * sequential Monte Carlo, annealed importance sampling (sampler_smc.c) and
 * simulated annealing (sampler_anneal.c).
 *
 * The tempered densities are pi_beta(theta) ~ p(theta) L(theta)^beta with
 * the prior p and the likelihood L given as two target handles.
 * Particles are stored column-major, d x N (column i is particle i).
 */
#ifndef MCMIX_SAMPLER_SMC_H
#define MCMIX_SAMPLER_SMC_H

#include "mcmix_engine.h"
#include "sampler_target.h"

/* One random-walk Metropolis move of theta (d) targeting pi_beta, proposal
 * theta + L z with L lower triangular (d x d).  *ll and *lp are the log
 * likelihood and log prior at theta and are updated on acceptance.
 * work: d doubles.  Returns 1 when the move is accepted. */
int mcx_tempered_rw_move(mcx_tgt *lik, mcx_tgt *prior, double beta,
                         const double *L, int d, double *theta, double *ll,
                         double *lp, double *work);

/* Effective sample size 1 / sum W_i^2 of normalised log-weights. */
double mcx_ess_log(const double *logW, int N);

/* Add dbeta * ll to the normalised log-weights logW and renormalise;
 * returns log sum_i W_i exp(dbeta ll_i), the log of the increment of the
 * normalising constant (-Inf when every weight vanishes). */
double mcx_smc_reweight(double *logW, const double *ll, int N, double dbeta);

/* Largest step dbeta in (0, 1 - beta] whose conditional ESS
 * (sum W_i w_i)^2 / sum W_i w_i^2, w_i = exp(dbeta ll_i), is at least
 * cess * f0 * N, f0 the weight of the particles with a finite log
 * likelihood (bisection; 1 - beta when the last step qualifies). */
double mcx_smc_next_step(const double *logW, const double *ll, int N,
                         double beta, double cess, double *work);

/* Systematic resampling: idx[i] in 0..N-1 from normalised log-weights. */
void mcx_resample_systematic(const double *logW, int N, int *idx, double *work);

/* Lower Cholesky factor of scale^2 times the weighted covariance of the
 * particles (weights from normalised logW, NULL for equal weights), with a
 * small ridge when it is singular.  work: d + N + d * d doubles (the
 * last d * d hold the trial factorisations, so nothing is allocated per
 * stage). */
void mcx_particle_chol(const double *theta, const double *logW, int d, int N,
                       double scale, double *L, double *work);

/* Annealed importance sampling, one stage k: for every run i add
 * (beta_k - beta_{k-1}) ll_i to logw_i, then make n_moves moves targeting
 * pi_{beta_k} with proposal factor L.  Returns the number of accepted moves. */
double mcx_ais_stage(mcx_tgt *lik, mcx_tgt *prior, double beta_prev,
                     double beta, const double *L, int n_moves, int d, int N,
                     double *theta, double *ll, double *lp, double *logw,
                     double *work);

/* A particle population: particles th (d x N, column i is particle i),
 * their log likelihood, log prior and normalised log-weights, and, when
 * tracked, the Eve index of each particle (its ancestor at stage 0).  The
 * remaining arrays are scratch space for resampling. */
typedef struct mcx_pop {
    int d, N;
    double *th, *ll, *lp, *logW;
    int *eve;
    double *th2, *ll2, *lp2;
    int *idx, *eve2;
} mcx_pop;

/* Set up a population on the particles theta (d x N, kept, not copied):
 * scratch from mcx_alloc, equal weights, Eve indices 0..N-1 when
 * track_eve.  ll and lp are left for the caller to fill. */
void mcx_pop_init(mcx_pop *p, int d, int N, double *theta, int track_eve);

/* Multinomial resampling (N sorted uniforms in O(N)); work: 2 N doubles. */
void mcx_resample_multinomial(const double *logW, int N, int *idx, double *work);

/* Resample the population (multinomial or systematic), carrying the log
 * likelihoods, log priors and Eve indices; the weights become equal.
 * work: 2 N doubles. */
void mcx_pop_resample(mcx_pop *p, int multinomial, double *work);

/* n_moves random-walk Metropolis moves of every particle targeting
 * pi_beta with the proposal factor L; returns the number accepted.
 * work: d doubles. */
double mcx_pop_move(mcx_tgt *lik, mcx_tgt *prior, double beta, const double *L,
                    int n_moves, mcx_pop *p, double *work);

/* Lee-Whiteley estimate of Var(Z-hat) / Z^2 from the final normalised
 * log-weights, the Eve indices and the number of (multinomial) resampling
 * steps; *n_eves receives the number of distinct surviving Eve indices.
 * work: N doubles. */
double mcx_smc_relvar(const double *logW, const int *eve, int N, int n_resampled,
                      double *work, int *n_eves);

/* Simulated annealing: maximise the target's log density f from theta
 * (d).  Iteration k proposes theta + scale_j z_j and accepts with
 * probability min(1, exp((f' - f) / T_k)).  best/best_value hold the best
 * point seen; path (n x d, column-major) and values (n) the chain.
 * Runs iterations k_begin .. k_end - 1 of the n (0 <= k_begin <= k_end <= n),
 * so the caller can check interrupts between blocks; running the blocks in
 * order equals one call over 0 .. n - 1.
 * Returns the number of accepted moves among those iterations. */
double mcx_anneal_run(mcx_tgt *h, const double *temps, int n, int k_begin,
                      int k_end, const double *scale, double *theta, double *value,
                      double *best, double *best_value, double *path,
                      double *values, double *work);
#endif
