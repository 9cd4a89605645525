/*
 * mixture.h -- the mixture samplers of the engine (SEXP-free).
 *
 * A sampler advances an mcx_mix partition (mixture_state.h) by one sweep.
 * Scratch arrays are allocated once per chunk by mcx_finite_setup() (and
 * by the setup of the DP algorithms, mixture_dp.h); a sweep allocates
 * nothing (except the rare, amortised growth of the cluster buffers in
 * mixture_state.c).
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

/* The finite algorithms by name (a table in mixture_finite.c): an unknown
 * name is an internal error listing the known ones.  *keeps_weights /
 * *keeps_params tell whether the sweep draws the weights / parameters
 * (exported with the kept draws). */
mcx_finite_algorithm mcx_finite_algorithm_find(const char *name, int *keeps_weights,
                                               int *keeps_params);

void mcx_finite_setup(mcx_finite *s, const mcx_mix *m, mcx_finite_algorithm alg,
                      int K, const double *alpha);
/* One sweep.  Sets s->log_lik to log p(x | z, theta) (gibbs,
 * collapsed_weights; theta = the parameters the assignments were drawn
 * with) or to the collapsed log p(x | partition) (collapsed). */
void mcx_finite_sweep(mcx_mix *m, mcx_finite *s);

/* ---------------- prior simulators (mixture_rcrp.c) ---------------- */

/* One partition of n items from the Chinese restaurant process with
 * concentration alpha and discount d (Pitman-Yor; d = 0 is the DP).
 * labels[i] in 1..K in order of first appearance; counts (n ints) is
 * scratch.  Returns K. */
int mcx_rcrp(int n, double alpha, double d, int *labels, int *counts);

#endif
