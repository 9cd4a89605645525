/*
 * ffi_mixture.c -- .Call glue of the mixture samplers (R/mixture.R,
 * R/prior.R).  Unwraps and re-checks the SEXPs built by R, allocates the
 * outputs, brackets the engine with GetRNGstate()/PutRNGstate() and checks
 * for interrupts between sweeps.
 *
 * ffi_mixture_step(spec, xt, state, n, thin, offset, warmup) runs one chunk
 * of one chain: it rebuilds the engine state from `state` (labels in the
 * internal cluster order, 0-based; concentration), runs the sweeps
 * offset + 1 .. offset + n, keeps sweep g iff !warmup && g %% thin == 0, and
 * (`stats`: the clusters' stats blocks as raw bytes, so that the next chunk
 * continues bit for bit; NULL in a fresh state, then they are computed from
 * the labels) and returns
 *   list(state  = list(labels, alpha, weights, params, stats),
 *        traces = matrix (kept x p): n_clusters, [alpha,] log_lik,
 *        labels = integer matrix (kept x N), 1-based internal labels,
 *        weights = matrix (kept x K) or NULL,      (finite "gibbs")
 *        params  = matrix (kept x psize*K) or NULL (finite "gibbs",
 *                  "collapsed_weights"))
 * spec = list(family, dim, hyper, model = "finite"|"dp", algorithm, alpha,
 *             prior = c(shape, rate) or numeric(0), discount, K).
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "mixture.h"
#include "ffi.h"

static SEXP list_elt(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || names == R_NilValue)
        mcx_error("mcmix internal error: expected a named list");
    for (R_xlen_t j = 0; j < XLENGTH(list); j++)
        if (strcmp(CHAR(STRING_ELT(names, j)), name) == 0) return VECTOR_ELT(list, j);
    return R_NilValue;
}

static SEXP need(SEXP list, const char *name, SEXPTYPE type, R_xlen_t len)
{
    SEXP v = list_elt(list, name);
    if ((SEXPTYPE) TYPEOF(v) != type || (len >= 0 && XLENGTH(v) != len))
        mcx_error("mcmix internal error: element '%s' has the wrong type or length", name);
    return v;
}

static int scalar_int(SEXP v, const char *what)
{
    if (TYPEOF(v) != INTSXP || XLENGTH(v) != 1 || INTEGER(v)[0] == NA_INTEGER)
        mcx_error("mcmix internal error: '%s' must be one integer", what);
    return INTEGER(v)[0];
}

static const char *scalar_str(SEXP list, const char *name)
{
    return CHAR(STRING_ELT(need(list, name, STRSXP, 1), 0));
}

SEXP ffi_mixture_step(SEXP spec, SEXP xt, SEXP state, SEXP n_, SEXP thin_,
                      SEXP offset_, SEXP warmup_)
{
    int n_iter = scalar_int(n_, "n"), thin = scalar_int(thin_, "thin");
    int offset = scalar_int(offset_, "offset");
    int warmup = Rf_asLogical(warmup_);
    if (n_iter < 0 || thin < 1 || offset < 0 || warmup == NA_LOGICAL)
        mcx_error("mcmix internal error: bad chunk arguments");

    const mcx_family *fam = mcx_get_family(scalar_str(spec, "family"));
    int dim = scalar_int(list_elt(spec, "dim"), "dim");
    SEXP hyper_ = need(spec, "hyper", REALSXP, -1);
    if (TYPEOF(xt) != REALSXP || dim < 1 || XLENGTH(xt) % dim != 0)
        mcx_error("mcmix internal error: data must be a dim x N double matrix");
    int N = (int) (XLENGTH(xt) / dim);
    int is_dp = strcmp(scalar_str(spec, "model"), "dp") == 0;
    const char *alg = scalar_str(spec, "algorithm");
    /* every sampler of this file needs a conjugate family (closed-form
     * predictive and marginal; param_draw an exact posterior draw) */
    if (fam->log_predictive == NULL || fam->log_marginal == NULL)
        mcx_error("the family '%s' is not conjugate; the %s mixture algorithm '%s' "
                  "needs a conjugate family (for Dirichlet process mixtures use "
                  "algorithm = \"neal8\")", fam->name, is_dp ? "DP" : "finite", alg);
    SEXP lab_ = need(state, "labels", INTSXP, N);
    SEXP stats_ = list_elt(state, "stats");
    if (stats_ != R_NilValue && TYPEOF(stats_) != RAWSXP)
        mcx_error("mcmix internal error: state$stats must be a raw vector");
    const void *stats_in = stats_ == R_NilValue ? NULL : RAW(stats_);
    const void *hyper = mcx_family_hyper(fam, dim, REAL(hyper_), (int) XLENGTH(hyper_));

    mcx_finite fs;
    mcx_dp ds;
    mcx_mix m;
    int K = 0, psize = 0, keep_w = 0, keep_p = 0;
    if (is_dp) {
        if (strcmp(alg, "collapsed") != 0)
            mcx_error("mcmix internal error: unknown DP algorithm '%s'", alg);
        SEXP prior = need(spec, "prior", REALSXP, -1);
        double alpha = REAL(need(state, "alpha", REALSXP, 1))[0];
        double discount = REAL(need(spec, "discount", REALSXP, 1))[0];
        int random = XLENGTH(prior) == 2;
        if (stats_in) mcx_mix_build_restore(&m, fam, hyper, REAL(xt), N, dim, INTEGER(lab_), 0,
                                            stats_in, (size_t) XLENGTH(stats_));
        else mcx_mix_build(&m, fam, hyper, REAL(xt), N, dim, INTEGER(lab_), 0);
        for (int k = 0; k < m.K; k++)
            if (m.size[k] == 0)
                mcx_error("mcmix internal error: DP state with an empty cluster");
        mcx_dp_setup(&ds, &m, alpha, discount, random,
                     random ? REAL(prior)[0] : 0.0, random ? REAL(prior)[1] : 0.0);
    } else {
        mcx_finite_algorithm a;
        if (strcmp(alg, "gibbs") == 0) a = MCX_FINITE_GIBBS;
        else if (strcmp(alg, "collapsed_weights") == 0) a = MCX_FINITE_COLLAPSED_WEIGHTS;
        else if (strcmp(alg, "collapsed") == 0) a = MCX_FINITE_COLLAPSED;
        else mcx_error("mcmix internal error: unknown finite algorithm '%s'", alg);
        K = scalar_int(list_elt(spec, "K"), "K");
        SEXP alpha = need(spec, "alpha", REALSXP, K);
        for (int i = 0; i < N; i++)
            if (INTEGER(lab_)[i] < 0 || INTEGER(lab_)[i] >= K)
                mcx_error("mcmix internal error: finite mixture label out of range");
        if (stats_in) mcx_mix_build_restore(&m, fam, hyper, REAL(xt), N, dim, INTEGER(lab_), K,
                                            stats_in, (size_t) XLENGTH(stats_));
        else mcx_mix_build(&m, fam, hyper, REAL(xt), N, dim, INTEGER(lab_), K);
        mcx_finite_setup(&fs, &m, a, K, REAL(alpha));
        psize = (int) fs.psize;
        keep_w = a == MCX_FINITE_GIBBS;
        keep_p = a != MCX_FINITE_COLLAPSED;
        /* carry the last weights and parameters (informational) */
        SEXP w0 = list_elt(state, "weights"), p0 = list_elt(state, "params");
        if (TYPEOF(w0) == REALSXP && XLENGTH(w0) == K)
            memcpy(fs.weights, REAL(w0), (size_t) K * sizeof(double));
        if (TYPEOF(p0) == REALSXP && XLENGTH(p0) == (R_xlen_t) K * psize)
            memcpy(fs.theta, REAL(p0), (size_t) K * psize * sizeof(double));
    }


    int n_keep = 0;
    if (!warmup)
        for (int g = offset + 1; g <= offset + n_iter; g++) n_keep += g % thin == 0;
    int alpha_col = is_dp && ds.alpha_random;
    int p = 2 + alpha_col;
    int nprot = 0;
    SEXP traces = PROTECT(Rf_allocMatrix(REALSXP, n_keep, p)); nprot++;
    SEXP labels = PROTECT(Rf_allocMatrix(INTSXP, n_keep, N)); nprot++;
    SEXP kw = R_NilValue, kp = R_NilValue;
    if (keep_w) { kw = PROTECT(Rf_allocMatrix(REALSXP, n_keep, K)); nprot++; }
    if (keep_p) { kp = PROTECT(Rf_allocMatrix(REALSXP, n_keep, (R_xlen_t) psize * K)); nprot++; }
    double *tr = REAL(traces);
    int *lab = INTEGER(labels);

    GetRNGstate();
    int r = 0;
    for (int g = offset + 1; g <= offset + n_iter; g++) {
        if (is_dp) mcx_dp_collapsed_sweep(&m, &ds);
        else mcx_finite_sweep(&m, &fs);
        if (g % MCX_REFRESH_EVERY == 0) mcx_mix_refresh(&m);
        if (!warmup && g % thin == 0) {
            tr[r] = is_dp ? m.K : mcx_mix_n_occupied(&m);
            if (alpha_col) tr[r + n_keep] = ds.alpha;
            tr[r + (size_t) (p - 1) * n_keep] = is_dp ? ds.log_lik : fs.log_lik;
            for (int i = 0; i < N; i++) lab[r + (size_t) i * n_keep] = m.z[i] + 1;
            if (keep_w)
                for (int k = 0; k < K; k++) REAL(kw)[r + (size_t) k * n_keep] = fs.weights[k];
            if (keep_p)
                for (size_t j = 0; j < (size_t) psize * K; j++)
                    REAL(kp)[r + j * n_keep] = fs.theta[j];
            r++;
        }
        /* An interrupt abandons the chunk: the driver keeps the chain's
         * state and stream from before it, so no PutRNGstate() is needed. */
        if (g < offset + n_iter) R_CheckUserInterrupt();
    }
    PutRNGstate();

    SEXP tnames = PROTECT(Rf_allocVector(STRSXP, p)); nprot++;
    SET_STRING_ELT(tnames, 0, Rf_mkChar("n_clusters"));
    if (alpha_col) SET_STRING_ELT(tnames, 1, Rf_mkChar("alpha"));
    SET_STRING_ELT(tnames, p - 1, Rf_mkChar("log_lik"));
    SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2)); nprot++;
    SET_VECTOR_ELT(dn, 1, tnames);
    Rf_setAttrib(traces, R_DimNamesSymbol, dn);

    /* the new state, labels in the internal cluster order */
    SEXP st = PROTECT(Rf_allocVector(VECSXP, 5)); nprot++;
    SEXP stn = PROTECT(Rf_allocVector(STRSXP, 5)); nprot++;
    const char *snames[] = {"labels", "alpha", "weights", "params", "stats"};
    for (int j = 0; j < 5; j++) SET_STRING_ELT(stn, j, Rf_mkChar(snames[j]));
    Rf_setAttrib(st, R_NamesSymbol, stn);
    SEXP nl = Rf_allocVector(INTSXP, N);
    SET_VECTOR_ELT(st, 0, nl);
    memcpy(INTEGER(nl), m.z, (size_t) N * sizeof(int));
    SEXP sb = Rf_allocVector(RAWSXP, (R_xlen_t) mcx_mix_stats_bytes(&m));
    SET_VECTOR_ELT(st, 4, sb);
    memcpy(RAW(sb), m.stats, mcx_mix_stats_bytes(&m));
    if (is_dp) {
        SET_VECTOR_ELT(st, 1, Rf_ScalarReal(ds.alpha));
    } else {
        if (keep_w) {
            SEXP w = Rf_allocVector(REALSXP, K);
            SET_VECTOR_ELT(st, 2, w);
            memcpy(REAL(w), fs.weights, (size_t) K * sizeof(double));
        }
        if (keep_p) {
            SEXP th = Rf_allocMatrix(REALSXP, psize, K);
            SET_VECTOR_ELT(st, 3, th);
            memcpy(REAL(th), fs.theta, (size_t) K * psize * sizeof(double));
        }
    }

    SEXP out = PROTECT(Rf_allocVector(VECSXP, 5)); nprot++;
    SEXP on = PROTECT(Rf_allocVector(STRSXP, 5)); nprot++;
    const char *onames[] = {"state", "traces", "labels", "weights", "params"};
    for (int j = 0; j < 5; j++) SET_STRING_ELT(on, j, Rf_mkChar(onames[j]));
    Rf_setAttrib(out, R_NamesSymbol, on);
    SET_VECTOR_ELT(out, 0, st);
    SET_VECTOR_ELT(out, 1, traces);
    SET_VECTOR_ELT(out, 2, labels);
    SET_VECTOR_ELT(out, 3, kw);
    SET_VECTOR_ELT(out, 4, kp);
    UNPROTECT(nprot);
    return out;
}

/* `iters` Escobar-West updates applied to each alpha[j] (a test entry point):
 * prior = c(shape, rate). Returns the updated vector. */
SEXP ffi_dp_alpha_update(SEXP alpha, SEXP K_, SEXP n_, SEXP prior, SEXP iters_)
{
    int K = scalar_int(K_, "K"), n = scalar_int(n_, "n"), iters = scalar_int(iters_, "iters");
    if (TYPEOF(alpha) != REALSXP || TYPEOF(prior) != REALSXP || XLENGTH(prior) != 2 ||
        K < 1 || n < K || iters < 0)
        mcx_error("mcmix internal error: bad arguments to the alpha update");
    R_xlen_t m = XLENGTH(alpha);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, m));
    GetRNGstate();
    for (R_xlen_t j = 0; j < m; j++) {
        double a = REAL(alpha)[j];
        for (int t = 0; t < iters; t++)
            a = mcx_dp_alpha_update(a, K, n, REAL(prior)[0], REAL(prior)[1]);
        REAL(out)[j] = a;
    }
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* One CRP partition of n items: integer labels 1..K in order of appearance. */
SEXP ffi_rcrp(SEXP n_, SEXP alpha_, SEXP discount_)
{
    int n = scalar_int(n_, "n");
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
