/*
 * model_hdp.h -- SEXP-free engine of the hierarchical Dirichlet process
 * mixture: direct-assignment Gibbs sampling (Teh et al. 2006, sec. 5.3;
 * model_hdp.c) with split-merge moves of the global clusters
 * (model_hdp_splitmerge.c: restricted passes and sub-cluster splits;
 * model_hdp_sams.c: sequentially allocated moves with merge partners by
 * gain) over the state's bookkeeping (model_hdp_state.c).  The files call
 * downwards only: model_hdp.c -> model_hdp_splitmerge.c ->
 * model_hdp_sams.c -> model_hdp_state.c.  Glue: ffi_hdp.c.
 *
 * A call runs iterations offset + 1 .. offset + n_iter; unless `warmup`,
 * iteration g is kept iff g %% thin == 0.  The state (z, beta, the
 * concentrations, the clusters' stats and the move counters) holds
 * everything needed to continue, so running in chunks equals one longer
 * run.
 */
#ifndef MCMIX_MODEL_HDP_H
#define MCMIX_MODEL_HDP_H

#include "mcmix_engine.h"
#include "mixture_state.h"
#include "mixture_dp.h"
#include "mixture_splitmerge.h"
#include "mixture_subcluster.h"

typedef struct mcx_hdp {
    mcx_mix mix;              /* clusters (observations in overall order) */
    int J;                    /* groups */
    const int *group;         /* n: group of each observation, 0 .. J-1 */
    int *n_j;                 /* J: group sizes */
    int cap;                  /* capacity of the per-cluster arrays below */
    int *njk;                 /* cap x J: njk[k * J + j] */
    int *mk;                  /* cap: tables serving dish k (m_.k) */
    double *beta;             /* cap + 1: global weights, beta[K] = beta_u */
    double *logw;             /* cap + 1: scratch */
    /* The concentrations as partition priors (mixture_prior.c): `top` the
     * DP(gamma) over the dishes of the m_.. tables (alpha field = gamma),
     * `grp` the J group-level DP(alpha)s sharing one alpha. */
    mcx_partition_prior top, grp;
    int m_total;              /* m_.. after the last table draw */
    /* split-merge moves (model_hdp_splitmerge.c) */
    int sm_moves;             /* proposals per sweep (0: Gibbs only) */
    int sm_kind;              /* MCX_HDP_SAMS (restricted passes, sm) or
                               * MCX_HDP_SUBCLUSTER (sc) */
    mcx_subcluster *sc;       /* sub-cluster proposals (mixture_subcluster.h) */
    int gain_moves;           /* sequentially allocated moves with merge
                               * partners by gain per sweep (kind
                               * MCX_HDP_SUBCLUSTER; model_hdp_sams.c) */
    int gibbs;                /* 1: the Gibbs scan of z runs (0: moves only,
                               * for tests of the moves alone) */
    mcx_sm sm;                /* proposal machinery (mixture_splitmerge.h) */
    int *side_nj;             /* 2 x J: members of each group on sides A, B */
    int *order;               /* n: the order of a reallocation's passes */
    double side_a;            /* allocation weight log(n_jc + side_a) */
    double sm_counts[2];      /* accepted, proposed (carried across chunks) */
} mcx_hdp;

enum { MCX_HDP_SAMS = 1, MCX_HDP_SUBCLUSTER = 2 };

/* The concentration settings: value, and Gamma(shape, rate) prior unless
 * fixed. */
typedef struct mcx_hdp_conc {
    double value;
    int fixed;
    double shape, rate;
} mcx_hdp_conc;

/* labels: n values in 0 .. K-1 (internal order); beta: K + 1 weights;
 * moves split-merge proposals per sweep of kind `kind`: MCX_HDP_SAMS
 * (restricted passes, mixture_splitmerge.h: t restricted Gibbs scans of the
 * launch, sams 1 for sequential allocation) or MCX_HDP_SUBCLUSTER (splits
 * along two sub-clusters, mixture_subcluster.h). */
void   mcx_hdp_build(mcx_hdp *h, const mcx_family *fam, const void *hyper,
                     const double *x, int n, int dim, const int *group, int J,
                     const int *labels, const double *beta, mcx_hdp_conc gamma,
                     mcx_hdp_conc alpha, int moves, int kind, int t, int sams);
void   mcx_hdp_sweep(mcx_hdp *h);
/* traces: n_kept x 4 (n_clusters, gamma, alpha, log_lik); labels_out:
 * n_kept x n (1-based, column-major) or NULL. */
void   mcx_hdp_run(mcx_hdp *h, const mcx_chunk *ch, double *traces, int *labels_out);

/* The bookkeeping, model_hdp_state.c (below the moves: it calls none of
 * the other HDP files).  Grow the per-cluster arrays to the mixture's
 * capacity; drop the empty cluster k (its weight joins beta_u, cluster
 * K-1 moves into slot k). */
void   mcx_hdp_capacity(mcx_hdp *h);
void   mcx_hdp_drop_cluster(mcx_hdp *h, int k);
/* model_hdp_splitmerge.c: set up the moves (in build); run sm_moves
 * proposals given beta and the concentrations. */
void   mcx_hdp_sm_setup(mcx_hdp *h, int moves, int kind, int t, int sams);
void   mcx_hdp_split_merge(mcx_hdp *h);
/* model_hdp_state.c, shared by model_hdp_splitmerge.c and
 * model_hdp_sams.c: the terms of log r of a split of a cluster of weight beta_c into sides with group
 * counts nA, nB (J each) and weight share w: the group terms with the
 * density of w ~ Beta(M_A, M_B) (group_terms) or without it (group_lgamma,
 * for a uniform w), the draw of that w, the prior of gamma and w and the
 * likelihood ratio (split_terms: stats blocks of the sides and of the
 * union); the side counts h->side_nj zeroed; the bookkeeping of an
 * accepted split (side of share w in slot a, the other in slot b, cn the
 * new slot) and merge (b into a). */
double mcx_hdp_group_terms(const mcx_hdp *h, const int *nA, const int *nB, double beta_c,
                           double w);
double mcx_hdp_group_lgamma(const mcx_hdp *h, const int *nA, const int *nB, double beta_c,
                            double w);
double mcx_hdp_draw_w(const mcx_hdp *h, const int *nA, const int *nB, double beta_c);
double mcx_hdp_split_terms(const mcx_hdp *h, double w, const double *stA, const double *stB,
                           const double *stC);
void   mcx_hdp_reset_sides(mcx_hdp *h);
void   mcx_hdp_accepted_split(mcx_hdp *h, int cn, int a, double w, double beta_c,
                              const int *na, int b, const int *nb);
void   mcx_hdp_accepted_merge(mcx_hdp *h, int a, int b, double beta_c);
/* model_hdp_sams.c: h->gain_moves sequentially allocated proposals. */
void   mcx_hdp_gain_sams(mcx_hdp *h);

#endif
