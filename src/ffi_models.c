/*
 * ffi_models.c -- .Call glue of the model-specific Gibbs samplers
 * (R/probit.R, R/gp_classify.R, R/ising.R, R/hier_lm.R).
 *
 * Every entry point has the shape  ffi_<model>_step(data, state, ctrl):
 *   data  a named list of fixed inputs prepared (and validated) in R;
 *   state a named list, the chain state (not modified: a copy is advanced);
 *   ctrl  integer c(n, thin, offset, warmup).
 * and returns list(state = <advanced copy>, traces = <n_kept x p matrix>,
 * spins = <int matrix or NULL>).  Types and lengths are re-checked here;
 * a mismatch is an internal error (R validated the user's input).
 */
#include <string.h>
#include "models.h"
#include "ffi.h"

static SEXP get_elt(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || names == R_NilValue)
        mcx_error("mcmix internal error: expected a named list for '%s'", name);
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
            return VECTOR_ELT(list, i);
    mcx_error("mcmix internal error: element '%s' missing", name);
}

static const double *real_elt(SEXP list, const char *name, R_xlen_t len)
{
    SEXP x = get_elt(list, name);
    if (TYPEOF(x) != REALSXP || (len >= 0 && XLENGTH(x) != len))
        mcx_error("mcmix internal error: '%s' must be a double vector of length %ld",
                  name, (long) len);
    return REAL(x);
}

static const int *int_elt(SEXP list, const char *name, R_xlen_t len)
{
    SEXP x = get_elt(list, name);
    if (TYPEOF(x) != INTSXP || (len >= 0 && XLENGTH(x) != len))
        mcx_error("mcmix internal error: '%s' must be an integer vector of length %ld",
                  name, (long) len);
    return INTEGER(x);
}

static int int_scalar(SEXP list, const char *name)
{
    return int_elt(list, name, 1)[0];
}

static double real_scalar(SEXP list, const char *name)
{
    return real_elt(list, name, 1)[0];
}

typedef struct { int n, thin, offset, warmup, n_kept; } step_ctrl;

static step_ctrl read_ctrl(SEXP ctrl)
{
    if (TYPEOF(ctrl) != INTSXP || XLENGTH(ctrl) != 4)
        MCX_INTERNAL("ctrl must be integer(4)");
    step_ctrl c = {INTEGER(ctrl)[0], INTEGER(ctrl)[1], INTEGER(ctrl)[2],
                   INTEGER(ctrl)[3], 0};
    if (c.n < 0 || c.thin < 1 || c.offset < 0)
        MCX_INTERNAL("bad iteration counts");
    c.n_kept = mcx_n_kept(c.n, c.thin, c.offset, c.warmup);
    return c;
}

/* A copy of state element `name` (double), to be advanced in place. */
static SEXP copy_real(SEXP state, const char *name, R_xlen_t len)
{
    real_elt(state, name, len);
    return Rf_duplicate(get_elt(state, name));
}

static SEXP copy_int(SEXP state, const char *name, R_xlen_t len)
{
    int_elt(state, name, len);
    return Rf_duplicate(get_elt(state, name));
}

/* list(state = state, traces = traces, spins = spins) */
static SEXP step_result(SEXP state, SEXP traces, SEXP spins)
{
    const char *nms[] = {"state", "traces", "spins", ""};
    SEXP out = PROTECT(Rf_mkNamed(VECSXP, nms));
    SET_VECTOR_ELT(out, 0, state);
    SET_VECTOR_ELT(out, 1, traces);
    SET_VECTOR_ELT(out, 2, spins);
    UNPROTECT(1);
    return out;
}

/* Replace element `name` of the (fresh) list `state`. */
static void set_elt(SEXP state, const char *name, SEXP value)
{
    SEXP names = Rf_getAttrib(state, R_NamesSymbol);
    for (R_xlen_t i = 0; i < XLENGTH(state); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0) {
            SET_VECTOR_ELT(state, i, value);
            return;
        }
    MCX_INTERNAL("state element missing");
}

SEXP ffi_probit_step(SEXP data, SEXP state, SEXP ctrl)
{
    step_ctrl c = read_ctrl(ctrl);
    int n = int_scalar(data, "n"), p = int_scalar(data, "p");
    mcx_probit_data d = {n, p, real_elt(data, "X", (R_xlen_t) n * p),
                         int_elt(data, "y", n),
                         real_elt(data, "prior_prec", (R_xlen_t) p * p),
                         real_elt(data, "prior_lin", p)};
    SEXP st = PROTECT(Rf_shallow_duplicate(state));
    SEXP beta = PROTECT(copy_real(state, "beta", p));
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, c.n_kept, p));
    GetRNGstate();
    mcx_probit_run(&d, REAL(beta), c.n, c.thin, c.offset, c.warmup,
                   REAL(traces), c.n_kept);
    PutRNGstate();
    set_elt(st, "beta", beta);
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(3);
    return out;
}

SEXP ffi_gpclass_step(SEXP data, SEXP state, SEXP ctrl)
{
    step_ctrl c = read_ctrl(ctrl);
    int n = int_scalar(data, "n"), m = int_scalar(data, "m");
    mcx_gpclass_data d = {n, m, int_elt(data, "y", n),
                          real_elt(data, "A", (R_xlen_t) n * n),
                          real_elt(data, "S", (R_xlen_t) n * n),
                          real_elt(data, "W", (R_xlen_t) n * m),
                          real_elt(data, "pred_sd", m)};
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
    set_elt(st, "z", z);
    set_elt(st, "f", f);
    set_elt(st, "prob_sum", ps);
    SEXP nk = PROTECT(Rf_ScalarInteger(int_scalar(state, "n_pred") + c.n_kept));
    set_elt(st, "n_pred", nk);
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(6);
    return out;
}

SEXP ffi_ising_step(SEXP data, SEXP state, SEXP ctrl)
{
    step_ctrl c = read_ctrl(ctrl);
    int nrow = int_scalar(data, "nrow"), ncol = int_scalar(data, "ncol");
    int method = int_scalar(data, "method"), keep = int_scalar(data, "keep_spins");
    R_xlen_t N = (R_xlen_t) nrow * ncol;
    mcx_ising_data d = {nrow, ncol, int_scalar(data, "periodic"),
                        real_scalar(data, "J"), real_elt(data, "h", N)};
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
    set_elt(st, "spins", spins);
    set_elt(st, "spin_sum", sum);
    SEXP out = step_result(st, traces, out_sp);
    UNPROTECT(5);
    return out;
}

SEXP ffi_ising_energy(SEXP data, SEXP spins)
{
    int nrow = int_scalar(data, "nrow"), ncol = int_scalar(data, "ncol");
    R_xlen_t N = (R_xlen_t) nrow * ncol;
    mcx_ising_data d = {nrow, ncol, int_scalar(data, "periodic"),
                        real_scalar(data, "J"), real_elt(data, "h", N)};
    if (TYPEOF(spins) != INTSXP || XLENGTH(spins) % (N > 0 ? N : 1) != 0)
        MCX_INTERNAL("spins must be an integer matrix with N columns");
    R_xlen_t k = N > 0 ? XLENGTH(spins) / N : 0;
    SEXP out = PROTECT(Rf_allocVector(REALSXP, k));
    int *x = (int *) mcx_alloc((size_t) N, sizeof(int));
    for (R_xlen_t r = 0; r < k; r++) {      /* rows of a k x N matrix */
        for (R_xlen_t t = 0; t < N; t++) x[t] = INTEGER(spins)[r + k * t];
        REAL(out)[r] = mcx_ising_energy(&d, x);
    }
    UNPROTECT(1);
    return out;
}

SEXP ffi_hierlm_step(SEXP data, SEXP state, SEXP ctrl)
{
    step_ctrl c = read_ctrl(ctrl);
    int p = int_scalar(data, "p"), m = int_scalar(data, "m");
    int keep_beta = int_scalar(data, "keep_beta");
    R_xlen_t pp = (R_xlen_t) p * p;
    mcx_hierlm_data d = {p, m, real_scalar(data, "n_total"),
                         real_elt(data, "XtX", pp * m),
                         real_elt(data, "Xty", (R_xlen_t) p * m),
                         real_elt(data, "yty", m),
                         real_elt(data, "mu0", p), real_elt(data, "V0inv", pp),
                         real_scalar(data, "eta0"), real_elt(data, "S0", pp),
                         real_scalar(data, "nu0"), real_scalar(data, "s0sq")};
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
    set_elt(st, "beta", beta);
    set_elt(st, "mu", mu);
    set_elt(st, "Sigma", Sigma);
    set_elt(st, "sigma2", s2);
    SEXP out = step_result(st, traces, R_NilValue);
    UNPROTECT(6);
    return out;
}
