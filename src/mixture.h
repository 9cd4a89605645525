/*
 * mixture.h -- the mixture samplers of the engine (SEXP-free).
 *
 * A sampler advances an mcx_mix partition (mixture_state.h) by one sweep.
 * Scratch arrays are allocated once per chunk by mcx_finite_setup() /
 * mcx_dp_setup(); a sweep allocates nothing (except the rare, amortised
 * growth of the cluster buffers in mixture_state.c).
 */
#ifndef MCMIX_MIXTURE_H
#define MCMIX_MIXTURE_H

#include "mixture_state.h"

/* ---------------- finite mixtures (mixture_finite.c) ---------------- */

typedef enum {
    MCX_FINITE_GIBBS = 0,             /* z | w, theta;  w | z;  theta | z */
    MCX_FINITE_COLLAPSED_WEIGHTS = 1, /* w integrated out: z | theta;  theta | z */
    MCX_FINITE_COLLAPSED = 2          /* w and theta integrated out */
} mcx_finite_algorithm;

typedef struct {
    mcx_finite_algorithm algorithm;
    int K;                 /* number of components (m->K == K always) */
    const double *alpha;   /* Dirichlet parameters of the weights, K */
    size_t psize;          /* doubles per component parameter */
    double *weights;       /* K: last weights drawn (gibbs) */
    double *theta;         /* psize * K: last component parameters drawn */
    double log_lik;        /* see mcx_finite_sweep() */
    /* scratch */
    double *logw, *ll, *dir;
    int *perm;
} mcx_finite;

void mcx_finite_setup(mcx_finite *s, const mcx_mix *m, mcx_finite_algorithm alg,
                      int K, const double *alpha);
/* One sweep.  Sets s->log_lik to log p(x | z, theta) (gibbs,
 * collapsed_weights; theta = the parameters the assignments were drawn
 * with) or to the collapsed log p(x | partition) (collapsed). */
void mcx_finite_sweep(mcx_mix *m, mcx_finite *s);

/* ------------- Dirichlet / Pitman-Yor process mixtures (mixture_dp.c) ------------- */

typedef struct {
    double alpha;          /* concentration (> -discount) */
    double discount;       /* Pitman-Yor discount in [0, 1); 0 for the DP */
    int alpha_random;      /* 1: Gamma(shape, rate) prior, updated each sweep */
    double shape, rate;
    double log_lik;        /* collapsed log p(x | partition) after the sweep */
    /* scratch */
    double *logw;          /* n + 1 */
    double *log_count;     /* n + 1: log(j - discount), j = 1..n */
    double *prior_pred;    /* n: log p(x_i) under the prior predictive */
    int *perm;             /* n */
} mcx_dp;

void mcx_dp_setup(mcx_dp *s, const mcx_mix *m, double alpha, double discount,
                  int alpha_random, double shape, double rate);
/* One collapsed (CRP) Gibbs sweep over a random permutation of the
 * observations, then the concentration update when alpha_random. */
void mcx_dp_collapsed_sweep(mcx_mix *m, mcx_dp *s);
/* Escobar & West (1995, sec. 6) auxiliary-variable update of the DP
 * concentration given K clusters among n observations, Gamma(shape, rate)
 * prior: eta ~ Beta(alpha + 1, n), then alpha from the two-component
 * Gamma mixture. */
double mcx_dp_alpha_update(double alpha, int K, int n, double shape, double rate);

/* ---------------- prior simulators (prior.c) ---------------- */

/* One partition of n items from the Chinese restaurant process with
 * concentration alpha and discount d (Pitman-Yor; d = 0 is the DP).
 * labels[i] in 1..K in order of first appearance; counts (n ints) is
 * scratch.  Returns K. */
int mcx_rcrp(int n, double alpha, double d, int *labels, int *counts);

#endif
