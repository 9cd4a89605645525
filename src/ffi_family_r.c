/*
 * ffi_family_r.c -- the R-function component family (r_family(),
 * R/family_r.R): a family descriptor registered like any other
 * (mcx_family_r_family, ffi.h), whose slots call back into R, so it lives
 * in the glue layer.  Its hyperparameters are not numbers but the R
 * functions: R hands them as a list in place of the numeric `hyper`
 * vector, and ffi_family_open() (ffi_family.c) builds the hyper block with
 * ffi_family_r_hyper() below.  The hyper block is read-only (it holds a
 * pointer to the call context); scratch lives in `work`.
 *
 * The user gives log_lik(x, theta), log_prior(theta), prior_draw() and a
 * parameter move.  R wraps them as functions of one numeric vector (log_lik
 * of c(theta, x)), called here through the safe calls of ffi_target_r.c
 * (mcx_rfun: call objects built once, type and length checks with a message
 * naming the function).  NaN and +Inf values are refused here.
 *
 * The family is non-conjugate: stats are only the member count, and
 * param_update is a Markov move on theta that leaves
 *   p(theta | members) prop. to p(theta) prod_r f(x_r | theta)
 * invariant: either one univariate slice-sampling scan over the
 * coordinates (stepping out with width w, then shrinkage; Neal 2003,
 * "Slice sampling", Ann. Statist. 31, sec. 4, figs. 3 and 5), or one
 * random-walk Metropolis step per coordinate with N(0, w^2) proposals;
 * repeated n_update times.
 */
#include <string.h>
#include "mcmix_engine.h"
#include "ffi_target_r.h"
#include "ffi_list.h"
#include "ffi.h"

/* The calls into R (mutable: a call's argument vector may be replaced). */
typedef struct {
    mcx_rfun ll, lp, pd;
    long iter;
} r_calls;

/* The hyper block (read-only once built).  work: v = c(theta, x) (psize +
 * dim doubles), then t = a trial theta (psize). */
typedef struct {
    int dim, psize, method, n_update;   /* method 0: slice, 1: random-walk MH */
    double width;
    r_calls *calls;
} r_ctx;

static double checked(double v, const char *what)
{
    if (ISNAN(v) || v == R_PosInf)
        mcx_error("`%s` must return a finite number or -Inf, not %s.", what,
                  ISNAN(v) ? "NaN" : "Inf");
    return v;
}

static size_t rf_hyper_size(int dim) { (void) dim; return MCX_DOUBLES(sizeof(r_ctx)); }
static int rf_hyper_init(void *h, int dim, const double *v, int n)
{
    (void) h; (void) dim; (void) v; (void) n;
    return 1;   /* not from numbers: built by ffi_family_r_hyper() */
}
static size_t rf_work_size(const void *h)
{
    const r_ctx *c = h;
    return (size_t) (2 * c->psize + c->dim);
}
static size_t rf_stats_size(const void *h) { (void) h; return 1; }
static void rf_stats_reset(const void *h, void *s) { (void) h; *(double *) s = 0.0; }
static void rf_stats_add(const void *h, void *s, const double *x, double *w)
{
    (void) h; (void) x; (void) w;
    *(double *) s += 1.0;
}
static void rf_stats_remove(const void *h, void *s, const double *x, double *w)
{
    (void) h; (void) x; (void) w;
    *(double *) s -= 1.0;
}
static size_t rf_param_size(const void *h) { return (size_t) ((const r_ctx *) h)->psize; }

static void rf_param_draw(const void *h, const void *stats, double *theta, double *w)
{
    (void) stats; (void) w;
    const r_ctx *c = h;
    double dummy = 0.0;
    mcx_rfun_vector(&c->calls->pd, &dummy, NULL, theta, c->psize);
}

static double rf_log_lik(const void *h, const double *theta, const double *x, double *w)
{
    const r_ctx *c = h;
    double *v = w;
    memcpy(v, theta, (size_t) c->psize * sizeof(double));
    memcpy(v + c->psize, x, (size_t) c->dim * sizeof(double));
    return checked(mcx_rfun_number(&c->calls->ll, v, NULL), "log_lik");
}

/* log p(theta) + sum_r log f(x_r | theta) */
static double log_post(const r_ctx *c, const double *theta, const double *x, int n,
                       double *w)
{
    double lp = checked(mcx_rfun_number(&c->calls->lp, theta, NULL), "log_prior");
    for (int r = 0; r < n && lp > R_NegInf; r++)
        lp += rf_log_lik(c, theta, x + (size_t) r * c->dim, w);
    return lp;
}

static void rf_param_update(const void *h, const void *stats, double *theta,
                            const double *x, int n, double *w)
{
    (void) stats;
    const r_ctx *c = h;
    int p = c->psize;
    double *trial = w + c->psize + c->dim;
    double cur = log_post(c, theta, x, n, w);
    if (!(cur > R_NegInf))
        mcx_error("the log posterior of a cluster's parameter is -Inf at the current "
                  "value: `prior_draw` must give values where `log_prior` and `log_lik` "
                  "are finite.");
    for (int rep = 0; rep < c->n_update; rep++) {
        for (int j = 0; j < p; j++) {
            memcpy(trial, theta, (size_t) p * sizeof(double));
            if (c->method == 1) {
                trial[j] = theta[j] + c->width * norm_rand();
                double prop = log_post(c, trial, x, n, w);
                if (log(unif_rand()) < prop - cur) {
                    theta[j] = trial[j];
                    cur = prop;
                }
                continue;
            }
            double y = cur - exp_rand();
            double lo = theta[j] - c->width * unif_rand(), hi = lo + c->width;
            for (int s = 0; s < 20; s++) {       /* stepping out */
                trial[j] = lo;
                if (!(log_post(c, trial, x, n, w) > y)) break;
                lo -= c->width;
            }
            for (int s = 0; s < 20; s++) {
                trial[j] = hi;
                if (!(log_post(c, trial, x, n, w) > y)) break;
                hi += c->width;
            }
            for (;;) {                           /* shrinkage */
                double prop = lo + (hi - lo) * unif_rand();
                trial[j] = prop;
                double lpp = log_post(c, trial, x, n, w);
                if (lpp > y) {
                    theta[j] = prop;
                    cur = lpp;
                    break;
                }
                if (prop < theta[j]) lo = prop; else hi = prop;
                if (hi - lo < 1e-12 * (1.0 + fabs(theta[j]))) break;
            }
        }
    }
}

const mcx_family mcx_family_r_family = {
    MCX_ABI_VERSION, "r_family",
    rf_hyper_size, rf_hyper_init, rf_work_size,
    rf_stats_size, rf_stats_reset, rf_stats_add, rf_stats_remove,
    NULL, NULL,
    rf_param_size, rf_param_draw, rf_log_lik,
    rf_param_update,
    NULL, NULL                /* no speed slots (ABI 4) */
};

const void *ffi_family_r_hyper(SEXP rfam, int dim, int *nprot)
{
    r_ctx *c = mcx_alloc(1, sizeof(r_ctx));
    r_calls *k = mcx_alloc(1, sizeof(r_calls));
    memset(c, 0, sizeof *c);
    memset(k, 0, sizeof *k);
    c->dim = dim;
    c->psize = mcx_list_count(rfam, "psize");
    c->method = mcx_list_count(rfam, "method");
    c->n_update = mcx_list_count(rfam, "n_update");
    c->width = mcx_list_num(rfam, "width");
    if (c->psize < 1 || c->method < 0 || c->method > 1 || c->n_update < 1 ||
        !(c->width > 0.0) || mcx_list_count(rfam, "dim") != dim)
        MCX_INTERNAL("bad R family settings");
    c->calls = k;
    *nprot += mcx_rfun_open(&k->ll, mcx_list_elt(rfam, "log_lik"), 1, c->psize + dim,
                            R_NilValue, MCX_CB_LOG_LIK, "log_lik", &k->iter, 0);
    *nprot += mcx_rfun_open(&k->lp, mcx_list_elt(rfam, "log_prior"), 1, c->psize,
                            R_NilValue, MCX_CB_LOG_PRIOR, "log_prior", &k->iter, 0);
    *nprot += mcx_rfun_open(&k->pd, mcx_list_elt(rfam, "prior_draw"), 1, 1, R_NilValue,
                            MCX_CB_PROPOSAL_DRAW, "prior_draw", &k->iter, 1);
    return c;
}
