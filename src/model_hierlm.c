/*
 * model_hierlm.c -- Gibbs sampler for hierarchical linear regression
 * (Murphy 2012, section 24.2.5, equations 24.29-24.42; Hoff 2009):
 *
 *   y_ij | beta_j, sigma^2 ~ N(x_ij' beta_j, sigma^2),
 *   beta_j | mu, Sigma     ~ N(mu, Sigma),             j = 1..m,
 *   mu ~ N(mu0, V0),  Sigma ~ IW(eta0, S0),  sigma^2 ~ IG(nu0/2, nu0 s0^2/2),
 *
 * with IW(eta, S) the inverse-Wishart of mean S / (eta - p - 1).
 * One iteration, in the order of the reference:
 *   beta_j | .  ~ N(m_j, P_j^{-1}), P_j = Sigma^{-1} + X_j'X_j / sigma^2,
 *                 m_j = P_j^{-1} (Sigma^{-1} mu + X_j'y_j / sigma^2)   (24.33-35)
 *   mu | .      ~ N(P^{-1} (V0^{-1} mu0 + Sigma^{-1} sum_j beta_j), P^{-1}),
 *                 P = V0^{-1} + m Sigma^{-1}                          (24.36-38)
 *   Sigma | .   ~ IW(eta0 + m, S0 + sum_j (beta_j - mu)(beta_j - mu)') (24.39-40)
 *   sigma^2 | . ~ IG((nu0 + N)/2, (nu0 s0^2 + SSR)/2)                 (24.41-42)
 * The data enter through X_j'X_j, X_j'y_j and y_j'y_j only
 * (SSR_j = y_j'y_j - 2 beta_j'X_j'y_j + beta_j'X_j'X_j beta_j).
 */
#include <string.h>
#include "model.h"

#define IDX(i, j, d) ((size_t) (i) + (size_t) (j) * (size_t) (d))

/* Cholesky factor of a state matrix; a failure is a numerical breakdown. */
static void chol_or_fail(double *A, int p, const char *what)
{
    if (mcx_chol(A, p) != 0)
        mcx_error("hier_lm_gibbs: %s is not numerically positive definite; "
                  "rescale `y` and `X` or use a more informative prior "
                  "(`mu0`, `V0`, `eta0`, `S0`)", what);
}

void mcx_hierlm_run(const mcx_hierlm_data *d, double *beta, double *mu,
                    double *Sigma, double *sigma2, const mcx_chunk *ch, int keep_beta,
                    double *traces)
{
    const int n_iter = ch->n, thin = ch->thin, offset = ch->offset, warmup = ch->warmup,
              n_kept = ch->n_kept;
    const int p = d->p, m = d->m;
    const size_t pp = (size_t) p * p;
    double *Sinv = mcx_alloc(pp, sizeof(double));
    double *L = mcx_alloc(pp, sizeof(double));
    double *P = mcx_alloc(pp, sizeof(double));
    double *wk = mcx_alloc(2 * pp, sizeof(double));
    double *rhs = mcx_alloc((size_t) p, sizeof(double));
    double *Smu = mcx_alloc((size_t) p, sizeof(double));
    double *v = mcx_alloc((size_t) p, sizeof(double));

    int k_out = 0;
    for (int it = 1; it <= n_iter; it++) {
        mcx_interrupt_point((double) p * p * p * (d->m + 1));
        /* Sigma^{-1} and Sigma^{-1} mu */
        memcpy(L, Sigma, pp * sizeof(double));
        chol_or_fail(L, p, "Sigma");
        mcx_chol_inverse(L, p, Sinv);
        for (int a = 0; a < p; a++) {
            double s = 0.0;
            for (int b = 0; b < p; b++) s += Sinv[IDX(a, b, p)] * mu[b];
            Smu[a] = s;
        }
        const double prec = 1.0 / *sigma2;

        /* beta_j | mu, Sigma, sigma^2, y_j */
        for (int j = 0; j < m; j++) {
            const double *XtX = d->XtX + pp * j, *Xty = d->Xty + (size_t) p * j;
            for (size_t q = 0; q < pp; q++) P[q] = Sinv[q] + prec * XtX[q];
            chol_or_fail(P, p, "the conditional precision of a group's coefficients");
            for (int a = 0; a < p; a++) rhs[a] = Smu[a] + prec * Xty[a];
            mcx_trsv_lower(P, rhs, p);
            mcx_trsv_lower_t(P, rhs, p);
            mcx_rmvnorm_prec_chol(rhs, P, p, beta + (size_t) p * j);
        }

        /* mu | beta, Sigma */
        for (int a = 0; a < p; a++) v[a] = 0.0;
        for (int j = 0; j < m; j++)
            for (int a = 0; a < p; a++) v[a] += beta[IDX(a, j, p)];
        for (int a = 0; a < p; a++) {
            double s = 0.0;
            for (int b = 0; b < p; b++)
                s += d->V0inv[IDX(a, b, p)] * d->mu0[b] + Sinv[IDX(a, b, p)] * v[b];
            rhs[a] = s;
        }
        for (size_t q = 0; q < pp; q++) P[q] = d->V0inv[q] + m * Sinv[q];
        chol_or_fail(P, p, "the conditional precision of mu");
        mcx_trsv_lower(P, rhs, p);
        mcx_trsv_lower_t(P, rhs, p);
        mcx_rmvnorm_prec_chol(rhs, P, p, mu);

        /* Sigma | beta, mu */
        memcpy(P, d->S0, pp * sizeof(double));
        for (int j = 0; j < m; j++) {
            for (int a = 0; a < p; a++) v[a] = beta[IDX(a, j, p)] - mu[a];
            for (int b = 0; b < p; b++)
                for (int a = 0; a < p; a++) P[IDX(a, b, p)] += v[a] * v[b];
        }
        chol_or_fail(P, p, "the inverse-Wishart scale of Sigma");
        mcx_rinvwishart_chol(d->eta0 + m, P, p, Sigma, wk);

        /* sigma^2 | beta, y */
        double ssr = 0.0;
        for (int j = 0; j < m; j++) {
            const double *XtX = d->XtX + pp * j, *Xty = d->Xty + (size_t) p * j;
            const double *b = beta + (size_t) p * j;
            double q = d->yty[j];
            for (int a = 0; a < p; a++) {
                q -= 2.0 * b[a] * Xty[a];
                for (int c = 0; c < p; c++) q += b[a] * XtX[IDX(a, c, p)] * b[c];
            }
            ssr += q > 0.0 ? q : 0.0;
        }
        *sigma2 = 1.0 / mcx_rgamma(0.5 * (d->nu0 + d->n_total),
                                   0.5 * (d->nu0 * d->s0sq + ssr));

        int g = offset + it;
        if (!warmup && g % thin == 0) {
            if (k_out >= n_kept) MCX_INTERNAL("more kept draws than allocated");
            size_t col = 0;
            for (int a = 0; a < p; a++) traces[k_out + n_kept * col++] = mu[a];
            for (int b = 0; b < p; b++)
                for (int a = b; a < p; a++)
                    traces[k_out + n_kept * col++] = Sigma[IDX(a, b, p)];
            traces[k_out + n_kept * col++] = *sigma2;
            if (keep_beta)
                for (size_t q = 0; q < (size_t) p * m; q++)
                    traces[k_out + n_kept * col++] = beta[q];
            k_out++;
        }
    }
    if (k_out != n_kept) MCX_INTERNAL("fewer kept draws than allocated");
}
