/*
 * shard_lda.c -- the passes of LDA over shards of documents (shard_lda.h
 * has the sampler, AD-LDA, and why its draws do not depend on the
 * workers).  The sweep of a shard is SparseLDA's (model_lda_sparse.c) run
 * on the worker's word lists; this file keeps those lists at the counts
 * of the start of the sweep and collects each shard's change.
 */
#include <string.h>
#include <limits.h>
#include <Rmath.h>
#include "shard_lda.h"
#include "model_lda.h"
#include "rng_stream.h"

int64_t mcx_lda_words_capacity(int K, int W, const int *tok)
{
    int64_t total = 0;
    for (int w = 0; w < W; w++) total += tok[w] < K ? tok[w] : K;
    return total;
}

/* 1 / (n_k + W beta) and 1 / (n_k - 1 + W beta), the values SparseLDA keeps
 * token by token (the same expressions, so the same bits). */
static void words_reciprocals(mcx_lda_words *ws)
{
    const double wb = ws->W * ws->beta;
    for (int k = 0; k < ws->K; k++) {
        ws->inv[k] = 1.0 / (ws->nk[k] + wb);
        ws->invm[k] = ws->nk[k] > 0 ? 1.0 / (ws->nk[k] - 1 + wb) : 0.0;
    }
}

static inline int word_cap(const mcx_lda_words *ws, int w)
{
    return ws->woff[w + 1] - ws->woff[w];
}

int mcx_lda_words_build(mcx_lda_words *ws, const int *tok, const int *idx, const int *val,
                        int64_t n)
{
    const int K = ws->K, W = ws->W;
    int64_t total = 0;
    for (int w = 0; w < W; w++) {
        ws->woff[w] = (int) total;
        total += tok[w] < K ? tok[w] : K;
        ws->wlen[w] = 0;
    }
    ws->woff[W] = (int) total;
    memset(ws->nk, 0, (size_t) K * sizeof(int));
    for (int64_t i = 0; i < n; i++) {
        const int w = idx[i] / K, k = idx[i] % K;
        if (w < 0 || w >= W || val[i] <= 0 || ws->wlen[w] >= word_cap(ws, w) ||
            (i > 0 && idx[i] <= idx[i - 1]))
            return -1;
        int *p = ws->wtk + 2 * (size_t) ws->woff[w];
        p[2 * ws->wlen[w]] = k;
        p[2 * ws->wlen[w] + 1] = val[i];
        ws->wlen[w]++;
        ws->nk[k] += val[i];
    }
    memcpy(ws->wtk0, ws->wtk, 2 * (size_t) total * sizeof(int));
    memcpy(ws->wlen0, ws->wlen, (size_t) W * sizeof(int));
    memcpy(ws->nk0, ws->nk, (size_t) K * sizeof(int));
    memset(ws->mark, 0, (size_t) W);
    words_reciprocals(ws);
    return 0;
}

/* Word w's working list put back from the copy of the sweep's start. */
static void word_restore(mcx_lda_words *ws, int w)
{
    const size_t off = 2 * (size_t) ws->woff[w];
    memcpy(ws->wtk + off, ws->wtk0 + off, 2 * (size_t) ws->wlen0[w] * sizeof(int));
    ws->wlen[w] = ws->wlen0[w];
}

int mcx_lda_words_apply(mcx_lda_words *ws, const int *idx, const int *val, int64_t n)
{
    const int K = ws->K, W = ws->W;
    int *buf = mcx_alloc(2 * (size_t) K, sizeof(int));
    int64_t i = 0;
    while (i < n) {
        /* the changes of word w (idx increasing: by word, then topic)
         * merged into its list of the sweep's start in one pass */
        const int w = idx[i] / K;
        if (idx[i] < 0 || w >= W) return -1;
        const size_t off = 2 * (size_t) ws->woff[w];
        const int *q = ws->wtk0 + off, n0 = ws->wlen0[w], cap = word_cap(ws, w);
        int i0 = 0, m = 0;
        for (;;) {
            const int more = i < n && idx[i] / K == w;
            if (more && i > 0 && idx[i] <= idx[i - 1]) return -1;
            if (!more && i0 >= n0) break;
            int k, c;
            if (!more || (i0 < n0 && q[2 * i0] < idx[i] % K)) {
                k = q[2 * i0];
                c = q[2 * i0 + 1];
                i0++;
            } else {
                k = idx[i] % K;
                const long v = (long) val[i] + (i0 < n0 && q[2 * i0] == k ? q[2 * i0 + 1] : 0);
                if (i0 < n0 && q[2 * i0] == k) i0++;
                if (v < 0 || v > INT_MAX) return -1;
                c = (int) v;
                ws->nk0[k] += val[i];
                i++;
            }
            if (c == 0) continue;
            if (m >= cap) return -1;
            buf[2 * m] = k;
            buf[2 * m + 1] = c;
            m++;
        }
        memcpy(ws->wtk0 + off, buf, 2 * (size_t) m * sizeof(int));
        ws->wlen0[w] = m;
        word_restore(ws, w);
    }
    memcpy(ws->nk, ws->nk0, (size_t) K * sizeof(int));
    words_reciprocals(ws);
    return 0;
}

int mcx_lda_shard_order(int D, const int *doc_start, const int *word_in, int W, int groups,
                        int *perm, int *word_out, int *seg_doc, int *seg_grp, int *seg_end)
{
    int *cnt = mcx_alloc((size_t) groups + 1, sizeof(int));
    int *seen = mcx_alloc((size_t) groups, sizeof(int));
    memset(cnt, 0, ((size_t) groups + 1) * sizeof(int));
    for (int g = 0; g < groups; g++) seen[g] = -1;
    /* tokens and segments of each group */
    int *nseg_g = mcx_alloc((size_t) groups, sizeof(int));
    memset(nseg_g, 0, (size_t) groups * sizeof(int));
    for (int d = 0; d < D; d++)
        for (int t = doc_start[d]; t < doc_start[d + 1]; t++) {
            const int g = (int) ((int64_t) word_in[t] * groups / W);
            cnt[g + 1]++;
            if (seen[g] != d) {
                seen[g] = d;
                nseg_g[g]++;
            }
        }
    int nseg = 0;
    for (int g = 0; g < groups; g++) nseg += nseg_g[g];
    if (perm == NULL) return nseg;
    /* group g's tokens from cnt[g], its segments from sg[g] */
    int *sg = mcx_alloc((size_t) groups, sizeof(int));
    for (int g = 0, a = 0; g < groups; g++) {
        cnt[g + 1] += cnt[g];
        sg[g] = a;
        a += nseg_g[g];
        seen[g] = -1;
    }
    for (int d = 0; d < D; d++)
        for (int t = doc_start[d]; t < doc_start[d + 1]; t++) {
            const int g = (int) ((int64_t) word_in[t] * groups / W);
            const int pos = cnt[g]++;
            perm[pos] = t;
            word_out[pos] = word_in[t];
            if (seen[g] != d) {
                seen[g] = d;
                seg_doc[sg[g]] = d;
                seg_grp[sg[g]] = g;
                sg[g]++;
            }
            seg_end[sg[g] - 1] = pos + 1;
        }
    return nseg;
}

void mcx_lda_shard_recount(mcx_lda_shard *sh, int K)
{
    const int mw = (K + 63) / 64;
    memset(sh->ndk, 0, (size_t) sh->D * K * sizeof(int));
    memset(sh->dmask, 0, (size_t) sh->D * mw * sizeof(uint64_t));
    for (int s = 0; s < sh->nseg; s++) {
        const int d = sh->seg_doc[s];
        int *nd = sh->ndk + (size_t) d * K;
        uint64_t *dm = sh->dmask + (size_t) d * mw;
        for (int t = s > 0 ? sh->seg_end[s - 1] : 0; t < sh->seg_end[s]; t++) {
            const int k = sh->z[t];
            nd[k]++;
            dm[k / 64] |= (uint64_t) 1 << (k % 64);
        }
    }
}

void mcx_lda_shard_draw(mcx_lda_shard *sh, int K, uint64_t master, const double *phi)
{
    for (int s = 0; s < sh->nseg; s++) {
        mcx_stream rng;
        mcx_stream_seed(&rng, master, ((uint64_t) sh->doc0 + (uint64_t) sh->seg_doc[s]) *
                                          (uint64_t) sh->groups + (uint64_t) sh->seg_grp[s]);
        for (int t = s > 0 ? sh->seg_end[s - 1] : 0; t < sh->seg_end[s]; t++) {
            int k;
            if (phi == NULL) {
                k = (int) (mcx_stream_unif(&rng) * K);
                if (k >= K) k = K - 1;
            } else {
                const double *p = phi + (size_t) sh->word[t] * K;
                double tot = 0.0;
                for (int j = 0; j < K; j++) tot += p[j];
                double u = mcx_stream_unif(&rng) * tot;
                k = 0;
                while (k < K - 1 && u >= p[k]) u -= p[k++];
            }
            sh->z[t] = k;
        }
    }
    mcx_lda_shard_recount(sh, K);
}

void mcx_lda_shard_count(const mcx_lda_shard *sh, int K, int *acc)
{
    for (int t = 0; t < sh->N; t++) acc[(size_t) sh->word[t] * K + sh->z[t]]++;
}

int mcx_lda_shard_sweep(mcx_lda_words *ws, mcx_lda_shard *sh, uint64_t master, int *acc)
{
    const int K = ws->K;
    mcx_lda m;
    memset(&m, 0, sizeof m);
    m.K = K;
    m.W = ws->W;
    m.D = sh->D;
    m.N = sh->N;
    m.alpha = ws->alpha;
    m.beta = ws->beta;
    m.word = sh->word;
    m.doc_start = sh->doc_start;
    m.z = sh->z;
    m.ndk = sh->ndk;
    m.dmask = sh->dmask;
    m.mask_words = (K + 63) / 64;
    m.nk = ws->nk;
    m.inv_den = ws->inv;
    m.inv_minus = ws->invm;
    m.wtk = ws->wtk;
    m.woff = ws->woff;
    m.wlen = ws->wlen;
    m.dtop = ws->dtop;
    m.coef = ws->coef;
    m.cum = ws->qw;
    memcpy(sh->zsnap, sh->z, (size_t) sh->N * sizeof(int));
    if (mcx_lda_sweep_sparse_segments(&m, master, (uint64_t) sh->doc0, sh->groups, sh->seg_doc,
                                      sh->seg_grp, sh->seg_end, sh->nseg) < 0)
        return -1;
    /* the words whose tokens changed topic */
    int ntw = 0;
    for (int t = 0; t < sh->N; t++) {
        const int w = sh->word[t];
        if (sh->z[t] != sh->zsnap[t] && !ws->mark[w]) {
            ws->mark[w] = 1;
            ws->tw[ntw++] = w;
        }
    }
    /* their change (the two increasing lists merged) added to acc, and
     * their lists put back */
    for (int j = 0; j < ntw; j++) {
        const int w = ws->tw[j];
        const size_t off = 2 * (size_t) ws->woff[w];
        const int *p = ws->wtk + off, *q = ws->wtk0 + off;
        const int n = ws->wlen[w], n0 = ws->wlen0[w];
        int *a = acc + (size_t) w * K;
        int i = 0, i0 = 0;
        while (i < n || i0 < n0) {
            if (i0 >= n0 || (i < n && p[2 * i] < q[2 * i0])) {
                a[p[2 * i]] += p[2 * i + 1];
                i++;
            } else if (i >= n || q[2 * i0] < p[2 * i]) {
                a[q[2 * i0]] -= q[2 * i0 + 1];
                i0++;
            } else {
                a[p[2 * i]] += p[2 * i + 1] - q[2 * i0 + 1];
                i++;
                i0++;
            }
        }
        word_restore(ws, w);
        ws->mark[w] = 0;
    }
    memcpy(ws->nk, ws->nk0, (size_t) K * sizeof(int));
    words_reciprocals(ws);
    return 0;
}

void mcx_lda_shard_theta(const mcx_lda_shard *sh, int K, double alpha, double *theta_sum)
{
    const size_t D = (size_t) sh->D;
    for (int d = 0; d < sh->D; d++) {
        const double den = 1.0 / (sh->doc_start[d + 1] - sh->doc_start[d] + K * alpha);
        const int *nd = sh->ndk + (size_t) d * K;
        for (int k = 0; k < K; k++) theta_sum[(size_t) k * D + d] += (nd[k] + alpha) * den;
    }
}

/* lgamma(n + x) - lgamma(x) for n < size in tab (filled here), beyond
 * computed (mcx_lgamma_rise(): accurate when x is large too). */
static void rise_table(double *tab, int size, double x)
{
    for (int n = 0; n < size; n++) tab[n] = mcx_lgamma_rise(x, n);
}

static inline double rise(const double *tab, int size, int n, double x)
{
    return n < size ? tab[n] : mcx_lgamma_rise(x, n);
}

#define RISE_CAP 65536

double mcx_lda_shard_log_docs(const mcx_lda_shard *sh, int K, double alpha)
{
    int max_len = 0;
    for (int d = 0; d < sh->D; d++) {
        const int len = sh->doc_start[d + 1] - sh->doc_start[d];
        if (len > max_len) max_len = len;
    }
    const int size = max_len < RISE_CAP ? max_len + 1 : RISE_CAP;
    double *ta = mcx_alloc((size_t) size, sizeof(double));
    double *tl = mcx_alloc((size_t) size, sizeof(double));
    rise_table(ta, size, alpha);
    rise_table(tl, size, K * alpha);
    const int mw = (K + 63) / 64;
    double s = 0.0;
    for (int d = 0; d < sh->D; d++) {
        s -= rise(tl, size, sh->doc_start[d + 1] - sh->doc_start[d], K * alpha);
        const int *nd = sh->ndk + (size_t) d * K;
        const uint64_t *dm = sh->dmask + (size_t) d * mw;
        for (int j = 0; j < mw; j++)
            for (uint64_t x = dm[j]; x; x &= x - 1) {
                const int k = 64 * j + mcx_lowest_bit(x);
                s += rise(ta, size, nd[k], alpha);
            }
    }
    return s;
}

double mcx_lda_log_words(int K, int W, double beta, const int *nwk, const int *nk)
{
    int max_n = 0;
    for (int k = 0; k < K; k++) if (nk[k] > max_n) max_n = nk[k];
    const int size = max_n < RISE_CAP ? max_n + 1 : RISE_CAP;
    double *tb = mcx_alloc((size_t) size, sizeof(double));
    rise_table(tb, size, beta);
    double s = 0.0;
    for (int k = 0; k < K; k++) s -= mcx_lgamma_rise(W * beta, nk[k]);
    for (size_t i = 0; i < (size_t) W * K; i++)
        if (nwk[i] > 0) s += rise(tb, size, nwk[i], beta);
    return s;
}
