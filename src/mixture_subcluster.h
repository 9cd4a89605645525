/*
 * mixture_subcluster.h -- parallel sub-cluster split-merge sampler for
 * Dirichlet / Pitman-Yor process mixtures with conjugate families
 * (SEXP-free), after Chang and Fisher (2013), "Parallel sampling of DP
 * mixture models using sub-cluster splits" (NeurIPS).
 *
 * One sweep (sweep() in mixture_subcluster.c, the algorithm row's sweep slot):
 *  1. Restricted Gibbs over the K instantiated clusters (Chang and Fisher,
 *     sec. 4): weights pi_k ~ Gamma(n_k - d) (the unnormalised
 *     Dirichlet(n_1 - d, ..., n_K - d, alpha + K d) of the occupied atoms
 *     given the partition) and theta_k ~ p(theta | x_k) are drawn in the
 *     main thread; then every label is proposed from
 *       z_i = k  with probability  pi_k f(x_i | theta_k) / sum_j pi_j f(x_i | theta_j),
 *     in parallel over fixed blocks of observations (rng_stream.h).
 *     Given (pi, theta) the exact conditional of z is this product
 *     restricted to labelings that leave no cluster empty (the K slots of
 *     the augmented space; an emptied slot changes its dimension).  Its
 *     conditional for one site z_i given the others is the unrestricted
 *     one unless i is the last member of its cluster (then z_i stays), so
 *     the proposals are accepted site by site in index order, each unless
 *     it would empty a cluster: a systematic Gibbs scan of the exact
 *     conditional, hence exactly invariant.  The statistics follow point by
 *     point, or are recomputed in parallel (stats_combine over fixed
 *     blocks, in block order) when more than a quarter of the labels move.
 *  2. `moves` split / merge proposals (Metropolis-Hastings on the
 *     partition; mixture_subcluster_split.c).  A split of cluster k follows
 *     its two sub-clusters: a deterministic function of the members of k
 *     (mean, principal axis by power iteration, Lloyd 2-means steps to a fixed point;
 *     sums in block order so that the result does not depend on the
 *     thread count), turned into independent side probabilities rho_i by
 *     a logistic in the difference of squared distances.  Chang and
 *     Fisher keep randomly updated sub-clusters across sweeps and leave
 *     the sub-cluster terms out of the Hastings ratio; here the sub-clusters
 *     are recomputed from the members, so the proposal probability of a
 *     split and that of the reverse (merge) are exact and the sampler
 *     leaves the posterior exactly invariant (checked against the
 *     enumeration of all partitions).
 *     The statistics of the two sides of a split are summed per block of
 *     members and combined in block order; those of a merge are the two
 *     clusters' statistics combined (family stats_combine; families without
 *     it add the members one by one, on one thread).
 *  2b. `moves` sequentially allocated split / merge proposals (Dahl 2003;
 *     mixture_subcluster_sams.c), merge partners drawn by their merge
 *     gain: the 2-means split of a cluster holding several true ones can
 *     cut a true cluster, and the reverse split of the two blurred pieces
 *     along the 2-means sub-clusters of their union has probability of
 *     order 2^-n, so without these moves the pieces stayed apart.
 *  3. 4 `moves` singleton split / merge proposals, O(K) each
 *     (mixture_subcluster_single.c): a cluster reduced to one point by the
 *     restriction of step 1 can dissolve, which the sub-cluster merges
 *     almost never allow (small extra clusters were sticky).
 *  4. alpha / discount updates given the partition (mixture_prior.c).
 */
#ifndef MCMIX_MIXTURE_SUBCLUSTER_H
#define MCMIX_MIXTURE_SUBCLUSTER_H

#include "mixture_dp.h"
#include "rng_stream.h"
#include "stats_moments.h"
#include <R_ext/Random.h>

#ifdef _OPENMP
#include <omp.h>
#define MCX_THREAD_ID() omp_get_thread_num()
#else
#define MCX_THREAD_ID() 0
#endif

/* Most segments of a lazily drawn allocation order (the shells of the
 * shell order; mixture_subcluster_sams.c). */
#define MCX_SC_ORDER_SEGS 8

typedef struct {
    int threads;           /* OpenMP threads of the parallel passes */
    long block0;           /* the stream key of the first block of observations (0; a
                            * shard of a sharded run: its first block's global index) */
    int moves;             /* split / merge proposals per sweep */
    int thin;              /* unions of n > thin members: moves thinned (mcx_sc_log_share()) */
    int no_sams;           /* 1: no sequentially allocated moves (tests) */
    int has_na;            /* 1: some coordinate of the data is NaN (a missing cell of the
                            * product family): the geometry of the proposals reads it as
                            * the members' mean of that coordinate (mcx_sc_coord()) */
    int fit_max;           /* members the sub-clusters are fitted to at most (SC_FIT_MAX;
                            * lower in tests: setting sc_fit_max) */
    int gather;            /* members gathered at a time by the allocation pass
                            * (MCX_SC_GATHER; lower in tests: setting sc_gather) */
    int singles;           /* singleton split / merge proposals per sweep */
    size_t psize, wsz;     /* doubles per parameter / per family scratch */
    int kcap;              /* capacity of the per-cluster arrays */
    double *theta;         /* psize * kcap */
    double *logpi;         /* kcap */
    int *cnt;              /* kcap */
    double *tscr;          /* threads * mcx_sc_stride() per-thread scratch */
    double *tblk;          /* threads * tbs: per-thread block area (mcx_sc_block_area()) */
    size_t tbs, tacc;      /* its stride; doubles of its accumulators before the rows */
    int *znew;             /* n: proposed labels (shares the buffer of mem) */
    int *mem;              /* n: members of a split / merge proposal */
    unsigned char *side;   /* n: their side (0 / 1) */
    int *moved;            /* nmoved_cap: observations moved by the label pass */
    long nmoved_cap;
    long *bcount;          /* per-block member counts (blocks of observations) */
    double *part;          /* per-block partial sums */
    double *sum;           /* their total (2 dim + 4) */
    double *cen;           /* 5 dim + 2: mean, axis, two centres, spare, beta, flag */
    double *sa, *sb;       /* stats blocks of the two sides / the union (contiguous) */
    double *ss;            /* 3 stats blocks: sides and union of a sequential allocation */
    double *lm, *lg;       /* kcap, kcap + 1: log marginals, merge gains (sequential moves) */
    double *hq;            /* MCX_SC_LOCAL_MAX: heap of the local order (sequential moves) */
    double *xg;            /* MCX_SC_GATHER dim: members gathered for the allocation pass */
    int *zg;               /* MCX_SC_GATHER: their labels */
    int *hi;               /* MCX_SC_LOCAL_MAX: its members */
    double *gpart;         /* per-block stats of groups (mcx_sc_group_stats) */
    size_t gcap;           /* its capacity in doubles */
    mcx_stats_combine_fn combine;   /* NULL: partial statistics cannot be combined */
    mcx_stats_moments_fn moments;   /* non-NULL: group stats from raw moments (stats_moments.h) */
    mcx_log_lik_all_fn lik_all;     /* non-NULL: the label pass's log-likelihoods in one call */
    double counts[2];      /* split / merge proposals accepted, made */
    int fit_stride;        /* members read by the fitting passes: every fit_stride-th (0, 1: all) */
    int fit_gathered;      /* 1: the fitting passes read the rows of fitx */
    double *fitx;          /* SC_FIT_MAX dim (NULL above SC_FIT_GATHER_DIM): fitted members */
    double *gmo;           /* 2 mcx_moments_size(dim): moments of the 2-means halves (thinning) */
    int oseg[MCX_SC_ORDER_SEGS + 1];   /* lazy allocation order: segment bounds of mem */
    int noseg, odone;      /* its segments; positions of mem final so far */
    int record;            /* setting sc_record: keep the last sequential split and merge */
    double *rec;           /* 2 (SC_REC_HEAD + 3 n): see mixture_subcluster_sams.c */
} mcx_subcluster;

/* Doubles of one thread's scratch (family work + K log-weights), rounded
 * up to whole 64-byte cache lines plus one line of padding, so that two
 * threads never write to the same cache line (false sharing). */
static inline size_t mcx_sc_stride(const mcx_subcluster *s)
{
    return ((s->wsz + (size_t) s->kcap + 7) / 8) * 8 + 8;
}
static inline double *mcx_sc_work(const mcx_subcluster *s)
{
    return s->tscr + (size_t) MCX_THREAD_ID() * mcx_sc_stride(s);
}
/* The calling thread's block area: tacc doubles of accumulators (one
 * block's partial sums, 2 dim + 4), then the rows of mcx_mix_block(), a
 * cache line apart from the next thread's. */
static inline double *mcx_sc_block_area(const mcx_subcluster *s)
{
    return s->tblk + (size_t) MCX_THREAD_ID() * s->tbs;
}
/* Whether a loop over `work` units (blocks of MCX_BLOCK cheap items, or
 * single stats combinations) is worth waking the other threads for: a
 * parallel region costs a wake-up of each thread (tens of microseconds
 * on a virtual machine with OpenMP's passive waiting), more than a few
 * blocks of a sub-cluster pass (about 20 microseconds each at dim 2).
 * Which thread runs which block never changes the result. */
#define MCX_SC_MIN_BLOCKS 4
#define MCX_SC_MIN_COMBINES 4096
static inline int mcx_sc_parallel(const mcx_subcluster *s, long work, long min)
{
    return s->threads > 1 && work >= min;
}
static inline long mcx_sc_blocks(long n)
{
    return (n + MCX_BLOCK - 1) / MCX_BLOCK;
}

/* mixture_subcluster_stats.c: the data-parallel helpers. */
/* Per-cluster arrays for at least `K` clusters (amortised doubling). */
void mcx_sc_reserve(mcx_subcluster *s, int K);
/* The members of clusters a and b (a == b: of a alone) in index order into
 * s->mem, side 1 for those of b != a; returns their number.  Parallel over
 * blocks of observations (counts, then the fill at their offsets). */
int mcx_sc_members(const mcx_mix *m, mcx_subcluster *s, int a, int b);
/* Sufficient statistics of groups: item j (0 <= j < nitems) is observation
 * obs[j] (obs NULL: j) in group gi[j] (or gc[j] when gi is NULL), in
 * 0 .. ng-1; its statistics are added to out + g * sstride (ng blocks the
 * caller has set).  With the family's raw-moment hook (family_registry.h), each
 * block's moments per group are summed in a plain loop (in parallel), the
 * blocks pooled in block order and each group turned into statistics once;
 * else with the family's stats_combine, each block of
 * MCX_BLOCK items is summed into its own stats (in parallel) and the
 * blocks are combined into out in block order; without it the items are
 * added one by one in order.  Either way the result does not depend on
 * the number of threads. */
void mcx_sc_group_stats(const mcx_mix *m, mcx_subcluster *s, long nitems, const int *obs,
                        const int *gi, const unsigned char *gc, int ng, double *out);
/* Its pieces, for a pass that does more per block (shard_mixture.c): the
 * blocks are taken in rounds of mcx_sc_group_begin() blocks (a number that
 * depends on ng and the family only), each block's sums into its slot of
 * *part (mcx_sc_group_block(), any thread; slots of the same size for every
 * block), each round folded in block order (mcx_sc_group_fold(), nblk
 * slots from part), and the groups' statistics finished into out
 * (mcx_sc_group_end()): the same operations as mcx_sc_group_stats(), which
 * needs the family's stats_combine or raw-moment hook for them. */
long mcx_sc_group_begin(const mcx_mix *m, mcx_subcluster *s, int ng, long nb, double **part);
void mcx_sc_group_block(const mcx_mix *m, const mcx_subcluster *s, long blk, long nitems,
                        const int *obs, const int *gi, const unsigned char *gc, int ng,
                        double *slot);
void mcx_sc_group_fold(const mcx_mix *m, mcx_subcluster *s, int ng, long nblk,
                       const double *part, double *out);
void mcx_sc_group_end(const mcx_mix *m, mcx_subcluster *s, int ng, double *out);
/* Doubles between the slots of two blocks in *part of mcx_sc_group_begin(). */
size_t mcx_sc_group_slot(const mcx_mix *m, const mcx_subcluster *s, int ng);

/* Per-thread areas of the block passes for the state m (setup). */
void mcx_sc_block_setup(const mcx_mix *m, mcx_subcluster *s);
/* mixture_subcluster_pass.c: the sub-cluster passes over the members
 * s->mem[0 .. nmem-1] (sums per block, added in block order). */
enum { MCX_PASS_MEAN, MCX_PASS_AXIS, MCX_PASS_LLOYD, MCX_PASS_SIDES };
/* One pass of `kind` (master: the seed of the sides drawn by MCX_PASS_SIDES,
 * 0 to score the sides given in s->side); the 2 dim + 4 sums into out. */
void mcx_sc_pass(const mcx_mix *m, mcx_subcluster *s, int kind, int nmem, uint64_t master,
                 double *out);
/* The sub-clusters of the members: centres and beta into s->cen. */
void mcx_sc_subclusters(const mcx_mix *m, mcx_subcluster *s, int nmem, double *sum);

/* Step 1's proposals: s->znew[i] for every observation, drawn over blocks
 * of observations in parallel, block b from the stream (master, block0 + b)
 * (mixture_subcluster.c; s->theta, s->logpi hold the K clusters'). */
void mcx_sc_propose(const mcx_mix *m, mcx_subcluster *s, uint64_t master);
/* The proposals of block b alone (any thread; mcx_sc_propose() runs them all). */
void mcx_sc_propose_block(const mcx_mix *m, const mcx_subcluster *s, uint64_t master, long b);

/* Step 1's site-by-site acceptance in index order of the proposals zn
 * against the labels z (n of each) from the counts cnt (updated): an
 * observation takes its proposal unless it is the last member of its
 * cluster (then zn[i] is reset); the first `cap` movers are listed in
 * `list`; returns how many move. */
long mcx_sc_accept(const int *z, int *zn, int *cnt, long n, int *list, long cap);

/* The row "subcluster" of the algorithm table (mcx_dp_subcluster,
 * mixture_subcluster.c; settings sc_moves and threads). */
/* Step 2 of a sweep (mixture_subcluster_split.c). */
void mcx_subcluster_moves(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p);
/* Step 3: singleton split / merge moves (mixture_subcluster_single.c). */
void mcx_subcluster_singles(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p);
/* Step 2b: sequentially allocated split / merge proposals, merge partners
 * chosen by their merge gain (mixture_subcluster_sams.c). */
void mcx_subcluster_sams(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p);
/* Members to which the sub-clusters are fitted at most (every stride-th
 * of a larger set; mixture_subcluster_pass.c): the 2-means of 16,384
 * points of a cluster is as good a proposal as that of all of them, and
 * the up to 11 fitting passes over a cluster of 2e6 members cost more than
 * the rest of the sweep.  Up to dimension SC_FIT_GATHER_DIM they are
 * copied into contiguous rows first (at most 2 MB). */
#define SC_FIT_MAX 16384
#define SC_FIT_GATHER_DIM 16
/* Members gathered at a time for the allocation pass (mixture_subcluster_sams.c). */
#define MCX_SC_GATHER 2048
/* Coordinate t (at x[t * step]) of a member as the geometry of the proposals
 * (2-means passes, allocation orders) reads it: a missing cell (NaN; the
 * product family skips the block it belongs to) is read as fill[t], the
 * mean of the coordinate over the observed cells of the member set, so that
 * sums, distances and orders stay finite and a function of the member set
 * alone (the proposals stay exact).  Without missing cells (has_na == 0)
 * the value itself, bit for bit. */
static inline double mcx_sc_coord(int has_na, const double *x, size_t step, int t,
                                  const double *fill)
{
    double y = x[(size_t) t * step];
    return has_na && ISNAN(y) ? fill[t] : y;
}
/* 1 when some of the n x dim values read through m (either layout) is NaN. */
int mcx_sc_data_has_na(const mcx_mix *m);
/* Largest neighbourhood of the local order (mixture_subcluster_sams.c). */
#define MCX_SC_LOCAL_MAX 1024
/* Doubles of the record before its two lists (mixture_subcluster_sams.c). */
#define SC_REC_HEAD 10
/* The sampler's buffers for the partition m (the row's setup; also used
 * by the HDP's sub-cluster moves, model_hdp_splitmerge.c). */
void mcx_subcluster_init(mcx_subcluster *s, const mcx_mix *m, int moves, int threads);
/* The proposal of a split of the n members in s->mem (from
 * mcx_sc_members()): sides drawn into s->side (1: the second side; s->sum[2]
 * = their number); returns log Q, the probability of the unordered split.
 * mcx_sc_score_sides(): log Q of the sides given in s->side (a merge's
 * reverse).  mcx_sc_side_stats(): the two sides' stats into s->sa, s->sb. */
double mcx_sc_split_sides(const mcx_mix *m, mcx_subcluster *s, int n);
double mcx_sc_score_sides(const mcx_mix *m, mcx_subcluster *s, int n);
void   mcx_sc_side_stats(const mcx_mix *m, mcx_subcluster *s, int nmem);
/* An accepted split of cluster k along s->side over the n members in
 * s->mem (the sides' stats sa, sb, e.g. s->sa, s->sb from
 * mcx_sc_side_stats()): side 0 (nA members) stays in slot k, side 1 (nB)
 * becomes a new cluster, whose slot is returned. */
int    mcx_sc_apply_split(mcx_mix *m, const mcx_subcluster *s, int k, int n, int nA, int nB,
                          const double *sa, const double *sb);
/* log p(partition) gained by splitting nA + nB members into two clusters
 * (prior part only), with K clusters before the split. */
double mcx_sc_log_prior_split(const mcx_partition_prior *p, int K, int nA, int nB);
/* Thinning of the split / merge moves on large unions (mixture_subcluster_sams.c,
 * mixture_subcluster_split.c): log f, f = thin / n the probability that a
 * split of a union of n > s->thin > 0 members is made (0 otherwise). */
static inline double mcx_sc_log_thin(int thin, double n)
{
    return thin > 0 && n > thin ? log((double) thin / n) : 0.0;
}
static inline double mcx_sc_log_share(const mcx_subcluster *s, int n)
{
    return mcx_sc_log_thin(s->thin, n);
}
/* log g, g the probability that a sequentially allocated merge of two
 * clusters of na and nb members is made under thinning size `thin` (the
 * same for the split into two sides of these sizes): 1 when both hold at
 * least max(2, thin / 32), else sqrt(f) (mixture_subcluster_sams.c). */
static inline double mcx_sc_log_merge_thin(int thin, double na, double nb)
{
    double lf = mcx_sc_log_thin(thin, na + nb);
    int w = thin / 32 > 2 ? thin / 32 : 2;
    return lf < 0.0 && (na < w || nb < w) ? 0.5 * lf : 0.0;
}
/* 1 when a move made with probability exp(lf) (lf <= 0) is skipped; one
 * uniform of R's generator drawn only when lf < 0. */
static inline int mcx_sc_thinned_out(double lf)
{
    return lf < 0.0 && !(log(unif_rand()) < lf);
}

/* The pieces of the sequentially allocated moves shared with the HDP
 * (mixture_subcluster_sams.c, model_hdp_sams.c): a split's cluster and
 * launch points, the share of splits, the proposal probabilities of a
 * merge and of a split's reverse (the merge partners by their gains under
 * the partition prior p), a merge's pair, an accepted split, and the
 * launch of a split of the nm members in s->mem (launch points at
 * positions pi, pj; the allocation order of the others; returns how many
 * of them are allocated). */
int    mcx_sc_sams_pick(mcx_mix *m, mcx_subcluster *s, int *k, int *pi, int *pj);
double mcx_sc_ps_sams(int K);
double mcx_sc_sams_merge_lq(int K, double lwa, double lwb, int na, int nb, double *lqs);
double mcx_sc_sams_merge_pick(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p,
                              int *pa, int *pb, double *lqs);
int    mcx_sc_sams_apply_split(mcx_mix *m, mcx_subcluster *s, int k, int nm, double *st[2],
                               const int *n);
int    mcx_sc_sams_launch(mcx_mix *m, mcx_subcluster *s, int nm, int pi, int pj, double *st[2],
                          int *n);
double mcx_sc_sams_split_reverse_lq(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p,
                                    int k, double *st[2], const int *n, double lA, double lB,
                                    double *lqs);

#endif
