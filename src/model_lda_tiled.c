/*
 * model_lda_tiled.c -- the collapsed Gibbs sweep of LDA with the full
 * conditional computed over every topic, in tiles of 8 topics whose sums
 * are formed as the terms are (for a moderate number of topics, where a
 * word is in nearly every topic and SparseLDA's buckets save nothing).
 *
 * The full conditional of a token of word w in document d (model_lda.c,
 * every count excluding the token),
 *   p_k propto (n_dk + alpha)(n_wk + beta) / (n_k + W beta)
 *       = c_k (n_wk + beta),   c_k = (n_dk + alpha) / (n_k + W beta),
 * is computed for all K topics from the document's coefficients c_k
 * (formed when the document is loaded and then kept up to date as its
 * counts and the totals change: two topics per token) and the word's
 * dense row of counts.  The pass forms the running sums within each tile
 * of 8 topics (the tiles' chains of additions independent of each other)
 * and the running sum over the tiles, so it is bound by the loads and
 * products, not by one chain of K additions.  One uniform u on
 * (0, total) picks the tile and then the topic in it, each by counting
 * the running sums at or below u (no branch on the data, which a walk
 * mispredicts once or twice a token): each draw has exactly the full
 * conditional (the topics laid along (0, total) in the dense loop's
 * order, only the sums grouped by tile), so the chain is the same
 * systematic-scan collapsed Gibbs sampler, in the same token order.
 *
 * Counts: the word-topic counts live in a copy whose rows are padded to
 * a multiple of 8 topics (the padding's coefficients are 0, so a padded
 * topic is never drawn), 16-bit when every word's number of tokens fits
 * (a row of 56 counts at K = 50 is two cache lines; the next tokens' rows
 * are prefetched), int otherwise; nwk is refreshed from the copy
 * (mcx_lda_tiled_sync()) before it is read.  The arithmetic is the same
 * for both widths, so are the draws (the pass is written once,
 * model_lda_tiled_pass.h).  The document-topic counts ndk and the totals
 * are the chain's own, kept up to date.
 *
 * Reproducibility: the coefficients are recomputed from the counts when a
 * document is loaded and the reciprocals 1 / (n_k + W beta) and
 * 1 / (n_k - 1 + W beta) are functions of n_k, so each draw depends on the
 * counts, the corpus order and u only; a chain run in chunks equals one
 * longer run bit for bit.  Random numbers: as the sparse sweep, one master
 * seed per sweep from R's generator and document d drawing from the
 * stream (master, d) (src/rng_stream.c).
 */
#include <string.h>
#include "model_lda.h"
#include "rng_stream.h"

/* Topics per tile (the rows are padded to a multiple of it). */
#define TL_TILE 8
/* Tokens ahead whose word rows are prefetched. */
#define TL_AHEAD 3
/* The largest count of the 16-bit rows. */
#define TL_NARROW 65535

void mcx_lda_tiled_init(mcx_lda *m, int wide)
{
    const int K = m->K, W = m->W;
    const int Kp = (K + TL_TILE - 1) / TL_TILE * TL_TILE;
    const double wb = m->W * m->beta;
    m->tl_Kp = Kp;
    int max_freq = 0;
    for (int w = 0; w < W; w++) {
        const int *nw = m->nwk + (size_t) w * K;
        int64_t n = 0;
        for (int k = 0; k < K; k++) n += nw[k];
        max_freq = n > max_freq ? (int) n : max_freq;
    }
    const size_t cells = (size_t) W * Kp > 0 ? (size_t) W * Kp : 1;
    if (!wide && max_freq <= TL_NARROW) {
        m->tl_nw16 = mcx_alloc(cells, sizeof(uint16_t));
        memset(m->tl_nw16, 0, cells * sizeof(uint16_t));
    } else {
        m->tl_nw32 = mcx_alloc(cells, sizeof(int));
        memset(m->tl_nw32, 0, cells * sizeof(int));
    }
    for (int w = 0; w < W; w++)
        for (int k = 0; k < K; k++) {
            const int n = m->nwk[(size_t) w * K + k];
            if (m->tl_nw16) m->tl_nw16[(size_t) w * Kp + k] = (uint16_t) n;
            else m->tl_nw32[(size_t) w * Kp + k] = n;
        }
    m->coef = mcx_alloc((size_t) Kp, sizeof(double));
    memset(m->coef, 0, (size_t) Kp * sizeof(double));
    m->tl_q = mcx_alloc((size_t) Kp + Kp / TL_TILE, sizeof(double));
    m->inv_minus = mcx_alloc((size_t) K, sizeof(double));
    for (int k = 0; k < K; k++)
        m->inv_minus[k] = m->nk[k] > 0 ? 1.0 / (m->nk[k] - 1 + wb) : 0.0;
}

void mcx_lda_tiled_sync(mcx_lda *m)
{
    const int K = m->K, Kp = m->tl_Kp;
    for (int w = 0; w < m->W; w++)
        for (int k = 0; k < K; k++)
            m->nwk[(size_t) w * K + k] = m->tl_nw16 ? m->tl_nw16[(size_t) w * Kp + k]
                                                    : m->tl_nw32[(size_t) w * Kp + k];
}

/* The document pass for 16-bit and int rows (model_lda_tiled_pass.h). */
#define TL_CT uint16_t
#define TL_FN(name) name##_16
#include "model_lda_tiled_pass.h"
#undef TL_CT
#undef TL_FN
#define TL_CT int
#define TL_FN(name) name##_32
#include "model_lda_tiled_pass.h"
#undef TL_CT
#undef TL_FN

void mcx_lda_sweep_tiled(mcx_lda *m)
{
    const uint64_t master = mcx_stream_master();
    if (m->tl_nw16)
        for (int d = 0; d < m->D; d++) tiled_document_16(m, m->tl_nw16, d, master);
    else
        for (int d = 0; d < m->D; d++) tiled_document_32(m, m->tl_nw32, d, master);
}

static void tiled_setup(mcx_lda *m, const mcx_lda_settings *s)
{
    mcx_lda_tiled_init(m, s->mh_wide);
}

/* Collapsed Gibbs over every topic in tiles of 8. */
const mcx_lda_sampler mcx_lda_tiled = { "tiled", tiled_setup, mcx_lda_sweep_tiled,
                                        mcx_lda_tiled_sync, NULL };
