/*
 * ffi_sampler.c -- .Call glue of the generic samplers (MH, slice, HMC,
 * parallel tempering).
 *
 * Every entry point has the shape
 *     ffi_<sampler>_run(target(s), io, state, run, spec)
 * with `state` the chain's state list (R/mh.R etc. build it), `run` the
 * integer vector c(n, thin, offset, warmup) of the chunk, `io` the context
 * vector of R/target.R's with_target_io(), and `spec` the sampler's fixed
 * settings.  The state is duplicated, advanced in place by the engine and
 * returned as list(state = , traces = <n_kept x dim matrix>).
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler.h"
#include "ffi_target_r.h"
#include "ffi.h"

static SEXP get_elt(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || names == R_NilValue)
        MCX_INTERNAL("expected a named list");
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
            return VECTOR_ELT(list, i);
    mcx_error("mcmix internal error: element '%s' missing", name);
}

/* A double vector element of the (duplicated) state, of length len. */
static double *real_elt(SEXP list, const char *name, R_xlen_t len)
{
    SEXP v = get_elt(list, name);
    if (TYPEOF(v) != REALSXP || (len >= 0 && XLENGTH(v) != len))
        mcx_error("mcmix internal error: state element '%s' has the wrong "
                  "type or length", name);
    return REAL(v);
}

static double num_elt(SEXP list, const char *name)
{
    return real_elt(list, name, 1)[0];
}

/* Unpack c(n, thin, offset, warmup) and allocate the traces matrix. */
static SEXP run_open(SEXP run_, int dim, mcx_run *run)
{
    if (TYPEOF(run_) != INTSXP || XLENGTH(run_) != 4) MCX_INTERNAL("bad run vector");
    int *r = INTEGER(run_);
    run->n = r[0];
    run->thin = r[1];
    run->offset = r[2];
    run->warmup = r[3];
    if (run->n < 0 || run->thin < 1 || run->offset < 0) MCX_INTERNAL("bad run vector");
    run->n_kept = mcx_run_kept(run->n, run->thin, run->offset, run->warmup);
    SEXP out = Rf_allocMatrix(REALSXP, run->n_kept, dim);
    run->out = REAL(out);
    return out;
}

/* Set the column names of the traces from spec$names (when present). */
static void name_traces(SEXP traces, SEXP spec)
{
    SEXP names = Rf_getAttrib(spec, R_NamesSymbol);
    for (R_xlen_t i = 0; i < XLENGTH(spec); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), "names") == 0) {
            SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2));
            SET_VECTOR_ELT(dn, 1, VECTOR_ELT(spec, i));
            Rf_setAttrib(traces, R_DimNamesSymbol, dn);
            UNPROTECT(1);
            return;
        }
}

static SEXP result(SEXP state, SEXP traces)
{
    SEXP res = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_VECTOR_ELT(res, 0, state);
    SET_VECTOR_ELT(res, 1, traces);
    SET_STRING_ELT(nms, 0, Rf_mkChar("state"));
    SET_STRING_ELT(nms, 1, Rf_mkChar("traces"));
    Rf_setAttrib(res, R_NamesSymbol, nms);
    UNPROTECT(2);
    return res;
}

static int theta_dim(SEXP state)
{
    SEXP th = get_elt(state, "theta");
    if (TYPEOF(th) != REALSXP || XLENGTH(th) < 1) MCX_INTERNAL("bad theta");
    return (int) XLENGTH(th);
}

/* The common part of the single-target samplers (MH, slice, HMC): the
 * duplicated state, its dimension, the target opened as a log density, and
 * the chunk's run with its traces matrix.  sampler_open() protects what it
 * allocates and counts it in *nprot; sampler_close() names the traces,
 * builds the result and unprotects all nprot objects. */
typedef struct sampler_call {
    SEXP state, traces;
    int d;
    mcx_tgt h;   /* the target handle (points into itself: never copied) */
    mcx_run run;
} sampler_call;

static void sampler_open(SEXP target, SEXP io, SEXP state_, SEXP run_,
                         sampler_call *sc, int *nprot)
{
    sc->state = PROTECT(Rf_duplicate(state_)); (*nprot)++;
    sc->d = theta_dim(sc->state);
    *nprot += mcx_target_open(target, sc->d, io, MCX_CB_LOG_DENSITY, "log_density",
                              &sc->h);
    sc->traces = PROTECT(run_open(run_, sc->d, &sc->run)); (*nprot)++;
}

static SEXP sampler_close(SEXP state, SEXP traces, SEXP spec, int nprot)
{
    name_traces(traces, spec);
    SEXP res = result(state, traces);
    UNPROTECT(nprot);
    return res;
}

/* ---------------------------------------------------------------- MH */

typedef struct custom_prop {
    mcx_rfun draw, logq;
    int dim;
} custom_prop;

static void custom_draw(const double *x, double *y, void *ctx)
{
    custom_prop *c = (custom_prop *) ctx;
    mcx_rfun_vector(&c->draw, x, NULL, y, c->dim);
}

static double custom_logq(const double *y, const double *x, void *ctx)
{
    custom_prop *c = (custom_prop *) ctx;
    double v = mcx_rfun_number(&c->logq, y, x);
    if (isnan(v) || v == INFINITY) {
        char th[256];
        mcx_format_theta(th, sizeof th, y, c->dim);
        mcx_error("the proposal's `log_density` returned %s at iteration %ld "
                  "(proposed value = %s).", isnan(v) ? "NaN" : "Inf",
                  *c->logq.iter, th);
    }
    return v;
}

SEXP ffi_mh_run(SEXP target, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    sampler_call sc;
    sampler_open(target, io, state_, run_, &sc, &nprot);
    SEXP state = sc.state;
    int d = sc.d;

    SEXP props_ = get_elt(spec, "proposals");
    int K = (int) XLENGTH(props_);
    if (TYPEOF(props_) != VECSXP || K < 1) MCX_INTERNAL("bad proposals");
    mcx_mh_prop *props = (mcx_mh_prop *) mcx_alloc((size_t) K, sizeof(mcx_mh_prop));
    for (int k = 0; k < K; k++) {
        SEXP pk = VECTOR_ELT(props_, k);
        mcx_mh_prop *p = &props[k];
        memset(p, 0, sizeof *p);
        p->kind = (int) num_elt(pk, "kind");
        p->weight = num_elt(pk, "weight");
        if (p->kind == MCX_PROP_RW || p->kind == MCX_PROP_INDEP) {
            p->L = real_elt(pk, "chol", (R_xlen_t) d * d);
            if (p->kind == MCX_PROP_INDEP) {
                p->mean = real_elt(pk, "mean", d);
                p->logdet = mcx_chol_logdet(p->L, d);
            }
        } else if (p->kind == MCX_PROP_CUSTOM) {
            custom_prop *c = (custom_prop *) mcx_alloc(1, sizeof(custom_prop));
            c->dim = d;
            nprot += mcx_rfun_open(&c->draw, get_elt(pk, "draw"), 1, d, io,
                                   MCX_CB_PROPOSAL_DRAW, "draw", &sc.h.iter, 1);
            SEXP lq = get_elt(pk, "log_density");
            if (lq != R_NilValue)
                nprot += mcx_rfun_open(&c->logq, lq, 2, d, io,
                                       MCX_CB_PROPOSAL_DENSITY, "log_density",
                                       &sc.h.iter, 1);
            p->draw = custom_draw;
            p->logq = lq != R_NilValue ? custom_logq : NULL;
            p->ctx = c;
        } else {
            MCX_INTERNAL("unknown proposal kind");
        }
    }
    SEXP ad_ = get_elt(spec, "adapt");
    mcx_mh_adapt ad;
    ad.kind = (int) num_elt(ad_, "kind");
    ad.always = (int) num_elt(ad_, "always");
    ad.target_accept = num_elt(ad_, "target_accept");
    ad.kappa = num_elt(ad_, "kappa");
    ad.sd = num_elt(ad_, "sd");
    ad.eps = num_elt(ad_, "eps");
    ad.start = num_elt(ad_, "start");

    mcx_mh_state s;
    s.theta = real_elt(state, "theta", d);
    s.logd = real_elt(state, "logd", 1);
    s.iteration = real_elt(state, "iteration", 1);
    s.n_accept = real_elt(state, "n_accept", 1);
    s.n_prop = real_elt(state, "n_prop", 1);
    s.w_accept = real_elt(state, "warmup_accept", 1);
    s.w_prop = real_elt(state, "warmup_prop", 1);
    s.comp_accept = real_elt(state, "proposal_accept", K);
    s.comp_prop = real_elt(state, "proposal_prop", K);
    s.log_scale = real_elt(state, "log_scale", 1);
    s.adapt_t = real_elt(state, "adapt_t", 1);
    s.adapt_mean = real_elt(state, "adapt_mean", d);
    s.adapt_m2 = real_elt(state, "adapt_m2", (R_xlen_t) d * d);

    GetRNGstate();
    mcx_mh_run(&sc.h, props, K, &ad, &s, &sc.run);
    PutRNGstate();
    return sampler_close(state, sc.traces, spec, nprot);
}

/* ------------------------------------------------------------- slice */

SEXP ffi_slice_run(SEXP target, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    sampler_call sc;
    sampler_open(target, io, state_, run_, &sc, &nprot);
    SEXP state = sc.state;
    int d = sc.d;
    const double *width = real_elt(spec, "width", d);
    SEXP disc = get_elt(spec, "discrete");
    if (TYPEOF(disc) != INTSXP || XLENGTH(disc) != d) MCX_INTERNAL("bad discrete");
    int max_steps = (int) num_elt(spec, "max_steps");
    mcx_slice_state s;
    s.theta = real_elt(state, "theta", d);
    s.logd = real_elt(state, "logd", 1);
    s.iteration = real_elt(state, "iteration", 1);
    s.n_eval = real_elt(state, "n_eval", 1);
    GetRNGstate();
    mcx_slice_run(&sc.h, width, INTEGER(disc), max_steps, &s, &sc.run);
    PutRNGstate();
    return sampler_close(state, sc.traces, spec, nprot);
}

/* --------------------------------------------------------------- HMC */

SEXP ffi_hmc_run(SEXP target, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    sampler_call sc;
    sampler_open(target, io, state_, run_, &sc, &nprot);
    SEXP state = sc.state;
    int d = sc.d;
    mcx_hmc_ctrl c;
    c.n_steps = (int) num_elt(spec, "n_steps");
    c.mass = real_elt(spec, "mass", d);
    c.adapt = (int) num_elt(spec, "adapt");
    c.delta = num_elt(spec, "target_accept");
    c.gamma = num_elt(spec, "gamma");
    c.t0 = num_elt(spec, "t0");
    c.kappa = num_elt(spec, "kappa");
    mcx_hmc_state s;
    s.theta = real_elt(state, "theta", d);
    s.logd = real_elt(state, "logd", 1);
    s.grad = real_elt(state, "grad", d);
    s.iteration = real_elt(state, "iteration", 1);
    s.log_eps = real_elt(state, "log_step_size", 1);
    s.da_mu = real_elt(state, "da_mu", 1);
    s.da_hbar = real_elt(state, "da_hbar", 1);
    s.da_log_eps_bar = real_elt(state, "da_log_step_size_bar", 1);
    s.da_m = real_elt(state, "da_m", 1);
    s.n_accept = real_elt(state, "n_accept", 1);
    s.n_prop = real_elt(state, "n_prop", 1);
    s.sum_accept_prob = real_elt(state, "sum_accept_prob", 1);
    s.n_divergent = real_elt(state, "n_divergent", 1);
    s.w_divergent = real_elt(state, "warmup_divergent", 1);
    GetRNGstate();
    if (!isfinite(*s.logd)) MCX_INTERNAL("HMC state outside the support");
    mcx_hmc_run(&sc.h, &c, &s, &sc.run);
    PutRNGstate();
    return sampler_close(state, sc.traces, spec, nprot);
}

/* Gradient of a target at theta (HMC's initial state), iteration 0. */
SEXP ffi_target_grad0(SEXP target, SEXP io, SEXP theta)
{
    if (TYPEOF(theta) != REALSXP) MCX_INTERNAL("bad theta");
    int d = (int) XLENGTH(theta), nprot = 0;
    mcx_tgt h;
    nprot += mcx_target_open(target, d, io, MCX_CB_LOG_DENSITY, "log_density", &h);
    SEXP g = PROTECT(Rf_allocVector(REALSXP, d)); nprot++;
    mcx_tgt_grad(&h, REAL(theta), REAL(g));
    UNPROTECT(nprot);
    return g;
}

/* --------------------------------------------------------- tempering */

SEXP ffi_tempering_run(SEXP targets, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    SEXP state = PROTECT(Rf_duplicate(state_)); nprot++;
    if (TYPEOF(targets) != VECSXP || XLENGTH(targets) != 2) MCX_INTERNAL("bad targets");
    const double *temps = real_elt(spec, "temperatures", -1);
    int K = (int) XLENGTH(get_elt(spec, "temperatures"));
    const double *scales = real_elt(spec, "scales", K);
    SEXP th = get_elt(state, "theta");
    if (TYPEOF(th) != REALSXP || XLENGTH(th) % K != 0) MCX_INTERNAL("bad theta");
    int d = (int) (XLENGTH(th) / K);
    mcx_tgt lik, prior;
    nprot += mcx_target_open(VECTOR_ELT(targets, 0), d, io, MCX_CB_LOG_LIK, "log_lik", &lik);
    nprot += mcx_target_open(VECTOR_ELT(targets, 1), d, io, MCX_CB_LOG_PRIOR, "log_prior", &prior);
    mcx_run run;
    SEXP traces = PROTECT(run_open(run_, d, &run)); nprot++;
    mcx_pt_state s;
    s.theta = REAL(th);
    s.ll = real_elt(state, "log_lik", K);
    s.lp = real_elt(state, "log_prior", K);
    s.iteration = real_elt(state, "iteration", 1);
    s.n_accept = real_elt(state, "n_accept", K);
    s.n_prop = real_elt(state, "n_prop", K);
    s.swap_accept = real_elt(state, "swap_accept", K - 1);
    s.swap_prop = real_elt(state, "swap_prop", K - 1);
    GetRNGstate();
    mcx_pt_run(&lik, &prior, temps, K, scales, &s, &run);
    PutRNGstate();
    return sampler_close(state, traces, spec, nprot);
}
