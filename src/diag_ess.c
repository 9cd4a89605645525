/*
 * diag_ess.c -- effective sample size of m chains of n draws with Geyer's
 * initial positive and monotone sequence estimators, as in Vehtari et al.
 * (2021), Section 3.2 and eqs. (10)-(12), Geyer (1992), and the posterior
 * package's .ess() (including the "improved" truncation term and the cap
 * tau >= 1 / log10(n m)).
 */
#include <float.h>
#include <R_ext/Arith.h>
#include "diag.h"

/* TRUE when the values should give NA (non-finite or constant). */
int mcx_diag_degenerate(const double *x, size_t len)
{
    double lo, hi;
    size_t i;
    if (len == 0) return 1;
    lo = hi = x[0];
    for (i = 0; i < len; i++) {
        if (!R_FINITE(x[i])) return 1;
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }
    /* relative to the magnitude: values of any scale (1e-17 or 1e17) that
     * differ by more than rounding are not constant */
    return hi - lo <= DBL_EPSILON * fmax(fabs(hi), fabs(lo));
}

/* Sample variance (divisor k - 1) of k values. */
double mcx_var(const double *v, int k)
{
    double mean = 0.0, s = 0.0;
    int i;
    if (k < 2) return NA_REAL;
    for (i = 0; i < k; i++) mean += v[i];
    mean /= k;
    for (i = 0; i < k; i++) s += (v[i] - mean) * (v[i] - mean);
    return s / (k - 1);
}

double mcx_ess_geyer(const double *x, int n, int m)
{
    double *xc, *cmean, *rho, mean_var, var_plus, even, odd, tau, sum, ess;
    mcx_acov ac;
    int c, t, max_t;
    if (n < 3 || mcx_diag_degenerate(x, (size_t) n * m)) return NA_REAL;
    xc = (double *) mcx_alloc((size_t) n * m, sizeof(double));
    cmean = (double *) mcx_alloc((size_t) m, sizeof(double));
    for (c = 0; c < m; c++) {
        const double *xi = x + (size_t) c * n;
        cmean[c] = mcx_center(xi, n, xc + (size_t) c * n);
    }
    mcx_acov_init(&ac, xc, n, m);
    mcx_acov_need(&ac, 1);
    mean_var = ac.mean[0] * n / (n - 1.0);
    var_plus = mean_var * (n - 1.0) / n;
    if (m > 1) var_plus += mcx_var(cmean, m);

    rho = (double *) mcx_alloc((size_t) n, sizeof(double));
    for (t = 0; t < n; t++) rho[t] = 0.0;
    t = 0;
    even = 1.0;
    rho[0] = even;
    odd = 1.0 - (mean_var - ac.mean[1]) / var_plus;
    rho[1] = odd;
    while (t < n - 5 && !ISNAN(even + odd) && even + odd > 0) {
        t += 2;
        mcx_acov_need(&ac, t + 1);
        even = 1.0 - (mean_var - ac.mean[t]) / var_plus;
        odd = 1.0 - (mean_var - ac.mean[t + 1]) / var_plus;
        if (even + odd >= 0) {
            rho[t] = even;
            rho[t + 1] = odd;
        }
    }
    max_t = t;
    if (even > 0) rho[max_t] = even;
    /* initial monotone sequence */
    t = 0;
    while (t <= max_t - 4) {
        t += 2;
        if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
            rho[t] = (rho[t - 2] + rho[t - 1]) / 2.0;
            rho[t + 1] = rho[t];
        }
    }
    ess = (double) n * m;
    if (max_t == 0) {
        sum = rho[0];            /* R's rho[1:0] picks element 1 only */
    } else {
        sum = 0.0;
        for (t = 0; t < max_t; t++) sum += rho[t];
    }
    tau = -1.0 + 2.0 * sum + rho[max_t];
    if (tau < 1.0 / log10(ess)) tau = 1.0 / log10(ess);
    return ess / tau;
}
