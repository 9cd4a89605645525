/*
 * ffi_models.c -- .Call glue of the model-specific Gibbs samplers
 * (R/probit.R, R/gp_classify.R, R/ising.R, R/hier_lm.R).
 *
 * Every entry point has the shape  ffi_<model>_step(data, state, ctrl):
 *   data  a named list of fixed inputs prepared (and validated) in R;
 *   state a named list, the chain state (not modified: a deep copy is
 *         advanced in place, its vectors read with the list readers);
 *   ctrl  the chunk c(n, thin, offset, warmup) (mcmix_chunk.h, mcx_chunk_read()).
 * and returns list(state = <advanced copy>, traces = <n_kept x p matrix>,
 * spins = <int matrix or NULL>).  Types and lengths are re-checked here;
 * a mismatch is an internal error (R validated the user's input).
 */
#include <string.h>
#include "model.h"
#include "ffi.h"
#include "ffi_list.h"

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
    SEXP st = PROTECT(Rf_duplicate(state));
    double *beta = mcx_list_real(st, "beta", p);
    SEXP traces = PROTECT(mcx_chunk_matrix(&c, REALSXP, p, NULL));
    GetRNGstate();
    mcx_probit_run(&d, beta, &c, REAL(traces));
    PutRNGstate();
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(2);
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
    SEXP st = PROTECT(Rf_duplicate(state));
    SEXP traces = PROTECT(mcx_chunk_matrix(&c, REALSXP, n + 1, NULL));
    double *work = mcx_alloc((size_t) 2 * n + m, sizeof(double));
    GetRNGstate();
    mcx_gpclass_run(&d, mcx_list_real(st, "z", n), mcx_list_real(st, "f", n),
                    mcx_list_real(st, "prob_sum", m), &c, REAL(traces), work);
    PutRNGstate();
    mcx_list_int(st, "n_pred", 1)[0] += c.n_kept;
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(2);
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
    SEXP st = PROTECT(Rf_duplicate(state));
    SEXP traces = PROTECT(mcx_chunk_matrix(&c, REALSXP, 2, NULL));
    SEXP out_sp = PROTECT(keep ? mcx_chunk_matrix(&c, INTSXP, (int) N, NULL) : R_NilValue);
    GetRNGstate();
    mcx_ising_run(&d, method, mcx_list_int(st, "spins", N), mcx_list_real(st, "spin_sum", N),
                  &c, REAL(traces), keep ? INTEGER(out_sp) : NULL);
    PutRNGstate();
    SEXP out = step_result(st, traces, out_sp);
    UNPROTECT(3);
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
    SEXP st = PROTECT(Rf_duplicate(state));
    SEXP traces = PROTECT(mcx_chunk_matrix(&c, REALSXP, n_col, NULL));
    GetRNGstate();
    mcx_hierlm_run(&d, mcx_list_real(st, "beta", (R_xlen_t) p * m), mcx_list_real(st, "mu", p),
                   mcx_list_real(st, "Sigma", pp), mcx_list_real(st, "sigma2", 1), &c,
                   keep_beta, REAL(traces));
    PutRNGstate();
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(2);
    return out;
}
