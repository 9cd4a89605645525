/*
 * ffi_rj.c -- .Call glue of the reversible-jump mixture samplers
 * (R/rjmcmc.R; engines mixture_rj.c and mixture_rj_collapsed.c).
 *
 * Both entry points have the shape ffi_<x>_step(spec, data, state, ctrl)
 * with ctrl = integer c(n, thin, offset, warmup), run the sweeps
 * offset + 1 .. offset + n (sweep g kept iff !warmup && g %% thin == 0)
 * and return list(state, traces, labels[, params]).  `state$counts` holds
 * the tries and acceptances of split, combine, birth and death (8 numbers),
 * accumulated over the chain.
 */
#include <string.h>
#include "mixture_rj.h"
#include "partition_map.h"
#include "model.h"
#include "ffi.h"
#include "ffi_list.h"
#include "ffi_textbook.h"

static void read_common(mcx_rj_common *rc, SEXP spec, SEXP state)
{
    rc->kmax = mcx_list_count(spec, "kmax");
    rc->logpk = mcx_list_real(spec, "logpk", rc->kmax);
    rc->delta = mcx_list_num(spec, "delta");
    const double *cnt = mcx_list_real(state, "counts", 2 * MCX_RJ_NMOVES);
    memcpy(rc->tries, cnt, MCX_RJ_NMOVES * sizeof(double));
    memcpy(rc->accepts, cnt + MCX_RJ_NMOVES, MCX_RJ_NMOVES * sizeof(double));
}

static SEXP counts_out(const mcx_rj_common *rc)
{
    SEXP out = Rf_allocVector(REALSXP, 2 * MCX_RJ_NMOVES);
    memcpy(REAL(out), rc->tries, MCX_RJ_NMOVES * sizeof(double));
    memcpy(REAL(out) + MCX_RJ_NMOVES, rc->accepts, MCX_RJ_NMOVES * sizeof(double));
    return out;
}

static SEXP real_vec(const double *x, int n)
{
    SEXP out = Rf_allocVector(REALSXP, n);
    if (n > 0) memcpy(REAL(out), x, (size_t) n * sizeof(double));
    return out;
}

static SEXP int_vec(const int *x, int n)
{
    SEXP out = Rf_allocVector(INTSXP, n);
    if (n > 0) memcpy(INTEGER(out), x, (size_t) n * sizeof(int));
    return out;
}

/* Richardson-Green.  spec: kmax, logpk, delta, xi, kappa, alpha, g, h.
 * state: k, w, mu, s2 (k each, ordered by mu), z (0-based), beta, counts.
 * traces: K, n_clusters, beta, log_lik; params: kept x 3 kmax (w, mu, s2
 * of the k components, NA beyond). */
SEXP ffi_rg_step(SEXP spec, SEXP y, SEXP state, SEXP ctrl)
{
    mcx_chunk ch = mcx_chunk_read(ctrl);
    if (TYPEOF(y) != REALSXP || XLENGTH(y) < 1) MCX_INTERNAL("y must be a double vector");
    int n = (int) XLENGTH(y);
    mcx_rg s;
    memset(&s, 0, sizeof s);
    read_common(&s.c, spec, state);
    mcx_rg_setup(&s, n, REAL(y), s.c.kmax);
    s.xi = mcx_list_num(spec, "xi");
    s.kappa = mcx_list_num(spec, "kappa");
    s.alpha = mcx_list_num(spec, "alpha");
    s.g = mcx_list_num(spec, "g");
    s.h = mcx_list_num(spec, "h");
    s.k = mcx_list_count(state, "k");
    if (s.k < 1 || s.k > s.c.kmax) MCX_INTERNAL("k out of range");
    memcpy(s.w, mcx_list_real(state, "w", s.k), (size_t) s.k * sizeof(double));
    memcpy(s.mu, mcx_list_real(state, "mu", s.k), (size_t) s.k * sizeof(double));
    memcpy(s.s2, mcx_list_real(state, "s2", s.k), (size_t) s.k * sizeof(double));
    memcpy(s.z, mcx_list_int(state, "z", n), (size_t) n * sizeof(int));
    s.beta = mcx_list_num(state, "beta");
    for (int i = 0; i < n; i++)
        if (s.z[i] < 0 || s.z[i] >= s.k) MCX_INTERNAL("label out of range");
    for (int j = 0; j < s.k; j++) s.nk[j] = 0;
    for (int i = 0; i < n; i++) s.nk[s.z[i]]++;

    int nk = ch.n_kept, kmax = s.c.kmax;
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, nk, 4));
    SEXP labels = PROTECT(Rf_allocMatrix(INTSXP, nk, n));
    SEXP params = PROTECT(Rf_allocMatrix(REALSXP, nk, 3 * kmax));
    double *tr = REAL(traces), *pa = REAL(params);
    for (R_xlen_t t = 0; t < XLENGTH(params); t++) pa[t] = NA_REAL;
    GetRNGstate();
    int r = 0;
    for (int g = ch.offset + 1; g <= ch.offset + ch.n; g++) {
        mcx_rg_sweep(&s);
        if (mcx_chunk_keeps(&ch, g)) {
            int occ = 0;
            for (int j = 0; j < s.k; j++) occ += s.nk[j] > 0;
            double row[4] = {s.k, occ, s.beta, mcx_rg_log_lik(&s)};
            for (int t = 0; t < 4; t++) tr[r + (size_t) t * nk] = row[t];
            for (int i = 0; i < n; i++) INTEGER(labels)[r + (size_t) i * nk] = s.z[i] + 1;
            for (int j = 0; j < s.k; j++) {
                pa[r + (size_t) j * nk] = s.w[j];
                pa[r + (size_t) (kmax + j) * nk] = s.mu[j];
                pa[r + (size_t) (2 * kmax + j) * nk] = s.s2[j];
            }
            r++;
        }
        /* allocations of the n points to k components, then the moves */
        if (g < ch.offset + ch.n) mcx_interrupt_point(8.0 * n * (s.k + 1));
    }
    PutRNGstate();
    const char *sn[] = {"k", "w", "mu", "s2", "z", "beta", "counts", NULL};
    SEXP sv[7];
    sv[0] = PROTECT(Rf_ScalarInteger(s.k));
    sv[1] = PROTECT(real_vec(s.w, s.k));
    sv[2] = PROTECT(real_vec(s.mu, s.k));
    sv[3] = PROTECT(real_vec(s.s2, s.k));
    sv[4] = PROTECT(int_vec(s.z, n));
    sv[5] = PROTECT(Rf_ScalarReal(s.beta));
    sv[6] = PROTECT(counts_out(&s.c));
    SEXP st = PROTECT(mcx_named_list(sn, sv));
    const char *on[] = {"state", "traces", "labels", "params", NULL};
    const SEXP ov[] = {st, traces, labels, params};
    SEXP out = mcx_named_list(on, ov);
    UNPROTECT(11);
    return out;
}

/* One chunk of the collapsed sampler (mcx_mix_chunk()): traces K,
 * n_clusters, log_post; labels 1-based. */
typedef struct { mcx_mix *m; mcx_rjc *s; double *tr; int *lab, n_keep; } rjc_run;

static double rjc_sweep(void *ctx)
{
    rjc_run *u = ctx;
    mcx_rjc_sweep(u->m, u->s);
    return 0.0;
}

static void rjc_keep(void *ctx, int r, double ll)
{
    rjc_run *u = ctx;
    size_t nk = (size_t) u->n_keep;
    (void) ll;
    double row[3] = {u->m->K, mcx_mix_n_occupied(u->m), mcx_rjc_log_post(u->m, u->s)};
    for (int t = 0; t < 3; t++) u->tr[r + (size_t) t * nk] = row[t];
    for (int i = 0; i < u->m->n; i++) u->lab[r + (size_t) i * nk] = u->m->z[i] + 1;
}

/* Collapsed.  spec: kmax, logpk, delta, family, dim, hyper.  data: dim x N.
 * state: K, labels (0-based, internal order), stats (raw or NULL), counts.
 * traces: K, n_clusters, log_post. */
SEXP ffi_rjc_step(SEXP spec, SEXP xt, SEXP state, SEXP ctrl)
{
    mcx_chunk ch = mcx_chunk_read(ctrl);
    SEXP fname = mcx_list_elt(spec, "family");
    if (TYPEOF(fname) != STRSXP || XLENGTH(fname) != 1) MCX_INTERNAL("family must be a string");
    const mcx_family *fam = mcx_get_family(CHAR(STRING_ELT(fname, 0)));
    if (!mcx_family_conjugate(fam))
        mcx_error("the family '%s' is not conjugate; collapsed reversible jump needs "
                  "a conjugate family", fam->name);
    int dim = mcx_list_count(spec, "dim");
    SEXP hyper_ = mcx_list_elt(spec, "hyper");
    if (TYPEOF(hyper_) != REALSXP || TYPEOF(xt) != REALSXP || dim < 1 ||
        XLENGTH(xt) % dim != 0 || XLENGTH(xt) == 0)
        MCX_INTERNAL("data must be a dim x N double matrix");
    int n = (int) (XLENGTH(xt) / dim);
    const void *hyper = mcx_family_hyper(fam, dim, REAL(hyper_), (int) XLENGTH(hyper_));
    mcx_rjc s;
    memset(&s, 0, sizeof s);
    read_common(&s.c, spec, state);
    int K = mcx_list_count(state, "K");
    const int *lab = mcx_list_int(state, "labels", n);
    if (K < 1 || K > s.c.kmax) MCX_INTERNAL("K out of range");
    for (int i = 0; i < n; i++) if (lab[i] < 0 || lab[i] >= K) MCX_INTERNAL("label out of range");
    mcx_mix m;
    ffi_mix_open(&m, fam, hyper, xt, dim, mcx_list_elt(state, "labels"),
                 mcx_list_elt(state, "stats"), K);
    mcx_rjc_setup(&s, &m, s.c.kmax);

    SEXP traces = PROTECT(mcx_chunk_matrix(&ch, REALSXP, 3, NULL));
    SEXP labels = PROTECT(mcx_chunk_matrix(&ch, INTSXP, n, NULL));
    rjc_run run = {&m, &s, REAL(traces), INTEGER(labels), ch.n_kept};
    GetRNGstate();
    mcx_mix_chunk(&m, &ch, rjc_sweep, rjc_keep, &run);
    PutRNGstate();
    const char *sn[] = {"K", "labels", "stats", "counts", NULL};
    SEXP sv[4];
    sv[0] = PROTECT(Rf_ScalarInteger(m.K));
    ffi_mix_export(&m, &sv[1], &sv[2]);
    sv[3] = PROTECT(counts_out(&s.c));
    SEXP st = PROTECT(mcx_named_list(sn, sv));
    const char *on[] = {"state", "traces", "labels", NULL};
    const SEXP ov[] = {st, traces, labels};
    SEXP out = mcx_named_list(on, ov);
    UNPROTECT(7);
    return out;
}

/* MAP partition by annealing then ICM (partition_map.c).  spec: family, dim,
 * hyper, finite (logical), K, a, alpha, d, max_icm.  labels: 0-based
 * initial partition (clusters 0..b-1 all used).  schedule: the powers of
 * the annealed sweeps; ICM sweeps follow until the log posterior stops
 * increasing (at most max_icm).  Returns list(labels = best partition
 * found, log_post = its log posterior, trace = log posterior after each
 * sweep). */
typedef struct { mcx_mix *m; mcx_icm *s; int *best; } map_ctx;

static void map_sweep(void *ctx, double power)
{
    map_ctx *c = ctx;
    mcx_icm_sweep(c->m, c->s, power);
}
static double map_log_post(void *ctx)
{
    map_ctx *c = ctx;
    return mcx_icm_log_post(c->m, c->s);
}
static void map_save(void *ctx)
{
    map_ctx *c = ctx;
    memcpy(c->best, c->m->z, (size_t) c->m->n * sizeof(int));
}

SEXP ffi_map_partition(SEXP spec, SEXP xt, SEXP labels, SEXP schedule)
{
    SEXP fname = mcx_list_elt(spec, "family");
    if (TYPEOF(fname) != STRSXP || XLENGTH(fname) != 1) MCX_INTERNAL("family must be a string");
    const mcx_family *fam = mcx_get_family(CHAR(STRING_ELT(fname, 0)));
    if (!mcx_family_conjugate(fam)) MCX_INTERNAL("family must be conjugate");
    int dim = mcx_list_count(spec, "dim");
    SEXP hyper_ = mcx_list_elt(spec, "hyper");
    if (TYPEOF(hyper_) != REALSXP || TYPEOF(xt) != REALSXP || dim < 1 ||
        XLENGTH(xt) % dim != 0 || XLENGTH(xt) == 0 || TYPEOF(schedule) != REALSXP)
        MCX_INTERNAL("bad data or schedule");
    int n = (int) (XLENGTH(xt) / dim), ns = (int) XLENGTH(schedule);
    if (TYPEOF(labels) != INTSXP || XLENGTH(labels) != n) MCX_INTERNAL("bad labels");
    const void *hyper = mcx_family_hyper(fam, dim, REAL(hyper_), (int) XLENGTH(hyper_));
    mcx_icm s;
    memset(&s, 0, sizeof s);
    s.finite = Rf_asLogical(mcx_list_elt(spec, "finite"));
    s.K = mcx_list_count(spec, "K");
    s.a = mcx_list_num(spec, "a");
    s.alpha = mcx_list_num(spec, "alpha");
    s.d = mcx_list_num(spec, "d");
    s.c = s.finite ? s.a : -s.d;
    int max_icm = mcx_list_count(spec, "max_icm");
    mcx_mix m;
    mcx_mix_build(&m, fam, hyper, REAL(xt), n, dim, INTEGER(labels), 0);
    for (int k = 0; k < m.K; k++) if (m.size[k] == 0) MCX_INTERNAL("empty initial cluster");
    mcx_icm_setup(&s, &m);
    SEXP best = PROTECT(Rf_allocVector(INTSXP, n));
    SEXP trace = PROTECT(Rf_allocVector(REALSXP, ns + max_icm));
    map_ctx ctx = {&m, &s, INTEGER(best)};
    mcx_icm_problem p = {&ctx, map_sweep, map_log_post, map_save,
                         (double) n * (m.K + 2) * (dim + 1)};
    double best_lp;
    GetRNGstate();
    int done = mcx_icm_run(&p, REAL(schedule), ns, max_icm, REAL(trace), &best_lp);
    PutRNGstate();
    SEXP tr = PROTECT(Rf_lengthgets(trace, done));
    SEXP lp_ = PROTECT(Rf_ScalarReal(best_lp));
    const char *on[] = {"labels", "log_post", "trace", NULL};
    const SEXP ov[] = {best, lp_, tr};
    SEXP out = mcx_named_list(on, ov);
    UNPROTECT(4);
    return out;
}
