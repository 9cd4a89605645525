/*
 * family_gaussian_iso.c -- Gaussian with isotropic (spherical) covariance
 * sigma^2 I and the conjugate Normal-inverse-gamma prior, for data of high
 * dimension (every operation is O(d), the stats block 5 + d doubles).
 *
 * Model:
 *   x_i | mu, s2 ~ N_d(mu, s2 I)
 *   mu | s2      ~ N_d(m0, s2 / kappa0 I)
 *   s2           ~ Inv-Gamma(shape a0, rate b0)
 *
 * Hyperparameter vector (from the R constructor gaussian_iso()):
 *   c(m0[d], kappa0, a0, b0)                              length d + 3
 *
 * Posterior after n points (the Normal-inverse-gamma update of Murphy 2007,
 * "Conjugate Bayesian analysis of the Gaussian distribution", sec. 6, with
 * the d coordinates sharing one variance; BDA3 sec. 3.3): kappa_n =
 * kappa0 + n, a_n = a0 + n d / 2, and sequentially
 *   mu_{n+1} = mu_n + (x - mu_n) / (kappa_n + 1)
 *   b_{n+1}  = b_n + kappa_n / (kappa_n + 1) |x - mu_n|^2 / 2          (A)
 * with the exact inverse for removal (w = x - mu_n):
 *   mu_{n-1} = mu_n - w / (kappa_n - 1),
 *   b_{n-1}  = b_n - kappa_n / (kappa_n - 1) |w|^2 / 2.                (B)
 * Posterior predictive: multivariate t with 2 a_n degrees of freedom,
 * location mu_n and scale matrix b_n (kappa_n + 1) / (a_n kappa_n) I:
 *   log p(x) = lgamma(a_n + d/2) - lgamma(a_n)
 *              - d/2 log(2 pi b_n (kappa_n + 1) / kappa_n)
 *              - (a_n + d/2) log(1 + kappa_n |x - mu_n|^2 / (2 b_n (kappa_n + 1))).
 * Marginal likelihood:
 *   log p(X) = lgamma(a_n) - lgamma(a0) + a0 log b0 - a_n log b_n
 *              + d/2 log(kappa0 / kappa_n) - n d / 2 log(2 pi).
 *
 * Leave-one-out predictive of a member x (log_predictive_loo): the stats
 * without x are (B): kappa' = kappa_n - 1, a' = a_n - d/2, x - mu' = c w
 * with c = kappa_n / (kappa_n - 1), b' = b_n - u, u = c |w|^2 / 2.  In the
 * predictive at (kappa', a', b'), kappa' |c w|^2 / (2 b' (kappa' + 1)) =
 * u / b', so 1 + u / b' = b_n / b' and
 *   log p(x | rest) = C_loo + (a_n - d/2) log1p(-u / b_n),
 *   C_loo = lgamma(a_n) - lgamma(a_n - d/2) - d/2 log(2 pi b_n kappa_n / (kappa_n - 1)),
 * C_loo cached in the stats (when n >= 1): O(d) and one log1p, no copy.
 * b' >= b0 exactly, so -u / b_n is kept >= b0 / b_n - 1 against rounding.
 *
 * Stats block (doubles): n, the predictive's constant, w = kappa_n /
 *   (2 b_n (kappa_n + 1)), p = a_n + d/2, b_n, C_loo (0 when n = 0), then
 *   mu_n - m0 [d].
 * Parameter vector theta (param_size = d + 3): mean[d], var, then a cache
 *   used by log_lik: 1 / (2 var), -d/2 log(2 pi var).
 */
#include <string.h>
#include "family_common.h"

typedef struct {
    int d;
    double kappa0, a0, b0, lga0;
    double m0[];
} gi_hyper;

enum { S_N, S_C, S_W, S_P, S_B, S_LOOC, S_MU };

static size_t hyper_size(int dim)
{
    return MCX_DOUBLES(sizeof(gi_hyper) + (size_t) dim * sizeof(double));
}

static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    gi_hyper *h = hp;
    if (d < 1 || n_val != d + 3) return 1;
    h->d = d;
    memcpy(h->m0, val, (size_t) d * sizeof(double));
    h->kappa0 = val[d];
    h->a0 = val[d + 1];
    h->b0 = val[d + 2];
    if (!(h->kappa0 > 0) || !(h->a0 > 0) || !(h->b0 > 0)) return 2;
    h->lga0 = lgammafn(h->a0);
    return 0;
}

static size_t work_size(const void *hp)
{
    (void) hp;
    return 0;
}

static size_t stats_size(const void *hp)
{
    const gi_hyper *h = hp;
    return S_MU + (size_t) h->d;
}

/* The predictive's constants after n or b changed. */
static void refresh(const gi_hyper *h, double *s)
{
    double k = h->kappa0 + s[S_N], a = h->a0 + 0.5 * s[S_N] * h->d, hd = 0.5 * h->d;
    s[S_W] = k / (2 * s[S_B] * (k + 1));
    s[S_P] = a + hd;
    double lga = lgammafn(a);
    s[S_C] = lgammafn(a + hd) - lga - hd * (MCX_LOG_2PI + log(s[S_B] * (k + 1) / k));
    s[S_LOOC] = s[S_N] < 1 ? 0.0
        : lga - lgammafn(a - hd) - hd * (MCX_LOG_2PI + log(s[S_B] * k / (k - 1)));
}

static void stats_reset(const void *hp, void *sp)
{
    const gi_hyper *h = hp;
    double *s = sp;
    s[S_N] = 0;
    s[S_B] = h->b0;
    memset(s + S_MU, 0, (size_t) h->d * sizeof(double));
    refresh(h, s);
}

/* |x - m0 - mu_n|^2 */
static double dist2(const gi_hyper *h, const double *s, const double *x)
{
    double r = 0.0;
    const double *mu = s + S_MU;
    for (int j = 0; j < h->d; j++) {
        double e = x[j] - h->m0[j] - mu[j];
        r += e * e;
    }
    return r;
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    const gi_hyper *h = hp;
    double *s = sp, *mu = s + S_MU;
    double k = h->kappa0 + s[S_N];
    (void) work;
    s[S_B] += 0.5 * k / (k + 1) * dist2(h, s, x);                      /* (A) */
    for (int j = 0; j < h->d; j++) mu[j] += (x[j] - h->m0[j] - mu[j]) / (k + 1);
    s[S_N] += 1;
    refresh(h, s);
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    const gi_hyper *h = hp;
    double *s = sp, *mu = s + S_MU;
    (void) work;
    if (s[S_N] <= 1) {             /* back to the empty cluster, exactly */
        if (s[S_N] < 1) MCX_INTERNAL("removing from an empty cluster");
        stats_reset(hp, sp);
        return;
    }
    double k = h->kappa0 + s[S_N];
    s[S_B] -= 0.5 * k / (k - 1) * dist2(h, s, x);                      /* (B) */
    if (s[S_B] < h->b0) s[S_B] = h->b0;      /* b_n >= b0 exactly; guard rounding */
    for (int j = 0; j < h->d; j++) mu[j] -= (x[j] - h->m0[j] - mu[j]) / (k - 1);
    s[S_N] -= 1;
    refresh(h, s);
}

/* stats := the union of its members and those of o (disjoint sets): with
 * means a, b relative to m0 and ka, kb their kappa_n, kappa_u = ka + kb -
 * kappa0, mu_u = (ka a + kb b) / kappa_u and, from b_n = b0 + (sum |x|^2 -
 * kappa_n |mu_n|^2) / 2 (relative to m0),
 *   b_u = b_a + b_b - b0 + [ka kb |a - b|^2 - kappa0 (ka |a|^2 + kb |b|^2)] / (2 kappa_u). */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const gi_hyper *h = hp;
    double *s = sp, *mu = s + S_MU;
    const double *o = op, *mo = o + S_MU;
    (void) work;
    if (o[S_N] == 0) return;
    if (s[S_N] == 0) {
        memcpy(s, o, (S_MU + (size_t) h->d) * sizeof(double));
        return;
    }
    double k0 = h->kappa0, ka = k0 + s[S_N], kb = k0 + o[S_N], ku = ka + kb - k0;
    double e2 = 0.0, a2 = 0.0, b2 = 0.0;
    for (int j = 0; j < h->d; j++) {
        double e = mu[j] - mo[j];
        e2 += e * e;
        a2 += mu[j] * mu[j];
        b2 += mo[j] * mo[j];
        mu[j] = (ka * mu[j] + kb * mo[j]) / ku;
    }
    s[S_B] += o[S_B] - h->b0 + 0.5 * (ka * kb * e2 - k0 * (ka * a2 + kb * b2)) / ku;
    if (s[S_B] < h->b0) s[S_B] = h->b0;      /* b_n >= b0 exactly; guard rounding */
    s[S_N] += o[S_N];
    refresh(h, s);
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const double *s = sp;
    (void) work;
    return s[S_C] - s[S_P] * log1p(s[S_W] * dist2(hp, s, x));
}

static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const gi_hyper *h = hp;
    const double *s = sp;
    double k = h->kappa0 + s[S_N];
    double r = -0.5 * k / (k - 1) * dist2(h, s, x) / s[S_B], lo = h->b0 / s[S_B] - 1;
    (void) work;
    return s[S_LOOC] + (s[S_P] - h->d) * log1p(r > lo ? r : lo);
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const gi_hyper *h = hp;
    const double *s = sp;
    double n = s[S_N];
    (void) work;
    if (n == 0) return 0.0;
    double an = h->a0 + 0.5 * n * h->d;
    return lgammafn(an) - h->lga0 + h->a0 * log(h->b0) - an * log(s[S_B])
        + 0.5 * h->d * log(h->kappa0 / (h->kappa0 + n)) - 0.5 * n * h->d * MCX_LOG_2PI;
}

static size_t param_size(const void *hp)
{
    const gi_hyper *h = hp;
    return (size_t) h->d + 3;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const gi_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N], k = h->kappa0 + n, a = h->a0 + 0.5 * n * d;
    (void) work;
    double var = 1.0 / mcx_rgamma(a, s[S_B]);
    double sd = sqrt(var / k);
    for (int j = 0; j < d; j++) theta[j] = h->m0[j] + s[S_MU + j] + sd * norm_rand();
    theta[d] = var;
    theta[d + 1] = 0.5 / var;
    theta[d + 2] = -0.5 * d * (MCX_LOG_2PI + log(var));
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const gi_hyper *h = hp;
    int d = h->d;
    double r = 0.0;
    (void) work;
    for (int j = 0; j < d; j++) {
        double e = x[j] - theta[j];
        r += e * e;
    }
    return theta[d + 2] - theta[d + 1] * r;
}

MCX_CONJUGATE_FAMILY_FAST(gaussian_iso, stats_combine, log_predictive_loo);

/* pure C, no fast paths beyond the slots */
const mcx_family_caps mcx_caps_gaussian_iso = { .thread_safe = 1 };
