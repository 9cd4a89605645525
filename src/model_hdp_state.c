/*
 * model_hdp_state.c -- the bookkeeping of the HDP mixture's state
 * (model_hdp.h), below the moves that use it: the per-cluster arrays
 * (group counts, table counts, global weights) grown with the mixture and
 * compacted with it, the bookkeeping of an accepted split or merge, and
 * the terms of the acceptance ratio of a split shared by the restricted-
 * pass moves (model_hdp_splitmerge.c) and the sequentially allocated ones
 * (model_hdp_sams.c).  The derivation of the ratio is in
 * model_hdp_splitmerge.c.  Calls nothing of the other HDP files.
 */
#include <string.h>
#include <Rmath.h>
#include "model_hdp.h"

/* Grow the per-cluster arrays to the capacity of the mixture state
 * (called right after a cluster is appended: K may already exceed the old
 * capacity, so the old arrays are copied by their own size). */
void mcx_hdp_capacity(mcx_hdp *h)
{
    int cap = h->mix.cap, J = h->J;
    if (cap <= h->cap) return;
    int *njk = mcx_alloc((size_t) cap * J, sizeof(int));
    int *mk = mcx_alloc((size_t) cap, sizeof(int));
    double *beta = mcx_alloc((size_t) cap + 1, sizeof(double));
    double *logw = mcx_alloc((size_t) cap + 1, sizeof(double));
    memset(njk, 0, (size_t) cap * J * sizeof(int));
    memset(mk, 0, (size_t) cap * sizeof(int));
    memset(beta, 0, ((size_t) cap + 1) * sizeof(double));
    if (h->njk != NULL) {
        memcpy(njk, h->njk, (size_t) h->cap * J * sizeof(int));
        memcpy(beta, h->beta, ((size_t) h->cap + 1) * sizeof(double));
    }
    h->njk = njk;
    h->mk = mk;
    h->beta = beta;
    h->logw = logw;
    h->cap = cap;
}

/* Drop the empty cluster k: its weight joins beta_u and cluster K-1 moves
 * into slot k, as in mcx_mix_delete_cluster. */
void mcx_hdp_drop_cluster(mcx_hdp *h, int k)
{
    int last = h->mix.K - 1, J = h->J;
    double bu = h->beta[last + 1] + h->beta[k];
    if (k != last) {
        h->beta[k] = h->beta[last];
        memcpy(h->njk + (size_t) k * J, h->njk + (size_t) last * J, (size_t) J * sizeof(int));
    }
    memset(h->njk + (size_t) last * J, 0, (size_t) J * sizeof(int));
    h->beta[last] = bu;
    mcx_mix_delete_cluster(&h->mix, k);
}

/* g(a, n) = log Gamma(a + n) - log Gamma(a) (mcx_lgamma_rise(): the
 * plain difference below 1e6, Stirling's series above, where alpha beta_c
 * of a large concentration would leave no digit of it). */
static double lgamma_ratio(double a, int n)
{
    return n > 0 ? mcx_lgamma_rise(a, n) : 0.0;
}

/* E[m] for n customers at a DP(a) restaurant: sum_{l < n} a / (a + l),
 * = 1 + a (psi(a + n) - psi(a + 1)) (stable for small a).  From
 * MCX_LGAMMA_DIRECT on the digamma difference, about (n - 1) / a, would
 * cancel: psi(y) = log y - 1/(2 y) - 1/(12 y^2) + O(y^-4) at y = a + n and
 * u = a + 1 gives it as log1p((n - 1) / u) + (n - 1) / (2 u y)
 * + (n - 1) (1/u + 1/y) / (12 u y) (products that overflow give 0, their
 * limit). */
static double expected_tables(double a, int n)
{
    if (n <= 1) return n;
    if (a < MCX_LGAMMA_DIRECT) return 1.0 + a * (digamma(a + n) - digamma(a + 1.0));
    const double m = n - 1.0, u = a + 1.0, y = a + n, uy = u * y;
    return 1.0 + a * (log1p(m / u) + 0.5 * m / uy + m / (12.0 * uy) * (1.0 / u + 1.0 / y));
}

/* sum_j [g(alpha w beta_c, nA_j) + g(alpha (1-w) beta_c, nB_j)
 * - g(alpha beta_c, nA_j + nB_j)] for the side counts per group nA, nB
 * (J each), and the parameters M_A, M_B of the proposal of w. */
static double group_sums(const mcx_hdp *h, const int *nA, const int *nB, double beta_c,
                         double w, double *MA, double *MB)
{
    double alpha = h->grp.alpha, a = 0.5 * alpha * beta_c, s = 0.0;
    *MA = *MB = 0.0;
    for (int j = 0; j < h->J; j++) {
        int na = nA[j], nb = nB[j];
        if (na + nb == 0) continue;
        s += lgamma_ratio(alpha * w * beta_c, na) + lgamma_ratio(alpha * (1.0 - w) * beta_c, nb) -
            lgamma_ratio(alpha * beta_c, na + nb);
        *MA += expected_tables(a, na);
        *MB += expected_tables(a, nb);
    }
    return s;
}

/* The part of log r of a split that depends on the groups and on w: the
 * sums above - log Beta(w; M_A, M_B) (w drawn from that Beta). */
double mcx_hdp_group_terms(const mcx_hdp *h, const int *nA, const int *nB, double beta_c,
                           double w)
{
    double MA, MB, s = group_sums(h, nA, nB, beta_c, w, &MA, &MB);
    return s - dbeta(w, MA, MB, 1);
}

/* The same for a w drawn uniformly on (0, 1) (density 1). */
double mcx_hdp_group_lgamma(const mcx_hdp *h, const int *nA, const int *nB, double beta_c,
                            double w)
{
    double MA, MB;
    return group_sums(h, nA, nB, beta_c, w, &MA, &MB);
}

/* w ~ Beta(M_A, M_B) for the side counts nA, nB. */
double mcx_hdp_draw_w(const mcx_hdp *h, const int *nA, const int *nB, double beta_c)
{
    double a = 0.5 * h->grp.alpha * beta_c, MA = 0.0, MB = 0.0;
    for (int j = 0; j < h->J; j++) {
        MA += expected_tables(a, nA[j]);
        MB += expected_tables(a, nB[j]);
    }
    return mcx_rbeta(MA, MB);
}

/* The part of log r of a split shared by both kinds of proposal, beyond
 * the group terms: the prior terms of gamma and w and the likelihood
 * ratio from the three stats blocks. */
double mcx_hdp_split_terms(const mcx_hdp *h, double w, const double *stA, const double *stB,
                          const double *stC)
{
    const mcx_mix *m = &h->mix;
    const mcx_family *f = m->fam;
    return log(h->top.alpha) - log(w) - log1p(-w) +
        f->log_marginal(m->hyper, stA, m->work) + f->log_marginal(m->hyper, stB, m->work) -
        f->log_marginal(m->hyper, stC, m->work);
}

/* The side counts h->side_nj zeroed (before a proposal's passes). */
void mcx_hdp_reset_sides(mcx_hdp *h)
{
    memset(h->side_nj, 0, 2 * (size_t) h->J * sizeof(int));
}

/* The bookkeeping of an accepted split of a cluster of weight beta_c whose
 * second cluster took the new slot cn (beta_u moves up one): the side of
 * weight share w in slot a with group counts na, the other (share 1 - w)
 * in slot b with nb. */
void mcx_hdp_accepted_split(mcx_hdp *h, int cn, int a, double w, double beta_c,
                           const int *na, int b, const int *nb)
{
    const int J = h->J;
    mcx_hdp_capacity(h);
    h->beta[cn + 1] = h->beta[cn];            /* beta_u */
    h->beta[a] = w * beta_c;
    h->beta[b] = (1.0 - w) * beta_c;
    memcpy(h->njk + (size_t) a * J, na, (size_t) J * sizeof(int));
    memcpy(h->njk + (size_t) b * J, nb, (size_t) J * sizeof(int));
    h->sm_counts[0] += 1.0;
}

/* The bookkeeping of an accepted merge of cluster b into a (b's members
 * already moved): the group counts and the weight beta_c = beta_a + beta_b
 * go to a, and the empty b is dropped. */
void mcx_hdp_accepted_merge(mcx_hdp *h, int a, int b, double beta_c)
{
    const int J = h->J;
    int *ra = h->njk + (size_t) a * J, *rb = h->njk + (size_t) b * J;
    for (int g = 0; g < J; g++) {
        ra[g] += rb[g];
        rb[g] = 0;
    }
    h->beta[a] = beta_c;
    h->beta[b] = 0.0;
    mcx_hdp_drop_cluster(h, b);
    h->sm_counts[0] += 1.0;
}
