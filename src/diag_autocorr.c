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

/* n <= 2^30 (a larger n would double p past INT_MAX). */
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
    /* 2 n in an int, and the FFT length a power of two <= 2^30 */
    if (n > (1 << 29))
        mcx_error("autocorrelations of more than 2^29 draws of a chain are not supported "
                  "(%d draws): thin the chain", n);
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
    lim = 20 * lg + 16;
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

/* out[j] += sum_t x[t] x[t + k + j], j = 0..LAG_BLOCK-1 (lags k.. of one
 * chain in one pass over x: eight independent accumulators). */
#define LAG_BLOCK 8
static void lag_block(const double *x, int n, int k, double *out)
{
    double s[LAG_BLOCK] = {0, 0, 0, 0, 0, 0, 0, 0};
    int t, j, stop = n - k - (LAG_BLOCK - 1);
    for (t = 0; t < stop; t++) {
        const double a = x[t], *b = x + t + k;
        s[0] += a * b[0]; s[1] += a * b[1]; s[2] += a * b[2]; s[3] += a * b[3];
        s[4] += a * b[4]; s[5] += a * b[5]; s[6] += a * b[6]; s[7] += a * b[7];
    }
    /* the last LAG_BLOCK - 1 values of t, where some lags run out */
    for (t = stop > 0 ? stop : 0; t < n - k; t++)
        for (j = 0; j < LAG_BLOCK && t + k + j < n; j++) s[j] += x[t] * x[t + k + j];
    for (j = 0; j < LAG_BLOCK; j++) out[j] += s[j];
}

/* Make mean[0..lag] available (mean over chains of the autocovariances). */
void mcx_acov_need(mcx_acov *a, int lag)
{
    int n = a->n, m = a->m, c, k;
    if (lag < a->have) return;
    if (lag >= n) MCX_INTERNAL("lag out of range");
    if (lag < direct_limit(n)) {
        int upto = 2 * a->have > lag + 1 ? 2 * a->have : lag + 1, j;
        double blk[LAG_BLOCK];
        if (upto > direct_limit(n)) upto = direct_limit(n);
        for (k = a->have; k < upto; k += LAG_BLOCK) {
            for (j = 0; j < LAG_BLOCK; j++) blk[j] = 0.0;
            for (c = 0; c < m; c++) lag_block(a->x + (size_t) c * n, n, k, blk);
            for (j = 0; j < LAG_BLOCK && k + j < n; j++) a->mean[k + j] = blk[j] / n / m;
        }
        a->have = k < n ? k : n;
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
