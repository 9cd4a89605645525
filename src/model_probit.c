/*
 * model_probit.c -- Gibbs sampler for Bayesian probit regression by data
 * augmentation (Albert and Chib 1993; Murphy 2012, section 24.5.1, and
 * Rogers and Girolami 2016, equations 9.4-9.5 for the auxiliary-variable identity).
 *
 *   y_i = 1{z_i > 0},  z_i | beta ~ N(x_i' beta, 1),  beta ~ N(b0, B0).
 *
 * One iteration:
 *   z_i | beta, y_i ~ N(x_i' beta, 1) truncated to (0, Inf) if y_i = 1 and
 *                     to (-Inf, 0) if y_i = 0;
 *   beta | z        ~ N(Q^{-1} (B0^{-1} b0 + X' z), Q^{-1}),  Q = B0^{-1} + X'X.
 * Q does not depend on the state, so its Cholesky factor is computed once
 * per call.  The state is beta alone (z is redrawn from beta first).
 */
#include "model.h"

void mcx_probit_run(const mcx_probit_data *d, double *beta, const mcx_chunk *ch,
                    double *traces)
{
    const int n_iter = ch->n, thin = ch->thin, offset = ch->offset, warmup = ch->warmup,
              n_kept = ch->n_kept;
    const int n = d->n, p = d->p;
    const double *X = d->X;
    double *L = mcx_alloc((size_t) p * p, sizeof(double));
    double *rhs = mcx_alloc((size_t) p, sizeof(double));
    double *z = mcx_alloc((size_t) n, sizeof(double));

    /* Q = B0^{-1} + X'X and its lower Cholesky factor */
    for (int j = 0; j < p; j++)
        for (int k = 0; k <= j; k++) {
            double s = d->prior_prec[k + (size_t) j * p];
            const double *xj = X + (size_t) j * n, *xk = X + (size_t) k * n;
            for (int i = 0; i < n; i++) s += xj[i] * xk[i];
            L[j + (size_t) k * p] = s;
            L[k + (size_t) j * p] = s;
        }
    if (mcx_chol(L, p) != 0)
        mcx_error("the posterior precision B0^-1 + X'X is not positive definite");

    int k_out = 0;
    for (int it = 1; it <= n_iter; it++) {
        mcx_interrupt_point(2.0 * n * p);
        /* z | beta, y */
        for (int i = 0; i < n; i++) {
            double eta = 0.0;
            for (int j = 0; j < p; j++) eta += X[i + (size_t) j * n] * beta[j];
            z[i] = d->y[i] ? mcx_rtnorm_lower(eta, 1.0, 0.0)
                           : mcx_rtnorm_upper(eta, 1.0, 0.0);
        }
        /* beta | z: mean Q^{-1} (B0^{-1} b0 + X'z), precision Q = L L' */
        for (int j = 0; j < p; j++) {
            double s = d->prior_lin[j];
            const double *xj = X + (size_t) j * n;
            for (int i = 0; i < n; i++) s += xj[i] * z[i];
            rhs[j] = s;
        }
        mcx_trsv_lower(L, rhs, p);
        mcx_trsv_lower_t(L, rhs, p);
        mcx_rmvnorm_prec_chol(rhs, L, p, beta);

        int g = offset + it;
        if (!warmup && g % thin == 0) {
            if (k_out >= n_kept) MCX_INTERNAL("more kept draws than allocated");
            for (int j = 0; j < p; j++) traces[k_out + (size_t) j * n_kept] = beta[j];
            k_out++;
        }
    }
    if (k_out != n_kept) MCX_INTERNAL("fewer kept draws than allocated");
}
