/*
 * mixture_warm.h -- the allocation step of a warm start (SEXP-free): the
 * clusters found on a subsample of the observations receive every other
 * observation (R/mixture_warm.R runs the subsample's sampler).
 */
#ifndef MCMIX_MIXTURE_WARM_H
#define MCMIX_MIXTURE_WARM_H

#include "mcmix_engine.h"

/* The data as the mixture samplers read them: observation i, coordinate j
 * at x[i + j * n] (by_column, R's n x dim matrix in place) or at
 * x[j + i * dim] (the dim x n transpose). */
typedef struct {
    const double *x;
    long n;
    int dim, by_column;
} mcx_warm_data;

/* The stats of the K clusters of the subsample (observations sub[0 .. m-1],
 * labels lab[0 .. m-1] in 0 .. K-1, every label used), in the order of
 * sub, into stats (K blocks of `stride` doubles) and their sizes into size;
 * x_buf holds dim doubles, work the family's scratch. */
void mcx_warm_stats(const mcx_family *fam, const void *hyper, const mcx_warm_data *d,
                    const int *sub, const int *lab, int m, int K, double *stats,
                    size_t stride, int *size, double *x_buf, double *work);

/* Observations lo .. hi-1 to the cluster of largest
 *   log n_k + log p(x_i | x_k)
 * (the size times the posterior predictive given the cluster's subsample
 * members; ties to the first), into out[0 .. hi-lo-1].  Deterministic:
 * the same for any number of threads (each thread with its own dim +
 * work-size doubles of scratch in tscr, `tstride` apart). */
void mcx_warm_allocate(const mcx_family *fam, const void *hyper, const mcx_warm_data *d,
                       const double *stats, size_t stride, const int *size, int K,
                       long lo, long hi, int threads, double *tscr, size_t tstride,
                       double *logn, int *out);

#endif
