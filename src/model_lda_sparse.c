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
 */
#include <string.h>
#include <Rmath.h>
#include "model_topic.h"

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

void mcx_lda_sparse_init(mcx_lda *m)
{
    const int K = m->K, W = m->W;
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
    m->wtop = mcx_alloc(total > 0 ? total : 1, sizeof(int));
    for (int w = 0; w < W; w++) {
        const int *nw = m->nwk + (size_t) w * K;
        int *list = m->wtop + m->woff[w], n = 0;
        for (int k = 0; k < K; k++)
            if (nw[k] > 0) list[n++] = k;
        m->wlen[w] = n;
    }
    m->dtop = mcx_alloc((size_t) K, sizeof(int));
    m->coef = mcx_alloc((size_t) K, sizeof(double));
}

void mcx_lda_sweep_sparse(mcx_lda *m)
{
    const int K = m->K, D = m->D;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const double ab = alpha * beta;
    const int *word = m->word, *start = m->doc_start, *woff = m->woff;
    int *z = m->z, *nk = m->nk, *wlen = m->wlen, *wtop = m->wtop, *dtop = m->dtop;
    double *inv = m->inv_den, *coef = m->coef, *qw = m->cum;
    for (int d = 0; d < D; d++) {
        if (start[d + 1] == start[d]) continue;
        int *nd = m->ndk + (size_t) d * K;
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
            const int w = word[t];
            int *nw = m->nwk + (size_t) w * K;
            int *wl = wtop + woff[w];
            int k = z[t];
            /* take the token out */
            s -= ab * inv[k];
            r -= nd[k] * beta * inv[k];
            nd[k]--;
            nw[k]--;
            inv[k] = 1.0 / (--nk[k] + wb);
            s += ab * inv[k];
            r += nd[k] * beta * inv[k];
            coef[k] = (nd[k] + alpha) * inv[k];
            if (nd[k] == 0) list_remove(dtop, &dlen, k);
            if (nw[k] == 0) list_remove(wl, wlen + w, k);
            /* q bucket over the topics of word w */
            const int wn = wlen[w];
            double q = 0.0;
            for (int i = 0; i < wn; i++) {
                qw[i] = coef[wl[i]] * nw[wl[i]];
                q += qw[i];
            }
            double u = unif_rand() * (s + r + q);
            if (u < q && wn > 0) {
                int i = 0;
                while (i < wn - 1 && u >= qw[i]) u -= qw[i++];
                k = wl[i];
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
            s -= ab * inv[k];
            r -= nd[k] * beta * inv[k];
            if (nd[k]++ == 0) list_insert(dtop, &dlen, k);
            if (nw[k]++ == 0) list_insert(wl, wlen + w, k);
            inv[k] = 1.0 / (++nk[k] + wb);
            s += ab * inv[k];
            r += nd[k] * beta * inv[k];
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
