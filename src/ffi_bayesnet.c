/*
 * ffi_bayesnet.c -- .Call glue of the discrete factor models and Bayesian
 * networks (R/bayesnet.R; engine model_bayesnet.c, annealing driver in
 * partition_map.c).
 *
 * spec = list(card, fac_ptr, scope, stride, tab_ptr, logtab, blk_ptr,
 *             blk_var, blk_fac_ptr, blk_fac, blk_nval, blk_val_ptr, blk_val,
 *             hidden), all 0-based integer
 * vectors (logtab double) laid out as in model_bayesnet.h; `hidden` lists
 * the variables reported in the traces.  The index ranges are re-checked
 * here so that a corrupted spec is an error, never a wild read.
 */
#include <string.h>
#include "model_bayesnet.h"
#include "partition_map.h"
#include "model.h"
#include "ffi_list.h"
#include "ffi_textbook.h"

static const int *ints(SEXP spec, const char *name, R_xlen_t *len)
{
    SEXP v = mcx_list_elt(spec, name);
    if (TYPEOF(v) != INTSXP) mcx_error("mcmix internal error: '%s' must be integer", name);
    *len = XLENGTH(v);
    return INTEGER(v);
}

static void check_ptr(const int *ptr, R_xlen_t n_ptr, R_xlen_t n_items, const char *what)
{
    if (n_ptr < 1 || ptr[0] != 0 || ptr[n_ptr - 1] != n_items)
        mcx_error("mcmix internal error: bad %s offsets", what);
    for (R_xlen_t i = 1; i < n_ptr; i++)
        if (ptr[i] < ptr[i - 1]) mcx_error("mcmix internal error: bad %s offsets", what);
}

static void check_range(const int *v, R_xlen_t n, int hi, const char *what)
{
    for (R_xlen_t i = 0; i < n; i++)
        if (v[i] < 0 || v[i] >= hi) mcx_error("mcmix internal error: %s out of range", what);
}

static void read_spec(SEXP spec, mcx_bn *m)
{
    R_xlen_t nv, nf, ns, nst, ntp, nb, nbv, nbf, nbfi, nbn, nbvp, nval;
    memset(m, 0, sizeof *m);
    m->card = ints(spec, "card", &nv);
    m->fac_ptr = ints(spec, "fac_ptr", &nf);
    m->scope = ints(spec, "scope", &ns);
    m->stride = ints(spec, "stride", &nst);
    m->tab_ptr = ints(spec, "tab_ptr", &ntp);
    SEXP lt = mcx_list_elt(spec, "logtab");
    if (TYPEOF(lt) != REALSXP) MCX_INTERNAL("logtab must be double");
    m->logtab = REAL(lt);
    m->blk_ptr = ints(spec, "blk_ptr", &nb);
    m->blk_var = ints(spec, "blk_var", &nbv);
    m->blk_fac_ptr = ints(spec, "blk_fac_ptr", &nbf);
    m->blk_fac = ints(spec, "blk_fac", &nbfi);
    m->blk_nval = ints(spec, "blk_nval", &nbn);
    m->blk_val_ptr = ints(spec, "blk_val_ptr", &nbvp);
    m->blk_val = ints(spec, "blk_val", &nval);
    m->nvar = (int) nv;
    m->nfac = (int) nf - 1;
    m->nblock = (int) nb - 1;
    if (nst != ns || ntp != nf || nbf != nb || nbn != nb - 1 || nbvp != nb)
        MCX_INTERNAL("inconsistent model spec");
    for (R_xlen_t v = 0; v < nv; v++) if (m->card[v] < 1) MCX_INTERNAL("bad cardinality");
    check_ptr(m->fac_ptr, nf, ns, "factor");
    check_ptr(m->tab_ptr, ntp, XLENGTH(lt), "table");
    check_ptr(m->blk_ptr, nb, nbv, "block");
    check_ptr(m->blk_fac_ptr, nbf, nbfi, "block factor");
    check_range(m->scope, ns, m->nvar, "scope variable");
    check_range(m->blk_var, nbv, m->nvar, "block variable");
    check_range(m->blk_fac, nbfi, m->nfac, "block factor");
    check_ptr(m->blk_val_ptr, nbvp, nval, "block value");
    for (int b = 0; b < m->nblock; b++) {    /* each block: nval rows of valid values */
        int k = m->blk_ptr[b + 1] - m->blk_ptr[b];
        if (k < 1 || m->blk_nval[b] < 1 ||
            (double) m->blk_nval[b] * k != (double) (m->blk_val_ptr[b + 1] - m->blk_val_ptr[b]))
            MCX_INTERNAL("bad block values");
        for (int i = m->blk_val_ptr[b]; i < m->blk_val_ptr[b + 1]; i++) {
            int v = m->blk_var[m->blk_ptr[b] + (i - m->blk_val_ptr[b]) % k];
            if (m->blk_val[i] < 0 || m->blk_val[i] >= m->card[v])
                MCX_INTERNAL("block value out of range");
        }
    }
    for (int f = 0; f < m->nfac; f++) {      /* the strides must fit the table */
        double last = 0.0;
        for (int j = m->fac_ptr[f]; j < m->fac_ptr[f + 1]; j++)
            last += (double) (m->card[m->scope[j]] - 1) * m->stride[j];
        if (last >= m->tab_ptr[f + 1] - m->tab_ptr[f]) MCX_INTERNAL("factor table too short");
    }
    mcx_bn_setup(m);
}

static int *state_copy(const mcx_bn *m, SEXP x)
{
    if (TYPEOF(x) != INTSXP || XLENGTH(x) != m->nvar) MCX_INTERNAL("bad state");
    for (int v = 0; v < m->nvar; v++)
        if (INTEGER(x)[v] < 0 || INTEGER(x)[v] >= m->card[v]) MCX_INTERNAL("state out of range");
    int *out = mcx_alloc((size_t) m->nvar, sizeof(int));
    memcpy(out, INTEGER(x), (size_t) m->nvar * sizeof(int));
    return out;
}

/* Gibbs chunk: state = list(x); ctrl = c(n, thin, offset, warmup).
 * Returns list(state, traces = kept x (hidden + 1): 1-based values of the
 * hidden variables and log_prob, the log of the product of the factors). */
SEXP ffi_bn_step(SEXP spec, SEXP state, SEXP ctrl)
{
    mcx_bn m;
    read_spec(spec, &m);
    R_xlen_t nh;
    const int *hidden = ints(spec, "hidden", &nh);
    check_range(hidden, nh, m.nvar, "hidden variable");
    mcx_chunk ch = mcx_chunk_read(ctrl);
    int *x = state_copy(&m, mcx_list_elt(state, "x"));
    int nk = ch.n_kept;
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, nk, (int) nh + 1));
    double *tr = REAL(traces);
    GetRNGstate();
    int r = 0;
    for (int g = ch.offset + 1; g <= ch.offset + ch.n; g++) {
        mcx_bn_sweep(&m, x, 1.0);
        if (mcx_chunk_keeps(&ch, g)) {
            for (R_xlen_t h = 0; h < nh; h++) tr[r + h * nk] = x[hidden[h]] + 1;
            tr[r + nh * nk] = mcx_bn_log_joint(&m, x);
            r++;
        }
        if (g < ch.offset + ch.n) mcx_interrupt_point(m.sweep_work);
    }
    PutRNGstate();
    SEXP xs = PROTECT(Rf_allocVector(INTSXP, m.nvar));
    memcpy(INTEGER(xs), x, (size_t) m.nvar * sizeof(int));
    const char *sn[] = {"x", NULL};
    SEXP st = PROTECT(mcx_named_list(sn, &xs));
    const char *on[] = {"state", "traces", NULL};
    const SEXP ov[] = {st, traces};
    SEXP out = mcx_named_list(on, ov);
    UNPROTECT(3);
    return out;
}

typedef struct { const mcx_bn *m; int *x, *best; } bn_ctx;

static void bn_sweep(void *ctx, double power)
{
    bn_ctx *c = ctx;
    mcx_bn_sweep(c->m, c->x, power);
}
static double bn_log_post(void *ctx)
{
    bn_ctx *c = ctx;
    return mcx_bn_log_joint(c->m, c->x);
}
static void bn_save(void *ctx)
{
    bn_ctx *c = ctx;
    memcpy(c->best, c->x, (size_t) c->m->nvar * sizeof(int));
}

/* Annealing then ICM from x0: list(x = best state, log_prob, trace). */
SEXP ffi_bn_anneal(SEXP spec, SEXP x0, SEXP schedule, SEXP max_icm_)
{
    mcx_bn m;
    read_spec(spec, &m);
    if (TYPEOF(schedule) != REALSXP || TYPEOF(max_icm_) != INTSXP || XLENGTH(max_icm_) != 1 ||
        INTEGER(max_icm_)[0] < 0)
        MCX_INTERNAL("bad schedule");
    int ns = (int) XLENGTH(schedule), max_icm = INTEGER(max_icm_)[0];
    int *x = state_copy(&m, x0);
    SEXP best = PROTECT(Rf_allocVector(INTSXP, m.nvar));
    SEXP trace = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) ns + max_icm));
    bn_ctx ctx = {&m, x, INTEGER(best)};
    mcx_icm_problem p = {&ctx, bn_sweep, bn_log_post, bn_save, m.sweep_work};
    double best_lp;
    GetRNGstate();
    int done = mcx_icm_run(&p, REAL(schedule), ns, max_icm, REAL(trace), &best_lp);
    PutRNGstate();
    SEXP tr = PROTECT(Rf_lengthgets(trace, done));
    SEXP lp = PROTECT(Rf_ScalarReal(best_lp));
    const char *on[] = {"x", "log_prob", "trace", NULL};
    const SEXP ov[] = {best, lp, tr};
    SEXP out = mcx_named_list(on, ov);
    UNPROTECT(4);
    return out;
}
