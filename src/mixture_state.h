/*
 * mixture_state.h -- compact cluster bookkeeping shared by the mixture
 * samplers (mixture_finite.c, mixture_dp.c, and later samplers).
 *
 * A partition of n observations into K clusters is held as
 *   z[i]          the cluster (0 .. K-1) of observation i,
 *   size[k]       the number of observations in cluster k,
 *   stats block k the family's sufficient statistics of cluster k, all
 *                 blocks in ONE contiguous buffer (stride `sstride` doubles),
 *   head[k], next[i], prev[i]
 *                 a doubly linked list of the members of each cluster, so
 *                 that relabelling one cluster costs O(its size), not O(n).
 * Clusters 0 .. K-1 are always the ones in use (no holes): deleting cluster
 * k moves the last cluster K-1 into slot k (its stats block, its size, and
 * the label of its members).  Creating a cluster appends slot K.
 *
 * The internal order of the clusters matters for reproducibility (the
 * categorical draws are taken over clusters in this order), so a state
 * exported with its labels in internal order and rebuilt with
 * mcx_mix_build() continues exactly as the original.  Building recomputes
 * every stats block from scratch, adding observations in index order, which
 * also keeps long runs numerically stable (no drift accumulates across
 * chunks).
 *
 * All memory comes from mcx_alloc() (R_alloc) when the state is built; the
 * buffers only grow (doubling) when more than `cap` clusters are needed,
 * which is rare and amortised.  Nothing is allocated per observation.
 */
#ifndef MCMIX_MIXTURE_STATE_H
#define MCMIX_MIXTURE_STATE_H

#include "mcmix_engine.h"

typedef struct mcx_mix {
    const mcx_family *fam;
    const void *hyper;
    int n, dim;
    const double *x;      /* observation i at x + i * dim (dim x n, column-major) */
    int K, cap;           /* clusters in use, capacity of the buffers */
    size_t sstride;       /* doubles per stats block */
    double *stats;        /* cap blocks */
    int *size;            /* cap */
    int *head;            /* cap; -1 for an empty member list */
    int *z;               /* n; -1 while an observation is unassigned */
    int *next, *prev;     /* n; member lists, -1 terminated */
    double *empty;        /* the stats of an empty cluster (copied on creation) */
    double *work;         /* family scratch, work_size(hyper) doubles */
} mcx_mix;

/* Parse the hyperparameter vector of `fam` into a block from mcx_alloc. */
const void *mcx_family_hyper(const mcx_family *fam, int dim,
                             const double *values, int n_values);

/* Build the state from labels in 0 .. K-1 (every value in 0 .. max used as
 * a cluster; K = max(labels) + 1, at least k_min clusters, which may be
 * empty -- the finite mixtures keep empty components).  Labels equal to
 * -1 leave an observation unassigned. */
void mcx_mix_build(mcx_mix *m, const mcx_family *fam, const void *hyper,
                   const double *x, int n, int dim, const int *labels, int k_min);

static inline double *mcx_mix_stats(const mcx_mix *m, int k)
{
    return m->stats + (size_t) k * m->sstride;
}
static inline const double *mcx_mix_x(const mcx_mix *m, int i)
{
    return m->x + (size_t) i * m->dim;
}

/* Remove observation i from its cluster (z[i] becomes -1). */
void mcx_mix_remove(mcx_mix *m, int i);
/* Add unassigned observation i to cluster k. */
void mcx_mix_add(mcx_mix *m, int i, int k);
/* Append an empty cluster; returns its index (the old K). */
int  mcx_mix_new_cluster(mcx_mix *m);
/* Delete the empty cluster k, moving cluster K-1 into its slot. */
void mcx_mix_delete_cluster(mcx_mix *m, int k);
/* Number of non-empty clusters. */
int  mcx_mix_n_occupied(const mcx_mix *m);
/* sum_k log p(x in cluster k), the collapsed marginal log p(x | partition). */
double mcx_mix_log_marginal(const mcx_mix *m);

#endif
