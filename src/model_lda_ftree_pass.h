/*
 * model_lda_ftree_pass.h -- the word pass of the F+tree sweep
 * (model_lda_ftree.c), included once per width of the documents' list
 * entries: FT_ET the entry type (uint32_t or uint64_t), FT_FN(name) the
 * function's name for that width.  An entry is (k << shift) | n_dk, so
 * entries in increasing order are topics in increasing order, and one
 * more token of topic k is the entry plus one.
 */

/* Remove one token of topic k from the list of length *len at e
 * (present); -1 when it is absent (an internal error). */
static inline int FT_FN(dlist_dec)(FT_ET *e, FT_ET *len, int k, int shift)
{
    const int n = (int) *len;
    int i = 0;
    while (i < n && (int) (e[i] >> shift) != k) i++;
    if (i == n) return -1;
    if ((--e[i] & (((FT_ET) 1 << shift) - 1)) == 0) {
        memmove(e + i, e + i + 1, (size_t) (n - i - 1) * sizeof(FT_ET));
        *len = (FT_ET) (n - 1);
    }
    return 0;
}

/* One more token of topic k (inserted in increasing order when absent). */
static inline void FT_FN(dlist_inc)(FT_ET *e, FT_ET *len, int k, int shift)
{
    const int n = (int) *len;
    const FT_ET key = (FT_ET) k << shift;
    int i = n;
    while (i > 0 && e[i - 1] >= key) i--;
    if (i < n && (int) (e[i] >> shift) == k) {
        e[i]++;
        return;
    }
    memmove(e + i + 1, e + i, (size_t) (n - i) * sizeof(FT_ET));
    e[i] = key | 1;
    *len = (FT_ET) (n + 1);
}

/* The occurrences of word w, drawing from the stream (master, w); 0, or
 * -1 when a document list is out of step (an internal error). */
static int FT_FN(ftree_word)(mcx_lda *m, FT_ET *blocks, int w, uint64_t master)
{
    const int K = m->K, P = m->ft_P, shift = m->ft_shift;
    const FT_ET cmask = ((FT_ET) 1 << shift) - 1;
    const int s0 = m->ft_off[w], s1 = m->ft_off[w + 1];
    if (s1 <= s0) return 0;
    const double alpha = m->alpha, beta = m->beta, wb = m->W * m->beta;
    const int *dpos = m->ft_dpos;
    int *zw = m->ft_z, *nk = m->nk;
    int *nw = m->nwk + (size_t) w * K;
    double *inv = m->inv_den, *invm = m->inv_minus, *tr = m->ft_tree, *cum = m->cum;
    mcx_stream rng;
    mcx_stream_seed(&rng, master, (uint64_t) w);
    /* the leaves a_k of word w and their sums */
    for (int k = 0; k < K; k++) tr[P + k] = (nw[k] + beta) * inv[k];
    for (int i = P - 1; i >= 1; i--) tr[i] = tr[2 * i] + tr[2 * i + 1];
    for (int s = s0; s < s1; s++) {
        if (s + FT_AHEAD < s1) {
            const FT_ET *pa = blocks + dpos[s + FT_AHEAD];
            MCX_PREFETCH(pa);
            MCX_PREFETCH((const char *) pa + 64);
        }
        const int k0 = zw[s];
        FT_ET *len = blocks + dpos[s], *e = len + 1;
        /* take the token out (its conditional excludes it) */
        if (FT_FN(dlist_dec)(e, len, k0, shift) < 0) return -1;
        nw[k0]--;
        nk[k0]--;
        const double inv0 = inv[k0];
        inv[k0] = invm[k0];
        tree_set(tr, P, k0, (nw[k0] + beta) * inv[k0]);
        /* the document part, R = sum over its topics of n_dk a_k: the
         * terms, then two partial sums (one chain of additions otherwise) */
        const int dn = (int) *len;
        double r = 0.0, r1 = 0.0;
        int i = 0;
        for (; i + 1 < dn; i += 2) {
            cum[i] = (double) (e[i] & cmask) * tr[P + (int) (e[i] >> shift)];
            cum[i + 1] = (double) (e[i + 1] & cmask) * tr[P + (int) (e[i + 1] >> shift)];
            r += cum[i];
            r1 += cum[i + 1];
        }
        if (i < dn) {
            cum[i] = (double) (e[i] & cmask) * tr[P + (int) (e[i] >> shift)];
            r += cum[i];
        }
        r += r1;
        double u = mcx_stream_unif(&rng) * (r + alpha * tr[1]);
        int k;
        if (u < r && dn > 0) {
            /* the walk four terms at a time, then one by one */
            i = 0;
            while (i + 4 < dn) {
                const double b4 = (cum[i] + cum[i + 1]) + (cum[i + 2] + cum[i + 3]);
                if (u < b4) break;
                u -= b4;
                i += 4;
            }
            while (i < dn - 1 && u >= cum[i]) u -= cum[i++];
            k = (int) (e[i] >> shift);
            e[i]++;
        } else {
            k = tree_find(tr, P, u > r ? (u - r) / alpha : 0.0);
            if (k >= K) k = K - 1;          /* rounding at the top end */
            FT_FN(dlist_inc)(e, len, k, shift);
        }
        /* put it back in topic k */
        zw[s] = k;
        nw[k]++;
        nk[k]++;
        if (k == k0) {
            inv[k] = inv0;
        } else {
            invm[k0] = nk[k0] > 0 ? 1.0 / (nk[k0] - 1 + wb) : 0.0;
            invm[k] = inv[k];
            inv[k] = 1.0 / (nk[k] + wb);
        }
        tree_set(tr, P, k, (nw[k] + beta) * inv[k]);
    }
    return 0;
}
