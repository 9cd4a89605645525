/*
 * mixture_rj.h -- reversible-jump samplers for finite mixtures with an
 * unknown number of components K (Murphy 2012, section 24.3.7;
 * Richardson and Green 1997).  SEXP-free.
 *
 * Both samplers share the move probabilities between K and K + 1:
 * b_K (split / birth) and d_{K+1} = 1 - b_{K+1} (combine / death), with
 * b_K = d_K = 1/2 except b_kmax = 0 and d_1 = 0, and a prior p(K) on
 * 1..kmax given by its logarithm.
 *
 * mixture_rj.c: univariate Gaussian mixtures with Richardson and Green's
 * priors, all parameters instantiated:
 *   w | K ~ Dirichlet(delta, ..., delta),  z_i | w ~ w,
 *   mu_j ~ N(xi, 1/kappa),  1/sigma2_j ~ Gamma(alpha, beta),
 *   beta ~ Gamma(g, h)  (rates),  components ordered by mu.
 * mixture_rj_collapsed.c: any conjugate family of the registry, with the
 * weights and the component parameters integrated out; the state is K
 * and the labelled allocation z in 0..K-1 (empty components allowed).
 */
#ifndef MCMIX_MIXTURE_RJ_H
#define MCMIX_MIXTURE_RJ_H

#include "mixture_state.h"

/* Move counters: proposals and acceptances of split, combine, birth, death. */
enum { MCX_RJ_SPLIT = 0, MCX_RJ_COMBINE, MCX_RJ_BIRTH, MCX_RJ_DEATH, MCX_RJ_NMOVES };

typedef struct {
    int kmax;
    const double *logpk;    /* log p(K = k) at logpk[k - 1], k = 1..kmax */
    double delta;           /* Dirichlet parameter of each weight */
    double tries[MCX_RJ_NMOVES], accepts[MCX_RJ_NMOVES];
} mcx_rj_common;

/* log b_k and log d_k (the split/birth and combine/death probabilities). */
double mcx_rj_log_b(const mcx_rj_common *c, int k);
double mcx_rj_log_d(const mcx_rj_common *c, int k);

/* ---------------- Richardson-Green (mixture_rj.c) ---------------- */

typedef struct {
    mcx_rj_common c;
    double xi, kappa, alpha, g, h;     /* priors (see above) */
    int n;
    const double *y;
    /* state; arrays of kmax + 1 entries, components 0..k-1 ordered by mu */
    int k;
    double *w, *mu, *s2, beta;
    int *z, *nk;
    /* scratch */
    double *a, *sum, *ss;
    int *map, *side;
} mcx_rg;

/* Allocate the arrays (mcx_alloc) for n observations and kmax components. */
void mcx_rg_setup(mcx_rg *s, int n, const double *y, int kmax);
/* One sweep: weights, means (then re-ordering), variances, allocations,
 * beta, one split-or-combine and one birth-or-death proposal. */
void mcx_rg_sweep(mcx_rg *s);
/* Observed-data log-likelihood sum_i log sum_j w_j N(y_i | mu_j, s2_j). */
double mcx_rg_log_lik(const mcx_rg *s);

/* ---------------- collapsed (mixture_rj_collapsed.c) ---------------- */

typedef struct {
    mcx_rj_common c;
    /* scratch: three stats blocks, one log-weight per component, a
     * permutation of the observations and the members of a move */
    double *sa, *sb, *saved, *logw;
    int *perm, *members;
} mcx_rjc;

void mcx_rjc_setup(mcx_rjc *s, const mcx_mix *m, int kmax);
/* One sweep: collapsed Gibbs on z given K, one split-or-merge and one
 * birth-or-death proposal (m->K is the current K). */
void mcx_rjc_sweep(mcx_mix *m, mcx_rjc *s);
/* log p(z | K) + log p(x | z) with the weights and parameters integrated out. */
double mcx_rjc_log_post(const mcx_mix *m, const mcx_rjc *s);

#endif
