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
 * returned as list(state = , traces = <n_kept x dim matrix>).  The target
 * handles reject non-finite values after the initial one (a point where the
 * log density is NaN or +Inf is a rejected proposal, as one outside the
 * support), counted in the state's "n_nonfinite".
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler.h"
#include "ffi_target.h"
#include "ffi_list.h"
#include "ffi.h"

/* The chunk c(n, thin, offset, warmup) (mcmix_chunk.h) as the engine's run, with
 * its traces matrix (n_kept x dim). */
static SEXP run_open(SEXP run_, int dim, mcx_run *run)
{
    mcx_chunk c = mcx_chunk_read(run_);
    SEXP out = mcx_chunk_matrix(&c, REALSXP, dim, NULL);
    run->n = c.n;
    run->thin = c.thin;
    run->offset = c.offset;
    run->warmup = c.warmup;
    run->n_kept = c.n_kept;
    run->out = REAL(out);
    return out;
}

/* Lengths of state fields (mcx_field.len): 1, d, the matrix (d x d; d x K
 * for tempering), K, K - 1. */
enum { L_1, L_D, L_DD, L_K, L_K1 };

/* Set the column names of the traces from spec$names (when present). */
static void name_traces(SEXP traces, SEXP spec)
{
    SEXP names = mcx_list_get(spec, "names");
    if (names == R_NilValue) return;
    SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(dn, 1, names);
    Rf_setAttrib(traces, R_DimNamesSymbol, dn);
    UNPROTECT(1);
}

static SEXP result(SEXP state, SEXP traces)
{
    const char *nms[] = {"state", "traces", NULL};
    const SEXP vals[] = {state, traces};
    return mcx_named_list(nms, vals);
}

/* The state lists of the samplers (built by R/mh.R, R/slice.R, R/hmc.R,
 * R/tempering.R), declared once: list name, engine member, length. */
#define MH(member, name, len) MCX_FIELD(mcx_mh_state, member, name, len)
static const mcx_field mh_fields[] = {
    MH(theta, "theta", L_D), MH(logd, "logd", L_1), MH(iteration, "iteration", L_1),
    MH(n_accept, "n_accept", L_1), MH(n_prop, "n_prop", L_1),
    MH(w_accept, "warmup_accept", L_1), MH(w_prop, "warmup_prop", L_1),
    MH(comp_accept, "proposal_accept", L_K), MH(comp_prop, "proposal_prop", L_K),
    MH(log_scale, "log_scale", L_1), MH(adapt_t, "adapt_t", L_1),
    MH(adapt_mean, "adapt_mean", L_D), MH(adapt_m2, "adapt_m2", L_DD),
    {NULL, 0, 0}
};
#define SL(member, name, len) MCX_FIELD(mcx_slice_state, member, name, len)
static const mcx_field slice_fields[] = {
    SL(theta, "theta", L_D), SL(logd, "logd", L_1), SL(iteration, "iteration", L_1),
    SL(n_eval, "n_eval", L_1), {NULL, 0, 0}
};
#define HMC(member, name, len) MCX_FIELD(mcx_hmc_state, member, name, len)
static const mcx_field hmc_fields[] = {
    HMC(theta, "theta", L_D), HMC(logd, "logd", L_1), HMC(grad, "grad", L_D),
    HMC(iteration, "iteration", L_1), HMC(log_eps, "log_step_size", L_1),
    HMC(da_mu, "da_mu", L_1), HMC(da_hbar, "da_hbar", L_1),
    HMC(da_log_eps_bar, "da_log_step_size_bar", L_1), HMC(da_m, "da_m", L_1),
    HMC(n_accept, "n_accept", L_1), HMC(n_prop, "n_prop", L_1),
    HMC(sum_accept_prob, "sum_accept_prob", L_1), HMC(n_divergent, "n_divergent", L_1),
    HMC(w_divergent, "warmup_divergent", L_1), {NULL, 0, 0}
};
#define PT(member, name, len) MCX_FIELD(mcx_pt_state, member, name, len)
static const mcx_field pt_fields[] = {
    PT(theta, "theta", L_DD), PT(ll, "log_lik", L_K), PT(lp, "log_prior", L_K),
    PT(iteration, "iteration", L_1), PT(n_accept, "n_accept", L_K),
    PT(n_prop, "n_prop", L_K), PT(swap_accept, "swap_accept", L_K1),
    PT(swap_prop, "swap_prop", L_K1), {NULL, 0, 0}
};

static int theta_dim(SEXP state)
{
    SEXP th = mcx_list_elt(state, "theta");
    if (TYPEOF(th) != REALSXP || XLENGTH(th) < 1) MCX_INTERNAL("bad theta");
    return (int) XLENGTH(th);
}

/* The common part of the single-target samplers (MH, slice, HMC): the
 * duplicated state, its dimension, the engine state bound to it (`fields`;
 * K the number of MH proposals), the target opened as a log density, and
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
                         const mcx_field *fields, void *engine_state, int K,
                         sampler_call *sc, int *nprot)
{
    sc->state = PROTECT(Rf_duplicate(state_)); (*nprot)++;
    sc->d = theta_dim(sc->state);
    R_xlen_t lens[] = {1, sc->d, (R_xlen_t) sc->d * sc->d, K, K - 1};
    mcx_bind_fields(sc->state, fields, engine_state, lens);
    *nprot += mcx_target_open(target, sc->d, io, MCX_CB_LOG_DENSITY, "log_density",
                              &sc->h);
    mcx_target_reject_nonfinite(&sc->h);
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
    SEXP props_ = mcx_list_elt(spec, "proposals");
    int K = (int) XLENGTH(props_);
    if (TYPEOF(props_) != VECSXP || K < 1) MCX_INTERNAL("bad proposals");
    sampler_call sc;
    mcx_mh_state s;
    sampler_open(target, io, state_, run_, mh_fields, &s, K, &sc, &nprot);
    int d = sc.d;
    mcx_mh_prop *props = (mcx_mh_prop *) mcx_alloc((size_t) K, sizeof(mcx_mh_prop));
    for (int k = 0; k < K; k++) {
        SEXP pk = VECTOR_ELT(props_, k);
        mcx_mh_prop *p = &props[k];
        memset(p, 0, sizeof *p);
        p->kind = (int) mcx_list_num(pk, "kind");
        p->weight = mcx_list_num(pk, "weight");
        if (p->kind == MCX_PROP_RW || p->kind == MCX_PROP_INDEP) {
            p->L = mcx_list_real(pk, "chol", (R_xlen_t) d * d);
            if (p->kind == MCX_PROP_INDEP) {
                p->mean = mcx_list_real(pk, "mean", d);
                p->logdet = mcx_chol_logdet(p->L, d);
            }
        } else if (p->kind == MCX_PROP_CUSTOM) {
            custom_prop *c = (custom_prop *) mcx_alloc(1, sizeof(custom_prop));
            c->dim = d;
            nprot += mcx_rfun_open(&c->draw, mcx_list_elt(pk, "draw"), 1, d, io,
                                   MCX_CB_PROPOSAL_DRAW, "draw", &sc.h.iter, 1);
            SEXP lq = mcx_list_elt(pk, "log_density");
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
    SEXP ad_ = mcx_list_elt(spec, "adapt");
    mcx_mh_adapt ad;
    ad.kind = (int) mcx_list_num(ad_, "kind");
    ad.always = (int) mcx_list_num(ad_, "always");
    ad.target_accept = mcx_list_num(ad_, "target_accept");
    ad.kappa = mcx_list_num(ad_, "kappa");
    ad.sd = mcx_list_num(ad_, "sd");
    ad.eps = mcx_list_num(ad_, "eps");
    ad.start = mcx_list_num(ad_, "start");

    GetRNGstate();
    mcx_mh_run(&sc.h, props, K, &ad, &s, &sc.run);
    PutRNGstate();
    mcx_target_count(sc.state, &sc.h);
    return sampler_close(sc.state, sc.traces, spec, nprot);
}

/* ------------------------------------------------------------- slice */

SEXP ffi_slice_run(SEXP target, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    sampler_call sc;
    mcx_slice_state s;
    sampler_open(target, io, state_, run_, slice_fields, &s, 0, &sc, &nprot);
    int d = sc.d;
    const double *width = mcx_list_real(spec, "width", d);
    SEXP disc = mcx_list_elt(spec, "discrete");
    if (TYPEOF(disc) != INTSXP || XLENGTH(disc) != d) MCX_INTERNAL("bad discrete");
    int max_steps = (int) mcx_list_num(spec, "max_steps");
    GetRNGstate();
    mcx_slice_run(&sc.h, width, INTEGER(disc), max_steps, &s, &sc.run);
    PutRNGstate();
    mcx_target_count(sc.state, &sc.h);
    return sampler_close(sc.state, sc.traces, spec, nprot);
}

/* --------------------------------------------------------------- HMC */

SEXP ffi_hmc_run(SEXP target, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    sampler_call sc;
    mcx_hmc_state s;
    sampler_open(target, io, state_, run_, hmc_fields, &s, 0, &sc, &nprot);
    int d = sc.d;
    mcx_hmc_ctrl c;
    c.n_steps = (int) mcx_list_num(spec, "n_steps");
    c.mass = mcx_list_real(spec, "mass", d);
    c.adapt = (int) mcx_list_num(spec, "adapt");
    c.delta = mcx_list_num(spec, "target_accept");
    c.gamma = mcx_list_num(spec, "gamma");
    c.t0 = mcx_list_num(spec, "t0");
    c.kappa = mcx_list_num(spec, "kappa");
    GetRNGstate();
    if (!isfinite(*s.logd)) MCX_INTERNAL("HMC state outside the support");
    mcx_hmc_run(&sc.h, &c, &s, &sc.run);
    PutRNGstate();
    mcx_target_count(sc.state, &sc.h);
    return sampler_close(sc.state, sc.traces, spec, nprot);
}

/* --------------------------------------------------------- tempering */

SEXP ffi_tempering_run(SEXP targets, SEXP io, SEXP state_, SEXP run_, SEXP spec)
{
    int nprot = 0;
    SEXP state = PROTECT(Rf_duplicate(state_)); nprot++;
    if (TYPEOF(targets) != VECSXP || XLENGTH(targets) != 2) MCX_INTERNAL("bad targets");
    const double *temps = mcx_list_real(spec, "temperatures", -1);
    int K = (int) XLENGTH(mcx_list_elt(spec, "temperatures"));
    const double *scales = mcx_list_real(spec, "scales", K);
    SEXP th = mcx_list_elt(state, "theta");
    if (TYPEOF(th) != REALSXP || XLENGTH(th) % K != 0) MCX_INTERNAL("bad theta");
    int d = (int) (XLENGTH(th) / K);
    mcx_tgt lik, prior;
    nprot += mcx_target_open(VECTOR_ELT(targets, 0), d, io, MCX_CB_LOG_LIK, "log_lik", &lik);
    nprot += mcx_target_open(VECTOR_ELT(targets, 1), d, io, MCX_CB_LOG_PRIOR, "log_prior", &prior);
    mcx_target_reject_nonfinite(&lik);
    mcx_target_reject_nonfinite(&prior);
    mcx_run run;
    SEXP traces = PROTECT(run_open(run_, d, &run)); nprot++;
    mcx_pt_state s;
    R_xlen_t lens[] = {1, d, (R_xlen_t) d * K, K, K - 1};
    mcx_bind_fields(state, pt_fields, &s, lens);
    GetRNGstate();
    mcx_pt_run(&lik, &prior, temps, K, scales, &s, &run);
    PutRNGstate();
    mcx_target_count(state, &lik);
    mcx_target_count(state, &prior);
    return sampler_close(state, traces, spec, nprot);
}
