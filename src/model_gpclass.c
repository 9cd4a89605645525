/*
 * model_gpclass.c -- Gibbs sampler for binary Gaussian-process
 * classification with the probit likelihood (Rogers and Girolami 2016, sections
 * 9.2 and 9.2.1): auxiliary variables z_n with t_n = 1{z_n > 0}, z | f ~ N(f, I),
 * f ~ N(0, K).  One iteration:
 *   (a) f | z ~ N(Sigma_f z, Sigma_f),  Sigma_f = (K^{-1} + I)^{-1};
 *   (b) z_n | f_n, t_n ~ N(f_n, 1) truncated to be positive (t_n = 1) or
 *       negative (t_n = 0).
 * Predictions (steps (c)-(e) of 9.2.1) are Rao-Blackwellised: given z, the
 * test auxiliary y_* is Gaussian with mean K_*'(K + I)^{-1} z and variance
 * 1 + k_** - K_*'(K + I)^{-1} K_*, so P(t_* = 1 | z) = Phi(mean / sd); its
 * average over kept draws is the predictive class probability.
 * The matrices A = Sigma_f, S (S S' = Sigma_f), W = (K + I)^{-1} K_* and the
 * predictive sd are fixed and computed once by the caller.
 */
#define USE_FC_LEN_T
#include <R_ext/BLAS.h>
#include <Rmath.h>
#include "model.h"
#ifndef FCONE
#define FCONE
#endif

/* y = M x for an r x c column-major M (BLAS dgemv), or M' x when trans. */
static void matvec(const double *M, int r, int c, const double *x, double *y,
                   int trans)
{
    const double one = 1.0, zero = 0.0;
    const int inc = 1;
    if (r == 0 || c == 0) {
        for (int i = 0; i < (trans ? c : r); i++) y[i] = 0.0;
        return;
    }
    F77_CALL(dgemv)(trans ? "T" : "N", &r, &c, &one, M, &r, x, &inc, &zero, y,
                    &inc FCONE);
}

/* work: 2 n + m doubles */
void mcx_gpclass_run(const mcx_gpclass_data *d, double *z, double *f,
                     double *prob_sum, const mcx_chunk *ch, double *traces, double *work)
{
    const int n_iter = ch->n, thin = ch->thin, offset = ch->offset, warmup = ch->warmup,
              n_kept = ch->n_kept;
    const int n = d->n, m = d->m;
    double *e = work, *tmp = work + n, *ms = work + 2 * n;
    int k_out = 0;
    for (int it = 1; it <= n_iter; it++) {
        mcx_interrupt_point(2.0 * n * n + (double) m * (n + 30));
        /* (a) f = A z + S e */
        matvec(d->A, n, n, z, f, 0);
        for (int i = 0; i < n; i++) e[i] = norm_rand();
        matvec(d->S, n, n, e, tmp, 0);
        for (int i = 0; i < n; i++) f[i] += tmp[i];
        /* (b) z | f, t */
        for (int i = 0; i < n; i++)
            z[i] = d->y[i] ? mcx_rtnorm_lower(f[i], 1.0, 0.0)
                           : mcx_rtnorm_upper(f[i], 1.0, 0.0);
        int g = offset + it;
        if (!warmup && g % thin == 0) {
            if (k_out >= n_kept) MCX_INTERNAL("more kept draws than allocated");
            double ll = 0.0;
            for (int i = 0; i < n; i++) {
                traces[k_out + (size_t) i * n_kept] = f[i];
                ll += pnorm(f[i], 0.0, 1.0, d->y[i] ? 1 : 0, 1);
            }
            traces[k_out + (size_t) n * n_kept] = ll;
            if (m > 0) {
                matvec(d->W, n, m, z, ms, 1);
                for (int j = 0; j < m; j++)
                    prob_sum[j] += pnorm(ms[j] / d->pred_sd[j], 0.0, 1.0, 1, 0);
            }
            k_out++;
        }
    }
    if (k_out != n_kept) MCX_INTERNAL("fewer kept draws than allocated");
}
