/*
 * ffi_topic.c -- .Call glue of the grouped-data models: LDA (model_lda.c)
 * and the HDP mixture (model_hdp.c).  Unwraps and re-checks the SEXPs
 * (mismatches are internal errors: R/lda.R and R/hdp.R validated the user
 * input), copies the state, runs the engine inside one
 * GetRNGstate()/PutRNGstate() bracket and returns the new state with the
 * draws of the chunk.
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "model_topic.h"
#include "ffi_list.h"
#include "ffi.h"

/* A list with these names and NULL elements, filled by the caller. */
static SEXP named_list(int n, const char **names)
{
    SEXP vals[8];
    for (int i = 0; i < n; i++) vals[i] = R_NilValue;
    const char *nm[9];
    for (int i = 0; i < n; i++) nm[i] = names[i];
    nm[n] = NULL;
    return mcx_named_list(nm, vals);
}

static void check_real(SEXP x, R_xlen_t len, const char *what)
{
    if (!Rf_isReal(x) || (len >= 0 && XLENGTH(x) != len))
        mcx_error("mcmix internal error: `%s` must be a double vector of length %ld",
                  what, (long) len);
}

static void check_int(SEXP x, R_xlen_t len, const char *what)
{
    if (!Rf_isInteger(x) || (len >= 0 && XLENGTH(x) != len))
        mcx_error("mcmix internal error: `%s` must be an integer vector of length %ld",
                  what, (long) len);
}

/*
 * ffi_lda_step(word, doc_start, z, phi_sum, theta_sum, settings, chunk)
 *   word       integer, N word ids (0-based), documents in order
 *   doc_start  integer, D + 1 offsets
 *   z          integer, N topics (0-based): the state
 *   phi_sum    double, K x W running sum of E[phi | z] over kept draws
 *   theta_sum  double, D x K running sum of E[theta | z]
 *   settings   double c(K, W, alpha, beta, algorithm, threads, block_tokens):
 *              algorithm 0 the dense loop, 1 the SparseLDA buckets
 *              (model_lda_sparse.c), 2 blocked SparseLDA on `threads` threads
 *              with blocks of at least block_tokens tokens
 *   chunk      c(n, thin, offset, warmup) (chunk.h)
 * Returns list(z, log_lik, phi_sum, theta_sum), log_lik holding log p(w, z)
 * of the kept draws of the chunk.
 */
SEXP ffi_lda_step(SEXP word, SEXP doc_start, SEXP z, SEXP phi_sum,
                  SEXP theta_sum, SEXP settings, SEXP chunk)
{
    mcx_chunk c = mcx_chunk_read(chunk);
    check_real(settings, 7, "settings");
    const double *s = REAL(settings);
    int K = (int) s[0], W = (int) s[1];
    int algorithm = (int) s[4], threads = (int) s[5], block_tokens = (int) s[6];
    if (algorithm < 0 || algorithm > 2 || threads < 1 || block_tokens < 1)
        MCX_INTERNAL("bad LDA sampler settings");
    double alpha = s[2], beta = s[3];
    check_int(doc_start, -1, "doc_start");
    int D = (int) XLENGTH(doc_start) - 1;
    if (D < 1 || K < 1 || W < 1 || !(alpha > 0) || !(beta > 0))
        MCX_INTERNAL("bad LDA settings");
    int N = INTEGER(doc_start)[D];
    check_int(word, N, "word");
    check_int(z, N, "z");
    check_real(phi_sum, (R_xlen_t) K * W, "phi_sum");
    check_real(theta_sum, (R_xlen_t) D * K, "theta_sum");

    int n_kept = c.n_kept;
    const char *names[] = { "z", "log_lik", "phi_sum", "theta_sum" };
    SEXP out = PROTECT(named_list(4, names));
    SEXP z_new = Rf_allocVector(INTSXP, N);
    SET_VECTOR_ELT(out, 0, z_new);
    SEXP ll = Rf_allocVector(REALSXP, n_kept);
    SET_VECTOR_ELT(out, 1, ll);
    SEXP ps = Rf_duplicate(phi_sum);
    SET_VECTOR_ELT(out, 2, ps);
    SEXP ts = Rf_duplicate(theta_sum);
    SET_VECTOR_ELT(out, 3, ts);
    if (N > 0) memcpy(INTEGER(z_new), INTEGER(z), (size_t) N * sizeof(int));

    mcx_lda m;
    mcx_lda_build(&m, K, W, D, alpha, beta, INTEGER(word), INTEGER(doc_start),
                  INTEGER(z_new));
    if (algorithm >= 1) mcx_lda_sparse_init(&m);
    if (algorithm == 2) mcx_lda_blocked_init(&m, threads, block_tokens);
    GetRNGstate();
    mcx_lda_run(&m, &c, REAL(ll), REAL(ps), REAL(ts));
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* log p(w, z) of the given assignment (for tests and the initial state). */
SEXP ffi_lda_log_joint(SEXP word, SEXP doc_start, SEXP z, SEXP settings)
{
    check_real(settings, 4, "settings");
    const double *s = REAL(settings);
    check_int(doc_start, -1, "doc_start");
    int D = (int) XLENGTH(doc_start) - 1;
    if (D < 1) MCX_INTERNAL("no documents");
    int N = INTEGER(doc_start)[D];
    check_int(word, N, "word");
    check_int(z, N, "z");
    mcx_lda m;
    mcx_lda_build(&m, (int) s[0], (int) s[1], D, s[2], s[3], INTEGER(word),
                  INTEGER(doc_start), INTEGER(z));
    return Rf_ScalarReal(mcx_lda_log_joint(&m));
}

/*
 * ffi_lda_fold_in(word, doc_start, phi, settings)
 *   word, doc_start  the new documents (as in ffi_lda_step)
 *   phi        double K x W topics (rows sum to 1)
 *   settings   double c(K, W, alpha, n_burn, n_keep)
 * Returns the D x K matrix of fold-in estimates of theta.
 */
SEXP ffi_lda_fold_in(SEXP word, SEXP doc_start, SEXP phi, SEXP settings)
{
    check_real(settings, 5, "settings");
    const double *s = REAL(settings);
    int K = (int) s[0], W = (int) s[1], n_burn = (int) s[3], n_keep = (int) s[4];
    check_int(doc_start, -1, "doc_start");
    int D = (int) XLENGTH(doc_start) - 1;
    if (D < 1 || K < 1 || W < 1 || !(s[2] > 0) || n_burn < 0 || n_keep < 1)
        MCX_INTERNAL("bad fold-in settings");
    int N = INTEGER(doc_start)[D];
    check_int(word, N, "word");
    check_real(phi, (R_xlen_t) K * W, "phi");
    const int *w = INTEGER(word), *ds = INTEGER(doc_start);
    for (int d = 0; d < D; d++)
        if (ds[d + 1] < ds[d]) MCX_INTERNAL("document offsets decrease");
    for (int t = 0; t < N; t++)
        if (w[t] < 0 || w[t] >= W) MCX_INTERNAL("word id out of range");
    SEXP theta = PROTECT(Rf_allocMatrix(REALSXP, D, K));
    GetRNGstate();
    mcx_lda_fold_in(K, W, D, s[2], REAL(phi), w, ds, n_burn, n_keep, REAL(theta));
    PutRNGstate();
    UNPROTECT(1);
    return theta;
}

/*
 * ffi_hdp_step(family, hyper, x, group, z, beta, stats, settings, chunk)
 *   family    family name (registry key); hyper: its hyperparameter vector
 *   x         double dim x n matrix, one observation per column, overall order
 *   group     integer, n groups (0-based)
 *   z         integer, n clusters (0-based, internal order): the state
 *   beta      double, K + 1 global weights (beta_u last)
 *   stats     raw: the clusters' stats blocks exported by the previous
 *             chunk (NULL when fresh), so that a continued chain goes on
 *             bit for bit as one long run (mixture_state.h)
 *   settings  double c(gamma, alpha, gamma_fixed, gamma_shape, gamma_rate,
 *             alpha_fixed, alpha_shape, alpha_rate, J, keep_labels)
 *   chunk     c(n, thin, offset, warmup) (chunk.h)
 * Returns list(z, beta, gamma, alpha, traces, labels, stats).
 */
SEXP ffi_hdp_step(SEXP family, SEXP hyper, SEXP x, SEXP group, SEXP z,
                  SEXP beta, SEXP stats, SEXP settings, SEXP chunk)
{
    mcx_chunk c = mcx_chunk_read(chunk);
    check_real(settings, 10, "settings");
    const double *s = REAL(settings);
    if (!Rf_isString(family) || XLENGTH(family) != 1) MCX_INTERNAL("bad family name");
    check_real(hyper, -1, "hyper");
    SEXP dims = Rf_getAttrib(x, R_DimSymbol);
    if (!Rf_isReal(x) || Rf_length(dims) != 2) MCX_INTERNAL("`x` must be a double matrix");
    int dim = INTEGER(dims)[0], n = INTEGER(dims)[1];
    check_int(group, n, "group");
    check_int(z, n, "z");
    int K = 0;
    for (int i = 0; i < n; i++) if (INTEGER(z)[i] + 1 > K) K = INTEGER(z)[i] + 1;
    check_real(beta, K + 1, "beta");
    mcx_hdp_prior gp = { s[2] != 0, s[3], s[4] }, ap = { s[5] != 0, s[6], s[7] };
    int J = (int) s[8], keep_labels = s[9] != 0;
    if (J < 1 || n < 1 || !(s[0] > 0) || !(s[1] > 0))
        MCX_INTERNAL("bad HDP settings");

    const mcx_family *fam = mcx_get_family(CHAR(STRING_ELT(family, 0)));
    if (!mcx_family_conjugate(fam))
        mcx_error("family '%s' is not conjugate: the HDP sampler needs a conjugate family",
                  fam->name);
    const void *hy = mcx_family_hyper(fam, dim, REAL(hyper), (int) XLENGTH(hyper));
    int n_kept = c.n_kept;

    const char *names[] = { "z", "beta", "gamma", "alpha", "traces", "labels", "stats" };
    SEXP out = PROTECT(named_list(7, names));
    SEXP tr = Rf_allocMatrix(REALSXP, n_kept, 4);
    SET_VECTOR_ELT(out, 4, tr);
    SEXP lab = R_NilValue;
    if (keep_labels) {
        lab = Rf_allocMatrix(INTSXP, n_kept, n);
        SET_VECTOR_ELT(out, 5, lab);
    }

    mcx_hdp h;
    mcx_hdp_build(&h, fam, hy, REAL(x), n, dim, INTEGER(group), J, INTEGER(z),
                  REAL(beta), s[0], s[1], gp, ap);
    if (!Rf_isNull(stats)) {
        if (TYPEOF(stats) != RAWSXP) MCX_INTERNAL("`stats` must be raw");
        mcx_mix_restore_stats(&h.mix, RAW(stats), (size_t) XLENGTH(stats));
    }
    GetRNGstate();
    mcx_hdp_run(&h, &c, REAL(tr), keep_labels ? INTEGER(lab) : NULL);
    PutRNGstate();

    int Kn = h.mix.K;
    SEXP z_new = Rf_allocVector(INTSXP, n);
    SET_VECTOR_ELT(out, 0, z_new);
    memcpy(INTEGER(z_new), h.mix.z, (size_t) n * sizeof(int));
    SEXP b_new = Rf_allocVector(REALSXP, Kn + 1);
    SET_VECTOR_ELT(out, 1, b_new);
    memcpy(REAL(b_new), h.beta, ((size_t) Kn + 1) * sizeof(double));
    SET_VECTOR_ELT(out, 2, Rf_ScalarReal(h.gamma));
    SET_VECTOR_ELT(out, 3, Rf_ScalarReal(h.alpha));
    SEXP sb = Rf_allocVector(RAWSXP, (R_xlen_t) mcx_mix_stats_bytes(&h.mix));
    SET_VECTOR_ELT(out, 6, sb);
    memcpy(RAW(sb), h.mix.stats, mcx_mix_stats_bytes(&h.mix));
    UNPROTECT(1);
    return out;
}
