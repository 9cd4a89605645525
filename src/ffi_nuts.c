/*
 * ffi_nuts.c -- .Call glue of the No-U-Turn sampler (R/nuts.R).
 *
 *     ffi_nuts_run(target, io, state, run, spec)
 * has the shape of the other generic samplers (ffi_sampler.c): `state` the
 * chain's state list, `run` the integer vector c(n, thin, offset, warmup),
 * `io` the context vector of with_target_io(), `spec` the fixed settings
 * (with the trace names in spec$names).  The state is duplicated, advanced
 * in place by the engine (sampler_nuts_adapt.c) and returned as
 * list(state = , traces = <n_kept x dim matrix>, sampler_params = <n_kept x 6
 * matrix: accept_stat__, stepsize__, treedepth__, n_leapfrog__, divergent__,
 * energy__ of every kept iteration>).
 */
#include "mcmix_engine.h"
#include "sampler_nuts.h"
#include "ffi_target.h"
#include "ffi_list.h"
#include "ffi_nuts.h"

/* The state list of sample_nuts() (R/nuts.R), declared once: list name,
 * engine member, length (1, d, the metric's d or d x d, max_depth + 1);
 * "chol" (dense metric only) is bound apart. */
enum { L_1, L_D, L_M, L_DEPTH };
#define NS(member, name, len) MCX_FIELD(mcx_nuts_state, member, name, len)
static const mcx_field nuts_fields[] = {
    NS(theta, "theta", L_D), NS(logd, "logd", L_1), NS(grad, "grad", L_D),
    NS(iteration, "iteration", L_1), NS(inv_metric, "inv_metric", L_M),
    NS(log_eps, "log_step_size", L_1), NS(da_mu, "da_mu", L_1), NS(da_sbar, "da_sbar", L_1),
    NS(da_xbar, "da_xbar", L_1), NS(da_counter, "da_counter", L_1), NS(win_n, "win_n", L_1),
    NS(win_mean, "win_mean", L_D), NS(win_m2, "win_m2", L_M), NS(win_size, "win_size", L_1),
    NS(win_end, "win_end", L_1), NS(n_prop, "n_prop", L_1),
    NS(n_divergent, "n_divergent", L_1), NS(n_max_depth, "n_max_depth", L_1),
    NS(n_leapfrog, "n_leapfrog", L_1), NS(sum_accept, "sum_accept_stat", L_1),
    NS(depth_counts, "depth_counts", L_DEPTH), NS(e_prev, "energy_prev", L_1),
    NS(e_n, "energy_n", L_1), NS(e_mean, "energy_mean", L_1), NS(e_m2, "energy_m2", L_1),
    NS(e_sqdiff, "energy_sqdiff", L_1), NS(w_divergent, "warmup_divergent", L_1),
    NS(w_leapfrog, "warmup_leapfrog", L_1), {NULL, 0, 0}
};

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
    R_xlen_t lens[] = {1, d, msize, c.max_depth + 1};
    mcx_bind_fields(state, nuts_fields, &s, lens);
    s.chol = c.dense ? mcx_list_real(state, "chol", msize) : NULL;

    mcx_tgt h;
    nprot += mcx_target_open(target, d, io, MCX_CB_LOG_DENSITY, "log_density", &h);
    mcx_target_reject_nonfinite(&h);   /* divergent points, counted */

    mcx_chunk ch = mcx_chunk_read(run_);
    mcx_run run = {ch.n, ch.thin, ch.warmup, ch.offset, NULL, ch.n_kept};
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, run.n_kept, d)); nprot++;
    run.out = REAL(traces);
    SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2)); nprot++;
    SET_VECTOR_ELT(dn, 1, mcx_list_elt(spec, "names"));
    Rf_setAttrib(traces, R_DimNamesSymbol, dn);

    SEXP params = PROTECT(Rf_allocMatrix(REALSXP, run.n_kept, MCX_NUTS_N_PARAMS)); nprot++;

    if (!isfinite(*s.logd)) MCX_INTERNAL("NUTS state outside the support");
    GetRNGstate();
    mcx_nuts_run(&h, &c, &s, &run, REAL(params));
    PutRNGstate();
    mcx_target_count(state, &h);

    const char *nms[] = {"state", "traces", "sampler_params", ""};
    SEXP vals[] = {state, traces, params};
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(nprot);
    return out;
}

