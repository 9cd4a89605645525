/*
 * ffi_models.c -- .Call glue of the model-specific Gibbs samplers
 * (R/probit.R, R/gp_classify.R, R/ising.R, R/hier_lm.R).
 *
 * Every entry point has the shape  ffi_<model>_step(data, state, ctrl):
 *   data  a named list of fixed inputs prepared (and validated) in R;
 *   state a named list, the chain state (not modified: a copy is advanced);
 *   ctrl  the chunk c(n, thin, offset, warmup) (chunk.h, mcx_chunk_read()).
 * and returns list(state = <advanced copy>, traces = <n_kept x p matrix>,
 * spins = <int matrix or NULL>).  Types and lengths are re-checked here;
 * a mismatch is an internal error (R validated the user's input).
 */
#include <string.h>
#include "models.h"
#include "ffi.h"
#include "ffi_list.h"

/* A copy of state element `name` (double), to be advanced in place. */
static SEXP copy_real(SEXP state, const char *name, R_xlen_t len)
{
    mcx_list_real(state, name, len);
    return Rf_duplicate(mcx_list_elt(state, name));
}

static SEXP copy_int(SEXP state, const char *name, R_xlen_t len)
{
    mcx_list_int(state, name, len);
    return Rf_duplicate(mcx_list_elt(state, name));
}

/* list(state = state, traces = traces, spins = spins) */
static SEXP step_result(SEXP state, SEXP traces, SEXP spins)
{
    const char *nms[] = {"state", "traces", "spins", NULL};
    const SEXP vals[] = {state, traces, spins};
    return mcx_named_list(nms, vals);
}

SEXP ffi_probit_step(SEXP data, SEXP state, SEXP ctrl)
{
    mcx_chunk c = mcx_chunk_read(ctrl);
    int n = mcx_list_count(data, "n"), p = mcx_list_count(data, "p");
    mcx_probit_data d = {n, p, mcx_list_real(data, "X", (R_xlen_t) n * p),
                         mcx_list_int(data, "y", n),
                         mcx_list_real(data, "prior_prec", (R_xlen_t) p * p),
                         mcx_list_real(data, "prior_lin", p)};
    SEXP st = PROTECT(Rf_shallow_duplicate(state));
    SEXP beta = PROTECT(copy_real(state, "beta", p));
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, c.n_kept, p));
    GetRNGstate();
    mcx_probit_run(&d, REAL(beta), c.n, c.thin, c.offset, c.warmup,
                   REAL(traces), c.n_kept);
    PutRNGstate();
    mcx_list_set(st, "beta", beta);
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(3);
    return out;
}

SEXP ffi_gpclass_step(SEXP data, SEXP state, SEXP ctrl)
{
    mcx_chunk c = mcx_chunk_read(ctrl);
    int n = mcx_list_count(data, "n"), m = mcx_list_count(data, "m");
    mcx_gpclass_data d = {n, m, mcx_list_int(data, "y", n),
                          mcx_list_real(data, "A", (R_xlen_t) n * n),
                          mcx_list_real(data, "S", (R_xlen_t) n * n),
                          mcx_list_real(data, "W", (R_xlen_t) n * m),
                          mcx_list_real(data, "pred_sd", m)};
    SEXP st = PROTECT(Rf_shallow_duplicate(state));
    SEXP z = PROTECT(copy_real(state, "z", n));
    SEXP f = PROTECT(copy_real(state, "f", n));
    SEXP ps = PROTECT(copy_real(state, "prob_sum", m));
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, c.n_kept, n + 1));
    double *work = mcx_alloc((size_t) 2 * n + m, sizeof(double));
    GetRNGstate();
    mcx_gpclass_run(&d, REAL(z), REAL(f), REAL(ps), c.n, c.thin, c.offset,
                    c.warmup, REAL(traces), c.n_kept, work);
    PutRNGstate();
    mcx_list_set(st, "z", z);
    mcx_list_set(st, "f", f);
    mcx_list_set(st, "prob_sum", ps);
    SEXP nk = PROTECT(Rf_ScalarInteger(mcx_list_count(state, "n_pred") + c.n_kept));
    mcx_list_set(st, "n_pred", nk);
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(6);
    return out;
}

SEXP ffi_ising_step(SEXP data, SEXP state, SEXP ctrl)
{
    mcx_chunk c = mcx_chunk_read(ctrl);
    int nrow = mcx_list_count(data, "nrow"), ncol = mcx_list_count(data, "ncol");
    int method = mcx_list_count(data, "method"), keep = mcx_list_count(data, "keep_spins");
    R_xlen_t N = (R_xlen_t) nrow * ncol;
    mcx_ising_data d = {nrow, ncol, mcx_list_count(data, "periodic"),
                        mcx_list_num(data, "J"), mcx_list_real(data, "h", N)};
    if (method != 0 && method != 1) MCX_INTERNAL("unknown Ising method");
    SEXP st = PROTECT(Rf_shallow_duplicate(state));
    SEXP spins = PROTECT(copy_int(state, "spins", N));
    SEXP sum = PROTECT(copy_real(state, "spin_sum", N));
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, c.n_kept, 2));
    SEXP out_sp = PROTECT(keep ? Rf_allocMatrix(INTSXP, c.n_kept, (int) N) : R_NilValue);
    GetRNGstate();
    mcx_ising_run(&d, method, INTEGER(spins), REAL(sum), c.n, c.thin, c.offset,
                  c.warmup, REAL(traces), keep ? INTEGER(out_sp) : NULL, c.n_kept);
    PutRNGstate();
    mcx_list_set(st, "spins", spins);
    mcx_list_set(st, "spin_sum", sum);
    SEXP out = step_result(st, traces, out_sp);
    UNPROTECT(5);
    return out;
}

SEXP ffi_hierlm_step(SEXP data, SEXP state, SEXP ctrl)
{
    mcx_chunk c = mcx_chunk_read(ctrl);
    int p = mcx_list_count(data, "p"), m = mcx_list_count(data, "m");
    int keep_beta = mcx_list_count(data, "keep_beta");
    R_xlen_t pp = (R_xlen_t) p * p;
    mcx_hierlm_data d = {p, m, mcx_list_num(data, "n_total"),
                         mcx_list_real(data, "XtX", pp * m),
                         mcx_list_real(data, "Xty", (R_xlen_t) p * m),
                         mcx_list_real(data, "yty", m),
                         mcx_list_real(data, "mu0", p), mcx_list_real(data, "V0inv", pp),
                         mcx_list_num(data, "eta0"), mcx_list_real(data, "S0", pp),
                         mcx_list_num(data, "nu0"), mcx_list_num(data, "s0sq")};
    int n_col = p + p * (p + 1) / 2 + 1 + (keep_beta ? p * m : 0);
    SEXP st = PROTECT(Rf_shallow_duplicate(state));
    SEXP beta = PROTECT(copy_real(state, "beta", (R_xlen_t) p * m));
    SEXP mu = PROTECT(copy_real(state, "mu", p));
    SEXP Sigma = PROTECT(copy_real(state, "Sigma", pp));
    SEXP s2 = PROTECT(copy_real(state, "sigma2", 1));
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, c.n_kept, n_col));
    GetRNGstate();
    mcx_hierlm_run(&d, REAL(beta), REAL(mu), REAL(Sigma), REAL(s2), c.n, c.thin,
                   c.offset, c.warmup, keep_beta, REAL(traces), c.n_kept);
    PutRNGstate();
    mcx_list_set(st, "beta", beta);
    mcx_list_set(st, "mu", mu);
    mcx_list_set(st, "Sigma", Sigma);
    mcx_list_set(st, "sigma2", s2);
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(6);
    return out;
}
