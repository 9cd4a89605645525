/*
 * rng.h -- random variates built on R's generator only (unif_rand,
 * norm_rand, exp_rand and Rmath), so set.seed() reproduces everything.
 * Callers bracket a .Call with GetRNGstate()/PutRNGstate().
 * Matrices are column-major; "chol" means the lower Cholesky factor L (A = L L').
 */
#ifndef MCMIX_RNG_H
#define MCMIX_RNG_H

/* Index in 0..k-1 drawn with probabilities proportional to exp(logw[i]).
 * logw is overwritten (by the normalised weights).  -Inf entries have
 * probability 0; at least one entry must be finite. */
int    mcx_rcat_log(double *logw, int k);
/* The same draw (same uniform, same result) with logw overwritten by the
 * unnormalised weights exp(logw - max logw): for hot loops that do not
 * need the probabilities. */
int    mcx_rcat_log_unnorm(double *logw, int k);
/* Index in 0..k-1 with probabilities proportional to w[i] >= 0 (sum given). */
int    mcx_rcat(const double *w, int k, double total);
double mcx_rgamma(double shape, double rate);           /* Gamma(shape, rate) */
double mcx_rbeta(double a, double b);
/* log of a Gamma(shape, 1) draw, accurate for tiny shapes (no underflow). */
double mcx_rlog_gamma(double shape);
/* A positive concentration from Gamma(shape, rate): drawn on the log scale
 * (mcx_rlog_gamma) and kept >= DBL_MIN, so tiny shapes never give 0. */
double mcx_rgamma_conc(double shape, double rate);
/* Dirichlet(alpha[0..k-1]) into p; safe for small alpha (works in logs). */
void   mcx_rdirichlet(const double *alpha, int k, double *p);
/* out = mu + L z, z ~ N(0, I_d).  mu may be NULL (zero mean). */
void   mcx_rmvnorm_chol(const double *mu, const double *L, int d, double *out);
/* out = mu + L^{-T} z: a draw from N(mu, (L L')^{-1}) given the Cholesky
 * factor L of the precision matrix.  mu may be NULL. */
void   mcx_rmvnorm_prec_chol(const double *mu, const double *L, int d, double *out);
/* Wishart(nu, S) with S = L L' (Bartlett decomposition); W is d x d.
 * work: d*d doubles. Requires nu > d - 1. */
void   mcx_rwishart_chol(double nu, const double *L, int d, double *W, double *work);
/* Inverse-Wishart(nu, Psi) with Psi = L L' (E = Psi / (nu - d - 1)); Sigma d x d.
 * work: 2*d*d doubles. */
void   mcx_rinvwishart_chol(double nu, const double *L, int d, double *Sigma, double *work);
/* N(mu, sd^2) truncated to (a, Inf) / (-Inf, b); exact far in the tails
 * (Robert 1995 exponential rejection beyond the mean). */
double mcx_rtnorm_lower(double mu, double sd, double a);
double mcx_rtnorm_upper(double mu, double sd, double b);
/* Random permutation of 0..n-1 into perm (Fisher-Yates). */
void   mcx_rperm(int *perm, int n);
/* The n entries of perm in a uniformly random order (Fisher-Yates). */
void   mcx_rshuffle(int *perm, int n);
#endif
