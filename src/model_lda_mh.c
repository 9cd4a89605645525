/*
 * model_lda_mh.c -- the collapsed LDA sampler by cycles of Metropolis-
 * Hastings proposals (Yuan et al. 2015, "LightLDA: big topic models on
 * modest computer clusters", WWW: the cycle of document and word
 * proposals), both proposals drawn without alias tables, as the topic of
 * a randomly chosen other token (Chen, Li, Zhu and Chen 2016, "WarpLDA: a
 * cache efficient O(1) algorithm for latent Dirichlet allocation", PVLDB).
 *
 * Target: the full conditional of one token i (word w, document d) given
 * all other topics z_{-i} (Griffiths and Steyvers 2004; Rogers and
 * Girolami 2016, eq. 10.13),
 *   pi(t) propto (n_dt + alpha)(n_wt + beta) / (n_t + W beta),
 * every count excluding token i.  Two proposals, each a function of
 * z_{-i} only (never of the token's current topic), alternate:
 *
 *   document proposal q_d(t) propto n_dt + alpha: with probability
 *     n_d / (n_d + K alpha) (n_d the OTHER tokens of document d) the topic
 *     of one of them chosen uniformly, else a topic uniform on 1..K
 *     (lda_model() takes a symmetric alpha; an asymmetric one would draw
 *     this part from alpha_t / sum(alpha) with probability sum(alpha) /
 *     (n_d + sum(alpha)), the ratios below unchanged but for alpha_t and
 *     alpha_k in the word step); from topic k, t is accepted with probability
 *       min(1, [(n_wt + beta)(n_k + W beta)] / [(n_wk + beta)(n_t + W beta)]),
 *     the document factor of pi cancelling against q_d;
 *   word proposal q_w(t) propto n_wt + beta: with probability
 *     n_w / (n_w + K beta) (n_w the OTHER occurrences of word w in the
 *     corpus) the topic of one of them chosen uniformly, else uniform;
 *     accepted with probability
 *       min(1, [(n_dt + alpha)(n_k + W beta)] / [(n_dk + alpha)(n_t + W beta)]).
 *
 * Because q_d and q_w do not move while token i is being updated (they
 * read only the other tokens), each step is an exact Metropolis-Hastings
 * step whose stationary law is pi, and so is a cycle of them: the sweep
 * leaves the posterior p(z | w) invariant exactly, like the Gibbs sweep,
 * only with more autocorrelation per sweep.  A document-term count above
 * one is several tokens (the corpus is a token list), so "the other
 * tokens" and "the other occurrences" are counted with multiplicity.
 *
 * Cost: O(1) per proposal whatever K -- two uniforms, one read of the
 * document's topics (cached), one of the word-ordered topic copy, four
 * counts and no division.  Memory: the dense counts of the collapsed
 * sampler (mcx_lda_build) plus, per token, its slot in word order and the
 * topic copy in word order (8 bytes), and W + 1 word offsets.  The pass
 * reads the word-topic counts and the word-ordered topics at random, so
 * when every topic id and every word's number of tokens fits in 16 bits
 * it works on 16-bit copies of the counts and of the topics, 8-bit topics
 * when K <= 256 (a half and a quarter of the cache footprint: the W x K
 * counts are 0.5 MB at K = 50, W = 5000, the topics 1 MB per 1e6 tokens),
 * the int counts refreshed from them before a kept draw reads them
 * (mcx_lda_mh_sync()); otherwise on the int counts and topics.  The
 * arithmetic is the same, so are the draws.
 *
 * Random numbers: as the sparse sweep, one master seed per sweep from R's
 * generator and document d drawing from the stream (master, d)
 * (src/rng_stream.c); the state is z alone (the counts, word order and
 * copy are functions of z, kept across the chunks of a run or rebuilt from
 * z: ffi_lda.c), so chunked runs and extend() equal one longer run bit
 * for bit.
 */
#include <string.h>
#include "model_lda.h"
#include "rng_stream.h"

/* One Metropolis-Hastings step of a token, drawn ahead (model_lda_mh_pass.h):
 * its document and word proposals, each the position of another token
 * (z for the document, the word-ordered topics for the word; >= 0) or a
 * topic c of the uniform part (-1 - c), and their acceptance uniforms. */
typedef struct mh_step {
    int dp, wp;
    double ua, ub;
} mh_step;

/* Tokens ahead whose uniforms are drawn (and the memory they will read
 * prefetched) before they are updated (see mh_draw()). */
#define MH_AHEAD 8
/* The largest topic id and count of the 16-bit pass. */
#define MH_NARROW 65535

void mcx_lda_mh_init(mcx_lda *m, int steps, int wide)
{
    const int K = m->K, W = m->W, N = m->N;
    const int *word = m->word;
    m->mh_steps = steps < 1 ? 1 : steps;
    m->mh_off = mcx_alloc((size_t) W + 1, sizeof(int));
    m->mh_slot = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    m->mh_u = mcx_alloc((size_t) MH_AHEAD * m->mh_steps, sizeof(mh_step));
    int *off = m->mh_off;
    memset(off, 0, ((size_t) W + 1) * sizeof(int));
    for (int t = 0; t < N; t++) off[word[t] + 1]++;
    int max_freq = 0;
    for (int w = 0; w < W; w++) {
        max_freq = off[w + 1] > max_freq ? off[w + 1] : max_freq;
        off[w + 1] += off[w];
    }
    /* 16-bit word-topic counts and 16-bit (8-bit when K <= 256) topics
     * when every topic id and every count fits (n_wk <= n_w): a half (a
     * quarter) of the memory the pass reads at random */
    const int narrow = !wide && K <= MH_NARROW && max_freq <= MH_NARROW;
    if (narrow && K <= 256) {
        m->mh_z8 = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(uint8_t));
    } else if (narrow) {
        m->mh_z16 = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(uint16_t));
    } else {
        m->mh_z = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    }
    if (narrow) {
        m->mh_nw16 = mcx_alloc((size_t) W * K > 0 ? (size_t) W * K : 1, sizeof(uint16_t));
        for (size_t i = 0; i < (size_t) W * K; i++) m->mh_nw16[i] = (uint16_t) m->nwk[i];
    }
    /* counting sort: the occurrences of each word in token order */
    int *fill = mcx_alloc((size_t) W, sizeof(int));
    memcpy(fill, off, (size_t) W * sizeof(int));
    for (int t = 0; t < N; t++) {
        int s = fill[word[t]]++;
        m->mh_slot[t] = s;
        if (m->mh_z8) m->mh_z8[s] = (uint8_t) m->z[t];
        else if (m->mh_z16) m->mh_z16[s] = (uint16_t) m->z[t];
        else m->mh_z[s] = m->z[t];
    }
}

void mcx_lda_mh_sync(mcx_lda *m)
{
    if (!m->mh_nw16) return;
    for (size_t i = 0; i < (size_t) m->W * m->K; i++) m->nwk[i] = m->mh_nw16[i];
}

/* The position standing for draw u < n of the n others among the n + 1
 * positions first .. first + n, position `own` taken by the last one:
 * the other occurrences of a word in the word-ordered topics (own: the
 * token's slot), or the other tokens of a document (own: the token). */
static inline int other_position(double u, int first, int n, int own)
{
    int j = first + (int) u;
    j = j < first + n ? j : first + n;
    return j == own ? first + n : j;
}

/* The topic of draw x in (0, K a) of the uniform part (scale 1 / a). */
static inline int uniform_topic(double x, double inv_a, int K)
{
    int c = (int) (x * inv_a);
    return c < K - 1 ? c : K - 1;
}

/* A proposal drawn as x in (0, n + K a): the position of one of the n
 * others (other_position()) when x < n, else topic c of the uniform part,
 * coded -1 - c (mh_step). */
static inline int mh_pick(double x, int first, int n, int own, double inv_a, int K)
{
    return x < n ? other_position(x, first, n, own) : -1 - uniform_topic(x - n, inv_a, K);
}

/* mh_draw() inlined into the token loop (a call per token otherwise) */
#if defined(__GNUC__) || defined(__clang__)
#define MH_INLINE static inline __attribute__((always_inline))
#else
#define MH_INLINE static inline
#endif

/* A document's part of the proposals (model_lda_mh_pass.h). */
typedef struct mh_doc {
    int i0, dn;               /* first token, number of other tokens */
    double dtot;              /* n_d + K alpha, n_d the other tokens */
    double inv_alpha, inv_beta;
} mh_doc;

/* The token pass, once for each width of the counts and topics read at
 * random (model_lda_mh_pass.h): the same arithmetic on the same values,
 * so the same draws. */
#define MH_CT uint16_t
#define MH_TT uint8_t
#define MH_FN(name) name##_8
#include "model_lda_mh_pass.h"
#undef MH_TT
#undef MH_FN
#define MH_TT uint16_t
#define MH_FN(name) name##_16
#include "model_lda_mh_pass.h"
#undef MH_CT
#undef MH_TT
#undef MH_FN
#define MH_CT int
#define MH_TT int
#define MH_FN(name) name##_32
#include "model_lda_mh_pass.h"
#undef MH_CT
#undef MH_TT
#undef MH_FN

void mcx_lda_sweep_mh(mcx_lda *m)
{
    const uint64_t master = mcx_stream_master();
    if (m->mh_z8)
        for (int d = 0; d < m->D; d++) mh_document_8(m, m->mh_nw16, m->mh_z8, d, master);
    else if (m->mh_nw16)
        for (int d = 0; d < m->D; d++) mh_document_16(m, m->mh_nw16, m->mh_z16, d, master);
    else
        for (int d = 0; d < m->D; d++) mh_document_32(m, m->nwk, m->mh_z, d, master);
    /* 1 / (n_k + W beta), read by mcx_lda_accumulate() */
    const double wb = m->W * m->beta;
    for (int k = 0; k < m->K; k++) m->inv_den[k] = 1.0 / (m->nk[k] + wb);
}

static void mh_setup(mcx_lda *m, const mcx_lda_settings *s)
{
    mcx_lda_mh_init(m, s->mh_steps, s->mh_wide);
}

/* Metropolis-Hastings cycles of document and word proposals. */
const mcx_lda_sampler mcx_lda_mh = { "mh", mh_setup, mcx_lda_sweep_mh, mcx_lda_mh_sync, NULL };
