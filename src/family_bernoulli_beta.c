/*
 * family_bernoulli_beta.c -- independent binary variables with Beta priors.
 *
 * Model, for each column j = 1..d independently:
 *   x_ij | p_j ~ Bernoulli(p_j),   x_ij in {0, 1}
 *   p_j        ~ Beta(a_j, b_j)
 *
 * Hyperparameter vector (from the R constructor bernoulli_beta()):
 *   c(a[d], b[d])                                        length 2 d
 *
 * With s_j = sum_i x_ij over the n points of the cluster (Beta-Bernoulli
 * conjugacy; Murphy 2012, section 3.3):
 *   p_j | X ~ Beta(a_j + s_j, b_j + n - s_j)
 *   p(x_j = 1 | X) = (a_j + s_j) / (a_j + b_j + n)          (predictive)
 *   log p(X) = sum_j [lbeta(a_j + s_j, b_j + n - s_j) - lbeta(a_j, b_j)].
 * The predictive log-probabilities of 0 and 1 are cached per column, so
 * log_predictive is O(d) with no log calls.
 *
 * Leave-one-out predictive of a member x (log_predictive_loo): with
 * A = a_j + s_j and B = b_j + n - s_j from the full cluster, the cluster
 * without x has A - x_j and B - (1 - x_j), so
 *   p(x_j | rest) = (x_j ? A - 1 : B - 1) / (A + B - 1);
 * the ratios are multiplied and their product logged (rescaled before it
 * could underflow): about one log per call instead of one per dimension.
 *
 * Stats block (doubles): n, s[d], log p(x_j = 1 | X)[d], log p(x_j = 0 | X)[d].
 * Parameter vector theta (param_size = 3 d): prob[d], then a cache used by
 *   log_lik: log prob[d], log(1 - prob)[d].  theta must come from param_draw.
 */
#include <string.h>
#include "family_common.h"

typedef struct {
    int d;
    double lbeta0;   /* sum_j lbeta(a_j, b_j) */
    double v[];      /* a[d], b[d] */
} bb_hyper;

enum { S_N, S_HEAD };

#define H_A(h) ((h)->v)
#define H_B(h) ((h)->v + (h)->d)
#define S_S(s, d)  ((s) + S_HEAD)
#define S_L1(s, d) ((s) + S_HEAD + (d))
#define S_L0(s, d) ((s) + S_HEAD + 2 * (d))

static size_t hyper_size(int dim)
{
    return MCX_DOUBLES(sizeof(bb_hyper) + 2 * (size_t) dim * sizeof(double));
}

static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    bb_hyper *h = hp;
    if (d < 1 || n_val != 2 * d) return 1;
    h->d = d;
    memcpy(h->v, val, 2 * (size_t) d * sizeof(double));
    h->lbeta0 = 0.0;
    for (int j = 0; j < d; j++) {
        if (!(H_A(h)[j] > 0) || !(H_B(h)[j] > 0)) return 2;
        h->lbeta0 += lbeta(H_A(h)[j], H_B(h)[j]);
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
    const bb_hyper *h = hp;
    return S_HEAD + 3 * (size_t) h->d;
}

static void refresh(const bb_hyper *h, double *s)
{
    int d = h->d;
    double n = s[S_N];
    const double *sj = S_S(s, d);
    double *l1 = S_L1(s, d), *l0 = S_L0(s, d);
    for (int j = 0; j < d; j++) {
        /* b + (n - s): (b + n) - s loses a tiny b when s = n (log 0 -> NaN) */
        double a = H_A(h)[j] + sj[j], b = H_B(h)[j] + (n - sj[j]), lt = log(a + b);
        l1[j] = log(a) - lt;
        l0[j] = log(b) - lt;
    }
}

static void stats_reset(const void *hp, void *sp)
{
    const bb_hyper *h = hp;
    double *s = sp;
    s[S_N] = 0;
    memset(S_S(s, h->d), 0, h->d * sizeof(double));
    refresh(h, s);
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    const bb_hyper *h = hp;
    double *s = sp, *sj = S_S(s, h->d);
    (void) work;
    for (int j = 0; j < h->d; j++) sj[j] += x[j];
    s[S_N] += 1;
    refresh(h, s);
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    const bb_hyper *h = hp;
    double *s = sp, *sj = S_S(s, h->d);
    (void) work;
    if (s[S_N] < 1) MCX_INTERNAL("removing from an empty cluster");
    for (int j = 0; j < h->d; j++) sj[j] -= x[j];
    s[S_N] -= 1;
    refresh(h, s);
}

/* stats := the union of its members and those of o (disjoint sets): the
 * counts n and s[d] add; the cached logs follow from them. */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const bb_hyper *h = hp;
    double *s = sp;
    const double *o = op;
    (void) work;
    if (o[S_N] == 0) return;
    s[S_N] += o[S_N];
    for (int j = 0; j < h->d; j++) S_S(s, h->d)[j] += S_S(o, h->d)[j];
    refresh(h, s);
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const bb_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *l1 = S_L1(s, d), *l0 = S_L0(s, d);
    double lp = 0.0;
    (void) work;
    for (int j = 0; j < d; j++) lp += l0[j] + x[j] * (l1[j] - l0[j]);   /* x in {0, 1} */
    return lp;
}

static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const bb_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *sj = S_S(s, d);
    double lp = 0.0, prod = 1.0, n = s[S_N];
    (void) work;
    for (int j = 0; j < d; j++) {
        double A = H_A(h)[j] + sj[j], B = H_B(h)[j] + (n - sj[j]);
        prod *= (x[j] != 0 ? A - 1 : B - 1) / (A + B - 1);
        if (prod < 1e-280) {
            lp += log(prod);
            prod = 1.0;
        }
    }
    return lp + log(prod);
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const bb_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N], lm = -h->lbeta0;
    const double *sj = S_S(s, d);
    (void) work;
    if (n == 0) return 0.0;
    for (int j = 0; j < d; j++) lm += lbeta(H_A(h)[j] + sj[j], H_B(h)[j] + (n - sj[j]));
    return lm;
}

static size_t param_size(const void *hp)
{
    const bb_hyper *h = hp;
    return 3 * (size_t) h->d;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const bb_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N];
    const double *sj = S_S(s, d);
    (void) work;
    for (int j = 0; j < d; j++) {
        double p = mcx_rbeta(H_A(h)[j] + sj[j], H_B(h)[j] + (n - sj[j]));
        theta[j] = p;
        theta[d + j] = log(p);
        theta[2 * d + j] = log1p(-p);
    }
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const bb_hyper *h = hp;
    int d = h->d;
    double ll = 0.0;
    (void) work;
    /* x in {0, 1}; a select, not x * (log p - log(1 - p)): a draw p of
     * exactly 0 or 1 (tiny a or b) makes one log infinite and that product
     * NaN */
    for (int j = 0; j < d; j++)
        ll += x[j] != 0.0 ? theta[d + j] : theta[2 * d + j];
    return ll;
}

MCX_CONJUGATE_FAMILY_FAST(bernoulli_beta, stats_combine, log_predictive_loo);

/* pure C, no fast paths beyond the slots */
const mcx_family_caps mcx_caps_bernoulli_beta = { .thread_safe = 1 };
