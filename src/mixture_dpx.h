/*
 * mixture_dpx.h -- further samplers for Dirichlet / Pitman-Yor process
 * mixtures (SEXP-free), beside the collapsed Gibbs sampler of mixture_dp.c:
 *
 *   mixture_neal8.c       Neal (2000) algorithm 8, m auxiliary components;
 *                         conjugate and non-conjugate families;
 *   mixture_slice.c       Kalli, Griffin & Walker (2011) slice sampler on the
 *                         stick-breaking representation;
 *   mixture_splitmerge.c  Jain & Neal (2004) restricted-Gibbs split-merge
 *                         moves interleaved with collapsed Gibbs scans;
 *   mixture_discount.c    slice update of a Pitman-Yor discount with a Beta
 *                         prior, given the partition.
 *
 * All of them advance an mcx_mix partition (mixture_state.h).  Scratch is
 * allocated once per chunk by the *_setup() functions; a sweep allocates
 * nothing except the rare, amortised growth of the cluster buffers.
 */
#ifndef MCMIX_MIXTURE_DPX_H
#define MCMIX_MIXTURE_DPX_H

#include "mixture.h"

/* The prior over partitions shared by the samplers: concentration alpha,
 * discount d (Pitman-Yor; d = 0 is the DP).  Random alpha: Gamma(shape,
 * rate) prior (needs d = 0); random d: Beta(da, db) prior (fixed alpha). */
typedef struct {
    double alpha, discount;
    int alpha_random, discount_random;
    double shape, rate;       /* Gamma prior of alpha */
    double da, db;            /* Beta prior of the discount */
} mcx_py_prior;

/* ---------------- mixture_discount.c ---------------- */

/* log p(d | partition) up to a constant, for the cluster sizes size[0 ..
 * nslots-1] (empty slots are skipped; K = the non-empty ones):
 *   (da - 1) log d + (db - 1) log(1 - d) + sum_{j=1}^{K-1} log(alpha + j d)
 *   + sum_k [lgamma(n_k - d) - lgamma(1 - d)]        (Pitman 2006, eq. 3.6) */
double mcx_py_discount_logpost(double d, double alpha, const int *size, int nslots,
                               double da, double db);
/* One slice-sampling update of d on (max(0, -alpha), 1) (Neal 2003,
 * shrinkage from the whole support). */
double mcx_py_discount_update(double d, double alpha, const int *size, int nslots,
                              double da, double db);
/* Updates of alpha (Escobar-West, d = 0) and d (slice) after a sweep, as
 * their priors ask; keeps the log(j - d) table of `dp` (if not NULL) in
 * step with d. */
void mcx_py_prior_update(mcx_py_prior *p, const mcx_mix *m, mcx_dp *dp);

/* ---------------- mixture_neal8.c ---------------- */

typedef struct {
    int m_aux;             /* number of auxiliary components */
    int conjugate;         /* parameter update: exact posterior draw */
    size_t psize;          /* doubles per component parameter */
    double *theta;         /* psize * (n + 1): parameters of clusters 0..K-1 */
    double *aux;           /* psize * m_aux */
    double *logw;          /* n + m_aux */
    double *log_count;     /* n + 1: log(j - d) */
    double *xbuf;          /* dim * n: members of one cluster */
    int *perm, *order, *start;
    double log_lik;        /* see mcx_neal8_sweep() */
} mcx_neal8;

/* theta0: psize x K parameters of the current clusters, or NULL to draw
 * them from their conditional given the members (a fresh state). */
void mcx_neal8_setup(mcx_neal8 *s, mcx_mix *m, const mcx_py_prior *p, int m_aux,
                     const double *theta0);
/* One sweep: assignments (Neal 2000, algorithm 8), then one update of every
 * cluster's parameter.  log_lik: the collapsed log p(x | partition) for a
 * conjugate family, else log p(x | z, theta). */
void mcx_neal8_sweep(mcx_mix *m, mcx_neal8 *s, mcx_py_prior *p);
/* Refresh the log(j - d) table after d changed. */
void mcx_neal8_set_discount(mcx_neal8 *s, int n, double d);

/* ---------------- mixture_slice.c ---------------- */

typedef struct {
    int geometric;         /* xi_j = (1 - kappa) kappa^(j-1); else xi_j = w_j */
    double kappa;
    size_t psize;
    int cap;               /* capacity of the stick arrays */
    double *v, *w;         /* log(1 - v_j), log w_j (in logs: no underflow) */
    double *theta, *logw;
    double *u;             /* n */
    double *swap;          /* one stats block */
    int *cand;             /* candidate sticks of one observation */
    int n_sticks;          /* sticks instantiated in the last sweep */
    double max_sticks;     /* budget: more sticks is an error (0: no limit) */
    double log_lik;        /* collapsed log p(x | partition) */
} mcx_slice;

void mcx_slice_setup(mcx_slice *s, const mcx_mix *m, int geometric, double kappa);
/* One sweep: label swaps; v, theta | z; alpha | v (Gamma prior); u | z, v;
 * then z | u, v, theta.  Clusters of `m` are the sticks (labels may leave empty
 * sticks); trailing empty sticks are dropped. */
void mcx_slice_sweep(mcx_mix *m, mcx_slice *s, mcx_py_prior *p);

/* ---------------- mixture_splitmerge.c ---------------- */

typedef struct {
    int t;                 /* intermediate restricted Gibbs scans */
    int moves;             /* split-merge proposals per sweep */
    double *sa, *sb, *sm;  /* stats blocks of the two launch clusters, merged */
    int *S, *side;         /* n each */
    double n_accept, n_prop;
} mcx_splitmerge;

void mcx_splitmerge_setup(mcx_splitmerge *s, const mcx_mix *m, int t, int moves);
/* `moves` split-merge proposals (conjugate families; prior of `dp`). */
void mcx_splitmerge_moves(mcx_mix *m, mcx_splitmerge *s, const mcx_dp *dp);

#endif
