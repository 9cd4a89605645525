/*
 * ffi_mixture_dp.c -- .Call glue of the further DP / Pitman-Yor mixture
 * samplers (mixture_dpx.h; R/mixture_dp.R) and of the posterior predictive
 * of mixture fits (R/predict.R).
 *
 * ffi_dpx_step(spec, xt, state, n, thin, offset, warmup, rfam) runs one
 * chunk of one chain, like ffi_mixture_step() (ffi_mixture.c):
 *   spec  = list(family, dim, hyper, algorithm = "collapsed" | "neal8" |
 *                "slice" | "split_merge", alpha_prior = c(shape, rate) or
 *                numeric(0), discount_prior = c(a, b) or numeric(0),
 *                m_aux, geometric, kappa, t, moves)
 *   state = list(labels, alpha, discount, params, stats, n_accept, n_prop):
 *           labels 0-based in the engine's cluster order ("slice": the
 *           stick of each observation, empty sticks allowed); params the
 *           psize x K cluster parameters ("neal8", else NULL); stats the
 *           clusters' stats blocks as raw bytes (NULL when fresh);
 *           n_accept / n_prop the split-merge counters.
 *   rfam  = NULL, or the R-function family (family_r.h) when
 *           spec$family == "r_family".
 * Returns list(state, traces = kept x p matrix (n_clusters, [alpha,]
 * [discount,] log_lik), labels = kept x N integer matrix, 1-based, clusters
 * numbered in the engine's order (sticks renumbered without gaps)).
 */
#include <string.h>
#include <stdlib.h>
#include <R.h>
#include <Rinternals.h>
#include "mixture_dpx.h"
#include "family_r.h"
#include "ffi_list.h"
#include "ffi.h"

enum { ALG_COLLAPSED, ALG_NEAL8, ALG_SLICE, ALG_SPLITMERGE };

static int one_int(SEXP v, const char *what)
{
    if (TYPEOF(v) != INTSXP || XLENGTH(v) != 1 || INTEGER(v)[0] == NA_INTEGER)
        mcx_error("mcmix internal error: '%s' must be one integer", what);
    return INTEGER(v)[0];
}

static const char *one_str(SEXP list, const char *name)
{
    SEXP v = mcx_list_elt(list, name);
    if (TYPEOF(v) != STRSXP || XLENGTH(v) != 1)
        mcx_error("mcmix internal error: '%s' must be a string", name);
    return CHAR(STRING_ELT(v, 0));
}

/* the family: registered by name, or the R-function family */
static int open_family(SEXP spec, SEXP rfam, int dim, const mcx_family **fam,
                       const void **hyper)
{
    const char *name = one_str(spec, "family");
    if (strcmp(name, "r_family") == 0) {
        if (rfam == R_NilValue) MCX_INTERNAL("the R family needs its functions");
        return mcx_r_family_open(rfam, dim, fam, hyper);
    }
    *fam = mcx_get_family(name);
    SEXP h = mcx_list_elt(spec, "hyper");
    if (TYPEOF(h) != REALSXP) MCX_INTERNAL("hyper must be double");
    *hyper = mcx_family_hyper(*fam, dim, REAL(h), (int) XLENGTH(h));
    return 0;
}

SEXP ffi_dpx_step(SEXP spec, SEXP xt, SEXP state, SEXP n_, SEXP thin_,
                  SEXP offset_, SEXP warmup_, SEXP rfam)
{
    int n_iter = one_int(n_, "n"), thin = one_int(thin_, "thin");
    int offset = one_int(offset_, "offset");
    int warmup = Rf_asLogical(warmup_);
    if (n_iter < 0 || thin < 1 || offset < 0 || warmup == NA_LOGICAL)
        mcx_error("mcmix internal error: bad chunk arguments");
    int dim = mcx_list_count(spec, "dim");
    if (TYPEOF(xt) != REALSXP || dim < 1 || XLENGTH(xt) % dim != 0)
        mcx_error("mcmix internal error: data must be a dim x N double matrix");
    int N = (int) (XLENGTH(xt) / dim);
    const char *an = one_str(spec, "algorithm");
    int alg = strcmp(an, "collapsed") == 0 ? ALG_COLLAPSED :
        strcmp(an, "neal8") == 0 ? ALG_NEAL8 : strcmp(an, "slice") == 0 ? ALG_SLICE :
        strcmp(an, "split_merge") == 0 ? ALG_SPLITMERGE : -1;
    if (alg < 0) mcx_error("mcmix internal error: unknown DP algorithm '%s'", an);

    int nprot = 0;
    const mcx_family *fam;
    const void *hyper;
    nprot += open_family(spec, rfam, dim, &fam, &hyper);
    if (alg != ALG_NEAL8 && !mcx_family_conjugate(fam))
        mcx_error("mcmix internal error: algorithm '%s' needs a conjugate family", an);

    mcx_py_prior pr;
    memset(&pr, 0, sizeof pr);
    SEXP ap = mcx_list_elt(spec, "alpha_prior"), dpr = mcx_list_elt(spec, "discount_prior");
    if (TYPEOF(ap) != REALSXP || TYPEOF(dpr) != REALSXP)
        MCX_INTERNAL("priors must be double vectors");
    pr.alpha = mcx_list_num(state, "alpha");
    pr.discount = mcx_list_num(state, "discount");
    pr.alpha_random = XLENGTH(ap) == 2;
    pr.discount_random = XLENGTH(dpr) == 2;
    if (pr.alpha_random) { pr.shape = REAL(ap)[0]; pr.rate = REAL(ap)[1]; }
    if (pr.discount_random) { pr.da = REAL(dpr)[0]; pr.db = REAL(dpr)[1]; }
    if (!(pr.discount >= 0.0 && pr.discount < 1.0) || !(pr.alpha > -pr.discount) ||
        (pr.alpha_random && (pr.discount != 0.0 || pr.discount_random)))
        MCX_INTERNAL("invalid concentration or discount");

    SEXP lab_ = mcx_list_elt(state, "labels");
    if (TYPEOF(lab_) != INTSXP || XLENGTH(lab_) != N) MCX_INTERNAL("bad labels");
    mcx_mix m;
    int kmin = 0;         /* "slice": stick labels may exceed N */
    if (alg == ALG_SLICE)
        for (int i = 0; i < N; i++)
            if (INTEGER(lab_)[i] + 1 > kmin) kmin = INTEGER(lab_)[i] + 1;
    mcx_mix_build(&m, fam, hyper, REAL(xt), N, dim, INTEGER(lab_), kmin);
    if (alg != ALG_SLICE)
        for (int k = 0; k < m.K; k++)
            if (m.size[k] == 0) MCX_INTERNAL("DP state with an empty cluster");
    SEXP stats_ = mcx_list_elt(state, "stats");
    if (stats_ != R_NilValue) {
        if (TYPEOF(stats_) != RAWSXP) MCX_INTERNAL("state$stats must be raw");
        mcx_mix_restore_stats(&m, RAW(stats_), (size_t) XLENGTH(stats_));
    }

    mcx_dp ds;
    mcx_neal8 n8;
    mcx_slice sl;
    mcx_splitmerge sm;
    if (alg == ALG_COLLAPSED || alg == ALG_SPLITMERGE) {
        mcx_dp_setup(&ds, &m, pr.alpha, pr.discount, 0, 0.0, 0.0);
        if (alg == ALG_SPLITMERGE) {
            mcx_splitmerge_setup(&sm, &m, mcx_list_count(spec, "t"),
                                 mcx_list_count(spec, "moves"));
            sm.n_accept = mcx_list_num(state, "n_accept");
            sm.n_prop = mcx_list_num(state, "n_prop");
        }
    } else if (alg == ALG_NEAL8) {
        SEXP p0 = mcx_list_elt(state, "params");
        size_t ps = fam->param_size(hyper);
        if (p0 != R_NilValue &&
            (TYPEOF(p0) != REALSXP || XLENGTH(p0) != (R_xlen_t) (ps * (size_t) m.K)))
            MCX_INTERNAL("state$params does not match the clusters");
        mcx_neal8_setup(&n8, &m, &pr, mcx_list_count(spec, "m_aux"),
                        p0 == R_NilValue ? NULL : REAL(p0));
    } else {
        if (pr.discount_random) MCX_INTERNAL("slice sampler with a random discount");
        mcx_slice_setup(&sl, &m, mcx_list_count(spec, "geometric"),
                        mcx_list_num(spec, "kappa"));
        /* budget (R/mixture_dp.R slice_budget()): bytes and label work per stick */
        const double *bud = REAL(mcx_list_elt(spec, "budget"));
        double per_stick = 8.0 * ((double) sl.psize + (double) m.sstride + 8.0);
        sl.max_sticks = fmin(bud[0] / per_stick, fmax(1000.0, bud[1] / m.n));
    }

    int n_keep = 0;
    if (!warmup)
        for (int g = offset + 1; g <= offset + n_iter; g++) n_keep += g % thin == 0;
    int p = 2 + pr.alpha_random + pr.discount_random;
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, n_keep, p)); nprot++;
    SEXP labels = PROTECT(Rf_allocMatrix(INTSXP, n_keep, N)); nprot++;
    double *tr = REAL(traces);
    int *lab = INTEGER(labels);
    /* cluster renumbering of the kept draws, sized once for the chunk:
     * m.K <= N except for "slice", whose sticks are bounded by its own
     * capacity at the start of the chunk unless that grows. The number of
     * sticks has no fixed bound (it follows the smallest slice variable),
     * so the buffer then grows by doubling, like the slice sampler's own
     * arrays (mixture_slice.c, grow()): amortised, O(log K) allocations
     * per chunk at most, none once the capacity suffices. */
    int renum_cap = N + 1;
    if (alg == ALG_SLICE && sl.cap > renum_cap) renum_cap = sl.cap;
    int *renum = mcx_alloc((size_t) renum_cap, sizeof(int));

    GetRNGstate();
    int r = 0;
    for (int g = offset + 1; g <= offset + n_iter; g++) {
        double ll;
        switch (alg) {
        case ALG_COLLAPSED:
            mcx_dp_collapsed_sweep(&m, &ds);
            ll = ds.log_lik;
            mcx_py_prior_update(&pr, &m, &ds);
            break;
        case ALG_SPLITMERGE:
            mcx_splitmerge_moves(&m, &sm, &ds);
            mcx_dp_collapsed_sweep(&m, &ds);
            ll = ds.log_lik;
            mcx_py_prior_update(&pr, &m, &ds);
            break;
        case ALG_NEAL8:
            mcx_neal8_sweep(&m, &n8, &pr);
            ll = n8.log_lik;
            break;
        default:
            mcx_slice_sweep(&m, &sl, &pr);
            ll = sl.log_lik;
            break;
        }
        if (g % MCX_REFRESH_EVERY == 0) mcx_mix_refresh(&m);
        if (!warmup && g % thin == 0) {
            int col = 0;
            tr[r + (size_t) (col++) * n_keep] = mcx_mix_n_occupied(&m);
            if (pr.alpha_random) tr[r + (size_t) (col++) * n_keep] = pr.alpha;
            if (pr.discount_random) tr[r + (size_t) (col++) * n_keep] = pr.discount;
            tr[r + (size_t) col * n_keep] = ll;
            if (m.K > renum_cap) {
                renum_cap = 2 * m.K;
                renum = mcx_alloc((size_t) renum_cap, sizeof(int));
            }
            int next = 0;
            for (int k = 0; k < m.K; k++) renum[k] = m.size[k] > 0 ? ++next : 0;
            for (int i = 0; i < N; i++) lab[r + (size_t) i * n_keep] = renum[m.z[i]];
            r++;
        }
        if (g < offset + n_iter) R_CheckUserInterrupt();
    }
    PutRNGstate();

    SEXP tnames = PROTECT(Rf_allocVector(STRSXP, p)); nprot++;
    int col = 0;
    SET_STRING_ELT(tnames, col++, Rf_mkChar("n_clusters"));
    if (pr.alpha_random) SET_STRING_ELT(tnames, col++, Rf_mkChar("alpha"));
    if (pr.discount_random) SET_STRING_ELT(tnames, col++, Rf_mkChar("discount"));
    SET_STRING_ELT(tnames, col, Rf_mkChar("log_lik"));
    SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2)); nprot++;
    SET_VECTOR_ELT(dn, 1, tnames);
    Rf_setAttrib(traces, R_DimNamesSymbol, dn);

    SEXP nl = PROTECT(Rf_allocVector(INTSXP, N)); nprot++;
    memcpy(INTEGER(nl), m.z, (size_t) N * sizeof(int));
    SEXP sb = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t) mcx_mix_stats_bytes(&m))); nprot++;
    memcpy(RAW(sb), m.stats, mcx_mix_stats_bytes(&m));
    SEXP th = R_NilValue;
    if (alg == ALG_NEAL8) {
        th = PROTECT(Rf_allocMatrix(REALSXP, (int) n8.psize, m.K)); nprot++;
        memcpy(REAL(th), n8.theta, n8.psize * (size_t) m.K * sizeof(double));
    }
    SEXP a = PROTECT(Rf_ScalarReal(pr.alpha)); nprot++;
    SEXP d = PROTECT(Rf_ScalarReal(pr.discount)); nprot++;
    SEXP na = PROTECT(Rf_ScalarReal(alg == ALG_SPLITMERGE ? sm.n_accept : 0.0)); nprot++;
    SEXP np = PROTECT(Rf_ScalarReal(alg == ALG_SPLITMERGE ? sm.n_prop : 0.0)); nprot++;
    const char *sn[] = {"labels", "alpha", "discount", "params", "stats",
                        "n_accept", "n_prop", NULL};
    SEXP sv[] = {nl, a, d, th, sb, na, np};
    SEXP st = PROTECT(mcx_named_list(sn, sv)); nprot++;
    const char *on[] = {"state", "traces", "labels", NULL};
    SEXP ov[] = {st, traces, labels};
    SEXP out = mcx_named_list(on, ov);
    UNPROTECT(nprot);
    return out;
}

/*
 * ffi_mixture_predict(family, dim, hyper, xt, labels, weights, newx, est)
 * Posterior predictive of a conjugate mixture fit at new points.
 *   labels  S x N integer matrix (kept draws; labels >= 1, any numbering);
 *   weights S x 3 matrix: per draw (alpha, discount, finite K or 0): the
 *           predictive weights are (n_k - d) / (alpha + N) for the clusters
 *           and (alpha + d K) / (alpha + N) for a new one (DP / Pitman-Yor;
 *           Pitman 2006 eq. 3.1); for a finite mixture of K components with
 *           symmetric Dirichlet(alpha / K) weights, (n_k + alpha / K) /
 *           (alpha + N) for each of the K components (empty ones with the
 *           prior predictive);
 *   newx    dim x M new points;
 *   est     NULL: returns the S x M matrix of predictive densities
 *           p(x_new | x, z^(s)) = sum_k w_k p(x_new | x_k) + w_0 p(x_new);
 *           else an integer vector of N labels 1..C (a point estimate of
 *           the partition): returns the M x C matrix, averaged over draws,
 *           of the probability that x_new joins the draw's cluster of a
 *           member of estimated cluster c, averaged over its members.
 */
SEXP ffi_mixture_predict(SEXP family, SEXP dim_, SEXP hyper_, SEXP xt, SEXP labels,
                         SEXP weights, SEXP newx, SEXP est)
{
    int dim = Rf_asInteger(dim_);
    const mcx_family *fam = mcx_get_family(CHAR(STRING_ELT(family, 0)));
    if (!mcx_family_conjugate(fam))
        mcx_error("mcmix internal error: predictive densities need a conjugate family");
    if (TYPEOF(hyper_) != REALSXP || TYPEOF(xt) != REALSXP || TYPEOF(newx) != REALSXP ||
        TYPEOF(labels) != INTSXP || TYPEOF(weights) != REALSXP || dim < 1)
        MCX_INTERNAL("bad arguments");
    const void *hyper = mcx_family_hyper(fam, dim, REAL(hyper_), (int) XLENGTH(hyper_));
    int N = (int) (XLENGTH(xt) / dim), M = (int) (XLENGTH(newx) / dim);
    int S = Rf_nrows(labels);
    if (Rf_ncols(labels) != N || Rf_nrows(weights) != S || Rf_ncols(weights) != 3)
        MCX_INTERNAL("labels / weights do not match");
    int C = 0;
    if (est != R_NilValue) {
        if (TYPEOF(est) != INTSXP || XLENGTH(est) != N) MCX_INTERNAL("bad estimate");
        for (int i = 0; i < N; i++) {
            if (INTEGER(est)[i] < 1) MCX_INTERNAL("bad estimate");
            if (INTEGER(est)[i] > C) C = INTEGER(est)[i];
        }
    }
    const int *L = INTEGER(labels);
    const double *W = REAL(weights);
    int *z = mcx_alloc((size_t) N, sizeof(int));
    int *code = mcx_alloc((size_t) N + 1, sizeof(int));
    double *prior = mcx_alloc((size_t) (M > 0 ? M : 1), sizeof(double));
    int kmax = N;
    for (int s = 0; s < S; s++)
        if (W[s + 2 * (size_t) S] > kmax) kmax = (int) W[s + 2 * (size_t) S];
    double *lp = mcx_alloc((size_t) kmax + 2, sizeof(double));
    double *lv = mcx_alloc((size_t) kmax + 2, sizeof(double));
    double *share = mcx_alloc((size_t) (C > 0 ? C : 1) * ((size_t) kmax + 1), sizeof(double));
    int *csize = mcx_alloc((size_t) C + 1, sizeof(int));
    mcx_mix m;
    int *none = mcx_alloc((size_t) N, sizeof(int));
    for (int i = 0; i < N; i++) none[i] = -1;
    mcx_mix_build(&m, fam, hyper, REAL(xt), N, dim, none, 0);
    for (int j = 0; j < M; j++)
        prior[j] = fam->log_predictive(hyper, m.empty, REAL(newx) + (size_t) j * dim, m.work);
    for (int c = 0; c <= C; c++) csize[c] = 0;
    if (C > 0) for (int i = 0; i < N; i++) csize[INTEGER(est)[i] - 1]++;

    SEXP out = PROTECT(est == R_NilValue ? Rf_allocMatrix(REALSXP, S, M)
                                         : Rf_allocMatrix(REALSXP, M, C));
    double *o = REAL(out);
    memset(o, 0, (size_t) XLENGTH(out) * sizeof(double));
    for (int s = 0; s < S; s++) {
        /* relabel the draw 0..K-1 and rebuild the clusters */
        for (int i = 0; i <= N; i++) code[i] = -1;
        int K = 0;
        for (int i = 0; i < N; i++) {
            int l = L[s + (size_t) i * S];
            if (l < 1 || l > N) MCX_INTERNAL("label out of range");
            if (code[l] < 0) code[l] = K++;
            z[i] = code[l];
        }
        int Kfin = (int) W[s + 2 * (size_t) S];
        double alpha = W[s], d = W[s + (size_t) S];
        /* rebuild the clusters in the same buffers (no allocation per draw,
         * except the amortised growth of the cluster buffers) */
        m.K = 0;
        int Kneed = Kfin > K ? Kfin : K;
        while (m.K < Kneed) mcx_mix_new_cluster(&m);
        for (int i = 0; i < N; i++) {
            m.z[i] = -1;
            mcx_mix_add(&m, i, z[i]);
        }
        int Kc = m.K;
        double denom = log(alpha + N);
        for (int k = 0; k < Kc; k++)
            lp[k] = Kfin > 0 ? log(m.size[k] + alpha / Kfin) - denom
                             : log(m.size[k] - d) - denom;
        double lnew = Kfin > 0 ? R_NegInf : log(alpha + d * K) - denom;
        if (C > 0) {
            /* share[c * (K+1) + k]: fraction of est. cluster c's members in k */
            memset(share, 0, (size_t) C * (Kc + 1) * sizeof(double));
            for (int i = 0; i < N; i++) {
                int c = INTEGER(est)[i] - 1;
                share[(size_t) c * (Kc + 1) + z[i]] += 1.0 / csize[c];
            }
        }
        for (int j = 0; j < M; j++) {
            const double *xj = REAL(newx) + (size_t) j * dim;
            double best = lnew + prior[j];
            for (int k = 0; k < Kc; k++) {
                lv[k] = lp[k] + fam->log_predictive(hyper, mcx_mix_stats(&m, k), xj, m.work);
                if (lv[k] > best) best = lv[k];
            }
            double tot = lnew > R_NegInf ? exp(lnew + prior[j] - best) : 0.0;
            for (int k = 0; k < Kc; k++) tot += exp(lv[k] - best);
            if (est == R_NilValue) {
                o[s + (size_t) j * S] = exp(best) * tot;
                continue;
            }
            for (int k = 0; k < Kc; k++) {
                double pk = exp(lv[k] - best) / tot / (double) S;
                for (int c = 0; c < C; c++)
                    o[j + (size_t) c * M] += pk * share[(size_t) c * (Kc + 1) + k];
            }
        }
        if (s + 1 < S) R_CheckUserInterrupt();
    }
    UNPROTECT(1);
    return out;
}

/* TRUE when the registered family `name` has a closed-form predictive and
 * marginal likelihood (conjugate), FALSE when it only has a parameter
 * update (plugin ABI 2, e.g. gaussian_nonconj). */
SEXP ffi_family_conjugate(SEXP name)
{
    if (!Rf_isString(name) || XLENGTH(name) != 1) MCX_INTERNAL("bad family name");
    return Rf_ScalarLogical(mcx_family_conjugate(mcx_get_family(CHAR(STRING_ELT(name, 0)))));
}

/* ---- test support: a plugin descriptor of ABI version 1 ----
 * The layout of mcx_family before ABI 2 (no param_update slot), filled with
 * the functions of the built-in poisson_gamma family and registered as
 * "poisson_gamma_abi1": the registry and the samplers must accept it
 * without reading past its end (tests/testthat/test-dpx-api.R). */
typedef struct {
    int abi_version;
    const char *name;
    size_t (*hyper_size)(int);
    int (*hyper_init)(void *, int, const double *, int);
    size_t (*work_size)(const void *);
    size_t (*stats_size)(const void *);
    void (*stats_reset)(const void *, void *);
    void (*stats_add)(const void *, void *, const double *, double *);
    void (*stats_remove)(const void *, void *, const double *, double *);
    double (*log_predictive)(const void *, const void *, const double *, double *);
    double (*log_marginal)(const void *, const void *, double *);
    size_t (*param_size)(const void *);
    void (*param_draw)(const void *, const void *, double *, double *);
    double (*log_lik)(const void *, const double *, const double *, double *);
} mcx_family_v1;

static mcx_family_v1 *family_v1 = NULL;

SEXP ffi_dpx_register_abi1(void)
{
    if (family_v1 == NULL) {
        /* lives for the session, like a plugin's static descriptor */
        family_v1 = (mcx_family_v1 *) malloc(sizeof *family_v1);
        if (family_v1 == NULL) mcx_error("out of memory");
    }
    const mcx_family *f = &mcx_family_poisson_gamma;
    mcx_family_v1 v = {
        1, "poisson_gamma_abi1", f->hyper_size, f->hyper_init, f->work_size,
        f->stats_size, f->stats_reset, f->stats_add, f->stats_remove,
        f->log_predictive, f->log_marginal, f->param_size, f->param_draw, f->log_lik
    };
    *family_v1 = v;
    mcx_register_family((const mcx_family *) (const void *) family_v1);
    return R_NilValue;
}
