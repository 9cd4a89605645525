/*
 * partition_salso.c -- randomised sequential allocation for the partition
 * minimising a posterior expected loss, the initialisation step of SALSO
 * (Dahl, Johnson and Mueller 2022, "Search algorithms and loss functions
 * for Bayesian clustering", JCGS 31, Section 4.1).
 *
 * The items are visited in a random order (a permutation chosen by the
 * caller).  Item i joins the cluster, among those of the items already
 * allocated or a new one, that minimises the expected loss of the partial
 * partition of the allocated items.  Every option adds i to the same set,
 * so the terms that do not depend on the partition (the draws' own margins
 * restricted to the set, the 1/m scaling) are common, and the change of
 * the loss for "i joins k" is
 *   VI:     f(n_k + 1) - f(n_k) - (2/S) sum_s [f(t_skl + 1) - f(t_skl)],
 *           f(x) = x log2 x, t_skl = #{allocated j in k with label l = c_s(i)
 *           in draw s}  (Wade and Ghahramani 2018, Section 3, the VI in
 *           contingency-table form);
 *   Binder: sum_{allocated j in k} (1 - 2 p_ij)  (unit costs; Binder 1978),
 * and 0 for a new cluster.  The caller then "sweetens" the allocation
 * with the greedy sweeps of partition_search.c (Dahl et al.'s sweetening
 * step) and keeps the best of several permutations.
 *
 * The VI tables hold Suse x Kmax x Lmax counts; as in partition_search.c
 * the draws are thinned evenly when they would exceed 2.5e7 cells (the
 * caller scores the results exactly over all draws).  Nothing is
 * allocated after mcx_salso_setup().
 */
#include <string.h>
#include "partition.h"

#define SALSO_TOL 1e-12
#define SALSO_MAX_CELLS ((size_t) 25000000)

void mcx_salso_setup(mcx_salso *w, int N, int loss, const int *labels, int S,
                     const double *psm, int Kmax)
{
    memset(w, 0, sizeof *w);
    w->N = N;
    w->S = S;
    w->loss = loss;
    w->labels = labels;
    w->psm = psm;
    w->Kmax = Kmax < 1 ? 1 : (Kmax > N ? N : Kmax);
    w->n = (int *) mcx_alloc((size_t) w->Kmax + 1, sizeof(int));
    w->gain = (double *) mcx_alloc((size_t) w->Kmax + 1, sizeof(double));
    if (loss == MCX_LOSS_BINDER) return;
    if (loss != MCX_LOSS_VI) MCX_INTERNAL("sequential allocation needs VI or Binder");
    int Lmax = 1;
    for (size_t u = 0; u < (size_t) S * N; u++) if (labels[u] > Lmax) Lmax = labels[u];
    w->Lmax = Lmax;
    w->cell = (size_t) w->Kmax * Lmax;
    w->stride = 1;
    while ((size_t) ((S + w->stride - 1) / w->stride) * w->cell > SALSO_MAX_CELLS) w->stride++;
    w->Suse = (S + w->stride - 1) / w->stride;
    w->T = (int *) mcx_alloc((size_t) w->Suse * w->cell, sizeof(int));
    w->fl = (double *) mcx_alloc((size_t) N + 2, sizeof(double));
    for (int i = 0; i <= N + 1; i++) w->fl[i] = mcx_xlog2x((double) i);
}

/* Scores of "i joins k" for the K clusters in use (gain[1..K]). */
static void score_vi(mcx_salso *w, int i, int K)
{
    const int *labels = w->labels;
    const double *fl = w->fl;
    double *gain = w->gain;
    int S = w->S, Lmax = w->Lmax;
    for (int k = 1; k <= K; k++) gain[k] = 0.0;
    for (int s = 0; s < w->Suse; s++) {
        const int *Ts = w->T + (size_t) s * w->cell;
        int l = labels[s * w->stride + (size_t) i * S] - 1;
        for (int k = 1; k <= K; k++) {
            int t = Ts[(size_t) (k - 1) * Lmax + l];
            gain[k] += fl[t + 1] - fl[t];
        }
    }
    for (int k = 1; k <= K; k++)
        gain[k] = fl[w->n[k] + 1] - fl[w->n[k]] - 2.0 * gain[k] / w->Suse;
}

static void score_binder(mcx_salso *w, int i, const int *cl, const int *perm, int m, int K)
{
    const double *p = w->psm + (size_t) i * w->N;
    double *gain = w->gain;
    for (int k = 1; k <= K; k++) gain[k] = 0.0;
    for (int t = 0; t < m; t++) {
        int j = perm[t];
        gain[cl[j]] += 1.0 - 2.0 * p[j];
    }
}

/* Allocate the items in the order perm (0-based, a permutation of 0..N-1)
 * into cl (labels 1..K, K <= Kmax); returns K. */
int mcx_salso_allocate(mcx_salso *w, const int *perm, int *cl)
{
    int N = w->N, K = 0;
    memset(w->n, 0, sizeof(int) * ((size_t) w->Kmax + 1));
    if (w->T) memset(w->T, 0, sizeof(int) * (size_t) w->Suse * w->cell);
    for (int t = 0; t < N; t++) {
        int i = perm[t], best = 0;
        if (i < 0 || i >= N) MCX_INTERNAL("not a permutation");
        if (w->loss == MCX_LOSS_VI) score_vi(w, i, K);
        else score_binder(w, i, cl, perm, t, K);
        /* a new cluster scores 0; an existing one must do strictly better */
        double best_score = K < w->Kmax ? -SALSO_TOL : INFINITY;
        for (int k = 1; k <= K; k++)
            if (w->gain[k] < best_score) { best_score = w->gain[k]; best = k; }
        if (best == 0) best = ++K;
        cl[i] = best;
        w->n[best]++;
        if (w->T) {
            for (int s = 0; s < w->Suse; s++) {
                int l = w->labels[s * w->stride + (size_t) i * w->S] - 1;
                w->T[(size_t) s * w->cell + (size_t) (best - 1) * w->Lmax + l]++;
            }
        }
    }
    return K;
}
