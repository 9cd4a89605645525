/*
 * mixture_state.c -- compact cluster bookkeeping (see mixture_state.h).
 */
#include <stdint.h>
#include <string.h>
#include "mixture_state.h"
#include "family_registry.h"

const void *mcx_family_hyper(const mcx_family *fam, int dim,
                             const double *values, int n_values)
{
    size_t nh = mcx_family_hyper_doubles(fam, dim);
    void *h = mcx_alloc(nh > 0 ? nh : 1, sizeof(double));
    int rc = fam->hyper_init(h, dim, values, n_values);
    if (rc != 0)
        mcx_error("mcmix internal error: family '%s' refused its hyperparameters "
                  "(code %d, dim %d, %d values)", fam->name, rc, dim, n_values);
    return h;
}

/* (Re)allocate the per-cluster buffers for `cap` clusters, keeping the
 * first m->K clusters when old buffers exist. */
static void set_capacity(mcx_mix *m, int cap)
{
    double *stats = mcx_alloc((size_t) cap * m->sstride, sizeof(double));
    int *size = mcx_alloc((size_t) cap, sizeof(int));
    if (m->stats != NULL && m->K > 0) {
        memcpy(stats, m->stats, (size_t) m->K * m->sstride * sizeof(double));
        memcpy(size, m->size, (size_t) m->K * sizeof(int));
    }
    m->stats = stats;
    m->size = size;
    m->cap = cap;
    if (m->nthreads > 1)
        m->tstats = mcx_alloc((size_t) cap * m->sstride + (size_t) m->nthreads * MCX_TPAD,
                              sizeof(double));
}

/* The data layout and the gather buffers (mixture_state.h). */
static void set_data(mcx_mix *m, const double *x, int n, int dim, int by_column,
                     int threads)
{
    m->x = x;
    m->ld = by_column && dim > 1 ? (size_t) n : 1;
    m->nthreads = threads > 1 ? threads : 1;
    size_t nt = (size_t) m->nthreads;
    if (nt > 1) {
        m->tfirst = mcx_alloc(nt + 1, sizeof(int));
        size_t ws = m->fam->work_size(m->hyper);
        m->wstride = ((ws + 7) / 8) * 8 + 8;
        m->twork = mcx_alloc(nt * m->wstride, sizeof(double));
    }
    if (m->ld == 1) return;
    m->xbuf = mcx_alloc(nt * (MCX_XSLOTS * (size_t) dim + MCX_XPAD), sizeof(double));
    m->xring = mcx_alloc(nt * MCX_XRING_STRIDE, sizeof(int));
    memset(m->xring, 0, nt * MCX_XRING_STRIDE * sizeof(int));
}

void mcx_mix_block(const mcx_mix *m, const int *obs, long lo, long hi, double *buf,
                   mcx_xblock *b)
{
    b->x = m->x;
    b->obs = obs;
    b->lo = lo;
    b->dim = m->dim;
    if (m->ld == 1) {            /* contiguous rows: consecutive items need no copy */
        b->rows = obs == NULL ? m->x + (size_t) lo * m->dim : NULL;
        return;
    }
    const double *x = m->x;
    size_t ld = m->ld;
    if (m->dim == 2) {           /* the common case, unrolled */
        for (long j = lo; j < hi; j++) {
            size_t i = (size_t) (obs != NULL ? obs[j] : j);
            buf[2 * (j - lo)] = x[i];
            buf[2 * (j - lo) + 1] = x[i + ld];
        }
    } else {
        int d = m->dim;
        for (long j = lo; j < hi; j++) {
            size_t i = (size_t) (obs != NULL ? obs[j] : j);
            for (int t = 0; t < d; t++) buf[(size_t) (j - lo) * d + t] = x[i + (size_t) t * ld];
        }
    }
    b->rows = buf;
}

/* The state's data, scratch and the stats of an empty cluster; no cluster. */
static void build_shell(mcx_mix *m, const mcx_family *fam, const void *hyper, const double *x,
                        int n, int dim, int by_column, int threads)
{
    memset(m, 0, sizeof *m);
    m->fam = fam;
    m->hyper = hyper;
    m->n = n;
    m->dim = dim;
    m->sstride = mcx_family_stats_doubles(fam, hyper);
    if (m->sstride == 0) m->sstride = 1;
    set_data(m, x, n, dim, by_column, threads);
    size_t ws = fam->work_size(hyper);
    m->work = mcx_alloc(ws > 0 ? ws : 1, sizeof(double));
    m->empty = mcx_alloc(m->sstride, sizeof(double));
    m->scratch = mcx_alloc(m->sstride, sizeof(double));
    fam->stats_reset(hyper, m->empty);
}

void mcx_mix_build_view(mcx_mix *m, const mcx_family *fam, const void *hyper, const double *x,
                        int n, int dim, int by_column, int threads, int *z, int K)
{
    if (K < 0) MCX_INTERNAL("negative number of clusters");
    build_shell(m, fam, hyper, x, n, dim, by_column, threads);
    set_capacity(m, K > 32 ? 2 * K : 64);
    for (int k = 0; k < K; k++) mcx_mix_new_cluster(m);
    m->z = z;
}

void mcx_mix_build_data(mcx_mix *m, const mcx_family *fam, const void *hyper,
                        const double *x, int n, int dim, int by_column, int threads,
                        const int *labels, int *z_out, int k_min,
                        const void *stats, size_t nbytes)
{
    build_shell(m, fam, hyper, x, n, dim, by_column, threads);

    /* the range of the labels (on the state's threads: one pass over n
     * per chunk), then their copy and the cluster sizes in one pass */
    int lo = 0, hi = -1;
#ifdef _OPENMP
#pragma omp parallel for num_threads(m->nthreads) schedule(static) \
    reduction(min: lo) reduction(max: hi) if (m->nthreads > 1 && n >= MCX_MIX_PARALLEL_N)
#endif
    for (int i = 0; i < n; i++) {
        if (labels[i] < lo) lo = labels[i];
        if (labels[i] > hi) hi = labels[i];
    }
    if (lo < -1 || hi >= n + k_min) MCX_INTERNAL("cluster label out of range");
    int K = k_min > hi + 1 ? k_min : hi + 1;
    int cap = 2 * K;
    if (cap < 64) cap = 64;
    set_capacity(m, cap);
    m->z = z_out != NULL ? z_out : mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
    m->K = 0;
    for (int k = 0; k < K; k++) mcx_mix_new_cluster(m);
    int *z = m->z, *size = m->size;
    for (int i = 0; i < n; i++) {
        int l = z[i] = labels[i];     /* labels may be z itself */
        if (l >= 0) size[l]++;
    }
    if (stats == NULL) mcx_mix_refresh(m);     /* the blocks are empty */
    else mcx_mix_restore_stats(m, stats, nbytes);
}

void mcx_mix_restore_stats(mcx_mix *m, const void *stats, size_t nbytes)
{
    if (nbytes != mcx_mix_stats_bytes(m))
        MCX_INTERNAL("exported stats do not match the labels");
    memcpy(m->stats, stats, nbytes);
}

void mcx_mix_build(mcx_mix *m, const mcx_family *fam, const void *hyper,
                   const double *x, int n, int dim, const int *labels, int k_min)
{
    mcx_mix_build_data(m, fam, hyper, x, n, dim, 0, 1, labels, NULL, k_min, NULL, 0);
}

void mcx_mix_build_restore(mcx_mix *m, const mcx_family *fam, const void *hyper,
                           const double *x, int n, int dim, const int *labels,
                           int k_min, const void *stats, size_t bytes)
{
    mcx_mix_build_data(m, fam, hyper, x, n, dim, 0, 1, labels, NULL, k_min, stats, bytes);
}

/* The statistics of clusters k0 .. k1-1 summed from the labels, in index
 * order, into the blocks at `base` (cluster k at base + k * sstride). */
static void refresh_range(const mcx_mix *m, int k0, int k1, double *base, double *work)
{
    size_t ss = m->sstride;
    const int *z = m->z;
    for (int k = k0; k < k1; k++) memcpy(base + (size_t) k * ss, m->empty, ss * sizeof(double));
    for (int i = 0; i < m->n; i++)
        if (z[i] >= k0 && z[i] < k1)
            m->fam->stats_add(m->hyper, base + (size_t) z[i] * ss, mcx_mix_x(m, i), work);
}

/* Run t sums clusters tfirst[t] .. tfirst[t+1]-1 into its own copy. */
static void refresh_run(mcx_mix *m, int t)
{
    int k0 = m->tfirst[t], k1 = m->tfirst[t + 1];
    size_t ss = m->sstride;
    double *own = m->tstats + (size_t) t * MCX_TPAD;
    if (k1 <= k0) return;
    refresh_range(m, k0, k1, own, m->twork + (size_t) t * m->wstride);
    memcpy(mcx_mix_stats(m, k0), own + (size_t) k0 * ss, (size_t) (k1 - k0) * ss * sizeof(double));
}

void mcx_mix_refresh(mcx_mix *m)
{
    int K = m->K, T = m->nthreads < K ? m->nthreads : K;
#ifndef _OPENMP
    T = 1;
#endif
    if (T < 2 || !mcx_family_thread_safe(m->fam)) {
        refresh_range(m, 0, K, m->stats, m->work);
        return;
    }
    /* contiguous runs of clusters of about n / T members each */
    /* 64-bit: tot * t exceeds 2^31 from n = 2^31 / T (long has 32 bits
     * on Windows) */
    int64_t tot = 0, cum = 0;
    for (int k = 0; k < K; k++) tot += m->size[k];
    int k = 0;
    m->tfirst[0] = 0;
    for (int t = 1; t < T; t++) {
        int64_t target = tot * t / T;
        while (k < K && cum + m->size[k] / 2 < target) cum += m->size[k++];
        m->tfirst[t] = k;
    }
    m->tfirst[T] = K;
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) schedule(static)
#endif
    for (int t = 0; t < T; t++) refresh_run(m, t);
}

void mcx_mix_remove(mcx_mix *m, int i)
{
    int k = m->z[i];
    if (k < 0) MCX_INTERNAL("removing an unassigned observation");
    m->fam->stats_remove(m->hyper, mcx_mix_stats(m, k), mcx_mix_x(m, i), m->work);
    m->size[k]--;
    m->z[i] = -1;
}

void mcx_mix_detach(mcx_mix *m, int i, const double *without)
{
    int k = m->z[i];
    if (k < 0) MCX_INTERNAL("removing an unassigned observation");
    memcpy(mcx_mix_stats(m, k), without, m->sstride * sizeof(double));
    m->size[k]--;
    m->z[i] = -1;
}

void mcx_mix_add(mcx_mix *m, int i, int k)
{
    if (m->z[i] >= 0 || k < 0 || k >= m->K) MCX_INTERNAL("bad cluster assignment");
    m->fam->stats_add(m->hyper, mcx_mix_stats(m, k), mcx_mix_x(m, i), m->work);
    m->size[k]++;
    m->z[i] = k;
}

int mcx_mix_new_cluster(mcx_mix *m)
{
    if (m->K == m->cap) set_capacity(m, 2 * m->cap);
    int k = m->K++;
    memcpy(mcx_mix_stats(m, k), m->empty, m->sstride * sizeof(double));
    m->size[k] = 0;
    return k;
}

void mcx_mix_delete_cluster(mcx_mix *m, int k)
{
    if (k < 0 || k >= m->K || m->size[k] != 0)
        MCX_INTERNAL("deleting a cluster that is not empty");
    int last = m->K - 1;
    if (k != last) {
        memcpy(mcx_mix_stats(m, k), mcx_mix_stats(m, last), m->sstride * sizeof(double));
        int left = m->size[k] = m->size[last];
        int *z = m->z;
        for (int i = 0; left > 0 && i < m->n; i++)
            if (z[i] == last) {
                z[i] = k;
                left--;
            }
    }
    m->K = last;
}

int mcx_mix_n_occupied(const mcx_mix *m)
{
    int c = 0;
    for (int k = 0; k < m->K; k++) c += m->size[k] > 0;
    return c;
}

double mcx_mix_log_marginal(const mcx_mix *m)
{
    double s = 0.0;
    for (int k = 0; k < m->K; k++)
        if (m->size[k] > 0)
            s += m->fam->log_marginal(m->hyper, mcx_mix_stats(m, k), m->work);
    return s;
}

void mcx_mix_chunk(mcx_mix *m, const mcx_chunk *c, double (*sweep)(void *ctx),
                   void (*keep)(void *ctx, int r, double ll), void *ctx)
{
    int r = 0;
    for (int g = c->offset + 1; g <= c->offset + c->n; g++) {
        double ll = sweep(ctx);
        if (g % MCX_REFRESH_EVERY == 0) mcx_mix_refresh(m);
        if (mcx_chunk_keeps(c, g)) keep(ctx, r++, ll);
        /* about K + 1 predictives of O(dim) per observation: amortised
         * interrupt checks (every sweep at large n, every few thousand at
         * small n), none after the last sweep (the driver's own check) */
        if (g < c->offset + c->n)
            mcx_interrupt_point((double) m->n * (m->K + 1) * (m->dim + 1));
    }
}

void mcx_mix_check_enable(mcx_mix *m, int allow_empty)
{
    m->check = allow_empty ? 2 : 1;
    m->check_stats = mcx_alloc(m->sstride, sizeof(double));
}

/* a and b agree to a relative 1e-7 (both NaN or the same infinity too) */
static int check_close(double a, double b)
{
    if (a == b || (ISNAN(a) && ISNAN(b))) return 1;
    return fabs(a - b) <= 1e-7 * (1.0 + fabs(a) + fabs(b));
}

void mcx_mix_verify(mcx_mix *m, const char *move)
{
    const mcx_family *f = m->fam;
    const char *what = NULL, *unit = "cluster";
    int bad = -1, total = 0;
    for (int i = 0; i < m->n && what == NULL; i++)
        if (m->z[i] < 0 || m->z[i] >= m->K) {
            what = "a label names no cluster";
            unit = "observation";
            bad = i;
        }
    for (int k = 0; k < m->K && what == NULL; k++) {
        double *st = m->check_stats;
        int cnt = 0;
        memcpy(st, m->empty, m->sstride * sizeof(double));
        for (int i = 0; i < m->n; i++)
            if (m->z[i] == k) {
                f->stats_add(m->hyper, st, mcx_mix_x(m, i), m->work);
                cnt++;
            }
        total += m->size[k];
        bad = k;
        if (cnt != m->size[k]) what = "the size of a cluster is not its number of members";
        else if (cnt == 0 && m->check != 2) what = "an empty cluster";
        else {
            const double *cur = mcx_mix_stats(m, k);
            for (size_t j = 0; j < m->sstride && what == NULL; j++)
                if (!check_close(cur[j], st[j]))
                    what = "the stats of a cluster are not those of its members";
            if (what == NULL && f->log_marginal != NULL &&
                !check_close(f->log_marginal(m->hyper, cur, m->work),
                             f->log_marginal(m->hyper, st, m->work)))
                what = "the log marginal of a cluster is not that of its members";
        }
    }
    if (what == NULL && total != m->n) { what = "the sizes do not add up to n"; bad = -1; }
    if (what == NULL) return;
    mcx_context(NULL);
    mcx_error("mcmix internal error: the state check after the move '%s' failed: %s "
              "(%s %d; K = %d, n = %d)", move, what, unit, bad, m->K, m->n);
}
