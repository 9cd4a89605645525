/*
 * family_r.c -- the R-function component family (see family_r.h).
 *
 * The user gives log_lik(x, theta), log_prior(theta), prior_draw() and a
 * parameter move.  R wraps them as functions of one numeric vector (log_lik
 * of c(theta, x)), called here through the safe calls of target_r.c
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
#include "family_r.h"
#include "target_r.h"

typedef struct {
    int dim, psize, method, n_update;   /* method 0: slice, 1: random-walk MH */
    double width;
    mcx_rfun ll, lp, pd;
    long iter;
    double *v;       /* psize + dim: c(theta, x) */
    double *t;       /* psize: a trial theta */
} r_ctx;

static double checked(double v, const char *what)
{
    if (ISNAN(v) || v == R_PosInf)
        mcx_error("`%s` must return a finite number or -Inf, not %s.", what,
                  ISNAN(v) ? "NaN" : "Inf");
    return v;
}

static size_t rf_hyper_size(int dim) { (void) dim; return sizeof(r_ctx); }
static int rf_hyper_init(void *h, int dim, const double *v, int n)
{
    (void) h; (void) dim; (void) v; (void) n;
    return 1;   /* built by mcx_r_family_open() only */
}
static size_t rf_work_size(const void *h) { (void) h; return 1; }
static size_t rf_stats_size(const void *h) { (void) h; return sizeof(double); }
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
    r_ctx *c = (r_ctx *) h;
    double dummy = 0.0;
    mcx_rfun_vector(&c->pd, &dummy, NULL, theta, c->psize);
}

static double rf_log_lik(const void *h, const double *theta, const double *x, double *w)
{
    (void) w;
    r_ctx *c = (r_ctx *) h;
    memcpy(c->v, theta, (size_t) c->psize * sizeof(double));
    memcpy(c->v + c->psize, x, (size_t) c->dim * sizeof(double));
    return checked(mcx_rfun_number(&c->ll, c->v, NULL), "log_lik");
}

/* log p(theta) + sum_r log f(x_r | theta) */
static double log_post(r_ctx *c, const double *theta, const double *x, int n)
{
    double lp = checked(mcx_rfun_number(&c->lp, theta, NULL), "log_prior");
    for (int r = 0; r < n && lp > R_NegInf; r++)
        lp += rf_log_lik(c, theta, x + (size_t) r * c->dim, NULL);
    return lp;
}

static void rf_param_update(const void *h, const void *stats, double *theta,
                            const double *x, int n, double *w)
{
    (void) stats; (void) w;
    r_ctx *c = (r_ctx *) h;
    int p = c->psize;
    double cur = log_post(c, theta, x, n);
    if (!(cur > R_NegInf))
        mcx_error("the log posterior of a cluster's parameter is -Inf at the current "
                  "value: `prior_draw` must give values where `log_prior` and `log_lik` "
                  "are finite.");
    for (int rep = 0; rep < c->n_update; rep++) {
        for (int j = 0; j < p; j++) {
            memcpy(c->t, theta, (size_t) p * sizeof(double));
            if (c->method == 1) {
                c->t[j] = theta[j] + c->width * norm_rand();
                double prop = log_post(c, c->t, x, n);
                if (log(unif_rand()) < prop - cur) {
                    theta[j] = c->t[j];
                    cur = prop;
                }
                continue;
            }
            double y = cur - exp_rand();
            double lo = theta[j] - c->width * unif_rand(), hi = lo + c->width;
            for (int s = 0; s < 20; s++) {       /* stepping out */
                c->t[j] = lo;
                if (!(log_post(c, c->t, x, n) > y)) break;
                lo -= c->width;
            }
            for (int s = 0; s < 20; s++) {
                c->t[j] = hi;
                if (!(log_post(c, c->t, x, n) > y)) break;
                hi += c->width;
            }
            for (;;) {                           /* shrinkage */
                double prop = lo + (hi - lo) * unif_rand();
                c->t[j] = prop;
                double lpp = log_post(c, c->t, x, n);
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

static const mcx_family r_family_desc = {
    MCX_ABI_VERSION, "r_family",
    rf_hyper_size, rf_hyper_init, rf_work_size,
    rf_stats_size, rf_stats_reset, rf_stats_add, rf_stats_remove,
    NULL, NULL,
    rf_param_size, rf_param_draw, rf_log_lik,
    rf_param_update
};

static SEXP rfam_elt(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || names == R_NilValue) MCX_INTERNAL("rfam is not a named list");
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0) return VECTOR_ELT(list, i);
    MCX_INTERNAL("rfam lacks an element");
    return R_NilValue;
}

int mcx_r_family_open(SEXP rfam, int dim, const mcx_family **fam, const void **hyper)
{
    r_ctx *c = mcx_alloc(1, sizeof(r_ctx));
    memset(c, 0, sizeof *c);
    c->dim = dim;
    c->psize = Rf_asInteger(rfam_elt(rfam, "psize"));
    c->method = Rf_asInteger(rfam_elt(rfam, "method"));
    c->n_update = Rf_asInteger(rfam_elt(rfam, "n_update"));
    c->width = Rf_asReal(rfam_elt(rfam, "width"));
    if (c->psize < 1 || c->method < 0 || c->method > 1 || c->n_update < 1 ||
        !(c->width > 0.0) || Rf_asInteger(rfam_elt(rfam, "dim")) != dim)
        MCX_INTERNAL("bad R family settings");
    c->v = mcx_alloc((size_t) (c->psize + dim), sizeof(double));
    c->t = mcx_alloc((size_t) c->psize, sizeof(double));
    int np = 0;
    np += mcx_rfun_open(&c->ll, rfam_elt(rfam, "log_lik"), 1, c->psize + dim, R_NilValue,
                        MCX_CB_LOG_LIK, "log_lik", &c->iter, 0);
    np += mcx_rfun_open(&c->lp, rfam_elt(rfam, "log_prior"), 1, c->psize, R_NilValue,
                        MCX_CB_LOG_PRIOR, "log_prior", &c->iter, 0);
    np += mcx_rfun_open(&c->pd, rfam_elt(rfam, "prior_draw"), 1, 1, R_NilValue,
                        MCX_CB_PROPOSAL_DRAW, "prior_draw", &c->iter, 1);
    *fam = &r_family_desc;
    *hyper = c;
    return np;
}
