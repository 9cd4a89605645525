/*
 * stats_moments.c -- finishing and pooling raw moments (see
 * stats_moments.h).
 */
#include "stats_moments.h"

void mcx_moments_finish(double *mo, int d)
{
    double n = mo[0], *c = mo + 1, *s1 = c + d, *S = s1 + d;
    if (n == 0.0) return;
    for (int b = 0; b < d; b++)
        for (int a = b; a < d; a++) {
            double w = S[a + (size_t) b * d] - s1[a] * s1[b] / n;
            S[a + (size_t) b * d] = S[b + (size_t) a * d] = w;
        }
    for (int t = 0; t < d; t++) {
        c[t] += s1[t] / n;
        s1[t] = 0.0;
    }
}

void mcx_moments_pool(double *acc, const double *mo, int d)
{
    double na = acc[0], nb = mo[0];
    if (nb == 0.0) return;
    if (na == 0.0) {
        memcpy(acc, mo, mcx_moments_size(d) * sizeof(double));
        return;
    }
    double n = na + nb, f = na * nb / n;
    double *ma = acc + 1, *Sa = acc + 1 + 2 * (size_t) d;
    const double *mb = mo + 1, *Sb = mo + 1 + 2 * (size_t) d;
    for (int b = 0; b < d; b++) {
        double db = mb[b] - ma[b];
        for (int a = 0; a < d; a++)
            Sa[a + (size_t) b * d] += Sb[a + (size_t) b * d] + (mb[a] - ma[a]) * db * f;
    }
    for (int t = 0; t < d; t++) ma[t] += (mb[t] - ma[t]) * (nb / n);
    acc[0] = n;
}
