/*
 * mixture_online.h -- what a mixture chain keeps of its partitions when it
 * does not store the labels of every observation (SEXP-free engine;
 * R/mixture_online.R documents the estimate, src/ffi_mixture_online.c is
 * its glue):
 *
 *  - the labels of a fixed subsample of the observations at every kept
 *    draw (the glue writes them, mcx_online_subset());
 *  - an online point estimate of the partition of all n observations, the
 *    "relabelled mode": each kept draw is relabelled to the current
 *    estimate by matching its clusters to the estimate's slots (greedy
 *    maximum overlap on the clusters x slots contingency table), and each
 *    observation counts how often it fell in each slot; its estimated
 *    cluster is the slot it fell in most often (ties: the earlier one),
 *    its frequency that count over the number of draws.
 *
 * One kept draw with K clusters costs O(n + K L log(K L)) time for L slots;
 * the state is n x L counts and n modes (4 bytes each).  No random
 * numbers: the chain's draws do not depend on it.
 *
 * The relabelling of draw t (labels c_i in 0..K-1), given the modes m_i
 * of draws 1..t-1 and slots 0..L-1:
 *   1. C[k][l] = #{i : c_i = k, m_i = l};
 *   2. greedy matching: the pairs (k, l) with C[k][l] > 0 in decreasing
 *      order of C (ties: smaller k, then smaller l), a pair taken when
 *      neither k nor l is taken yet;
 *   3. each cluster left unmatched, in decreasing order of size (ties:
 *      smaller k), gets the first slot that is neither matched nor the
 *      mode of any observation (its counts set to zero), else a new slot
 *      while L < max_slots, else the slot l maximising C[k][l] (ties: the
 *      smaller l; shared with the cluster matched to it);
 *   4. counts[i][slot(c_i)] += 1, and m_i becomes slot(c_i) when its count
 *      now exceeds the count of m_i.
 * The first draw has no modes: its clusters open slots 0, 1, ... in
 * decreasing order of size.
 */
#ifndef MCMIX_MIXTURE_ONLINE_H
#define MCMIX_MIXTURE_ONLINE_H

#include "mcmix_engine.h"

/* A count with its cluster and slot (sort items of the matching). */
typedef struct mcx_online_pair {
    int c, k, l;
} mcx_online_pair;

typedef struct mcx_online {
    int n;               /* observations */
    int n_slots;         /* slots in use (L) */
    int max_slots;       /* at most this many slots */
    int cap;             /* columns of `counts` */
    int wide;            /* counts are int (else uint16_t: n_draws <= 65535) */
    void *counts;        /* n x cap, column-major: count of i in l at i + l * n */
    int *mode;           /* n: slot of the largest count, -1 before any draw */
    int *holders;        /* max_slots: observations whose mode is the slot */
    double n_draws;      /* draws counted */
    /* a counts block of n x cap counts (of the same width) holding the
     * first n_slots columns of the current one, the others zero (given by
     * the caller: R memory) */
    void *(*grow)(void *ctx, int cap);
    void *grow_ctx;
    /* scratch, grown by doubling with the number of clusters of a draw */
    int kcap;
    int *ksize, *map, *best, *lmatch;
    int *table, *idx;    /* the overlaps (dense table, or counts per slot) */
    size_t table_cap, idx_cap, entries_cap;
    mcx_online_pair *entries;   /* pairs (overlap, cluster, slot) of the matching */
    mcx_online_pair *order;     /* (size, cluster) of the unmatched clusters */
} mcx_online;

/* The accumulator over counts (n x cap, the first n_slots columns in use,
 * the others zero; int when `wide`, else uint16_t, which the caller may
 * use only while no count can exceed MCX_ONLINE_NARROW_MAX), mode (n) and
 * n_draws as exported by the previous chunk (n_slots = 0, mode all -1 and
 * n_draws = 0 when fresh); counts and mode are updated in place.  A draw
 * that opens slots beyond cap first asks grow(grow_ctx, exactly the slots
 * then in use) for a larger counts block (so cap == n_slots after every
 * draw). */
#define MCX_ONLINE_NARROW_MAX 65535
void mcx_online_init(mcx_online *o, int n, int max_slots, void *counts, int wide, int cap,
                     int n_slots, int *mode, double n_draws,
                     void *(*grow)(void *ctx, int cap), void *grow_ctx);
/* Count one kept draw: observation i in cluster lab[z[i]] - 1, where
 * lab[] maps the engine's cluster slots 0..nz-1 to 1..K (0 for empty
 * slots, never referenced). */
void mcx_online_add(mcx_online *o, const int *z, const int *lab, int K);
/* out[j * stride] = lab[z[sub[j]]] for the n_sub observations sub[]
 * (0-based): the kept draw's labels of the subsample. */
void mcx_online_subset(const int *z, const int *lab, const int *sub, int n_sub,
                       int *out, size_t stride);
#endif
