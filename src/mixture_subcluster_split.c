/*
 * mixture_subcluster_split.c -- split and merge proposals of the
 * sub-cluster sampler (see mixture_subcluster.h).
 *
 * Move (one Metropolis-Hastings step on the partition, repeated `moves`
 * times per sweep): with probability ps(K) = 1 if K = 1 else 1/2 propose
 * to split a cluster drawn uniformly, else to merge a pair drawn uniformly.
 * A split of cluster k (n members) draws the side of each member
 * independently, side 0 with probability rho_i (its sub-cluster), so
 *   Q_k(A, B) = prod_i rho_i(s_i) + prod_i rho_i(1 - s_i)
 * (both labelings give the same two clusters).  With the DP / Pitman-Yor
 * prior (Pitman 2006, eq. 3.6) and the marginal likelihoods m(.):
 *   log [p(split) / p(k)] = log(alpha + K d) + lgamma(n_A - d) + lgamma(n_B - d)
 *       - lgamma(n - d) - lgamma(1 - d) + log m(A) + log m(B) - log m(k),
 *   split: log q = log ps(K) - log K + log Q_k(A, B),
 *          reverse log q = log(1 - ps(K + 1)) - log(K (K + 1) / 2),
 *   merge: the reverse of a split of the union (rho from the union).
 * The sub-clusters (rho) are a deterministic function of the member set:
 * mean and principal axis (two power iterations), Lloyd 2-means steps (at most 8, until a fixed point)
 * from mean +- sd along the axis, then rho_i = logistic(beta / 2
 * (|x_i - c_1|^2 - |x_i - c_0|^2)) with beta the inverse within-sub-cluster
 * variance per coordinate.  Members are visited in index order and sums
 * are formed per block of MCX_BLOCK members, added in block order, so the
 * same set gives the same rho in both directions for any thread count
 * (mixture_subcluster_pass.c).
 *
 * Thinned splits: a split of a cluster of n > t = s->thin members is made
 * with probability f = t / n, and else skipped, when the sub-clusters
 * fitted to it say that it is one cluster: the hard 2-means halves of the
 * fitted members (at most SC_FIT_MAX) have a lower partition prior x
 * marginal likelihood apart than together (subsample_gain() < 0); else f =
 * 1.  Merges are always made.  So q(split) carries the factor f and its
 * reverse merge none: log f is subtracted from the split's log ratio and
 * added to the merge's, f computed from the union, which is the same in
 * both directions (its members in index order; the merge fits the same
 * sub-clusters for its reverse split's Q anyway).  Why: at N = 1e7 the
 * sides pass over a cluster of 2e6 members cost about 90 ms, twice a
 * sweep, for splits of single Gaussian clusters that are never accepted;
 * a cluster holding several clusters is still split as often as before,
 * and the two pieces of a cut cluster (which look like one) merge as
 * readily as before (their merge gains thousands of nats; log f is a few).
 */
#include <string.h>
#include <math.h>
#include <R_ext/Random.h>
#include <Rmath.h>
#include "mixture_subcluster.h"

/* Share of the uniform component of the split proposal (sides by fair coins). */
#define UNIFORM_SHARE 0.5

/* log of exp(a) + exp(b) */
static double log_add(double a, double b)
{
    double mx = a > b ? a : b;
    return mx + log(exp(a - mx) + exp(b - mx));
}

/* log Q(A, B): the probability that the split proposal of the union gives
 * the two sides (sums[0], sums[1]: log rho of both labelings; n members). */
static double log_q_sides(const double *sum, int n)
{
    return log_add(log_add(sum[0], sum[1]) + log(1.0 - UNIFORM_SHARE),
                   log(UNIFORM_SHARE) + (1.0 - n) * M_LN2);
}

double mcx_sc_log_prior_split(const mcx_partition_prior *p, int K, int nA, int nB)
{
    double d = p->discount;
    return log(p->alpha + K * d) + lgammafn(nA - d) + lgammafn(nB - d)
        - lgammafn(nA + nB - d) - lgammafn(1.0 - d);
}

/* log p(two groups) - log p(one group) (partition prior x marginal
 * likelihood, without the factor alpha + K d, which differs between the
 * two directions of a move) of the hard 2-means halves (nearest of the
 * centres s->cen + 2d, + 3d) of the members the sub-clusters of the n
 * members in s->mem were fitted to (every stride-th, as
 * mcx_sc_subclusters(); called right after it).  Their raw moments in one
 * plain serial pass (at most s->fit_max members, read from the gathered
 * rows s->fitx when there are), turned into statistics by the family's
 * moments hook (s->moments, non-NULL). */
static double subsample_gain(const mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p,
                             int n)
{
    int d = m->dim, fm = s->fit_max, stride = n > fm ? (n + fm - 1) / fm : 1;
    int nmem = (n + stride - 1) / stride, rows = s->fitx != NULL && stride > 1;
    size_t ms = mcx_moments_size(d), ts = rows ? 1 : mcx_mix_xstep(m);
    double *mo = s->gmo, *c0 = s->cen + 2 * d, *c1 = s->cen + 3 * d;
    mcx_moments_clear(mo, d);
    mcx_moments_clear(mo + ms, d);
    for (int j = 0; j < nmem; j++) {
        const double *x = rows ? s->fitx + (size_t) j * d
                               : mcx_mix_xs(m, s->mem[(size_t) j * stride]);
        double e0 = 0.0, e1 = 0.0;
        for (int t = 0; t < d; t++) {
            double a = x[t * ts] - c0[t], b = x[t * ts] - c1[t];
            e0 += a * a;
            e1 += b * b;
        }
        mcx_moments_add(mo + (e1 < e0 ? ms : 0), x, ts, d);
    }
    double n0 = mo[0], n1 = mo[ms];
    if (n0 == 0.0 || n1 == 0.0) return -INFINITY;        /* one group: no split in sight */
    mcx_moments_finish(mo, d);
    mcx_moments_finish(mo + ms, d);
    double *st = s->ss, lm[3];
    for (int g = 0; g < 2; g++) {
        s->moments(m->hyper, st, mo + (size_t) g * ms);
        lm[g] = m->fam->log_marginal(m->hyper, st, m->work);
    }
    mcx_moments_pool(mo, mo + ms, d);                      /* the union */
    s->moments(m->hyper, st, mo);
    lm[2] = m->fam->log_marginal(m->hyper, st, m->work);
    double dd = p->discount;
    return lgammafn(n0 - dd) + lgammafn(n1 - dd) - lgammafn(n0 + n1 - dd) - lgammafn(1.0 - dd)
        + lm[0] + lm[1] - lm[2];
}

/* Fit the sub-clusters of the n members in s->mem; returns log f, f the
 * probability that a split of them is made (see the top of this file;
 * below 1 only with s->thin > 0 and the family's moments hook). */
static double fit_log_share(const mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p,
                            int n)
{
    mcx_sc_subclusters(m, s, n, s->sum);
    double lf = mcx_sc_log_share(s, n);
    if (lf == 0.0 || s->moments == NULL || subsample_gain(m, s, p, n) >= 0.0) return 0.0;
    return lf;
}

/* The sides of the n members, their sub-clusters fitted. */
static double split_sides(const mcx_mix *m, mcx_subcluster *s, int n)
{
    double *sum = s->sum;
    s->cen[4 * m->dim + 1] = unif_rand() < UNIFORM_SHARE;
    mcx_sc_pass(m, s, MCX_PASS_SIDES, n, mcx_stream_master() | 1, sum);
    return log_q_sides(sum, n);
}

static double score_sides(const mcx_mix *m, mcx_subcluster *s, int n)
{
    double *sum = s->sum;
    mcx_sc_pass(m, s, MCX_PASS_SIDES, n, 0, sum);
    return log_q_sides(sum, n);
}

double mcx_sc_split_sides(const mcx_mix *m, mcx_subcluster *s, int n)
{
    mcx_sc_subclusters(m, s, n, s->sum);
    return split_sides(m, s, n);
}

double mcx_sc_score_sides(const mcx_mix *m, mcx_subcluster *s, int n)
{
    mcx_sc_subclusters(m, s, n, s->sum);
    return score_sides(m, s, n);
}

static double ps_split(int K)
{
    return K <= 1 ? 1.0 : 0.5;
}

/* Stats of the members on each side into s->sa (side 0) and s->sb (side 1). */
void mcx_sc_side_stats(const mcx_mix *m, mcx_subcluster *s, int nmem)
{
    memcpy(s->sa, m->empty, m->sstride * sizeof(double));
    memcpy(s->sb, m->empty, m->sstride * sizeof(double));
    mcx_sc_group_stats(m, s, nmem, s->mem, NULL, s->side, 2, s->sa);
}

int mcx_sc_apply_split(mcx_mix *m, const mcx_subcluster *s, int k, int n, int nA, int nB,
                       const double *sa, const double *sb)
{
    int c = mcx_mix_new_cluster(m);
    memcpy(mcx_mix_stats(m, k), sa, m->sstride * sizeof(double));
    memcpy(mcx_mix_stats(m, c), sb, m->sstride * sizeof(double));
    m->size[k] = nA;
    m->size[c] = nB;
    for (int j = 0; j < n; j++)
        if (s->side[j]) m->z[s->mem[j]] = c;
    return c;
}

static void propose_split(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int K = m->K, k = (int) (unif_rand() * K);
    if (k >= K) k = K - 1;
    int n = mcx_sc_members(m, s, k, k);
    double *sum = s->sum;
    s->counts[1] += 1;
    if (n < 2) return;
    double lf = fit_log_share(m, s, p, n);
    if (mcx_sc_thinned_out(lf)) return;
    double lQ = split_sides(m, s, n);
    int nB = (int) sum[2], nA = n - nB;
    if (nA == 0 || nB == 0) return;
    mcx_sc_side_stats(m, s, n);
    const void *h = m->hyper;
    double lr = mcx_sc_log_prior_split(p, K, nA, nB) + m->fam->log_marginal(h, s->sa, m->work)
        + m->fam->log_marginal(h, s->sb, m->work)
        - m->fam->log_marginal(h, mcx_mix_stats(m, k), m->work)
        + log(1.0 - ps_split(K + 1)) - log(0.5 * K * (K + 1.0))
        - (log(ps_split(K)) - log((double) K) + lQ) - lf;
    if (!(lr >= 0.0 || log(unif_rand()) < lr)) return;
    mcx_sc_apply_split(m, s, k, n, nA, nB, s->sa, s->sb);
    s->counts[0] += 1;
}

static void propose_merge(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int K = m->K;
    int a = (int) (unif_rand() * K), b = (int) (unif_rand() * (K - 1));
    if (a >= K) a = K - 1;
    if (b >= K - 1) b = K - 2;
    if (b >= a) b++;
    s->counts[1] += 1;
    const void *h = m->hyper;
    double *su = s->sa;
    int n = 0;
    memcpy(su, mcx_mix_stats(m, a), m->sstride * sizeof(double));
    if (s->combine != NULL)
        s->combine(h, su, mcx_mix_stats(m, b), m->work);
    else {
        n = mcx_sc_members(m, s, a, b);
        for (int j = 0; j < n; j++)
            if (s->side[j]) m->fam->stats_add(h, su, mcx_mix_x(m, s->mem[j]), m->work);
    }
    double lr = -mcx_sc_log_prior_split(p, K - 1, m->size[a], m->size[b])
        + m->fam->log_marginal(h, su, m->work)
        - m->fam->log_marginal(h, mcx_mix_stats(m, a), m->work)
        - m->fam->log_marginal(h, mcx_mix_stats(m, b), m->work)
        + log(ps_split(K - 1)) - log(K - 1.0)
        - (log(1.0 - ps_split(K)) - log(0.5 * K * (K - 1.0)));
    /* log Q <= 0: a merge whose prior and likelihood ratio alone is below
     * log u is rejected without the sub-cluster passes over the union (u
     * is the same draw either way: the passes draw nothing) */
    double lu = log(unif_rand());
    if (!(lr >= 0.0 || lu < lr)) return;
    if (s->combine != NULL) n = mcx_sc_members(m, s, a, b);
    lr += fit_log_share(m, s, p, n);           /* the reverse split's thinning */
    lr += score_sides(m, s, n);
    if (!(lr >= 0.0 || lu < lr)) return;
    memcpy(mcx_mix_stats(m, a), su, m->sstride * sizeof(double));
    m->size[a] += m->size[b];
    m->size[b] = 0;
    for (int j = 0; j < n; j++)
        if (s->side[j]) m->z[s->mem[j]] = a;
    mcx_mix_delete_cluster(m, b);
    s->counts[0] += 1;
}

void mcx_subcluster_moves(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    for (int t = 0; t < s->moves; t++) {
        if (m->K < 1) return;
        if (unif_rand() < ps_split(m->K))
            MCX_MIX_MOVE(m, "subcluster: 2-means split", propose_split(m, s, p));
        else MCX_MIX_MOVE(m, "subcluster: 2-means merge", propose_merge(m, s, p));
    }
}
