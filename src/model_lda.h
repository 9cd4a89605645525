/*
 * model_lda.h -- SEXP-free engine of latent Dirichlet allocation
 * (model_lda.c, model_lda_sparse.c, model_lda_mh.c).  Glue: ffi_lda.c.
 * (The hierarchical Dirichlet process mixture is model_hdp.h.)
 *
 * Conventions shared with the other model engines: a call runs iterations
 * offset + 1 .. offset + n_iter; unless `warmup`, iteration g is kept iff
 * g %% thin == 0.  State arrays are updated in place and hold everything
 * needed to continue, so running in chunks equals one longer run.
 */
#ifndef MCMIX_MODEL_LDA_H
#define MCMIX_MODEL_LDA_H

#include <stdint.h>
#include "mcmix_engine.h"
#include "mixture_state.h"

/* ---- LDA, collapsed Gibbs (Griffiths and Steyvers 2004) ---------------- */
typedef struct mcx_lda {
    int K, W, D, N;           /* topics, vocabulary, documents, tokens */
    double alpha, beta;       /* symmetric Dirichlet parameters */
    const int *word;          /* N word ids in 0 .. W-1, documents in order */
    const int *doc_start;     /* D + 1 offsets into word[] */
    int *z;                   /* N topics in 0 .. K-1 (the state) */
    int *nwk;                 /* W x K: nwk[w * K + k] tokens of word w in topic k */
    int *ndk;                 /* D x K: ndk[d * K + k] tokens of document d in topic k */
    int *nk;                  /* K: tokens in topic k */
    double *inv_den;          /* K: 1 / (nk[k] + W beta) */
    double *cum;              /* K: scratch for the cumulative weights */
    /* SparseLDA buckets (model_lda_sparse.c; wtk NULL for the dense sweep).
     * The sparse sweep keeps the word-topic counts in wtk only; nwk is
     * refreshed from it (mcx_lda_sparse_sync()) before it is read. */
    int *wtk;                 /* pairs (k, n_wk) with n_wk > 0 of word w, k
                               * increasing, at wtk[2 woff[w] .. 2 (woff[w] + wlen[w])) */
    int *woff, *wlen;         /* W + 1 offsets (capacity min(K, n_w)), W lengths */
    int *dtop;                /* K: topics with n_dk > 0 of the current document */
    double *coef;             /* K: (n_dk + alpha) / (n_k + W beta), current document */
    double *inv_minus;        /* K: 1 / (n_k - 1 + W beta) where n_k > 0 */
    uint64_t *dmask;          /* D x mask_words: bit k of document d set when n_dk > 0 */
    int mask_words;           /* (K + 63) / 64 */
    /* partitioned sweep (mcx_lda_blocked_init(); n_blocks 0 otherwise):
     * B = n_blocks document groups x B word groups, cell c = i B + j */
    int n_blocks, threads;
    int *cell_off;            /* B^2 + 1 offsets of the cells in cell_tok */
    int *cell_tok;            /* N token indices, cell by cell, in token order */
    int *seg_off;             /* B^2 + 1 offsets of the cells' document segments */
    int *seg_doc, *seg_end;   /* per segment: its document, its end in cell_tok */
    int *cell_word, *cell_z;  /* N: words and topics in cell order */
    int *nk_snap;             /* 3 x K: the totals S_e the cells of epoch e start from */
    int *nk_delta;            /* 3 x B x K: each cell's moves, until merged */
    int *cell_done;           /* B^2 + 2 B flags and counters of the schedule */
    void *views;              /* B copies of the topic totals and scratch */
    /* Metropolis-Hastings cycles (model_lda_mh.c; mh_steps 0 otherwise).
     * When every topic id and every word's token count is at most 65535
     * the sweep reads and updates 16-bit copies, mh_z16 (mh_z8, 8 bits,
     * when K <= 256) and mh_nw16 (the
     * word-topic counts; nwk is refreshed from them by mcx_lda_mh_sync()
     * before it is read), else mh_z and nwk. */
    int mh_steps;             /* cycles of (document, word) proposals per token */
    int *mh_off;              /* W + 1 offsets of each word's occurrences */
    int *mh_slot;             /* N: slot of token t in word order */
    int *mh_z;                /* N: topics in word order (a copy of z), or NULL */
    uint16_t *mh_z16;         /* N: the same in 16 bits, or NULL */
    uint8_t *mh_z8;           /* N: the same in 8 bits (K <= 256), or NULL */
    uint16_t *mh_nw16;        /* W x K: the word-topic counts in 16 bits, or NULL */
    void *mh_u;               /* scratch: the proposals drawn ahead (mh_step) */
    /* log-gamma tables of mcx_lda_log_joint(), NaN until read:
     * lg_beta[n] = lgamma(n + beta) - lgamma(beta) (n < lg_nw),
     * lg_alpha[n] = lgamma(n + alpha) - lgamma(alpha) and
     * lg_len[n] = lgamma(n + K alpha) (n < lg_nd); from 1e6 on, beta,
     * alpha and K alpha give lgamma(n + x) - lgamma(x) from Stirling's
     * series (model_lda.c, lg_rise()) */
    double *lg_beta, *lg_alpha, *lg_len;
    int lg_nw, lg_nd;         /* min(largest count + 1, LDA_LG_CAP) */
    const struct mcx_lda_sampler *sampler;   /* the row set up (mcx_lda_prepare()) */
} mcx_lda;
#define LDA_LG_CAP 65536

/* Index of the lowest set bit of x != 0 (the documents' topic bit sets). */
static inline int mcx_lowest_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int i = 0;
    while (!(x & 1)) {
        x >>= 1;
        i++;
    }
    return i;
#endif
}

/* ---- the sampler table --------------------------------------------------
 * Every LDA sampler is one row of type mcx_lda_sampler, defined in the
 * engine file that holds its sweep and listed once in MCX_LDA_SAMPLERS
 * below; the glue (ffi_lda.c) finds the row by its code, its index in the
 * list, which is its index in the R table `lda_samplers` (R/lda.R; the
 * two orders are checked against each other by tests/testthat/
 * test-recipes.R through ffi_lda_samplers()).  Adding a sampler "foo"
 * (inst/design.md, "How to add"): the row `mcx_lda_foo` in its engine
 * file, X(foo) here, one row in `lda_samplers` (appended in the same
 * place), and its exactness test or the word "approximate" in its help.
 *   setup(m, s)  build the sampler's structures from the counts that
 *                mcx_lda_build() made from z (NULL: none); everything it
 *                builds is a function of z, the corpus and s only
 *   sweep(m)     one sweep over every token
 *   sync(m)      bring the dense counts nwk up to date before they are
 *                read (kept draws; NULL: the sweep keeps them)
 *   finish(m)    write z back at the end of a run (NULL: the sweep does)
 */
typedef struct mcx_lda_settings {
    int threads, blocks;      /* "blocked": OpenMP threads, B (B x B cells) */
    int mh_steps, mh_wide;    /* "mh": cycles per token; 1: int counts (tests) */
} mcx_lda_settings;

typedef struct mcx_lda_sampler {
    const char *name;
    void (*setup)(mcx_lda *m, const mcx_lda_settings *s);
    void (*sweep)(mcx_lda *m);
    void (*sync)(mcx_lda *m);
    void (*finish)(mcx_lda *m);
} mcx_lda_sampler;

#define MCX_LDA_SAMPLERS(X) \
    X(sparse)               \
    X(dense)                \
    X(blocked)              \
    X(mh)

#define MCX_LDA_DECLARE(name) extern const mcx_lda_sampler mcx_lda_##name;
MCX_LDA_SAMPLERS(MCX_LDA_DECLARE)
#undef MCX_LDA_DECLARE

/* The row of code `code` (0-based, the order of MCX_LDA_SAMPLERS), NULL
 * when there is none; the number of rows (model_lda_table.c). */
const mcx_lda_sampler *mcx_lda_sampler_at(int code);
int mcx_lda_sampler_count(void);

/* The sampler `alg` set up from z: the counts, then the structures of
 * the sampler (its setup with the settings s).  Everything it builds is
 * a function of z and the corpus only, and every sweep leaves the
 * structures equal to those this would build from the new z, so a chain
 * may keep them across chunks (ffi_lda.c) or rebuild them. */
void   mcx_lda_prepare(mcx_lda *m, int K, int W, int D, double alpha, double beta,
                       const int *word, const int *doc_start, int *z,
                       const mcx_lda_sampler *alg, const mcx_lda_settings *s);
/* A checksum of the N topics z (a chain's workspace checks with it that
 * the state it is handed is the one it belongs to). */
uint64_t mcx_lda_checksum(const int *z, int N);
/* Counts rebuilt from z (every z[t] must be in 0 .. K-1). */
void   mcx_lda_build(mcx_lda *m, int K, int W, int D, double alpha, double beta,
                     const int *word, const int *doc_start, int *z);
void   mcx_lda_sweep(mcx_lda *m);
double mcx_lda_log_joint(const mcx_lda *m);
/* phi_sum (K x W, column-major) = phi_in + posterior mean of phi given z;
 * theta_sum (D x K, column-major) = theta_in + posterior mean of theta
 * given z (the inputs may be the outputs). */
void   mcx_lda_accumulate(const mcx_lda *m, const double *phi_in, const double *theta_in,
                          double *phi_sum, double *theta_sum);
/* Sweeps offset + 1 .. offset + n_iter; log_joint[r] for kept draw r; the
 * sums of the kept draws added to phi_in / theta_in in phi_sum / theta_sum
 * (written only when a draw is kept).  Runs the sampler that was set up
 * (m->sampler). */
void   mcx_lda_run(mcx_lda *m, const mcx_chunk *ch, double *log_joint,
                   const double *phi_in, const double *theta_in,
                   double *phi_sum, double *theta_sum);
/* SparseLDA (Yao, Mimno and McCallum 2009): the same full conditional,
 * drawn through its three buckets; lists built from the counts. */
void   mcx_lda_sparse_init(mcx_lda *m);
void   mcx_lda_sweep_sparse(mcx_lda *m);
/* The same sweep over segments of documents (the shards of shard_lda.c):
 * m->word and m->z hold the tokens in segment order, segment s being
 * tokens seg_end[s - 1] .. seg_end[s] - 1 (from 0) of document seg_doc[s],
 * drawing from the stream (master, (key0 + seg_doc[s]) groups +
 * seg_grp[s]); a systematic scan in that fixed order, so the same
 * collapsed Gibbs sampler.  0, or -1 when a word list was out of step. */
int    mcx_lda_sweep_sparse_segments(mcx_lda *m, uint64_t master, uint64_t key0, int groups,
                                     const int *seg_doc, const int *seg_grp,
                                     const int *seg_end, int nseg);
/* The sparse sweep over documents d0 .. d1 - 1 only, document d drawing
 * from the stream (master, id0 + d) (mcx_lda_sweep_sparse() is the range
 * 0 .. D with id0 = 0 and a master seed from R's generator; no R API
 * here; id0 lets a part of a corpus keep its documents' ids in the
 * whole).  The
 * documents are drawn against the chain's word lists and totals: to
 * sample a subset of documents against given word-topic counts, build m
 * on those documents (mcx_lda_build()), replace nwk (W x K) and nk by the
 * given counts (which must include the documents' own tokens) and
 * inv_den by 1 / (nk + W beta), then mcx_lda_sparse_init(m); the sweep
 * updates the lists, nk and the documents' counts in place, and
 * mcx_lda_sparse_sync(m) writes the word-topic counts back to nwk.  Two
 * calls on d0 .. a and a .. d1 are the same sampler as one call on
 * d0 .. d1 but not bit for bit (the smoothing bucket is recomputed at
 * the start of each call). */
void   mcx_lda_sweep_sparse_docs(mcx_lda *m, int d0, int d1, uint64_t master, uint64_t id0);
void   mcx_lda_sparse_sync(mcx_lda *m);
/* Partitioned SparseLDA on `threads` OpenMP threads (after
 * mcx_lda_sparse_init): blocks x blocks cells of (document group, word
 * group), B epochs of B disjoint cells per sweep, the topic totals merged
 * after each epoch; identical for any thread count, the sequential sweep
 * when blocks = 1. */
void   mcx_lda_blocked_init(mcx_lda *m, int threads, int blocks);
void   mcx_lda_sweep_blocked(mcx_lda *m);
/* z from the partitioned sweep's copy (at the end of a run). */
void   mcx_lda_blocked_finish(mcx_lda *m);
/* Metropolis-Hastings cycles of document and word proposals (LightLDA
 * without alias tables): an exact sampler of p(z | w) at O(1) per token;
 * `steps` cycles per token per sweep. */
void   mcx_lda_mh_init(mcx_lda *m, int steps, int wide);
void   mcx_lda_sweep_mh(mcx_lda *m);
/* The dense word-topic counts from the 16-bit ones (before they are read). */
void   mcx_lda_mh_sync(mcx_lda *m);
/* Fold-in Gibbs for new documents with the topics fixed: phi is K x W
 * (column-major, phi[w * K + k]); n_burn + n_keep sweeps per document
 * (64-bit counts) from a uniform start; theta (D x K, column-major)
 * receives the average over the kept sweeps of (n_dk + alpha) /
 * (n_d + K alpha), 1 / K for a document without tokens. */
void   mcx_lda_fold_in(int K, int W, int D, double alpha, const double *phi,
                       const int *word, const int *doc_start, int64_t n_burn,
                       int64_t n_keep, double *theta);

#endif
