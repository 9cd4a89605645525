/*
 * ffi_logit.c -- .Call glue of logit_gibbs() (R/logit.R) and rpolyagamma().
 *
 * ffi_logit_step(data, state, ctrl) has the shape of the model samplers of
 * ffi_models.c: `data` the fixed inputs prepared in R, `state` the chain
 * state list (beta, v0, nu; a copy is advanced), `ctrl` the integer vector
 * c(n, thin, offset, warmup).  Returns list(state = , traces = ).
 */
#include "model_logit.h"
#include "rng_polyagamma.h"
#include "ffi_list.h"
#include "ffi_logit.h"

SEXP ffi_logit_step(SEXP data, SEXP state, SEXP ctrl)
{
    mcx_chunk ch = mcx_chunk_read(ctrl);
    int n_kept = ch.n_kept;
    int n = mcx_list_count(data, "n"), p = mcx_list_count(data, "p");
    SEXP grid = mcx_list_elt(data, "nu_grid");
    if (TYPEOF(grid) != REALSXP) MCX_INTERNAL("nu_grid must be double");
    mcx_logit_data d = {n, p, mcx_list_count(data, "method"),
                        mcx_list_real(data, "X", (R_xlen_t) n * p),
                        mcx_list_int(data, "y", n),
                        mcx_list_real(data, "prior_prec", (R_xlen_t) p * p),
                        mcx_list_real(data, "prior_lin", p),
                        mcx_list_real(data, "prior_mean", p),
                        mcx_list_count(data, "hier"),
                        mcx_list_num(data, "v0_shape"), mcx_list_num(data, "v0_scale"),
                        mcx_list_num(data, "t_scale"),
                        (int) XLENGTH(grid), REAL(grid)};
    if (d.method < MCX_LOGIT_POLYA_GAMMA || d.method > MCX_LOGIT_STUDENT_T)
        MCX_INTERNAL("bad method");
    int ncol = p + (d.hier != 0) + (d.method == MCX_LOGIT_STUDENT_T && d.n_nu > 0);
    SEXP st = PROTECT(Rf_shallow_duplicate(state));
    mcx_list_real(state, "beta", p);
    mcx_list_real(state, "v0", 1);
    mcx_list_real(state, "nu", 1);
    SEXP beta = PROTECT(Rf_duplicate(mcx_list_elt(state, "beta")));
    SEXP v0 = PROTECT(Rf_duplicate(mcx_list_elt(state, "v0")));
    SEXP nu = PROTECT(Rf_duplicate(mcx_list_elt(state, "nu")));
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, n_kept, ncol));
    GetRNGstate();
    mcx_logit_run(&d, REAL(beta), REAL(v0), REAL(nu), ch.n, ch.thin, ch.offset, ch.warmup,
                  REAL(traces), n_kept);
    PutRNGstate();
    mcx_list_set(st, "beta", beta);
    mcx_list_set(st, "v0", v0);
    mcx_list_set(st, "nu", nu);
    const char *nms[] = {"state", "traces", ""};
    SEXP vals[] = {st, traces};
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(5);
    return out;
}

/* n draws of PG(1, z) (kind 0) or of the Holmes-Held mixing variance
 * lambda given the residual z (kind 1); z recycled. */
SEXP ffi_rpolyagamma(SEXP n_, SEXP z_, SEXP kind_)
{
    if (TYPEOF(n_) != INTSXP || XLENGTH(n_) != 1 || INTEGER(n_)[0] < 0 ||
        TYPEOF(z_) != REALSXP || XLENGTH(z_) < 1 ||
        TYPEOF(kind_) != INTSXP || XLENGTH(kind_) != 1)
        MCX_INTERNAL("bad arguments");
    int kind = INTEGER(kind_)[0];
    int n = INTEGER(n_)[0];
    R_xlen_t nz = XLENGTH(z_);
    const double *z = REAL(z_);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
    double *o = REAL(out);
    GetRNGstate();
    for (int i = 0; i < n; i++)
        o[i] = kind == 0 ? mcx_rpolyagamma(z[i % nz]) : mcx_rks_mixing(z[i % nz]);
    PutRNGstate();
    UNPROTECT(1);
    return out;
}
