/*
 * family_gaussian_diag.c -- Gaussian with diagonal covariance: independent
 * Normal-inverse-gamma models, one per dimension.
 *
 * Model, for each dimension j = 1..d independently:
 *   x_ij | mu_j, s2_j ~ N(mu_j, s2_j)
 *   mu_j | s2_j       ~ N(m0_j, s2_j / kappa0_j)
 *   s2_j              ~ Inv-Gamma(shape a0_j, rate b0_j)
 *
 * Hyperparameter vector (from the R constructor gaussian_diag()):
 *   c(m0[d], kappa0[d], a0[d], b0[d])                    length 4 d
 *
 * Posterior after n points (Murphy 2007, "Conjugate Bayesian analysis of
 * the Gaussian distribution", Normal-inverse-gamma section; BDA3 sec. 3.3),
 * per dimension, in sequential form with kappa_n = kappa0 + n,
 * a_n = a0 + n/2:
 *   mu_{n+1} = mu_n + (x - mu_n) / (kappa_n + 1)
 *   b_{n+1}  = b_n + kappa_n / (kappa_n + 1) (x - mu_n)^2 / 2        (A)
 * and the exact inverse for removal (w = x - mu_n):
 *   mu_{n-1} = mu_n - w / (kappa_n - 1),
 *   b_{n-1}  = b_n - kappa_n / (kappa_n - 1) w^2 / 2.                 (B)
 * Posterior predictive: Student t with 2 a_n degrees of freedom, location
 * mu_n and squared scale b_n (kappa_n + 1) / (a_n kappa_n):
 *   log p(x_j) = lgamma(a_n + 1/2) - lgamma(a_n)
 *                - 1/2 log(2 pi b_n (kappa_n + 1) / kappa_n)
 *                - (a_n + 1/2) log(1 + kappa_n (x_j - mu_n)^2 / (2 b_n (kappa_n + 1))).
 * The constants are cached in the stats, so log_predictive is O(d) with one
 * log1p per dimension and no lgamma.
 * Marginal likelihood:
 *   log p(X_j) = lgamma(a_n) - lgamma(a0) + a0 log b0 - a_n log b_n
 *                + 1/2 log(kappa0 / kappa_n) - n/2 log(2 pi).
 *
 * Leave-one-out predictive of a member x (log_predictive_loo), per
 * dimension: the stats without x are (B): kappa' = kappa_n - 1,
 * a' = a_n - 1/2, x - mu' = c w with c = kappa_n / (kappa_n - 1), and
 * b' = b_n - u, u = c w^2 / 2.  In the predictive at (kappa', a', b'):
 * kappa' (c w)^2 / (2 b' (kappa' + 1)) = u / b', so 1 + u / b' = b_n / b';
 * and lgamma(a_n) - lgamma(a_n - 1/2) = log(a_n - 1/2) - G with
 * G = lgamma(a_n + 1/2) - lgamma(a_n) (from lgamma(z + 1) = lgamma(z) + log z).
 * Hence
 *   log p(x_j | rest) = C_j + (a_n - 1/2) log1p(-u / b_n),
 *   C_j = log(a_n - 1/2) - G - 1/2 log(2 pi) - 1/2 log(b_n kappa_n / (kappa_n - 1)),
 * with sum_j C_j cached in the stats (computed when n >= 1): one log1p per
 * dimension, no copy and no lgamma.  b' >= b0 exactly, so -u / b_n is
 * kept >= b0 / b_n - 1 against rounding (as stats_remove keeps b >= b0).
 *
 * Stats block (doubles): n, sum of predictive constants, sum of the
 *   leave-one-out constants C_j (0 when n = 0), then per dimension
 *   mu_n - m0[d] (relative to m0, so rounding stays at the scale of the
 *   spread of the data), b_n[d], w[d] = kappa_n / (2 b_n (kappa_n + 1)), p[d] = a_n + 1/2.
 * Parameter vector theta (param_size = 3 d + 1):
 *   mean[d], var[d], then a cache used by log_lik: 1/(2 var)[d],
 *   -d/2 log(2 pi) - 1/2 sum log var.  theta must come from param_draw.
 */
#include <string.h>
#include "family_common.h"

typedef struct {
    int d;
    double v[];   /* m0[d], kappa0[d], a0[d], b0[d], lgamma(a0)[d] */
} gd_hyper;

enum { S_N, S_CSUM, S_LOOC, S_HEAD };

#define H_M0(h) ((h)->v)
#define H_K0(h) ((h)->v + (h)->d)
#define H_A0(h) ((h)->v + 2 * (h)->d)
#define H_B0(h) ((h)->v + 3 * (h)->d)
#define H_LGA0(h) ((h)->v + 4 * (h)->d)
#define S_MU(s, d) ((s) + S_HEAD)
#define S_B(s, d)  ((s) + S_HEAD + (d))
#define S_W(s, d)  ((s) + S_HEAD + 2 * (d))
#define S_P(s, d)  ((s) + S_HEAD + 3 * (d))

static size_t hyper_size(int dim)
{
    return MCX_DOUBLES(sizeof(gd_hyper) + 5 * (size_t) dim * sizeof(double));
}

static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    gd_hyper *h = hp;
    if (d < 1 || n_val != 4 * d) return 1;
    h->d = d;
    memcpy(h->v, val, 4 * (size_t) d * sizeof(double));
    for (int j = 0; j < d; j++) {
        if (!(H_K0(h)[j] > 0) || !(H_A0(h)[j] > 0) || !(H_B0(h)[j] > 0)) return 2;
        H_LGA0(h)[j] = lgammafn(H_A0(h)[j]);
    }
    return 0;
}

static size_t work_size(const void *hp)
{
    (void) hp;
    return 0;
}

static size_t stats_size(const void *hp)
{
    const gd_hyper *h = hp;
    return S_HEAD + 4 * (size_t) h->d;
}

/* Recompute the predictive constants of every dimension. */
static void refresh(const gd_hyper *h, double *s)
{
    int d = h->d;
    double n = s[S_N], csum = 0.0, loo = 0.0;
    const double *b = S_B(s, d);
    double *w = S_W(s, d), *p = S_P(s, d);
    for (int j = 0; j < d; j++) {
        double k = H_K0(h)[j] + n, a = H_A0(h)[j] + 0.5 * n;
        double g = lgammafn(a + 0.5) - lgammafn(a);
        w[j] = k / (2 * b[j] * (k + 1));
        p[j] = a + 0.5;
        csum += g - 0.5 * (MCX_LOG_2PI + log(b[j] * (k + 1) / k));
        if (n >= 1)   /* C_j = log(a - 1/2) - G - 1/2 log(2 pi b k / (k - 1)), one log */
            loo += 0.5 * log((a - 0.5) * (a - 0.5) * (k - 1) / (b[j] * k)) - g
                - 0.5 * MCX_LOG_2PI;
    }
    s[S_CSUM] = csum;
    s[S_LOOC] = loo;
}

static void stats_reset(const void *hp, void *sp)
{
    const gd_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    s[S_N] = 0;
    memset(S_MU(s, d), 0, d * sizeof(double));
    memcpy(S_B(s, d), H_B0(h), d * sizeof(double));
    refresh(h, s);
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    const gd_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    double *mu = S_MU(s, d), *b = S_B(s, d);
    (void) work;
    for (int j = 0; j < d; j++) {
        double k = H_K0(h)[j] + s[S_N], w = x[j] - H_M0(h)[j] - mu[j];
        b[j] += 0.5 * k / (k + 1) * w * w;                         /* (A) */
        mu[j] += w / (k + 1);
    }
    s[S_N] += 1;
    refresh(h, s);
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    const gd_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    (void) work;
    if (s[S_N] <= 1) {             /* back to the empty cluster, exactly */
        if (s[S_N] < 1) MCX_INTERNAL("removing from an empty cluster");
        stats_reset(hp, sp);
        return;
    }
    double *mu = S_MU(s, d), *b = S_B(s, d);
    for (int j = 0; j < d; j++) {
        double k = H_K0(h)[j] + s[S_N], w = x[j] - H_M0(h)[j] - mu[j];
        b[j] -= 0.5 * k / (k - 1) * w * w;                         /* (B) */
        if (b[j] < H_B0(h)[j]) b[j] = H_B0(h)[j];   /* b_n >= b0 exactly; guard rounding */
        mu[j] -= w / (k - 1);
    }
    s[S_N] -= 1;
    refresh(h, s);
}

/* stats := the union of its members and those of o (disjoint sets): per
 * dimension, with means a, b relative to m0 and ka, kb their kappa_n,
 * kappa_u = ka + kb - kappa0, mu_u = (ka a + kb b) / kappa_u and, from
 * b_n = b0 + (sum x^2 - kappa_n mu_n^2) / 2 (relative to m0),
 *   b_u = b_a + b_b - b0 + [ka kb (a - b)^2 - kappa0 (ka a^2 + kb b^2)] / (2 kappa_u). */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const gd_hyper *h = hp;
    double *s = sp;
    const double *o = op;
    int d = h->d;
    (void) work;
    if (o[S_N] == 0) return;
    if (s[S_N] == 0) {
        memcpy(s, o, stats_size(hp) * sizeof(double));
        return;
    }
    double *mu = S_MU(s, d), *b = S_B(s, d);
    const double *mo = S_MU(o, d), *bo = S_B(o, d);
    for (int j = 0; j < d; j++) {
        double k0 = H_K0(h)[j], ka = k0 + s[S_N], kb = k0 + o[S_N], ku = ka + kb - k0;
        double e = mu[j] - mo[j];
        b[j] += bo[j] - H_B0(h)[j]
            + 0.5 * (ka * kb * e * e - k0 * (ka * mu[j] * mu[j] + kb * mo[j] * mo[j])) / ku;
        if (b[j] < H_B0(h)[j]) b[j] = H_B0(h)[j];   /* b_n >= b0 exactly; guard rounding */
        mu[j] = (ka * mu[j] + kb * mo[j]) / ku;
    }
    s[S_N] += o[S_N];
    refresh(h, s);
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const gd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *mu = S_MU(s, d), *w = S_W(s, d), *p = S_P(s, d);
    double lp = s[S_CSUM];
    (void) work;
    for (int j = 0; j < d; j++) {
        double e = x[j] - H_M0(h)[j] - mu[j];
        lp -= p[j] * log1p(w[j] * e * e);
    }
    return lp;
}

static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const gd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *mu = S_MU(s, d), *b = S_B(s, d), *p = S_P(s, d);
    double lp = s[S_LOOC], n = s[S_N];
    (void) work;
    for (int j = 0; j < d; j++) {
        double k = H_K0(h)[j] + n, e = x[j] - H_M0(h)[j] - mu[j];
        double r = -0.5 * k / (k - 1) * e * e / b[j], lo = H_B0(h)[j] / b[j] - 1;
        lp += (p[j] - 1) * log1p(r > lo ? r : lo);
    }
    return lp;
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const gd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N], lm = -0.5 * n * d * MCX_LOG_2PI;
    const double *b = S_B(s, d);
    (void) work;
    if (n == 0) return 0.0;
    for (int j = 0; j < d; j++) {
        double a0 = H_A0(h)[j], an = a0 + 0.5 * n, k0 = H_K0(h)[j];
        lm += lgammafn(an) - H_LGA0(h)[j] + a0 * log(H_B0(h)[j]) - an * log(b[j])
            + 0.5 * log(k0 / (k0 + n));
    }
    return lm;
}

static size_t param_size(const void *hp)
{
    const gd_hyper *h = hp;
    return 3 * (size_t) h->d + 1;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const gd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N], lognorm = -0.5 * d * MCX_LOG_2PI;
    const double *mu = S_MU(s, d), *b = S_B(s, d);
    (void) work;
    for (int j = 0; j < d; j++) {
        double k = H_K0(h)[j] + n, a = H_A0(h)[j] + 0.5 * n;
        double var = 1.0 / mcx_rgamma(a, b[j]);
        theta[j] = H_M0(h)[j] + mu[j] + sqrt(var / k) * norm_rand();
        theta[d + j] = var;
        theta[2 * d + j] = 0.5 / var;
        lognorm -= 0.5 * log(var);
    }
    theta[3 * d] = lognorm;
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const gd_hyper *h = hp;
    int d = h->d;
    const double *hp2 = theta + 2 * d;
    double ll = theta[3 * d];
    (void) work;
    for (int j = 0; j < d; j++) {
        double e = x[j] - theta[j];
        ll -= hp2[j] * e * e;
    }
    return ll;
}

MCX_CONJUGATE_FAMILY_FAST(gaussian_diag, stats_combine, log_predictive_loo);

/* pure C, no fast paths beyond the slots */
const mcx_family_caps mcx_caps_gaussian_diag = { .thread_safe = 1 };
