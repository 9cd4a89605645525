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
#include "diag.h"

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

/* VI between c (1..Kc) and each draw; returns the average over draws. */
double mcx_vi_expected(const int *cl, const int *labels, int S, int N, mcx_loss_work *w)
{
    int *cnt = w->cnt, *ccnt = w->ccnt, *first = w->first, *next = w->next;
    int *touched = w->touched;
    double hc = 0.0, total = 0.0;
    int i, s, k;
    if (w->N < N) MCX_INTERNAL("loss scratch too small");
    memset(ccnt, 0, sizeof(int) * ((size_t) N + 1));
    for (k = 0; k <= N; k++) first[k] = -1;
    for (i = N - 1; i >= 0; i--) {
        next[i] = first[cl[i]];
        first[cl[i]] = i;
        ccnt[cl[i]]++;
    }
    for (k = 1; k <= N; k++) hc += mcx_xlog2x(ccnt[k]);
    memset(cnt, 0, sizeof(int) * ((size_t) N + 1));
    for (s = 0; s < S; s++) {
        double hs = 0.0, hj = 0.0;
        int nt;
        /* margin of the draw */
        for (i = 0; i < N; i++) cnt[labels[s + (size_t) i * S]]++;
        for (k = 1; k <= N; k++) if (cnt[k]) { hs += mcx_xlog2x(cnt[k]); cnt[k] = 0; }
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
                hj += mcx_xlog2x(cnt[l]);
                cnt[l] = 0;
            }
        }
        total += hc + hs - 2.0 * hj;
    }
    return total / ((double) S * N);
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
