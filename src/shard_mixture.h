/*
 * shard_mixture.h -- one Dirichlet / Pitman-Yor mixture chain over shards of
 * the data (SEXP-free engine; inst/design.md, "One chain over several
 * machines").
 *
 * The observations are cut into shards, each a run of whole blocks of
 * MCX_BLOCK observations (the last block of a shard may be short), held by
 * the workers of an R cluster for the whole run; the session holds the
 * clusters' sufficient statistics, sizes and the partition prior, O(K).
 * Shard s's first block has the global block index block0(s) (the blocks
 * of the shards before it), and every random number a shard draws comes
 * from the stream of (a seed drawn by the session, block0 + local block)
 * (rng_stream.h).  Every statistic a shard returns is summed in its block
 * order and the session combines the shards' in shard order, so the draws
 * depend on the shards alone: the same for any number of workers, any
 * assignment of shards to workers, and in process.
 *
 * One sweep (R/mixture_sharded.R drives it; the numbers refer to
 * mixture_subcluster.h, whose sampler this one shares its steps with):
 *  1. Restricted Gibbs over the K clusters (step 1 there): the session draws
 *     log pi_k ~ log Gamma(n_k - d) and theta_k ~ p(theta | x_k)
 *     (mcx_shard_params()); each shard proposes its labels
 *     (mcx_sc_propose()) and the proposals are accepted site by site in
 *     global index order unless they would empty a cluster.  That scan is
 *     sequential over all N; it is split over the shards exactly:
 *     mcx_shard_risk() gives, per cluster a, the least running change of
 *     n_a before a departure from a within the shard (in index order, all
 *     proposals taken) and the total change.  Given the counts at the
 *     shard's start, no departure in the shard is refused iff every
 *     cluster keeps start_a + least_a >= 2 (a departure is refused when
 *     the running count is 1), and then the counts at its end are start +
 *     total; otherwise the shard scans its proposals with its start counts
 *     (mcx_shard_accept()).  The session walks the shards in order, so
 *     the result is the sequential scan's, bit for bit; a shard scans only
 *     when a cluster there may be emptied (rare: a cluster of a few points).
 *  2. Sequentially allocated split / merge proposals (Dahl 2003; step 2b
 *     there, its merge partners drawn by their merge gain and its thinning
 *     of large unions, shard_session.c): the members of the union other
 *     than the two launch points are allocated in global index order,
 *     shard after shard (mcx_shard_sams()), each with one uniform from its
 *     block's stream; the allocation order is a function of the union and
 *     the launch points (valid for Metropolis-Hastings: it is drawn
 *     independently of the split given the union).
 *  3. alpha / discount updates given the sizes (mixture_prior.c).
 */
#ifndef MCMIX_SHARD_MIXTURE_H
#define MCMIX_SHARD_MIXTURE_H

#include "mixture_subcluster.h"

/* A shard as one call sees it: its data and labels in the caller's memory
 * (kept by the worker between calls), with the buffers of the passes. */
typedef struct {
    mcx_mix m;            /* the shard's n observations, labels z in 0 .. K-1 */
    mcx_subcluster s;     /* theta, logpi, cnt and the block areas of the passes */
    int K;                /* clusters of the chain (some may have no member here) */
} mcx_shard;

/* Open the shard (n observations of dimension dim, R's column-major n x dim
 * matrix x; labels z, the worker's memory, in 0 .. K-1, not read here;
 * first block block0; has_na: a cell of x is NaN, computed once when the
 * shard is loaded). */
void mcx_shard_open(mcx_shard *sh, const mcx_family *fam, const void *hyper, const double *x,
                    int n, int dim, int *z, int K, int threads, long block0, int has_na);

/* Step 1: labels proposed into znew (n ints) from theta (psize x K) and
 * logpi (K), streams of `master`; least[a], total[a] as above (least[a] =
 * INT_MAX when no observation leaves a; least NULL: not computed, the
 * labels z not read); in the same read of each block, the per-cluster
 * stats (K blocks, out) and member counts (size) of the labels znew, as
 * mcx_shard_stats() gives them once znew are the labels (a shard whose
 * proposals are all accepted needs no further pass). */
void mcx_shard_propose(mcx_shard *sh, const double *theta, const double *logpi,
                       uint64_t master, int *znew, int *least, int *total, double *out,
                       int *size);
/* The scan of the proposals in index order from the counts cnt (K, updated
 * to the counts at the shard's end); refused proposals are reset in znew. */
void mcx_shard_accept(const mcx_shard *sh, int *znew, int *cnt);
/* The shard's per-cluster stats (K blocks, out) and member counts (size)
 * of the labels as they are, summed in block order. */
void mcx_shard_stats(mcx_shard *sh, double *out, int *size);

/* Step 2's pass over the shard's members of the union of clusters a and b
 * (a == b: the cluster a of a split), in index order, skipping local
 * observations skip[0], skip[1] (the launch points; -1: not here).
 * Allocate (score == 0): each member goes to side c in {0, 1} with
 * probability proportional to (n_c - d) p(x | st_c) (collapsed predictive,
 * family log_predictive), from one uniform of its block's stream under
 * `seed`; its side is written to side[i].  Score (score == 1): the side is
 * 0 for members of a, 1 for those of b, and its probability is added.
 * st[c], n[c] follow the allocated members; returns the running log
 * probability lq (starting from lq0), or -Inf as soon as it falls below
 * `bound` (score only: the move is then rejected whatever follows). */
double mcx_shard_sams(mcx_shard *sh, int a, int b, const long *skip, double *st[2], double *n,
                      double discount, int score, uint64_t seed, double lq0, double bound,
                      unsigned char *side);
/* An accepted split of a: its members with side 1 take the label knew
 * (the allocation pass wrote every member's side, the launch points' too).
 * An accepted merge of b into a: members of b take a, then those of `last`
 * (the last slot) take b. */
void mcx_shard_apply_split(mcx_shard *sh, int a, int knew, const unsigned char *side);
void mcx_shard_apply_merge(mcx_shard *sh, int a, int b, int last);
/* Labels through a map (map[k] the new label of k; empty clusters dropped). */
void mcx_shard_relabel(mcx_shard *sh, const int *map);

#endif

/* ---------------- the session's side (shard_session.c) ---------------- */

/* The clusters as the session holds them: K stats blocks of ss doubles and
 * sizes, the partition prior p, the thinning size thin (mixture_subcluster.c
 * SC_THIN; 0: none). */
typedef struct {
    const mcx_family *fam;
    const void *hyper;
    size_t ss;
    mcx_stats_combine_fn combine;
    int K;
    double *stats;
    int *size;
    const mcx_partition_prior *p;
    int thin;
    double *work, *tmp, *lm;   /* family scratch, two stats blocks, K log marginals */
    double *lg, *row;          /* K + 1 merge gains; one observation */
} mcx_shard_session;

/* A planned split / merge move (mcx_shard_plan()).  type 0: none this time
 * (thinned out, or a merge rejected before any pass); 1: split of a with
 * launch points of ranks ri, rj among its members (index order); 2: merge
 * of a (the side of launch rank ri) and b (rj); lr: the part of log r known
 * before the pass; bound: a merge is accepted iff the passes' log q_S
 * exceeds it; seed: the streams of the allocation pass. */
typedef struct {
    int type, a, b;
    double ri, rj, lr, bound;
    uint64_t seed;
} mcx_shard_move;

/* Set up the session for K clusters (buffers from mcx_alloc). */
void mcx_shard_session_init(mcx_shard_session *ss, const mcx_family *fam, const void *hyper,
                            int dim, int K, double *stats, int *size, const mcx_partition_prior *p,
                            int thin);
/* Step 1's parameters: theta (psize x K) and logpi (K) from R's generator. */
void mcx_shard_params(const mcx_shard_session *ss, double *theta, double *logpi);
/* Plan a move (R's generator). */
void mcx_shard_plan(mcx_shard_session *ss, mcx_shard_move *mv);
/* Decide a planned move given the passes' sides st[2], n[2] and log q_S
 * (a split draws its uniform here); returns 1 if accepted.  The caller
 * then applies it to the session (mcx_shard_session_split() / _merge())
 * and to the shards. */
int mcx_shard_decide(mcx_shard_session *ss, const mcx_shard_move *mv, double *st[2],
                     const double *n, double lq);
/* The stats of the observations x (nx rows of R's nx x dim matrix) into st. */
void mcx_shard_stats_of(const mcx_shard_session *ss, const double *x, int nx, int dim,
                        double *st);
