/*
 * ffi_mixture_dp.c -- the one .Call glue routine of every Dirichlet /
 * Pitman-Yor mixture algorithm (the table of mixture_dp.h; R/mixture_dp.R).
 *
 * ffi_dp_step(spec, x, state, chunk) runs one chunk of one chain:
 *   x     = the data: R's N x dim matrix read in place when spec$x_rows is
 *           TRUE, else its dim x N transpose (ffi_mix_open_spec());
 *   spec  = list(family, dim, hyper, algorithm, alpha_prior = c(shape,
 *           rate) or numeric(0), discount_prior = c(a, b) or numeric(0),
 *           control = named list of the algorithm's settings (numbers),
 *           the names of its row's control_names, and check_moves = 1
 *           (tests) to verify the state after every move; x_rows; workspace =
 *           the chain's workspace (ffi_workspace.c) or NULL; the returned
 *           state's labels are then one of its label buffers);
 *           hyper: a double vector, or the list of R functions of an
 *           R-function family (ffi_family_open());
 *   state = the list DP_STATE below: labels 0-based in the engine's cluster
 *           order (for rows with empty_slots, e.g. "slice", the stick of
 *           each observation); alpha, discount; params / aux the row's
 *           double / integer blocks (NULL when fresh or when the row has
 *           none); stats the
 *           clusters' stats blocks as raw bytes (NULL when fresh: computed
 *           from the labels); n_accept / n_prop the row's counters (0 when
 *           it has none); online the online point estimate (NULL when
 *           fresh or without spec$online; ffi_mixture_online.h);
 *   chunk = c(n, thin, offset, warmup) (mcmix_chunk.h).
 * Returns list(state, traces = kept x p matrix (n_clusters, [alpha,]
 * [discount,] log_lik), labels = kept x N integer matrix, 1-based, clusters
 * numbered in the engine's order with empty slots skipped; NULL when
 * spec$store_labels is FALSE, the fit keeping no labels), labels_subset =
 * the same labels at the subsample spec$online$subset (kept x its length;
 * NULL without spec$online).
 * Everything random, the algorithm's setup included, happens inside one
 * GetRNGstate()/PutRNGstate() bracket: a fresh "neal8" state draws its
 * parameters from the chain's own stream.
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "mixture_dp.h"
#include "ffi_list.h"
#include "ffi.h"
#include "ffi_mixture_online.h"
#include "mixture_warm.h"
#include "family_registry.h"

#define DP_STATE(X) \
    X(labels) X(alpha) X(discount) X(params) X(aux) X(stats) X(n_accept) X(n_prop) \
    X(online)
enum { DP_STATE(MCX_FIELD_ENUM) DP_STATE_N };
static const char *const dp_state[] = {DP_STATE(MCX_FIELD_NAME) NULL};

/* The partition prior from the spec and the state. */
static void read_prior(mcx_partition_prior *pr, SEXP spec, SEXP *in, int n)
{
    SEXP ap = mcx_list_elt(spec, "alpha_prior"), dp = mcx_list_elt(spec, "discount_prior");
    if (TYPEOF(ap) != REALSXP || TYPEOF(dp) != REALSXP || TYPEOF(in[F_alpha]) != REALSXP ||
        TYPEOF(in[F_discount]) != REALSXP || XLENGTH(in[F_alpha]) != 1 ||
        XLENGTH(in[F_discount]) != 1)
        MCX_INTERNAL("priors, alpha and discount must be double vectors");
    memset(pr, 0, sizeof *pr);
    pr->alpha = REAL(in[F_alpha])[0];
    pr->discount = REAL(in[F_discount])[0];
    pr->alpha_random = XLENGTH(ap) == 2;
    pr->discount_random = XLENGTH(dp) == 2;
    if (pr->alpha_random) { pr->shape = REAL(ap)[0]; pr->rate = REAL(ap)[1]; }
    if (pr->discount_random) { pr->da = REAL(dp)[0]; pr->db = REAL(dp)[1]; }
    mcx_partition_prior_setup(pr, n);
}

/* The row's settings (spec$control, a named list of numbers), in the
 * order of its control_names.  A setting added to a row after a fit was
 * saved is missing from that fit's spec (the kernel's closure keeps the
 * spec it was built with); it reads as NaN, which every row's setup takes
 * as its default, so extend() continues such a fit. */
static double *read_control(const mcx_dp_algorithm *alg, SEXP spec)
{
    SEXP ctl = mcx_list_elt(spec, "control");
    int n = 0;
    while (alg->control_names[n] != NULL) n++;
    double *out = mcx_alloc((size_t) n + 1, sizeof(double));
    for (int j = 0; j < n; j++) {
        SEXP v = XLENGTH(ctl) > 0 ? mcx_list_get(ctl, alg->control_names[j]) : R_NilValue;
        out[j] = v == R_NilValue ? R_NaN : mcx_list_num(ctl, alg->control_names[j]);
    }
    return out;
}

/* One chunk of a row (mcx_mix_chunk()). */
typedef struct {
    const mcx_dp_algorithm *alg;
    void *st;
    mcx_mix *m;
    mcx_partition_prior *pr;
    double *tr;
    int *lab, n_keep, N;
    int renum_cap, *renum;   /* cluster renumbering of the kept draws */
    ffi_online *online;      /* subsample labels and online estimate, or NULL */
} dp_run;

/* One sweep, named by the row (internal errors found during it say so;
 * with the setting check_moves the state is verified after it). */
static double dp_sweep(void *ctx)
{
    dp_run *u = ctx;
    double ll;
    MCX_MIX_MOVE(u->m, u->alg->name, ll = u->alg->sweep(u->st, u->m, u->pr));
    return ll;
}

/* Traces n_clusters, [alpha,] [discount,] log_lik and the labels numbered
 * without gaps.  The renumbering buffer is sized once for the chunk: m->K
 * <= N except for rows with empty slots, whose number of slots is bounded
 * by their capacity at the start of the chunk unless that grows (it
 * follows the smallest slice variable), so the buffer then grows by
 * doubling like the sampler's own arrays: amortised, O(log K) allocations
 * per chunk at most, none once the capacity suffices. */
static void dp_keep(void *ctx, int r, double ll)
{
    dp_run *u = ctx;
    const mcx_mix *m = u->m;
    size_t nk = (size_t) u->n_keep;
    int col = 0;
    u->tr[r + (col++) * nk] = mcx_mix_n_occupied(m);
    if (u->pr->alpha_random) u->tr[r + (col++) * nk] = u->pr->alpha;
    if (u->pr->discount_random) u->tr[r + (col++) * nk] = u->pr->discount;
    u->tr[r + col * nk] = ll;
    if (u->lab == NULL && u->online == NULL) return;   /* the fit keeps no labels */
    if (m->K > u->renum_cap) {
        u->renum_cap = 2 * m->K;
        u->renum = mcx_alloc((size_t) u->renum_cap, sizeof(int));
    }
    int next = 0;
    for (int k = 0; k < m->K; k++) u->renum[k] = m->size[k] > 0 ? ++next : 0;
    if (u->lab != NULL)
        for (int i = 0; i < u->N; i++) u->lab[r + (size_t) i * nk] = u->renum[m->z[i]];
    if (u->online != NULL) ffi_online_keep(u->online, r, m->z, u->renum, next);
}

static SEXP dp_step(void *data)
{
    ffi_mix_step_args *a = data;
    SEXP spec = a->spec, state = a->state;
    mcx_chunk c = mcx_chunk_read(a->chunk);
    int dim = mcx_list_count(spec, "dim");
    int N = ffi_mix_n(a->x, dim), nprot = 0;
    const mcx_dp_algorithm *alg = mcx_dp_algorithm_find(mcx_list_str(spec, "algorithm"));
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    if (alg->conjugate_only && !mcx_family_conjugate(fam))
        mcx_error("mcmix internal error: algorithm '%s' needs a conjugate family", alg->name);
    SEXP in[DP_STATE_N];
    mcx_list_fields(state, dp_state, in);
    mcx_partition_prior pr;
    read_prior(&pr, spec, in, N);
    if (pr.discount_random && !alg->random_discount)
        mcx_error("mcmix internal error: algorithm '%s' with a random discount", alg->name);
    double *control = read_control(alg, spec);

    /* the partition, from the labels and the exported stats */
    if (TYPEOF(in[F_labels]) != INTSXP || XLENGTH(in[F_labels]) != N)
        MCX_INTERNAL("bad labels");
    const int *lab0 = INTEGER(in[F_labels]);
    int kmin = 0;
    if (alg->empty_slots)
        for (int i = 0; i < N; i++)
            if (lab0[i] + 1 > kmin) kmin = lab0[i] + 1;
    mcx_mix m;
    SEXP zbuf = ffi_mix_open_spec(&m, fam, hyper, spec, a->x, dim, in[F_labels],
                                  in[F_stats], kmin);
    if (!alg->empty_slots)
        for (int k = 0; k < m.K; k++)
            if (m.size[k] == 0) MCX_INTERNAL("DP state with an empty cluster");
    /* check_moves (tests only, any row): verify the state after every
     * sweep, and after every move of the rows that name theirs */
    SEXP ctl = mcx_list_elt(spec, "control");    /* list() (no names) for rows without settings */
    SEXP chk = XLENGTH(ctl) > 0 ? mcx_list_get(ctl, "check_moves") : R_NilValue;
    if (chk != R_NilValue && Rf_asReal(chk) != 0.0) mcx_mix_check_enable(&m, alg->empty_slots);
    mcx_dp_saved saved = {NULL, 0, NULL, 0, c.n};
    if (in[F_params] != R_NilValue) {
        if (TYPEOF(in[F_params]) != REALSXP) MCX_INTERNAL("state$params must be double");
        saved.params = REAL(in[F_params]);
        saved.n_params = (size_t) XLENGTH(in[F_params]);
    }
    if (in[F_aux] != R_NilValue) {
        if (TYPEOF(in[F_aux]) != INTSXP) MCX_INTERNAL("state$aux must be integer");
        saved.aux = INTEGER(in[F_aux]);
        saved.n_aux = (size_t) XLENGTH(in[F_aux]);
    }

    const char *tn[4];
    int p = 0;
    tn[p++] = "n_clusters";
    if (pr.alpha_random) tn[p++] = "alpha";
    if (pr.discount_random) tn[p++] = "discount";
    tn[p++] = "log_lik";
    SEXP traces = PROTECT(mcx_chunk_matrix(&c, REALSXP, p, tn)); nprot++;
    /* labels of the kept draws unless the fit keeps none (spec$store_labels) */
    int store = Rf_asLogical(mcx_list_elt(spec, "store_labels")) == TRUE;
    SEXP labels = PROTECT(store ? mcx_chunk_matrix(&c, INTSXP, N, NULL) : R_NilValue); nprot++;
    /* labels of a subsample and the online estimate (spec$online) */
    ffi_online onl;
    int online = ffi_online_open(&onl, spec, in[F_online], N, &c, &nprot);
    void *st = mcx_alloc(alg->state_size > 0 ? alg->state_size : 1, 1);
    memset(st, 0, alg->state_size);

    GetRNGstate();
    alg->setup(st, &m, &pr, control, &saved);
    double *counts = alg->counters ? alg->counters(st) : NULL;
    if (counts != NULL) {
        counts[0] = mcx_list_num(state, "n_accept");
        counts[1] = mcx_list_num(state, "n_prop");
    }
    dp_run run = {alg, st, &m, &pr, REAL(traces), store ? INTEGER(labels) : NULL, c.n_kept,
                  N, 0, NULL, online ? &onl : NULL};
    run.renum_cap = N + 1;
    if (alg->capacity != NULL && alg->capacity(st) > run.renum_cap)
        run.renum_cap = alg->capacity(st);
    run.renum = mcx_alloc(store || online ? (size_t) run.renum_cap : 1, sizeof(int));
    mcx_mix_chunk(&m, &c, dp_sweep, dp_keep, &run);
    PutRNGstate();

    SEXP out[DP_STATE_N];
    ffi_mix_export_spec(&m, zbuf, &out[F_labels], &out[F_stats]); nprot += 2;
    out[F_params] = R_NilValue;
    int prows = 0, pcols = 0;
    const double *th = alg->params != NULL ? alg->params(st, &m, &prows, &pcols) : NULL;
    if (th != NULL) {     /* a row may export no block (NULL) */
        out[F_params] = PROTECT(Rf_allocMatrix(REALSXP, prows, pcols)); nprot++;
        memcpy(REAL(out[F_params]), th, (size_t) prows * pcols * sizeof(double));
    }
    out[F_aux] = R_NilValue;
    if (alg->aux != NULL) {
        int len;
        const int *ax = alg->aux(st, &m, &len);
        out[F_aux] = PROTECT(Rf_allocVector(INTSXP, len)); nprot++;
        if (len > 0) memcpy(INTEGER(out[F_aux]), ax, (size_t) len * sizeof(int));
    }
    out[F_alpha] = PROTECT(Rf_ScalarReal(pr.alpha)); nprot++;
    out[F_discount] = PROTECT(Rf_ScalarReal(pr.discount)); nprot++;
    out[F_n_accept] = PROTECT(Rf_ScalarReal(counts ? counts[0] : 0.0)); nprot++;
    out[F_n_prop] = PROTECT(Rf_ScalarReal(counts ? counts[1] : 0.0)); nprot++;
    out[F_online] = online ? ffi_online_state(&onl, &nprot) : R_NilValue;
    SEXP st_out = PROTECT(mcx_named_list(dp_state, out)); nprot++;
    const char *on[] = {"state", "traces", "labels", "labels_subset", NULL};
    SEXP ov[] = {st_out, traces, labels, online ? onl.sub_labels : R_NilValue};
    SEXP res = mcx_named_list(on, ov);
    UNPROTECT(nprot);
    return res;
}

SEXP ffi_dp_step(SEXP spec, SEXP x, SEXP state, SEXP chunk)
{
    return ffi_mix_step_run(dp_step, spec, x, state, chunk);
}

/*
 * ffi_dp_warm_allocate(spec, x, sub, lab, range, out): observations
 * range[0] .. range[1] - 1 (0-based) allocated to the clusters of the
 * subsample's partition (mixture_warm.h): sub the 0-based observations of
 * the subsample, lab their 0-based labels (every value in 0 .. K-1 used);
 * x and spec (family, dim, hyper, x_rows, control$threads) as for
 * ffi_dp_step().  The labels of the range are written into the integer
 * vector `out` (N) in place: the R caller (R/mixture_warm.R) allocates it
 * fresh and unshared for this purpose and cuts the observations into
 * ranges, so that an interrupt is served between them without N integers
 * of garbage per range.  Returns NULL.
 */
SEXP ffi_dp_warm_allocate(SEXP spec, SEXP x, SEXP sub, SEXP lab, SEXP range, SEXP out)
{
    int nprot = 0, dim = mcx_list_count(spec, "dim");
    int N = ffi_mix_n(x, dim);
    if (TYPEOF(sub) != INTSXP || TYPEOF(lab) != INTSXP || XLENGTH(sub) != XLENGTH(lab) ||
        XLENGTH(sub) < 1 || TYPEOF(range) != REALSXP || XLENGTH(range) != 2)
        MCX_INTERNAL("bad warm start arguments");
    long lo = (long) REAL(range)[0], hi = (long) REAL(range)[1];
    if (lo < 0 || hi < lo || hi > N) MCX_INTERNAL("bad warm start range");
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    if (!mcx_family_conjugate(fam))
        MCX_INTERNAL("the warm start needs a conjugate family");
    SEXP ctl = mcx_list_get(spec, "control");
    int threads = 1;
    if (ctl != R_NilValue && XLENGTH(ctl) > 0 && mcx_list_get(ctl, "threads") != R_NilValue)
        threads = (int) mcx_list_num(ctl, "threads");
    if (threads < 1 || !mcx_family_thread_safe(fam)) threads = 1;
    int m = (int) XLENGTH(sub), K = 0;
    for (int r = 0; r < m; r++)
        if (INTEGER(lab)[r] + 1 > K) K = INTEGER(lab)[r] + 1;
    mcx_warm_data d = {REAL(x), N, dim, Rf_asLogical(mcx_list_get(spec, "x_rows")) == TRUE};
    size_t stride = fam->stats_size(hyper), wsz = fam->work_size(hyper);
    if (wsz < 1) wsz = 1;
    size_t tstride = (((size_t) dim + wsz + 7) / 8) * 8 + 8;  /* whole cache lines apart */
    double *stats = mcx_alloc((size_t) K * stride, sizeof(double));
    int *size = mcx_alloc((size_t) K, sizeof(int));
    double *logn = mcx_alloc((size_t) K, sizeof(double));
    double *tscr = mcx_alloc((size_t) threads * tstride, sizeof(double));
    mcx_warm_stats(fam, hyper, &d, INTEGER(sub), INTEGER(lab), m, K, stats, stride, size,
                   tscr, tscr + dim);
    if (TYPEOF(out) != INTSXP || XLENGTH(out) != N) MCX_INTERNAL("bad warm start labels");
    mcx_warm_allocate(fam, hyper, &d, stats, stride, size, K, lo, hi, threads, tscr, tstride,
                      logn, INTEGER(out) + lo);
    UNPROTECT(nprot);
    return R_NilValue;
}
