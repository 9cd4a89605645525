/*
 * model_lda_sparse.c -- the collapsed Gibbs sweep of LDA drawn through the
 * bucket decomposition of SparseLDA (Yao, Mimno and McCallum 2009, "Efficient
 * methods for topic model inference on streaming document collections",
 * KDD, section 3.4), and fold-in Gibbs for new documents.
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
 * increasing topic order and s and r are recomputed at the start of every
 * document, so each draw depends on the counts and u only, never on the
 * history of the lists; a chain run in chunks (counts rebuilt from z) equals
 * one longer run bit for bit.
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
#include "model_topic.h"
#include "rng_stream.h"
#ifdef _OPENMP
#include <omp.h>
#endif

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
 * sequential sweep) or a thread's copy of them (the blocked sweep).
 */
typedef struct lda_view {
    int *wtk, *wlen, *nk;
    double *inv, *invm;
    int *dtop;                /* K */
    double *coef, *qw;        /* K */
    int bad;                  /* a word list out of step (internal error) */
} lda_view;

static lda_view chain_view(mcx_lda *m)
{
    lda_view v = { m->wtk, m->wlen, m->nk, m->inv_den, m->inv_minus,
                   m->dtop, m->coef, m->cum, 0 };
    return v;
}

/*
 * Documents d0 .. d1 - 1 in order, each drawing from its own stream
 * (master, d).  Counts of topic k change only when a token changes topic,
 * so the two reciprocals 1 / (n_k + W beta) and 1 / (n_k - 1 + W beta) are
 * kept per topic (each a function of n_k alone) and a token that keeps its
 * topic costs no division.  No R API (runs inside OpenMP regions).
 */
static void sparse_docs(mcx_lda *m, lda_view *v, int d0, int d1, uint64_t master)
{
    const int K = m->K;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const double ab = alpha * beta;
    const int *word = m->word, *start = m->doc_start, *woff = m->woff;
    int *z = m->z, *nk = v->nk, *wlen = v->wlen, *wtk = v->wtk, *dtop = v->dtop;
    double *inv = v->inv, *invm = v->invm, *coef = v->coef, *qw = v->qw;
    mcx_stream rng;
    for (int d = d0; d < d1; d++) {
        if (start[d + 1] == start[d]) continue;
        int *nd = m->ndk + (size_t) d * K;
        mcx_stream_seed(&rng, master, (uint64_t) d);
        /* s, r, the document list and the q coefficients from scratch */
        double s = 0.0, r = 0.0;
        int dlen = 0;
        for (int k = 0; k < K; k++) {
            s += ab * inv[k];
            coef[k] = (nd[k] + alpha) * inv[k];
            if (nd[k] > 0) {
                dtop[dlen++] = k;
                r += nd[k] * beta * inv[k];
            }
        }
        for (int t = start[d]; t < start[d + 1]; t++) {
            if (t + 2 < start[d + 1]) MCX_PREFETCH(wtk + 2 * (size_t) woff[word[t + 2]]);
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
            if (nd[k0] == 0) list_remove(dtop, &dlen, k0);
            /* q bucket over the topics of word w */
            const int wn = wlen[w];
            double q = 0.0;
            for (int i = 0; i < wn; i++) {
                qw[i] = coef[p[2 * i]] * p[2 * i + 1];
                q += qw[i];
            }
            double u = mcx_stream_unif(&rng) * (s + r + q);
            int k, iq = -1;
            if (u < q && wn > 0) {
                int i = 0;
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
            if (nd[k]++ == 0) list_insert(dtop, &dlen, k);
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
    }
}

void mcx_lda_sweep_sparse(mcx_lda *m)
{
    const uint64_t master = mcx_stream_master();
    lda_view v = chain_view(m);
    sparse_docs(m, &v, 0, m->D, master);
    if (v.bad) MCX_INTERNAL("SparseLDA word list out of step");
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

/* Move one token from topic `from` to topic `to` in the pair list p of a
 * word (length *len); nonzero when `from` is not in the list. */
static int pair_move(int *p, int *len, int from, int to)
{
    int i = pair_find(p, *len, from);
    if (i < 0) return 1;
    if (--p[2 * i + 1] == 0) {
        memmove(p + 2 * i, p + 2 * (i + 1), (size_t) (*len - i - 1) * 2 * sizeof(int));
        (*len)--;
    }
    pair_add(p, len, to);
    return 0;
}

/* The same in a view, with its topic totals (view_reciprocals() afterwards). */
static int view_move(lda_view *v, const mcx_lda *m, int w, int from, int to)
{
    if (pair_move(v->wtk + 2 * (size_t) m->woff[w], v->wlen + w, from, to)) return 1;
    v->nk[from]--;
    v->nk[to]++;
    return 0;
}

void mcx_lda_blocked_init(mcx_lda *m, int threads, int block_tokens)
{
    const int K = m->K, W = m->W, D = m->D;
    if (threads < 1) threads = 1;
    m->threads = threads;
    /* blocks of whole consecutive documents, at least block_tokens tokens
     * each (the last may be smaller): a function of the corpus only */
    int nb = 0;
    m->block_doc = mcx_alloc((size_t) D + 1, sizeof(int));
    m->block_doc[0] = 0;
    for (int d = 0, acc = 0; d < D; d++) {
        acc += m->doc_start[d + 1] - m->doc_start[d];
        if (acc >= block_tokens || d == D - 1) {
            m->block_doc[++nb] = d + 1;
            acc = 0;
        }
    }
    m->n_blocks = nb;
    m->z_old = mcx_alloc((size_t) (m->N > 0 ? m->N : 1), sizeof(int));
    size_t pairs = 2 * (size_t) m->woff[W];
    m->views = mcx_alloc((size_t) threads, sizeof(lda_view));
    lda_view *views = m->views;
    for (int i = 0; i < threads; i++) {
        views[i].wtk = mcx_alloc(pairs > 0 ? pairs : 1, sizeof(int));
        views[i].wlen = mcx_alloc((size_t) W, sizeof(int));
        views[i].nk = mcx_alloc((size_t) K, sizeof(int));
        views[i].inv = mcx_alloc((size_t) K, sizeof(double));
        views[i].invm = mcx_alloc((size_t) K, sizeof(double));
        views[i].dtop = mcx_alloc((size_t) K, sizeof(int));
        views[i].coef = mcx_alloc((size_t) K, sizeof(double));
        views[i].qw = mcx_alloc((size_t) K, sizeof(double));
        views[i].bad = 0;
    }
}

/*
 * The blocked sweep (documents in the fixed blocks of mcx_lda_blocked_init()):
 * every block samples its documents, in order, against the counts of the
 * start of the sweep plus its own changes (a thread's copy, restored after
 * the block by undoing them); the changes of all blocks are then merged
 * into the chain's counts.  This is the approximate distributed sampler of
 * Newman, Asuncion, Smyth and Welling (2009, "AD-LDA") with the blocks, not
 * the threads, as its processors: the blocks and their streams (master, d)
 * depend on the corpus only, and the merged counts are sums, so the draws
 * are the same for any number of threads.  With one block it is the
 * sequential sweep.
 */
void mcx_lda_sweep_blocked(mcx_lda *m)
{
    const int K = m->K, W = m->W, N = m->N, nb = m->n_blocks;
    const uint64_t master = mcx_stream_master();
    const size_t pairs = 2 * (size_t) m->woff[W];
    lda_view *views = m->views;
    int *z = m->z, *z_old = m->z_old;
    const int *word = m->word, *start = m->doc_start, *bd = m->block_doc;
    memcpy(z_old, z, (size_t) N * sizeof(int));
    int T = m->threads < nb ? m->threads : nb;
    if (T < 1) T = 1;
#ifdef _OPENMP
#pragma omp parallel num_threads(T) if (T > 1)
#endif
    {
#ifdef _OPENMP
        lda_view *v = views + omp_get_thread_num();
#else
        lda_view *v = views;
#endif
        memcpy(v->wtk, m->wtk, pairs * sizeof(int));
        memcpy(v->wlen, m->wlen, (size_t) W * sizeof(int));
        memcpy(v->nk, m->nk, (size_t) K * sizeof(int));
        memcpy(v->inv, m->inv_den, (size_t) K * sizeof(double));
        memcpy(v->invm, m->inv_minus, (size_t) K * sizeof(double));
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (int b = 0; b < nb; b++) {
            if (v->bad) continue;
            sparse_docs(m, v, bd[b], bd[b + 1], master);
            const int t1 = start[bd[b + 1]];
            for (int t = start[bd[b]]; t < t1 && !v->bad; t++) {
                if (t + MCX_PREFETCH_AHEAD < t1)
                    MCX_PREFETCH(v->wtk + 2 * (size_t) m->woff[word[t + MCX_PREFETCH_AHEAD]]);
                if (z[t] != z_old[t]) v->bad = view_move(v, m, word[t], z[t], z_old[t]);
            }
            view_reciprocals(v, m);
        }
    }
    for (int i = 0; i < T; i++)
        if (views[i].bad) MCX_INTERNAL("SparseLDA word list out of step");
    /* merge: every changed token moves in the chain's counts; the word
     * lists are cut into T ranges of words (each list's result depends on
     * its counts only), the topic totals are summed on the main thread */
    int bad = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(T) if (T > 1) reduction(|:bad)
#endif
    {
#ifdef _OPENMP
        const int id = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int id = 0, nt = 1;
#endif
        const int w0 = (int) ((long) W * id / nt), w1 = (int) ((long) W * (id + 1) / nt);
        for (int t = 0; t < N; t++) {
            const int w = word[t];
            if (t + MCX_PREFETCH_AHEAD < N) {
                const int wa = word[t + MCX_PREFETCH_AHEAD];
                if (wa >= w0 && wa < w1) MCX_PREFETCH(m->wtk + 2 * (size_t) m->woff[wa]);
            }
            if (w >= w0 && w < w1 && z[t] != z_old[t])
                bad |= pair_move(m->wtk + 2 * (size_t) m->woff[w], m->wlen + w,
                                 z_old[t], z[t]);
        }
    }
    if (bad) MCX_INTERNAL("SparseLDA word list out of step");
    for (int t = 0; t < N; t++)
        if (z[t] != z_old[t]) {
            m->nk[z_old[t]]--;
            m->nk[z[t]]++;
        }
    lda_view g = chain_view(m);
    view_reciprocals(&g, m);
}

/*
 * Fold-in (Griffiths and Steyvers 2004; Wallach et al. 2009, section 4):
 * the topics of a new document's tokens are Gibbs-sampled with phi fixed,
 *   P(z_t = k | rest) propto (n_dk^- + alpha) phi_kw,
 * and theta_d is estimated by the average of E[theta_d | z] over the kept
 * sweeps.  Scratch: z and the counts of one document at a time.
 */
void mcx_lda_fold_in(int K, int W, int D, double alpha, const double *phi,
                     const int *word, const int *doc_start, int n_burn,
                     int n_keep, double *theta)
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
    for (int d = 0; d < D; d++) {
        const int n = doc_start[d + 1] - doc_start[d];
        const int *w = word + doc_start[d];
        const double den = 1.0 / (n + K * alpha);
        memset(nd, 0, (size_t) K * sizeof(int));
        memset(acc, 0, (size_t) K * sizeof(double));
        mcx_interrupt_point((double) n * K * (n_burn + n_keep));
        for (int t = 0; t < n; t++) {
            z[t] = (int) (unif_rand() * K);
            if (z[t] >= K) z[t] = K - 1;
            nd[z[t]]++;
        }
        for (int it = 0; it < n_burn + n_keep && n > 0; it++) {
            for (int t = 0; t < n; t++) {
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
            theta[d + (size_t) k * D] = n > 0 ? acc[k] / n_keep : 1.0 / K;
    }
}
