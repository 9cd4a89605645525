/*
 * mixture_state.h -- compact cluster bookkeeping shared by the mixture
 * samplers (mixture_finite.c, mixture_dp.c, and later samplers).
 *
 * A partition of n observations into K clusters is held as
 *   z[i]          the cluster (0 .. K-1) of observation i,
 *   size[k]       the number of observations in cluster k,
 *   stats block k the family's sufficient statistics of cluster k, all
 *                 blocks in ONE contiguous buffer (stride `sstride` doubles),
 * Clusters 0 .. K-1 are always the ones in use (no holes): deleting cluster
 * k moves the last cluster K-1 into slot k (its stats block, its size, and
 * the label of its members).  Creating a cluster appends slot K.
 * Relabelling the members of the moved cluster scans z until all size[K-1]
 * of them are found.  That is O(n) per deletion, but a deletion needs a
 * singleton, and the singletons of a sweep number O(K), so the total stays
 * within the O(n K) cost of a sweep; per-cluster member lists were measured
 * slower (their random-access updates cost a cache miss on every move).
 *
 * The internal order of the clusters matters for reproducibility (the
 * categorical draws are taken over clusters in this order), so a state is
 * exported with its labels in internal order AND its stats blocks (as raw
 * bytes): rebuilding from both continues bit for bit as the original run,
 * whereas stats recomputed from the labels would differ in the last bits
 * from the incrementally updated ones.  To keep long runs numerically
 * stable, the samplers' drivers call mcx_mix_refresh() (stats recomputed
 * from scratch, observations added in index order) after every sweep g
 * with g %% MCX_REFRESH_EVERY == 0 -- a rule that depends on the iteration
 * number only, never on how the run is cut into chunks.
 *
 * All memory comes from mcx_alloc() (R_alloc) when the state is built; the
 * buffers only grow (doubling) when more than `cap` clusters are needed,
 * which is rare and amortised.  Nothing is allocated per observation.
 */
#ifndef MCMIX_MIXTURE_STATE_H
#define MCMIX_MIXTURE_STATE_H

#include "mcmix_engine.h"

/* Prefetch hint for scans in random order (a no-op without GCC/clang). */
#if defined(__GNUC__)
#define MCX_PREFETCH(p) __builtin_prefetch((const void *) (p))
#else
#define MCX_PREFETCH(p) ((void) 0)
#endif
#define MCX_PREFETCH_AHEAD 8
/* Sweeps between recomputations of the stats from scratch. */
#define MCX_REFRESH_EVERY 64

/* Ring of gather buffers per thread (see mcx_mix_x()): a pointer returned
 * by mcx_mix_x() stays valid for the next MCX_XSLOTS - 1 calls on the same
 * thread.  Power of two. */
#define MCX_XSLOTS 4
/* doubles between the rings of two threads (one cache line: no false sharing) */
#define MCX_XPAD 8
/* ints per thread of the ring positions (one cache line: no false sharing) */
#define MCX_XRING_STRIDE 16
/* doubles between the statistics copies of two threads (two cache lines) */
#define MCX_TPAD 16
/* observations from which an O(n) pass of a few operations each runs on
 * the state's threads */
#define MCX_MIX_PARALLEL_N 65536

typedef struct mcx_mix {
    const mcx_family *fam;
    const void *hyper;
    int n, dim;
    /* The data, read through mcx_mix_x(), mcx_mix_block() or mcx_mix_xs()
     * only.  ld == 1: observation i at
     * x + i * dim (dim x n column-major, or dim == 1); ld == n: the n x dim
     * column-major matrix of R, read in place (coordinate j of observation
     * i at x[i + j * n]) and gathered into a per-thread buffer. */
    const double *x;
    size_t ld;
    int nthreads;         /* threads that may call mcx_mix_x() (gather buffers) */
    double *xbuf;         /* nthreads * (MCX_XSLOTS * dim + MCX_XPAD) (ld == n only) */
    int *xring;           /* nthreads * MCX_XRING_STRIDE ring positions */
    /* nthreads > 1 only (mcx_mix_refresh() on several threads): */
    double *twork;        /* nthreads * wstride: family scratch per thread */
    size_t wstride;
    double *tstats;       /* cap * sstride + nthreads * MCX_TPAD: per-thread stats copies */
    int *tfirst;          /* nthreads + 1: the clusters of each thread */
    int K, cap;           /* clusters in use, capacity of the buffers */
    size_t sstride;       /* doubles per stats block */
    double *stats;        /* cap blocks */
    int *size;            /* cap */
    int *z;               /* n; -1 while an observation is unassigned */
    double *empty;        /* the stats of an empty cluster (copied on creation) */
    double *work;         /* family scratch, work_size(hyper) doubles */
    double *scratch;      /* one stats block of scratch for the samplers */
    int check;            /* tests (setting check_moves): 0 none, else verify the state
                           * after every move (MCX_MIX_MOVE); 2: empty clusters allowed */
    double *check_stats;  /* one stats block for the verification (check != 0) */
} mcx_mix;

/* Parse the hyperparameter vector of `fam` into a block from mcx_alloc. */
const void *mcx_family_hyper(const mcx_family *fam, int dim,
                             const double *values, int n_values);

/* Build the state from labels in 0 .. K-1 (every value in 0 .. max used as
 * a cluster; K = max(labels) + 1, at least k_min clusters, which may be
 * empty -- the finite mixtures keep empty components).  Labels equal to
 * -1 leave an observation unassigned.  The stats are computed from the
 * labels (see mcx_mix_build_restore() to install exported ones). */
void mcx_mix_build(mcx_mix *m, const mcx_family *fam, const void *hyper,
                   const double *x, int n, int dim, const int *labels, int k_min);
/* The general builder: the data x in either layout (by_column: the n x
 * dim column-major matrix read in place, else dim x n), with gather
 * buffers for `threads` threads; z_out (n ints, or NULL: from mcx_alloc)
 * the memory of the labels (labels may equal z_out); stats NULL or the
 * exported blocks as in mcx_mix_build_restore(). */
void mcx_mix_build_data(mcx_mix *m, const mcx_family *fam, const void *hyper,
                        const double *x, int n, int dim, int by_column, int threads,
                        const int *labels, int *z_out, int k_min,
                        const void *stats, size_t bytes);
/* A view of labels z (n ints, kept as they are and not read: the caller
 * vouches that they are in 0 .. K-1) with K clusters whose sizes and stats
 * are those of empty clusters: for passes that read the data and the
 * labels only (a shard of a sharded chain, shard_mixture.c). */
void mcx_mix_build_view(mcx_mix *m, const mcx_family *fam, const void *hyper, const double *x,
                        int n, int dim, int by_column, int threads, int *z, int K);
/* Bytes of the K stats blocks (m->stats, exported as they are). */
static inline size_t mcx_mix_stats_bytes(const mcx_mix *m)
{
    return (size_t) m->K * m->sstride * sizeof(double);
}
/* Like mcx_mix_build(), but the stats are the exported blocks of the same
 * state (`bytes` of them, mcx_mix_stats_bytes() of the rebuilt state),
 * copied in instead of recomputed. */
void mcx_mix_build_restore(mcx_mix *m, const mcx_family *fam, const void *hyper,
                           const double *x, int n, int dim, const int *labels,
                           int k_min, const void *stats, size_t bytes);
/* Replace the stats of a built state by exported blocks of the same state
 * (`bytes` must equal mcx_mix_stats_bytes(m)). */
void mcx_mix_restore_stats(mcx_mix *m, const void *stats, size_t bytes);
/* Recompute every stats block from scratch (observations in index order).
 * With m->nthreads > 1 and a thread-safe family, the clusters are dealt
 * to the threads in contiguous runs of about equal total size; each
 * thread sums its clusters, in index order, into its own copy (a cache
 * line apart from the other threads'), copied back at the end: every
 * cluster's statistics are those of the serial loop, bit for bit, for
 * any thread count. */
void mcx_mix_refresh(mcx_mix *m);

static inline double *mcx_mix_stats(const mcx_mix *m, int k)
{
    return m->stats + (size_t) k * m->sstride;
}
#ifdef _OPENMP
#include <omp.h>
#define MCX_MIX_THREAD() omp_get_thread_num()
#else
#define MCX_MIX_THREAD() 0
#endif

/* The one way the samplers read observation i (dim doubles).  Contiguous
 * layouts give a pointer into the data; the in-place n x dim matrix is
 * gathered (dim strided loads) into the calling thread's ring of buffers,
 * so that the pointer is valid for MCX_XSLOTS - 1 further calls on the
 * same thread.  Safe in parallel regions of at most m->nthreads threads
 * (mcx_mix_build_data()). */
static inline const double *mcx_mix_x(const mcx_mix *m, int i)
{
    if (m->ld == 1) return m->x + (size_t) i * m->dim;
    int t = m->nthreads > 1 ? MCX_MIX_THREAD() : 0;   /* no call on one thread */
    int *pos = m->xring + (size_t) t * MCX_XRING_STRIDE;
    int slot = *pos = (*pos + 1) & (MCX_XSLOTS - 1);
    double *b = m->xbuf + (size_t) t * (MCX_XSLOTS * (size_t) m->dim + MCX_XPAD) +
                (size_t) slot * m->dim;
    const double *p = m->x + i;
    if (m->dim == 2) {              /* the common case, unrolled */
        b[0] = p[0];
        b[1] = p[m->ld];
    } else {
        for (int j = 0; j < m->dim; j++) b[j] = p[(size_t) j * m->ld];
    }
    return b;
}
/* The observations of one block of a parallel loop, read without a thread
 * lookup per item (mcx_mix_x() asks for its thread on every call when
 * several threads share the state, which cost the cheap passes of the
 * sub-cluster sampler about 15% more CPU on two threads than on one).
 * Item j (lo <= j < hi) is observation obs[j] (obs NULL: j); its dim
 * coordinates are mcx_xblock_at(&b, j): a row of the caller's buffer when
 * the data are read in place (gathered once per block), else a pointer
 * into the data. */
typedef struct {
    const double *rows;   /* item j at rows + (j - lo) dim, or NULL: at x + obs[j] dim */
    const double *x;
    const int *obs;
    long lo;
    int dim;
} mcx_xblock;
/* Doubles of the buffer that mcx_mix_block() needs for `len` items. */
static inline size_t mcx_mix_block_doubles(const mcx_mix *m, long len)
{
    return m->ld == 1 ? 0 : (size_t) len * (size_t) m->dim;
}
/* The reader of items lo .. hi-1; buf holds mcx_mix_block_doubles(m, hi - lo)
 * doubles (the calling thread's own). */
void mcx_mix_block(const mcx_mix *m, const int *obs, long lo, long hi, double *buf,
                   mcx_xblock *b);
static inline const double *mcx_xblock_at(const mcx_xblock *b, long j)
{
    if (b->rows != NULL) return b->rows + (size_t) (j - b->lo) * b->dim;
    return b->x + (size_t) b->obs[j] * b->dim;
}
/* Strided reading for hot loops of few flops per observation: coordinate t
 * of observation i is mcx_mix_xs(m, i)[t * mcx_mix_xstep(m)] in either
 * layout (no copy, no thread lookup); mcx_mix_xs(m, i) = mcx_mix_xs(m, 0)
 * + i * mcx_mix_istep(m). */
static inline size_t mcx_mix_istep(const mcx_mix *m)
{
    return m->ld == 1 ? (size_t) m->dim : 1;
}
static inline size_t mcx_mix_xstep(const mcx_mix *m)
{
    return m->ld;
}
static inline const double *mcx_mix_xs(const mcx_mix *m, int i)
{
    return m->x + (size_t) i * mcx_mix_istep(m);
}
/* A prefetch hint for observation i (every coordinate, without gathering). */
static inline void mcx_mix_prefetch(const mcx_mix *m, int i)
{
    if (m->ld == 1) {
        MCX_PREFETCH(m->x + (size_t) i * m->dim);
        return;
    }
    for (int j = 0; j < m->dim; j++) MCX_PREFETCH(m->x + i + (size_t) j * m->ld);
}

/* Tests: verify the state after every move from now on (the setting
 * check_moves of the DP samplers); allow_empty: clusters may be empty
 * (rows with empty slots). */
void mcx_mix_check_enable(mcx_mix *m, int allow_empty);
/* The verification of the state left by the move `move` (an internal
 * error naming the move when it fails): every label names a cluster, the
 * sizes count the labels (and are positive unless empty clusters are
 * allowed), and every cluster's stats equal those recomputed from its
 * members (each double within a relative 1e-7; the log marginal too).
 * O(n K): tests only. */
void mcx_mix_verify(mcx_mix *m, const char *move);
/* Run one move of the partition m under its name: internal errors found
 * during it name it (mcx_context()), and with m->check set the state it
 * leaves is verified (mcx_mix_verify()).  Without the check it costs two
 * pointer stores and a test. */
#define MCX_MIX_MOVE(m, name, call)                       \
    do {                                                  \
        const char *mcx_prev_move_ = mcx_context(name);   \
        call;                                             \
        if ((m)->check) mcx_mix_verify((m), (name));      \
        mcx_context(mcx_prev_move_);                      \
    } while (0)

/* Remove observation i from its cluster (z[i] becomes -1). */
void mcx_mix_remove(mcx_mix *m, int i);
/* Remove observation i from its cluster k when `without` already holds the
 * stats of k without x_i (computed on a scratch copy): they are copied in. */
void mcx_mix_detach(mcx_mix *m, int i, const double *without);
/* Add unassigned observation i to cluster k. */
void mcx_mix_add(mcx_mix *m, int i, int k);
/* Append an empty cluster; returns its index (the old K). */
int  mcx_mix_new_cluster(mcx_mix *m);
/* Delete the empty cluster k, moving cluster K-1 into its slot. */
void mcx_mix_delete_cluster(mcx_mix *m, int k);
/* Number of non-empty clusters. */
int  mcx_mix_n_occupied(const mcx_mix *m);
/* One chunk of a sampler of the partition m (mcmix_chunk.h): for iterations
 * g = offset + 1 .. offset + n, ll = sweep(ctx); the stats recomputed from
 * scratch when g %% MCX_REFRESH_EVERY == 0; keep(ctx, r, ll) for the r-th
 * kept iteration (r = 0, 1, ...); amortised interrupt checks between
 * sweeps (mcx_interrupt_point(), host loop: an interrupt abandons the
 * chunk, R/chains.R keeps the state from before it).  The one chunk loop
 * of the mixture glue. */
void mcx_mix_chunk(mcx_mix *m, const mcx_chunk *c, double (*sweep)(void *ctx),
                   void (*keep)(void *ctx, int r, double ll), void *ctx);
/* sum_k log p(x in cluster k), the collapsed marginal log p(x | partition). */
double mcx_mix_log_marginal(const mcx_mix *m);

#endif
