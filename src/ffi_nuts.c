/*
 * ffi_nuts.c -- .Call glue of the No-U-Turn sampler (R/nuts.R).
 *
 *     ffi_nuts_run(target, io, state, run, spec)
 * has the shape of the other generic samplers (ffi_sampler.c): `state` the
 * chain's state list, `run` the integer vector c(n, thin, offset, warmup),
 * `io` the context vector of with_target_io(), `spec` the fixed settings
 * (with the trace names in spec$names).  The state is duplicated, advanced
 * in place by the engine (nuts_adapt.c) and returned as
 * list(state = , traces = <n_kept x dim matrix>).
 */
#include "mcmix_engine.h"
#include "sampler_nuts.h"
#include "target_r.h"
#include "ffi_list.h"
#include "ffi_nuts.h"

SEXP ffi_nuts_run(SEXP target, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    SEXP state = PROTECT(Rf_duplicate(state_)); nprot++;
    SEXP th = mcx_list_elt(state, "theta");
    if (TYPEOF(th) != REALSXP || XLENGTH(th) < 1) MCX_INTERNAL("bad theta");
    int d = (int) XLENGTH(th);

    mcx_nuts_ctrl c;
    c.max_depth = (int) mcx_list_num(spec, "max_depth");
    c.dense = (int) mcx_list_num(spec, "dense");
    c.adapt_eps = (int) mcx_list_num(spec, "adapt_step_size");
    c.adapt_metric = (int) mcx_list_num(spec, "adapt_metric");
    c.n_warmup = (long) mcx_list_num(spec, "n_warmup");
    c.init_buffer = (long) mcx_list_num(spec, "init_buffer");
    c.term_buffer = (long) mcx_list_num(spec, "term_buffer");
    c.delta = mcx_list_num(spec, "target_accept");
    c.gamma = mcx_list_num(spec, "gamma");
    c.t0 = mcx_list_num(spec, "t0");
    c.kappa = mcx_list_num(spec, "kappa");
    if (c.max_depth < 1 || c.max_depth > 30) MCX_INTERNAL("bad max_depth");
    R_xlen_t msize = c.dense ? (R_xlen_t) d * d : d;

    mcx_nuts_state s;
    s.theta = REAL(th);
    s.logd = mcx_list_real(state, "logd", 1);
    s.grad = mcx_list_real(state, "grad", d);
    s.iteration = mcx_list_real(state, "iteration", 1);
    s.inv_metric = mcx_list_real(state, "inv_metric", msize);
    s.chol = c.dense ? mcx_list_real(state, "chol", msize) : NULL;
    s.log_eps = mcx_list_real(state, "log_step_size", 1);
    s.da_mu = mcx_list_real(state, "da_mu", 1);
    s.da_sbar = mcx_list_real(state, "da_sbar", 1);
    s.da_xbar = mcx_list_real(state, "da_xbar", 1);
    s.da_counter = mcx_list_real(state, "da_counter", 1);
    s.win_n = mcx_list_real(state, "win_n", 1);
    s.win_mean = mcx_list_real(state, "win_mean", d);
    s.win_m2 = mcx_list_real(state, "win_m2", msize);
    s.win_size = mcx_list_real(state, "win_size", 1);
    s.win_end = mcx_list_real(state, "win_end", 1);
    s.n_prop = mcx_list_real(state, "n_prop", 1);
    s.n_divergent = mcx_list_real(state, "n_divergent", 1);
    s.n_max_depth = mcx_list_real(state, "n_max_depth", 1);
    s.n_leapfrog = mcx_list_real(state, "n_leapfrog", 1);
    s.sum_accept = mcx_list_real(state, "sum_accept_stat", 1);
    s.depth_counts = mcx_list_real(state, "depth_counts", c.max_depth + 1);
    s.e_prev = mcx_list_real(state, "energy_prev", 1);
    s.e_n = mcx_list_real(state, "energy_n", 1);
    s.e_mean = mcx_list_real(state, "energy_mean", 1);
    s.e_m2 = mcx_list_real(state, "energy_m2", 1);
    s.e_sqdiff = mcx_list_real(state, "energy_sqdiff", 1);
    s.w_divergent = mcx_list_real(state, "warmup_divergent", 1);
    s.w_leapfrog = mcx_list_real(state, "warmup_leapfrog", 1);

    mcx_tgt h;
    nprot += mcx_target_open(target, d, io, MCX_CB_LOG_DENSITY, "log_density", &h);

    if (TYPEOF(run_) != INTSXP || XLENGTH(run_) != 4) MCX_INTERNAL("bad run vector");
    const int *r = INTEGER(run_);
    mcx_run run = {r[0], r[1], r[3], r[2], NULL, 0};
    if (run.n < 0 || run.thin < 1 || run.offset < 0) MCX_INTERNAL("bad run vector");
    run.n_kept = mcx_run_kept(run.n, run.thin, run.offset, run.warmup);
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, run.n_kept, d)); nprot++;
    run.out = REAL(traces);
    SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2)); nprot++;
    SET_VECTOR_ELT(dn, 1, mcx_list_elt(spec, "names"));
    Rf_setAttrib(traces, R_DimNamesSymbol, dn);

    if (!isfinite(*s.logd)) MCX_INTERNAL("NUTS state outside the support");
    GetRNGstate();
    mcx_nuts_run(&h, &c, &s, &run);
    PutRNGstate();

    const char *nms[] = {"state", "traces", ""};
    SEXP vals[] = {state, traces};
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(nprot);
    return out;
}
