/*
 * model_hdp_splitmerge.c -- split-merge moves of the global clusters
 * (dishes) of the HDP mixture in the direct-assignment representation
 * (model_hdp.c), for any conjugate family.  The proposals are those of the
 * DP split-merge sampler (mixture_splitmerge.h): the restricted Gibbs
 * proposal of Jain and Neal (2004, JCGS 13) or the sequential allocation
 * (SAMS) of Dahl (2003), with the HDP's own allocation weights and
 * acceptance ratio; for split-merge moves in the HDP see also Wang and
 * Blei (2012), "A split-merge MCMC algorithm for the hierarchical
 * Dirichlet process", arXiv:1201.1657.
 *
 * Target.  Given the concentrations, the state is the partition z of the
 * observations into K clusters with a global weight beta_k attached to
 * each, and the weight beta_u of the unrepresented atoms.  Summing the
 * table counts out of the Chinese restaurant franchise (Teh et al. 2006,
 * eqs. 36 and 40; Antoniak 1974) gives the joint density
 *   p(z, beta) prop. to gamma^K beta_u^(gamma-1) prod_k beta_k^(-1)
 *     prod_j prod_k Gamma(alpha beta_k + n_jk) / Gamma(alpha beta_k)
 *     prod_k L(x_k),
 * L the family's marginal likelihood of a cluster's members: expanding
 * Gamma(a + n) / Gamma(a) = sum_m s(n, m) a^m and integrating beta over
 * the simplex gives back the partition probability
 *   sum_m prod_j [alpha^(m_j.) Gamma(alpha) / Gamma(alpha + n_j)]
 *   prod_jk s(n_jk, m_jk) gamma^K Gamma(gamma) / Gamma(gamma + m_..)
 *   prod_k Gamma(m_.k)
 * (the one checked against enumeration in tests/testthat/test-hdp.R), and
 * the Gibbs steps of model_hdp.c leave it invariant.
 *
 * Moves.  Each proposal is a split, a merge or (below, with sequential
 * allocation only; a no-op otherwise) a reallocation, each with
 * probability 1/3:
 *   split: a cluster c uniformly among the K, an ordered pair (i, j) of
 *     its members uniformly; the members other than i and j are allocated
 *     to side A (with i) or B (with j) by one restricted pass whose
 *     weights for observation k of group j_k are
 *       (n_{j_k, side}^-k + alpha beta_c / 2) f(x_k | side),
 *     then w ~ Beta(M_A, M_B) splits the weight: beta_A = w beta_c,
 *     beta_B = (1 - w) beta_c, where M_s = sum_j E[m_js] is the expected
 *     table count of side s, E[m] = a (psi(a + n) - psi(a)) with
 *     a = alpha beta_c / 2 (the Antoniak mean): close to the conditional
 *     Dir(m_A, m_B) of w given the tables;
 *   merge: an ordered pair of clusters (A, B) uniformly among K(K-1), an
 *     observation i of A and j of B uniformly; A and B become one cluster
 *     with weight beta_A + beta_B.
 * A merge is the reverse of the split with the same (i, j) (a
 * reversible-jump pair, Green 1995, with Jacobian
 * |d(beta_A, beta_B) / d(beta_c, w)| = beta_c).  The selection
 * probabilities depend on the state (K and the cluster sizes) and enter
 * the ratio; for the split of c into A, B (K clusters before):
 *   log r = log gamma - log w - log(1 - w)
 *         + sum_j [g(alpha beta_A, n_jA) + g(alpha beta_B, n_jB)
 *                  - g(alpha beta_c, n_jc)]
 *         + log L(A) + log L(B) - log L(c)
 *         + log(n_c (n_c - 1)) - log(n_A n_B) - log(K + 1)
 *         - log q(sides) - log Beta(w; M_A, M_B),
 * g(a, n) = log Gamma(a + n) - log Gamma(a); the merge ratio is its
 * inverse, q(sides) being the probability that the restricted pass
 * (forced) gives the current split.  beta_u does not change.  As in the
 * DP moves, u is drawn first and a merge whose ratio without q already
 * rejects it skips the pass (q <= 1): rejected merges cost O(J).
 */
#include <string.h>
#include <Rmath.h>
#include "model_hdp.h"

/* Allocation weight of observation k on side c: log(n_{j c} - in_c + a). */
static double side_log_weight(void *ctx, int k, int c, int in_c, const int *n)
{
    (void) n;
    const mcx_hdp *h = ctx;
    return log(h->side_nj[(size_t) c * h->J + h->group[k]] - in_c + h->side_a);
}

static void side_moved(void *ctx, int k, int from, int to)
{
    mcx_hdp *h = ctx;
    int g = h->group[k];
    if (from >= 0) h->side_nj[(size_t) from * h->J + g]--;
    if (to >= 0) h->side_nj[(size_t) to * h->J + g]++;
}

void mcx_hdp_sm_setup(mcx_hdp *h, int moves, int kind, int t, int sams)
{
    h->sm_moves = moves;
    h->sm_kind = kind;
    /* kind MCX_HDP_SUBCLUSTER: `sams` counts the sequentially allocated
     * moves with merge partners by gain (model_hdp_sams.c) */
    h->gain_moves = kind == MCX_HDP_SUBCLUSTER && sams > 0 ? sams : 0;
    if (moves <= 0 && h->gain_moves <= 0) return;
    h->side_nj = mcx_alloc(2 * (size_t) h->J, sizeof(int));
    if (kind == MCX_HDP_SUBCLUSTER) {
        h->sc = mcx_alloc(1, sizeof(mcx_subcluster));
        mcx_subcluster_init(h->sc, &h->mix, moves, 1);
        return;
    }
    mcx_sm_init(&h->sm, &h->mix, t, sams);
    h->order = mcx_alloc((size_t) (h->mix.n > 0 ? h->mix.n : 1), sizeof(int));
    h->sm.prior.log_weight = side_log_weight;
    h->sm.prior.moved = side_moved;
    h->sm.prior.ctx = h;
}

/* The anchor-selection terms of a restricted-pass split (log P(reverse
 * merge) - log P(split) without the proposal passes): sides of nA and nB
 * members, K_split clusters after the split. */
static double anchor_terms(int nA, int nB, int K_split)
{
    int nc = nA + nB;
    return log((double) nc) + log(nc - 1.0) - log((double) nA) - log((double) nB) -
        log((double) K_split);
}

/* Remove S[ri] and S[rj] (ri != rj) from S[0 .. nS-1], keeping the order. */
static int drop_two(int *S, int nS, int ri, int rj)
{
    int o = 0;
    for (int r = 0; r < nS; r++)
        if (r != ri && r != rj) S[o++] = S[r];
    return o;
}

/* Position in S of the r-th member (0-based) of cluster c. */
static int nth_member(const mcx_mix *m, const int *S, int nS, int c, int r)
{
    for (int q = 0; q < nS; q++)
        if (m->z[S[q]] == c && r-- == 0) return q;
    MCX_INTERNAL("cluster member not found");
    return -1;
}

static void propose_split(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    mcx_sm *s = &h->sm;
    const int J = h->J, K = m->K;
    int c = (int) (unif_rand() * K);
    int nc = m->size[c];
    if (nc < 2) return;
    int nS = mcx_sm_collect(m, s, -1, -1, c, c);
    int ri = (int) (unif_rand() * nc), rj = (int) (unif_rand() * (nc - 1));
    if (rj >= ri) rj++;
    int i = s->S[ri], j = s->S[rj], n[2];
    nS = drop_two(s->S, nS, ri, rj);
    double beta_c = h->beta[c];
    h->side_a = 0.5 * h->grp.alpha * beta_c;
    mcx_hdp_reset_sides(h);
    mcx_sm_launch(m, s, i, j, nS, n);
    double lq = mcx_sm_scan(m, s, nS, n, -1, 1);
    const int *nA = h->side_nj, *nB = h->side_nj + J;
    double w = mcx_hdp_draw_w(h, nA, nB, beta_c);
    if (!(w > 0.0 && w < 1.0) || !(w * beta_c > 0.0) || !((1.0 - w) * beta_c > 0.0)) return;
    double lr = mcx_hdp_split_terms(h, w, s->st[0], s->st[1], mcx_mix_stats(m, c)) +
        anchor_terms(n[0], n[1], K + 1) + mcx_hdp_group_terms(h, nA, nB, beta_c, w) - lq;
    if (!(log(unif_rand()) < lr)) return;
    /* accept: side A becomes the new cluster K, side B stays in slot c */
    int cn = mcx_sm_apply_split(m, s, i, nS);
    mcx_hdp_accepted_split(h, cn, cn, w, beta_c, nA, c, nB);
}

static void propose_merge(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    mcx_sm *s = &h->sm;
    const int J = h->J, K = m->K;
    if (K < 2) return;
    int a = (int) (unif_rand() * K), b = (int) (unif_rand() * (K - 1));
    if (b >= a) b++;
    int na = m->size[a], nb = m->size[b], nS = -1, n[2];
    double lu = log(unif_rand());
    double beta_c = h->beta[a] + h->beta[b], w = h->beta[a] / beta_c;
    /* the merged stats: i, j only matter when the family has no combine */
    int i0 = -1, j0 = -1;
    if (s->combine == NULL) {
        for (int k = 0; k < m->n && (i0 < 0 || j0 < 0); k++) {
            if (i0 < 0 && m->z[k] == a) i0 = k;
            if (j0 < 0 && m->z[k] == b) j0 = k;
        }
    }
    mcx_sm_merged_stats(m, s, i0, j0, a, b, &nS);
    double la = -(mcx_hdp_split_terms(h, w, mcx_mix_stats(m, a), mcx_mix_stats(m, b), s->sm) +
                  anchor_terms(na, nb, K) +
                  mcx_hdp_group_terms(h, h->njk + (size_t) a * J, h->njk + (size_t) b * J, beta_c, w));
    if (!(lu < la)) return;
    /* q: the restricted pass forced to the current split, from uniformly
     * chosen anchors i in a and j in b */
    nS = mcx_sm_collect(m, s, -1, -1, a, b);
    int ri = nth_member(m, s->S, nS, a, (int) (unif_rand() * na));
    int rj = nth_member(m, s->S, nS, b, (int) (unif_rand() * nb));
    int i = s->S[ri], j = s->S[rj];
    nS = drop_two(s->S, nS, ri, rj);
    h->side_a = 0.5 * h->grp.alpha * beta_c;
    mcx_hdp_reset_sides(h);
    mcx_sm_launch(m, s, i, j, nS, n);
    if (!(lu < la + mcx_sm_scan(m, s, nS, n, a, 1))) return;
    /* accept: b moves into a, then b (empty, weight 0) is dropped */
    mcx_sm_apply_merge(m, s, j, a, b, nS);
    mcx_hdp_accepted_merge(h, a, b, beta_c);
}

/* Reallocation of two clusters (Jain and Neal's restricted proposal
 * between two existing clusters, used with sequential allocation): an
 * ordered pair (a, b) drawn uniformly among the K (K - 1), anchors i in a
 * and j in b uniformly; the union is re-split by the proposal pass (A' with
 * i, B' with j) and the weight beta_c = beta_a + beta_b is re-split by
 * w' ~ Beta(M_A', M_B').  The reverse move picks (A', B') and the same
 * anchors, the pass in the same order forced to (a, b), and w.  With the
 * map (beta_a, beta_b) <-> (beta_c, w) in both directions the Jacobians
 * cancel:
 *   log r = T(A', B', w') - T(a, b, w) + log(n_a n_b) - log(n_A' n_B')
 *           + log q(a, b) - log q(A', B'),
 * T the split terms plus the group terms of a split of the union (the
 * union's own terms cancel).  It moves a cluster cut in two by an earlier
 * split back together with one of its parts. */
static void propose_realloc(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    mcx_sm *s = &h->sm;
    const int J = h->J, K = m->K;
    if (K < 2 || !s->sams) return;
    int a = (int) (unif_rand() * K), b = (int) (unif_rand() * (K - 1));
    if (b >= a) b++;
    int na = m->size[a], nb = m->size[b], n[2];
    int nS = mcx_sm_collect(m, s, -1, -1, a, b);
    int ri = nth_member(m, s->S, nS, a, (int) (unif_rand() * na));
    int rj = nth_member(m, s->S, nS, b, (int) (unif_rand() * nb));
    int i = s->S[ri], j = s->S[rj];
    nS = drop_two(s->S, nS, ri, rj);
    double beta_c = h->beta[a] + h->beta[b], w = h->beta[a] / beta_c;
    const double *empty = m->empty;
    double t_old = mcx_hdp_split_terms(h, w, mcx_mix_stats(m, a), mcx_mix_stats(m, b), empty) +
        mcx_hdp_group_terms(h, h->njk + (size_t) a * J, h->njk + (size_t) b * J, beta_c, w);
    h->side_a = 0.5 * h->grp.alpha * beta_c;
    /* the order of the passes, kept for both */
    mcx_hdp_reset_sides(h);
    mcx_sm_launch(m, s, i, j, nS, n);
    memcpy(h->order, s->S, (size_t) nS * sizeof(int));
    double lq_old = mcx_sm_scan(m, s, nS, n, a, 1);
    /* the proposal pass from the same launch: sides and anchors reset,
     * the order restored (launch() drew a new one) */
    mcx_hdp_reset_sides(h);
    mcx_sm_launch(m, s, i, j, nS, n);
    memcpy(s->S, h->order, (size_t) nS * sizeof(int));
    double lq_new = mcx_sm_scan(m, s, nS, n, -1, 1);
    const int *nA = h->side_nj, *nB = h->side_nj + J;
    double w2 = mcx_hdp_draw_w(h, nA, nB, beta_c);
    if (!(w2 > 0.0 && w2 < 1.0) || !(w2 * beta_c > 0.0) || !((1.0 - w2) * beta_c > 0.0))
        return;
    double lr = mcx_hdp_split_terms(h, w2, s->st[0], s->st[1], empty) +
        mcx_hdp_group_terms(h, nA, nB, beta_c, w2) - t_old +
        log((double) na) + log((double) nb) - log((double) n[0]) - log((double) n[1]) +
        lq_old - lq_new;
    if (!(log(unif_rand()) < lr)) return;
    /* accept: side A' into slot a, side B' into slot b */
    for (int r = 0; r < nS; r++) {
        int k = s->S[r], to = s->side[k] == 0 ? a : b;
        if (m->z[k] == to) continue;
        mcx_mix_remove(m, k);
        mcx_mix_add(m, k, to);
    }
    h->beta[a] = w2 * beta_c;
    h->beta[b] = (1.0 - w2) * beta_c;
    memcpy(h->njk + (size_t) a * J, nA, (size_t) J * sizeof(int));
    memcpy(h->njk + (size_t) b * J, nB, (size_t) J * sizeof(int));
    h->sm_counts[0] += 1.0;
}

/* ---- sub-cluster proposals ----------------------------------------------
 * The split of cluster k draws the side of each member independently from
 * the two sub-clusters of k, a deterministic function of its members
 * (mixture_subcluster.h), with probability Q(A, B) of the unordered split;
 * w is then drawn as above (the density of w for the labelling (A, B)
 * equals that of 1 - w for (B, A), so the unordered split with its weights
 * has density Q Beta(w; M_A, M_B)).  A split is proposed with probability
 * ps(K) = 1 if K = 1 else 1/2, of a cluster drawn uniformly; a merge of an
 * unordered pair drawn uniformly, its reverse being the split of the union
 * (Q from the union's sub-clusters):
 *   log r(split) = split terms + group terms + log(1 - ps(K + 1))
 *                  - log(K (K + 1) / 2) - log ps(K) + log K - log Q. */
static double ps_split(int K)
{
    return K <= 1 ? 1.0 : 0.5;
}

/* Members per group on each side of s->mem / s->side into side_nj. */
static void count_sides(mcx_hdp *h, int n)
{
    const mcx_subcluster *sc = h->sc;
    mcx_hdp_reset_sides(h);
    for (int r = 0; r < n; r++)
        h->side_nj[(size_t) (sc->side[r] != 0) * h->J + h->group[sc->mem[r]]]++;
}

static void sc_split(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    mcx_subcluster *sc = h->sc;
    const int J = h->J, K = m->K;
    int k = (int) (unif_rand() * K);
    if (k >= K) k = K - 1;
    int n = mcx_sc_members(m, sc, k, k);
    if (n < 2) return;
    double lQ = mcx_sc_split_sides(m, sc, n);
    int nB = (int) sc->sum[2], nA = n - nB;
    if (nA == 0 || nB == 0) return;
    count_sides(h, n);
    const int *cA = h->side_nj, *cB = h->side_nj + J;
    double beta_c = h->beta[k], w = mcx_hdp_draw_w(h, cA, cB, beta_c);
    if (!(w > 0.0 && w < 1.0) || !(w * beta_c > 0.0) || !((1.0 - w) * beta_c > 0.0)) return;
    mcx_sc_side_stats(m, sc, n);
    double lr = mcx_hdp_split_terms(h, w, sc->sa, sc->sb, mcx_mix_stats(m, k)) +
        mcx_hdp_group_terms(h, cA, cB, beta_c, w) +
        log(1.0 - ps_split(K + 1)) - log(0.5 * K * (K + 1.0)) -
        (log(ps_split(K)) - log((double) K) + lQ);
    if (!(log(unif_rand()) < lr)) return;
    /* accept: side 0 stays in slot k, side 1 becomes cluster c */
    int c = mcx_sc_apply_split(m, sc, k, n, nA, nB, sc->sa, sc->sb);
    mcx_hdp_accepted_split(h, c, k, w, beta_c, cA, c, cB);
}

static void sc_merge(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    mcx_subcluster *sc = h->sc;
    const int J = h->J, K = m->K;
    int a = (int) (unif_rand() * K), b = (int) (unif_rand() * (K - 1));
    if (a >= K) a = K - 1;
    if (b >= K - 1) b = K - 2;
    if (b >= a) b++;
    double lu = log(unif_rand());
    double beta_c = h->beta[a] + h->beta[b], w = h->beta[a] / beta_c;
    const int *ra = h->njk + (size_t) a * J, *rb = h->njk + (size_t) b * J;
    /* the merged stats */
    double *su = sc->sa;
    memcpy(su, mcx_mix_stats(m, a), m->sstride * sizeof(double));
    int n = -1;
    if (sc->combine != NULL) {
        sc->combine(m->hyper, su, mcx_mix_stats(m, b), m->work);
    } else {
        n = mcx_sc_members(m, sc, a, b);
        for (int r = 0; r < n; r++)
            if (sc->side[r]) m->fam->stats_add(m->hyper, su, mcx_mix_x(m, sc->mem[r]), m->work);
    }
    /* la: log r without log Q (Q <= 1: lu >= la + 0 rejects whatever Q is) */
    double la = -(mcx_hdp_split_terms(h, w, mcx_mix_stats(m, a), mcx_mix_stats(m, b), su) +
                  mcx_hdp_group_terms(h, ra, rb, beta_c, w) +
                  log(1.0 - ps_split(K)) - log(0.5 * K * (K - 1.0)) -
                  (log(ps_split(K - 1)) - log(K - 1.0)));
    if (!(lu < la)) return;
    if (n < 0) n = mcx_sc_members(m, sc, a, b);
    if (!(lu < la + mcx_sc_score_sides(m, sc, n))) return;
    /* accept: b moves into a, then b (empty, weight 0) is dropped */
    memcpy(mcx_mix_stats(m, a), su, m->sstride * sizeof(double));
    m->size[a] += m->size[b];
    m->size[b] = 0;
    for (int r = 0; r < n; r++)
        if (sc->side[r]) m->z[sc->mem[r]] = a;
    mcx_hdp_accepted_merge(h, a, b, beta_c);
}

void mcx_hdp_split_merge(mcx_hdp *h)
{
    for (int r = 0; r < h->sm_moves; r++) {
        h->sm_counts[1] += 1.0;
        if (h->sm_kind == MCX_HDP_SUBCLUSTER) {
            if (unif_rand() < ps_split(h->mix.K)) sc_split(h);
            else sc_merge(h);
        } else {
            double u = unif_rand();
            if (u < 1.0 / 3.0) propose_split(h);
            else if (u < 2.0 / 3.0) propose_merge(h);
            else propose_realloc(h);
        }
    }
    if (h->sm_kind == MCX_HDP_SUBCLUSTER) mcx_hdp_gain_sams(h);
}
