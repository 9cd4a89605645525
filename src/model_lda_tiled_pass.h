/*
 * model_lda_tiled_pass.h -- the document pass of the tiled sweep
 * (model_lda_tiled.c), included once per width of the word-topic rows:
 * TL_CT the count type (uint16_t or int), TL_FN(name) the function's name
 * for that width.
 */

/* The tokens of document d in order, drawing from the stream (master, d). */
static void TL_FN(tiled_document)(mcx_lda *m, TL_CT *rows, int d, uint64_t master)
{
    const int K = m->K, Kp = m->tl_Kp, nb = Kp / TL_TILE;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const int *word = m->word;
    const int t0 = m->doc_start[d], t1 = m->doc_start[d + 1];
    int *z = m->z, *nk = m->nk, *nd = m->ndk + (size_t) d * K;
    double *inv = m->inv_den, *invm = m->inv_minus, *coef = m->coef;
    double *q = m->tl_q, *blk = q + Kp;
    const size_t row_bytes = (size_t) Kp * sizeof(TL_CT);
    if (t1 <= t0) return;
    mcx_stream rng;
    mcx_stream_seed(&rng, master, (uint64_t) d);
    /* the document's coefficients (the padding's stay 0) */
    for (int k = 0; k < K; k++) coef[k] = (nd[k] + alpha) * inv[k];
    for (int t = t0; t < t1; t++) {
        if (t + TL_AHEAD < t1) {
            const char *ra = (const char *) (rows + (size_t) word[t + TL_AHEAD] * Kp);
            for (size_t b = 0; b < row_bytes; b += 64) MCX_PREFETCH(ra + b);
            MCX_PREFETCH(ra + row_bytes - 1);
        }
        TL_CT *nw = rows + (size_t) word[t] * Kp;
        const int k0 = z[t];
        /* take the token out (its conditional excludes it) */
        nd[k0]--;
        nw[k0]--;
        nk[k0]--;
        const double inv0 = inv[k0];
        inv[k0] = invm[k0];
        coef[k0] = (nd[k0] + alpha) * inv[k0];
        /* every term, as running sums within each tile (the tiles'
         * chains of additions independent of each other) and the running
         * sum over the tiles */
        double tot = 0.0;
        for (int b = 0; b < nb; b++) {
            const double *c = coef + TL_TILE * b;
            const TL_CT *n = nw + TL_TILE * b;
            double *x = q + TL_TILE * b;
            x[0] = c[0] * (n[0] + beta);
            x[1] = x[0] + c[1] * (n[1] + beta);
            x[2] = x[1] + c[2] * (n[2] + beta);
            x[3] = x[2] + c[3] * (n[3] + beta);
            x[4] = x[3] + c[4] * (n[4] + beta);
            x[5] = x[4] + c[5] * (n[5] + beta);
            x[6] = x[5] + c[6] * (n[6] + beta);
            x[7] = x[6] + c[7] * (n[7] + beta);
            tot += x[7];
            blk[b] = tot;
        }
        /* the tile, then the topic in it, each by counting the running
         * sums at or below u (no branch on the data) */
        double u = mcx_stream_unif(&rng) * tot;
        int b = 0;
        for (int i = 0; i < nb - 1; i++) b += u >= blk[i];
        if (b > 0) u -= blk[b - 1];
        const double *x = q + TL_TILE * b;
        int j = 0;
        for (int i = 0; i < TL_TILE - 1; i++) j += u >= x[i];
        int k = TL_TILE * b + j;
        if (k >= K) k = K - 1;              /* rounding at the top end */
        /* put it back in topic k */
        z[t] = k;
        nd[k]++;
        nw[k]++;
        nk[k]++;
        if (k == k0) {
            inv[k] = inv0;
        } else {
            invm[k0] = nk[k0] > 0 ? 1.0 / (nk[k0] - 1 + wb) : 0.0;
            invm[k] = inv[k];
            inv[k] = 1.0 / (nk[k] + wb);
        }
        coef[k] = (nd[k] + alpha) * inv[k];
    }
}
