/*
 * shard_lda.h -- LDA over shards of documents (SEXP-free engine; glue
 * ffi_shard_lda.c, driver R/lda_sharded.R; inst/design.md, "One chain over
 * several machines").
 *
 * The sampler is approximate distributed LDA (AD-LDA; Newman, Asuncion,
 * Smyth and Welling 2009, "Distributed algorithms for topic models", JMLR
 * 10, section 3): the documents are cut into shards; in a sweep every
 * shard runs the collapsed Gibbs sweep of its tokens (SparseLDA,
 * model_lda_sparse.c; the full conditional of Griffiths and Steyvers 2004,
 * eq. 10.13 of the reference's LDA section) against the word-topic counts
 * n_wk and topic totals n_k of the start of the sweep plus its own moves,
 * and the counts are synchronised once per sweep: n_wk += sum over shards
 * of each shard's change.  Its document-topic counts are exact (a
 * document lives on one shard); only the other shards' moves of the same
 * sweep are unseen, so with one shard it is the sequential collapsed Gibbs
 * sampler, and with more its conditionals differ by the other shards'
 * moves of one sweep (Newman et al. report the same perplexity as the
 * sequential sampler up to 1000 processors).
 *
 * Independence of the workers: a worker samples each of its shards from
 * the counts of the start of the sweep (after a shard it puts back the
 * lists of the words whose tokens changed topic, from a copy of the
 * sweep's start, and adds their difference to the worker's change), every
 * document d draws from the stream (master, d) of its global index
 * (rng_stream.h), and the changes are integers summed in any order: the
 * draws depend on the shards only, not on which worker holds them or how
 * many there are.
 *
 * What travels per sweep: each worker's summed change of n_wk as sparse
 * (index, change) pairs, and back the combined change; never the dense
 * W x K counts (they travel once, when a chain starts or is reloaded).
 */
#ifndef MCMIX_SHARD_LDA_H
#define MCMIX_SHARD_LDA_H

#include <stdint.h>

/* The word side a worker samples against: the counts of the start of the
 * sweep as SparseLDA word lists (model_lda.h: pairs (k, n_wk) of word w in
 * increasing k at wtk[2 woff[w] ..], wlen[w] of them, capacity
 * min(K, tokens of w)), the topic totals and their reciprocals
 * 1 / (n_k + W beta), 1 / (n_k - 1 + W beta) (0 where n_k = 0), and the
 * K-long scratch of a document. */
typedef struct {
    int K, W;
    double alpha, beta;
    int *wtk, *woff, *wlen, *nk;
    double *inv, *invm;
    int *dtop;
    double *coef, *qw;
    /* the same lists and totals as they stand at the start of the sweep
     * (a shard's sweep changes wtk, wlen, nk; its touched words are put
     * back from these), and the touched words of a shard: tw[0 .. ntw)
     * with mark[w] = 1 */
    int *wtk0, *wlen0, *nk0;
    int *tw;
    unsigned char *mark;
} mcx_lda_words;

/* A shard: D documents of N tokens (doc_start: the documents' offsets in
 * the corpus order), held in segment order: the vocabulary is cut into
 * `groups` ranges of word ids (group of w: w groups / W), and segment s,
 * tokens seg_end[s - 1] .. seg_end[s] - 1 (from 0), holds the tokens of
 * document seg_doc[s] in group seg_grp[s]; segments by group, then
 * document, tokens in corpus order within one (so a sweep reads the word
 * lists of one group at a time, which fit in cache); word ids and topics
 * z in that order, the copy zsnap of the sweep's start, the document-
 * topic counts ndk (D x K) and topic bit sets dmask (D x ceil(K / 64));
 * doc0 the global index of its first document. */
typedef struct {
    int D, N, nseg, groups;
    const int *word, *doc_start, *seg_doc, *seg_grp, *seg_end;
    int *z, *zsnap, *ndk;
    uint64_t *dmask;
    double doc0;
} mcx_lda_shard;

/* The segments of a shard given in corpus order (word_in, doc_start):
 * their number (call with perm NULL), or the order filled in: perm[t]
 * the corpus index of segment-order token t, word_out, seg_doc, seg_grp,
 * seg_end (nseg each). */
int  mcx_lda_shard_order(int D, const int *doc_start, const int *word_in, int W, int groups,
                         int *perm, int *word_out, int *seg_doc, int *seg_grp, int *seg_end);

/* Pairs of the word lists of W words with tok[w] tokens each (the sum of
 * min(K, tok[w])). */
int64_t mcx_lda_words_capacity(int K, int W, const int *tok);
/* The word lists from tok (offsets) and the counts as pairs (idx, val)
 * with idx = w K + k increasing, val > 0, n of them; the totals.
 * 0, or -1 when the counts do not fit the capacities. */
int  mcx_lda_words_build(mcx_lda_words *ws, const int *tok, const int *idx, const int *val,
                         int64_t n);
/* Add the changes (idx, val) to the word lists and totals; 0, or -1 when a
 * count would leave [0, capacity]. */
int  mcx_lda_words_apply(mcx_lda_words *ws, const int *idx, const int *val, int64_t n);
/* Topics of every token of the shard drawn from its segments' streams
 * (master, (doc0 + d) groups + g): uniform over the K topics (phi NULL), or
 * proportional to phi[w K + k] (K x W, the topics' word probabilities);
 * then its document counts. */
void mcx_lda_shard_draw(mcx_lda_shard *sh, int K, uint64_t master, const double *phi);
/* The document-topic counts and bit sets from z. */
void mcx_lda_shard_recount(mcx_lda_shard *sh, int K);
/* acc[w K + z_t] += 1 over the shard's tokens (acc: W x K). */
void mcx_lda_shard_count(const mcx_lda_shard *sh, int K, int *acc);
/* One sweep of the shard against ws (left as it was), its change of the
 * word-topic counts added to acc (W x K); 0, or -1 when a word list was
 * out of step (an internal error). */
int  mcx_lda_shard_sweep(mcx_lda_words *ws, mcx_lda_shard *sh, uint64_t master, int *acc);
/* theta_sum (D x K, column-major) += (n_dk + alpha) / (n_d + K alpha). */
void mcx_lda_shard_theta(const mcx_lda_shard *sh, int K, double alpha, double *theta_sum);
/* The documents' part of log p(w, z):
 * sum_d [lgamma(K alpha) - lgamma(n_d + K alpha)
 *        + sum_k (lgamma(n_dk + alpha) - lgamma(alpha))]. */
double mcx_lda_shard_log_docs(const mcx_lda_shard *sh, int K, double alpha);
/* The words' part, from the dense counts nwk (W x K) and totals nk:
 * sum_k [lgamma(W beta) - lgamma(n_k + W beta)
 *        + sum_w (lgamma(n_wk + beta) - lgamma(beta))]. */
double mcx_lda_log_words(int K, int W, double beta, const int *nwk, const int *nk);

#endif
