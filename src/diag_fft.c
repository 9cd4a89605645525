/*
 * diag_fft.c -- in-place iterative radix-2 complex FFT (power-of-two
 * lengths), used for autocovariances. Twiddle factors are computed once per
 * plan with sin/cos of exact multiples of 2 pi / n (no recurrence), so the
 * rounding error stays O(log n) machine epsilons.
 */
#include "diag.h"

void mcx_fft_plan(mcx_fft *p, int n)
{
    int i;
    if (n < 1 || (n & (n - 1)) != 0) MCX_INTERNAL("FFT length must be a power of two");
    p->n = n;
    p->cs = (double *) mcx_alloc((size_t) n, sizeof(double));
    for (i = 0; i < n / 2; i++) {
        double ang = 2.0 * M_PI * (double) i / (double) n;
        p->cs[2 * i] = cos(ang);
        p->cs[2 * i + 1] = -sin(ang);
    }
}

/* z: n interleaved complex values (re, im). inverse: no 1/n scaling. */
void mcx_fft_run(const mcx_fft *p, double *z, int inverse)
{
    int n = p->n, i, j, len, k;
    /* bit reversal */
    for (i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double t0 = z[2 * i], t1 = z[2 * i + 1];
            z[2 * i] = z[2 * j]; z[2 * i + 1] = z[2 * j + 1];
            z[2 * j] = t0; z[2 * j + 1] = t1;
        }
    }
    for (len = 2; len <= n; len <<= 1) {
        int half = len >> 1, step = n / len;
        for (i = 0; i < n; i += len) {
            for (k = 0; k < half; k++) {
                double wr = p->cs[2 * k * step];
                double wi = inverse ? -p->cs[2 * k * step + 1] : p->cs[2 * k * step + 1];
                double *u = z + 2 * (i + k), *v = z + 2 * (i + k + half);
                double tr = v[0] * wr - v[1] * wi, ti = v[0] * wi + v[1] * wr;
                v[0] = u[0] - tr; v[1] = u[1] - ti;
                u[0] += tr; u[1] += ti;
            }
        }
    }
}
