/*
 * mixture_subcluster.c -- the restricted Gibbs pass of the sub-cluster
 * sampler and its sweep (see mixture_subcluster.h for the algorithm and
 * why it is exact; the split / merge moves are in
 * mixture_subcluster_split.c).
 */
#include <string.h>
#include "mixture_subcluster.h"

/* Doubles of one thread's scratch (family work + K log-weights), rounded
 * up to whole 64-byte cache lines plus one line of padding, so that two
 * threads never write to the same cache line (false sharing). */
static size_t scratch_stride(size_t wsz, int cap)
{
    return ((wsz + (size_t) cap + 7) / 8) * 8 + 8;
}

/* Per-cluster arrays for at least `K` clusters (amortised doubling: the
 * only allocations of a sweep, none once the capacity suffices). */
static void reserve(mcx_subcluster *s, int K)
{
    if (K <= s->kcap) return;
    int cap = s->kcap > 0 ? s->kcap : 8;
    while (cap < K) cap *= 2;
    s->theta = mcx_alloc(s->psize * (size_t) cap, sizeof(double));
    s->logpi = mcx_alloc((size_t) cap, sizeof(double));
    s->cnt = mcx_alloc((size_t) cap, sizeof(int));
    s->tscr = mcx_alloc((size_t) s->threads * scratch_stride(s->wsz, cap), sizeof(double));
    s->kcap = cap;
}

static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    mcx_subcluster *s = st;
    int n = m->n, d = m->dim;
    int moves = (int) control[0], threads = (int) control[1];
    (void) p; (void) saved;
    if (threads < 1 || moves < 0) MCX_INTERNAL("bad sub-cluster settings");
    /* plugin families need not be thread-safe: one thread for them */
    if (!mcx_family_thread_safe(m->fam)) threads = 1;
    memset(s, 0, sizeof *s);
    s->threads = threads;
    s->moves = moves;
    s->psize = m->fam->param_size(m->hyper);
    s->wsz = m->fam->work_size(m->hyper);
    if (s->wsz < 1) s->wsz = 1;
    size_t nn = (size_t) (n > 0 ? n : 1);
    s->mem = mcx_alloc(nn, sizeof(int));
    s->znew = s->mem;     /* the label pass and the split/merge moves take turns */
    s->side = mcx_alloc(nn, 1);
    size_t nb = nn / MCX_BLOCK + 1;
    s->part = mcx_alloc(nb * (2 * (size_t) d + 4), sizeof(double));
    s->sum = mcx_alloc(2 * (size_t) d + 4, sizeof(double));
    s->cen = mcx_alloc(5 * (size_t) d + 2, sizeof(double));
    s->sa = mcx_alloc(m->sstride, sizeof(double));
    s->sb = mcx_alloc(m->sstride, sizeof(double));
    reserve(s, m->K > 0 ? m->K : 1);
}

/* Labels proposed for the observations of block b (any thread). */
static void propose_block(const mcx_mix *m, const mcx_subcluster *s, uint64_t master,
                          long b, double *scr)
{
    const mcx_family *f = m->fam;
    int K = m->K;
    double *work = scr, *logw = scr + s->wsz;
    mcx_stream st;
    mcx_stream_seed(&st, master, (uint64_t) b);
    long lo = b * MCX_BLOCK, hi = lo + MCX_BLOCK < m->n ? lo + MCX_BLOCK : m->n;
    for (long i = lo; i < hi; i++) {
        const double *xi = mcx_mix_x(m, (int) i);
        for (int k = 0; k < K; k++)
            logw[k] = s->logpi[k] +
                f->log_lik(m->hyper, s->theta + (size_t) k * s->psize, xi, work);
        s->znew[i] = K == 1 ? 0 : mcx_stream_rcat_log(&st, logw, K);
    }
}

/* Accept the proposals of block b unless they would empty a cluster; the
 * counts cnt[] follow the accepted labels.  Returns 1 when accepted. */
static int accept_block(mcx_mix *m, mcx_subcluster *s, long b)
{
    long lo = b * MCX_BLOCK, hi = lo + MCX_BLOCK < m->n ? lo + MCX_BLOCK : m->n;
    const int *z = m->z, *zn = s->znew;
    int *cnt = s->cnt, empty = 0;
    for (long i = lo; i < hi; i++)
        if (zn[i] != z[i]) {
            cnt[z[i]]--;
            cnt[zn[i]]++;
        }
    for (long i = lo; i < hi && !empty; i++)
        empty = zn[i] != z[i] && cnt[z[i]] == 0;
    if (empty) {                              /* keep the block's labels */
        for (long i = lo; i < hi; i++)
            if (zn[i] != z[i]) {
                cnt[z[i]]++;
                cnt[zn[i]]--;
            }
        return 0;
    }
    for (long i = lo; i < hi; i++)
        if (zn[i] != z[i]) {
            int k = zn[i];
            mcx_mix_remove(m, (int) i);
            mcx_mix_add(m, (int) i, k);
        }
    return 1;
}

/* Step 1: restricted Gibbs over the instantiated clusters. */
static void restricted_gibbs(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int K = m->K;
    if (K < 1) return;
    reserve(s, K);
    for (int k = 0; k < K; k++) {
        s->logpi[k] = mcx_rlog_gamma(m->size[k] - p->discount);
        m->fam->param_draw(m->hyper, mcx_mix_stats(m, k),
                           s->theta + (size_t) k * s->psize, m->work);
        s->cnt[k] = m->size[k];
    }
    uint64_t master = mcx_stream_master();
    long nb = ((long) m->n + MCX_BLOCK - 1) / MCX_BLOCK;
    size_t stride = scratch_stride(s->wsz, s->kcap);
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) if (nb > 1 && s->threads > 1)
#endif
    for (long b = 0; b < nb; b++)
        propose_block(m, s, master, b, s->tscr + (size_t) MCX_THREAD_ID() * stride);
    for (long b = 0; b < nb; b++) accept_block(m, s, b);
}

static double sweep(void *st, mcx_mix *m, mcx_partition_prior *p)
{
    mcx_subcluster *s = st;
    restricted_gibbs(m, s, p);
    mcx_subcluster_moves(m, s, p);
    mcx_partition_prior_update(p, m);
    return mcx_mix_log_marginal(m);
}

static double *counters(void *st)
{
    return ((mcx_subcluster *) st)->counts;
}

static const char *const control_names[] = {"sc_moves", "threads", NULL};

const mcx_dp_algorithm mcx_dp_subcluster = {
    "subcluster", 1, 0, 1, sizeof(mcx_subcluster), control_names,
    setup, sweep, NULL, NULL, counters, NULL
};
