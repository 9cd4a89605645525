/*
 * mixture_subcluster_single.c -- singleton split / merge moves of the
 * sub-cluster sampler (see mixture_subcluster.h), O(K) each.
 *
 * Why: the restricted Gibbs pass never empties a cluster and the split
 * proposal of a cluster follows its two sub-clusters, so a cluster reduced
 * to one member (a point that would rather be elsewhere, kept by the
 * restriction) could leave only by a merge whose reverse split proposes
 * exactly that point as one side, which the sub-clusters of the union
 * almost never do: small extra clusters were sticky.  Chang and Fisher
 * (2013) avoid this by remembering the two clusters as the sub-clusters of
 * their merge, at the price of an inexact Hastings ratio; here a second
 * pair of moves, exactly reversible with each other, removes and creates
 * singletons.  Each is a Metropolis-Hastings step on the partition, so the
 * sampler stays exact (the enumeration tests cover it).
 *
 * Move (chosen with probability 1/2 each, the same in both directions):
 *  split: an observation i drawn uniformly from all n; if its cluster c
 *    has at least 2 members, propose moving i into a new cluster.
 *       q = 1/n;    reverse (merge from K + 1 clusters): 1/(K + 1) w(c')
 *  merge: a cluster c drawn uniformly from the K; if it is a singleton {i}
 *    and K >= 2, propose moving i into cluster k != c drawn with
 *    probability w(k) proportional to n_k p(x_i | x_k) (collapsed
 *    predictive),
 *       q = 1/K w(k);  reverse (split from K - 1 clusters): 1/n.
 * With the Pitman-Yor prior (Pitman 2006, eq. 3.6) the partition ratio of
 * the split is [(alpha + K d) / (n_c - 1 - d)] p(x_i) / p(x_i | x_c \ i).
 */
#include <string.h>
#include <R_ext/Random.h>
#include <Rmath.h>
#include "mixture_subcluster.h"

/* log w(k) for every k != skip: log n_k + log p(x | stats_k), with the stats
 * of cluster `alt` replaced by alt_stats (size alt_n); returns log sum. */
static double target_weights(const mcx_mix *m, mcx_subcluster *s, const double *x, int skip,
                             int alt, const double *alt_stats, int alt_n)
{
    double mx = -INFINITY, *lw = s->logpi;
    for (int k = 0; k < m->K; k++) {
        if (k == skip) continue;
        const double *st = k == alt ? alt_stats : mcx_mix_stats(m, k);
        int nk = k == alt ? alt_n : m->size[k];
        lw[k] = log((double) nk) + m->fam->log_predictive(m->hyper, st, x, m->work);
        if (lw[k] > mx) mx = lw[k];
    }
    double tot = 0.0;
    for (int k = 0; k < m->K; k++)
        if (k != skip) tot += exp(lw[k] - mx);
    return mx + log(tot);
}

static void single_split(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int n = m->n, K = m->K;
    int i = (int) (unif_rand() * n);
    if (i >= n) i = n - 1;
    int c = m->z[i], nc = m->size[c];
    if (nc < 2) return;
    const double *x = mcx_mix_x(m, i);
    double *without = m->scratch;
    memcpy(without, mcx_mix_stats(m, c), m->sstride * sizeof(double));
    m->fam->stats_remove(m->hyper, without, x, m->work);
    double lp_rest = m->fam->log_predictive(m->hyper, without, x, m->work);
    double lp_new = m->fam->log_predictive(m->hyper, m->empty, x, m->work);
    /* reverse: the new singleton merged back into c (the other clusters as they are) */
    double lsum = target_weights(m, s, x, -1, c, without, nc - 1);
    double lw_c = s->logpi[c] - lsum;
    double lr = mcx_sc_log_prior_split(p, K, nc - 1, 1) + lp_new - lp_rest
        + lw_c - log(K + 1.0) + log((double) n);
    if (!(lr >= 0.0 || log(unif_rand()) < lr)) return;
    mcx_mix_detach(m, i, without);
    mcx_mix_add(m, i, mcx_mix_new_cluster(m));
}

static void single_merge(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int n = m->n, K = m->K;
    int c = (int) (unif_rand() * K);
    if (c >= K) c = K - 1;
    if (K < 2 || m->size[c] != 1) return;
    int i = 0;
    while (m->z[i] != c) i++;                 /* the singleton's member */
    const double *x = mcx_mix_x(m, i);
    double lsum = target_weights(m, s, x, c, -1, NULL, 0);
    /* draw the target k with probability w(k) */
    double u = unif_rand(), acc = 0.0;
    int k = -1;
    for (int j = 0; j < K; j++) {
        if (j == c) continue;
        k = j;
        acc += exp(s->logpi[j] - lsum);
        if (u < acc) break;
    }
    double lw_k = s->logpi[k] - lsum;
    double lp_k = m->fam->log_predictive(m->hyper, mcx_mix_stats(m, k), x, m->work);
    double lp_new = m->fam->log_predictive(m->hyper, m->empty, x, m->work);
    double lr = -mcx_sc_log_prior_split(p, K - 1, m->size[k], 1) + lp_k - lp_new
        - log((double) n) - (lw_k - log((double) K));
    if (!(lr >= 0.0 || log(unif_rand()) < lr)) return;
    mcx_mix_remove(m, i);
    mcx_mix_add(m, i, k);
    mcx_mix_delete_cluster(m, c);
}

void mcx_subcluster_singles(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    for (int t = 0; t < s->singles; t++) {
        if (m->K < 1) return;
        mcx_sc_reserve(s, m->K + 1);
        if (unif_rand() < 0.5)
            MCX_MIX_MOVE(m, "subcluster: singleton split", single_split(m, s, p));
        else MCX_MIX_MOVE(m, "subcluster: singleton merge", single_merge(m, s, p));
    }
}
