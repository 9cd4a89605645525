/*
 * model_lda_mh_pass.h -- the token pass of the Metropolis-Hastings LDA
 * sampler (model_lda_mh.c), written once for the type MH_CT of the
 * word-topic counts and MH_TT of the topics in word order: model_lda_mh.c
 * includes it three times, with 16-bit counts and 8- or 16-bit topics and
 * with int counts and topics (MH_FN names each instance).  Not a header
 * of its own: no include guard.
 */
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

MH_INLINE void MH_FN(mh_draw)(const mcx_lda *m, const MH_CT *nwk, const MH_TT *wz,
                                  const mh_doc *dc, mcx_stream *rng, int t, double *u)
{
    const int K = m->K, w = m->word[t];
    const int wo = m->mh_off[w], wn = m->mh_off[w + 1] - wo - 1, own = m->mh_slot[t];
    const double wtot = wn + K * m->beta;
    const MH_CT *row = nwk + (size_t) w * K;
    MCX_PREFETCH(row + m->z[t]);
    for (int s = 0; s < m->mh_steps; s++) {
        double *v = u + 4 * s;
        v[0] = mcx_stream_unif(rng) * dc->dtot;
        v[1] = mcx_stream_unif(rng);
        v[2] = mcx_stream_unif(rng) * wtot;
        v[3] = mcx_stream_unif(rng);
        if (v[0] < dc->dn) MCX_PREFETCH(row + m->z[other_position(v[0], dc->i0, dc->dn, t)]);
        else MCX_PREFETCH(row + uniform_topic(v[0] - dc->dn, 1.0 / m->alpha, K));
        if (v[2] < wn) MCX_PREFETCH(wz + other_position(v[2], wo, wn, own));
        else MCX_PREFETCH(row + uniform_topic(v[2] - wn, 1.0 / m->beta, K));
    }
}

static inline void MH_FN(mh_prefetch_word_topics)(const mcx_lda *m, const MH_CT *nwk,
                                                   const MH_TT *wz, int t, const double *u)
{
    const int K = m->K, w = m->word[t];
    const int wo = m->mh_off[w], wn = m->mh_off[w + 1] - wo - 1, own = m->mh_slot[t];
    const MH_CT *row = nwk + (size_t) w * K;
    for (int s = 0; s < m->mh_steps; s++)
        if (u[4 * s + 2] < wn)
            MCX_PREFETCH(row + wz[other_position(u[4 * s + 2], wo, wn, own)]);
}

/* The tokens of document d in order, drawing from the stream (master, d). */
static void MH_FN(mh_document)(mcx_lda *m, MH_CT *nwk, MH_TT *wz, int d, uint64_t master)
{
    const int K = m->K, steps = m->mh_steps;
    const int i0 = m->doc_start[d], i1 = m->doc_start[d + 1];
    if (i1 <= i0) return;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const double inv_alpha = 1.0 / alpha, inv_beta = 1.0 / beta;
    const int *word = m->word, *off = m->mh_off, *slot_of = m->mh_slot;
    int *z = m->z, *nk = m->nk;
    int *nd = m->ndk + (size_t) d * K;
    const mh_doc dc = { i0, i1 - i0 - 1, i1 - i0 - 1 + K * alpha };
    const int dn = dc.dn;
    mcx_stream rng;
    mcx_stream_seed(&rng, master, (uint64_t) d);
    /* token i0 + p's uniforms in ring slot p % MH_AHEAD */
    double *ring = m->mh_u;
    const size_t width = 4 * (size_t) steps;
    for (int t = i0; t < i1 && t < i0 + MH_AHEAD; t++)
        MH_FN(mh_draw)(m, nwk, wz, &dc, &rng, t, ring + (size_t) ((t - i0) % MH_AHEAD) * width);
    for (int t = i0; t < i1; t++) {
        double *u = ring + (size_t) ((t - i0) % MH_AHEAD) * width;
        const int th = t + MH_AHEAD / 2;
        if (th < i1)
            MH_FN(mh_prefetch_word_topics)(m, nwk, wz, th, ring + (size_t) ((th - i0) % MH_AHEAD) * width);
        const int w = word[t];
        MH_CT *nw = nwk + (size_t) w * K;
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
        wz[slot] = (MH_TT) k;
        if (t + MH_AHEAD < i1) MH_FN(mh_draw)(m, nwk, wz, &dc, &rng, t + MH_AHEAD, u);
    }
}

