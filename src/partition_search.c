/*
 * partition_search.c -- greedy search for a partition minimising a
 * posterior expected loss (Wade and Ghahramani 2018, Section 4.2, "greedy
 * search": sweep over observations, move each to the cluster, or a new
 * cluster, that lowers the loss most; stop when a sweep moves nothing).
 *
 * Moves are scored by exact changes of the loss:
 * - VI over draws: the contingency table n_kl of every draw is kept, so a
 *   move changes O(1) entries per draw (cost O(S) per candidate cluster);
 * - Binder from the similarity matrix: O(N) per observation;
 * - VI lower bound from the similarity matrix: the sums sum_{j in k} p_ij
 *   are kept for every i and k (cost O(n_a + n_b) per candidate).
 * Every accepted move strictly lowers the loss, so the result is never
 * worse than the start.
 */
#include <string.h>
#include "diag.h"

#define MOVE_TOL 1e-10

/* Relabel cl to 1..K in order of first appearance; returns K. */
int mcx_canonical(int *cl, int N, int *map /* length >= max label + 1 */, int maxlab)
{
    int i, K = 0;
    for (i = 0; i <= maxlab; i++) map[i] = 0;
    for (i = 0; i < N; i++) {
        if (!map[cl[i]]) map[cl[i]] = ++K;
        cl[i] = map[cl[i]];
    }
    return K;
}

/* Find an empty slot in 1..Kcap, or 0. */
static int empty_slot(const int *n, int Kcap)
{
    int k;
    for (k = 1; k <= Kcap; k++) if (n[k] == 0) return k;
    return 0;
}

static int greedy_vi(int *cl, int N, const int *labels, int S, int Kcap,
                     int max_sweeps)
{
    int Lmax = 1, s, i, k, sweeps = 0, moved = 1, Suse, stride;
    size_t cell, u;
    int *T, *n, *rowl;
    double *fl, *gain;
    for (u = 0; u < (size_t) S * N; u++) if (labels[u] > Lmax) Lmax = labels[u];
    /* at most 2.5e7 table cells (100 MB): thin the draws used for scoring
     * moves (the loss reported by R is recomputed over all draws) */
    cell = (size_t) Kcap * Lmax;
    stride = 1;
    while ((size_t) ((S + stride - 1) / stride) * cell > (size_t) 25000000) stride++;
    Suse = (S + stride - 1) / stride;
    T = (int *) mcx_alloc((size_t) Suse * cell, sizeof(int));
    memset(T, 0, sizeof(int) * (size_t) Suse * cell);
    n = (int *) mcx_alloc((size_t) Kcap + 1, sizeof(int));
    memset(n, 0, sizeof(int) * ((size_t) Kcap + 1));
    fl = (double *) mcx_alloc((size_t) N + 2, sizeof(double));
    for (i = 0; i <= N + 1; i++) fl[i] = mcx_xlog2x((double) i);
    gain = (double *) mcx_alloc((size_t) Kcap + 1, sizeof(double));
    rowl = (int *) mcx_alloc((size_t) Suse, sizeof(int));
    for (i = 0; i < N; i++) {
        n[cl[i]]++;
        for (s = 0; s < Suse; s++)
            T[(size_t) s * cell + (size_t) (cl[i] - 1) * Lmax + labels[s * stride + (size_t) i * S] - 1]++;
    }
    while (moved && sweeps < max_sweeps) {
        moved = 0;
        sweeps++;
        for (i = 0; i < N; i++) {
            int a = cl[i], e = n[a] > 1 ? empty_slot(n, Kcap) : 0, best = a;
            double da = 0.0, best_delta = -MOVE_TOL;
            for (k = 1; k <= Kcap; k++) gain[k] = 0.0;
            for (s = 0; s < Suse; s++) {
                const int *Ts = T + (size_t) s * cell;
                int l = labels[s * stride + (size_t) i * S] - 1, t;
                rowl[s] = l;
                t = Ts[(size_t) (a - 1) * Lmax + l];
                da += fl[t - 1] - fl[t];
                for (k = 1; k <= Kcap; k++) {
                    if (k == a || (n[k] == 0 && k != e)) continue;
                    t = Ts[(size_t) (k - 1) * Lmax + l];
                    gain[k] += fl[t + 1] - fl[t];
                }
            }
            for (k = 1; k <= Kcap; k++) {
                double delta;
                if (k == a || (n[k] == 0 && k != e)) continue;
                delta = fl[n[a] - 1] - fl[n[a]] + fl[n[k] + 1] - fl[n[k]]
                    - 2.0 * (da + gain[k]) / Suse;
                if (delta < best_delta) { best_delta = delta; best = k; }
            }
            if (best != a) {
                for (s = 0; s < Suse; s++) {
                    int *Ts = T + (size_t) s * cell;
                    Ts[(size_t) (a - 1) * Lmax + rowl[s]]--;
                    Ts[(size_t) (best - 1) * Lmax + rowl[s]]++;
                }
                n[a]--;
                n[best]++;
                cl[i] = best;
                moved = 1;
            }
        }
    }
    return sweeps;
}

static int greedy_binder(int *cl, int N, const double *psm, int max_sweeps)
{
    int *n = (int *) mcx_alloc((size_t) N + 1, sizeof(int));
    double *g = (double *) mcx_alloc((size_t) N + 1, sizeof(double));
    int i, j, k, sweeps = 0, moved = 1;
    memset(n, 0, sizeof(int) * ((size_t) N + 1));
    for (i = 0; i < N; i++) n[cl[i]]++;
    while (moved && sweeps < max_sweeps) {
        moved = 0;
        sweeps++;
        for (i = 0; i < N; i++) {
            const double *p = psm + (size_t) i * N;
            int a = cl[i], best = a, e = n[a] > 1 ? empty_slot(n, N) : 0;
            double best_delta = -MOVE_TOL;
            for (k = 1; k <= N; k++) g[k] = 0.0;
            for (j = 0; j < N; j++) if (j != i) g[cl[j]] += 1.0 - 2.0 * p[j];
            for (k = 1; k <= N; k++) {
                double delta;
                if (k == a || (n[k] == 0 && k != e)) continue;
                delta = g[k] - g[a];
                if (delta < best_delta) { best_delta = delta; best = k; }
            }
            if (best != a) {
                n[a]--; n[best]++; cl[i] = best; moved = 1;
            }
        }
    }
    return sweeps;
}

static int greedy_vi_lb(int *cl, int N, const double *psm, int Kcap, int max_sweeps)
{
    int *n = (int *) mcx_alloc((size_t) Kcap + 1, sizeof(int));
    double *Sm = (double *) mcx_alloc((size_t) N * (Kcap + 1), sizeof(double));
    int i, j, k, sweeps = 0, moved = 1;
    memset(n, 0, sizeof(int) * ((size_t) Kcap + 1));
    memset(Sm, 0, sizeof(double) * (size_t) N * (Kcap + 1));
    for (i = 0; i < N; i++) n[cl[i]]++;
    for (j = 0; j < N; j++) {
        const double *p = psm + (size_t) j * N;
        for (i = 0; i < N; i++) Sm[(size_t) i * (Kcap + 1) + cl[j]] += p[i];
    }
#define SM(i_, k_) Sm[(size_t) (i_) * (Kcap + 1) + (k_)]
    while (moved && sweeps < max_sweeps) {
        moved = 0;
        sweeps++;
        for (i = 0; i < N; i++) {
            const double *p = psm + (size_t) i * N;
            int a = cl[i], best = a, e = n[a] > 1 ? empty_slot(n, Kcap) : 0;
            double best_delta = -MOVE_TOL, da = 0.0;
            /* change of the terms of cluster a when i leaves it */
            for (j = 0; j < N; j++) {
                if (cl[j] != a) continue;
                if (j == i) {
                    da -= log2((double) n[a]) - 2.0 * log2(SM(j, a));
                } else {
                    da += log2((double) (n[a] - 1)) - 2.0 * log2(SM(j, a) - p[j])
                        - log2((double) n[a]) + 2.0 * log2(SM(j, a));
                }
            }
            for (k = 1; k <= Kcap; k++) {
                double db;
                if (k == a || (n[k] == 0 && k != e)) continue;
                db = log2((double) (n[k] + 1)) - 2.0 * log2(SM(i, k) + p[i]);
                if (n[k] > 0) {
                    for (j = 0; j < N; j++) {
                        if (cl[j] != k) continue;
                        db += log2((double) (n[k] + 1)) - 2.0 * log2(SM(j, k) + p[j])
                            - log2((double) n[k]) + 2.0 * log2(SM(j, k));
                    }
                }
                if (da + db < best_delta) { best_delta = da + db; best = k; }
            }
            if (best != a) {
                for (j = 0; j < N; j++) {
                    SM(j, a) -= p[j];
                    SM(j, best) += p[j];
                }
                n[a]--; n[best]++; cl[i] = best; moved = 1;
            }
        }
    }
#undef SM
    return sweeps;
}

int mcx_partition_greedy(int *cl, int N, int loss, const int *labels, int S,
                         const double *psm, int max_sweeps)
{
    int *map = (int *) mcx_alloc((size_t) N + 1, sizeof(int));
    int K = mcx_canonical(cl, N, map, N), Kcap = K + 1 < N ? K + 1 : N, sweeps;
    switch (loss) {
    case MCX_LOSS_VI: sweeps = greedy_vi(cl, N, labels, S, Kcap, max_sweeps); break;
    case MCX_LOSS_BINDER: sweeps = greedy_binder(cl, N, psm, max_sweeps); break;
    case MCX_LOSS_VI_LB: sweeps = greedy_vi_lb(cl, N, psm, Kcap, max_sweeps); break;
    default: MCX_INTERNAL("unknown loss");
    }
    mcx_canonical(cl, N, map, N);
    return sweeps;
}
