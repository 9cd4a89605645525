/*
 * model.h -- SEXP-free engines of the model-specific Gibbs samplers
 * (model_probit.c, model_gpclass.c, model_ising.c, model_hierlm.c).
 *
 * Common conventions:
 * - a call runs iterations offset + 1 .. offset + n_iter; when `warmup` is 0
 *   iteration g is kept iff g %% thin == 0 and its draws go to row k of the
 *   column-major `traces` matrix with `n_kept` rows (mcx_chunk_kept(), mcmix_chunk.h);
 * - the state arrays passed in are updated in place and hold everything
 *   needed to continue, so running in chunks equals one longer run.
 */
#ifndef MCMIX_MODEL_H
#define MCMIX_MODEL_H

#include "mcmix_engine.h"

/* ---- probit regression (Albert and Chib 1993) ------------------------- */
typedef struct mcx_probit_data {
    int n, p;
    const double *X;          /* n x p */
    const int *y;             /* 0/1 */
    const double *prior_prec; /* p x p: B0^{-1} */
    const double *prior_lin;  /* p: B0^{-1} b0 */
} mcx_probit_data;

void mcx_probit_run(const mcx_probit_data *d, double *beta, const mcx_chunk *ch,
                    double *traces);

/* ---- probit Gaussian-process classification --------------------------- */
typedef struct mcx_gpclass_data {
    int n, m;                 /* training and test points */
    const int *y;             /* 0/1, length n */
    const double *A;          /* n x n: posterior mean map  Sigma_f = (K^-1 + I)^-1 */
    const double *S;          /* n x n: a square root of Sigma_f (S S' = Sigma_f) */
    const double *W;          /* n x m: (K + I)^{-1} K_*  */
    const double *pred_sd;    /* m: sqrt(1 + k_** - diag(K_*' (K + I)^{-1} K_*)) */
} mcx_gpclass_data;

/* z: latent auxiliaries (n); f: latent function (n); prob_sum (m): running
 * sum of the Rao-Blackwellised predictive probabilities over kept draws.
 * traces: n_kept x (n + 1) (f, then the log likelihood). */
void mcx_gpclass_run(const mcx_gpclass_data *d, double *z, double *f,
                     double *prob_sum, const mcx_chunk *ch, double *traces, double *work);

/* ---- 2-D Ising model --------------------------------------------------- */
typedef struct mcx_ising_data {
    int nrow, ncol, periodic;
    double J;
    const double *h;          /* nrow * ncol local fields (field + evidence) */
} mcx_ising_data;

/* method 0: Gibbs sweep in site order; 1: Swendsen-Wang.
 * spins: +-1 (column-major image); spin_sum: running sum over kept draws;
 * traces: n_kept x 2 (magnetisation, energy); spins_out: n_kept x N or NULL. */
void mcx_ising_run(const mcx_ising_data *d, int method, int *spins,
                   double *spin_sum, const mcx_chunk *ch, double *traces, int *spins_out);
double mcx_ising_energy(const mcx_ising_data *d, const int *spins);

/* ---- hierarchical linear regression ------------------------------------ */
typedef struct mcx_hierlm_data {
    int p, m;                 /* coefficients, groups */
    double n_total;
    const double *XtX;        /* p x p x m */
    const double *Xty;        /* p x m */
    const double *yty;        /* m */
    const double *mu0, *V0inv;/* prior of mu: N(mu0, V0) */
    double eta0;              /* Sigma ~ IW(eta0, S0) */
    const double *S0;
    double nu0, s0sq;         /* sigma^2 ~ IG(nu0 / 2, nu0 s0sq / 2) */
} mcx_hierlm_data;

/* State: beta (p x m), mu (p), Sigma (p x p), sigma2 (1).
 * traces: n_kept x (p + p(p+1)/2 + 1 + p m if keep_beta). */
void mcx_hierlm_run(const mcx_hierlm_data *d, double *beta, double *mu,
                    double *Sigma, double *sigma2, const mcx_chunk *ch, int keep_beta,
                    double *traces);
#endif
