/*
 * diag_autocorr.c -- autocovariances of chains with divisor n (the biased
 * estimate recommended by Geyer 1992), as used by the ESS (Vehtari et al.
 * 2021, eq. (10)) and by autocorr().
 *
 * Short lags are summed directly; when more lags are needed (slowly mixing
 * chains) all lags come from one zero-padded FFT per pair of chains, the two
 * real chains packed as the real and imaginary parts of one complex series.
 */
#include <string.h>
#include "diag.h"

/* xc = x - mean(x) (mean with a second refining pass, like R's mean()). */
double mcx_center(const double *x, int n, double *xc)
{
    long double s = 0.0L;
    double m;
    int t;
    for (t = 0; t < n; t++) s += x[t];
    s /= n;
    {
        long double c = 0.0L;
        for (t = 0; t < n; t++) c += (x[t] - s);
        s += c / n;
    }
    m = (double) s;
    for (t = 0; t < n; t++) xc[t] = x[t] - m;
    return m;
}

static int pow2_at_least(int n)
{
    int p = 1;
    while (p < n) p <<= 1;
    return p;
}

/*
 * Autocovariances at lags 0..n-1 of two centred chains x1 and x2 (x2 may be
 * NULL): ac[k] = sum_t x[t] x[t+k] / n. One complex FFT of length >= 2n
 * holds both chains: with Z = FFT(x1 + i x2), FFT(x1)_k = (Z_k +
 * conj(Z_{M-k}))/2 and FFT(x2)_k = (Z_k - conj(Z_{M-k}))/(2i); the inverse
 * transform of |FFT(x1)|^2 + i |FFT(x2)|^2 gives both autocovariances.
 */
void mcx_autocov_fft(const double *x1, const double *x2, int n, double *ac1,
                     double *ac2)
{
    int M = pow2_at_least(2 * n), k;
    mcx_fft plan;
    double *z = (double *) mcx_alloc((size_t) 2 * M, sizeof(double));
    double *w = (double *) mcx_alloc((size_t) 2 * M, sizeof(double));
    mcx_fft_plan(&plan, M);
    memset(z, 0, (size_t) 2 * M * sizeof(double));
    for (k = 0; k < n; k++) {
        z[2 * k] = x1[k];
        z[2 * k + 1] = x2 ? x2[k] : 0.0;
    }
    mcx_fft_run(&plan, z, 0);
    for (k = 0; k < M; k++) {
        int j = (M - k) % M;
        double zr = z[2 * k], zi = z[2 * k + 1], yr = z[2 * j], yi = -z[2 * j + 1];
        double ar = zr + yr, ai = zi + yi;   /* 2 A_k */
        double br = zr - yr, bi = zi - yi;   /* 2i B_k */
        w[2 * k] = 0.25 * (ar * ar + ai * ai);
        w[2 * k + 1] = 0.25 * (br * br + bi * bi);
    }
    mcx_fft_run(&plan, w, 1);
    for (k = 0; k < n; k++) {
        ac1[k] = w[2 * k] / ((double) M * n);
        if (ac2) ac2[k] = w[2 * k + 1] / ((double) M * n);
    }
}

/* Lags summed directly before switching to the FFT (cost balance). */
static int direct_limit(int n)
{
    int lg = 0, lim;
    while ((1 << lg) < n) lg++;
    lim = 6 * lg + 16;
    return lim < n ? lim : n;
}

void mcx_acov_init(mcx_acov *a, const double *xc, int n, int m)
{
    a->x = xc;
    a->n = n;
    a->m = m;
    a->have = 0;
    a->mean = (double *) mcx_alloc((size_t) n, sizeof(double));
    a->work = NULL;
}

static double lag_sum(const double *x, int n, int k)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int t = 0, stop = n - k;
    for (; t + 3 < stop; t += 4) {
        s0 += x[t] * x[t + k];
        s1 += x[t + 1] * x[t + 1 + k];
        s2 += x[t + 2] * x[t + 2 + k];
        s3 += x[t + 3] * x[t + 3 + k];
    }
    for (; t < stop; t++) s0 += x[t] * x[t + k];
    return (s0 + s1) + (s2 + s3);
}

/* Make mean[0..lag] available (mean over chains of the autocovariances). */
void mcx_acov_need(mcx_acov *a, int lag)
{
    int n = a->n, m = a->m, c, k;
    if (lag < a->have) return;
    if (lag >= n) MCX_INTERNAL("lag out of range");
    if (lag < direct_limit(n)) {
        int upto = 2 * a->have > lag + 1 ? 2 * a->have : lag + 1;
        if (upto > direct_limit(n)) upto = direct_limit(n);
        for (k = a->have; k < upto; k++) {
            double s = 0.0;
            for (c = 0; c < m; c++) s += lag_sum(a->x + (size_t) c * n, n, k) / n;
            a->mean[k] = s / m;
        }
        a->have = upto;
        return;
    }
    {
        double *ac1 = (double *) mcx_alloc((size_t) n, sizeof(double));
        double *ac2 = (double *) mcx_alloc((size_t) n, sizeof(double));
        memset(a->mean, 0, (size_t) n * sizeof(double));
        for (c = 0; c < m; c += 2) {
            const double *x2 = c + 1 < m ? a->x + (size_t) (c + 1) * n : NULL;
            mcx_autocov_fft(a->x + (size_t) c * n, x2, n, ac1, ac2);
            for (k = 0; k < n; k++) a->mean[k] += ac1[k] + (x2 ? ac2[k] : 0.0);
        }
        for (k = 0; k < n; k++) a->mean[k] /= m;
        a->have = n;
    }
}
