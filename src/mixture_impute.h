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
} mcx_impute_block_spec;

/* One P-step and I-step for block b: xt is the completed data (dim x n,
 * column-major; the missing cells, miss[] != 0, are overwritten), z the
 * cluster of each observation (0-based). */
void mcx_impute_block(const mcx_impute_block_spec *b, double *xt, int dim, int n,
                      const int *miss, const int *z);
#endif
