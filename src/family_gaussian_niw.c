/*
 * family_gaussian_niw.c -- multivariate Gaussian with unknown mean and
 * covariance under the conjugate Normal-inverse-Wishart prior.
 *
 * Model (d = dim):
 *   x_i | mu, Sigma ~ N_d(mu, Sigma)
 *   mu | Sigma      ~ N_d(m0, Sigma / kappa0)
 *   Sigma           ~ IW(nu0, Psi0)          (E[Sigma] = Psi0 / (nu0 - d - 1))
 * For d = 1 this is the Normal-inverse-gamma model with
 * sigma^2 ~ Inv-Gamma(shape = nu0 / 2, rate = Psi0 / 2).
 *
 * Hyperparameter vector (from the R constructor gaussian_niw()):
 *   c(m0[d], kappa0, nu0, Psi0[d*d] column-major)      length d*d + d + 2
 *
 * Posterior after n points (Gelman et al., BDA3 sec. 3.6; Murphy 2007,
 * "Conjugate Bayesian analysis of the Gaussian distribution", section on
 * the Normal-inverse-Wishart prior), kept in sequential form:
 *   kappa_n = kappa0 + n,  nu_n = nu0 + n,
 *   mu_{n+1}  = mu_n + (x - mu_n) / (kappa_n + 1)
 *   Psi_{n+1} = Psi_n + kappa_n / (kappa_n + 1) (x - mu_n)(x - mu_n)'       (A)
 * and for removal of x (with w = x - mu_n):
 *   mu_{n-1}  = mu_n - w / (kappa_n - 1)
 *   Psi_{n-1} = Psi_n - kappa_n / (kappa_n - 1) w w'                          (B)
 * (B follows from A since x - mu_{n-1} = kappa_n / (kappa_n - 1) w.)
 *
 * Posterior predictive (BDA3 sec. 3.6; Murphy 2007): multivariate Student t with
 * nu_n - d + 1 degrees of freedom, location mu_n and scale
 * Psi_n (kappa_n + 1) / (kappa_n (nu_n - d + 1)); with r = w' Psi_n^{-1} w,
 *   log p(x) = lgamma((nu_n+1)/2) - lgamma((nu_n-d+1)/2) - d/2 log(pi)
 *              - d/2 log((kappa_n+1)/kappa_n) - 1/2 log|Psi_n|
 *              - (nu_n+1)/2 log(1 + kappa_n r / (kappa_n + 1)).
 * Everything but the last line is cached in the stats, so log_predictive is
 * one triangular solve with the cached Cholesky factor of Psi_n (O(d^2),
 * no lgamma).  The factor follows (A)/(B) by rank-one update/downdate; if a
 * downdate fails numerically it is recomputed from the stored Psi_n (see
 * refactor()).  For d <= NIW_SMALL_DIM it is recomputed from Psi_n at
 * every step (cheaper there than the rotations' hypot calls).
 *
 * Marginal likelihood (Murphy 2007, NIW section):
 *   log p(X) = -n d/2 log(pi) + log Gamma_d(nu_n/2) - log Gamma_d(nu0/2)
 *              + nu0/2 log|Psi0| - nu_n/2 log|Psi_n| + d/2 log(kappa0/kappa_n).
 *
 * Leave-one-out predictive of a member x (log_predictive_loo): the stats
 * without x are (B): kappa' = kappa_n - 1, nu' = nu_n - 1, x - mu' = c w
 * with c = kappa_n / (kappa_n - 1), Psi' = Psi_n - c w w'.  With
 * q = w' Psi_n^{-1} w (one triangular solve with the cached factor) and
 * t = 1 - c q, the matrix determinant lemma and the Sherman-Morrison
 * formula (Golub and Van Loan 2013, sec. 2.1.5; Harville 1997, Matrix
 * Algebra, thm. 18.1.1 and eq. 18.2.10) give
 *   log|Psi'| = log|Psi_n| + log t,   w' Psi'^{-1} w = q / t,
 * so r' = (c w)' Psi'^{-1} (c w) = c^2 q / t, kappa' r' / (kappa' + 1) =
 * c q / t and 1 + c q / t = 1 / t; the predictive formula above at
 * (kappa', nu', Psi') collapses to
 *   log p(x | rest) = C_loo + (nu_n - 1)/2 log t,
 *   C_loo = lgamma(nu_n/2) - lgamma((nu_n-d)/2) - d/2 log(pi)
 *           - d/2 log(kappa_n / (kappa_n - 1)) - 1/2 log|Psi_n|,
 * cached in the stats (one log per call).  t = det(Psi') / det(Psi_n) >=
 * det(Psi0) / det(Psi_n) > 0; when rounding has eaten t (t < 1e-6: an
 * outlier that dominates Psi_n) the downdated factor is formed in `work`
 * instead (see loo_direct()).
 *
 * Stats block (doubles): n, kappa_n, nu_n, log|Psi_n|, predictive constant,
 *   kappa_n/(kappa_n+1), (nu_n+1)/2, lgamma((nu_n+1)/2), lgamma(nu_n/2),
 *   lgamma((nu_n-d+1)/2), lgamma((nu_n-d)/2) (NaN when nu_n <= d),
 *   C_loo (0 when n = 0), mu_n - m0[d], Psi_n[d*d], chol(Psi_n)[d*d].
 * The four lgamma values follow nu_n by lgamma(z + 1) = lgamma(z) + log z,
 * so adding or removing a point costs two logs instead of two lgamma calls
 * (see lg_up() and lg_down()); they restart exactly from the hyperparameters
 * whenever a cluster is emptied.
 * The mean is stored relative to m0 so that its rounding errors stay at the
 * scale of the spread of the data, not of their location (the statistics
 * return to their start after many add/remove pairs even for data far from
 * the origin).
 * Parameter vector theta (param_size = 2 d*d + d + 1):
 *   mean[d], cov[d*d] (column-major), then a cache used by log_lik:
 *   chol(cov)[d*d] (lower), -d/2 log(2 pi) - 1/2 log|cov|.
 *   theta must come from param_draw (the cache must match cov).
 */
#include <string.h>
#include "family_common.h"

typedef struct {
    int d;
    double kappa0, nu0, logdet0, lmvg0;
    double lg0[4];  /* the four lgamma values of the stats at nu_n = nu0 */
    double v[];     /* m0[d], Psi0[d*d], chol(Psi0)[d*d] */
} niw_hyper;

enum { S_N, S_KAPPA, S_NU, S_LOGDET, S_CONST, S_RSCALE, S_POW,
       S_LA0, S_LA1, S_LB0, S_LB1, S_LOOC, S_HEAD };

#define H_M0(h)   ((h)->v)
#define H_PSI0(h) ((h)->v + (h)->d)
#define H_L0(h)   ((h)->v + (h)->d + (size_t) (h)->d * (h)->d)
#define S_MU(s, d)  ((s) + S_HEAD)
#define S_PSI(s, d) ((s) + S_HEAD + (d))
#define S_L(s, d)   ((s) + S_HEAD + (d) + (size_t) (d) * (d))

/* lg[0..3] = lgamma((nu+1)/2), lgamma(nu/2), lgamma((nu-d+1)/2), and
 * lgamma((nu-d)/2) when nu > d (NaN otherwise: never used then). */
static void lg_direct(double *lg, double nu, int d)
{
    lg[0] = lgammafn(0.5 * (nu + 1));
    lg[1] = lgammafn(0.5 * nu);
    lg[2] = lgammafn(0.5 * (nu - d + 1));
    lg[3] = nu - d > 0 ? lgammafn(0.5 * (nu - d)) : R_NaN;
}

/* The lgamma cache after nu_n grew by one (s[S_NU] is the new value nu'):
 * lgamma((nu'+1)/2) = lgamma((nu'-1)/2) + log((nu'-1)/2), where
 * lgamma((nu'-1)/2) is the old lgamma(nu/2); likewise for the d-shifted pair
 * when its old value exists. */
static void lg_up(double *s, int d)
{
    double nu = s[S_NU];
    double a = s[S_LA1] + log(0.5 * (nu - 1));
    s[S_LA1] = s[S_LA0];
    s[S_LA0] = a;
    if (nu - 1 - d > 0) {
        double b = s[S_LB1] + log(0.5 * (nu - 1 - d));
        s[S_LB1] = s[S_LB0];
        s[S_LB0] = b;
    } else {
        s[S_LB0] = lgammafn(0.5 * (nu - d + 1));
        s[S_LB1] = nu - d > 0 ? lgammafn(0.5 * (nu - d)) : R_NaN;
    }
}

/* The lgamma cache after nu_n shrank by one (s[S_NU] is the new value nu'):
 * lgamma(nu'/2) = lgamma(nu'/2 + 1) - log(nu'/2), where lgamma(nu'/2 + 1) is
 * the old lgamma((nu+1)/2); nu' > d - 1 >= 0 keeps the logs finite. */
static void lg_down(double *s, int d)
{
    double nu = s[S_NU];
    double a = s[S_LA0] - log(0.5 * nu);
    s[S_LA0] = s[S_LA1];
    s[S_LA1] = a;
    double b = nu - d > 0 ? s[S_LB0] - log(0.5 * (nu - d)) : R_NaN;
    s[S_LB0] = s[S_LB1];
    s[S_LB1] = b;
}

static size_t hyper_size(int dim)
{
    return MCX_DOUBLES(sizeof(niw_hyper) + (size_t) (dim + 2 * dim * dim) * sizeof(double));
}

static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    niw_hyper *h = hp;
    size_t dd = (size_t) d * d;
    if (d < 1 || n_val != (int) (dd + d + 2)) return 1;
    h->d = d;
    memcpy(H_M0(h), val, d * sizeof(double));
    h->kappa0 = val[d];
    h->nu0 = val[d + 1];
    memcpy(H_PSI0(h), val + d + 2, dd * sizeof(double));
    memcpy(H_L0(h), val + d + 2, dd * sizeof(double));
    if (!(h->kappa0 > 0) || !(h->nu0 > d - 1)) return 2;
    if (mcx_chol(H_L0(h), d) != 0) return 3;
    h->logdet0 = mcx_chol_logdet(H_L0(h), d);
    h->lmvg0 = mcx_lmvgamma(0.5 * h->nu0, d);
    lg_direct(h->lg0, h->nu0, d);
    return 0;
}

/* Per coordinate j, the marginal prior of (mu_j, Sigma_jj): mu_j | Sigma_jj
 * ~ N(m0_j, Sigma_jj / kappa0) and Sigma_jj ~ Inv-Gamma((nu0 - d + 1) / 2,
 * Psi0_jj / 2) (a diagonal element of an inverse Wishart matrix; Press
 * 2005, Applied Multivariate Analysis, sec. 5.2), as the gaussian_diag
 * hyperparameter vector c(m0[d], kappa0[d], a0[d], b0[d]).  For d = 1 it
 * is the same model. */
static void mcx_niw_diag_marginals(const void *hp, double *val)
{
    const niw_hyper *h = hp;
    int d = h->d;
    for (int j = 0; j < d; j++) {
        val[j] = H_M0(h)[j];
        val[d + j] = h->kappa0;
        val[2 * d + j] = 0.5 * (h->nu0 - d + 1);
        val[3 * d + j] = 0.5 * H_PSI0(h)[j + (size_t) j * d];
    }
}

static size_t work_size(const void *hp)
{
    const niw_hyper *h = hp;
    return 2 * (size_t) h->d * h->d + 2 * (size_t) h->d;
}

static size_t stats_size(const void *hp)
{
    const niw_hyper *h = hp;
    return S_HEAD + h->d + 2 * (size_t) h->d * h->d;
}

/* Dimensions up to which a point added or removed refactors Psi_n (d
 * square roots, O(d^3) = a few flops) instead of updating its factor by
 * rotations (d hypot calls), and log|Psi_n| is one log of the product of
 * the factor's diagonal instead of d logs. */
#define NIW_SMALL_DIM 3

/* log|Psi_n| from its factor L. */
static double logdet_of(const double *L, int d)
{
    if (d <= NIW_SMALL_DIM) {
        double p = 1.0;
        for (int i = 0; i < d; i++) p *= L[i + (size_t) i * d];
        if (p > 0.0 && p < HUGE_VAL) return 2.0 * log(p);
    }
    return mcx_chol_logdet(L, d);
}

/* L := the factor of psi (small d), else the fallback refactor(). */
static void refactor(const niw_hyper *h, double *psi, double *L);
static void factor_small(const niw_hyper *h, double *psi, double *L)
{
    int d = h->d;
    memcpy(L, psi, (size_t) d * d * sizeof(double));
    if (mcx_chol(L, d) != 0) refactor(h, psi, L);
}

/* Recompute the cached predictive constants from kappa_n, nu_n, L. */
static void refresh(const niw_hyper *h, double *s)
{
    int d = h->d;
    double k = s[S_KAPPA], nu = s[S_NU];
    s[S_LOGDET] = logdet_of(S_L(s, d), d);
    s[S_CONST] = s[S_LA0] - s[S_LB0]
        - 0.5 * d * MCX_LOG_PI - 0.5 * d * log((k + 1) / k) - 0.5 * s[S_LOGDET];
    s[S_RSCALE] = k / (k + 1);
    s[S_POW] = 0.5 * (nu + 1);
    s[S_LOOC] = s[S_N] < 1 ? 0.0 : s[S_LA1] - s[S_LB1] - 0.5 * d * MCX_LOG_PI
        - 0.5 * d * log(k / (k - 1)) - 0.5 * s[S_LOGDET];
}

static void stats_reset(const void *hp, void *sp)
{
    const niw_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    size_t dd = (size_t) d * d;
    s[S_N] = 0;
    s[S_KAPPA] = h->kappa0;
    s[S_NU] = h->nu0;
    memcpy(s + S_LA0, h->lg0, 4 * sizeof(double));
    memset(S_MU(s, d), 0, d * sizeof(double));
    memcpy(S_PSI(s, d), H_PSI0(h), dd * sizeof(double));
    memcpy(S_L(s, d), H_L0(h), dd * sizeof(double));
    refresh(h, s);
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    const niw_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    double k = s[S_KAPPA], c = k / (k + 1);
    const double *m0 = H_M0(h);
    double *mu = S_MU(s, d), *psi = S_PSI(s, d), *L = S_L(s, d);
    if (d == 1) {
        double w = x[0] - m0[0] - mu[0];
        psi[0] += c * w * w;
        L[0] = sqrt(psi[0]);
        mu[0] += w / (k + 1);
    } else {
        double *w = work, *u = work + d, sc = sqrt(c);
        for (int i = 0; i < d; i++) {
            w[i] = x[i] - m0[i] - mu[i];
            u[i] = sc * w[i];
        }
        mcx_syr_full(psi, c, w, d);                       /* (A) */
        if (d <= NIW_SMALL_DIM) factor_small(h, psi, L);
        else mcx_chol_update(L, u, d);
        for (int i = 0; i < d; i++) mu[i] += w[i] / (k + 1);
    }
    s[S_N] += 1;
    s[S_KAPPA] = k + 1;
    s[S_NU] += 1;
    lg_up(s, d);
    refresh(h, s);
}

/* Fallback after a failed downdate: refactor the stored Psi_n.  When
 * rounding has made it indefinite (possible only after removing an outlier
 * many orders of magnitude away, whose rank-one term swamped Psi_n), add
 * t Psi0 with the smallest t in 1e-14, 1e-12, ... that restores positive
 * definiteness (Psi_n >= Psi0 holds exactly, so the error is within the
 * rounding of that outlier's term). */
static void refactor(const niw_hyper *h, double *psi, double *L)
{
    int d = h->d;
    size_t dd = (size_t) d * d;
    double t = 0.0;
    for (int attempt = 0; attempt < 20; attempt++) {
        if (t > 0)
            for (size_t i = 0; i < dd; i++) psi[i] += t * H_PSI0(h)[i];
        memcpy(L, psi, dd * sizeof(double));
        if (mcx_chol(L, d) == 0) return;
        t = t == 0 ? 1e-14 : 99 * t;    /* cumulative additions grow by 100x */
    }
    mcx_error("gaussian_niw: removing an observation left the posterior scale matrix "
              "not positive definite (was the observation added?)");
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    const niw_hyper *h = hp;
    double *s = sp;
    int d = h->d;
    if (s[S_N] <= 1) {             /* back to the empty cluster, exactly */
        if (s[S_N] < 1) MCX_INTERNAL("removing from an empty cluster");
        stats_reset(hp, sp);
        return;
    }
    double k = s[S_KAPPA], c = k / (k - 1);
    const double *m0 = H_M0(h);
    double *mu = S_MU(s, d), *psi = S_PSI(s, d), *L = S_L(s, d);
    if (d == 1) {
        double w = x[0] - m0[0] - mu[0];
        psi[0] -= c * w * w;
        if (!(psi[0] >= H_PSI0(h)[0])) psi[0] = H_PSI0(h)[0];  /* Psi_n >= Psi0 exactly */
        L[0] = sqrt(psi[0]);
        mu[0] -= w / (k - 1);
    } else {
        double *w = work, *u = work + d, sc = sqrt(c);
        for (int i = 0; i < d; i++) {
            w[i] = x[i] - m0[i] - mu[i];
            u[i] = sc * w[i];
        }
        mcx_syr_full(psi, -c, w, d);                      /* (B) */
        if (d <= NIW_SMALL_DIM) factor_small(h, psi, L);
        else if (mcx_chol_downdate(L, u, d) != 0) refactor(h, psi, L);
        for (int i = 0; i < d; i++) mu[i] -= w[i] / (k - 1);
    }
    s[S_N] -= 1;
    s[S_KAPPA] = k - 1;
    s[S_NU] -= 1;
    lg_down(s, d);
    refresh(h, s);
}

/* stats := the union of its members and those of o (disjoint sets).  With
 * a, b the two means relative to m0 and ka, kb their kappa_n, the union
 * has kappa_u = ka + kb - kappa0, mean (ka a + kb b) / kappa_u and, from
 * Psi_n = Psi0 + sum x x' - kappa_n mu_n mu_n' (relative to m0),
 *   Psi_u = Psi_a + Psi_b - Psi0
 *           + [ka kb (a - b)(a - b)' - kappa0 (ka a a' + kb b b')] / kappa_u;
 * the factor is recomputed (O(d^3), against O(d^2) per member added). */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const niw_hyper *h = hp;
    double *s = sp;
    const double *o = op;
    int d = h->d;
    size_t dd = (size_t) d * d;
    (void) work;
    if (o[S_N] == 0) return;
    if (s[S_N] == 0) {
        memcpy(s, o, stats_size(hp) * sizeof(double));
        return;
    }
    double ka = s[S_KAPPA], kb = o[S_KAPPA], ku = ka + kb - h->kappa0;
    double *a = S_MU(s, d), *psi = S_PSI(s, d), *L = S_L(s, d);
    const double *b = S_MU(o, d), *psib = S_PSI(o, d), *psi0 = H_PSI0(h);
    for (int j = 0; j < d; j++)
        for (int i = 0; i < d; i++) {
            size_t ij = i + (size_t) j * d;
            psi[ij] += psib[ij] - psi0[ij]
                + (ka * kb * (a[i] - b[i]) * (a[j] - b[j])
                   - h->kappa0 * (ka * a[i] * a[j] + kb * b[i] * b[j])) / ku;
        }
    for (int i = 0; i < d; i++) a[i] = (ka * a[i] + kb * b[i]) / ku;
    memcpy(L, psi, dd * sizeof(double));
    if (mcx_chol(L, d) != 0) refactor(h, psi, L);
    s[S_N] += o[S_N];
    s[S_KAPPA] = ku;
    s[S_NU] += o[S_N];
    lg_direct(s + S_LA0, s[S_NU], d);
    refresh(h, s);
}

/* The statistics of a group from its raw moments (stats_moments.h: count
 * n, mean xbar, scatter W about the mean), by the batch form of (A): with
 * a = xbar - m0,
 *   kappa_n = kappa0 + n,  mu_n - m0 = n a / kappa_n,
 *   Psi_n = Psi0 + W + kappa0 n / kappa_n a a'
 * (Murphy 2007, NIW section; equal to (A) applied member by member, since
 * sum (x - m0)(x - m0)' = W + n a a'), factored once. */
static void mcx_niw_stats_moments(const void *hp, double *s, const double *mo)
{
    const niw_hyper *h = hp;
    int d = h->d;
    size_t dd = (size_t) d * d;
    double n = mo[0];
    stats_reset(hp, s);
    if (n == 0.0) return;
    const double *xbar = mo + 1, *W = mo + 1 + 2 * (size_t) d, *m0 = H_M0(h);
    double ku = h->kappa0 + n, c = h->kappa0 * n / ku;
    double *mu = S_MU(s, d), *psi = S_PSI(s, d), *L = S_L(s, d);
    for (int i = 0; i < d; i++) mu[i] = xbar[i] - m0[i];
    for (int j = 0; j < d; j++)
        for (int i = 0; i < d; i++)
            psi[i + (size_t) j * d] += W[i + (size_t) j * d] + c * mu[i] * mu[j];
    for (int i = 0; i < d; i++) mu[i] *= n / ku;
    memcpy(L, psi, dd * sizeof(double));
    if (mcx_chol(L, d) != 0) refactor(h, psi, L);
    s[S_N] = n;
    s[S_KAPPA] = ku;
    s[S_NU] = h->nu0 + n;
    lg_direct(s + S_LA0, s[S_NU], d);
    refresh(h, s);
}

/* The quadratic form r of x in the cluster's predictive scale matrix
 * (the Student-t's Mahalanobis distance before the kappa scaling), shared by
 * log_predictive() and its bound. */
static double predictive_quad(const niw_hyper *h, const double *s, const double *x, double *work)
{
    int d = h->d;
    const double *mu = S_MU(s, d), *m0 = H_M0(h);
    if (d == 1) {
        double w = x[0] - m0[0] - mu[0];
        return w * w / S_PSI(s, d)[0];
    }
    for (int i = 0; i < d; i++) work[i] = x[i] - m0[i] - mu[i];
    return mcx_tri_quad(S_L(s, d), work, work, d);
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const double *s = sp;
    double r = predictive_quad(hp, s, x, work);
    return s[S_CONST] - s[S_POW] * log1p(s[S_RSCALE] * r);
}

/* An upper bound on log_predictive() without a logarithm or (usually) a
 * division: with y = kappa_n r / (kappa_n + 1) >= 0, log1p(y) >= 2 y /
 * (2 + y) (the two sides agree at y = 0 and the derivative of the left
 * side, 1 / (1 + y), is at least that of the right side, 4 / (2 + y)^2,
 * since (2 + y)^2 >= 4 (1 + y)), and for y < 1, the usual case (y is the
 * Mahalanobis distance over the cluster's size), y / (2 + y) >= y / 2 -
 * y^2 / 4 (their difference is y^3 / (4 (2 + y))), so
 *   log p(x) = C - (nu_n + 1)/2 log1p(y) <= C - (nu_n + 1) g(y),
 * g(y) = y / 2 - y^2 / 4 for y < 1, else y / (2 + y).  Tight near the
 * cluster's mean; for far points it still falls like nu_n, i.e. like the
 * cluster's size. */
static inline double bound_at(const double *s, double r)
{
    double y = s[S_RSCALE] * r;
    double g = y < 1.0 ? y * (0.5 - 0.25 * y) : y / (2.0 + y);
    return s[S_CONST] - 2.0 * s[S_POW] * g;
}

/* The largest of `init` and log_count[size[k]] + the bound above over the
 * K clusters' stats (stats + k stride) other than `skip`, in one call: the
 * collapsed Gibbs scan bounds the clusters other than a point's own with
 * it, to keep the point there without evaluating them (mixture_dp.c).  At
 * d = 2 the quadratic form is taken over its common denominator (one
 * division instead of two). */
static double mcx_niw_log_predictive_bound_max(const void *hp, const double *stats, size_t stride,
                                        int K, int skip, const int *size,
                                        const double *log_count, const double *x,
                                        double init, double *work)
{
    const niw_hyper *h = hp;
    double mb = init;
    if (h->d == 2) {
        const double *m0 = H_M0(h);
        double x0 = x[0] - m0[0], x1 = x[1] - m0[1];
        for (int k = 0; k < K; k++) {
            if (k == skip) continue;
            const double *s = stats + (size_t) k * stride, *mu = S_MU(s, 2), *L = S_L(s, 2);
            /* || L^{-1} v ||^2 over the common denominator (L_00 L_11)^2 */
            double v0 = x0 - mu[0], v1 = x1 - mu[1], den = L[0] * L[3];
            double a = v0 * L[3], c = v1 * L[0] - L[1] * v0;
            double b = log_count[size[k]] + bound_at(s, (a * a + c * c) / (den * den));
            if (b > mb) mb = b;
        }
        return mb;
    }
    for (int k = 0; k < K; k++) {
        if (k == skip) continue;
        const double *s = stats + (size_t) k * stride;
        double b = log_count[size[k]] + bound_at(s, predictive_quad(h, s, x, work));
        if (b > mb) mb = b;
    }
    return mb;
}

/* The leave-one-out predictive by downdating a copy of the factor in
 * `work` (2 d*d + 2 d doubles): Psi' in work, its factor in work + d*d,
 * c w and scratch in the last 2 d.  The fallback of log_predictive_loo()
 * when rounding has eaten t. */
static double loo_direct(const niw_hyper *h, const double *s, const double *w, double c,
                         double *work)
{
    int d = h->d;
    size_t dd = (size_t) d * d;
    double *psi = work, *L = work + dd, *cw = work + 2 * dd, *z = cw + d;
    memcpy(psi, S_PSI(s, d), dd * sizeof(double));
    mcx_syr_full(psi, -c, w, d);                                  /* (B) */
    refactor(h, psi, L);
    for (int i = 0; i < d; i++) cw[i] = c * w[i];   /* w may be cw: scaled in place */
    double r = mcx_tri_quad(L, cw, z, d), k1 = s[S_KAPPA] - 1;
    return s[S_LOOC] + 0.5 * s[S_LOGDET] - 0.5 * mcx_chol_logdet(L, d)
        - 0.5 * s[S_NU] * log1p(k1 / (k1 + 1) * r);
}

/* t = 1 - c q of the header for a member x (w, c q's vector and factor, at
 * work + 2 d*d with d doubles after it as scratch; c in *c). */
static double loo_t(const niw_hyper *h, const double *s, const double *x, double *work,
                    double *c)
{
    int d = h->d;
    const double *mu = S_MU(s, d), *m0 = H_M0(h);
    double k = s[S_KAPPA], *w = work + 2 * (size_t) d * d;
    *c = k / (k - 1);
    for (int i = 0; i < d; i++) w[i] = x[i] - m0[i] - mu[i];
    double q = d == 1 ? w[0] * w[0] / S_PSI(s, d)[0] : mcx_tri_quad(S_L(s, d), w, w + d, d);
    return 1.0 - *c * q;
}

static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const niw_hyper *h = hp;
    const double *s = sp;
    double c, t = loo_t(h, s, x, work, &c);
    if (t >= 1e-6) return s[S_LOOC] + 0.5 * (s[S_NU] - 1) * log(t);
    return loo_direct(h, s, work + 2 * (size_t) h->d * h->d, c, work);  /* w, as it expects */
}

/* A lower bound on log_predictive_loo() that needs no logarithm: for
 * 1/2 <= t <= 1, log t >= (t - 1) - (t - 1)^2 (h(t) = log t - (t - 1) +
 * (t - 1)^2 has h(1) = 0 and h'(t) = (1 - t)(1/t - 2) <= 0 there), tight
 * to second order at t = 1, i.e. for members near the cluster's mean;
 * -HUGE_VAL for t < 1/2 (outlying members, and where the exact value
 * needs the fallback).  The collapsed Gibbs scan tries its stay test with
 * it first (mixture_dp.c). */
static double mcx_niw_log_predictive_loo_lower(const void *hp, const void *sp, const double *x,
                                        double *work)
{
    const double *s = sp;
    double c, t = loo_t(hp, s, x, work, &c);
    if (!(t >= 0.5)) return -HUGE_VAL;
    return s[S_LOOC] + 0.5 * (s[S_NU] - 1) * ((t - 1.0) - (t - 1.0) * (t - 1.0));
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const niw_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    double n = s[S_N], nu = s[S_NU];
    (void) work;
    if (n == 0) return 0.0;
    return -0.5 * n * d * MCX_LOG_PI + mcx_lmvgamma(0.5 * nu, d) - h->lmvg0
        + 0.5 * h->nu0 * h->logdet0 - 0.5 * nu * s[S_LOGDET]
        + 0.5 * d * log(h->kappa0 / s[S_KAPPA]);
}

static size_t param_size(const void *hp)
{
    const niw_hyper *h = hp;
    return 2 * (size_t) h->d * h->d + h->d + 1;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const niw_hyper *h = hp;
    const double *s = sp;
    int d = h->d;
    size_t dd = (size_t) d * d;
    double *mean = theta, *cov = theta + d, *Lc = theta + d + dd;
    mcx_rinvwishart_chol(s[S_NU], S_L(s, d), d, cov, work);
    memcpy(Lc, cov, dd * sizeof(double));
    if (mcx_chol(Lc, d) != 0)
        mcx_error("gaussian_niw: a covariance drawn from the posterior is numerically "
                  "singular; the scale hyperparameter may be badly scaled");
    mcx_rmvnorm_chol(NULL, Lc, d, mean);
    double sk = 1.0 / sqrt(s[S_KAPPA]);
    const double *mu = S_MU(s, d), *m0 = H_M0(h);
    for (int i = 0; i < d; i++) mean[i] = m0[i] + mu[i] + sk * mean[i];
    theta[d + 2 * dd] = -0.5 * d * MCX_LOG_2PI - 0.5 * mcx_chol_logdet(Lc, d);
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const niw_hyper *h = hp;
    int d = h->d;
    size_t dd = (size_t) d * d;
    for (int i = 0; i < d; i++) work[i] = x[i] - theta[i];
    return theta[d + 2 * dd] - 0.5 * mcx_tri_quad(theta + d + dd, work, work, d);
}

/* out[k] = add[k] + log_lik(theta_k, x) for the K parameter vectors
 * theta + k psize, x's coordinate t at x[t * xstep]: the label pass of the
 * sub-cluster sampler (family_registry.h, mcx_family_log_lik_all()), log_lik()'s
 * operations in the same order (the same values, bit for bit) without a
 * call and a copy of x per cluster. */
static void mcx_niw_log_lik_all(const void *hp, const double *theta, size_t psize, int K,
                         const double *x, size_t xstep, const double *add, double *out,
                         double *work)
{
    const niw_hyper *h = hp;
    int d = h->d;
    size_t dd = (size_t) d * d;
    if (d == 2) {
        double x0 = x[0], x1 = x[xstep];
        for (int k = 0; k < K; k++) {
            const double *th = theta + (size_t) k * psize, *L = th + 6;
            double z0 = (x0 - th[0]) / L[0], z1 = ((x1 - th[1]) - L[1] * z0) / L[3];
            out[k] = add[k] + (th[10] - 0.5 * (z0 * z0 + z1 * z1));
        }
        return;
    }
    for (int k = 0; k < K; k++) {
        const double *th = theta + (size_t) k * psize;
        for (int i = 0; i < d; i++) work[i] = x[i * xstep] - th[i];
        out[k] = add[k] + (th[d + 2 * dd] - 0.5 * mcx_tri_quad(th + d + dd, work, work, d));
    }
}

MCX_CONJUGATE_FAMILY_FAST(gaussian_niw, stats_combine, log_predictive_loo);

/* pure C, with the fast paths of the collapsed scan (bounds), of the
 * sub-cluster sampler (statistics from raw moments, all log-likelihoods
 * at once) and the gaussian_diag surrogate of the split-merge proposals */
const mcx_family_caps mcx_caps_gaussian_niw = {
    .thread_safe = 1,
    .predictive_bound_max = mcx_niw_log_predictive_bound_max,
    .predictive_loo_lower = mcx_niw_log_predictive_loo_lower,
    .stats_moments = mcx_niw_stats_moments,
    .log_lik_all = mcx_niw_log_lik_all,
    .surrogate = &mcx_family_gaussian_diag,
    .surrogate_hyper = mcx_niw_diag_marginals
};
