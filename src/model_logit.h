/*
 * model_logit.h -- SEXP-free engine of the auxiliary-variable Gibbs
 * samplers for logistic regression (model_logit.c).  Same conventions as
 * model.h: iterations offset + 1 .. offset + n_iter, kept draws in the
 * column-major `traces` (beta, then v0 when hierarchical, then nu when
 * sampled), state arrays updated in place.
 */
#ifndef MCMIX_MODEL_LOGIT_H
#define MCMIX_MODEL_LOGIT_H

#include "model.h"

enum { MCX_LOGIT_POLYA_GAMMA = 0, MCX_LOGIT_HOLMES_HELD = 1, MCX_LOGIT_STUDENT_T = 2 };

typedef struct mcx_logit_data {
    int n, p, method;
    const double *X;          /* n x p */
    const int *y;             /* 0/1 */
    const double *prior_prec; /* p x p: B0^{-1} (or I when hierarchical) */
    const double *prior_lin;  /* p: B0^{-1} b0 (or b0 when hierarchical) */
    const double *prior_mean; /* p: b0 */
    int hier;                 /* beta ~ N(b0, v0 I), v0 ~ IG(v0_shape, v0_scale) */
    double v0_shape, v0_scale;
    double t_scale;           /* STUDENT_T: scale s of the t errors */
    int n_nu;                 /* STUDENT_T: grid size (0: nu fixed) */
    const double *nu_grid;
} mcx_logit_data;

void mcx_logit_run(const mcx_logit_data *d, double *beta, double *v0,
                   double *nu, int n_iter, int thin, int offset, int warmup,
                   double *traces, int n_kept);

#endif
