/*
 * mixture_warm.c -- allocation of all observations to the clusters of a
 * subsample's partition (the warm start of R/mixture_warm.R; see
 * mixture_warm.h).  Only the starting state of a chain is made here: the
 * sampler that runs from it is unchanged, so its exactness is untouched.
 */
#include <string.h>
#include "mixture_warm.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Observations per block of the parallel allocation (fixed, so that the
 * work of a thread never depends on the thread count; the result does not
 * depend on it anyway: every observation is allocated on its own). */
#define WARM_BLOCK 4096

static inline const double *warm_x(const mcx_warm_data *d, long i, double *buf)
{
    if (!d->by_column) return d->x + (size_t) i * d->dim;
    for (int j = 0; j < d->dim; j++) buf[j] = d->x[i + (size_t) j * d->n];
    return buf;
}

void mcx_warm_stats(const mcx_family *fam, const void *hyper, const mcx_warm_data *d,
                    const int *sub, const int *lab, int m, int K, double *stats,
                    size_t stride, int *size, double *x_buf, double *work)
{
    for (int k = 0; k < K; k++) {
        fam->stats_reset(hyper, stats + (size_t) k * stride);
        size[k] = 0;
    }
    for (int r = 0; r < m; r++) {
        int k = lab[r];
        if (k < 0 || k >= K || sub[r] < 0 || sub[r] >= d->n)
            mcx_error("mcmix internal error: bad subsample of the warm start");
        fam->stats_add(hyper, stats + (size_t) k * stride, warm_x(d, sub[r], x_buf), work);
        size[k]++;
    }
    for (int k = 0; k < K; k++)
        if (size[k] == 0) mcx_error("mcmix internal error: empty cluster in the warm start");
}

static void allocate_block(const mcx_family *fam, const void *hyper, const mcx_warm_data *d,
                           const double *stats, size_t stride, const double *logn, int K,
                           long lo, long hi, double *scr, long base, int *out)
{
    double *buf = scr, *work = scr + d->dim;
    for (long i = lo; i < hi; i++) {
        const double *xi = warm_x(d, i, buf);
        int best = 0;
        double bv = R_NegInf;
        for (int k = 0; k < K; k++) {
            double v = logn[k] + fam->log_predictive(hyper, stats + (size_t) k * stride, xi,
                                                     work);
            if (v > bv) {
                bv = v;
                best = k;
            }
        }
        out[i - base] = best;
    }
}

void mcx_warm_allocate(const mcx_family *fam, const void *hyper, const mcx_warm_data *d,
                       const double *stats, size_t stride, const int *size, int K,
                       long lo, long hi, int threads, double *tscr, size_t tstride,
                       double *logn, int *out)
{
    for (int k = 0; k < K; k++) logn[k] = log((double) size[k]);
    long nb = (hi - lo + WARM_BLOCK - 1) / WARM_BLOCK;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && nb > 1)
#endif
    for (long b = 0; b < nb; b++) {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        long a = lo + b * WARM_BLOCK, e = a + WARM_BLOCK < hi ? a + WARM_BLOCK : hi;
        allocate_block(fam, hyper, d, stats, stride, logn, K, a, e,
                       tscr + (size_t) t * tstride, lo, out);
    }
    (void) threads;
}
