/*
 * model_lda.c -- latent Dirichlet allocation by collapsed Gibbs sampling
 * (Griffiths and Steyvers 2004; Rogers and Girolami 2016, section 10.5, eq. 10.13).
 *
 * Model: theta_d ~ Dir(alpha 1_K), phi_k ~ Dir(beta 1_W), z_dt | theta_d ~
 * Cat(theta_d), w_dt | z_dt = k ~ Cat(phi_k).  theta and phi are integrated
 * out; the state is the topic z of every token, and the full conditional of
 * one token (eq. 10.13) is
 *   P(z_dt = k | rest) propto (n_dk^- + alpha) (n_wk^- + beta) / (n_k^- + W beta),
 * where the counts exclude the token itself.
 *
 * Speed: the counts are integers laid out so that the K counts of one word
 * (and of one document) are contiguous; 1 / (n_k + W beta) is kept up to date
 * for the two topics that change per token, so the token loop does K
 * multiply-adds and no division or allocation.  The R state is just z: the
 * counts and the structures of the samplers are functions of z (built by
 * mcx_lda_prepare()), kept by the glue across the chunks of one run of a
 * chain, or rebuilt from z (ffi_lda.c).
 */
#include <string.h>
#include <Rmath.h>
#include "model_lda.h"

void mcx_lda_build(mcx_lda *m, int K, int W, int D, double alpha, double beta,
                   const int *word, const int *doc_start, int *z)
{
    memset(m, 0, sizeof *m);
    m->K = K;
    m->W = W;
    m->D = D;
    m->N = doc_start[D];
    m->alpha = alpha;
    m->beta = beta;
    m->word = word;
    m->doc_start = doc_start;
    m->z = z;
    m->nwk = mcx_alloc((size_t) W * K, sizeof(int));
    m->ndk = mcx_alloc((size_t) D * K, sizeof(int));
    m->nk = mcx_alloc((size_t) K, sizeof(int));
    m->inv_den = mcx_alloc((size_t) K, sizeof(double));
    m->cum = mcx_alloc((size_t) K, sizeof(double));
    memset(m->nwk, 0, (size_t) W * K * sizeof(int));
    memset(m->ndk, 0, (size_t) D * K * sizeof(int));
    memset(m->nk, 0, (size_t) K * sizeof(int));
    int *freq = mcx_alloc((size_t) W, sizeof(int));   /* tokens of each word */
    memset(freq, 0, (size_t) W * sizeof(int));
    int max_len = 0;
    for (int d = 0; d < D; d++) {
        if (doc_start[d + 1] < doc_start[d]) MCX_INTERNAL("document offsets decrease");
        if (doc_start[d + 1] - doc_start[d] > max_len) max_len = doc_start[d + 1] - doc_start[d];
        for (int t = doc_start[d]; t < doc_start[d + 1]; t++) {
            int k = z[t], w = word[t];
            if (k < 0 || k >= K || w < 0 || w >= W)
                MCX_INTERNAL("topic or word id out of range");
            m->nwk[(size_t) w * K + k]++;
            m->ndk[(size_t) d * K + k]++;
            m->nk[k]++;
            freq[w]++;
        }
    }
    double wb = W * beta;
    for (int k = 0; k < K; k++) m->inv_den[k] = 1.0 / (m->nk[k] + wb);
    /* the log-gamma tables of mcx_lda_log_joint(), filled as they are read */
    int max_freq = 0;
    for (int w = 0; w < W; w++) max_freq = freq[w] > max_freq ? freq[w] : max_freq;
    m->lg_nw = max_freq < LDA_LG_CAP ? max_freq + 1 : LDA_LG_CAP;
    m->lg_nd = max_len < LDA_LG_CAP ? max_len + 1 : LDA_LG_CAP;
    m->lg_beta = mcx_alloc((size_t) m->lg_nw, sizeof(double));
    m->lg_alpha = mcx_alloc((size_t) m->lg_nd, sizeof(double));
    m->lg_len = mcx_alloc((size_t) m->lg_nd, sizeof(double));
    for (int n = 0; n < m->lg_nw; n++) m->lg_beta[n] = R_NaN;
    for (int n = 0; n < m->lg_nd; n++) m->lg_alpha[n] = m->lg_len[n] = R_NaN;
}

/* lgamma(n + x) - sub, sub being lgamma(x) or 0 (the caller then adds
 * lgamma(x) separately); for x >= MCX_LGAMMA_DIRECT the difference
 * lgamma(n + x) - lgamma(x) from Stirling's series instead
 * (mcx_lgamma_rise(); two lgamma values of order 1e102 at alpha or beta
 * = 1e100 would leave no digit of it), and the caller leaves lgamma(x) out
 * (mcx_lda_log_joint()): below that threshold the terms are summed as they
 * always were, so the traces of ordinary priors keep their last bits. */
static inline double lg_rise(int n, double x, double sub)
{
    return x < MCX_LGAMMA_DIRECT ? lgammafn(n + x) - sub : mcx_lgamma_rise(x, n);
}

/* lg_rise(n, x, sub) from table tab[0 .. size) (filled when first read),
 * or computed when n is beyond it: the same double either way. */
static inline double lg_lookup(double *tab, int size, int n, double x, double sub)
{
    if (n >= size) return lg_rise(n, x, sub);
    double v = tab[n];
    if (ISNAN(v)) tab[n] = v = lg_rise(n, x, sub);
    return v;
}

void mcx_lda_prepare(mcx_lda *m, int K, int W, int D, double alpha, double beta,
                     const int *word, const int *doc_start, int *z,
                     const mcx_lda_sampler *alg, const mcx_lda_settings *s)
{
    mcx_lda_build(m, K, W, D, alpha, beta, word, doc_start, z);
    m->sampler = alg;
    if (alg->setup != NULL) alg->setup(m, s);
}

/* Two sums, sum_t z_t and sum_t (t + 1) z_t modulo 2^32 (one pass, about
 * half a millisecond per million tokens, twice per chunk): a change of one
 * topic changes the first, a swap of two topics at positions a, b the
 * second unless (a - b) times their difference is a multiple of 2^32. */
uint64_t mcx_lda_checksum(const int *z, int N)
{
    uint32_t s1 = 0, s2 = 0;
    const uint32_t *u = (const uint32_t *) z;
    for (int t = 0; t < N; t++) {
        s1 += u[t];
        s2 += (uint32_t) (t + 1) * u[t];
    }
    return ((uint64_t) s1 << 32 | s2) ^ (uint64_t) (uint32_t) N * UINT64_C(0x9E3779B97F4A7C15);
}

/* One systematic scan over all tokens, documents in order (eq. 10.13). */
void mcx_lda_sweep(mcx_lda *m)
{
    const int K = m->K, D = m->D;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const int *word = m->word, *start = m->doc_start;
    int *z = m->z, *nk = m->nk;
    double *inv = m->inv_den, *cum = m->cum;
    for (int d = 0; d < D; d++) {
        int *nd = m->ndk + (size_t) d * K;
        for (int t = start[d]; t < start[d + 1]; t++) {
            int *nw = m->nwk + (size_t) word[t] * K;
            int k = z[t];
            nd[k]--;
            nw[k]--;
            inv[k] = 1.0 / (--nk[k] + wb);
            double total = 0.0;
            for (int j = 0; j < K; j++) {
                total += (nd[j] + alpha) * (nw[j] + beta) * inv[j];
                cum[j] = total;
            }
            double u = unif_rand() * total;
            k = 0;
            while (k < K - 1 && cum[k] <= u) k++;
            z[t] = k;
            nd[k]++;
            nw[k]++;
            inv[k] = 1.0 / (++nk[k] + wb);
        }
    }
}

/*
 * log p(w, z) with theta and phi integrated out (Griffiths and Steyvers
 * 2004, eqs. 2-3):
 *   log p(w | z) = sum_k [ lgamma(W beta) - lgamma(n_k + W beta)
 *                          + sum_w (lgamma(n_wk + beta) - lgamma(beta)) ]
 *   log p(z)     = sum_d [ lgamma(K alpha) - lgamma(n_d + K alpha)
 *                          + sum_k (lgamma(n_dk + alpha) - lgamma(alpha)) ]
 * Zero counts contribute nothing to the inner sums and are skipped.
 */
double mcx_lda_log_joint(const mcx_lda *m)
{
    const int K = m->K, W = m->W, D = m->D;
    const double a = m->alpha, b = m->beta;
    const double lga = lgammafn(a), lgb = lgammafn(b);
    /* K lgamma(W beta) - sum_k lgamma(n_k + W beta), and D lgamma(K alpha)
     * with the documents' lgamma(n_d + K alpha) below, as differences
     * when W beta or K alpha is large (lg_rise()) */
    const int big_w = W * b >= MCX_LGAMMA_DIRECT, big_k = K * a >= MCX_LGAMMA_DIRECT;
    double s = (big_w ? 0.0 : K * lgammafn(W * b)) + (big_k ? 0.0 : D * lgammafn(K * a));
    for (int k = 0; k < K; k++) s -= lg_rise(m->nk[k], W * b, 0.0);
    /* counts n_wk <= n_w and n_dk <= n_d: their terms come from tables
     * (a few hundred thousand lgamma calls per draw otherwise).  The
     * nonzero counts in the same order (words, then topics increasing):
     * from SparseLDA's word lists and document bit sets when there are
     * some (no pass over the K W and D K zeros), else from the dense
     * counts -- the same terms, summed in the same order. */
    if (m->wtk) {
        for (int w = 0; w < W; w++) {
            const int *p = m->wtk + 2 * (size_t) m->woff[w];
            for (int i = 0; i < m->wlen[w]; i++)
                s += lg_lookup(m->lg_beta, m->lg_nw, p[2 * i + 1], b, lgb);
        }
    } else {
        for (size_t i = 0; i < (size_t) W * K; i++)
            if (m->nwk[i] > 0) s += lg_lookup(m->lg_beta, m->lg_nw, m->nwk[i], b, lgb);
    }
    for (int d = 0; d < D; d++) {
        s -= lg_lookup(m->lg_len, m->lg_nd, m->doc_start[d + 1] - m->doc_start[d], K * a, 0.0);
        const int *nd = m->ndk + (size_t) d * K;
        if (m->dmask) {
            const uint64_t *dm = m->dmask + (size_t) d * m->mask_words;
            for (int j = 0; j < m->mask_words; j++)
                for (uint64_t x = dm[j]; x; x &= x - 1) {
                    const int k = 64 * j + mcx_lowest_bit(x);
                    s += lg_lookup(m->lg_alpha, m->lg_nd, nd[k], a, lga);
                }
        } else {
            for (int k = 0; k < K; k++)
                if (nd[k] > 0) s += lg_lookup(m->lg_alpha, m->lg_nd, nd[k], a, lga);
        }
    }
    return s;
}

/* E[phi_kw | z, w] = (n_wk + beta) / (n_k + W beta) and
 * E[theta_dk | z] = (n_dk + alpha) / (n_d + K alpha), added to the sums:
 * phi_sum = phi_in + E[phi | z] (phi_in may be phi_sum), the same for
 * theta, in one pass over each (no separate copy of the sums).  theta
 * (D x K, column-major) is written in blocks of documents, so that neither
 * the counts (D x K, row-major) nor the sums are read a column apart. */
#define ACC_DOCS 64
void mcx_lda_accumulate(const mcx_lda *m, const double *phi_in, const double *theta_in,
                        double *phi_sum, double *theta_sum)
{
    const int K = m->K, W = m->W, D = m->D;
    const double alpha = m->alpha, beta = m->beta;
    for (int w = 0; w < W; w++) {
        const int *nw = m->nwk + (size_t) w * K;
        const double *pi = phi_in + (size_t) w * K;
        double *ps = phi_sum + (size_t) w * K;
        for (int k = 0; k < K; k++) ps[k] = pi[k] + (nw[k] + beta) * m->inv_den[k];
    }
    double den[ACC_DOCS];
    for (int d0 = 0; d0 < D; d0 += ACC_DOCS) {
        const int nb = D - d0 < ACC_DOCS ? D - d0 : ACC_DOCS;
        for (int j = 0; j < nb; j++)
            den[j] = 1.0 / (m->doc_start[d0 + j + 1] - m->doc_start[d0 + j] + K * alpha);
        for (int k = 0; k < K; k++) {
            const size_t col = (size_t) k * D + d0;
            const int *nd = m->ndk + (size_t) d0 * K + k;
            for (int j = 0; j < nb; j++)
                theta_sum[col + j] = theta_in[col + j] + (nd[(size_t) j * K] + alpha) * den[j];
        }
    }
}

void mcx_lda_run(mcx_lda *m, const mcx_chunk *ch, double *log_joint,
                 const double *phi_in, const double *theta_in,
                 double *phi_sum, double *theta_sum)
{
    const int n_iter = ch->n, thin = ch->thin, offset = ch->offset, warmup = ch->warmup;
    int r = 0;
    for (int it = 1; it <= n_iter; it++) {
        mcx_interrupt_point((double) m->N * (m->mh_steps > 0 ? 8 * m->mh_steps : m->K));
        m->sampler->sweep(m);
        int g = offset + it;
        if (!warmup && g % thin == 0) {
            if (m->sampler->sync != NULL) m->sampler->sync(m);
            log_joint[r] = mcx_lda_log_joint(m);
            /* the first kept draw adds to the sums given, the next ones
             * to the sums of the chunk */
            mcx_lda_accumulate(m, r == 0 ? phi_in : phi_sum, r == 0 ? theta_in : theta_sum,
                               phi_sum, theta_sum);
            r++;
        }
    }
    if (m->sampler->finish != NULL) m->sampler->finish(m);
}

/* The plain collapsed Gibbs loop over the K topics (eq. 10.13), on R's
 * generator: no structures beyond the counts. */
const mcx_lda_sampler mcx_lda_dense = { "dense", NULL, mcx_lda_sweep, NULL, NULL };
