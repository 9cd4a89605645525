/*
 * mixture_splitmerge.c -- restricted Gibbs split-merge moves for Dirichlet /
 * Pitman-Yor process mixtures with conjugate families: Jain & Neal (2004),
 * "A split-merge Markov chain Monte Carlo procedure for the Dirichlet
 * process mixture model", JCGS 13, sec. 3 (conjugate case), with the
 * Pitman-Yor partition prior.
 *
 * One proposal: pick i != j uniformly; S = the other members of the
 * clusters of i and j.
 *   Launch state: i and j in two different clusters A = {i}, B = {j}, each
 *   k in S put in A or B with probability 1/2, then t intermediate
 *   restricted Gibbs scans over S, each drawing k's side from
 *     P(A) prop. to (n_A^-k - d) p(x_k | A^-k),  P(B) likewise.
 *   Split (z_i = z_j): one more restricted scan gives the proposal; q is the
 *   product of its transition probabilities, and
 *     r = [alpha + d K] G(n_A - d) G(n_B - d) / [G(1 - d) G(n_A + n_B - d)]
 *         * L(A) L(B) / L(A u B) / q,
 *   K the number of clusters before the split, L the marginal likelihood,
 *   G = Gamma (the ratio of the Pitman-Yor EPPFs, Pitman 2006 eq. 3.6).
 *   Merge (z_i != z_j): q = the probability that one restricted scan from
 *   the launch state gives back the current split; the ratio is the
 *   inverse of the split one (with K - 1 clusters in the merged state) times q.
 * Accepted with probability min(1, r).
 *
 * The row "split_merge" of the algorithm table (mixture_dp.h): settings t
 * and moves; one iteration is `moves` proposals, then one collapsed Gibbs
 * scan (mixture_dp.c), then the prior update.  The acceptance counters
 * are carried in the state.
 */
#include <string.h>
#include <Rmath.h>
#include "mixture_dp.h"

typedef struct {
    int t;                 /* intermediate restricted Gibbs scans */
    int moves;             /* split-merge proposals per sweep */
    double *sa, *sb, *sm;  /* stats blocks of the two launch clusters, merged */
    int *S, *side;         /* n each */
    double counts[2];      /* accepted, proposed */
    mcx_dp_scan scan;
} mcx_splitmerge;

static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    mcx_splitmerge *s = st;
    s->t = (int) control[0];
    s->moves = (int) control[1];
    mcx_dp_collapsed_init(&s->scan, m, p, saved->sweeps);   /* tabulates p->log_count */
    s->sa = mcx_alloc(m->sstride, sizeof(double));
    s->sb = mcx_alloc(m->sstride, sizeof(double));
    s->sm = mcx_alloc(m->sstride, sizeof(double));
    s->S = mcx_alloc((size_t) (m->n > 0 ? m->n : 1), sizeof(int));
    s->side = mcx_alloc((size_t) (m->n > 0 ? m->n : 1), sizeof(int));
}

/* log of the split/merged prior ratio: clusters of sizes na, nb split from
 * one, K clusters in the merged state. */
static double log_split_prior(double alpha, double d, int K, int na, int nb)
{
    return log(alpha + d * K) + lgammafn(na - d) + lgammafn(nb - d) -
        lgammafn(1.0 - d) - lgammafn(na + nb - d);
}

/* log(1 + exp(x)) without overflow. */
static double softplus(double x)
{
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

/* One restricted Gibbs scan over S.  force < 0: draw each side; else move
 * each k to the side of the current split (A if z[k] == force, else B).
 * With want_q, returns the log probability of the sides taken (else 0).
 * k's own side is scored by the family's leave-one-out predictive when it
 * has one (A always holds i and B holds j, so k's side has at least two
 * members), and x_k is moved between the two stats blocks only when it
 * changes side; otherwise x_k is removed from its side first and put back.
 * With two sides, P(A) = 1 / (1 + exp(l_B - l_A)): one exp per point, and
 * a log only for the scan whose probability is wanted. */
static double restricted_scan(mcx_mix *m, mcx_splitmerge *s, int nS, int *na, int *nb,
                              const mcx_partition_prior *p, int force, int want_q)
{
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    mcx_predictive_loo_fn loo = mcx_family_predictive_loo(f);
    const double *lc = p->log_count;
    double lq = 0.0;
    for (int r = 0; r < nS; r++) {
        int k = s->S[r], own = s->side[k];
        const double *xk = mcx_mix_x(m, k);
        double *so = own == 0 ? s->sa : s->sb, *sx = own == 0 ? s->sb : s->sa;
        int *no = own == 0 ? na : nb, *nx = own == 0 ? nb : na;
        double l_own;
        if (loo != NULL) {
            l_own = lc[*no - 1] + loo(hyper, so, xk, m->work);
        } else {
            f->stats_remove(hyper, so, xk, m->work);
            (*no)--;
            l_own = lc[*no] + f->log_predictive(hyper, so, xk, m->work);
        }
        double l_other = lc[*nx] + f->log_predictive(hyper, sx, xk, m->work);
        double la = own == 0 ? l_own : l_other, lb = own == 0 ? l_other : l_own;
        int side = force >= 0 ? (m->z[k] == force ? 0 : 1)
                              : (unif_rand() < 1.0 / (1.0 + exp(lb - la)) ? 0 : 1);
        if (want_q) lq -= side == 0 ? softplus(lb - la) : softplus(la - lb);
        s->side[k] = side;
        if (loo != NULL) {
            if (side == own) continue;
            f->stats_remove(hyper, so, xk, m->work);
            (*no)--;
        }
        f->stats_add(hyper, side == 0 ? s->sa : s->sb, xk, m->work);
        (*(side == 0 ? na : nb))++;
    }
    return lq;
}

static void one_move(mcx_mix *m, mcx_splitmerge *s, const mcx_partition_prior *dp)
{
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    int n = m->n;
    size_t sbytes = m->sstride * sizeof(double);
    double d = dp->discount, alpha = dp->alpha;
    int i = (int) (unif_rand() * n);
    int j = (int) (unif_rand() * (n - 1));
    if (j >= i) j++;
    int ci = m->z[i], cj = m->z[j];
    /* S, the launch state and the current sides (for a merge) */
    int nS = 0;
    for (int k = 0; k < n; k++)
        if (k != i && k != j && (m->z[k] == ci || m->z[k] == cj)) s->S[nS++] = k;
    memcpy(s->sa, m->empty, sbytes);
    memcpy(s->sb, m->empty, sbytes);
    f->stats_add(hyper, s->sa, mcx_mix_x(m, i), m->work);
    f->stats_add(hyper, s->sb, mcx_mix_x(m, j), m->work);
    int na = 1, nb = 1;
    for (int r = 0; r < nS; r++) {
        int k = s->S[r];
        if (unif_rand() < 0.5) {
            s->side[k] = 0; na++;
            f->stats_add(hyper, s->sa, mcx_mix_x(m, k), m->work);
        } else {
            s->side[k] = 1; nb++;
            f->stats_add(hyper, s->sb, mcx_mix_x(m, k), m->work);
        }
    }
    for (int sc = 0; sc < s->t; sc++) restricted_scan(m, s, nS, &na, &nb, dp, -1, 0);
    s->counts[1] += 1.0;
    int K = m->K;
    if (ci == cj) {
        double lq = restricted_scan(m, s, nS, &na, &nb, dp, -1, 1);
        double lr = log_split_prior(alpha, d, K, na, nb) +
            f->log_marginal(hyper, s->sa, m->work) + f->log_marginal(hyper, s->sb, m->work) -
            f->log_marginal(hyper, mcx_mix_stats(m, ci), m->work) - lq;
        if (!(log(unif_rand()) < lr)) return;
        /* accept: side A (i and its companions) becomes a new cluster */
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
    } else {
        /* q: one scan from the launch state forced to the current split */
        double lq = restricted_scan(m, s, nS, &na, &nb, dp, ci, 1);
        int ni = m->size[ci], nj = m->size[cj];
        memcpy(s->sm, mcx_mix_stats(m, ci), sbytes);
        for (int r = 0; r < nS; r++)
            if (m->z[s->S[r]] == cj)
                f->stats_add(hyper, s->sm, mcx_mix_x(m, s->S[r]), m->work);
        f->stats_add(hyper, s->sm, mcx_mix_x(m, j), m->work);
        double lr = -log_split_prior(alpha, d, K - 1, ni, nj) +
            f->log_marginal(hyper, s->sm, m->work) -
            f->log_marginal(hyper, mcx_mix_stats(m, ci), m->work) -
            f->log_marginal(hyper, mcx_mix_stats(m, cj), m->work) + lq;
        if (!(log(unif_rand()) < lr)) return;
        /* accept: move cluster cj into ci */
        for (int r = 0; r < nS; r++) {
            int k = s->S[r];
            if (m->z[k] == cj) {
                mcx_mix_remove(m, k);
                mcx_mix_add(m, k, ci);
            }
        }
        mcx_mix_remove(m, j);
        mcx_mix_add(m, j, ci);
        mcx_mix_delete_cluster(m, cj);
    }
    s->counts[0] += 1.0;
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

static const char *const control_names[] = {"t", "moves", NULL};

const mcx_dp_algorithm mcx_dp_split_merge = {
    "split_merge", 1, 0, 1, sizeof(mcx_splitmerge), control_names,
    setup, sweep, NULL, NULL, counters, NULL
};
