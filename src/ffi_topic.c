/*
 * ffi_topic.c -- .Call glue of LDA (model_lda.c); the HDP mixture has its
 * own, ffi_hdp.c.  Unwraps and re-checks the SEXPs
 * (mismatches are internal errors: R/lda.R validated the user
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
 *   settings   double c(K, W, alpha, beta, algorithm, threads, blocks, mh_steps):
 *              algorithm 0 the dense loop, 1 the SparseLDA buckets
 *              (model_lda_sparse.c), 2 partitioned SparseLDA on `threads`
 *              threads over blocks x blocks cells of the corpus, 3
 *              Metropolis-Hastings cycles (model_lda_mh.c), mh_steps per token
 *   chunk      c(n, thin, offset, warmup) (chunk.h)
 * Returns list(z, log_lik, phi_sum, theta_sum), log_lik holding log p(w, z)
 * of the kept draws of the chunk.
 */
SEXP ffi_lda_step(SEXP word, SEXP doc_start, SEXP z, SEXP phi_sum,
                  SEXP theta_sum, SEXP settings, SEXP chunk)
{
    mcx_chunk c = mcx_chunk_read(chunk);
    check_real(settings, 8, "settings");
    const double *s = REAL(settings);
    int K = (int) s[0], W = (int) s[1];
    int algorithm = (int) s[4], threads = (int) s[5], blocks = (int) s[6];
    int mh_steps = (int) s[7];
    if (algorithm < 0 || algorithm > 3 || threads < 1 || blocks < 1 || blocks > 4096 ||
        mh_steps < 1 || mh_steps > 1000)
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
    if (algorithm == 1 || algorithm == 2) mcx_lda_sparse_init(&m);
    if (algorithm == 3) mcx_lda_mh_init(&m, mh_steps);
    if (algorithm == 2) mcx_lda_blocked_init(&m, threads, blocks);
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

