/*
 * mixture_splitmerge.c -- split-merge moves for Dirichlet / Pitman-Yor
 * process mixtures with conjugate families, with the Pitman-Yor partition
 * prior: the restricted Gibbs proposal of Jain & Neal (2004), "A
 * split-merge Markov chain Monte Carlo procedure for the Dirichlet process
 * mixture model", JCGS 13, sec. 3 (conjugate case), and the sequentially-
 * allocated proposal (SAMS) of Dahl (2003), "An improved merge-split
 * sampler for conjugate Dirichlet process mixture models", Tech. Rep. 1086,
 * Dept. of Statistics, U. of Wisconsin (also Dahl & Newcomb 2022,
 * "Sequentially allocated merge-split samplers for conjugate Bayesian
 * nonparametric models", J. Statist. Comput. Simul. 92, 1487-1511).
 *
 * One proposal: the ordered launch pair i != j, i uniform, then j uniform
 * among the other members of i's cluster with probability PARTNER_SHARE
 * (when it has any), else uniform among all other points (so that splits
 * are proposed often enough when most pairs lie in different clusters:
 * from one cluster holding five true ones, the second and later splits
 * need both points in the same current cluster); the pair's probability
 * P(i, j | state) enters the ratio (log_pair()).  S = the other members of
 * the clusters of i and j.  Both proposals are built by passes over S that
 * put each k in side A (with i) or B (with j), drawing k's side from
 *     P(A) prop. to (n_A^-k - d) p(x_k | A^-k),  P(B) likewise,
 * where A^-k, B^-k hold the points placed so far (k itself excluded).
 *   Restricted Gibbs (Jain-Neal): launch A = {i} + a random half of S,
 *   B = {j} + the rest, then t intermediate restricted Gibbs scans over S
 *   (in index order); the proposal is one more scan.
 *   Sequential allocation (SAMS): A = {i}, B = {j}, S in a uniformly random
 *   order, every k unallocated; the proposal is the one pass that places
 *   the points one at a time (each scored against the sides built so far).
 *   For gaussian_niw in D >= 2 dimensions, half of the SAMS proposals (a
 *   fair coin independent of the state) score the points with a surrogate
 *   family instead, the per-coordinate marginal of the prior
 *   (mcx_sm_surrogate_init()): the same surrogate gives q in both
 *   directions, and the ratio keeps the model's own marginals L.
 *   The order is drawn independently of the state given S (S is the same
 *   set in the split and the merged state), so each order gives its own
 *   Metropolis-Hastings pair of moves and their mixture is reversible
 *   (Tierney 1994, sec. 2.3).
 *   Split (z_i = z_j): q is the product of the proposal pass's transition
 *   probabilities, and
 *     r = [alpha + d K] G(n_A - d) G(n_B - d) / [G(1 - d) G(n_A + n_B - d)]
 *         * L(A) L(B) / L(A u B) / q * P(i, j | split) / P(i, j | merged),
 *   K the number of clusters before the split, L the marginal likelihood,
 *   G = Gamma (the ratio of the Pitman-Yor EPPFs, Pitman 2006 eq. 3.6).
 *   Merge (z_i != z_j): q = the probability that the proposal pass (from the
 *   launch state, or with the same random order) gives the current split;
 *   the ratio is the inverse of the split one (with K - 1 clusters in the
 *   merged state) times q.
 * Accepted with probability min(1, r).
 *
 * The proposal machinery (launch, restricted pass, merged stats, applying
 * a move) is shared with the HDP mixture through mixture_splitmerge.h.
 * The row "split_merge" of the algorithm table (mixture_dp.h): settings t,
 * moves and sams (1: sequential allocation, t unused); one iteration is
 * `moves` proposals, then one collapsed Gibbs scan (mixture_dp.c), then the
 * prior update.  The acceptance counters are carried in the state.
 */
#include <string.h>
#include <Rmath.h>
#include "mixture_dp.h"
#include "mixture_splitmerge.h"

typedef struct {
    int moves;             /* split-merge proposals per sweep */
    int surrogate;         /* 1: half of the proposals scored by the surrogate */
    mcx_sm sm;             /* the proposal machinery */
    double counts[2];      /* accepted, proposed */
    mcx_dp_scan scan;
} mcx_splitmerge;

void mcx_sm_init(mcx_sm *s, const mcx_mix *m, int t, int sams)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->sams = sams;
    for (int c = 0; c < 2; c++) s->st[c] = mcx_alloc(m->sstride, sizeof(double));
    s->sm = mcx_alloc(m->sstride, sizeof(double));
    s->S = mcx_alloc((size_t) (m->n > 0 ? m->n : 1), sizeof(int));
    s->side = mcx_alloc((size_t) (m->n > 0 ? m->n : 1), sizeof(int));
    s->combine = mcx_family_combiner(m->fam, m->hyper);
    s->own = (mcx_sm_scorer) {m->fam, m->hyper, {s->st[0], s->st[1]}, m->empty, m->work,
                              m->sstride};
}

/* The surrogate of a family that has one (its capabilities,
 * family_registry.h; dim d >= 2).  gaussian_niw's: gaussian_diag with, per
 * coordinate j, the marginal prior of (mu_j, Sigma_jj) under the NIW prior
 * (mu_j | Sigma_jj ~ N(m0_j, Sigma_jj / kappa0), Sigma_jj ~ Inv-Gamma((nu0 -
 * d + 1) / 2, Psi0_jj / 2): Press 2005, Applied Multivariate Analysis, sec.
 * 5.2, the diagonal elements of an inverse Wishart matrix).  Why: in the
 * first steps of a sequential allocation the sides hold a few points and
 * their predictives are set by the prior; a data-scaled full-covariance
 * prior (the default Psi0 = S / 4, S the total covariance) is widest along
 * the directions that separate the clusters, so in high dimension the
 * early points are placed almost at random and the two sides end up mixed
 * (D = 50: the split of one cluster holding five true ones was never
 * proposed well).  The per-coordinate predictive weighs each coordinate by
 * its own scale and places those points by their distance to the sides
 * (and costs O(d) instead of O(d^2) per point).  Only the proposal changes:
 * its probability is computed with the same surrogate in both directions,
 * and the acceptance ratio uses the model's own marginal likelihoods. */
int mcx_sm_surrogate_init(mcx_sm *s, const mcx_mix *m)
{
    int d = m->dim;
    const mcx_family_caps *caps = mcx_family_caps_of(m->fam);
    if (caps->surrogate == NULL || d < 2) return 0;
    const mcx_family *g = caps->surrogate;
    double *val = mcx_alloc(4 * (size_t) d, sizeof(double));
    caps->surrogate_hyper(m->hyper, val);
    void *h = mcx_alloc(mcx_family_hyper_doubles(g, d), sizeof(double));
    if (g->hyper_init(h, d, val, 4 * d) != 0) MCX_INTERNAL("surrogate hyperparameters");
    mcx_sm_scorer *r = &s->sur;
    r->fam = g;
    r->hyper = h;
    r->sstride = mcx_family_stats_doubles(g, h);
    for (int c = 0; c < 2; c++) r->st[c] = mcx_alloc(r->sstride, sizeof(double));
    double *e = mcx_alloc(r->sstride, sizeof(double));
    g->stats_reset(h, e);
    r->empty = e;
    size_t w = g->work_size(h);
    r->work = mcx_alloc(w > 0 ? w : 1, sizeof(double));
    return 1;
}

void mcx_sm_side_stats(mcx_mix *m, mcx_sm *s, int i, int j, int nS)
{
    if (!s->use_sur) return;
    const mcx_family *f = m->fam;
    for (int c = 0; c < 2; c++) {
        memcpy(s->st[c], m->empty, m->sstride * sizeof(double));
        f->stats_add(m->hyper, s->st[c], mcx_mix_x(m, c == 0 ? i : j), m->work);
    }
    for (int r = 0; r < nS; r++) {
        int k = s->S[r];
        f->stats_add(m->hyper, s->st[s->side[k]], mcx_mix_x(m, k), m->work);
    }
}

static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    mcx_splitmerge *s = st;
    s->moves = (int) control[1];
    mcx_dp_collapsed_init(&s->scan, m, p, saved->sweeps);   /* tabulates p->log_count */
    mcx_sm_init(&s->sm, m, (int) control[0], control[2] != 0.0);
    s->surrogate = s->sm.sams && mcx_sm_surrogate_init(&s->sm, m);
}

/* log of the split/merged prior ratio: clusters of sizes na, nb split from
 * one, K clusters in the merged state. */
static double log_split_prior(double alpha, double d, int K, int na, int nb)
{
    return log(alpha + d * K) + lgammafn(na - d) + lgammafn(nb - d) -
        lgammafn(1.0 - d) - lgammafn(na + nb - d);
}

/* Share of the proposals whose second launch point j is drawn among the
 * other members of i's cluster (the rest: among all other points). */
#define PARTNER_SHARE 0.5

/* log N (N - 1) P(i, j) of the ordered launch pair: i uniform, then j
 * uniform among the other n_i - 1 members of i's cluster with probability
 * PARTNER_SHARE (when n_i >= 2), else uniform among the N - 1 others;
 * same: whether j is in i's cluster. */
static double log_pair(int same, int n_i, int N)
{
    if (n_i < 2) return 0.0;
    double w = 1.0 - PARTNER_SHARE;
    if (same) w += PARTNER_SHARE * (N - 1) / (double) (n_i - 1);
    return log(w);
}

/* The ordered launch pair (see log_pair()). */
static void draw_pair(const mcx_mix *m, int *pi, int *pj)
{
    int nn = m->n, i = (int) (unif_rand() * nn), j;
    int ni = m->size[m->z[i]];
    if (ni >= 2 && unif_rand() < PARTNER_SHARE) {
        int r = (int) (unif_rand() * (ni - 1)), ci = m->z[i];   /* the r-th other member */
        for (j = 0; j < nn; j++)
            if (j != i && m->z[j] == ci && r-- == 0) break;
    } else {
        j = (int) (unif_rand() * (nn - 1));
        if (j >= i) j++;
    }
    *pi = i;
    *pj = j;
}

/* The prior log weight of k on side c (n[c] counts k iff in_c). */
static inline double side_weight(const mcx_sm *s, int k, int c, int in_c, const int *n)
{
    if (s->prior.log_weight == NULL) return s->log_count[n[c] - in_c];
    return s->prior.log_weight(s->prior.ctx, k, c, in_c, n);
}

static inline void side_moved(const mcx_sm *s, int k, int from, int to)
{
    if (s->prior.moved != NULL) s->prior.moved(s->prior.ctx, k, from, to);
}

/* One pass over S (the restricted Gibbs scan of Jain-Neal, and the
 * sequential allocation of SAMS when every side[k] is -1).  force < 0:
 * draw each side; else put each k on the side of the current split (A if
 * z[k] == force, else B).  With want_q, returns the log probability of the
 * sides taken (else 0).  A point already on a side is scored there by the
 * family's leave-one-out predictive when it has one (A always holds i and
 * B holds j, so k's side has at least two members), and x_k is moved
 * between the two stats blocks only when it changes side; otherwise x_k is
 * removed from its side first (it is then unallocated).  With two sides,
 * P(A) = 1 / (1 + exp(l_B - l_A)): one exp per point, and a log only for
 * the pass whose probability is wanted. */
double mcx_sm_scan(mcx_mix *m, mcx_sm *s, int nS, int *n, int force, int want_q)
{
    const mcx_sm_scorer *sc = s->use_sur ? &s->sur : &s->own;
    const mcx_family *f = sc->fam;
    const void *hyper = sc->hyper;
    double *const *st = sc->st, *work = sc->work;
    mcx_predictive_loo_fn loo = mcx_family_predictive_loo(f);
    double lq = 0.0, l[2];
    for (int r = 0; r < nS; r++) {
        int k = s->S[r], own = s->side[k];
        const double *xk = mcx_mix_x(m, k);
        if (own >= 0 && loo != NULL) {
            l[own] = side_weight(s, k, own, 1, n) + loo(hyper, st[own], xk, work);
        } else if (own >= 0) {
            f->stats_remove(hyper, st[own], xk, work);
            --n[own];
            side_moved(s, k, own, -1);
            l[own] = side_weight(s, k, own, 0, n) +
                f->log_predictive(hyper, st[own], xk, work);
            own = -1;
        }
        for (int c = 0; c < 2; c++)
            if (c != own) l[c] = side_weight(s, k, c, 0, n) +
                              f->log_predictive(hyper, st[c], xk, work);
        int side = force >= 0 ? (m->z[k] == force ? 0 : 1)
                              : (unif_rand() < 1.0 / (1.0 + exp(l[1] - l[0])) ? 0 : 1);
        if (want_q) lq -= mcx_softplus(l[1 - side] - l[side]);
        s->side[k] = side;
        if (side == own) continue;
        if (own >= 0) {
            f->stats_remove(hyper, st[own], xk, work);
            n[own]--;
        }
        f->stats_add(hyper, st[side], xk, work);
        n[side]++;
        side_moved(s, k, own, side);
    }
    return lq;
}

void mcx_sm_launch(mcx_mix *m, mcx_sm *s, int i, int j, int nS, int *n)
{
    const mcx_sm_scorer *sc = s->use_sur ? &s->sur : &s->own;
    const mcx_family *f = sc->fam;
    size_t sbytes = sc->sstride * sizeof(double);
    for (int c = 0; c < 2; c++) {
        int a = c == 0 ? i : j;
        memcpy(sc->st[c], sc->empty, sbytes);
        f->stats_add(sc->hyper, sc->st[c], mcx_mix_x(m, a), sc->work);
        n[c] = 1;
        side_moved(s, a, -1, c);
    }
    if (s->sams) {
        mcx_rshuffle(s->S, nS);
        for (int r = 0; r < nS; r++) s->side[s->S[r]] = -1;
        return;
    }
    for (int r = 0; r < nS; r++) {
        int k = s->S[r], c = unif_rand() < 0.5 ? 0 : 1;
        s->side[k] = c;
        n[c]++;
        f->stats_add(sc->hyper, sc->st[c], mcx_mix_x(m, k), sc->work);
        side_moved(s, k, -1, c);
    }
    for (int sc = 0; sc < s->t; sc++) mcx_sm_scan(m, s, nS, n, -1, 0);
}

int mcx_sm_collect(const mcx_mix *m, mcx_sm *s, int i, int j, int ci, int cj)
{
    int nS = 0;
    for (int k = 0; k < m->n; k++)
        if (k != i && k != j && (m->z[k] == ci || m->z[k] == cj)) s->S[nS++] = k;
    return nS;
}

void mcx_sm_merged_stats(mcx_mix *m, mcx_sm *s, int i, int j, int ci, int cj, int *nS)
{
    const mcx_family *f = m->fam;
    memcpy(s->sm, mcx_mix_stats(m, ci), m->sstride * sizeof(double));
    if (s->combine != NULL) {
        s->combine(m->hyper, s->sm, mcx_mix_stats(m, cj), m->work);
        return;
    }
    *nS = mcx_sm_collect(m, s, i, j, ci, cj);
    for (int r = 0; r < *nS; r++)
        if (m->z[s->S[r]] == cj) f->stats_add(m->hyper, s->sm, mcx_mix_x(m, s->S[r]), m->work);
    f->stats_add(m->hyper, s->sm, mcx_mix_x(m, j), m->work);
}

int mcx_sm_apply_split(mcx_mix *m, const mcx_sm *s, int i, int nS)
{
    int cn = mcx_mix_new_cluster(m);
    mcx_mix_remove(m, i);
    mcx_mix_add(m, i, cn);
    for (int r = 0; r < nS; r++) {
        int k = s->S[r];
        if (s->side[k] == 0) {
            mcx_mix_remove(m, k);
            mcx_mix_add(m, k, cn);
        }
    }
    return cn;
}

void mcx_sm_apply_merge(mcx_mix *m, const mcx_sm *s, int j, int ci, int cj, int nS)
{
    for (int r = 0; r < nS; r++) {
        int k = s->S[r];
        if (m->z[k] == cj) {
            mcx_mix_remove(m, k);
            mcx_mix_add(m, k, ci);
        }
    }
    mcx_mix_remove(m, j);
    mcx_mix_add(m, j, ci);
}

/* One split-merge proposal.  A merge is accepted when log u < a + log q,
 * a = log(prior ratio x likelihood ratio), which needs only the merged
 * stats; as q <= 1, log u >= a rejects it whatever the proposal pass would
 * give, so u is drawn first and the pass (and S) is skipped then -- an
 * exact shortcut that makes the merges of well-separated clusters O(1). */
static void one_move(mcx_mix *m, mcx_splitmerge *sp, const mcx_partition_prior *dp)
{
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    mcx_sm *s = &sp->sm;
    int nn = m->n, i, j;
    double d = dp->discount, alpha = dp->alpha;
    s->log_count = dp->log_count;
    draw_pair(m, &i, &j);
    int ci = m->z[i], cj = m->z[j], nS = -1, n[2], K = m->K;
    /* the scorer of the allocation, by a fair coin independent of the state */
    s->use_sur = sp->surrogate && unif_rand() < 0.5;
    sp->counts[1] += 1.0;
    if (ci == cj) {
        nS = mcx_sm_collect(m, s, i, j, ci, cj);
        mcx_sm_launch(m, s, i, j, nS, n);
        double lq = mcx_sm_scan(m, s, nS, n, -1, 1);
        mcx_sm_side_stats(m, s, i, j, nS);
        double lr = log_split_prior(alpha, d, K, n[0], n[1]) +
            f->log_marginal(hyper, s->st[0], m->work) + f->log_marginal(hyper, s->st[1], m->work) -
            f->log_marginal(hyper, mcx_mix_stats(m, ci), m->work) - lq +
            log_pair(0, n[0], nn) - log_pair(1, m->size[ci], nn);
        if (!(log(unif_rand()) < lr)) return;
        /* accept: side A (i and its companions) becomes a new cluster */
        mcx_sm_apply_split(m, s, i, nS);
    } else {
        double lu = log(unif_rand());
        mcx_sm_merged_stats(m, s, i, j, ci, cj, &nS);
        double la = -log_split_prior(alpha, d, K - 1, m->size[ci], m->size[cj]) +
            f->log_marginal(hyper, s->sm, m->work) -
            f->log_marginal(hyper, mcx_mix_stats(m, ci), m->work) -
            f->log_marginal(hyper, mcx_mix_stats(m, cj), m->work) +
            log_pair(1, m->size[ci] + m->size[cj], nn) - log_pair(0, m->size[ci], nn);
        if (!(lu < la)) return;
        /* q: the proposal pass forced to the current split */
        if (nS < 0) nS = mcx_sm_collect(m, s, i, j, ci, cj);
        mcx_sm_launch(m, s, i, j, nS, n);
        if (!(lu < la + mcx_sm_scan(m, s, nS, n, ci, 1))) return;
        /* accept: move cluster cj into ci */
        mcx_sm_apply_merge(m, s, j, ci, cj, nS);
        mcx_mix_delete_cluster(m, cj);
    }
    sp->counts[0] += 1.0;
}

static double sweep(void *st, mcx_mix *m, mcx_partition_prior *p)
{
    mcx_splitmerge *s = st;
    if (m->n >= 2)
        for (int r = 0; r < s->moves; r++) one_move(m, s, p);
    mcx_dp_collapsed_scan(m, &s->scan, p);
    double ll = mcx_mix_log_marginal(m);
    mcx_partition_prior_update(p, m);
    return ll;
}

static double *counters(void *st) { return ((mcx_splitmerge *) st)->counts; }

static const char *const control_names[] = {"t", "moves", "sams", NULL};

const mcx_dp_algorithm mcx_dp_split_merge = {
    "split_merge", 1, 0, 1, sizeof(mcx_splitmerge), control_names,
    setup, sweep, NULL, NULL, counters, NULL
};
