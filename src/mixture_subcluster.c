/*
 * mixture_subcluster.c -- the restricted Gibbs pass of the sub-cluster
 * sampler and its sweep (see mixture_subcluster.h for the algorithm and
 * why it is exact; the split / merge moves are in
 * mixture_subcluster_split.c).
 */
#include <string.h>
#include <stdint.h>
#include "mixture_subcluster.h"
#include "mixture_subcluster_profile.h"

/* Singleton split / merge proposals per split / merge proposal. */
#define SC_SINGLES_PER_MOVE 4
/* Recompute all statistics when more than n / SC_REBUILD_SHARE observations move. */
#define SC_REBUILD_SHARE 4
/* The union size above which the split / merge moves are thinned
 * (mixture_subcluster_sams.c, _split.c): a sequentially allocated split
 * then visits at most this many members on average, whatever N. */
#define SC_THIN 32768

static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    (void) p; (void) saved;
    mcx_subcluster *s = st;
    mcx_subcluster_init(s, m, (int) control[0], (int) control[1]);
    /* sc_record (tests only): the record of the last sequentially
     * allocated move (params() below) */
    s->record = control[2] == 1.0;   /* NaN (missing): off */
    /* sc_thin (tests only; < 0: the default): the union size above which
     * the split / merge moves are thinned */
    s->thin = !(control[3] >= 0.0) ? SC_THIN : (int) control[3];   /* NaN: the default */
    /* sc_sams (tests only): 0 leaves out the sequentially allocated moves,
     * so that the exact tests see the 2-means moves alone */
    s->no_sams = control[4] == 0.0;   /* NaN (a fit saved before it): with them */
    /* sc_fit_max, sc_gather (tests only; < 1: the default): the members the
     * sub-clusters are fitted to at most, and gathered at a time by the
     * allocation pass, lowered so that tiny data reach the code paths of
     * large clusters (both at most their defaults: the buffers' sizes) */
    if (control[5] >= 1.0 && control[5] < SC_FIT_MAX) s->fit_max = (int) control[5];
    if (control[6] >= 1.0 && control[6] < MCX_SC_GATHER) s->gather = (int) control[6];
    if (s->record) {
        size_t nn = (size_t) (m->n > 0 ? m->n : 1);
        s->rec = mcx_alloc(2 * (SC_REC_HEAD + 3 * nn), sizeof(double));
        s->rec[0] = s->rec[SC_REC_HEAD + 3 * nn] = 0.0;
    }
}

void mcx_subcluster_init(mcx_subcluster *s, const mcx_mix *m, int moves, int threads)
{
    int n = m->n, d = m->dim;
    if (threads < 1 || moves < 0) MCX_INTERNAL("bad sub-cluster settings");
    /* plugin families need not be thread-safe: one thread for them */
    if (!mcx_family_thread_safe(m->fam)) threads = 1;
    memset(s, 0, sizeof *s);
    s->threads = threads;
    s->moves = moves;
    s->singles = SC_SINGLES_PER_MOVE * moves;
    s->fit_max = SC_FIT_MAX;
    s->gather = MCX_SC_GATHER;
    s->has_na = mcx_sc_data_has_na(m);
    s->combine = mcx_family_combiner(m->fam, m->hyper);
    /* the moments and all-clusters likelihood hooks read the coordinates
     * themselves, not through the family's handling of missing cells */
    s->moments = s->combine != NULL && !s->has_na ? mcx_family_stats_moments(m->fam) : NULL;
    s->lik_all = s->has_na ? NULL : mcx_family_log_lik_all(m->fam);
    s->psize = m->fam->param_size(m->hyper);
    s->wsz = m->fam->work_size(m->hyper);
    if (s->wsz < 1) s->wsz = 1;
    size_t nn = (size_t) (n > 0 ? n : 1);
    s->mem = mcx_alloc(nn, sizeof(int));
    s->znew = s->mem;     /* the label pass and the split/merge moves take turns */
    s->side = mcx_alloc(nn, 1);
    s->nmoved_cap = (long) nn / SC_REBUILD_SHARE + 1;
    s->moved = mcx_alloc((size_t) s->nmoved_cap, sizeof(int));
    size_t nb = nn / MCX_BLOCK + 1;
    s->bcount = mcx_alloc(nb, sizeof(long));
    s->part = mcx_alloc(nb * (2 * (size_t) d + 4), sizeof(double));
    s->sum = mcx_alloc(2 * (size_t) d + 4, sizeof(double));
    s->cen = mcx_alloc(5 * (size_t) d + 2, sizeof(double));
    s->sa = mcx_alloc(2 * m->sstride, sizeof(double));
    s->sb = s->sa + m->sstride;
    s->ss = mcx_alloc(3 * m->sstride, sizeof(double));
    s->hq = mcx_alloc(MCX_SC_LOCAL_MAX, sizeof(double));
    s->hi = mcx_alloc(MCX_SC_LOCAL_MAX, sizeof(int));
    s->xg = mcx_alloc((size_t) MCX_SC_GATHER * (size_t) d, sizeof(double));
    s->zg = mcx_alloc(MCX_SC_GATHER, sizeof(int));
    if (d <= SC_FIT_GATHER_DIM)
        s->fitx = mcx_alloc((size_t) SC_FIT_MAX * (size_t) d, sizeof(double));
    s->gmo = mcx_alloc(2 * mcx_moments_size(d), sizeof(double));
    mcx_sc_reserve(s, m->K > 0 ? m->K : 1);
    mcx_sc_block_setup(m, s);
}

/* Index in 0..K-1 with probabilities proportional to exp(logw[k]), by the
 * inverse distribution function of one uniform u with the largest weight
 * first and the others in index order.  Exact, and most draws need no
 * exp(): with k* the largest, p(k*) = 1 / (1 + S), S = sum over the others
 * of exp(logw[k] - logw[k*]) <= Sb (mcx_exp_bound()), so u (1 + Sb) < 1
 * implies u < p(k*) and the draw is k*; only otherwise are the weights
 * computed.  One uniform either way (the stream's use is fixed). */
static int rcat_log_max_first(mcx_stream *st, double *logw, int K)
{
    int kx = 0;
    double mx = logw[0];
    for (int k = 1; k < K; k++)
        if (logw[k] > mx) { mx = logw[k]; kx = k; }
    double sb = 0.0;
    for (int k = 0; k < K; k++)
        if (k != kx) sb += mcx_exp_bound(logw[k] - mx);
    double u = mcx_stream_unif(st);
    if (u * (1.0 + sb) < 1.0) return kx;
    double total = 1.0;
    for (int k = 0; k < K; k++) {
        if (k == kx) continue;
        logw[k] = exp(logw[k] - mx);
        total += logw[k];
    }
    double v = u * total;
    if (v < 1.0) return kx;
    v -= 1.0;
    int last = kx;
    for (int k = 0; k < K; k++) {
        if (k == kx || logw[k] <= 0.0) continue;
        last = k;
        if (v < logw[k]) return k;
        v -= logw[k];
    }
    return last;        /* rounding in the running sum */
}

/* Labels proposed for the observations of block b (any thread). */
void mcx_sc_propose_block(const mcx_mix *m, const mcx_subcluster *s, uint64_t master, long b)
{
    const mcx_family *f = m->fam;
    int K = m->K;
    double *work = mcx_sc_work(s), *logw = work + s->wsz;
    mcx_stream st;
    mcx_stream_seed(&st, master, (uint64_t) (s->block0 + b));
    long lo = b * MCX_BLOCK, hi = lo + MCX_BLOCK < m->n ? lo + MCX_BLOCK : m->n;
    if (s->lik_all != NULL) {       /* the data read in place (mcx_mix_xs()) */
        size_t is = mcx_mix_istep(m), ts = mcx_mix_xstep(m);
        const double *x0 = mcx_mix_xs(m, 0);
        for (long i = lo; i < hi; i++) {
            s->lik_all(m->hyper, s->theta, s->psize, K, x0 + (size_t) i * is, ts, s->logpi,
                       logw, work);
            s->znew[i] = K == 1 ? 0 : rcat_log_max_first(&st, logw, K);
        }
        return;
    }
    mcx_xblock xb;
    mcx_mix_block(m, NULL, lo, hi, mcx_sc_block_area(s) + s->tacc, &xb);
    for (long i = lo; i < hi; i++) {
        const double *xi = mcx_xblock_at(&xb, i);
        for (int k = 0; k < K; k++)
            logw[k] = s->logpi[k] +
                f->log_lik(m->hyper, s->theta + (size_t) k * s->psize, xi, work);
        s->znew[i] = K == 1 ? 0 : rcat_log_max_first(&st, logw, K);
    }
}

void mcx_sc_propose(const mcx_mix *m, mcx_subcluster *s, uint64_t master)
{
    long nb = mcx_sc_blocks(m->n);
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) if (nb > 1 && s->threads > 1)
#endif
    for (long b = 0; b < nb; b++)
        mcx_sc_propose_block(m, s, master, b);
}

/* Site-by-site acceptance in index order: observation i takes its proposed
 * label unless it is the last member of its cluster (the exact conditional
 * of z_i given the others under the no-empty-cluster restriction), with
 * cnt[] following the accepted labels.  Rejected proposals are reset in
 * znew; returns the number of observations that move, the first
 * s->nmoved_cap of them listed in s->moved (so that applying a few moves
 * does not scan all n labels again). */
long mcx_sc_accept(const int *z, int *zn, int *cnt, long n, int *list, long cap)
{
    long moved = 0;
    for (long i = 0; i < n; i++) {
        int a = z[i], b = zn[i];
        if (b == a) continue;
        if (cnt[a] == 1) {
            zn[i] = a;
            continue;
        }
        cnt[a]--;
        cnt[b]++;
        if (moved < cap) list[moved] = (int) i;
        moved++;
    }
    return moved;
}

static long accept_sites(const mcx_mix *m, mcx_subcluster *s)
{
    return mcx_sc_accept(m->z, s->znew, s->cnt, m->n, s->moved, s->nmoved_cap);
}

/* The accepted labels into the partition: point by point when few move,
 * else the labels and sizes at once and every cluster's statistics
 * recomputed in parallel (a rule on the number moved, so the same for
 * any thread count). */
static void apply_labels(mcx_mix *m, mcx_subcluster *s, long moved)
{
    int *z = m->z;
    const int *zn = s->znew;
    if (s->combine == NULL || moved <= m->n / SC_REBUILD_SHARE) {
        /* in index order: from the list of accept_sites(), or a scan when
         * more moved than it holds (families without stats_combine) */
        int listed = moved <= s->nmoved_cap;
        long i = -1;
        for (long r = 0; r < moved; r++) {
            if (listed) i = s->moved[r];
            else do i++; while (zn[i] == z[i]);
            int k = zn[i];
            mcx_mix_remove(m, (int) i);
            mcx_mix_add(m, (int) i, k);
        }
        return;
    }
    memcpy(z, zn, (size_t) m->n * sizeof(int));
    for (int k = 0; k < m->K; k++) {
        m->size[k] = s->cnt[k];
        memcpy(mcx_mix_stats(m, k), m->empty, m->sstride * sizeof(double));
    }
    mcx_sc_group_stats(m, s, m->n, NULL, z, NULL, m->K, m->stats);
}

/* Step 1: restricted Gibbs over the instantiated clusters. */
static void restricted_gibbs(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int K = m->K;
    if (K < 1) return;
    SCP_START;
    mcx_sc_reserve(s, K);
    for (int k = 0; k < K; k++) {
        s->logpi[k] = mcx_rlog_gamma(m->size[k] - p->discount);
        m->fam->param_draw(m->hyper, mcx_mix_stats(m, k),
                           s->theta + (size_t) k * s->psize, m->work);
        s->cnt[k] = m->size[k];
    }
    uint64_t master = mcx_stream_master();
    SCP_MARK(SCP_PARAMS);
    mcx_sc_propose(m, s, master);
    SCP_MARK(SCP_PROPOSE);
    apply_labels(m, s, accept_sites(m, s));
    SCP_MARK(SCP_APPLY);
}

static double sweep(void *st, mcx_mix *m, mcx_partition_prior *p)
{
    mcx_subcluster *s = st;
    MCX_MIX_MOVE(m, "subcluster: restricted Gibbs pass", restricted_gibbs(m, s, p));
    SCP_START;
    mcx_subcluster_moves(m, s, p);
    SCP_MARK(SCP_MOVES);
    if (!s->no_sams) mcx_subcluster_sams(m, s, p);
    SCP_MARK(SCP_SAMS);
    mcx_subcluster_singles(m, s, p);
    SCP_MARK(SCP_SINGLES);
    mcx_partition_prior_update(p, m);
    double lm = mcx_mix_log_marginal(m);
    SCP_MARK(SCP_REST);
    SCP_DONE(m->n);
    return lm;
}

static double *counters(void *st)
{
    return ((mcx_subcluster *) st)->counts;
}

/* With the setting sc_record (tests only), the records of the last
 * sequentially allocated split and merge as state$params (two columns);
 * else none. */
static const double *params(const void *st, const mcx_mix *m, int *rows, int *cols)
{
    const mcx_subcluster *s = st;
    *rows = 0;
    *cols = 0;
    if (!s->record) return NULL;
    *rows = SC_REC_HEAD + 3 * m->n;
    *cols = 2;
    return s->rec;
}

static const char *const control_names[] = {"sc_moves", "threads", "sc_record", "sc_thin",
                                             "sc_sams", "sc_fit_max", "sc_gather", NULL};

const mcx_dp_algorithm mcx_dp_subcluster = {
    "subcluster", 1, 0, 1, sizeof(mcx_subcluster), control_names,
    setup, sweep, params, NULL, counters, NULL
};
