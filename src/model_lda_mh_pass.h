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
 * alpha) and (0, n_w + K beta) and resolved at once into what they pick
 * (mh_step: the position of another token, whose topic is read when the
 * token is updated, or a topic of the uniform part).  Nothing of them
 * depends on the accept decisions, so the memory a token will read is
 * known early: at drawing
 * time its word's topic slots and its count row at its current topic are
 * prefetched, and MH_AHEAD / 2 tokens before the update (the slots have
 * arrived) the counts of the proposed topics; the waits for the
 * scattered word-ordered topics and for the topic-word counts (K W of
 * them, megabytes at large K) then overlap the updates of the tokens
 * in between.
 */

MH_INLINE void MH_FN(mh_draw)(const mcx_lda *m, const MH_CT *nwk, const MH_TT *wz,
                                  const mh_doc *dc, mcx_stream *rng, int t, mh_step *u)
{
    const int K = m->K, w = m->word[t];
    const int wo = m->mh_off[w], wn = m->mh_off[w + 1] - wo - 1, own = m->mh_slot[t];
    const double wtot = wn + K * m->beta;
    const MH_CT *row = nwk + (size_t) w * K;
    MCX_PREFETCH(row + m->z[t]);
    for (int s = 0; s < m->mh_steps; s++) {
        mh_step *v = u + s;
        const double a = mcx_stream_unif(rng) * dc->dtot;
        v->ua = mcx_stream_unif(rng);
        const double b = mcx_stream_unif(rng) * wtot;
        v->ub = mcx_stream_unif(rng);
        v->dp = mh_pick(a, dc->i0, dc->dn, t, dc->inv_alpha, K);
        MCX_PREFETCH(row + (v->dp >= 0 ? m->z[v->dp] : -1 - v->dp));
        v->wp = mh_pick(b, wo, wn, own, dc->inv_beta, K);
        if (v->wp >= 0) MCX_PREFETCH(wz + v->wp);
        else MCX_PREFETCH(row + (-1 - v->wp));
    }
}

static inline void MH_FN(mh_prefetch_word_topics)(const mcx_lda *m, const MH_CT *nwk,
                                                   const MH_TT *wz, int t, const mh_step *u)
{
    const MH_CT *row = nwk + (size_t) m->word[t] * m->K;
    for (int s = 0; s < m->mh_steps; s++)
        if (u[s].wp >= 0) MCX_PREFETCH(row + wz[u[s].wp]);
}

/* The tokens of document d in order, drawing from the stream (master, d). */
static void MH_FN(mh_document)(mcx_lda *m, MH_CT *nwk, MH_TT *wz, int d, uint64_t master)
{
    const int K = m->K, steps = m->mh_steps;
    const int i0 = m->doc_start[d], i1 = m->doc_start[d + 1];
    if (i1 <= i0) return;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const int *word = m->word, *slot_of = m->mh_slot;
    int *z = m->z, *nk = m->nk;
    int *nd = m->ndk + (size_t) d * K;
    const mh_doc dc = { i0, i1 - i0 - 1, i1 - i0 - 1 + K * alpha, 1.0 / alpha, 1.0 / beta };
    mcx_stream rng;
    mcx_stream_seed(&rng, master, (uint64_t) d);
    /* token i0 + p's proposals in ring slot p % MH_AHEAD */
    mh_step *ring = m->mh_u;
    const size_t width = (size_t) steps;
    for (int t = i0; t < i1 && t < i0 + MH_AHEAD; t++)
        MH_FN(mh_draw)(m, nwk, wz, &dc, &rng, t, ring + (size_t) ((t - i0) % MH_AHEAD) * width);
    for (int t = i0; t < i1; t++) {
        mh_step *u = ring + (size_t) ((t - i0) % MH_AHEAD) * width;
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
        const int slot = slot_of[t];
        /* the three factors of pi at the current topic, carried along
         * with it, so that a step waits on its own loads only */
        double ak = nw[k] + beta, bk = nk[k] + wb, ck = nd[k] + alpha;
        for (int s = 0; s < steps; s++) {
            const mh_step *v = u + s;
            /* document proposal (the topic of another token of the
             * document, read now, or a topic of the uniform part); the
             * decision is taken without a branch (it is unpredictable),
             * and a proposal of the current topic is accepted by the same
             * test (ratio 1) */
            int c = v->dp >= 0 ? z[v->dp] : -1 - v->dp;
            double ac = nw[c] + beta, bc = nk[c] + wb, cc = nd[c] + alpha;
            int acc = v->ua * ak * bc < ac * bk;
            k = acc ? c : k;
            ak = acc ? ac : ak;
            bk = acc ? bc : bk;
            ck = acc ? cc : ck;
            /* word proposal: the same device over the word's occurrences */
            c = v->wp >= 0 ? wz[v->wp] : -1 - v->wp;
            ac = nw[c] + beta;
            bc = nk[c] + wb;
            cc = nd[c] + alpha;
            acc = v->ub * ck * bc < cc * bk;
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

