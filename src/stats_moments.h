/*
 * stats_moments.h -- raw moments of a group of observations (count, mean,
 * scatter about the mean), summed in a plain loop and turned into a
 * family's sufficient statistics once per group (SEXP-free).
 *
 * A family whose statistics are a function of (n, sum x, sum x x') reads
 * them from the moments through its hook (family_registry.h,
 * mcx_family_stats_moments()), instead of adding the members one by one
 * (for gaussian_niw a rank-one Cholesky update and seven logarithms per
 * member).  The moments of a group are accumulated shifted by its first
 * observation c (sums of y = x - c and y y'), so that the scatter
 *   W = sum y y' - (sum y)(sum y)' / n
 * loses only the digits of |x - c|^2 against the group's spread; groups
 * are then pooled in a fixed order by the formula of Chan, Golub and
 * LeVeque (1979, "Updating formulae and a pairwise algorithm for
 * computing sample variances"):
 *   n = n_a + n_b,  delta = mean_b - mean_a,
 *   mean = mean_a + delta n_b / n,  W = W_a + W_b + delta delta' n_a n_b / n.
 *
 * Layout (mcx_moments_size(d) doubles): n, then d doubles (the shift c
 * while summing, the mean when finished), d doubles (sum y; 0 when
 * finished), and the d x d scatter (lower triangle summed, both triangles
 * when finished; column-major).
 */
#ifndef MCMIX_STATS_MOMENTS_H
#define MCMIX_STATS_MOMENTS_H

#include <stddef.h>
#include <string.h>

static inline size_t mcx_moments_size(int d)
{
    return 1 + 2 * (size_t) d + (size_t) d * d;
}

/* Add observation x (coordinate t at x[t * step]) to the shifted sums. */
static inline void mcx_moments_add(double *restrict mo, const double *x, size_t step, int d)
{
    double *c = mo + 1, *s1 = c + d, *S = s1 + d;
    if (mo[0] == 0.0)
        for (int t = 0; t < d; t++) c[t] = x[t * step];
    mo[0] += 1.0;
    if (d == 2) {       /* the loops below unrolled (same operations) */
        double y0 = x[0] - c[0], y1 = x[step] - c[1];
        s1[0] += y0;
        S[0] += y0 * y0;
        S[1] += y1 * y0;
        s1[1] += y1;
        S[3] += y1 * y1;
        return;
    }
    for (int b = 0; b < d; b++) {
        double yb = x[b * step] - c[b];
        s1[b] += yb;
        for (int a = b; a < d; a++) S[a + (size_t) b * d] += (x[a * step] - c[a]) * yb;
    }
}

/* Empty sums. */
static inline void mcx_moments_clear(double *mo, int d)
{
    memset(mo, 0, mcx_moments_size(d) * sizeof(double));
}

/* Shifted sums -> count, mean and full scatter (in place). */
void mcx_moments_finish(double *mo, int d);
/* acc := the pooled moments of acc and mo (both finished, disjoint groups). */
void mcx_moments_pool(double *acc, const double *mo, int d);

#endif
