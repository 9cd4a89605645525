/*
 * mixture_splitmerge.h -- the proposal machinery of the split-merge moves
 * (mixture_splitmerge.c), shared by the DP / Pitman-Yor row "split_merge"
 * and the HDP mixture (model_hdp_splitmerge.c).  SEXP-free.
 *
 * A proposal concerns two sides A (holding observation i) and B (holding
 * j) and the set S of the other observations of the one or two clusters
 * involved.  mcx_sm_launch() builds the launch state, mcx_sm_scan() runs
 * one restricted pass over S (drawing each side, or forced to a given
 * split to get the probability of the reverse proposal); the caller
 * computes the acceptance ratio of its own model and, on acceptance,
 * applies the move with mcx_sm_apply_split() / mcx_sm_apply_merge().
 *
 * The prior weight of putting observation k on side c is, by default, the
 * Pitman-Yor urn weight log(n_c - d) read from log_count (n_c the side's
 * size without k); a model whose weights depend on more than the side's
 * size (the HDP: log(n_{j c} + a), n_{j c} the members of k's group j)
 * supplies `prior`: log_weight(ctx, k, c, in_c, n), in_c = 1 when k is
 * currently counted on side c, and moved(ctx, k, from, to) called whenever
 * k enters, leaves or changes side (from / to = -1: unallocated).
 */
#ifndef MCMIX_MIXTURE_SPLITMERGE_H
#define MCMIX_MIXTURE_SPLITMERGE_H

#include "mixture.h"

typedef struct mcx_sm_prior {
    double (*log_weight)(void *ctx, int k, int c, int in_c, const int *n);
    void   (*moved)(void *ctx, int k, int from, int to);
    void   *ctx;
} mcx_sm_prior;

/* The family whose predictives score a proposal's allocation, with its
 * hyperparameters, the stats blocks of the two sides, an empty block and
 * scratch: the model's own family, or a surrogate (mcx_sm_surrogate_init). */
typedef struct mcx_sm_scorer {
    const mcx_family *fam;
    const void *hyper;
    double *st[2];
    const double *empty;
    double *work;
    size_t sstride;
} mcx_sm_scorer;

typedef struct mcx_sm {
    int t;                 /* intermediate restricted Gibbs scans */
    int sams;              /* 1: sequential allocation (Dahl 2003) */
    double *st[2];         /* stats blocks of the two sides A, B (the model's family) */
    double *sm;            /* the merged stats */
    int *S, *side;         /* n each; side[k] = 0 (A), 1 (B), -1 (unallocated) */
    mcx_stats_combine_fn combine;   /* NULL: merged stats added point by point */
    const double *log_count;        /* urn weights log(j - d), j = 0..n (default prior) */
    mcx_sm_prior prior;             /* log_weight NULL: the default */
    mcx_sm_scorer own;     /* the model's family (st[] are its side blocks) */
    mcx_sm_scorer sur;     /* the surrogate (fam NULL: none) */
    int use_sur;           /* 1: launch and scan score with sur (else own) */
} mcx_sm;

/* Buffers for proposals on the partition m (from mcx_alloc). */
void   mcx_sm_init(mcx_sm *s, const mcx_mix *m, int t, int sams);
/* The per-dimension surrogate of the model's family, when it has one
 * (gaussian_niw with dim >= 2: gaussian_diag with the NIW prior's
 * marginals per coordinate); returns 1 when set up, 0 when there is none.
 * A proposal scored by it (s->use_sur = 1) builds the model's stats
 * of the sides with mcx_sm_side_stats() after the pass. */
int    mcx_sm_surrogate_init(mcx_sm *s, const mcx_mix *m);
/* The model's stats of the two sides of the allocation in s->side (i on
 * A, j on B), in s->st[0..1]; a no-op when the pass was scored by the
 * model's own family (they are then already there). */
void   mcx_sm_side_stats(mcx_mix *m, mcx_sm *s, int i, int j, int nS);
/* S = the members of clusters ci and cj other than i and j (pass -1 to
 * exclude none), in index order; returns their number. */
int    mcx_sm_collect(const mcx_mix *m, mcx_sm *s, int i, int j, int ci, int cj);
/* The launch state: A = {i}, B = {j}; restricted Gibbs: each k in S on a
 * random side, then t restricted scans; SAMS: S in a uniformly random
 * order, every k unallocated.  n[2] receives the side sizes. */
void   mcx_sm_launch(mcx_mix *m, mcx_sm *s, int i, int j, int nS, int *n);
/* One pass over S.  force < 0: draw each side; else put k on A iff
 * z[k] == force.  With want_q, returns the log probability of the sides
 * taken (else 0). */
double mcx_sm_scan(mcx_mix *m, mcx_sm *s, int nS, int *n, int force, int want_q);
/* The merged stats of clusters ci and cj in s->sm (by the family's
 * combine; else from the members, S collected here and *nS set). */
void   mcx_sm_merged_stats(mcx_mix *m, mcx_sm *s, int i, int j, int ci, int cj, int *nS);
/* Accepted split: i and the side-A members of S move to a new cluster,
 * whose index is returned. */
int    mcx_sm_apply_split(mcx_mix *m, const mcx_sm *s, int i, int nS);
/* Accepted merge: j and the members of cj in S move to ci; cj is left
 * empty (the caller deletes it). */
void   mcx_sm_apply_merge(mcx_mix *m, const mcx_sm *s, int j, int ci, int cj, int nS);

#endif
