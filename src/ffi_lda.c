/*
 * ffi_lda.c -- .Call glue of LDA (model_lda.c); the HDP mixture has its
 * own, ffi_hdp.c.  Unwraps and re-checks the SEXPs
 * (mismatches are internal errors: R/lda.R validated the user
 * input), copies the state, runs the engine inside one
 * GetRNGstate()/PutRNGstate() bracket and returns the new state with the
 * draws of the chunk.
 */
#include <math.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "model_lda.h"
#include "ffi_list.h"
#include "ffi_workspace.h"
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
 * The sampler's structures kept across the chunks of one run of a chain
 * (R/chains_workspace.R): the counts, SparseLDA's word lists and document
 * bit sets, the word order of "mh", the cells of "blocked" (model_lda*.c),
 * built by mcx_lda_prepare() from z.  A sweep leaves them equal to what
 * mcx_lda_prepare() would build from the new z (model_lda.h), so keeping
 * them gives the draws of a rebuild in every chunk, bit for bit, without
 * its cost (at 1e6 tokens: 10-20% of a sweep at K = 50, more than the
 * sweep itself at K = 500, with the copies of the sums).
 *
 * They are held by the chain's run workspace (ffi_workspace_model()), as
 * a list: [0] a raw vector holding lda_keep, [1] a workspace of
 * ffi_workspace.c whose arena holds every array of the mcx_lda (its
 * blocks are R vectors: nothing to free, no finalizer), [2] the z vector
 * they belong to, [3], [4] the corpus vectors word and doc_start they were
 * built on.  A chunk uses them only when all of these hold:
 *   - `valid`: the last chunk that used them completed (it is cleared
 *     while a chunk runs, so a chunk abandoned by an interrupt or an error
 *     leaves them invalid: the chain keeps the state of its last completed
 *     chunk and the next chunk rebuilds from it);
 *   - the chunk's z is the very vector the last chunk returned ([2]) and
 *     its checksum is the one that chunk left (z modified in place, or the
 *     state of another chunk or fit, is rebuilt from);
 *   - the same corpus vectors and the same settings (K, W, alpha, beta,
 *     the sampler, B, mh_steps; the thread count only changes how a sweep
 *     is shared out, not the structures).
 * Otherwise they are rebuilt from z in the same memory.  The workspace
 * lives for one run of the chain and never reaches a fit, so a fit holds
 * z and the sums only; extend(), readRDS() and forked or remote chains
 * rebuild once per run.
 */
enum { KEEP_STRUCT, KEEP_ARENA, KEEP_Z, KEEP_WORD, KEEP_START, KEEP_N };

typedef struct {
    mcx_lda m;
    double settings[8];       /* K, W, alpha, beta, algorithm, blocks, mh_steps, mh_wide */
    int valid;
    uint64_t sum;             /* checksum of the z vector at KEEP_Z */
} lda_keep;

typedef struct {
    mcx_lda *m;
    int K, W, D;
    double alpha, beta;
    const int *word, *doc_start;
    int *z;
    int algorithm, threads, blocks, mh_steps, mh_wide;
} lda_prep_args;

static SEXP lda_prepare_body(void *data)
{
    lda_prep_args *a = data;
    const mcx_lda_settings set = { a->threads, a->blocks, a->mh_steps, a->mh_wide };
    mcx_lda_prepare(a->m, a->K, a->W, a->D, a->alpha, a->beta, a->word, a->doc_start,
                    a->z, mcx_lda_sampler_at(a->algorithm), &set);
    return R_NilValue;
}

/* The kept structures of `ws` (a new, invalid set when there are none). */
static SEXP lda_keep_get(SEXP ws)
{
    SEXP keep = ffi_workspace_model(ws);
    if (TYPEOF(keep) == VECSXP && XLENGTH(keep) == KEEP_N &&
        TYPEOF(VECTOR_ELT(keep, KEEP_STRUCT)) == RAWSXP &&
        XLENGTH(VECTOR_ELT(keep, KEEP_STRUCT)) == (R_xlen_t) sizeof(lda_keep))
        return keep;
    keep = PROTECT(Rf_allocVector(VECSXP, KEEP_N));
    SEXP raw = Rf_allocVector(RAWSXP, sizeof(lda_keep));
    SET_VECTOR_ELT(keep, KEEP_STRUCT, raw);
    memset(RAW(raw), 0, sizeof(lda_keep));
    SET_VECTOR_ELT(keep, KEEP_ARENA, ffi_workspace_new());
    ffi_workspace_set_model(ws, keep);
    UNPROTECT(1);
    return keep;
}

/*
 * ffi_lda_step(word, doc_start, z, phi_sum, theta_sum, settings, chunk, workspace)
 *   word       integer, N word ids (0-based), documents in order
 *   doc_start  integer, D + 1 offsets
 *   z          integer, N topics (0-based): the state (never modified)
 *   phi_sum    double, K x W running sum of E[phi | z] over kept draws
 *   theta_sum  double, D x K running sum of E[theta | z]
 *   settings   double c(K, W, alpha, beta, algorithm, threads, blocks, mh_steps,
 *              fail_after, mh_wide):
 *              algorithm the code of the sampler, its row in
 *              MCX_LDA_SAMPLERS (model_lda.h) and in R's lda_samplers
 *              (R/lda.R): the SparseLDA buckets (model_lda_sparse.c), the
 *              dense loop, partitioned SparseLDA on `threads` threads
 *              over blocks x blocks cells of the corpus, Metropolis-
 *              Hastings cycles (model_lda_mh.c), mh_steps per token;
 *              fail_after > 0 (tests only) abandons the chunk with
 *              an error after that many sweeps, as an interrupt would;
 *              mh_wide 1 (tests only) runs "mh" on the int counts
 *              even where the 16-bit ones would do (the same draws)
 *   chunk      c(n, thin, offset, warmup) (mcmix_chunk.h)
 *   workspace  the chain's run workspace (R/chains_workspace.R), or NULL:
 *              the structures are then built from z for this chunk only
 * Returns list(z, log_lik, phi_sum, theta_sum, rebuilt), log_lik holding
 * log p(w, z) of the kept draws of the chunk, rebuilt FALSE when the
 * chunk continued from the structures kept in the workspace; a chunk that
 * keeps no draw returns the sums it was given (no copy).
 */
SEXP ffi_lda_step(SEXP word, SEXP doc_start, SEXP z, SEXP phi_sum,
                  SEXP theta_sum, SEXP settings, SEXP chunk, SEXP workspace)
{
    mcx_chunk c = mcx_chunk_read(chunk);
    check_real(settings, 10, "settings");
    const double *s = REAL(settings);
    int K = (int) s[0], W = (int) s[1];
    int algorithm = (int) s[4], threads = (int) s[5], blocks = (int) s[6];
    int mh_steps = (int) s[7], fail_after = (int) s[8], mh_wide = (int) s[9];
    if (mcx_lda_sampler_at(algorithm) == NULL || threads < 1 || blocks < 1 || blocks > 4096 ||
        mh_steps < 1 || mh_steps > 1000 || fail_after < 0 || mh_wide < 0 || mh_wide > 1)
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
    if (workspace != R_NilValue && TYPEOF(workspace) != EXTPTRSXP)
        MCX_INTERNAL("bad workspace");

    int n_kept = c.n_kept;
    const char *names[] = { "z", "log_lik", "phi_sum", "theta_sum", "rebuilt" };
    SEXP out = PROTECT(named_list(5, names));
    SEXP z_new = Rf_allocVector(INTSXP, N);
    SET_VECTOR_ELT(out, 0, z_new);
    SEXP ll = Rf_allocVector(REALSXP, n_kept);
    SET_VECTOR_ELT(out, 1, ll);
    /* new sums only when a draw is kept, written by the first kept draw
     * as the old ones plus its terms (mcx_lda_accumulate()) */
    SEXP ps = phi_sum, ts = theta_sum;
    if (n_kept > 0) ps = Rf_allocVector(REALSXP, XLENGTH(phi_sum));
    SET_VECTOR_ELT(out, 2, ps);
    if (n_kept > 0) ts = Rf_allocVector(REALSXP, XLENGTH(theta_sum));
    SET_VECTOR_ELT(out, 3, ts);
    if (n_kept > 0) {
        DUPLICATE_ATTRIB(ps, phi_sum);
        DUPLICATE_ATTRIB(ts, theta_sum);
    }
    if (N > 0) memcpy(INTEGER(z_new), INTEGER(z), (size_t) N * sizeof(int));

    lda_prep_args pa = { NULL, K, W, D, alpha, beta, INTEGER(word), INTEGER(doc_start),
                         INTEGER(z_new), algorithm, threads, blocks, mh_steps, mh_wide };
    mcx_lda local, *m = &local;
    lda_keep *kp = NULL;
    int rebuilt = 1;
    SEXP keep = R_NilValue;
    if (workspace != R_NilValue && R_ExternalPtrAddr(workspace) != NULL)
        keep = lda_keep_get(workspace);    /* (a workspace restored by readRDS(): none) */
    if (keep != R_NilValue) {
        kp = (lda_keep *) RAW(VECTOR_ELT(keep, KEEP_STRUCT));
        m = &kp->m;
        const double now[8] = { K, W, alpha, beta, algorithm, blocks, mh_steps, mh_wide };
        int same = kp->valid && VECTOR_ELT(keep, KEEP_Z) == z &&
                   VECTOR_ELT(keep, KEEP_WORD) == word &&
                   VECTOR_ELT(keep, KEEP_START) == doc_start &&
                   memcmp(kp->settings, now, sizeof now) == 0 &&
                   kp->sum == mcx_lda_checksum(INTEGER(z), N);
        kp->valid = 0;                     /* until this chunk completes */
        if (same) {
            rebuilt = 0;
            m->z = INTEGER(z_new);         /* the same topics, in the new vector */
            m->word = INTEGER(word);
            m->doc_start = INTEGER(doc_start);
            m->threads = threads;
        } else {
            SET_VECTOR_ELT(keep, KEEP_Z, R_NilValue);
            pa.m = m;
            ffi_workspace_run(VECTOR_ELT(keep, KEEP_ARENA), lda_prepare_body, &pa);
            memcpy(kp->settings, now, sizeof now);
            SET_VECTOR_ELT(keep, KEEP_WORD, word);
            SET_VECTOR_ELT(keep, KEEP_START, doc_start);
        }
    } else {
        pa.m = m;
        lda_prepare_body(&pa);
    }
    GetRNGstate();
    if (fail_after > 0 && fail_after < c.n) {
        mcx_chunk part = c;
        part.n = fail_after;
        mcx_lda_run(m, &part, REAL(ll), REAL(phi_sum), REAL(theta_sum), REAL(ps), REAL(ts));
        mcx_error("chunk abandoned after %d sweeps (test)", fail_after);
    }
    mcx_lda_run(m, &c, REAL(ll), REAL(phi_sum), REAL(theta_sum), REAL(ps), REAL(ts));
    PutRNGstate();
    if (kp != NULL) {
        SET_VECTOR_ELT(keep, KEEP_Z, z_new);
        kp->sum = mcx_lda_checksum(INTEGER(z_new), N);
        kp->valid = 1;
    }
    SET_VECTOR_ELT(out, 4, Rf_ScalarLogical(rebuilt));
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
    /* the sweep counts are whole numbers below 2^53 (exact in a double),
     * converted to 64 bits only once checked (R/lda_predict.R bounds them
     * by the work budget) */
    if (!(s[3] >= 0 && s[3] <= 9007199254740992.0 && s[3] == floor(s[3])) ||
        !(s[4] >= 1 && s[4] <= 9007199254740992.0 && s[4] == floor(s[4])))
        MCX_INTERNAL("bad fold-in sweep counts");
    int K = (int) s[0], W = (int) s[1];
    int64_t n_burn = (int64_t) s[3], n_keep = (int64_t) s[4];
    check_int(doc_start, -1, "doc_start");
    int D = (int) XLENGTH(doc_start) - 1;
    if (D < 1 || K < 1 || W < 1 || !(s[2] > 0))
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

/* The names of the LDA samplers in the order of their codes (R checks
 * them against lda_samplers, R/lda.R). */
SEXP ffi_lda_samplers(void)
{
    int n = mcx_lda_sampler_count();
    SEXP out = PROTECT(Rf_allocVector(STRSXP, n));
    for (int i = 0; i < n; i++) SET_STRING_ELT(out, i, Rf_mkChar(mcx_lda_sampler_at(i)->name));
    UNPROTECT(1);
    return out;
}
