/*
 * model_lda_ftree.c -- the collapsed Gibbs sweep of LDA in word order, each
 * draw through an F+tree over the word's side and a walk over the
 * document's topics (F+LDA: Yu, Hsieh, Yun, Vishwanathan and Dhillon 2015,
 * "A scalable asynchronous distributed algorithm for topic modeling",
 * WWW, section 4, the word-by-word sampler).
 *
 * The full conditional of a token of word w in document d (model_lda.c,
 * every count excluding the token) splits exactly into two sums:
 *   (n_dk + alpha)(n_wk + beta) / (n_k + W beta)
 *     = alpha a_k + n_dk a_k,     a_k = (n_wk + beta) / (n_k + W beta),
 * the first over every topic, the second over the topics of document d
 * only.  The tokens are visited word by word (the occurrences of word w in
 * corpus order, then those of word w + 1), so a_k depends on the word
 * being swept and on the totals n_k, and only the two topics a token
 * leaves and enters change it: a_k is kept in an F+tree (a complete binary
 * tree whose internal nodes hold the sums of their children), updated in
 * O(log K) per changed leaf and sampled in O(log K) by descending from the
 * root.  The document part costs the topics of d (its list of (k, n_dk)
 * pairs).  One uniform u on (0, R + alpha T), R the document part and T
 * the root, picks the part and then the topic in it, so each draw has
 * exactly the full conditional: a systematic-scan collapsed Gibbs sweep
 * (the tokens in word order instead of document order).
 *
 * Reproducibility: every internal node is recomputed as the sum of its
 * two children (never updated by a difference), and the leaves of word w
 * are built from the counts when the sweep reaches w, so the tree is a
 * function of the counts alone; the document lists are kept in increasing
 * topic order, functions of the counts too.  Each draw depends on the
 * counts, the corpus order and u only, and a chain run in chunks equals
 * one longer run bit for bit.
 *
 * Random numbers: each sweep draws one master seed from R's generator and
 * the occurrences of word w run the xoshiro256++ stream (master, w)
 * (src/rng_stream.c, inst/design.md section 4.1): the word plays the part
 * the document plays in the document-ordered sweeps.
 *
 * Memory: per token its token index, its document's list and its topic
 * in word order (12 bytes) and at most one entry of its document's list;
 * the dense counts of mcx_lda_build().  The word's row of counts, the
 * totals and the tree stay in cache while the word is swept; the one read
 * at random is the document's list, prefetched a few occurrences ahead.
 * An entry packs the topic and the count in 32 bits when every count
 * fits beside the largest topic id (at K = 50 and 100-token documents a
 * list is one or two cache lines), in 64 bits otherwise; the arithmetic
 * is the same, so are the draws (the pass is written once,
 * model_lda_ftree_pass.h).
 */
#include <string.h>
#include "model_lda.h"
#include "rng_stream.h"

/* Occurrences ahead whose document lists are prefetched. */
#define FT_AHEAD 6

void mcx_lda_ftree_init(mcx_lda *m)
{
    const int K = m->K, W = m->W, D = m->D, N = m->N;
    const int *word = m->word, *start = m->doc_start;
    const double wb = m->W * m->beta;
    /* the documents' blocks: a length and min(K, n_d) entries */
    m->ft_doff = mcx_alloc((size_t) D + 1, sizeof(int));
    size_t total = 0;
    int max_len = 0;
    for (int d = 0; d < D; d++) {
        const int n = start[d + 1] - start[d];
        m->ft_doff[d] = (int) total;
        total += 1 + (size_t) (n < K ? n : K);
        if (total > INT32_MAX) MCX_INTERNAL("F+tree document lists beyond 2^31 entries");
        max_len = n > max_len ? n : max_len;
    }
    m->ft_doff[D] = (int) total;
    /* 32-bit entries when the topic ids (bits) and the counts (shift bits) fit */
    int bits = 1;
    while (bits < 31 && ((int64_t) 1 << bits) < K) bits++;
    const int narrow = (int64_t) max_len < ((int64_t) 1 << (32 - bits));
    m->ft_shift = narrow ? 32 - bits : 32;
    if (narrow) m->ft_d32 = mcx_alloc(total > 0 ? total : 1, sizeof(uint32_t));
    else m->ft_d64 = mcx_alloc(total > 0 ? total : 1, sizeof(uint64_t));
    for (int d = 0; d < D; d++) {
        const int *nd = m->ndk + (size_t) d * K;
        const size_t o = (size_t) m->ft_doff[d];
        int n = 0;
        for (int k = 0; k < K; k++)
            if (nd[k] > 0) {
                n++;
                if (narrow) m->ft_d32[o + n] = (uint32_t) k << m->ft_shift | (uint32_t) nd[k];
                else m->ft_d64[o + n] = (uint64_t) k << 32 | (uint64_t) nd[k];
            }
        if (narrow) m->ft_d32[o] = (uint32_t) n;
        else m->ft_d64[o] = (uint64_t) n;
    }
    /* the occurrences of each word in token order (counting sort) */
    m->ft_off = mcx_alloc((size_t) W + 1, sizeof(int));
    int *off = m->ft_off;
    memset(off, 0, ((size_t) W + 1) * sizeof(int));
    for (int t = 0; t < N; t++) off[word[t] + 1]++;
    for (int w = 0; w < W; w++) off[w + 1] += off[w];
    const size_t n1 = (size_t) (N > 0 ? N : 1);
    m->ft_tok = mcx_alloc(n1, sizeof(int));
    m->ft_dpos = mcx_alloc(n1, sizeof(int));
    m->ft_z = mcx_alloc(n1, sizeof(int));
    int *fill = mcx_alloc((size_t) (W > 0 ? W : 1), sizeof(int));
    memcpy(fill, off, (size_t) W * sizeof(int));
    for (int d = 0; d < D; d++)
        for (int t = start[d]; t < start[d + 1]; t++) {
            const int s = fill[word[t]]++;
            m->ft_tok[s] = t;
            m->ft_dpos[s] = m->ft_doff[d];
            m->ft_z[s] = m->z[t];
        }
    int P = 1;
    while (P < K) P *= 2;
    m->ft_P = P;
    m->ft_tree = mcx_alloc(2 * (size_t) P, sizeof(double));
    memset(m->ft_tree, 0, 2 * (size_t) P * sizeof(double));
    m->inv_minus = mcx_alloc((size_t) K, sizeof(double));
    for (int k = 0; k < K; k++)
        m->inv_minus[k] = m->nk[k] > 0 ? 1.0 / (m->nk[k] - 1 + wb) : 0.0;
}

void mcx_lda_ftree_sync(mcx_lda *m)
{
    const int K = m->K, D = m->D, shift = m->ft_shift;
    memset(m->ndk, 0, (size_t) D * K * sizeof(int));
    for (int d = 0; d < D; d++) {
        const size_t o = (size_t) m->ft_doff[d];
        int *nd = m->ndk + (size_t) d * K;
        if (m->ft_d32) {
            const uint32_t *e = m->ft_d32 + o, mask = ((uint32_t) 1 << shift) - 1;
            for (uint32_t i = 1; i <= e[0]; i++) nd[e[i] >> shift] = (int) (e[i] & mask);
        } else {
            const uint64_t *e = m->ft_d64 + o, mask = ((uint64_t) 1 << shift) - 1;
            for (uint64_t i = 1; i <= e[0]; i++) nd[e[i] >> shift] = (int) (e[i] & mask);
        }
    }
}

void mcx_lda_ftree_finish(mcx_lda *m)
{
    for (int s = 0; s < m->N; s++) m->z[m->ft_tok[s]] = m->ft_z[s];
    mcx_lda_ftree_sync(m);
}

/* Leaf k of the tree (P leaves) changed to x: the difference added to
 * each ancestor (independent additions, not a chain of sums; the tree is
 * rebuilt from its leaves at the start of every word, so it depends on
 * the counts and the order of the word's tokens only). */
static inline void tree_set(double *tr, int P, int k, double x)
{
    int i = P + k;
    const double dx = x - tr[i];
    tr[i] = x;
    for (i >>= 1; i >= 1; i >>= 1) tr[i] += dx;
}

/* The leaf of u in (0, root): descend, going right past each left sum. */
static inline int tree_find(const double *tr, int P, double u)
{
    int i = 1;
    while (i < P) {
        const double l = tr[2 * i];
        if (u < l) {
            i = 2 * i;
        } else {
            u -= l;
            i = 2 * i + 1;
        }
    }
    return i - P;
}

/* The word pass for 32- and 64-bit list entries (model_lda_ftree_pass.h). */
#define FT_ET uint32_t
#define FT_FN(name) name##_32
#include "model_lda_ftree_pass.h"
#undef FT_ET
#undef FT_FN
#define FT_ET uint64_t
#define FT_FN(name) name##_64
#include "model_lda_ftree_pass.h"
#undef FT_ET
#undef FT_FN

void mcx_lda_sweep_ftree(mcx_lda *m)
{
    const uint64_t master = mcx_stream_master();
    for (int w = 0; w < m->W; w++) {
        const int bad = m->ft_d32 ? ftree_word_32(m, m->ft_d32, w, master)
                                  : ftree_word_64(m, m->ft_d64, w, master);
        if (bad) MCX_INTERNAL("F+tree document list out of step");
    }
}

static void ftree_setup(mcx_lda *m, const mcx_lda_settings *s)
{
    (void) s;
    mcx_lda_ftree_init(m);
}

/* Collapsed Gibbs in word order through an F+tree. */
const mcx_lda_sampler mcx_lda_ftree = { "ftree", ftree_setup, mcx_lda_sweep_ftree,
                                        mcx_lda_ftree_sync, mcx_lda_ftree_finish };
