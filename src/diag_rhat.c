/*
 * diag_rhat.c -- potential scale reduction factors and the driver that
 * computes several diagnostics of one quantity sharing the sorting work.
 *
 * Rank-normalised split R-hat: Vehtari et al. (2021), Section 4.1, eqs.
 * (3)-(4) on split chains (Section 3.1), rank normalisation (eq. 14) for the
 * bulk and folding |x - median(x)| for the tails; reported R-hat = max of
 * the two. Classic: Gelman and Rubin (1992) PSRF with the (d + 3) / (d + 1)
 * correction of Brooks and Gelman (1998), as coda::gelman.diag() computes it.
 */
#include <string.h>
#include <R_ext/Arith.h>
#include "diag.h"

/* Basic R-hat of the n x m matrix x (eq. 4 of Vehtari et al. 2021). */
double mcx_rhat_split(const double *x, int n, int m)
{
    double *cm, *cv, vb, vw = 0.0;
    int c, t;
    if (n < 2 || m < 2 || mcx_diag_degenerate(x, (size_t) n * m)) return NA_REAL;
    cm = (double *) mcx_alloc((size_t) m, sizeof(double));
    cv = (double *) mcx_alloc((size_t) m, sizeof(double));
    for (c = 0; c < m; c++) {
        const double *xi = x + (size_t) c * n;
        double s = 0.0;
        for (t = 0; t < n; t++) s += xi[t];
        cm[c] = s / n;
        s = 0.0;
        for (t = 0; t < n; t++) s += (xi[t] - cm[c]) * (xi[t] - cm[c]);
        cv[c] = s / (n - 1);
        vw += cv[c];
    }
    vw /= m;
    vb = n * mcx_var(cm, m);
    return sqrt((vb / vw + n - 1.0) / n);
}

/* Sample covariance (divisor k - 1). */
static double cov2(const double *a, const double *b, int k)
{
    double ma = 0.0, mb = 0.0, s = 0.0;
    int i;
    for (i = 0; i < k; i++) { ma += a[i]; mb += b[i]; }
    ma /= k; mb /= k;
    for (i = 0; i < k; i++) s += (a[i] - ma) * (b[i] - mb);
    return s / (k - 1);
}

/* PSRF point estimate of coda::gelman.diag(autoburnin = FALSE). */
double mcx_rhat_classic(const double *x, int n, int m)
{
    double *xb, *s2, *xb2, w = 0.0, b, muhat = 0.0, var_w, var_b, cov_wb, V,
        var_V, df_V, df_adj, R2;
    double N = n, M = m;
    int c, t;
    if (n < 2 || m < 2 || mcx_diag_degenerate(x, (size_t) n * m)) return NA_REAL;
    xb = (double *) mcx_alloc((size_t) m, sizeof(double));
    xb2 = (double *) mcx_alloc((size_t) m, sizeof(double));
    s2 = (double *) mcx_alloc((size_t) m, sizeof(double));
    for (c = 0; c < m; c++) {
        const double *xi = x + (size_t) c * n;
        double s = 0.0;
        for (t = 0; t < n; t++) s += xi[t];
        xb[c] = s / n;
        s = 0.0;
        for (t = 0; t < n; t++) s += (xi[t] - xb[c]) * (xi[t] - xb[c]);
        s2[c] = s / (n - 1);
        xb2[c] = xb[c] * xb[c];
        w += s2[c];
        muhat += xb[c];
    }
    w /= M;
    muhat /= M;
    b = N * mcx_var(xb, m);
    var_w = mcx_var(s2, m) / M;
    var_b = 2.0 * b * b / (M - 1.0);
    cov_wb = (N / M) * (cov2(s2, xb2, m) - 2.0 * muhat * cov2(s2, xb, m));
    V = (N - 1.0) * w / N + (1.0 + 1.0 / M) * b / N;
    var_V = ((N - 1.0) * (N - 1.0) * var_w + (1.0 + 1.0 / M) * (1.0 + 1.0 / M) * var_b +
             2.0 * (N - 1.0) * (1.0 + 1.0 / M) * cov_wb) / (N * N);
    df_V = 2.0 * V * V / var_V;
    df_adj = (df_V + 3.0) / (df_V + 1.0);
    R2 = (N - 1.0) / N + (1.0 + 1.0 / M) * (1.0 / N) * (b / w);
    return sqrt(df_adj * R2);
}

/* Work shared between the diagnostics of one quantity. */
typedef struct {
    const double *x;
    int n, m, k;          /* k = split chain length */
    size_t len;
    int *order;           /* sort of all n m draws */
    int *skip;            /* middle draw of each chain when n is odd */
    double *zbulk, *ztail, *xsplit;
} diag_ctx;

/* Copy values given at original positions into the split layout. */
static void to_split(const diag_ctx *d, const double *v, double *out)
{
    int c, t, n = d->n, k = d->k;
    for (c = 0; c < d->m; c++) {
        const double *vi = v + (size_t) c * n;
        double *o1 = out + (size_t) (2 * c) * k, *o2 = out + (size_t) (2 * c + 1) * k;
        for (t = 0; t < k; t++) {
            o1[t] = vi[t];
            o2[t] = vi[n - k + t];
        }
    }
}

static const int *ctx_order(diag_ctx *d)
{
    if (!d->order) {
        d->order = (int *) mcx_alloc(d->len, sizeof(int));
        mcx_sort_index(d->x, d->len, d->order);
    }
    return d->order;
}

static double ctx_median(diag_ctx *d)
{
    const int *o = ctx_order(d);
    size_t h = d->len / 2;
    if (d->len % 2) return d->x[o[h]];
    return 0.5 * (d->x[o[h - 1]] + d->x[o[h]]);
}

static const double *ctx_zbulk(diag_ctx *d)
{
    if (!d->zbulk) {
        double *z = (double *) mcx_alloc(d->len, sizeof(double));
        d->zbulk = (double *) mcx_alloc((size_t) d->k * 2 * d->m, sizeof(double));
        mcx_rank_normal(d->x, d->len, ctx_order(d), d->skip, z);
        to_split(d, z, d->zbulk);
    }
    return d->zbulk;
}

static const double *ctx_ztail(diag_ctx *d)
{
    if (!d->ztail) {
        double med = ctx_median(d);
        double *f = (double *) mcx_alloc(d->len, sizeof(double));
        double *z = (double *) mcx_alloc(d->len, sizeof(double));
        int *o = (int *) mcx_alloc(d->len, sizeof(int));
        const int *ox = ctx_order(d);
        size_t i, h = 0, k;
        long lo, hi;
        for (i = 0; i < d->len; i++) f[i] = fabs(d->x[i] - med);
        /* the folded values in increasing order merge two sorted runs of
         * the sorted draws: below the median walking down, above it up */
        while (h < d->len && d->x[ox[h]] < med) h++;
        lo = (long) h - 1;
        hi = (long) h;
        for (k = 0; k < d->len; k++) {
            if (hi >= (long) d->len || (lo >= 0 && f[ox[lo]] <= f[ox[hi]]))
                o[k] = ox[lo--];
            else
                o[k] = ox[hi++];
        }
        mcx_rank_normal(f, d->len, o, d->skip, z);
        d->ztail = (double *) mcx_alloc((size_t) d->k * 2 * d->m, sizeof(double));
        to_split(d, z, d->ztail);
    }
    return d->ztail;
}

static const double *ctx_xsplit(diag_ctx *d)
{
    if (!d->xsplit) {
        d->xsplit = (double *) mcx_alloc((size_t) d->k * 2 * d->m, sizeof(double));
        to_split(d, d->x, d->xsplit);
    }
    return d->xsplit;
}

/* ESS of the indicator x <= quantile(x, p) (Vehtari et al. 2021, Sec. 4.3). */
static double ess_quantile(diag_ctx *d, double p)
{
    const int *o = ctx_order(d);
    double q, *ind, *is;
    size_t i;
    if (mcx_diag_degenerate(d->x, d->len)) return NA_REAL;
    q = mcx_quantile7(d->x, o, d->len, p);
    ind = (double *) mcx_alloc(d->len, sizeof(double));
    is = (double *) mcx_alloc((size_t) d->k * 2 * d->m, sizeof(double));
    for (i = 0; i < d->len; i++) ind[i] = d->x[i] <= q ? 1.0 : 0.0;
    to_split(d, ind, is);
    return mcx_ess_geyer(is, d->k, 2 * d->m);
}

static double sample_sd(const double *x, size_t len)
{
    double *xc;
    size_t i;
    double s = 0.0;
    if (len < 2) return NA_REAL;
    xc = (double *) mcx_alloc(len, sizeof(double));
    mcx_center(x, (int) len, xc);
    for (i = 0; i < len; i++) s += xc[i] * xc[i];
    return sqrt(s / (len - 1.0));
}

void mcx_diag_stats(const double *x, int n, int m, const int *what, int nwhat,
                    double *out)
{
    diag_ctx d;
    size_t i;
    int j, anynan = 0;
    memset(&d, 0, sizeof d);
    d.x = x;
    d.n = n;
    d.m = m;
    d.k = n / 2;
    d.len = (size_t) n * m;
    for (i = 0; i < d.len; i++) if (ISNAN(x[i])) { anynan = 1; break; }
    if (n % 2 && d.len) {
        int c;
        d.skip = (int *) mcx_alloc(d.len, sizeof(int));
        memset(d.skip, 0, d.len * sizeof(int));
        for (c = 0; c < m; c++) d.skip[(size_t) c * n + d.k] = 1;
    }
    for (j = 0; j < nwhat; j++) {
        double v = NA_REAL;
        int split_ok = !anynan && d.k >= 2;
        switch (what[j]) {
        case MCX_DIAG_RHAT_BULK:
            if (split_ok) v = mcx_rhat_split(ctx_zbulk(&d), d.k, 2 * m);
            break;
        case MCX_DIAG_RHAT_TAIL:
            if (split_ok) v = mcx_rhat_split(ctx_ztail(&d), d.k, 2 * m);
            break;
        case MCX_DIAG_RHAT:
            if (split_ok) {
                double b = mcx_rhat_split(ctx_zbulk(&d), d.k, 2 * m);
                double t = mcx_rhat_split(ctx_ztail(&d), d.k, 2 * m);
                v = (ISNAN(b) || ISNAN(t)) ? NA_REAL : (b > t ? b : t);
            }
            break;
        case MCX_DIAG_RHAT_CLASSIC:
            if (!anynan) v = mcx_rhat_classic(x, n, m);
            break;
        case MCX_DIAG_ESS_BULK:
            if (split_ok) v = mcx_ess_geyer(ctx_zbulk(&d), d.k, 2 * m);
            break;
        case MCX_DIAG_ESS_TAIL:
            if (split_ok) {
                double a = ess_quantile(&d, 0.05), b = ess_quantile(&d, 0.95);
                v = (ISNAN(a) || ISNAN(b)) ? NA_REAL : (a < b ? a : b);
            }
            break;
        case MCX_DIAG_ESS_BASIC:
            if (split_ok) v = mcx_ess_geyer(ctx_xsplit(&d), d.k, 2 * m);
            break;
        case MCX_DIAG_MCSE_MEAN:
            if (split_ok) {
                double e = mcx_ess_geyer(ctx_xsplit(&d), d.k, 2 * m);
                v = ISNAN(e) ? NA_REAL : sample_sd(x, d.len) / sqrt(e);
            }
            break;
        case MCX_DIAG_MEAN:
            if (d.len && !anynan) {
                double *xc = (double *) mcx_alloc(d.len, sizeof(double));
                v = mcx_center(x, (int) d.len, xc);
            }
            break;
        case MCX_DIAG_SD:
            if (!anynan) v = sample_sd(x, d.len);
            break;
        default:
            MCX_INTERNAL("unknown diagnostic code");
        }
        out[j] = v;
    }
}
