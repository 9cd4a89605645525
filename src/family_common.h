/*
 * family_common.h -- small numerical helpers shared by the built-in
 * component families (family_*.c).  Header-only (static inline), so every
 * family file stays self-contained and the hot paths inline.
 */
#ifndef MCMIX_FAMILY_COMMON_H
#define MCMIX_FAMILY_COMMON_H

#include <math.h>
#include <Rmath.h>
#include "mcmix_engine.h"
#include "family_builtin.h"

/* The descriptor mcx_family_<name> (registry name "<name>") of a built-in
 * conjugate family whose file defines every slot as a static function
 * named like the slot (hyper_size, hyper_init, ..., log_lik), with the
 * optional ABI 4 slots stats_combine and log_predictive_loo given as
 * arguments (NULL when the family leaves them to the host). */
#define MCX_CONJUGATE_FAMILY_FAST(name, combine, loo)                         \
    const mcx_family mcx_family_##name = {                                    \
        MCX_ABI_VERSION, #name,                                               \
        hyper_size, hyper_init, work_size,                                    \
        stats_size, stats_reset, stats_add, stats_remove,                     \
        log_predictive, log_marginal,                                         \
        param_size, param_draw, log_lik,                                      \
        NULL /* param_update: conjugate */,                                   \
        combine, loo                                                          \
    }
#define MCX_CONJUGATE_FAMILY(name) MCX_CONJUGATE_FAMILY_FAST(name, NULL, NULL)

#define MCX_LOG_2PI 1.837877066409345483560659472811   /* log(2 pi) */
#define MCX_LOG_PI  1.144729885849400174143427351353   /* log(pi)   */

/* Counts up to this value use a running product instead of lgamma. */
#define MCX_SMALL_COUNT 16

/* log Gamma(a + x) - log Gamma(a) for a count x >= 0 (the log rising
 * factorial a (a+1) ... (a+x-1)): one log of a short product for small x,
 * two lgamma calls otherwise. */
static inline double mcx_log_rising(double a, double x)
{
    if (x <= 0.0) return 0.0;
    if (x <= MCX_SMALL_COUNT && a < 1e15) {
        double p = a;
        int m = (int) x;
        for (int i = 1; i < m; i++) p *= a + i;
        return log(p);
    }
    return lgammafn(a + x) - lgammafn(a);
}

/* log x! for a count x >= 0. */
static inline double mcx_log_factorial(double x)
{
    if (x < 2.0) return 0.0;
    if (x <= MCX_SMALL_COUNT) {
        double p = 2.0;
        int m = (int) x;
        for (int i = 3; i <= m; i++) p *= i;
        return log(p);
    }
    return lgammafn(x + 1.0);
}

/* log [Gamma(a + x) / (Gamma(a) x!)], the negative-binomial coefficient,
 * for a count x >= 0. */
static inline double mcx_log_nb_coef(double a, double x)
{
    if (x <= 0.0) return 0.0;
    if (x <= MCX_SMALL_COUNT && a < 1e15) {
        double num = a, den = 1.0;      /* a (a+1) ... (a+x-1) and x! */
        int m = (int) x;
        for (int i = 1; i < m; i++) {
            num *= a + i;
            den *= i + 1.0;
        }
        return log(num / den);
    }
    return lgammafn(a + x) - lgammafn(a) - lgammafn(x + 1.0);
}

/* log of the multivariate gamma function Gamma_d(a). */
static inline double mcx_lmvgamma(double a, int d)
{
    double s = 0.25 * d * (d - 1) * MCX_LOG_PI;
    for (int j = 0; j < d; j++) s += lgammafn(a - 0.5 * j);
    return s;
}

/* Symmetric rank-one update A += c v v' of a full d x d matrix. */
static inline void mcx_syr_full(double *A, double c, const double *v, int d)
{
    for (int j = 0; j < d; j++) {
        double cv = c * v[j];
        double *col = A + (size_t) j * d;
        for (int i = 0; i < d; i++) col[i] += cv * v[i];
    }
}

/* || L^{-1} v ||^2 for a lower-triangular d x d L, with z (d doubles) as
 * scratch; v and z may alias. */
static inline double mcx_tri_quad(const double *L, const double *v, double *z, int d)
{
    if (d == 2) {   /* the loop below unrolled (same operations, same rounding) */
        double z0 = v[0] / L[0], z1 = (v[1] - L[1] * z0) / L[3];
        z[0] = z0;
        z[1] = z1;
        return z0 * z0 + z1 * z1;
    }
    double q = 0.0;
    for (int i = 0; i < d; i++) {
        double s = v[i];
        for (int k = 0; k < i; k++) s -= L[i + (size_t) k * d] * z[k];
        z[i] = s / L[i + (size_t) i * d];
        q += z[i] * z[i];
    }
    return q;
}

#endif
