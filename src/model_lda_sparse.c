/*
 * model_lda_sparse.c -- the collapsed Gibbs sweep of LDA drawn through the
 * bucket decomposition of SparseLDA (Yao, Mimno and McCallum 2009, "Efficient
 * methods for topic model inference on streaming document collections",
 * KDD, section 3.4), its partitioned multi-threaded version, and fold-in
 * Gibbs for new documents.
 *
 * The full conditional of a token of word w in document d (model_lda.c)
 * splits exactly into three sums:
 *   (n_dk + alpha)(n_wk + beta) / (n_k + W beta)
 *     = alpha beta / (n_k + W beta)                  s: every topic
 *     + n_dk beta / (n_k + W beta)                   r: topics of document d
 *     + (n_dk + alpha) n_wk / (n_k + W beta)         q: topics of word w
 * One uniform u on (0, s + r + q) picks the bucket and then the topic inside
 * it, so each draw has exactly the dense sampler's distribution (only the
 * order in which the topics are laid along (0, total) differs): the chain is
 * the same collapsed Gibbs sampler.  q costs the number of topics word w is
 * in, r those of document d; s, which is small when beta is, is walked over
 * all K topics only when u falls into it.
 *
 * Reproducibility: the word lists and the document list are kept in
 * increasing topic order, r is recomputed at the start of every document
 * and s at the start of every sweep (of every cell of the partitioned
 * sweep) and then kept up to date token by token, so each draw depends on
 * the counts, the corpus order and u only, never on the history of the
 * lists: the lists are functions of the counts, the same whether kept
 * across chunks or rebuilt from z (ffi_lda.c), and a chain run in chunks
 * equals one longer run bit for bit.
 *
 * Cost of a document: its topics are kept as a bit set per document (set
 * and cleared as n_dk leaves and reaches 0), so loading a document (its
 * topic list, r and its q coefficients) costs its own topics, not an O(K)
 * pass; this matters for the partitioned sweep, where a document is
 * loaded once per word group (B times a sweep).
 *
 * Random numbers: each sweep draws one master seed from R's generator and
 * document d runs its own xoshiro256++ stream seeded from (master, d)
 * (src/rng_stream.c, inst/design.md section 4.1), so set.seed() fixes the
 * chain and each document's draws depend on the master seed and d only.
 *
 * Memory: the word-topic counts live in one list of (topic, count) pairs
 * per word (capacity min(K, tokens of the word), at most N pairs in all), so
 * the q bucket of a token reads one or two cache lines; the next tokens'
 * lists are prefetched.
 */
#include <string.h>
#include <Rmath.h>
#include "model_lda.h"
#include "rng_stream.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#include <sched.h>           /* sched_yield(): POSIX, and winpthreads on Windows */

/* Remove topic k from the increasing list a[0 .. *len). */
static inline void list_remove(int *a, int *len, int k)
{
    int n = *len, i = 0;
    while (i < n && a[i] != k) i++;
    if (i == n) return;
    memmove(a + i, a + i + 1, (size_t) (n - i - 1) * sizeof(int));
    *len = n - 1;
}

/* Insert topic k (not present) into the increasing list a[0 .. *len). */
static inline void list_insert(int *a, int *len, int k)
{
    int i = *len;
    while (i > 0 && a[i - 1] > k) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = k;
    (*len)++;
}

/* Position of topic k in the pair list p[0 .. 2n) of a word, or -1. */
static inline int pair_find(const int *p, int n, int k)
{
    for (int i = 0; i < n; i++)
        if (p[2 * i] == k) return i;
    return -1;
}

/* One more token of topic k in the pair list of a word (inserted in
 * increasing topic order when absent). */
static inline void pair_add(int *p, int *len, int k)
{
    int n = *len, i = n;
    while (i > 0 && p[2 * (i - 1)] >= k) i--;
    if (i < n && p[2 * i] == k) {
        p[2 * i + 1]++;
        return;
    }
    memmove(p + 2 * (i + 1), p + 2 * i, (size_t) (n - i) * 2 * sizeof(int));
    p[2 * i] = k;
    p[2 * i + 1] = 1;
    *len = n + 1;
}

void mcx_lda_sparse_init(mcx_lda *m)
{
    const int K = m->K, W = m->W;
    const double wb = m->W * m->beta;
    m->woff = mcx_alloc((size_t) W + 1, sizeof(int));
    m->wlen = mcx_alloc((size_t) W, sizeof(int));
    /* capacity of word w: min(K, tokens of w) topics can hold it */
    size_t total = 0;
    for (int w = 0; w < W; w++) {
        const int *nw = m->nwk + (size_t) w * K;
        long nt = 0;
        for (int k = 0; k < K; k++) nt += nw[k];
        m->woff[w] = (int) total;
        total += (size_t) (nt < K ? nt : K);
    }
    m->woff[W] = (int) total;
    m->wtk = mcx_alloc(2 * total > 0 ? 2 * total : 1, sizeof(int));
    for (int w = 0; w < W; w++) {
        const int *nw = m->nwk + (size_t) w * K;
        int *p = m->wtk + 2 * (size_t) m->woff[w], n = 0;
        for (int k = 0; k < K; k++)
            if (nw[k] > 0) {
                p[2 * n] = k;
                p[2 * n + 1] = nw[k];
                n++;
            }
        m->wlen[w] = n;
    }
    /* the topics of each document as a bit set (its topic list in
     * O(topics) at the start of a document or a segment) */
    const int mw = (K + 63) / 64;
    m->mask_words = mw;
    m->dmask = mcx_alloc((size_t) m->D * mw > 0 ? (size_t) m->D * mw : 1, sizeof(uint64_t));
    memset(m->dmask, 0, (size_t) m->D * mw * sizeof(uint64_t));
    for (int d = 0; d < m->D; d++) {
        const int *nd = m->ndk + (size_t) d * K;
        for (int k = 0; k < K; k++)
            if (nd[k] > 0) m->dmask[(size_t) d * mw + k / 64] |= (uint64_t) 1 << (k % 64);
    }
    m->dtop = mcx_alloc((size_t) K, sizeof(int));
    m->coef = mcx_alloc((size_t) K, sizeof(double));
    m->inv_minus = mcx_alloc((size_t) K, sizeof(double));
    for (int k = 0; k < K; k++)
        m->inv_minus[k] = m->nk[k] > 0 ? 1.0 / (m->nk[k] - 1 + wb) : 0.0;
}

/* The dense word-topic counts from the pair lists (before they are read). */
void mcx_lda_sparse_sync(mcx_lda *m)
{
    const int K = m->K, W = m->W;
    memset(m->nwk, 0, (size_t) W * K * sizeof(int));
    for (int w = 0; w < W; w++) {
        const int *p = m->wtk + 2 * (size_t) m->woff[w];
        int *nw = m->nwk + (size_t) w * K;
        for (int i = 0; i < m->wlen[w]; i++) nw[p[2 * i]] = p[2 * i + 1];
    }
}

/*
 * The counts a run of documents samples against: the chain's own (the
 * sequential sweep), or the chain's word lists with a cell's own copy of
 * the topic totals and scratch (the partitioned sweep).
 */
typedef struct lda_view {
    int *wtk, *wlen, *nk;
    double *inv, *invm;
    int *dtop;                /* K */
    double *coef, *qw;        /* K */
    int bad;                  /* a word list out of step (internal error) */
    double s;                 /* the s bucket, sum_k alpha beta / (n_k + W beta) */
    /* the partitioned sweep's views lie side by side, one per thread: a
     * cache line apart, so that a thread writing its s at the end of
     * every segment does not evict the fields another thread reads at
     * the start of its segments (false sharing) */
    char pad[64];
} lda_view;

/*
 * Between documents a view holds coef[k] = alpha / (n_k + W beta) (no
 * document loaded) and the s bucket, both functions of its totals n_k,
 * computed here from scratch at the start of a run of documents (a sweep,
 * or a cell of the partitioned sweep) and then kept up to date token by
 * token, so a document of few topics costs no O(K) pass over doubles.  The
 * values depend on the corpus order and the draws only, so a chunked run
 * equals one longer run.
 */
static void view_start(lda_view *v, const mcx_lda *m)
{
    const double ab = m->alpha * m->beta;
    double s = 0.0;
    for (int k = 0; k < m->K; k++) {
        s += ab * v->inv[k];
        v->coef[k] = m->alpha * v->inv[k];
    }
    v->s = s;
}

static lda_view chain_view(mcx_lda *m)
{
    lda_view v = { m->wtk, m->wlen, m->nk, m->inv_den, m->inv_minus,
                   m->dtop, m->coef, m->cum, 0, 0.0, {0} };
    return v;
}

/*
 * The tokens i0 .. i1 - 1 of document d (words word[i], topics z[i]: the
 * chain's arrays, or their copies in cell order) in order, drawing from
 * the stream (master, id).  The run of segments goes on with tokens i1 ..
 * lim - 1 and document next_d (-1: none), whose word lists, counts and
 * topic set are prefetched (a segment of the partitioned sweep is a few
 * tokens, and its document's counts were last read an epoch ago).  Counts of topic k change only when a token changes topic,
 * so the two reciprocals 1 / (n_k + W beta) and 1 / (n_k - 1 + W beta) are
 * kept per topic (each a function of n_k alone) and a token that keeps its
 * topic costs no division.  No R API (runs inside OpenMP regions).
 */
static void sparse_segment(mcx_lda *m, lda_view *v, int d, const int *word, int *z,
                           int i0, int i1, int lim, int next_d, uint64_t master, uint64_t id)
{
    const int K = m->K;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const double ab = alpha * beta;
    const int *woff = m->woff;
    int *nk = v->nk, *wlen = v->wlen, *wtk = v->wtk, *dtop = v->dtop;
    double *inv = v->inv, *invm = v->invm, *coef = v->coef, *qw = v->qw;
    mcx_stream rng;
    if (i1 <= i0) return;
    if (next_d >= 0) {
        const char *nx = (const char *) (m->ndk + (size_t) next_d * K);
        for (size_t b = 0; b < (size_t) K * sizeof(int); b += 64) MCX_PREFETCH(nx + b);
        MCX_PREFETCH(m->dmask + (size_t) next_d * m->mask_words);
    }
    {
        int *nd = m->ndk + (size_t) d * K;
        mcx_stream_seed(&rng, master, id);
        /* the document list, r and the q coefficients of its topics from
         * scratch (s and the other coefficients are the view's) */
        double s = v->s, r = 0.0;
        uint64_t *dm = m->dmask + (size_t) d * m->mask_words;
        int dlen = 0;
        for (int b = 0; b < m->mask_words; b++)
            for (uint64_t x = dm[b]; x; x &= x - 1) dtop[dlen++] = 64 * b + mcx_lowest_bit(x);
        for (int j = 0; j < dlen; j++) {
            const int k = dtop[j];
            coef[k] = (nd[k] + alpha) * inv[k];
            r += nd[k] * beta * inv[k];
        }
        for (int i = i0; i < i1; i++) {
            if (i + 2 < lim) MCX_PREFETCH(wtk + 2 * (size_t) woff[word[i + 2]]);
            const int t = i;
            const int w = word[t];
            int *p = wtk + 2 * (size_t) woff[w];
            const int k0 = z[t];
            /* take the token out (its conditional excludes it) */
            int i0 = pair_find(p, wlen[w], k0);
            if (i0 < 0) {
                v->bad = 1;
                return;
            }
            const double s0 = s, r0 = r, inv0 = inv[k0], coef0 = coef[k0];
            const double inv1 = invm[k0];
            s += ab * (inv1 - inv0);
            r += beta * ((nd[k0] - 1) * inv1 - nd[k0] * inv0);
            nd[k0]--;
            nk[k0]--;
            inv[k0] = inv1;
            coef[k0] = (nd[k0] + alpha) * inv1;
            if (--p[2 * i0 + 1] == 0) {
                memmove(p + 2 * i0, p + 2 * (i0 + 1),
                        (size_t) (wlen[w] - i0 - 1) * 2 * sizeof(int));
                wlen[w]--;
            }
            if (nd[k0] == 0) {
                list_remove(dtop, &dlen, k0);
                dm[k0 / 64] &= ~((uint64_t) 1 << (k0 % 64));
            }
            /* q bucket over the topics of word w */
            const int wn = wlen[w];
            /* two partial sums and a walk four terms at a time: the loops
             * are bound by the latency of one addition per term otherwise */
            double q = 0.0, q1 = 0.0;
            int i = 0;
            for (; i + 1 < wn; i += 2) {
                qw[i] = coef[p[2 * i]] * p[2 * i + 1];
                qw[i + 1] = coef[p[2 * i + 2]] * p[2 * i + 3];
                q += qw[i];
                q1 += qw[i + 1];
            }
            if (i < wn) {
                qw[i] = coef[p[2 * i]] * p[2 * i + 1];
                q += qw[i];
            }
            q += q1;
            double u = mcx_stream_unif(&rng) * (s + r + q);
            int k, iq = -1;
            if (u < q && wn > 0) {
                i = 0;
                while (i + 4 < wn) {
                    const double b4 = (qw[i] + qw[i + 1]) + (qw[i + 2] + qw[i + 3]);
                    if (u < b4) break;
                    u -= b4;
                    i += 4;
                }
                while (i < wn - 1 && u >= qw[i]) u -= qw[i++];
                k = p[2 * i];
                iq = i;
            } else if ((u -= q) < r && dlen > 0) {
                int i = 0;
                double x;
                while (i < dlen - 1 && u >= (x = nd[dtop[i]] * beta * inv[dtop[i]])) {
                    u -= x;
                    i++;
                }
                k = dtop[i];
            } else {
                u = u > r ? u - r : 0.0;
                k = 0;
                double x;
                while (k < K - 1 && u >= (x = ab * inv[k])) {
                    u -= x;
                    k++;
                }
            }
            /* put it back in topic k */
            z[t] = k;
            if (iq >= 0) p[2 * iq + 1]++;
            else pair_add(p, wlen + w, k);
            if (nd[k]++ == 0) {
                list_insert(dtop, &dlen, k);
                dm[k / 64] |= (uint64_t) 1 << (k % 64);
            }
            nk[k]++;
            if (k == k0) {                       /* back where it was */
                s = s0;
                r = r0;
                inv[k] = inv0;
                coef[k] = coef0;
                continue;
            }
            invm[k0] = nk[k0] > 0 ? 1.0 / (nk[k0] - 1 + wb) : 0.0;
            const double ik = inv[k];
            invm[k] = ik;
            inv[k] = 1.0 / (nk[k] + wb);
            s += ab * (inv[k] - ik);
            r += beta * (nd[k] * inv[k] - (nd[k] - 1) * ik);
            coef[k] = (nd[k] + alpha) * inv[k];
        }
        /* unload the document: the view's between-document state */
        for (int j = 0; j < dlen; j++) coef[dtop[j]] = alpha * inv[dtop[j]];
        v->s = s;
    }
}

/* Documents d0 .. d1 - 1 in order, document d drawing from
 * (master, id0 + d). */
static void sparse_docs(mcx_lda *m, lda_view *v, int d0, int d1, uint64_t master,
                        uint64_t id0)
{
    const int *start = m->doc_start;
    for (int d = d0; d < d1 && !v->bad; d++)
        sparse_segment(m, v, d, m->word, m->z, start[d], start[d + 1], start[d1],
                       d + 1 < d1 ? d + 1 : -1, master, id0 + (uint64_t) d);
}

void mcx_lda_sweep_sparse_docs(mcx_lda *m, int d0, int d1, uint64_t master, uint64_t id0)
{
    if (d0 < 0 || d1 > m->D || d0 > d1) MCX_INTERNAL("document range out of bounds");
    lda_view v = chain_view(m);
    view_start(&v, m);
    sparse_docs(m, &v, d0, d1, master, id0);
    if (v.bad) MCX_INTERNAL("SparseLDA word list out of step");
}

void mcx_lda_sweep_sparse(mcx_lda *m)
{
    mcx_lda_sweep_sparse_docs(m, 0, m->D, mcx_stream_master(), 0);
}

int mcx_lda_sweep_sparse_segments(mcx_lda *m, uint64_t master, uint64_t key0, int groups,
                                  const int *seg_doc, const int *seg_grp, const int *seg_end,
                                  int nseg)
{
    lda_view v = chain_view(m);
    view_start(&v, m);
    for (int s = 0; s < nseg && !v.bad; s++)
        sparse_segment(m, &v, seg_doc[s], m->word, m->z, s > 0 ? seg_end[s - 1] : 0,
                       seg_end[s], m->N, s + 1 < nseg ? seg_doc[s + 1] : -1, master,
                       (key0 + (uint64_t) seg_doc[s]) * (uint64_t) groups +
                           (uint64_t) seg_grp[s]);
    return v.bad ? -1 : 0;
}

/* The reciprocals of a view from its topic totals (functions of n_k alone,
 * so the same values as those kept token by token). */
static void view_reciprocals(lda_view *v, const mcx_lda *m)
{
    const double wb = m->W * m->beta;
    for (int k = 0; k < m->K; k++) {
        v->inv[k] = 1.0 / (v->nk[k] + wb);
        v->invm[k] = v->nk[k] > 0 ? 1.0 / (v->nk[k] - 1 + wb) : 0.0;
    }
}

/*
 * The partitioned sweep (Newman, Asuncion, Smyth and Welling 2009,
 * section 5; Yan, Xu and Qi 2009): the documents are cut into B groups of
 * consecutive documents and the vocabulary into B groups of words, each
 * group holding about N / B tokens; cell (i, j) holds the tokens of the
 * documents of group i whose words are in group j.  A sweep runs B epochs;
 * epoch e holds the B cells (i, (i + e) mod B), which share no document
 * and no word, so they update the document-topic counts and the word lists
 * of the chain in place, each exactly as the sequential sweep would.  Only
 * the topic totals n_k are shared: cell (i, j) of epoch e samples against
 * its own copy of them, S_e plus its own moves, where S_e is the totals of
 * the start of the sweep plus the moves of every cell of epochs 0 .. e - 2
 * (S_0 = S_1 = the totals of the start of the sweep); the totals are
 * exact again at the end of the sweep.  So the sampler differs from
 * collapsed Gibbs only in the totals n_k, which lag other cells' moves by
 * less than two epochs (2 / B of a sweep; n_k is a sum over the whole
 * corpus, so this changes a conditional by a relative O(B / N_k)); with
 * B = 1 it is the sequential sweep.
 *
 * Schedule: cell (e, i) needs cells (e - 1, i) (its documents) and
 * (e - 1, i + 1 mod B) (its words) finished, and S_e, which the thread
 * finishing the last cell of epoch e - 2 forms.  The cells are taken in the
 * order e B + i by whichever thread is free, and a thread waits only for
 * those inputs (never for a whole epoch: a cell of epoch e + 1 starts as
 * soon as its two cells of epoch e are done), so a thread that is slower
 * than the other (a busy core, or a cell of more work) takes fewer cells
 * instead of holding the other at a barrier.  With a lag of one epoch a
 * cell would need every cell of the epoch before it: a barrier.
 *
 * Reproducibility: the cells, their token order (documents in order,
 * tokens in order), the streams (master, d B + j) of each document segment
 * and the totals each cell starts from depend on the corpus and B only,
 * and the merged totals are sums of integers, so the draws are the same
 * for any number of threads and any timing.  The threads never copy the
 * word lists and nothing is merged but the K totals.
 */
void mcx_lda_blocked_init(mcx_lda *m, int threads, int blocks)
{
    const int K = m->K, W = m->W, D = m->D, N = m->N;
    const int *word = m->word, *start = m->doc_start;
    if (threads < 1) threads = 1;
    if (blocks < 1) blocks = 1;
    const int B = blocks, C = B * B;
    m->threads = threads;
    m->n_blocks = B;
    /* word groups by cumulative frequency, document groups by position */
    int *wg = mcx_alloc((size_t) W, sizeof(int));
    int *nw = mcx_alloc((size_t) W, sizeof(int));
    memset(nw, 0, (size_t) W * sizeof(int));
    for (int t = 0; t < N; t++) nw[word[t]]++;
    double cum = 0.0;
    for (int w = 0; w < W; w++) {
        int g = N > 0 ? (int) (cum * B / N) : 0;
        wg[w] = g < B - 1 ? g : B - 1;
        cum += nw[w];
    }
    int *cnt = mcx_alloc((size_t) C, sizeof(int));
    int *nseg = mcx_alloc((size_t) C, sizeof(int));
    int *last = mcx_alloc((size_t) C, sizeof(int));
    memset(cnt, 0, (size_t) C * sizeof(int));
    memset(nseg, 0, (size_t) C * sizeof(int));
    for (int c = 0; c < C; c++) last[c] = -1;
    for (int d = 0; d < D; d++) {
        int g = N > 0 ? (int) ((double) start[d] * B / N) : 0;
        int i = g < B - 1 ? g : B - 1;
        for (int t = start[d]; t < start[d + 1]; t++) {
            int c = i * B + wg[word[t]];
            cnt[c]++;
            if (last[c] != d) {
                last[c] = d;
                nseg[c]++;
            }
        }
    }
    m->cell_off = mcx_alloc((size_t) C + 1, sizeof(int));
    m->seg_off = mcx_alloc((size_t) C + 1, sizeof(int));
    m->cell_off[0] = m->seg_off[0] = 0;
    for (int c = 0; c < C; c++) {
        m->cell_off[c + 1] = m->cell_off[c] + cnt[c];
        m->seg_off[c + 1] = m->seg_off[c] + nseg[c];
    }
    const int S = m->seg_off[C];
    m->cell_tok = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    m->seg_doc = mcx_alloc((size_t) (S > 0 ? S : 1), sizeof(int));
    m->seg_end = mcx_alloc((size_t) (S > 0 ? S : 1), sizeof(int));
    int *pos = cnt, *sp = nseg;           /* reused as fill pointers */
    for (int c = 0; c < C; c++) {
        pos[c] = m->cell_off[c];
        sp[c] = m->seg_off[c] - 1;
        last[c] = -1;
    }
    for (int d = 0; d < D; d++) {
        int g = N > 0 ? (int) ((double) start[d] * B / N) : 0;
        int i = g < B - 1 ? g : B - 1;
        for (int t = start[d]; t < start[d + 1]; t++) {
            int c = i * B + wg[word[t]];
            if (last[c] != d) {
                last[c] = d;
                m->seg_doc[++sp[c]] = d;
            }
            m->cell_tok[pos[c]++] = t;
            m->seg_end[sp[c]] = pos[c];
        }
    }
    /* the words and topics in cell order (topics scattered back to z by
     * mcx_lda_blocked_finish()) */
    m->cell_word = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    m->cell_z = mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    for (int i = 0; i < N; i++) {
        m->cell_word[i] = word[m->cell_tok[i]];
        m->cell_z[i] = m->z[m->cell_tok[i]];
    }
    m->views = mcx_alloc((size_t) B, sizeof(lda_view));
    lda_view *views = m->views;
    for (int i = 0; i < B; i++) {
        views[i].wtk = m->wtk;                  /* the chain's lists, shared */
        views[i].wlen = m->wlen;
        views[i].nk = mcx_alloc((size_t) K, sizeof(int));
        views[i].inv = mcx_alloc((size_t) K, sizeof(double));
        views[i].invm = mcx_alloc((size_t) K, sizeof(double));
        views[i].dtop = mcx_alloc((size_t) K, sizeof(int));
        views[i].coef = mcx_alloc((size_t) K, sizeof(double));
        views[i].qw = mcx_alloc((size_t) K, sizeof(double));
        views[i].bad = 0;
    }
    m->nk_snap = mcx_alloc((size_t) 3 * K, sizeof(int));
    m->nk_delta = mcx_alloc((size_t) 3 * B * K, sizeof(int));
    m->cell_done = mcx_alloc((size_t) C + 2 * (size_t) B, sizeof(int));
}

/* Flags shared by the threads of the partitioned sweep: a write or read
 * of one int with a full memory barrier, so that what a cell wrote before
 * it raised its flag is seen by the cell that waits for the flag. */
static inline int flag_read(const int *f)
{
    int v;
#ifdef _OPENMP
#pragma omp atomic read seq_cst
#endif
    v = *f;
    return v;
}

static inline void flag_raise(int *f)
{
#ifdef _OPENMP
#pragma omp atomic write seq_cst
#endif
    *f = 1;
}

/* Wait until *f is set: a short spin (inputs are usually a few
 * microseconds away), then yielding the core, so that a thread waiting for
 * one that lost its core gives the core back. */
static void flag_wait(const int *f)
{
    for (long n = 0; !flag_read(f); n++)
        if (n > 4096) sched_yield();
}

/* Cell (e, i) of the partitioned sweep (e B + i in the order of cells). */
static void blocked_cell(mcx_lda *m, int e, int i, uint64_t master)
{
    const int K = m->K, B = m->n_blocks;
    const int j = (i + e) % B, c = i * B + j;
    const int *off = m->cell_off, *soff = m->seg_off, *cw = m->cell_word;
    const int *sdoc = m->seg_doc, *send = m->seg_end;
    const int *snap = m->nk_snap + (size_t) (e % 3) * K;
    int *delta = m->nk_delta + ((size_t) (e % 3) * B + i) * K;
    lda_view *v = (lda_view *) m->views + i;
    memcpy(v->nk, snap, (size_t) K * sizeof(int));
    view_reciprocals(v, m);
    view_start(v, m);
    int i0 = off[c];
    for (int sg = soff[c]; sg < soff[c + 1] && !v->bad; sg++) {
        const int d = sdoc[sg];
        sparse_segment(m, v, d, cw, m->cell_z, i0, send[sg], off[c + 1],
                       sg + 1 < soff[c + 1] ? sdoc[sg + 1] : -1, master,
                       (uint64_t) d * (uint64_t) B + (uint64_t) j);
        i0 = send[sg];
    }
    for (int k = 0; k < K; k++) delta[k] = v->nk[k] - snap[k];
}

/* S_{e+2} = S_{e+1} plus the moves of the cells of epoch e (all done). */
static void blocked_merge(mcx_lda *m, int e)
{
    const int K = m->K, B = m->n_blocks;
    const int *prev = m->nk_snap + (size_t) ((e + 1) % 3) * K;
    int *next = m->nk_snap + (size_t) ((e + 2) % 3) * K;
    const int *delta = m->nk_delta + (size_t) (e % 3) * B * K;
    memcpy(next, prev, (size_t) K * sizeof(int));
    for (int i = 0; i < B; i++)
        for (int k = 0; k < K; k++) next[k] += delta[(size_t) i * K + k];
}

void mcx_lda_sweep_blocked(mcx_lda *m)
{
    const int K = m->K, B = m->n_blocks, C = B * B;
    const uint64_t master = mcx_stream_master();
    lda_view *views = m->views;
    /* per cell: done; per epoch: cells left, and whether its merge (S_{e+2})
     * is formed */
    int *done = m->cell_done, *epoch_left = done + C, *merged = epoch_left + B;
    int T = m->threads < B ? m->threads : B;
    if (T < 1) T = 1;
    memset(done, 0, (size_t) C * sizeof(int));
    for (int e = 0; e < B; e++) {
        epoch_left[e] = B;
        merged[e] = 0;
    }
    memcpy(m->nk_snap, m->nk, (size_t) K * sizeof(int));
    memcpy(m->nk_snap + K, m->nk, (size_t) K * sizeof(int));
    for (int i = 0; i < B; i++) views[i].bad = 0;
    int next = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(T) if (T > 1)
#endif
    for (;;) {
        int g;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
        g = next++;
        if (g >= C) break;
        const int e = g / B, i = g % B;
        if (e > 0) {
            /* its documents, its words, and S_e */
            flag_wait(done + (e - 1) * B + i);
            flag_wait(done + (e - 1) * B + (i + 1) % B);
            if (e > 1) flag_wait(merged + e - 2);
        }
        blocked_cell(m, e, i, master);
        int left;
#ifdef _OPENMP
#pragma omp atomic capture seq_cst
#endif
        left = --epoch_left[e];
        if (left == 0) {
            blocked_merge(m, e);
            flag_raise(merged + e);
        }
        flag_raise(done + g);
    }
    int bad = 0;
    for (int i = 0; i < B; i++) bad |= views[i].bad;
    /* the totals of the end of the sweep, S_{B+1} */
    memcpy(m->nk, m->nk_snap + (size_t) ((B + 1) % 3) * K, (size_t) K * sizeof(int));
    lda_view g = chain_view(m);
    view_reciprocals(&g, m);
    if (bad) MCX_INTERNAL("SparseLDA word list out of step");
}

void mcx_lda_blocked_finish(mcx_lda *m)
{
    for (int i = 0; i < m->N; i++) m->z[m->cell_tok[i]] = m->cell_z[i];
}

/*
 * Fold-in (Griffiths and Steyvers 2004; Wallach et al. 2009, section 4):
 * the topics of a new document's tokens are Gibbs-sampled with phi fixed,
 *   P(z_t = k | rest) propto (n_dk^- + alpha) phi_kw,
 * and theta_d is estimated by the average of E[theta_d | z] over the kept
 * sweeps.  Scratch: z and the counts of one document at a time.  The
 * sweep counts are 64-bit (n_burn + n_keep may exceed an int), and the
 * host is asked about interrupts every FOLD_CHECK tokens inside the
 * sweeps (a long document, or many sweeps of a short one, stays
 * interruptible).
 */
#define FOLD_CHECK 1024
void mcx_lda_fold_in(int K, int W, int D, double alpha, const double *phi,
                     const int *word, const int *doc_start, int64_t n_burn,
                     int64_t n_keep, double *theta)
{
    (void) W;
    int nmax = 0;
    for (int d = 0; d < D; d++) {
        int n = doc_start[d + 1] - doc_start[d];
        if (n > nmax) nmax = n;
    }
    int *z = mcx_alloc((size_t) (nmax > 0 ? nmax : 1), sizeof(int));
    int *nd = mcx_alloc((size_t) K, sizeof(int));
    double *cum = mcx_alloc((size_t) K, sizeof(double));
    double *acc = mcx_alloc((size_t) K, sizeof(double));
    const int64_t sweeps = n_burn + n_keep;
    for (int d = 0; d < D; d++) {
        const int n = doc_start[d + 1] - doc_start[d];
        const int *w = word + doc_start[d];
        const double den = 1.0 / (n + K * alpha);
        memset(nd, 0, (size_t) K * sizeof(int));
        memset(acc, 0, (size_t) K * sizeof(double));
        mcx_interrupt_point((double) n);
        for (int t = 0; t < n; t++) {
            z[t] = (int) (unif_rand() * K);
            if (z[t] >= K) z[t] = K - 1;
            nd[z[t]]++;
        }
        for (int64_t it = 0; it < sweeps && n > 0; it++) {
            for (int t = 0; t < n; t++) {
                if (t % FOLD_CHECK == 0)
                    mcx_interrupt_point((double) K * (n - t < FOLD_CHECK ? n - t : FOLD_CHECK));
                const double *p = phi + (size_t) w[t] * K;
                nd[z[t]]--;
                double total = 0.0;
                for (int k = 0; k < K; k++) {
                    total += (nd[k] + alpha) * p[k];
                    cum[k] = total;
                }
                double u = unif_rand() * total;
                int k = 0;
                while (k < K - 1 && cum[k] <= u) k++;
                z[t] = k;
                nd[k]++;
            }
            if (it >= n_burn)
                for (int k = 0; k < K; k++) acc[k] += (nd[k] + alpha) * den;
        }
        for (int k = 0; k < K; k++)
            theta[d + (size_t) k * D] = n > 0 ? acc[k] / (double) n_keep : 1.0 / K;
    }
}

static void sparse_setup(mcx_lda *m, const mcx_lda_settings *s)
{
    (void) s;
    mcx_lda_sparse_init(m);
}

static void blocked_setup(mcx_lda *m, const mcx_lda_settings *s)
{
    mcx_lda_sparse_init(m);
    mcx_lda_blocked_init(m, s->threads, s->blocks);
}

/* SparseLDA's buckets, sequentially; and on B x B cells of the corpus on
 * threads (an approximation: n_k lags, see mcx_lda_blocked_init()). */
const mcx_lda_sampler mcx_lda_sparse = { "sparse", sparse_setup, mcx_lda_sweep_sparse,
                                         mcx_lda_sparse_sync, NULL };
const mcx_lda_sampler mcx_lda_blocked = { "blocked", blocked_setup, mcx_lda_sweep_blocked,
                                          mcx_lda_sparse_sync, mcx_lda_blocked_finish };
