/*
 * partition_loss.c -- posterior expected losses of a partition.
 *
 * Labels are canonical: integers 1..K (K <= N). Logarithms are base 2.
 * - Variation of information (Meila 2007), expected over the S draws
 *   exactly (Wade and Ghahramani 2018, Section 3):
 *     VI(c, c') = (1/N) [ sum_k f(n_k) + sum_l f(m_l) - 2 sum_kl f(n_kl) ],
 *   f(x) = x log2 x, n_kl the contingency table.
 * - Binder's loss with unit costs (Binder 1978), summed over pairs i < j:
 *     sum_{i<j} 1(c_i = c_j)(1 - p_ij) + 1(c_i != c_j) p_ij.
 * - The lower bound of the expected VI from the similarity matrix p
 *   (Wade and Ghahramani 2018, eq. 11, Jensen's inequality):
 *     (1/N) sum_i [ log2 n_{c_i} - 2 log2 sum_{j in c_i} p_ij
 *                   + log2 sum_j p_ij ].
 */
#include <string.h>
#include "partition.h"

double mcx_xlog2x(double x)
{
    return x > 0 ? x * log2(x) : 0.0;
}

/* Scratch of the losses, allocated once per .Call and reused for every
 * candidate partition. */
void mcx_loss_work_init(mcx_loss_work *w, int N)
{
    w->N = N;
    w->cnt = (int *) mcx_alloc((size_t) N + 1, sizeof(int));
    w->ccnt = (int *) mcx_alloc((size_t) N + 1, sizeof(int));
    w->first = (int *) mcx_alloc((size_t) N + 1, sizeof(int));
    w->next = (int *) mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    w->touched = (int *) mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
}

/* f(x) of the pair-counting form of a distance: x log2 x for VI, the
 * number of pairs x (x - 1) / 2 for Binder's loss. */
static inline double dist_f(double x, int loss)
{
    return loss == MCX_LOSS_BINDER ? 0.5 * x * (x - 1.0) : mcx_xlog2x(x);
}

/* Distance between c (1..Kc) and each draw, both of the form
 *   d = sum_k f(n_k) + sum_l f(m_l) - 2 sum_kl f(n_kl)
 * (divided by N for VI): VI in bits, or Binder's loss as the number of
 * pairs on which the two partitions disagree.  Writes the S distances to
 * `out` (when not NULL) and returns their average. */
double mcx_dist_draws(const int *cl, const int *labels, int S, int N, mcx_loss_work *w,
                      int loss, double *out)
{
    int *cnt = w->cnt, *ccnt = w->ccnt, *first = w->first, *next = w->next;
    int *touched = w->touched;
    double hc = 0.0, total = 0.0, scale = loss == MCX_LOSS_BINDER ? 1.0 : 1.0 / N;
    int i, s, k;
    if (w->N < N) MCX_INTERNAL("loss scratch too small");
    memset(ccnt, 0, sizeof(int) * ((size_t) N + 1));
    for (k = 0; k <= N; k++) first[k] = -1;
    for (i = N - 1; i >= 0; i--) {
        next[i] = first[cl[i]];
        first[cl[i]] = i;
        ccnt[cl[i]]++;
    }
    for (k = 1; k <= N; k++) hc += dist_f(ccnt[k], loss);
    memset(cnt, 0, sizeof(int) * ((size_t) N + 1));
    for (s = 0; s < S; s++) {
        double hs = 0.0, hj = 0.0, d;
        int nt;
        /* margin of the draw */
        for (i = 0; i < N; i++) cnt[labels[s + (size_t) i * S]]++;
        for (k = 1; k <= N; k++) if (cnt[k]) { hs += dist_f(cnt[k], loss); cnt[k] = 0; }
        /* joint: one pass per cluster of c */
        for (k = 1; k <= N; k++) {
            if (first[k] < 0) continue;
            nt = 0;
            for (i = first[k]; i >= 0; i = next[i]) {
                int l = labels[s + (size_t) i * S];
                if (cnt[l]++ == 0) touched[nt++] = l;
            }
            while (nt > 0) {
                int l = touched[--nt];
                hj += dist_f(cnt[l], loss);
                cnt[l] = 0;
            }
        }
        d = (hc + hs - 2.0 * hj) * scale;
        if (d < 0) d = 0.0;    /* rounding */
        if (out) out[s] = d;
        total += d;
    }
    return total / S;
}

/* VI between c (1..Kc) and each draw; returns the average over draws. */
double mcx_vi_expected(const int *cl, const int *labels, int S, int N, mcx_loss_work *w)
{
    return mcx_dist_draws(cl, labels, S, N, w, MCX_LOSS_VI, NULL);
}

double mcx_binder_expected(const int *cl, const double *psm, int N)
{
    double s = 0.0;
    int i, j;
    for (j = 0; j < N; j++) {
        const double *p = psm + (size_t) j * N;
        for (i = 0; i < j; i++) s += (cl[i] == cl[j]) ? 1.0 - p[i] : p[i];
    }
    return s;
}

double mcx_vi_lb(const int *cl, const double *psm, int N, mcx_loss_work *w)
{
    int *n = w->cnt;
    double out = 0.0;
    int i, j;
    if (w->N < N) MCX_INTERNAL("loss scratch too small");
    memset(n, 0, sizeof(int) * ((size_t) N + 1));
    for (i = 0; i < N; i++) n[cl[i]]++;
    for (i = 0; i < N; i++) {
        double same = 0.0, all = 0.0;
        for (j = 0; j < N; j++) {
            double p = psm[i + (size_t) j * N];
            all += p;
            if (cl[j] == cl[i]) same += p;
        }
        out += log2((double) n[cl[i]]) - 2.0 * log2(same) + log2(all);
    }
    return out / N;
}
