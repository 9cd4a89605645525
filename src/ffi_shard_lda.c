/*
 * ffi_shard_lda.c -- glue of LDA over shards of documents (shard_lda.h).
 * R/lda_sharded.R calls these through .Call.  A worker's word lists and a
 * shard's vectors are the worker's own, created fresh and referred to only
 * by its run's store (R/chains_shard.R), so the passes write them in place.
 *
 * `set` is c(K, W, alpha, beta, doc0, groups); a shard is list(word,
 * doc_start, seg_doc, seg_grp, seg_end, z, zsnap, ndk, dmask) (tokens in
 * segment order, shard_lda.h; dmask: D ceil(K / 64) doubles holding the
 * bit sets);
 * the word side list(wtk, woff, wlen, nk, inv, invm, dtop, coef, qw);
 * changes of the word-topic counts travel as integer pairs (idx = w K + k,
 * val); seeds as two doubles (the high and low 32 bits).
 */
#include <string.h>
#include <stdint.h>
#include <limits.h>
#include <R.h>
#include <Rinternals.h>
#include "ffi.h"              /* (first: Rmath's names, as the engine sees them) */
#include "ffi_list.h"
#include "shard_lda.h"
#include "rng_stream.h"

#define WORDS(X) X(wtk) X(woff) X(wlen) X(nk) X(inv) X(invm) X(dtop) X(coef) X(qw) \
    X(wtk0) X(wlen0) X(nk0) X(tw) X(mark)
enum { WORDS(MCX_FIELD_ENUM) WORDS_N };
static const char *const words_names[] = {WORDS(MCX_FIELD_NAME) NULL};

static void set_read(SEXP set, int *K, int *W, double *alpha, double *beta, double *doc0)
{
    if (TYPEOF(set) != REALSXP || XLENGTH(set) < 5) MCX_INTERNAL("bad LDA shard settings");
    const double *s = REAL(set);
    *K = (int) s[0];
    *W = (int) s[1];
    *alpha = s[2];
    *beta = s[3];
    *doc0 = s[4];
}

/* The word side of list `words`; `built`: its offsets are set (checked
 * against the pairs' length). */
static void words_bind(mcx_lda_words *ws, SEXP words, SEXP set, int built)
{
    double doc0;
    set_read(set, &ws->K, &ws->W, &ws->alpha, &ws->beta, &doc0);
    const int K = ws->K, W = ws->W;
    ws->woff = mcx_list_int(words, "woff", (R_xlen_t) W + 1);
    ws->wtk = mcx_list_int(words, "wtk", -1);
    if (built && XLENGTH(mcx_list_elt(words, "wtk")) < 2 * (R_xlen_t) ws->woff[W])
        MCX_INTERNAL("LDA word lists shorter than their offsets");
    ws->wlen = mcx_list_int(words, "wlen", W);
    ws->nk = mcx_list_int(words, "nk", K);
    ws->inv = mcx_list_real(words, "inv", K);
    ws->invm = mcx_list_real(words, "invm", K);
    ws->dtop = mcx_list_int(words, "dtop", K);
    ws->coef = mcx_list_real(words, "coef", K);
    ws->qw = mcx_list_real(words, "qw", K);
    ws->wtk0 = mcx_list_int(words, "wtk0", XLENGTH(mcx_list_elt(words, "wtk")));
    ws->wlen0 = mcx_list_int(words, "wlen0", W);
    ws->nk0 = mcx_list_int(words, "nk0", K);
    ws->tw = mcx_list_int(words, "tw", W);
    SEXP mark = mcx_list_elt(words, "mark");
    if (TYPEOF(mark) != RAWSXP || XLENGTH(mark) != W) MCX_INTERNAL("bad word marks");
    ws->mark = RAW(mark);
}

static void shard_open(mcx_lda_shard *sh, SEXP s, SEXP set)
{
    int K, W;
    double alpha, beta;
    set_read(set, &K, &W, &alpha, &beta, &sh->doc0);
    SEXP ds = mcx_list_elt(s, "doc_start");
    if (TYPEOF(ds) != INTSXP || XLENGTH(ds) < 1) MCX_INTERNAL("bad document offsets");
    sh->D = (int) XLENGTH(ds) - 1;
    sh->doc_start = INTEGER(ds);
    sh->N = sh->doc_start[sh->D];
    sh->word = mcx_list_int(s, "word", sh->N);
    SEXP sd = mcx_list_elt(s, "seg_doc");
    if (TYPEOF(sd) != INTSXP || XLENGTH(set) != 6) MCX_INTERNAL("bad shard segments");
    sh->nseg = (int) XLENGTH(sd);
    sh->groups = (int) REAL(set)[5];
    sh->seg_doc = INTEGER(sd);
    sh->seg_grp = mcx_list_int(s, "seg_grp", sh->nseg);
    sh->seg_end = mcx_list_int(s, "seg_end", sh->nseg);
    if ((sh->nseg > 0 ? sh->seg_end[sh->nseg - 1] : 0) != sh->N)
        MCX_INTERNAL("shard segments do not cover its tokens");
    sh->z = mcx_list_int(s, "z", sh->N);
    sh->zsnap = mcx_list_int(s, "zsnap", sh->N);
    sh->ndk = mcx_list_int(s, "ndk", (R_xlen_t) sh->D * K);
    sh->dmask = (uint64_t *) mcx_list_real(s, "dmask", (R_xlen_t) sh->D * ((K + 63) / 64));
    for (int t = 0; t < sh->N; t++)
        if (sh->word[t] < 0 || sh->word[t] >= W) MCX_INTERNAL("word id out of range");
}

/* Changes as (idx, val) integer vectors of one length. */
static int64_t pairs_len(SEXP idx, SEXP val)
{
    if (TYPEOF(idx) != INTSXP || TYPEOF(val) != INTSXP || XLENGTH(idx) != XLENGTH(val))
        MCX_INTERNAL("bad word-topic changes");
    return (int64_t) XLENGTH(idx);
}

SEXP ffi_lda_shard_words(SEXP set, SEXP tok, SEXP idx, SEXP val)
{
    int K, W;
    double alpha, beta, doc0;
    set_read(set, &K, &W, &alpha, &beta, &doc0);
    if (TYPEOF(tok) != INTSXP || XLENGTH(tok) != W) MCX_INTERNAL("bad word token counts");
    int64_t cap = mcx_lda_words_capacity(K, W, INTEGER(tok));
    if (cap > INT_MAX / 2) MCX_INTERNAL("LDA word lists beyond the int range");
    SEXP out = PROTECT(allocVector(VECSXP, WORDS_N));
    /* each element's type and length, in the order of WORDS */
    const R_xlen_t pairs = 2 * (R_xlen_t) (cap > 0 ? cap : 1);
    const SEXPTYPE type[WORDS_N] = {INTSXP, INTSXP, INTSXP, INTSXP, REALSXP, REALSXP, INTSXP,
                                    REALSXP, REALSXP, INTSXP, INTSXP, INTSXP, INTSXP, RAWSXP};
    const R_xlen_t len[WORDS_N] = {pairs, (R_xlen_t) W + 1, W, K, K, K, K, K, K,
                                   pairs, W, K, W, W};
    SEXP nm = PROTECT(allocVector(STRSXP, WORDS_N));
    for (int i = 0; i < WORDS_N; i++) {
        SET_VECTOR_ELT(out, i, allocVector(type[i], len[i]));
        SET_STRING_ELT(nm, i, mkChar(words_names[i]));
    }
    setAttrib(out, R_NamesSymbol, nm);
    mcx_lda_words ws;
    words_bind(&ws, out, set, 0);
    if (mcx_lda_words_build(&ws, INTEGER(tok), INTEGER(idx), INTEGER(val),
                            pairs_len(idx, val)) < 0)
        MCX_INTERNAL("LDA word-topic counts do not fit the words' tokens");
    UNPROTECT(2);
    return out;
}

SEXP ffi_lda_shard_apply(SEXP words, SEXP set, SEXP idx, SEXP val)
{
    mcx_lda_words ws;
    words_bind(&ws, words, set, 1);
    if (mcx_lda_words_apply(&ws, INTEGER(idx), INTEGER(val), pairs_len(idx, val)) < 0)
        MCX_INTERNAL("LDA word-topic changes out of step with the word lists");
    return R_NilValue;
}

SEXP ffi_lda_shard_draw(SEXP s, SEXP set, SEXP seed, SEXP phi)
{
    mcx_lda_shard sh;
    shard_open(&sh, s, set);
    int K = (int) REAL(set)[0], W = (int) REAL(set)[1];
    if (phi != R_NilValue && (TYPEOF(phi) != REALSXP || XLENGTH(phi) != (R_xlen_t) K * W))
        MCX_INTERNAL("bad topic-word probabilities");
    mcx_lda_shard_draw(&sh, K, mcx_seed_read(seed), phi == R_NilValue ? NULL : REAL(phi));
    return R_NilValue;
}

/* The shard put back to the start of its last sweep (topics from zsnap,
 * then its document counts). */
SEXP ffi_lda_shard_undo(SEXP s, SEXP set)
{
    mcx_lda_shard sh;
    shard_open(&sh, s, set);
    memcpy(sh.z, sh.zsnap, (size_t) sh.N * sizeof(int));
    mcx_lda_shard_recount(&sh, (int) REAL(set)[0]);
    return R_NilValue;
}

/* The segment order of a shard's tokens (word, doc_start: corpus order):
 * list(perm, word, seg_doc, seg_grp, seg_end), perm 0-based. */
SEXP ffi_lda_shard_order(SEXP word, SEXP doc_start, SEXP W, SEXP groups)
{
    if (TYPEOF(word) != INTSXP || TYPEOF(doc_start) != INTSXP || XLENGTH(doc_start) < 1)
        MCX_INTERNAL("bad shard corpus");
    const int D = (int) XLENGTH(doc_start) - 1, w = asInteger(W), g = asInteger(groups);
    const int *ds = INTEGER(doc_start);
    if (ds[D] != XLENGTH(word) || w < 1 || g < 1) MCX_INTERNAL("bad shard corpus");
    for (R_xlen_t t = 0; t < XLENGTH(word); t++)
        if (INTEGER(word)[t] < 0 || INTEGER(word)[t] >= w) MCX_INTERNAL("word id out of range");
    int nseg = mcx_lda_shard_order(D, ds, INTEGER(word), w, g, NULL, NULL, NULL, NULL, NULL);
    const char *names[] = {"perm", "word", "seg_doc", "seg_grp", "seg_end", NULL};
    SEXP v[5];
    v[0] = PROTECT(allocVector(INTSXP, XLENGTH(word)));
    v[1] = PROTECT(allocVector(INTSXP, XLENGTH(word)));
    v[2] = PROTECT(allocVector(INTSXP, nseg));
    v[3] = PROTECT(allocVector(INTSXP, nseg));
    v[4] = PROTECT(allocVector(INTSXP, nseg));
    mcx_lda_shard_order(D, ds, INTEGER(word), w, g, INTEGER(v[0]), INTEGER(v[1]), INTEGER(v[2]),
                        INTEGER(v[3]), INTEGER(v[4]));
    SEXP out = mcx_named_list(names, v);
    UNPROTECT(5);
    return out;
}

/* acc: W x K integers (the worker's, written in place). */
static int *acc_open(SEXP acc, SEXP set)
{
    R_xlen_t n = (R_xlen_t) REAL(set)[0] * (R_xlen_t) REAL(set)[1];
    if (TYPEOF(acc) != INTSXP || XLENGTH(acc) != n) MCX_INTERNAL("bad change accumulator");
    return INTEGER(acc);
}

SEXP ffi_lda_shard_count(SEXP s, SEXP set, SEXP acc)
{
    mcx_lda_shard sh;
    shard_open(&sh, s, set);
    mcx_lda_shard_count(&sh, (int) REAL(set)[0], acc_open(acc, set));
    return R_NilValue;
}

SEXP ffi_lda_shard_sweep(SEXP words, SEXP s, SEXP set, SEXP seed, SEXP acc)
{
    mcx_lda_words ws;
    mcx_lda_shard sh;
    words_bind(&ws, words, set, 1);
    shard_open(&sh, s, set);
    int *a = acc_open(acc, set);
    mcx_interrupt_point((double) sh.N * 8);
    if (mcx_lda_shard_sweep(&ws, &sh, mcx_seed_read(seed), a) < 0)
        MCX_INTERNAL("SparseLDA word list out of step on a shard");
    return R_NilValue;
}

SEXP ffi_lda_shard_theta(SEXP s, SEXP set, SEXP theta_sum)
{
    mcx_lda_shard sh;
    shard_open(&sh, s, set);
    int K = (int) REAL(set)[0];
    if (TYPEOF(theta_sum) != REALSXP || XLENGTH(theta_sum) != (R_xlen_t) sh.D * K)
        MCX_INTERNAL("bad document-topic sums");
    mcx_lda_shard_theta(&sh, K, REAL(set)[2], REAL(theta_sum));
    return R_NilValue;
}

SEXP ffi_lda_shard_log_docs(SEXP s, SEXP set)
{
    mcx_lda_shard sh;
    shard_open(&sh, s, set);
    return ScalarReal(mcx_lda_shard_log_docs(&sh, (int) REAL(set)[0], REAL(set)[2]));
}

/* The non-zero entries of acc as list(idx, val), acc set back to 0. */
SEXP ffi_lda_shard_take(SEXP acc, SEXP set)
{
    int *a = acc_open(acc, set);
    R_xlen_t n = XLENGTH(acc), nz = 0;
    for (R_xlen_t i = 0; i < n; i++) nz += a[i] != 0;
    SEXP idx = PROTECT(allocVector(INTSXP, nz)), val = PROTECT(allocVector(INTSXP, nz));
    int *pi = INTEGER(idx), *pv = INTEGER(val);
    R_xlen_t j = 0;
    for (R_xlen_t i = 0; i < n; i++)
        if (a[i] != 0) {
            pi[j] = (int) i;
            pv[j++] = a[i];
            a[i] = 0;
        }
    const char *names[] = {"idx", "val", NULL};
    SEXP vals[] = {idx, val};
    SEXP out = mcx_named_list(names, vals);
    UNPROTECT(2);
    return out;
}

/* The session's counts nwk (K x W integer matrix, nwk[w K + k]) plus the
 * workers' changes (lists of idx and val vectors): list(nwk, nk, idx, val)
 * with the new counts (a copy) and the combined change (its non-zero
 * entries in increasing idx); NULL when a count would be negative (an
 * internal error). */
SEXP ffi_lda_shard_combine(SEXP nwk, SEXP idxs, SEXP vals)
{
    if (TYPEOF(nwk) != INTSXP || TYPEOF(idxs) != VECSXP || TYPEOF(vals) != VECSXP ||
        XLENGTH(idxs) != XLENGTH(vals))
        MCX_INTERNAL("bad word-topic counts or changes");
    SEXP dm = getAttrib(nwk, R_DimSymbol);
    if (TYPEOF(dm) != INTSXP || XLENGTH(dm) != 2) MCX_INTERNAL("counts without dimensions");
    const int K = INTEGER(dm)[0];
    const R_xlen_t n = XLENGTH(nwk);
    SEXP out_n = PROTECT(duplicate(nwk));
    int *c = INTEGER(out_n);
    /* the change summed in a scratch copy of the counts' shape: only the
     * entries named by the changes are read back */
    int *d = mcx_alloc((size_t) n > 0 ? (size_t) n : 1, sizeof(int));
    memset(d, 0, (size_t) n * sizeof(int));
    R_xlen_t touched = 0;
    for (R_xlen_t j = 0; j < XLENGTH(idxs); j++) {
        SEXP ix = VECTOR_ELT(idxs, j), vx = VECTOR_ELT(vals, j);
        int64_t m = pairs_len(ix, vx);
        const int *pi = INTEGER(ix), *pv = INTEGER(vx);
        for (int64_t i = 0; i < m; i++) {
            if (pi[i] < 0 || pi[i] >= n) MCX_INTERNAL("word-topic change out of range");
            d[pi[i]] += pv[i];
            touched++;
        }
    }
    R_xlen_t nz = 0;
    for (R_xlen_t i = 0; i < n && touched > 0; i++) nz += d[i] != 0;
    SEXP idx = PROTECT(allocVector(INTSXP, nz)), val = PROTECT(allocVector(INTSXP, nz));
    SEXP nk = PROTECT(allocVector(INTSXP, K));
    int *pi = INTEGER(idx), *pv = INTEGER(val), *pk = INTEGER(nk);
    memset(pk, 0, (size_t) K * sizeof(int));
    R_xlen_t j = 0;
    for (R_xlen_t i = 0; i < n; i++) {
        if (d[i] != 0) {
            const long v = (long) c[i] + d[i];
            if (v < 0 || v > INT_MAX) MCX_INTERNAL("word-topic count out of range");
            c[i] = (int) v;
            pi[j] = (int) i;
            pv[j++] = d[i];
        }
        pk[i % K] += c[i];
    }
    const char *names[] = {"nwk", "nk", "idx", "val", NULL};
    SEXP vs[] = {out_n, nk, idx, val};
    SEXP out = mcx_named_list(names, vs);
    UNPROTECT(4);
    return out;
}

SEXP ffi_lda_shard_log_words(SEXP nwk, SEXP nk, SEXP beta)
{
    SEXP dm = getAttrib(nwk, R_DimSymbol);
    if (TYPEOF(nwk) != INTSXP || TYPEOF(dm) != INTSXP || XLENGTH(dm) != 2 ||
        TYPEOF(nk) != INTSXP || XLENGTH(nk) != INTEGER(dm)[0])
        MCX_INTERNAL("bad word-topic counts");
    return ScalarReal(mcx_lda_log_words(INTEGER(dm)[0], INTEGER(dm)[1], asReal(beta),
                                        INTEGER(nwk), INTEGER(nk)));
}

/* phi_sum + (n_wk + beta) / (n_k + W beta) (a new K x W matrix). */
SEXP ffi_lda_shard_phi(SEXP nwk, SEXP nk, SEXP beta, SEXP phi_sum)
{
    SEXP dm = getAttrib(nwk, R_DimSymbol);
    if (TYPEOF(nwk) != INTSXP || TYPEOF(dm) != INTSXP || XLENGTH(dm) != 2 ||
        TYPEOF(phi_sum) != REALSXP || XLENGTH(phi_sum) != XLENGTH(nwk) ||
        TYPEOF(nk) != INTSXP || XLENGTH(nk) != INTEGER(dm)[0])
        MCX_INTERNAL("bad word-topic counts or sums");
    const int K = INTEGER(dm)[0], W = INTEGER(dm)[1];
    const double b = asReal(beta);
    SEXP out = PROTECT(duplicate(phi_sum));
    double *o = REAL(out);
    const int *c = INTEGER(nwk), *pk = INTEGER(nk);
    double *inv = mcx_alloc((size_t) K, sizeof(double));
    for (int k = 0; k < K; k++) inv[k] = 1.0 / (pk[k] + W * b);
    for (R_xlen_t i = 0; i < XLENGTH(nwk); i++) o[i] += (c[i] + b) * inv[i % K];
    UNPROTECT(1);
    return out;
}

/* One master seed from R's generator. */
SEXP ffi_lda_shard_seed(void)
{
    GetRNGstate();
    uint64_t v = mcx_stream_master();
    PutRNGstate();
    return mcx_seed_new(v);
}
