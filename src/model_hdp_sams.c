/*
 * model_hdp_sams.c -- sequentially allocated split / merge moves of the
 * HDP's global clusters with merge partners chosen by their merge gain
 * (the HDP counterpart of mixture_subcluster_sams.c, whose launch, orders
 * and partner weights it shares), run after the sub-cluster moves of the
 * kind MCX_HDP_SUBCLUSTER (model_hdp_splitmerge.c).
 *
 * Why: a split along the 2-means sub-clusters of a cluster holding several
 * true clusters can cut one of them in two; Gibbs sampling then blurs the
 * border between the pieces, and their merge (the reverse of a split of
 * the union) is accepted only when the split proposal of the union gives
 * back those two pieces.  The 2-means sides of the union almost never do;
 * a sequential allocation (Dahl 2003) in which each point is scored
 * against the two sides built from the points placed before it does so
 * about as often as the pieces are a typical split of the union.  Merge
 * partners drawn by their gain make the merges tried the ones that can be
 * accepted.
 *
 * Why not persistent sub-cluster labels (Chang and Fisher 2013, "Parallel
 * sampling of DP mixture models using sub-cluster splits"; Chang and
 * Fisher 2014 for the HDP), whose merge sets the sub-clusters of the union
 * to the two merged clusters so that the reverse split reproduces them
 * with probability 1: for the labels s to be auxiliary variables of an
 * exact sampler they need a conditional law pi(s | z, x) (the posterior of
 * z then being the marginal), and the merge of A and B is then accepted
 * with a ratio that carries pi(s = {A, B} | union): the probability that
 * this law gives that very cut, as for a proposal drawn afresh from the
 * same law (q_S below for the sequential allocation): storing the labels
 * gains nothing for the merges that undo a cut.
 * A law that makes s informative (the two-component posterior of the
 * cluster, refined by restricted Gibbs) has a normaliser that changes
 * whenever a Gibbs step moves a point between clusters, and a law with a
 * known normaliser (sides drawn from fixed or freshly drawn sub-cluster
 * parameters) has its prior as the marginal of those parameters, which
 * makes the stored sub-clusters no better than fresh ones.  Leaving the
 * term out, as Chang and Fisher do, changes the stationary distribution.
 * So the stored state here is the partition alone, the 2-means
 * sub-clusters are recomputed from the members (mixture_subcluster.h), and
 * the merges that undo a cut are made likely by the choice of partner and
 * the sequential allocation.
 *
 * Move (Metropolis-Hastings on (z, beta) given the concentrations; the
 * target and the terms of log r are those of model_hdp_splitmerge.c):
 *  - with probability ps(K) (1 if K = 1, else SAMS_SPLIT_SHARE) a split of
 *    a cluster c drawn uniformly, of weight beta_c: first the weight share
 *    w ~ Uniform(0, 1) (beta_A = w beta_c, beta_B = (1 - w) beta_c), then
 *    launch points i != j drawn uniformly (ordered) among its n members,
 *    the others S in the order of mcx_sc_sams_launch() (uniform,
 *    outside-in, inside-out from j, or local around j); i founds side A,
 *    j side B, and each point x of S (group g) goes to side s with
 *    probability proportional to
 *      (n_{g s} + alpha beta_s) p(x | side s so far)
 *    (collapsed predictive, n_{g s} the members of group g on side s so
 *    far: the direct-assignment conditional of Teh et al. 2006, eq. 32,
 *    restricted to the two sides), q_S the product of these
 *    probabilities.  Drawing w first lets the allocation follow the
 *    groups' urns with the weights of the proposed state: the prior cost
 *    of a split into two clusters that share the groups unevenly (the
 *    duplicate clusters a Gibbs scan from few clusters creates) is then
 *    reproduced by q_S;
 *  - else a merge: cluster a drawn uniformly, its partner b != a with
 *    probability w_a(b) = 1/2 1/(K-1) + 1/2 softmax_b G(a, b), G a merge
 *    gain that depends on the two clusters' stats and sizes only (the log
 *    marginal likelihood gain and the DP(gamma) partition prior,
 *    mcx_sc_sams_merge_pick()); which of the pair is side A is a fair coin,
 *    so the unordered pair with its orientation has probability
 *    (1 - ps(K)) (w_a(b) + w_b(a)) / (2 K); launch points i in A, j in B
 *    uniformly; w = beta_A / (beta_A + beta_B); q_S the probability that
 *    the allocation in the drawn order gives back A and B.
 * For the split of c (K clusters before) into A and B:
 *   log r = split terms + group terms without the density of w (w is
 *           uniform; model_hdp_splitmerge.c)
 *         + log[(1 - ps(K + 1)) (w_A(B) + w_B(A)) / (2 (K + 1) n_A n_B)]
 *         - log[ps(K) / (K n (n - 1))] - log q_S,
 * the partner weights of the reverse merge computed in the state after
 * the split; the merge's log r is the inverse.  The order of S is drawn
 * independently of the state given the union and the launch points, so
 * each (launch, order) pair is a pair of reversible moves and their
 * mixture is reversible (Tierney 1994, sec. 2.3).  As q_S <= 1 a merge is
 * rejected without the allocation pass when log u exceeds the rest of its
 * log r, and the pass stops once the running log q_S makes acceptance
 * impossible.  Checked against the enumeration of all partitions in
 * tests/testthat/test-hdp.R (the moves alone).
 */
#include <string.h>
#include <math.h>
#include <R_ext/Random.h>
#include <Rmath.h>
#include "model_hdp.h"

/* The share of splits among these proposals is that of the DP's
 * (mcx_sc_ps_sams()): the 2-means moves make the useful splits, these are
 * the reverse moves of the merges. */

/* The allocation pass over s->mem[0 .. nS-1] (in that order), sides A
 * (st[0]) and B (st[1]) holding their launch points, h->side_nj their
 * members per group.  force < 0: draw each side into s->side[r]; else put
 * r on side B iff z[mem[r]] == force.  Members from position nfree on go
 * to side A with probability 1 (the local order).  a0, a1 = alpha beta_A,
 * alpha beta_B.
 * Returns log q_S, or -INFINITY as soon as it falls below `floor`. */
static double allocate(mcx_hdp *h, int nS, int nfree, double *st[2], int *n, int force,
                       double a0, double a1, double floor)
{
    mcx_mix *m = &h->mix;
    mcx_subcluster *s = h->sc;
    const mcx_family *f = m->fam;
    const void *hy = m->hyper;
    const int J = h->J;
    int *cnt = h->side_nj;
    double lq = 0.0;
    for (int r = 0; r < nS; r++) {
        int k = s->mem[r], g = h->group[k];
        const double *x = mcx_mix_x(m, k);
        int side;
        if (r >= nfree) {
            if (force >= 0 && m->z[k] == force) return -INFINITY;
            if (force < 0) s->side[r] = 0;
            side = 0;
        } else {
            double l0 = f->log_predictive(hy, st[0], x, m->work) + log(cnt[g] + a0);
            double l1 = f->log_predictive(hy, st[1], x, m->work) + log(cnt[J + g] + a1);
            double dl = l1 - l0;                       /* log odds of side B */
            if (force >= 0) side = m->z[k] == force;
            else {
                side = unif_rand() * (1.0 + exp(-dl)) < 1.0 ? 1 : 0;
                s->side[r] = (unsigned char) side;
            }
            lq -= mcx_softplus(side ? -dl : dl);
            if (lq < floor) return -INFINITY;
        }
        f->stats_add(hy, st[side], x, m->work);
        n[side]++;
        cnt[(size_t) side * J + g]++;
    }
    return lq;
}

/* Side counts per group of the two launch points. */
static void launch_sides(mcx_hdp *h, int i, int j)
{
    mcx_hdp_reset_sides(h);
    h->side_nj[h->group[i]]++;
    h->side_nj[h->J + h->group[j]]++;
}

static void sams_split(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    mcx_subcluster *s = h->sc;
    const int J = h->J;
    int k, pi, pj;
    int nm = mcx_sc_sams_pick(m, s, &k, &pi, &pj);
    if (nm < 2) return;
    double *st[2] = {s->ss, s->ss + m->sstride};
    int n[2];
    int nfree = mcx_sc_sams_launch(m, s, nm, pi, pj, st, n);
    int i = s->mem[nm - 2], j = s->mem[nm - 1];
    double beta_c = h->beta[k], w = unif_rand(), ab = h->grp.alpha * beta_c;
    if (!(w > 0.0 && w < 1.0) || !(w * beta_c > 0.0) || !((1.0 - w) * beta_c > 0.0)) return;
    launch_sides(h, i, j);
    double lq = allocate(h, nm - 2, nfree, st, n, -1, ab * w, ab * (1.0 - w), -INFINITY);
    const int *cA = h->side_nj, *cB = h->side_nj + J;
    const mcx_family *f = m->fam;
    double lA = f->log_marginal(m->hyper, st[0], m->work);
    double lB = f->log_marginal(m->hyper, st[1], m->work);
    double lqs, lqm = mcx_sc_sams_split_reverse_lq(m, s, &h->top, k, st, n, lA, lB, &lqs);
    double lr = mcx_hdp_split_terms(h, w, st[0], st[1], mcx_mix_stats(m, k)) +
        mcx_hdp_group_lgamma(h, cA, cB, beta_c, w) + lqm - lqs - lq;
    if (!(log(unif_rand()) < lr)) return;
    /* accept: side A stays in slot k, side B becomes cluster c */
    int c = mcx_sc_sams_apply_split(m, s, k, nm, st, n);
    mcx_hdp_accepted_split(h, c, k, w, beta_c, cA, c, cB);
}

static void sams_merge(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    mcx_subcluster *s = h->sc;
    const int J = h->J, K = m->K;
    if (K < 2) return;
    int a, b;
    double lqs, lqm = mcx_sc_sams_merge_pick(m, s, &h->top, &a, &b, &lqs);
    /* orientation: a fair coin makes b side A */
    if (unif_rand() < 0.5) {
        int t = a;
        a = b;
        b = t;
    }
    int na = m->size[a], nb = m->size[b], nm = na + nb;
    const double *sa = mcx_mix_stats(m, a), *sb = mcx_mix_stats(m, b);
    double *su = s->ss + 2 * m->sstride;               /* the merged stats */
    memcpy(su, sa, m->sstride * sizeof(double));
    if (s->combine != NULL) {
        s->combine(m->hyper, su, sb, m->work);
    } else {
        for (int r = 0; r < m->n; r++)
            if (m->z[r] == b) m->fam->stats_add(m->hyper, su, mcx_mix_x(m, r), m->work);
    }
    double beta_c = h->beta[a] + h->beta[b], w = h->beta[a] / beta_c;
    const int *ra = h->njk + (size_t) a * J, *rb = h->njk + (size_t) b * J;
    double base = -(mcx_hdp_split_terms(h, w, sa, sb, su) +
                    mcx_hdp_group_lgamma(h, ra, rb, beta_c, w)) + lqs - lqm;
    double lu = log(unif_rand());
    if (!(lu < base)) return;                /* q_S <= 1: rejected whatever the pass gives */
    mcx_sc_members(m, s, a, b);
    /* launch points: the ia-th member of a and the ib-th of b */
    int ia = (int) R_unif_index((double) na), ib = (int) R_unif_index((double) nb);
    int pi = -1, pj = -1;
    for (int r = 0, ca = 0, cb = 0; r < nm && (pi < 0 || pj < 0); r++) {
        if (s->side[r]) {
            if (cb++ == ib) pj = r;
        } else if (ca++ == ia) pi = r;
    }
    double *st[2] = {s->ss, s->ss + m->sstride};
    int n[2];
    int nfree = mcx_sc_sams_launch(m, s, nm, pi, pj, st, n);
    launch_sides(h, s->mem[nm - 2], s->mem[nm - 1]);
    double ab = h->grp.alpha * beta_c;
    double lq = allocate(h, nm - 2, nfree, st, n, b, ab * w, ab * (1.0 - w), lu - base);
    if (!(lu < base + lq)) return;
    /* accept: b moves into a, then b (empty, weight 0) is dropped */
    memcpy(mcx_mix_stats(m, a), su, m->sstride * sizeof(double));
    m->size[a] = nm;
    m->size[b] = 0;
    for (int r = 0; r < nm; r++)
        if (m->z[s->mem[r]] == b) m->z[s->mem[r]] = a;
    mcx_hdp_accepted_merge(h, a, b, beta_c);
}

void mcx_hdp_gain_sams(mcx_hdp *h)
{
    for (int t = 0; t < h->gain_moves; t++) {
        if (h->mix.K < 1 || h->mix.n < 2) return;
        mcx_sc_reserve(h->sc, h->mix.K + 1);
        h->sm_counts[1] += 1.0;
        if (unif_rand() < mcx_sc_ps_sams(h->mix.K)) sams_split(h);
        else sams_merge(h);
    }
}
