/*
 * family_product.c -- the product family: a combinator over family
 * descriptors.  An observation x (length d) is cut into consecutive blocks,
 * block b modelled by its own registered family f_b (built-in or plugin),
 * the blocks independent given the cluster:
 *   p(x | theta) = prod_b f_b(x_b | theta_b),   theta_b independent a priori.
 * Hence every cluster quantity is the concatenation or the sum of the
 * parts' ones: stats block = parts' stats blocks side by side, log
 * predictive / log marginal / log likelihood = sum over the parts, theta =
 * parts' thetas side by side.
 *
 * Missing values (NaN): a block with a NaN coordinate is missing for that
 * observation and contributes nothing (stats_add/remove skip it,
 * log_predictive/log_lik add 0).  Since the parts are independent given
 * the cluster, this is exact marginalisation of the missing block: each
 * part's stats hold only the observations where it was seen, so its own
 * count n is the per-block count.  The R side (R/product_family.R) makes
 * per-coordinate missingness exact by giving coordinate-separable families
 * (gaussian_diag, bernoulli_beta, poisson_gamma) one part per column, marks a
 * missing categorical observation by a row of NaN, and imputes missing
 * coordinates of joint Gaussian blocks (R/impute.R) so they are never NaN
 * here.
 *
 * Hyperparameter vector (built by R, family_hyper.mcmix_family_product):
 *   c(n_parts, then per part: len, utf-8 codes of the part's family name
 *     [len], dim_b, n_b, hyper_b[n_b])
 * Names rather than registry positions, so a saved fit resumes whatever
 * order plugins are registered in.  The block of parsed parts is variable
 * in size, so hyper_size() gives the fixed header and hyper_init() puts the
 * parts (and their own hyper blocks) in memory from mcx_alloc(), which
 * lives as long as the hyper block itself (until the .Call returns).
 */
#include <string.h>
#include "family_common.h"

#define PF_MAX_NAME 256
#define PF_MAX_PARTS 100000

typedef struct {
    const mcx_family *f;
    const void *hyper;
    int off, dim;          /* coordinates off .. off + dim - 1 of x */
    size_t soff;           /* offset of its stats block, in doubles */
    size_t poff;           /* offset of its theta, in doubles */
} pf_part;

typedef struct {
    int d, n_parts;
    size_t stats_len;      /* doubles */
    size_t param_len;      /* doubles */
    size_t work_len;       /* doubles: the largest part's scratch */
    pf_part *parts;
} pf_hyper;

static size_t hyper_size(int dim)
{
    (void) dim;
    return MCX_DOUBLES(sizeof(pf_hyper));
}

/* Read a whole number in [lo, hi] from the vector; -1 when it is not one. */
static long read_int(const double *val, int n_val, int *pos, long lo, long hi)
{
    if (*pos >= n_val) return -1;
    double v = val[(*pos)++];
    if (!(v >= lo && v <= hi) || v != floor(v)) return -1;
    return (long) v;
}

/* Codes: 1 malformed vector, 2 unknown part family, 3 part dims do not add
 * up to dim, 4 a part refused its hyperparameters, 5 a part is not
 * conjugate. */
static int hyper_init(void *hp, int d, const double *val, int n_val)
{
    pf_hyper *h = hp;
    int pos = 0;
    long np = read_int(val, n_val, &pos, 1, PF_MAX_PARTS);
    if (d < 1 || np < 1) return 1;
    h->d = d;
    h->n_parts = (int) np;
    h->parts = mcx_alloc((size_t) np, sizeof(pf_part));
    h->stats_len = h->param_len = h->work_len = 0;
    int off = 0;
    for (int b = 0; b < np; b++) {
        pf_part *p = h->parts + b;
        char name[PF_MAX_NAME + 1];
        long len = read_int(val, n_val, &pos, 1, PF_MAX_NAME);
        if (len < 1 || pos + len > n_val) return 1;
        for (long c = 0; c < len; c++) {
            double ch = val[pos++];
            if (!(ch >= 1 && ch <= 255)) return 1;
            name[c] = (char) (int) ch;
        }
        name[len] = '\0';
        long dim = read_int(val, n_val, &pos, 1, d);
        long nv = read_int(val, n_val, &pos, 0, n_val);
        if (dim < 1 || nv < 0 || pos + nv > n_val) return 1;
        p->f = mcx_find_family(name);
        if (p->f == NULL) return 2;
        if (!mcx_family_conjugate(p->f)) return 5;
        if (off + dim > d) return 3;
        void *ph = mcx_alloc(mcx_family_hyper_doubles(p->f, (int) dim) + 1, sizeof(double));
        if (p->f->hyper_init(ph, (int) dim, val + pos, (int) nv) != 0) return 4;
        pos += (int) nv;
        p->hyper = ph;
        p->off = off;
        p->dim = (int) dim;
        p->soff = h->stats_len;
        p->poff = h->param_len;
        off += (int) dim;
        h->stats_len += mcx_family_stats_doubles(p->f, ph);
        h->param_len += p->f->param_size(ph);
        size_t w = p->f->work_size(ph);
        if (w > h->work_len) h->work_len = w;
    }
    if (off != d || pos != n_val) return off != d ? 3 : 1;
    return 0;
}

/* The largest part's stats block, in doubles. */
static size_t max_part_stats(const pf_hyper *h)
{
    size_t m = 0;
    for (int b = 0; b < h->n_parts; b++) {
        size_t sz = mcx_family_stats_doubles(h->parts[b].f, h->parts[b].hyper);
        if (sz > m) m = sz;
    }
    return m;
}

/* The parts' scratch (work_len), then one part's stats block for
 * log_predictive_loo(). */
static size_t work_size(const void *hp)
{
    const pf_hyper *h = hp;
    return h->work_len + max_part_stats(h);
}

static size_t stats_size(const void *hp)
{
    const pf_hyper *h = hp;
    return h->stats_len > 0 ? h->stats_len : 1;
}

static size_t param_size(const void *hp)
{
    return ((const pf_hyper *) hp)->param_len;
}

/* Block b of observation x is missing (some coordinate NaN). */
static inline int missing(const pf_part *p, const double *x)
{
    for (int j = 0; j < p->dim; j++)
        if (ISNAN(x[p->off + j])) return 1;
    return 0;
}

static void stats_reset(const void *hp, void *sp)
{
    const pf_hyper *h = hp;
    double *s = sp;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        p->f->stats_reset(p->hyper, s + p->soff);
    }
}

static void stats_add(const void *hp, void *sp, const double *x, double *work)
{
    const pf_hyper *h = hp;
    double *s = sp;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        if (!missing(p, x)) p->f->stats_add(p->hyper, s + p->soff, x + p->off, work);
    }
}

static void stats_remove(const void *hp, void *sp, const double *x, double *work)
{
    const pf_hyper *h = hp;
    double *s = sp;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        if (!missing(p, x)) p->f->stats_remove(p->hyper, s + p->soff, x + p->off, work);
    }
}

static double log_predictive(const void *hp, const void *sp, const double *x, double *work)
{
    const pf_hyper *h = hp;
    const double *s = sp;
    double lp = 0.0;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        if (!missing(p, x)) lp += p->f->log_predictive(p->hyper, s + p->soff, x + p->off, work);
    }
    return lp;
}

/* log p(x | the cluster without x) = sum over the blocks of x that are
 * not missing of the part's leave-one-out predictive (the parts are
 * independent given the cluster).  A block's own count may be 1 (x the
 * only member seen in that block): the built-in families' slots hold for
 * any count >= 1, so they are used; a plugin part (whose slot may assume
 * two members) or a part without the slot copies its stats to the scratch
 * after the parts' work, removes x and calls log_predictive. */
static double log_predictive_loo(const void *hp, const void *sp, const double *x,
                                 double *work)
{
    const pf_hyper *h = hp;
    const double *s = sp;
    double lp = 0.0, *scratch = work + h->work_len;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        if (missing(p, x)) continue;
        const double *xb = x + p->off, *sb = s + p->soff;
        mcx_predictive_loo_fn loo = mcx_family_predictive_loo(p->f);
        if (loo != NULL && mcx_family_thread_safe(p->f)) {
            lp += loo(p->hyper, sb, xb, work);
            continue;
        }
        memcpy(scratch, sb, mcx_family_stats_doubles(p->f, p->hyper) * sizeof(double));
        p->f->stats_remove(p->hyper, scratch, xb, work);
        lp += p->f->log_predictive(p->hyper, scratch, xb, work);
    }
    return lp;
}

static double log_marginal(const void *hp, const void *sp, double *work)
{
    const pf_hyper *h = hp;
    const double *s = sp;
    double lm = 0.0;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        lm += p->f->log_marginal(p->hyper, s + p->soff, work);
    }
    return lm;
}

static void param_draw(const void *hp, const void *sp, double *theta, double *work)
{
    const pf_hyper *h = hp;
    const double *s = sp;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        p->f->param_draw(p->hyper, s + p->soff, theta + p->poff, work);
    }
}

static double log_lik(const void *hp, const double *theta, const double *x, double *work)
{
    const pf_hyper *h = hp;
    double ll = 0.0;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        if (!missing(p, x)) ll += p->f->log_lik(p->hyper, theta + p->poff, x + p->off, work);
    }
    return ll;
}

/* stats := the union of its members and those of o, part by part (each
 * part's stats hold the members where it was seen, so the parts combine
 * independently).  Used only when every part can combine
 * (mcx_product_combinable()). */
static void stats_combine(const void *hp, void *sp, const void *op, double *work)
{
    const pf_hyper *h = hp;
    double *s = sp;
    const double *o = op;
    for (int b = 0; b < h->n_parts; b++) {
        const pf_part *p = h->parts + b;
        mcx_family_stats_combine(p->f)(p->hyper, s + p->soff, o + p->soff, work);
    }
}

static int mcx_product_combinable(const void *hp)
{
    const pf_hyper *h = hp;
    for (int b = 0; b < h->n_parts; b++)
        if (mcx_family_stats_combine(h->parts[b].f) == NULL) return 0;
    return 1;
}

/* every part is conjugate: so is the product */
MCX_CONJUGATE_FAMILY_FAST(product, stats_combine, log_predictive_loo);

/* not thread-safe: its parts may be plugins; combines only when every
 * part does */
const mcx_family_caps mcx_caps_product = { .thread_safe = 0,
                                           .combinable = mcx_product_combinable };
