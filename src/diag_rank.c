/*
 * diag_rank.c -- sorting with an index (LSD radix sort on the IEEE bits),
 * rank normalisation and type-7 quantiles for the diagnostics.
 *
 * Rank normalisation follows Vehtari et al. (2021), eq. (14): average ranks
 * r (ties get the mean of their ranks, as rank(ties.method = "average")),
 * z = Phi^{-1}((r - 3/8) / (S + 1/4)) (Blom's offset).
 */
#include <stdint.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Arith.h>
#include "diag.h"

#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)
#define RADIX_PASSES 6   /* 6 * 11 >= 64 */

/* Map a double to an unsigned key with the same order (NaN excluded). */
static uint64_t order_key(double v)
{
    uint64_t u;
    if (v == 0.0) v = 0.0;               /* -0 and +0 compare equal */
    memcpy(&u, &v, sizeof u);
    return (u & UINT64_C(0x8000000000000000)) ? ~u : (u | UINT64_C(0x8000000000000000));
}

/*
 * out[0..n-1] = indices of x in increasing order (stable). Linear time:
 * one histogram pass for all digits, then one scatter pass per digit that
 * is not constant over the keys.
 */
void mcx_sort_index(const double *x, size_t n, int *out)
{
    uint64_t *key = (uint64_t *) mcx_alloc(n, sizeof(uint64_t));
    uint64_t *key2 = (uint64_t *) mcx_alloc(n, sizeof(uint64_t));
    int *order = out;
    int *ord2 = (int *) mcx_alloc(n, sizeof(int));
    size_t *hist = (size_t *) mcx_alloc((size_t) RADIX_PASSES * RADIX_SIZE, sizeof(size_t));
    size_t i;
    int p;
    memset(hist, 0, (size_t) RADIX_PASSES * RADIX_SIZE * sizeof(size_t));
    for (i = 0; i < n; i++) {
        uint64_t k = order_key(x[i]);
        key[i] = k;
        order[i] = (int) i;
        for (p = 0; p < RADIX_PASSES; p++)
            hist[p * RADIX_SIZE + ((k >> (p * RADIX_BITS)) & (RADIX_SIZE - 1))]++;
    }
    for (p = 0; p < RADIX_PASSES && n > 0; p++) {
        size_t *h = hist + p * RADIX_SIZE, sum = 0;
        int shift = p * RADIX_BITS, d;
        uint64_t *tk;
        int *to;
        if (h[(key[0] >> shift) & (RADIX_SIZE - 1)] == n) continue;
        for (d = 0; d < RADIX_SIZE; d++) {
            size_t c = h[d];
            h[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++) {
            size_t pos = h[(key[i] >> shift) & (RADIX_SIZE - 1)]++;
            key2[pos] = key[i];
            ord2[pos] = order[i];
        }
        tk = key; key = key2; key2 = tk;
        to = order; order = ord2; ord2 = to;
    }
    if (order != out) memcpy(out, order, n * sizeof(int));
}

/*
 * z[i] = normal score of x[i] among the elements not skipped (skip may be
 * NULL; skip[i] != 0 leaves z[i] untouched). `order` sorts all n elements.
 */
void mcx_rank_normal(const double *x, size_t n, const int *order,
                     const int *skip, double *z)
{
    size_t S = 0, k, a, b, i;
    int *pos;
    double denom, *tab;
    if (skip) {
        for (i = 0; i < n; i++) S += (skip[i] == 0);
    } else {
        S = n;
    }
    /* positions (in x) of the kept elements, in sorted order */
    pos = (int *) mcx_alloc(S, sizeof(int));
    for (i = 0, k = 0; i < n; i++) {
        int j = order[i];
        if (!skip || !skip[j]) pos[k++] = j;
    }
    denom = (double) S + 0.25;
    /* tab[r] = score of the untied rank r <= S/2; an untied rank r above
     * S/2 reuses -tab[S + 1 - r] (Phi^{-1}(1 - p) = -Phi^{-1}(p)), which
     * halves the quantile evaluations */
    tab = (double *) mcx_alloc(S / 2 + 1, sizeof(double));
    for (i = 0; i <= S / 2; i++) tab[i] = NA_REAL;
    for (a = 0; a < S; a = b) {
        double v = x[pos[a]], r, zz;
        b = a + 1;
        while (b < S && x[pos[b]] == v) b++;
        if (b == a + 1) {
            size_t rk = a + 1, mir = S + 1 - rk;
            if (rk <= S / 2) {
                zz = tab[rk] = qnorm5(((double) rk - 0.375) / denom, 0.0, 1.0, 1, 0);
            } else if (mir <= S / 2 && !ISNAN(tab[mir])) {
                zz = -tab[mir];
            } else {
                zz = qnorm5(((double) rk - 0.375) / denom, 0.0, 1.0, 1, 0);
            }
            z[pos[a]] = zz;
            continue;
        }
        r = 0.5 * ((double) (a + 1) + (double) b);   /* average rank */
        zz = qnorm5((r - 0.375) / denom, 0.0, 1.0, 1, 0);
        for (k = a; k < b; k++) z[pos[k]] = zz;
    }
}

/* Quantile of type 7 (R's default) of the n values x sorted by `order`. */
double mcx_quantile7(const double *x, const int *order, size_t n, double p)
{
    double index = 1.0 + (double) (n - 1) * p, h, qs;
    size_t lo = (size_t) floor(index), hi = (size_t) ceil(index);
    qs = x[order[lo - 1]];
    if (index > (double) lo && x[order[hi - 1]] != qs) {
        h = index - (double) lo;
        qs = (1.0 - h) * qs + h * x[order[hi - 1]];
    }
    return qs;
}
