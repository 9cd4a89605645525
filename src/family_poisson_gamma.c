/*
 * family_poisson_gamma.c -- independent Poisson counts with Gamma priors.
 *
 * Model, for each column j = 1..d independently:
 *   x_ij | lambda_j ~ Poisson(lambda_j),  x_ij in {0, 1, 2, ...}
 *   lambda_j        ~ Gamma(shape a_j, rate b_j)
 *
 * Hyperparameter vector (from the R constructor poisson_gamma()):
 *   c(a[d], b[d])                                        length 2 d
 *
 * With s_j = sum_i x_ij over the n points (Gamma-Poisson conjugacy,
 * BDA3 sec. 2.6):
 *   lambda_j | X ~ Gamma(a_j + s_j, b_j + n)
 *   predictive: negative binomial,
 *     log p(x_j | X) = log [Gamma(A + x) / (Gamma(A) x!)]
 *                      + A log(B / (B + 1)) - x log(B + 1),
 *     A = a_j + s_j, B = b_j + n;
 *   log p(X) = sum_j [a_j log b_j - lgamma(a_j) + lgamma(a_j + s_j)
 *                     - (a_j + s_j) log(b_j + n)] - sum_ij log x_ij!.
 * A log(B/(B+1)) and log(B+1) are cached; the coefficient is a short
 * product for small counts (no lgamma), so log_predictive is O(d).
 *
 * Leave-one-out predictive of a member x (log_predictive_loo): the
 * predictive above at A' = a_j + s_j - x_j, B' = b_j + n - 1, read off the
 * full cluster's counts (no copy):
 *   log p(x_j | rest) = log [Gamma(A' + x) / (Gamma(A') x!)]
 *                       - A' log1p(1 / B') - x log(B' + 1).
 *
 * Stats block (doubles): n, sum_ij log x_ij!, sum_j A_j log(B_j/(B_j+1)),
 *   s[d], log(B_j + 1)[d].
 * Parameter vector theta (param_size = 2 d + 1): rate[d], then a cache used
 *   by log_lik: log rate[d], sum rate.  theta must come from param_draw.
 */
#include <string.h>
#include "family_common.h"

typedef struct {
    int d;
    double const0;   /* sum_j a_j log b_j - lgamma(a_j) */
    double v[];      /* a[d], b[d] */
} pg_hyper;

enum { S_N, S_LFACT, S_CSUM, S_HEAD };

#define H_A(h) ((h)->v)
#define H_B(h) ((h)->v + (h)->d)
#define S_S(s, d)  ((s) + S_HEAD)
#define S_LQ(s, d) ((s) + S_HEAD + (d))

static size_t hyper_size(int dim)
{
    return MCX_DOUBLES(sizeof(pg_hyper) + 2 * (size_t) dim * sizeof(double));
}

static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    pg_hyper *h = hp;
    if (d < 1 || n_val != 2 * d) return 1;
    h->d = d;
    memcpy(h->v, val, 2 * (size_t) d * sizeof(double));
    h->const0 = 0.0;
    for (int j = 0; j < d; j++) {
        double a = H_A(h)[j], b = H_B(h)[j];
        if (!(a > 0) || !(b > 0)) return 2;
        h->const0 += a * log(b) - lgammafn(a);
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
    const pg_hyper *h = hp;
    return S_HEAD + 2 * (size_t) h->d;
}

static void refresh(const pg_hyper *h, double *s)
{
    int d = h->d;
    double n = s[S_N], csum = 0.0;
    const double *sj = S_S(s, d);
    double *lq = S_LQ(s, d);
    for (int j = 0; j < d; j++) {
        double A = H_A(h)[j] + sj[j], B = H_B(h)[j] + n;
        lq[j] = log1p(B);
        csum += A * (log(B) - lq[j]);
    }
    s[S_CSUM] = csum;
}

static void stats_reset(const void *hp, void *sp)
{
    const pg_hyper *h = hp;
    double *s = sp;
    s[S_N] = 0;
    s[S_LFACT] = 0;
    memset(S_S(s, h->d), 0, h->d * sizeof(double));
    refresh(h, s);
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    const pg_hyper *h = hp;
    double *s = sp, *sj = S_S(s, h->d);
    (void) work;
    for (int j = 0; j < h->d; j++) {
        sj[j] += x[j];
        s[S_LFACT] += mcx_log_factorial(x[j]);
    }
    s[S_N] += 1;
    refresh(h, s);
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    const pg_hyper *h = hp;
    double *s = sp, *sj = S_S(s, h->d);
    (void) work;
    if (s[S_N] <= 1) {             /* back to the empty cluster, exactly */
        if (s[S_N] < 1) MCX_INTERNAL("removing from an empty cluster");
        stats_reset(hp, sp);
        return;
    }
    for (int j = 0; j < h->d; j++) {
        sj[j] -= x[j];
        s[S_LFACT] -= mcx_log_factorial(x[j]);
    }
    s[S_N] -= 1;
    refresh(h, s);
}

/* stats := the union of its members and those of o (disjoint sets): the
 * sums n, sum log x!, s[d] add; the cached logs follow from them. */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const pg_hyper *h = hp;
    double *s = sp;
    const double *o = op;
    (void) work;
    if (o[S_N] == 0) return;
    s[S_N] += o[S_N];
    s[S_LFACT] += o[S_LFACT];
    for (int j = 0; j < h->d; j++) S_S(s, h->d)[j] += S_S(o, h->d)[j];
    refresh(h, s);
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const pg_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *sj = S_S(s, d), *lq = S_LQ(s, d);
    double lp = s[S_CSUM];
    (void) work;
    for (int j = 0; j < d; j++)
        if (x[j] > 0) lp += mcx_log_nb_coef(H_A(h)[j] + sj[j], x[j]) - x[j] * lq[j];
    return lp;
}

static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const pg_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *sj = S_S(s, d);
    double lp = 0.0, n = s[S_N];
    (void) work;
    for (int j = 0; j < d; j++) {
        double A = H_A(h)[j] + (sj[j] - x[j]), B = H_B(h)[j] + (n - 1);
        lp -= A * log1p(1.0 / B);
        if (x[j] > 0) lp += mcx_log_nb_coef(A, x[j]) - x[j] * log(B + 1);
    }
    return lp;
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const pg_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N], lm = h->const0 - s[S_LFACT];
    const double *sj = S_S(s, d);
    (void) work;
    if (n == 0) return 0.0;
    for (int j = 0; j < d; j++) {
        double A = H_A(h)[j] + sj[j];
        lm += lgammafn(A) - A * log(H_B(h)[j] + n);
    }
    return lm;
}

static size_t param_size(const void *hp)
{
    const pg_hyper *h = hp;
    return 2 * (size_t) h->d + 1;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const pg_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N], tot = 0.0;
    const double *sj = S_S(s, d);
    (void) work;
    for (int j = 0; j < d; j++) {
        double r = mcx_rgamma(H_A(h)[j] + sj[j], H_B(h)[j] + n);
        theta[j] = r;
        theta[d + j] = log(r);
        tot += r;
    }
    theta[2 * d] = tot;
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const pg_hyper *h = hp;
    int d = h->d;
    double ll = -theta[2 * d];
    (void) work;
    for (int j = 0; j < d; j++)
        if (x[j] > 0) ll += x[j] * theta[d + j] - mcx_log_factorial(x[j]);
    return ll;
}

MCX_CONJUGATE_FAMILY_FAST(poisson_gamma, stats_combine, log_predictive_loo);

/* pure C, no fast paths beyond the slots */
const mcx_family_caps mcx_caps_poisson_gamma = { .thread_safe = 1 };
