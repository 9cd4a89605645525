/*
 * ffi_mixture.c -- .Call glue of the finite mixture samplers
 * (mixture_finite.c; R/mixture.R) and of the CRP simulator (R/prior.R).
 *
 * ffi_finite_step(spec, x, state, chunk) runs one chunk of one chain (x,
 * spec$x_rows and spec$workspace as in ffi_mixture_dp.c): it
 * rebuilds the engine state from `state` (the list FINITE_STATE below:
 * labels 0..K-1; the last weights and parameters drawn, informational;
 * stats the clusters' stats blocks as raw bytes, so that the next chunk
 * continues bit for bit, NULL in a fresh state: then computed from the
 * labels), runs the sweeps of the chunk c(n, thin, offset, warmup)
 * (mcmix_chunk.h) and returns
 *   list(state  = the advanced state,
 *        traces = matrix (kept x 2): n_clusters, log_lik,
 *        labels = integer matrix (kept x N), 1-based component numbers
 *                 (NULL when spec$store_labels is FALSE),
 *        weights = matrix (kept x K) or NULL,      (the algorithm keeps them)
 *        params  = matrix (kept x psize*K) or NULL)
 * spec = list(family, dim, hyper, algorithm, alpha (K Dirichlet
 *             parameters), K, store_labels).
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "mixture.h"
#include "ffi_list.h"
#include "ffi.h"
#include "ffi_workspace.h"

void ffi_mix_open(mcx_mix *m, const mcx_family *fam, const void *hyper, SEXP xt, int dim,
                  SEXP labels, SEXP stats, int k_min)
{
    if (TYPEOF(xt) != REALSXP || dim < 1 || XLENGTH(xt) % dim != 0)
        MCX_INTERNAL("data must be a dim x N double matrix");
    int N = (int) (XLENGTH(xt) / dim);
    if (TYPEOF(labels) != INTSXP || XLENGTH(labels) != N) MCX_INTERNAL("bad labels");
    if (stats == R_NilValue) {
        mcx_mix_build(m, fam, hyper, REAL(xt), N, dim, INTEGER(labels), k_min);
        return;
    }
    /* the exported stats are installed, not recomputed from the labels first
     * (at N = 1e6 that was a serial pass of stats_add per chunk) */
    if (TYPEOF(stats) != RAWSXP) MCX_INTERNAL("state$stats must be raw");
    mcx_mix_build_restore(m, fam, hyper, REAL(xt), N, dim, INTEGER(labels), k_min,
                          RAW(stats), (size_t) XLENGTH(stats));
}

int ffi_mix_n(SEXP x, int dim)
{
    if (TYPEOF(x) != REALSXP || dim < 1 || XLENGTH(x) % dim != 0)
        MCX_INTERNAL("data must be a double matrix with dim coordinates per observation");
    return (int) (XLENGTH(x) / dim);
}

SEXP ffi_mix_open_spec(mcx_mix *m, const mcx_family *fam, const void *hyper, SEXP spec,
                       SEXP x, int dim, SEXP labels, SEXP stats, int k_min)
{
    int N = ffi_mix_n(x, dim);
    if (TYPEOF(labels) != INTSXP || XLENGTH(labels) != N) MCX_INTERNAL("bad labels");
    int by_column = Rf_asLogical(mcx_list_get(spec, "x_rows")) == TRUE;
    /* gather buffers for the threads of the algorithm's parallel passes */
    SEXP ctl = mcx_list_get(spec, "control");
    int threads = 1;
    if (ctl != R_NilValue && XLENGTH(ctl) > 0 && mcx_list_get(ctl, "threads") != R_NilValue)
        threads = (int) mcx_list_num(ctl, "threads");
    SEXP zbuf = ffi_workspace_labels(mcx_list_get(spec, "workspace"), labels, N);
    const void *sb = NULL;
    size_t nb = 0;
    if (stats != R_NilValue) {
        if (TYPEOF(stats) != RAWSXP) MCX_INTERNAL("state$stats must be raw");
        sb = RAW(stats);
        nb = (size_t) XLENGTH(stats);
    }
    mcx_mix_build_data(m, fam, hyper, REAL(x), N, dim, by_column, threads, INTEGER(labels),
                       zbuf != R_NilValue ? INTEGER(zbuf) : NULL, k_min, sb, nb);
    return zbuf;
}

void ffi_mix_export(const mcx_mix *m, SEXP *labels, SEXP *stats)
{
    *labels = PROTECT(Rf_allocVector(INTSXP, m->n));
    memcpy(INTEGER(*labels), m->z, (size_t) m->n * sizeof(int));
    *stats = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t) mcx_mix_stats_bytes(m)));
    memcpy(RAW(*stats), m->stats, mcx_mix_stats_bytes(m));
}

void ffi_mix_export_spec(const mcx_mix *m, SEXP zbuf, SEXP *labels, SEXP *stats)
{
    if (zbuf == R_NilValue) {
        ffi_mix_export(m, labels, stats);
        return;
    }
    *labels = PROTECT(zbuf);    /* m->z is this vector: no copy */
    *stats = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t) mcx_mix_stats_bytes(m)));
    memcpy(RAW(*stats), m->stats, mcx_mix_stats_bytes(m));
}

#define FINITE_STATE(X) X(labels) X(weights) X(params) X(stats)
enum { FINITE_STATE(MCX_FIELD_ENUM) FINITE_STATE_N };
static const char *const finite_state[] = {FINITE_STATE(MCX_FIELD_NAME) NULL};

/* One chunk (mcx_mix_chunk()): traces n_clusters, log_lik; labels
 * 1-based; the weights and parameters drawn when kept. */
typedef struct {
    mcx_mix *m;
    mcx_finite *fs;
    double *tr;
    int *lab;
    double *kw, *kp;
    int n_keep;
    size_t np;
} finite_run;

static double finite_sweep(void *ctx)
{
    finite_run *u = ctx;
    mcx_finite_sweep(u->m, u->fs);
    return u->fs->log_lik;
}

static void finite_keep(void *ctx, int r, double ll)
{
    finite_run *u = ctx;
    size_t nk = (size_t) u->n_keep;
    u->tr[r] = mcx_mix_n_occupied(u->m);
    u->tr[r + nk] = ll;
    if (u->lab != NULL)
        for (int i = 0; i < u->m->n; i++) u->lab[r + (size_t) i * nk] = u->m->z[i] + 1;
    if (u->kw != NULL)
        for (int k = 0; k < u->fs->K; k++) u->kw[r + (size_t) k * nk] = u->fs->weights[k];
    if (u->kp != NULL)
        for (size_t j = 0; j < u->np; j++) u->kp[r + j * nk] = u->fs->theta[j];
}

SEXP ffi_mix_step_run(SEXP (*body)(void *), SEXP spec, SEXP x, SEXP state, SEXP chunk)
{
    ffi_mix_step_args a = {spec, x, state, chunk};
    mcx_context(NULL);          /* none left over from an interrupted chunk */
    return ffi_workspace_run(mcx_list_get(spec, "workspace"), body, &a);
}

static SEXP finite_step(void *data)
{
    ffi_mix_step_args *a = data;
    SEXP spec = a->spec, state = a->state;
    mcx_chunk c = mcx_chunk_read(a->chunk);
    int dim = mcx_list_count(spec, "dim"), nprot = 0;
    int N = ffi_mix_n(a->x, dim);
    const char *alg = mcx_list_str(spec, "algorithm");
    int keep_w, keep_p;
    mcx_finite_algorithm al = mcx_finite_algorithm_find(alg, &keep_w, &keep_p);
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    /* every finite sampler needs a conjugate family (closed-form
     * predictive and marginal; param_draw an exact posterior draw) */
    if (!mcx_family_conjugate(fam))
        mcx_error("the family '%s' is not conjugate; the finite mixture algorithm '%s' "
                  "needs a conjugate family (for Dirichlet process mixtures use "
                  "algorithm = \"neal8\")", fam->name, alg);
    SEXP in[FINITE_STATE_N];
    mcx_list_fields(state, finite_state, in);
    if (TYPEOF(in[F_labels]) != INTSXP || XLENGTH(in[F_labels]) != N)
        MCX_INTERNAL("bad labels");
    int K = mcx_list_count(spec, "K");
    const double *alpha = mcx_list_real(spec, "alpha", K);
    const int *lab0 = INTEGER(in[F_labels]);
    for (int i = 0; i < N; i++)
        if (lab0[i] < 0 || lab0[i] >= K)
            MCX_INTERNAL("finite mixture label out of range");
    mcx_mix m;
    mcx_finite fs;
    SEXP zbuf = ffi_mix_open_spec(&m, fam, hyper, spec, a->x, dim, in[F_labels],
                                  in[F_stats], K);
    mcx_finite_setup(&fs, &m, al, K, alpha);
    size_t psize = fs.psize, np = psize * (size_t) K;
    /* carry the last weights and parameters (informational) */
    SEXP w0 = in[F_weights], p0 = in[F_params];
    if (TYPEOF(w0) == REALSXP && XLENGTH(w0) == K)
        memcpy(fs.weights, REAL(w0), (size_t) K * sizeof(double));
    if (TYPEOF(p0) == REALSXP && (size_t) XLENGTH(p0) == np)
        memcpy(fs.theta, REAL(p0), np * sizeof(double));

    const char *tn[] = {"n_clusters", "log_lik"};
    SEXP traces = PROTECT(mcx_chunk_matrix(&c, REALSXP, 2, tn)); nprot++;
    /* labels of the kept draws unless the fit keeps none (spec$store_labels) */
    int store = Rf_asLogical(mcx_list_get(spec, "store_labels")) != FALSE;
    SEXP labels = PROTECT(store ? mcx_chunk_matrix(&c, INTSXP, N, NULL) : R_NilValue); nprot++;
    SEXP kw = R_NilValue, kp = R_NilValue;
    if (keep_w) { kw = PROTECT(mcx_chunk_matrix(&c, REALSXP, K, NULL)); nprot++; }
    if (keep_p) { kp = PROTECT(mcx_chunk_matrix(&c, REALSXP, (int) np, NULL)); nprot++; }
    finite_run run = {&m, &fs, REAL(traces), store ? INTEGER(labels) : NULL,
                      keep_w ? REAL(kw) : NULL, keep_p ? REAL(kp) : NULL, c.n_kept, np};
    GetRNGstate();
    mcx_mix_chunk(&m, &c, finite_sweep, finite_keep, &run);
    PutRNGstate();

    SEXP out[FINITE_STATE_N];
    ffi_mix_export_spec(&m, zbuf, &out[F_labels], &out[F_stats]); nprot += 2;
    out[F_weights] = out[F_params] = R_NilValue;
    if (keep_w) {
        out[F_weights] = PROTECT(Rf_allocVector(REALSXP, K)); nprot++;
        memcpy(REAL(out[F_weights]), fs.weights, (size_t) K * sizeof(double));
    }
    if (keep_p) {
        out[F_params] = PROTECT(Rf_allocMatrix(REALSXP, (int) psize, K)); nprot++;
        memcpy(REAL(out[F_params]), fs.theta, np * sizeof(double));
    }
    SEXP st = PROTECT(mcx_named_list(finite_state, out)); nprot++;
    const char *on[] = {"state", "traces", "labels", "weights", "params", NULL};
    SEXP ov[] = {st, traces, labels, kw, kp};
    SEXP res = mcx_named_list(on, ov);
    UNPROTECT(nprot);
    return res;
}

SEXP ffi_finite_step(SEXP spec, SEXP x, SEXP state, SEXP chunk)
{
    return ffi_mix_step_run(finite_step, spec, x, state, chunk);
}

/* One CRP partition of n items: integer labels 1..K in order of appearance. */
SEXP ffi_rcrp(SEXP n_, SEXP alpha_, SEXP discount_)
{
    if (TYPEOF(n_) != INTSXP || XLENGTH(n_) != 1 || INTEGER(n_)[0] == NA_INTEGER)
        MCX_INTERNAL("n must be one integer");
    int n = INTEGER(n_)[0];
    if (n < 0 || TYPEOF(alpha_) != REALSXP || TYPEOF(discount_) != REALSXP ||
        XLENGTH(alpha_) != 1 || XLENGTH(discount_) != 1)
        mcx_error("mcmix internal error: bad arguments to rcrp");
    SEXP out = PROTECT(Rf_allocVector(INTSXP, n));
    int *counts = (int *) mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
    GetRNGstate();
    mcx_rcrp(n, REAL(alpha_)[0], REAL(discount_)[0], INTEGER(out), counts);
    PutRNGstate();
    UNPROTECT(1);
    return out;
}
