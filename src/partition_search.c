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
 *
 * The caller drives the search (src/ffi_diag.c): mcx_greedy_setup() builds
 * the tables once, mcx_greedy_sweep() visits a block of observations in
 * order, so a sweep may be split into blocks with interrupt checks between
 * them without changing the result, and mcx_greedy_finish() relabels.
 */
#include <string.h>
#include "partition.h"

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

/* ---- VI over draws ---- */

static void setup_vi(mcx_greedy *g)
{
    int Lmax = 1, s, i, N = g->N, S = g->S;
    const int *labels = g->labels;
    const int *cl = g->cl;
    size_t u;
    for (u = 0; u < (size_t) S * N; u++) if (labels[u] > Lmax) Lmax = labels[u];
    g->Lmax = Lmax;
    /* at most 2.5e7 table cells (100 MB): thin the draws used for scoring
     * moves (the loss reported by R is recomputed over all draws) */
    g->cell = (size_t) g->Kcap * Lmax;
    g->stride = 1;
    while ((size_t) ((S + g->stride - 1) / g->stride) * g->cell > (size_t) 25000000) g->stride++;
    g->Suse = (S + g->stride - 1) / g->stride;
    g->T = (int *) mcx_alloc((size_t) g->Suse * g->cell, sizeof(int));
    memset(g->T, 0, sizeof(int) * (size_t) g->Suse * g->cell);
    g->fl = (double *) mcx_alloc((size_t) N + 2, sizeof(double));
    for (i = 0; i <= N + 1; i++) g->fl[i] = mcx_xlog2x((double) i);
    g->gain = (double *) mcx_alloc((size_t) g->Kcap + 1, sizeof(double));
    g->rowl = (int *) mcx_alloc((size_t) g->Suse, sizeof(int));
    for (i = 0; i < N; i++) {
        g->n[cl[i]]++;
        for (s = 0; s < g->Suse; s++)
            g->T[(size_t) s * g->cell + (size_t) (cl[i] - 1) * Lmax
                 + labels[s * g->stride + (size_t) i * S] - 1]++;
    }
    g->cost = (double) g->Suse * g->Kcap;
}

static int move_vi(mcx_greedy *g, int i)
{
    int *cl = g->cl, *n = g->n, *T = g->T, *rowl = g->rowl;
    const int *labels = g->labels;
    const double *fl = g->fl;
    double *gain = g->gain;
    int S = g->S, Suse = g->Suse, stride = g->stride, Kcap = g->Kcap, Lmax = g->Lmax;
    size_t cell = g->cell;
    int a = cl[i], e = n[a] > 1 ? empty_slot(n, Kcap) : 0, best = a, s, k;
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
    if (best == a) return 0;
    for (s = 0; s < Suse; s++) {
        int *Ts = T + (size_t) s * cell;
        Ts[(size_t) (a - 1) * Lmax + rowl[s]]--;
        Ts[(size_t) (best - 1) * Lmax + rowl[s]]++;
    }
    n[a]--;
    n[best]++;
    cl[i] = best;
    return 1;
}

/* ---- Binder from the similarity matrix (labels up to N) ---- */

static void setup_binder(mcx_greedy *g)
{
    int i;
    g->Kcap = g->N;
    g->n = (int *) mcx_alloc((size_t) g->N + 1, sizeof(int));
    memset(g->n, 0, sizeof(int) * ((size_t) g->N + 1));
    g->gain = (double *) mcx_alloc((size_t) g->N + 1, sizeof(double));
    for (i = 0; i < g->N; i++) g->n[g->cl[i]]++;
    g->cost = 2.0 * g->N;
}

static int move_binder(mcx_greedy *g, int i)
{
    int *cl = g->cl, *n = g->n, N = g->N, j, k;
    double *gk = g->gain;
    const double *p = g->psm + (size_t) i * N;
    int a = cl[i], best = a, e = n[a] > 1 ? empty_slot(n, N) : 0;
    double best_delta = -MOVE_TOL;
    for (k = 1; k <= N; k++) gk[k] = 0.0;
    for (j = 0; j < N; j++) if (j != i) gk[cl[j]] += 1.0 - 2.0 * p[j];
    for (k = 1; k <= N; k++) {
        double delta;
        if (k == a || (n[k] == 0 && k != e)) continue;
        delta = gk[k] - gk[a];
        if (delta < best_delta) { best_delta = delta; best = k; }
    }
    if (best == a) return 0;
    n[a]--; n[best]++; cl[i] = best;
    return 1;
}

/* ---- VI lower bound from the similarity matrix ---- */

static void setup_vi_lb(mcx_greedy *g)
{
    int N = g->N, Kcap = g->Kcap, i, j;
    g->Sm = (double *) mcx_alloc((size_t) N * (Kcap + 1), sizeof(double));
    memset(g->Sm, 0, sizeof(double) * (size_t) N * (Kcap + 1));
    for (i = 0; i < N; i++) g->n[g->cl[i]]++;
    for (j = 0; j < N; j++) {
        const double *p = g->psm + (size_t) j * N;
        for (i = 0; i < N; i++) g->Sm[(size_t) i * (Kcap + 1) + g->cl[j]] += p[i];
    }
    g->cost = (double) N * (Kcap + 1);
}

static int move_vi_lb(mcx_greedy *g, int i)
{
    int *cl = g->cl, *n = g->n, N = g->N, Kcap = g->Kcap, j, k;
    double *Sm = g->Sm;
    const double *p = g->psm + (size_t) i * N;
    int a = cl[i], best = a, e = n[a] > 1 ? empty_slot(n, Kcap) : 0;
    double best_delta = -MOVE_TOL, da = 0.0;
#define SM(i_, k_) Sm[(size_t) (i_) * (Kcap + 1) + (k_)]
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
    if (best == a) return 0;
    for (j = 0; j < N; j++) {
        SM(j, a) -= p[j];
        SM(j, best) += p[j];
    }
#undef SM
    n[a]--; n[best]++; cl[i] = best;
    return 1;
}

/* ---- driver ---- */

void mcx_greedy_setup(mcx_greedy *g, int *cl, int N, int loss, const int *labels,
                      int S, const double *psm)
{
    int K;
    memset(g, 0, sizeof *g);
    g->cl = cl;
    g->N = N;
    g->loss = loss;
    g->labels = labels;
    g->S = S;
    g->psm = psm;
    g->map = (int *) mcx_alloc((size_t) N + 1, sizeof(int));
    K = mcx_canonical(cl, N, g->map, N);
    g->Kcap = K + 1 < N ? K + 1 : N;
    if (loss == MCX_LOSS_BINDER) {
        setup_binder(g);
        return;
    }
    if (loss != MCX_LOSS_VI && loss != MCX_LOSS_VI_LB) MCX_INTERNAL("unknown loss");
    g->n = (int *) mcx_alloc((size_t) g->Kcap + 1, sizeof(int));
    memset(g->n, 0, sizeof(int) * ((size_t) g->Kcap + 1));
    if (loss == MCX_LOSS_VI) setup_vi(g); else setup_vi_lb(g);
}

int mcx_greedy_sweep(mcx_greedy *g, int i0, int i1)
{
    int i, moved = 0;
    if (i0 < 0 || i1 > g->N) MCX_INTERNAL("observations out of range");
    for (i = i0; i < i1; i++) {
        switch (g->loss) {
        case MCX_LOSS_VI: moved |= move_vi(g, i); break;
        case MCX_LOSS_BINDER: moved |= move_binder(g, i); break;
        default: moved |= move_vi_lb(g, i); break;
        }
    }
    return moved;
}

void mcx_greedy_finish(mcx_greedy *g)
{
    mcx_canonical(g->cl, g->N, g->map, g->N);
}
