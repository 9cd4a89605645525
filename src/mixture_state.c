/*
 * mixture_state.c -- compact cluster bookkeeping (see mixture_state.h).
 */
#include <string.h>
#include "mixture_state.h"

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
}

/* The data layout and the gather buffers (mixture_state.h). */
static void set_data(mcx_mix *m, const double *x, int n, int dim, int by_column,
                     int threads)
{
    m->x = x;
    m->ld = by_column && dim > 1 ? (size_t) n : 1;
    m->nthreads = threads > 1 ? threads : 1;
    if (m->ld == 1) return;
    size_t nt = (size_t) m->nthreads;
    m->xbuf = mcx_alloc(nt * (MCX_XSLOTS * (size_t) dim + MCX_XPAD), sizeof(double));
    m->xring = mcx_alloc(nt * MCX_XRING_STRIDE, sizeof(int));
    memset(m->xring, 0, nt * MCX_XRING_STRIDE * sizeof(int));
}

void mcx_mix_build_data(mcx_mix *m, const mcx_family *fam, const void *hyper,
                        const double *x, int n, int dim, int by_column, int threads,
                        const int *labels, int *z_out, int k_min,
                        const void *stats, size_t nbytes)
{
    memset(m, 0, sizeof *m);
    m->fam = fam;
    m->hyper = hyper;
    m->n = n;
    m->dim = dim;
    set_data(m, x, n, dim, by_column, threads);
    m->sstride = mcx_family_stats_doubles(fam, hyper);
    if (m->sstride == 0) m->sstride = 1;
    size_t ws = fam->work_size(hyper);
    m->work = mcx_alloc(ws > 0 ? ws : 1, sizeof(double));
    m->empty = mcx_alloc(m->sstride, sizeof(double));
    m->scratch = mcx_alloc(m->sstride, sizeof(double));
    fam->stats_reset(hyper, m->empty);

    int K = k_min > 0 ? k_min : 0;
    for (int i = 0; i < n; i++) {
        if (labels[i] < -1 || labels[i] >= n + k_min)
            MCX_INTERNAL("cluster label out of range");
        if (labels[i] + 1 > K) K = labels[i] + 1;
    }
    int cap = 2 * K;
    if (cap < 64) cap = 64;
    set_capacity(m, cap);
    m->z = z_out != NULL ? z_out : mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
    if (m->z != labels) memcpy(m->z, labels, (size_t) n * sizeof(int));
    m->K = 0;
    for (int k = 0; k < K; k++) mcx_mix_new_cluster(m);
    if (stats == NULL) {
        for (int i = 0; i < n; i++) {
            int l = m->z[i];
            m->z[i] = -1;
            if (l >= 0) mcx_mix_add(m, i, l);
        }
        return;
    }
    for (int i = 0; i < n; i++)
        if (m->z[i] >= 0) m->size[m->z[i]]++;
    mcx_mix_restore_stats(m, stats, nbytes);
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

void mcx_mix_refresh(mcx_mix *m)
{
    for (int k = 0; k < m->K; k++)
        memcpy(mcx_mix_stats(m, k), m->empty, m->sstride * sizeof(double));
    for (int i = 0; i < m->n; i++)
        if (m->z[i] >= 0)
            m->fam->stats_add(m->hyper, mcx_mix_stats(m, m->z[i]), mcx_mix_x(m, i), m->work);
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
