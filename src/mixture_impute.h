/* mixture_impute.h -- imputation of missing coordinates of joint Gaussian
 * blocks in the mixture samplers (mixture_impute.c). */
#ifndef MCMIX_MIXTURE_IMPUTE_H
#define MCMIX_MIXTURE_IMPUTE_H
#include "mcmix_engine.h"

typedef struct {
    const mcx_family *fam;   /* gaussian_niw or gaussian_mean (dimension dim) */
    const void *hyper;
    int off, dim;            /* coordinates off .. off + dim - 1 of an observation */
    const double *cov;       /* known covariance (dim x dim), or NULL: theta[dim..] */
    size_t poff;             /* offset of the block's theta inside a cluster's
                                parameter vector (carried parameters only) */
} mcx_impute_block_spec;

/* One P-step and I-step for block b: xt is the completed data (dim x n,
 * column-major; the missing cells, miss[] != 0, are overwritten), z the
 * cluster of each observation (0-based).  theta: NULL, or the chain's own
 * parameters of the clusters (column k, pstride doubles, for cluster k =
 * z[i]), which the sampler keeps across sweeps; then there is no P-step
 * and the I-step draws from p(x_M | theta_k, x_O). */
void mcx_impute_block(const mcx_impute_block_spec *b, double *xt, int dim, int n,
                      const int *miss, const int *z, const double *theta, size_t pstride);
#endif
