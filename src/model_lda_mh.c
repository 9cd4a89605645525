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
 * topic copy in word order (8 bytes), and W + 1 word offsets.
 *
 * Random numbers: as the sparse sweep, one master seed per sweep from R's
 * generator and document d drawing from the stream (master, d)
 * (src/rng_stream.c); the state is z alone (the counts, word order and
 * copy are functions of z, kept across the chunks of a run or rebuilt from
 * z: ffi_topic.c), so chunked runs and extend() equal one longer run bit
 * for bit.
 */
#include <string.h>
#include "model_topic.h"
#include "rng_stream.h"

/* Tokens ahead whose uniforms are drawn (and the memory they will read
 * prefetched) before they are updated (see mh_draw()). */
#define MH_AHEAD 8

void mcx_lda_mh_init(mcx_lda *m, int steps)
{
    const int W = m->W, N = m->N;
    const int *word = m->word;
    m->mh_steps = steps < 1 ? 1 : steps;
    m->mh_off = mcx_alloc((size_t) W + 1, sizeof(int));
    m->mh_slot = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    m->mh_z = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    m->mh_u = mcx_alloc((size_t) MH_AHEAD * 4 * m->mh_steps, sizeof(double));
    int *off = m->mh_off;
    memset(off, 0, ((size_t) W + 1) * sizeof(int));
    for (int t = 0; t < N; t++) off[word[t] + 1]++;
    for (int w = 0; w < W; w++) off[w + 1] += off[w];
    /* counting sort: the occurrences of each word in token order */
    int *fill = mcx_alloc((size_t) W, sizeof(int));
    memcpy(fill, off, (size_t) W * sizeof(int));
    for (int t = 0; t < N; t++) {
        int s = fill[word[t]]++;
        m->mh_slot[t] = s;
        m->mh_z[s] = m->z[t];
    }
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

/*
 * The uniforms of a token are drawn MH_AHEAD tokens before it is updated,
 * four per step in a fixed order -- document proposal, its acceptance,
 * word proposal, its acceptance -- the proposals scaled to (0, n_d + K
 * alpha) and (0, n_w + K beta).  Nothing of them depends on the accept
 * decisions, so the memory a token will read is known early: at drawing
 * time its word's topic slots and its count row at its current topic are
 * prefetched, and MH_AHEAD / 2 tokens before the update (the slots have
 * arrived) the counts of the proposed topics; the waits for the
 * scattered word-ordered topics and for the topic-word counts (K W of
 * them, megabytes at large K) then overlap the updates of the tokens
 * in between.
 */
typedef struct mh_doc {
    int i0, dn;               /* first token, number of other tokens */
    double dtot;              /* n_d + K alpha, n_d the other tokens */
} mh_doc;

static inline void mh_draw(const mcx_lda *m, const mh_doc *dc, mcx_stream *rng,
                           int t, double *u)
{
    const int K = m->K, w = m->word[t];
    const int wo = m->mh_off[w], wn = m->mh_off[w + 1] - wo - 1, own = m->mh_slot[t];
    const double wtot = wn + K * m->beta;
    const int *row = m->nwk + (size_t) w * K;
    MCX_PREFETCH(row + m->z[t]);
    for (int s = 0; s < m->mh_steps; s++) {
        double *v = u + 4 * s;
        v[0] = mcx_stream_unif(rng) * dc->dtot;
        v[1] = mcx_stream_unif(rng);
        v[2] = mcx_stream_unif(rng) * wtot;
        v[3] = mcx_stream_unif(rng);
        if (v[0] < dc->dn) MCX_PREFETCH(row + m->z[other_position(v[0], dc->i0, dc->dn, t)]);
        else MCX_PREFETCH(row + uniform_topic(v[0] - dc->dn, 1.0 / m->alpha, K));
        if (v[2] < wn) MCX_PREFETCH(m->mh_z + other_position(v[2], wo, wn, own));
        else MCX_PREFETCH(row + uniform_topic(v[2] - wn, 1.0 / m->beta, K));
    }
}

static inline void mh_prefetch_word_topics(const mcx_lda *m, int t, const double *u)
{
    const int K = m->K, w = m->word[t];
    const int wo = m->mh_off[w], wn = m->mh_off[w + 1] - wo - 1, own = m->mh_slot[t];
    const int *row = m->nwk + (size_t) w * K;
    for (int s = 0; s < m->mh_steps; s++)
        if (u[4 * s + 2] < wn)
            MCX_PREFETCH(row + m->mh_z[other_position(u[4 * s + 2], wo, wn, own)]);
}

/* The tokens of document d in order, drawing from the stream (master, d). */
static void mh_document(mcx_lda *m, int d, uint64_t master)
{
    const int K = m->K, steps = m->mh_steps;
    const int i0 = m->doc_start[d], i1 = m->doc_start[d + 1];
    if (i1 <= i0) return;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const double inv_alpha = 1.0 / alpha, inv_beta = 1.0 / beta;
    const int *word = m->word, *off = m->mh_off, *slot_of = m->mh_slot;
    int *z = m->z, *wz = m->mh_z, *nk = m->nk;
    int *nd = m->ndk + (size_t) d * K;
    const mh_doc dc = { i0, i1 - i0 - 1, i1 - i0 - 1 + K * alpha };
    const int dn = dc.dn;
    mcx_stream rng;
    mcx_stream_seed(&rng, master, (uint64_t) d);
    /* token i0 + p's uniforms in ring slot p % MH_AHEAD */
    double *ring = m->mh_u;
    const size_t width = 4 * (size_t) steps;
    for (int t = i0; t < i1 && t < i0 + MH_AHEAD; t++)
        mh_draw(m, &dc, &rng, t, ring + (size_t) ((t - i0) % MH_AHEAD) * width);
    for (int t = i0; t < i1; t++) {
        double *u = ring + (size_t) ((t - i0) % MH_AHEAD) * width;
        const int th = t + MH_AHEAD / 2;
        if (th < i1)
            mh_prefetch_word_topics(m, th, ring + (size_t) ((th - i0) % MH_AHEAD) * width);
        const int w = word[t];
        int *nw = m->nwk + (size_t) w * K;
        int k = z[t];
        /* take the token out: pi and both proposals exclude it */
        nd[k]--;
        nw[k]--;
        nk[k]--;
        const int wo = off[w], wn = off[w + 1] - wo - 1, slot = slot_of[t];
        /* the three factors of pi at the current topic, carried along
         * with it, so that a step waits on its own loads only */
        double ak = nw[k] + beta, bk = nk[k] + wb, ck = nd[k] + alpha;
        for (int s = 0; s < steps; s++) {
            const double *v = u + 4 * s;
            /* document proposal: both candidates are formed and one
             * selected without a branch (the branches are unpredictable),
             * and a proposal of the current topic is accepted by the same
             * test (ratio 1) */
            int c = v[0] < dn ? z[other_position(v[0], i0, dn, t)]
                              : uniform_topic(v[0] - dn, inv_alpha, K);
            double ac = nw[c] + beta, bc = nk[c] + wb, cc = nd[c] + alpha;
            int acc = v[1] * ak * bc < ac * bk;
            k = acc ? c : k;
            ak = acc ? ac : ak;
            bk = acc ? bc : bk;
            ck = acc ? cc : ck;
            /* word proposal: the same device over the word's occurrences */
            c = v[2] < wn ? wz[other_position(v[2], wo, wn, slot)]
                          : uniform_topic(v[2] - wn, inv_beta, K);
            ac = nw[c] + beta;
            bc = nk[c] + wb;
            cc = nd[c] + alpha;
            acc = v[3] * ck * bc < cc * bk;
            k = acc ? c : k;
            ak = acc ? ac : ak;
            bk = acc ? bc : bk;
            ck = acc ? cc : ck;
        }
        /* put it back in topic k */
        nd[k]++;
        nw[k]++;
        nk[k]++;
        z[t] = k;
        wz[slot] = k;
        if (t + MH_AHEAD < i1) mh_draw(m, &dc, &rng, t + MH_AHEAD, u);
    }
}

void mcx_lda_sweep_mh(mcx_lda *m)
{
    const uint64_t master = mcx_stream_master();
    for (int d = 0; d < m->D; d++) mh_document(m, d, master);
    /* 1 / (n_k + W beta), read by mcx_lda_accumulate() */
    const double wb = m->W * m->beta;
    for (int k = 0; k < m->K; k++) m->inv_den[k] = 1.0 / (m->nk[k] + wb);
}
