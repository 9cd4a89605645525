/*
 * family_gaussian_mean.c -- multivariate Gaussian with known covariance and
 * a Normal prior on the mean (the running example of De Bacco and Valera's lecture notes).
 *
 * Model (d = dim):
 *   x_i | mu ~ N_d(mu, Sigma)        Sigma known
 *   mu       ~ N_d(m0, S0)
 *
 * Hyperparameter vector (from the R constructor gaussian_mean()):
 *   c(Sigma[d*d], m0[d], S0[d*d])  (column-major)      length 2 d*d + d
 *
 * Posterior (De Bacco and Valera, eq. 10): with Lambda = Sigma^{-1},
 * Lambda0 = S0^{-1}, P_n = Lambda0 + n Lambda,
 *   mu | X ~ N(mu_n, P_n^{-1}),  mu_n = m0 + P_n^{-1} Lambda sum_i (x_i - m0).
 * Posterior predictive (De Bacco and Valera, eq. 12, general form):
 *   x | X ~ N(mu_n, Sigma + P_n^{-1}).
 * Marginal likelihood (complete the square in mu; y_i = x_i - m0,
 * b = Lambda sum_i y_i):
 *   log p(X) = -n d/2 log(2 pi) - n/2 log|Sigma| - 1/2 log|S0| - 1/2 log|P_n|
 *              - 1/2 sum_i y_i' Lambda y_i + 1/2 b' P_n^{-1} b.
 * Working with y = x - m0 avoids cancellation when the data sit far from 0.
 *
 * The posterior covariance depends on n only; stats_add/stats_remove
 * recompute (O(d^3), d small) the Cholesky factor of the predictive
 * covariance so log_predictive is one triangular solve (O(d^2)).
 *
 * Leave-one-out predictive of a member x (log_predictive_loo): the
 * cluster without x has P_{n-1} = Lambda0 + (n - 1) Lambda, a full-rank
 * change of P_n (no rank-one identity), so for d > 1 the slot forms the
 * stats without x in its own scratch (copy, remove, predictive: the host's
 * path, O(d^3)).  For d = 1 everything is scalar: with y = x - m0,
 * P' = lambda0 + (n - 1) lambda, mu' = m0 + lambda (sum y - y) / P' and
 *   log p(x | rest) = -1/2 log(2 pi v) - (x - mu')^2 / (2 v),  v = sigma^2 + 1 / P',
 * one log and no copy.
 *
 * Stats block (doubles): n, sum y' Lambda y, predictive constant
 *   (-d/2 log 2pi - 1/2 log|Sigma + P_n^{-1}|), log|P_n|, b' P_n^{-1} b,
 *   sum y[d], mu_n[d], chol(Sigma + P_n^{-1})[d*d].
 * Parameter vector theta (param_size = d): mean[d].
 */
#include <string.h>
#include "family_common.h"

typedef struct {
    int d;
    double lognorm;    /* -d/2 log(2 pi) - 1/2 log|Sigma| */
    double logdet_s0;  /* log|S0| */
    double const0;     /* predictive constant of the empty cluster */
    double v[];        /* m0[d], Sigma[d*d], chol(Sigma)[d*d], Lambda[d*d],
                          Lambda0[d*d], chol(Sigma + S0)[d*d] */
} gm_hyper;

enum { S_N, S_SQ, S_CONST, S_LOGDETP, S_BPB, S_HEAD };

#define DD(d) ((size_t) (d) * (d))
#define H_M0(h)   ((h)->v)
#define H_SIG(h)  ((h)->v + (h)->d)
#define H_LSIG(h) ((h)->v + (h)->d + DD((h)->d))
#define H_LAM(h)  ((h)->v + (h)->d + 2 * DD((h)->d))
#define H_LAM0(h) ((h)->v + (h)->d + 3 * DD((h)->d))
#define H_LC0(h)  ((h)->v + (h)->d + 4 * DD((h)->d))
#define S_SY(s, d) ((s) + S_HEAD)
#define S_MU(s, d) ((s) + S_HEAD + (d))
#define S_LC(s, d) ((s) + S_HEAD + 2 * (d))

static size_t hyper_size(int dim)
{
    return MCX_DOUBLES(sizeof(gm_hyper) + (dim + 5 * DD(dim)) * sizeof(double));
}

static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    gm_hyper *h = hp;
    size_t dd = DD(d);
    if (d < 1 || n_val != (int) (2 * dd + d)) return 1;
    h->d = d;
    const double *sig = val, *m0 = val + dd, *s0 = val + dd + d;
    double *ls0 = (double *) mcx_alloc(dd, sizeof(double));   /* once per call */
    memcpy(H_SIG(h), sig, dd * sizeof(double));
    memcpy(H_LSIG(h), sig, dd * sizeof(double));
    memcpy(H_M0(h), m0, d * sizeof(double));
    memcpy(ls0, s0, dd * sizeof(double));
    if (mcx_chol(H_LSIG(h), d) != 0 || mcx_chol(ls0, d) != 0) return 3;
    h->lognorm = -0.5 * d * MCX_LOG_2PI - 0.5 * mcx_chol_logdet(H_LSIG(h), d);
    h->logdet_s0 = mcx_chol_logdet(ls0, d);
    mcx_chol_inverse(H_LSIG(h), d, H_LAM(h));
    mcx_chol_inverse(ls0, d, H_LAM0(h));
    double *lc0 = H_LC0(h);                  /* prior predictive N(m0, Sigma + S0) */
    for (size_t i = 0; i < dd; i++) lc0[i] = sig[i] + s0[i];
    if (mcx_chol(lc0, d) != 0) return 3;
    h->const0 = -0.5 * d * MCX_LOG_2PI - 0.5 * mcx_chol_logdet(lc0, d);
    return 0;
}

static size_t stats_size(const void *hp);

/* refresh()'s scratch, then (d > 1) a stats block for log_predictive_loo(). */
static size_t work_size(const void *hp)
{
    const gm_hyper *h = hp;
    return 2 * DD(h->d) + 2 * (size_t) h->d + (h->d > 1 ? stats_size(hp) : 0);
}

static size_t stats_size(const void *hp)
{
    const gm_hyper *h = hp;
    return S_HEAD + 2 * (size_t) h->d + DD(h->d);
}

/* P_n = Lambda0 + n Lambda into P, then its Cholesky factor in place. */
static void posterior_precision_chol(const gm_hyper *h, double n, double *P)
{
    size_t dd = DD(h->d);
    const double *lam = H_LAM(h), *lam0 = H_LAM0(h);
    for (size_t i = 0; i < dd; i++) P[i] = lam0[i] + n * lam[i];
    if (mcx_chol(P, h->d) != 0)
        mcx_error("gaussian_mean: the posterior precision matrix is numerically singular");
}

static void stats_reset(const void *hp, void *sp)
{
    const gm_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    s[S_N] = 0;
    s[S_SQ] = 0;
    s[S_CONST] = h->const0;
    s[S_LOGDETP] = -h->logdet_s0;
    s[S_BPB] = 0;
    memset(S_SY(s, d), 0, d * sizeof(double));
    memcpy(S_MU(s, d), H_M0(h), d * sizeof(double));
    memcpy(S_LC(s, d), H_LC0(h), DD(d) * sizeof(double));
}

/* Recompute mu_n, b' P^{-1} b, log|P_n| and the predictive factor. */
static void refresh(const gm_hyper *h, double *s, double *work)
{
    int d = h->d;
    size_t dd = DD(d);
    double *LP = work, *C = work + dd, *z = work + 2 * dd;
    const double *sy = S_SY(s, d), *lam = H_LAM(h), *m0 = H_M0(h), *sig = H_SIG(h);
    double *mu = S_MU(s, d), *Lc = S_LC(s, d);
    posterior_precision_chol(h, s[S_N], LP);
    s[S_LOGDETP] = mcx_chol_logdet(LP, d);
    for (int i = 0; i < d; i++) {               /* z = b = Lambda sum y */
        double t = 0.0;
        for (int k = 0; k < d; k++) t += lam[i + (size_t) k * d] * sy[k];
        z[i] = t;
    }
    mcx_trsv_lower(LP, z, d);                   /* z = LP^{-1} b */
    double bpb = 0.0;
    for (int i = 0; i < d; i++) bpb += z[i] * z[i];
    s[S_BPB] = bpb;
    mcx_trsv_lower_t(LP, z, d);                 /* z = P^{-1} b */
    for (int i = 0; i < d; i++) mu[i] = m0[i] + z[i];
    mcx_chol_inverse(LP, d, C);                 /* C = P^{-1} */
    for (size_t i = 0; i < dd; i++) Lc[i] = sig[i] + C[i];
    if (mcx_chol(Lc, d) != 0)
        mcx_error("gaussian_mean: the predictive covariance is numerically singular");
    s[S_CONST] = -0.5 * d * MCX_LOG_2PI - 0.5 * mcx_chol_logdet(Lc, d);
}

/* Add (sign = +1) or remove (sign = -1) y = x - m0 from the sums. */
static void accumulate(const gm_hyper *h, double *s, const double *x, double sign, double *work)
{
    int d = h->d;
    const double *m0 = H_M0(h), *lam = H_LAM(h);
    double *sy = S_SY(s, d), *y = work, q = 0.0;
    for (int i = 0; i < d; i++) y[i] = x[i] - m0[i];
    for (int j = 0; j < d; j++) {
        double t = 0.0;
        for (int i = 0; i < d; i++) t += lam[i + (size_t) j * d] * y[i];
        q += t * y[j];
        sy[j] += sign * y[j];
    }
    s[S_SQ] += sign * q;
    s[S_N] += sign;
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    const gm_hyper *h = hp;
    accumulate(h, sp, x, 1.0, work);
    refresh(h, sp, work);
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    const gm_hyper *h = hp;
    double *s = sp;
    if (s[S_N] <= 1) {             /* back to the empty cluster, exactly */
        if (s[S_N] < 1) MCX_INTERNAL("removing from an empty cluster");
        stats_reset(hp, sp);
        return;
    }
    accumulate(h, s, x, -1.0, work);
    refresh(h, s, work);
}

/* stats := the union of its members and those of o (disjoint sets): the
 * sums n, sum y' Lambda y and sum y add; the rest follows from them. */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const gm_hyper *h = hp;
    double *s = sp;
    const double *o = op;
    if (o[S_N] == 0) return;
    s[S_N] += o[S_N];
    s[S_SQ] += o[S_SQ];
    for (int j = 0; j < h->d; j++) S_SY(s, h->d)[j] += S_SY(o, h->d)[j];
    refresh(h, s, work);
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const gm_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    const double *mu = S_MU(s, d), *Lc = S_LC(s, d);
    if (d == 1) {
        double z = (x[0] - mu[0]) / Lc[0];
        return s[S_CONST] - 0.5 * z * z;
    }
    for (int i = 0; i < d; i++) work[i] = x[i] - mu[i];
    return s[S_CONST] - 0.5 * mcx_tri_quad(Lc, work, work, d);
}

static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const gm_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    if (d == 1) {
        double lam = H_LAM(h)[0], P = H_LAM0(h)[0] + (s[S_N] - 1) * lam;
        double y = x[0] - H_M0(h)[0], e = y - lam * (S_SY(s, d)[0] - y) / P;
        double v = H_SIG(h)[0] + 1.0 / P;
        return -0.5 * (MCX_LOG_2PI + log(v)) - 0.5 * e * e / v;
    }
    double *t = work + 2 * DD(d) + 2 * (size_t) d;
    memcpy(t, s, stats_size(hp) * sizeof(double));
    stats_remove(hp, t, x, work);
    return log_predictive(hp, t, x, work);
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const gm_hyper *h = hp;
    const double *s = sp;
    double n = s[S_N];
    (void) work;
    if (n == 0) return 0.0;
    return n * h->lognorm - 0.5 * h->logdet_s0 - 0.5 * s[S_LOGDETP]
        - 0.5 * s[S_SQ] + 0.5 * s[S_BPB];
}

static size_t param_size(const void *hp)
{
    const gm_hyper *h = hp;
    return (size_t) h->d;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const gm_hyper *h = hp;
    const double *s = sp;
    posterior_precision_chol(h, s[S_N], work);
    mcx_rmvnorm_prec_chol(S_MU(s, h->d), work, h->d, theta);
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const gm_hyper *h = hp;
    int d = h->d;
    if (d == 1) {
        double z = (x[0] - theta[0]) / H_LSIG(h)[0];
        return h->lognorm - 0.5 * z * z;
    }
    for (int i = 0; i < d; i++) work[i] = x[i] - theta[i];
    return h->lognorm - 0.5 * mcx_tri_quad(H_LSIG(h), work, work, d);
}

MCX_CONJUGATE_FAMILY_FAST(gaussian_mean, stats_combine, log_predictive_loo);

/* pure C, no fast paths beyond the slots */
const mcx_family_caps mcx_caps_gaussian_mean = { .thread_safe = 1 };
