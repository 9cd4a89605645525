/*
 * model_logit.c -- Gibbs samplers for Bayesian logistic regression by
 * auxiliary variables (Murphy 2012, section 24.5.1):
 *
 *   P(y_i = 1 | beta) = F(x_i' beta),  beta ~ N(b0, B0)  or, hierarchically,
 *   beta ~ N(b0, v0 I) with v0 ~ IG(d1, d2).
 *
 * Three schemes, each a two-block Gibbs sampler whose latent variables are
 * drawn jointly given beta, then beta given them from a normal with
 *   precision Q = P0 + sum_i w_i x_i x_i',  mean Q^{-1} (P0 b0 + sum_i c_i x_i):
 *
 * POLYA_GAMMA (Polson, Scott and Windle 2013), F = logistic:
 *   omega_i ~ PG(1, x_i' beta);  w_i = omega_i, c_i = y_i - 1/2.
 * HOLMES_HELD (Holmes and Held 2006), F = logistic, exact: z_i = x_i' beta +
 *   e_i with e_i ~ N(0, lambda_i), lambda_i = (2 psi_i)^2, psi_i ~ KS, so
 *   e_i is logistic.  Given beta, z_i is a logistic variate truncated to
 *   the side of 0 given by y_i (drawn by inversion), then lambda_i | z_i,
 *   beta by the KS rejection sampler;  w_i = 1 / lambda_i, c_i = z_i / lambda_i.
 * STUDENT_T (Albert and Chib 1993; eqs. 24.88-24.92): e_i = s t_nu, i.e.
 *   lambda_i ~ Ga(nu/2, nu/2), e_i ~ N(0, s^2 / lambda_i).  Given beta, z_i is
 *   a truncated s t_nu variate (inversion), lambda_i | z_i ~ Ga((nu + 1)/2,
 *   (nu + r_i^2 / s^2)/2);  w_i = lambda_i / s^2, c_i = w_i z_i.  When a grid
 *   of nu values is given, nu | lambda is drawn from eq. 24.92,
 *     p(nu | lambda) propto p(nu) prod_i Ga(lambda_i; nu/2, nu/2)
 *   (the book's display drops the power (nu/2)^{nu/2} to the numerator; the
 *   gamma density has it there), with a uniform prior on the grid.
 * With the hierarchical prior, v0 | beta ~ IG(d1 + p/2, d2 + |beta - b0|^2 / 2).
 */
#include <string.h>
#include <Rmath.h>
#include "model_logit.h"
#include "rng_polyagamma.h"

/* Truncated latent utility: z = eta + e with e drawn from the error law
 * (logistic, or scale * t_nu) conditioned on z > 0 (y = 1) or z < 0. */
static double logit_latent(int method, double eta, int y, double nu, double s)
{
    double a = -eta;                 /* the bound on e */
    double u = unif_rand();
    if (method == MCX_LOGIT_HOLMES_HELD) {
        if (y) return eta + qlogis(u * plogis(a, 0.0, 1.0, 0, 0), 0.0, 1.0, 0, 0);
        return eta + qlogis(u * plogis(a, 0.0, 1.0, 1, 0), 0.0, 1.0, 1, 0);
    }
    a /= s;
    if (y) return eta + s * qt(u * pt(a, nu, 0, 0), nu, 0, 0);
    return eta + s * qt(u * pt(a, nu, 1, 0), nu, 1, 0);
}

/* beta ~ N(Q^{-1} rhs, Q^{-1}) with Q = P0 / v0 + X' W X (L: workspace). */
static void logit_draw_beta(const mcx_logit_data *d, const double *w,
                            const double *c, double v0, double *L,
                            double *rhs, double *beta)
{
    const int n = d->n, p = d->p;
    const double *X = d->X;
    for (int j = 0; j < p; j++) {
        const double *xj = X + (size_t) j * n;
        for (int k = 0; k <= j; k++) {
            const double *xk = X + (size_t) k * n;
            double s = d->prior_prec[k + (size_t) j * p] / v0;
            for (int i = 0; i < n; i++) s += w[i] * xj[i] * xk[i];
            L[j + (size_t) k * p] = s;
            L[k + (size_t) j * p] = s;
        }
        double s = d->prior_lin[j] / v0;
        for (int i = 0; i < n; i++) s += xj[i] * c[i];
        rhs[j] = s;
    }
    if (mcx_chol(L, p) != 0)
        mcx_error("the conditional posterior precision of beta is not "
                  "positive definite (numerically); rescale the covariates.");
    mcx_trsv_lower(L, rhs, p);
    mcx_trsv_lower_t(L, rhs, p);
    mcx_rmvnorm_prec_chol(rhs, L, p, beta);
}

/* nu | lambda on the grid (eq. 24.92, uniform prior on the grid). */
static double logit_draw_nu(const mcx_logit_data *d, const double *lambda,
                            double *logw)
{
    double s1 = 0.0, s2 = 0.0;
    for (int i = 0; i < d->n; i++) { s1 += log(lambda[i]); s2 += lambda[i]; }
    for (int k = 0; k < d->n_nu; k++) {
        double h = 0.5 * d->nu_grid[k];
        logw[k] = d->n * (h * log(h) - lgammafn(h)) + (h - 1.0) * s1 - h * s2;
    }
    return d->nu_grid[mcx_rcat_log(logw, d->n_nu)];
}

void mcx_logit_run(const mcx_logit_data *d, double *beta, double *v0,
                   double *nu, int n_iter, int thin, int offset, int warmup,
                   double *traces, int n_kept)
{
    const int n = d->n, p = d->p;
    /* workspace: L (p x p), rhs (p), eta, w, c, lambda (n each), logw (grid) */
    size_t n_nu = (size_t) (d->n_nu > 0 ? d->n_nu : 1);
    double *L = mcx_alloc((size_t) p * p + p + 4 * (size_t) n + n_nu, sizeof(double));
    double *rhs = L + (size_t) p * p, *eta = rhs + p, *w = eta + n, *c = w + n,
           *lambda = c + n, *logw = lambda + n;
    const double s = d->t_scale;

    int k_out = 0;
    for (int it = 1; it <= n_iter; it++) {
        for (int i = 0; i < n; i++) {
            double e = 0.0;
            for (int j = 0; j < p; j++) e += d->X[i + (size_t) j * n] * beta[j];
            eta[i] = e;
        }
        /* latent variables given beta */
        for (int i = 0; i < n; i++) {
            int y = d->y[i];
            if (d->method == MCX_LOGIT_POLYA_GAMMA) {
                w[i] = mcx_rpolyagamma(eta[i]);
                c[i] = y - 0.5;
            } else if (d->method == MCX_LOGIT_HOLMES_HELD) {
                double z = logit_latent(d->method, eta[i], y, 0.0, 1.0);
                double lam = mcx_rks_mixing(z - eta[i]);
                w[i] = 1.0 / lam;
                c[i] = z / lam;
            } else {
                double z = logit_latent(d->method, eta[i], y, *nu, s);
                double r = (z - eta[i]) / s;
                lambda[i] = rgamma(0.5 * (*nu + 1.0), 2.0 / (*nu + r * r));
                if (lambda[i] < 1e-300) lambda[i] = 1e-300;
                w[i] = lambda[i] / (s * s);
                c[i] = w[i] * z;
            }
        }
        if (d->method == MCX_LOGIT_STUDENT_T && d->n_nu > 0)
            *nu = logit_draw_nu(d, lambda, logw);
        logit_draw_beta(d, w, c, d->hier ? *v0 : 1.0, L, rhs, beta);
        if (d->hier) {
            double ss = 0.0;
            for (int j = 0; j < p; j++) {
                double r = beta[j] - d->prior_mean[j];
                ss += r * r;
            }
            /* IG(a, b): 1 / Gamma(a, rate b) */
            *v0 = 1.0 / rgamma(d->v0_shape + 0.5 * p, 1.0 / (d->v0_scale + 0.5 * ss));
        }

        int g = offset + it;
        if (!warmup && g % thin == 0) {
            if (k_out >= n_kept) MCX_INTERNAL("more kept draws than allocated");
            int col = 0;
            for (int j = 0; j < p; j++) traces[k_out + (size_t) (col++) * n_kept] = beta[j];
            if (d->hier) traces[k_out + (size_t) (col++) * n_kept] = *v0;
            if (d->method == MCX_LOGIT_STUDENT_T && d->n_nu > 0)
                traces[k_out + (size_t) (col++) * n_kept] = *nu;
            k_out++;
        }
    }
    if (k_out != n_kept) MCX_INTERNAL("fewer kept draws than allocated");
}
