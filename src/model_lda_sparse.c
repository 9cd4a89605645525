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
 * Counts of topic k change only when a token changes topic, so the two
 * reciprocals 1 / (n_k + W beta) and 1 / (n_k - 1 + W beta) are kept per
 * topic (each a function of n_k alone) and a token that keeps its topic
 * costs no division.
 */
void mcx_lda_sweep_sparse(mcx_lda *m)
{
    const int K = m->K, D = m->D;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const double ab = alpha * beta;
    const int *word = m->word, *start = m->doc_start, *woff = m->woff;
    int *z = m->z, *nk = m->nk, *wlen = m->wlen, *wtk = m->wtk, *dtop = m->dtop;
    double *inv = m->inv_den, *invm = m->inv_minus, *coef = m->coef, *qw = m->cum;
    const uint64_t master = mcx_stream_master();
    mcx_stream rng;
    for (int d = 0; d < D; d++) {
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
            const double s0 = s, r0 = r, inv0 = inv[k0], coef0 = coef[k0];
            const double inv1 = invm[k0];
            s += ab * (inv1 - inv0);
            r += beta * ((nd[k0] - 1) * inv1 - nd[k0] * inv0);
            nd[k0]--;
            nk[k0]--;
            inv[k0] = inv1;
            coef[k0] = (nd[k0] + alpha) * inv1;
            int i0 = pair_find(p, wlen[w], k0);
            if (i0 < 0) MCX_INTERNAL("SparseLDA word list out of step");
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
