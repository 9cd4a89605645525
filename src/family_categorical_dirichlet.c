/*
 * family_categorical_dirichlet.c -- categorical data (or rows of category
 * counts) with a Dirichlet prior: the Dirichlet-multinomial model.
 *
 * Model (K = dim categories): each data row x_i = (x_i1, ..., x_iK) holds
 * the counts of m_i = sum_k x_ik items, each item independently in
 * category k with probability p_k; a single categorical observation is a
 * one-hot row.
 *   p(x_i | p) = prod_k p_k^{x_ik}      (the ordered sequence of items, i.e.
 *                                        WITHOUT the multinomial coefficient)
 *   p ~ Dirichlet(alpha_1, ..., alpha_K)
 *
 * Hyperparameter vector (from the R constructor categorical_dirichlet()):
 *   alpha[K]                                             length K
 *
 * With c_k = sum_i x_ik, C = sum_k c_k, A = sum_k alpha_k (Dirichlet-multinomial
 * conjugacy; Murphy 2012, section 3.4):
 *   p | X ~ Dirichlet(alpha + c)
 *   log p(X) = lgamma(A) - lgamma(A + C) + sum_k [lgamma(alpha_k + c_k) - lgamma(alpha_k)]
 *   log p(x | X) = sum_k log[(alpha_k + c_k)^(x_k rising)] - log[(A + C)^(m rising)]
 * where y^(r rising) = y (y+1) ... (y+r-1).  log(alpha_k + c_k) and
 * log(A + C) are cached, so a one-hot row costs O(K) with no log call and
 * small counts use a short product.
 *
 * Leave-one-out predictive of a member x (log_predictive_loo): the
 * predictive above at the full cluster's counts minus x, c_k - x_k and
 * C - m (m = sum_k x_k), read off without a copy; for a single draw (one
 * x_k = 1) it is one log of (alpha_k + c_k - 1) / (A + C - 1).
 *
 * Stats block (doubles): n (rows), C, log(A + C), c[K], log(alpha_k + c_k)[K].
 * Parameter vector theta (param_size = 2 K): prob[K], then a cache used by
 *   log_lik: log prob[K].  theta must come from param_draw.
 */
#include <string.h>
#include "family_common.h"

typedef struct {
    int d;
    double asum;     /* A = sum alpha */
    double const0;   /* lgamma(A) - sum lgamma(alpha_k) */
    double v[];      /* alpha[K], log alpha[K] */
} cd_hyper;

enum { S_N, S_C, S_LAC, S_HEAD };

#define H_AL(h)  ((h)->v)
#define H_LAL(h) ((h)->v + (h)->d)
#define S_CK(s, d) ((s) + S_HEAD)
#define S_LK(s, d) ((s) + S_HEAD + (d))

static size_t hyper_size(int dim)
{
    return MCX_DOUBLES(sizeof(cd_hyper) + 2 * (size_t) dim * sizeof(double));
}

static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    cd_hyper *h = hp;
    if (d < 1 || n_val != d) return 1;
    h->d = d;
    h->asum = 0.0;
    h->const0 = 0.0;
    for (int k = 0; k < d; k++) {
        double a = val[k];
        if (!(a > 0)) return 2;
        H_AL(h)[k] = a;
        H_LAL(h)[k] = log(a);
        h->asum += a;
        h->const0 -= lgammafn(a);
    }
    h->const0 += lgammafn(h->asum);
    return 0;
}

static size_t work_size(const void *hp)
{
    const cd_hyper *h = hp;
    return (size_t) h->d;
}

static size_t stats_size(const void *hp)
{
    const cd_hyper *h = hp;
    return S_HEAD + 2 * (size_t) h->d;
}

static void stats_reset(const void *hp, void *sp)
{
    const cd_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    s[S_N] = 0;
    s[S_C] = 0;
    s[S_LAC] = log(h->asum);
    memset(S_CK(s, d), 0, d * sizeof(double));
    memcpy(S_LK(s, d), H_LAL(h), d * sizeof(double));
}

/* Add (sign = +1) or remove (sign = -1) one row. */
static void accumulate(const cd_hyper *h, double *s, const double *x, double sign)
{
    int d = h->d;
    double *ck = S_CK(s, d), *lk = S_LK(s, d), m = 0.0;
    for (int k = 0; k < d; k++) {
        if (x[k] != 0) {
            ck[k] += sign * x[k];
            lk[k] = log(H_AL(h)[k] + ck[k]);
            m += x[k];
        }
    }
    s[S_C] += sign * m;
    s[S_LAC] = log(h->asum + s[S_C]);
    s[S_N] += sign;
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    (void) work;
    accumulate(hp, sp, x, 1.0);
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    double *s = sp;
    (void) work;
    if (s[S_N] <= 1) {             /* back to the empty cluster, exactly */
        if (s[S_N] < 1) MCX_INTERNAL("removing from an empty cluster");
        stats_reset(hp, sp);
        return;
    }
    accumulate(hp, sp, x, -1.0);
}

/* stats := the union of its members and those of o (disjoint sets): the
 * counts n, C and c[K] add; the cached logs follow from them. */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const cd_hyper *h = hp;
    double *s = sp;
    const double *o = op;
    int d = h->d;
    (void) work;
    if (o[S_N] == 0) return;
    double *ck = S_CK(s, d), *lk = S_LK(s, d);
    for (int k = 0; k < d; k++)
        if (S_CK(o, d)[k] != 0) {
            ck[k] += S_CK(o, d)[k];
            lk[k] = log(H_AL(h)[k] + ck[k]);
        }
    s[S_N] += o[S_N];
    s[S_C] += o[S_C];
    s[S_LAC] = log(h->asum + s[S_C]);
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const cd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *ck = S_CK(s, d), *lk = S_LK(s, d);
    double lp = 0.0, m = 0.0;
    (void) work;
    for (int k = 0; k < d; k++) {
        double xk = x[k];
        if (xk == 0) continue;
        m += xk;
        lp += xk == 1 ? lk[k] : mcx_log_rising(H_AL(h)[k] + ck[k], xk);
    }
    if (m == 1) return lp - s[S_LAC];
    return lp - mcx_log_rising(h->asum + s[S_C], m);
}

static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const cd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *ck = S_CK(s, d);
    double lp = 0.0, m = 0.0, num = 1.0;
    (void) work;
    for (int k = 0; k < d; k++) {
        double xk = x[k];
        if (xk == 0) continue;
        m += xk;
        if (xk == 1) {
            num *= H_AL(h)[k] + ck[k] - 1;
            if (num > 1e280) {
                lp += log(num);
                num = 1.0;
            }
        } else lp += mcx_log_rising(H_AL(h)[k] + ck[k] - xk, xk);
    }
    double tot = h->asum + s[S_C] - m;
    if (m == 1) return lp + log(num / tot);
    return lp + log(num) - mcx_log_rising(tot, m);
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const cd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *ck = S_CK(s, d);
    double lm;
    (void) work;
    if (s[S_N] == 0) return 0.0;
    lm = h->const0 - lgammafn(h->asum + s[S_C]);
    for (int k = 0; k < d; k++) lm += lgammafn(H_AL(h)[k] + ck[k]);
    return lm;
}

static size_t param_size(const void *hp)
{
    const cd_hyper *h = hp;
    return 2 * (size_t) h->d;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const cd_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *ck = S_CK(s, d);
    for (int k = 0; k < d; k++) work[k] = H_AL(h)[k] + ck[k];
    mcx_rdirichlet(work, d, theta);
    for (int k = 0; k < d; k++) theta[d + k] = log(theta[k]);
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const cd_hyper *h = hp;
    int d = h->d;
    double ll = 0.0;
    (void) work;
    for (int k = 0; k < d; k++)
        if (x[k] != 0) ll += x[k] * theta[d + k];
    return ll;
}

MCX_CONJUGATE_FAMILY_FAST(categorical_dirichlet, stats_combine, log_predictive_loo);

/* pure C, no fast paths beyond the slots */
const mcx_family_caps mcx_caps_categorical_dirichlet = { .thread_safe = 1 };
