/*
 * mixture_rj_collapsed.c -- collapsed reversible-jump MCMC for finite
 * mixtures with an unknown number of components (Murphy 2012, section
 * 24.3.7, "collapsed RJMCMC"): the weights (symmetric Dirichlet(delta))
 * and the component parameters (any conjugate family of the registry) are
 * integrated out, so the state is K and the labelled allocation z, and
 *   pi(K, z) = p(K) Gamma(K delta) / Gamma(K delta + n)
 *              prod_k Gamma(delta + n_k) / Gamma(delta) p(x_k),
 * with p(x_k) the family's marginal likelihood (1 for an empty component).
 * The space is discrete, so the jumps between K and K + 1 are ordinary
 * Metropolis-Hastings moves with no Jacobian:
 *   - collapsed Gibbs on z given K (empty components included);
 *   - split / merge: split a random component j by sequential allocation of
 *     its members (in random order, each to j or to the new component with
 *     probability prop. to (n + delta) times the predictive), then put the
 *     new component at a random one of the K + 1 positions; the merge picks
 *     the "new" component l and the receiving j at random and evaluates the
 *     probability of the reverse sequential allocation (Dahl 2003);
 *   - birth / death of an empty component (inserted at a random position;
 *     a random empty one is removed).
 * Positions are handled by swapping with the last slot, so every move is
 * its own inverse's mirror and detailed balance holds on labelled states.
 */
#include <string.h>
#include <Rmath.h>
#include "mixture_rj.h"

void mcx_rjc_setup(mcx_rjc *s, const mcx_mix *m, int kmax)
{
    s->c.kmax = kmax;
    s->sa = mcx_alloc(m->sstride, sizeof(double));
    s->sb = mcx_alloc(m->sstride, sizeof(double));
    s->saved = mcx_alloc(m->sstride, sizeof(double));
    s->logw = mcx_alloc((size_t) kmax + 1, sizeof(double));
    s->perm = mcx_alloc((size_t) m->n, sizeof(int));
    s->members = mcx_alloc((size_t) m->n, sizeof(int));
}

/* The K-dependent part of log pi: log p(K) + log Gamma(K d) - log Gamma(K d + n). */
static double log_k_part(const mcx_mix *m, const mcx_rjc *s, int K)
{
    double d = s->c.delta;
    return s->c.logpk[K - 1] + lgammafn(K * d) - lgammafn(K * d + m->n);
}

static double log_marg(const mcx_mix *m, const double *stats, int size)
{
    return size > 0 ? m->fam->log_marginal(m->hyper, stats, m->work) : 0.0;
}

double mcx_rjc_log_post(const mcx_mix *m, const mcx_rjc *s)
{
    double lp = log_k_part(m, s, m->K), d = s->c.delta;
    for (int k = 0; k < m->K; k++)
        lp += lgammafn(d + m->size[k]) - lgammafn(d);
    return lp + mcx_mix_log_marginal(m);
}

static int accept(double log_ratio)
{
    return log_ratio >= 0 || log(unif_rand()) < log_ratio;
}

/* Exchange the labels of components a and b. */
static void swap_components(mcx_mix *m, int a, int b)
{
    if (a == b) return;
    size_t bytes = m->sstride * sizeof(double);
    memcpy(m->scratch, mcx_mix_stats(m, a), bytes);
    memcpy(mcx_mix_stats(m, a), mcx_mix_stats(m, b), bytes);
    memcpy(mcx_mix_stats(m, b), m->scratch, bytes);
    int t = m->size[a];
    m->size[a] = m->size[b];
    m->size[b] = t;
    for (int i = 0; i < m->n; i++)
        if (m->z[i] == a) m->z[i] = b;
        else if (m->z[i] == b) m->z[i] = a;
}

static void gibbs(mcx_mix *m, mcx_rjc *s)
{
    const mcx_family *f = m->fam;
    size_t bytes = m->sstride * sizeof(double);
    mcx_rperm(s->perm, m->n);
    for (int t = 0; t < m->n; t++) {
        int i = s->perm[t], own = m->z[i];
        const double *xi = mcx_mix_x(m, i);
        memcpy(m->scratch, mcx_mix_stats(m, own), bytes);
        f->stats_remove(m->hyper, m->scratch, xi, m->work);
        for (int k = 0; k < m->K; k++) {
            int mine = k == own;
            s->logw[k] = log(m->size[k] - mine + s->c.delta) +
                f->log_predictive(m->hyper, mine ? m->scratch : mcx_mix_stats(m, k), xi, m->work);
        }
        int c = mcx_rcat_log(s->logw, m->K);
        if (c == own) continue;
        mcx_mix_detach(m, i, m->scratch);
        mcx_mix_add(m, i, c);
    }
}

/* Collect the members of components a and b (b may be -1) in random order;
 * s->perm[t] = 1 when members[t] is in b. Returns their number. */
static int collect(const mcx_mix *m, mcx_rjc *s, int a, int b)
{
    int nm = 0;
    for (int i = 0; i < m->n; i++)
        if (m->z[i] == a || m->z[i] == b) s->members[nm++] = i;
    for (int t = nm - 1; t > 0; t--) {
        int r = (int) floor((t + 1) * unif_rand()), v = s->members[t];
        s->members[t] = s->members[r];
        s->members[r] = v;
    }
    for (int t = 0; t < nm; t++) s->perm[t] = m->z[s->members[t]] == b;
    return nm;
}

/* Sequential allocation of the collected members to sides a (s->sa) and b
 * (s->sb).  draw = 1 draws the sides (into s->perm), draw = 0 scores the
 * sides already in s->perm.  Returns the log probability; sizes in na, nb. */
static double allocate(const mcx_mix *m, mcx_rjc *s, int nm, int draw, int *na, int *nb)
{
    const mcx_family *f = m->fam;
    size_t bytes = m->sstride * sizeof(double);
    memcpy(s->sa, m->empty, bytes);
    memcpy(s->sb, m->empty, bytes);
    *na = *nb = 0;
    double lq = 0.0;
    for (int t = 0; t < nm; t++) {
        const double *x = mcx_mix_x(m, s->members[t]);
        double la = log(*na + s->c.delta) + f->log_predictive(m->hyper, s->sa, x, m->work);
        double lb = log(*nb + s->c.delta) + f->log_predictive(m->hyper, s->sb, x, m->work);
        double mx = fmax(la, lb), lse = mx + log(exp(la - mx) + exp(lb - mx));
        if (draw) s->perm[t] = unif_rand() >= exp(la - lse);
        int side = s->perm[t];
        lq += (side ? lb : la) - lse;
        f->stats_add(m->hyper, side ? s->sb : s->sa, x, m->work);
        if (side) (*nb)++; else (*na)++;
    }
    return lq;
}

/* log pi(split) - log pi(merged) for sides of sizes na, nb (stats s->sa,
 * s->sb) against the merged component (stats `merged`), K = merged count. */
static double split_gain(const mcx_mix *m, const mcx_rjc *s, int K, int na, int nb,
                         const double *merged)
{
    double d = s->c.delta;
    return log_k_part(m, s, K + 1) - log_k_part(m, s, K) +
        lgammafn(d + na) + lgammafn(d + nb) - lgammafn(d + na + nb) - lgammafn(d) +
        log_marg(m, s->sa, na) + log_marg(m, s->sb, nb) - log_marg(m, merged, na + nb);
}

static void try_split(mcx_mix *m, mcx_rjc *s)
{
    int K = m->K, j = (int) floor(K * unif_rand()), na, nb;
    s->c.tries[MCX_RJ_SPLIT]++;
    int nm = collect(m, s, j, -1);
    double lq = allocate(m, s, nm, 1, &na, &nb);
    double lr = split_gain(m, s, K, na, nb, mcx_mix_stats(m, j)) +
        mcx_rj_log_d(&s->c, K + 1) - mcx_rj_log_b(&s->c, K) - lq;
    if (!accept(lr)) return;
    s->c.accepts[MCX_RJ_SPLIT]++;
    int c = mcx_mix_new_cluster(m);
    size_t bytes = m->sstride * sizeof(double);
    memcpy(mcx_mix_stats(m, j), s->sa, bytes);
    memcpy(mcx_mix_stats(m, c), s->sb, bytes);
    m->size[j] = na;
    m->size[c] = nb;
    for (int t = 0; t < nm; t++) if (s->perm[t]) m->z[s->members[t]] = c;
    swap_components(m, (int) floor((K + 1) * unif_rand()), c);
}

static void try_merge(mcx_mix *m, mcx_rjc *s)
{
    int K = m->K, l = (int) floor(K * unif_rand()), j = (int) floor((K - 1) * unif_rand());
    if (j >= l) j++;
    s->c.tries[MCX_RJ_COMBINE]++;
    int nm = collect(m, s, j, l), na, nb;
    double lq = allocate(m, s, nm, 0, &na, &nb);
    /* merged stats: j's block plus the members of l */
    size_t bytes = m->sstride * sizeof(double);
    memcpy(s->saved, mcx_mix_stats(m, j), bytes);
    for (int t = 0; t < nm; t++)
        if (s->perm[t]) m->fam->stats_add(m->hyper, s->saved, mcx_mix_x(m, s->members[t]), m->work);
    memcpy(s->sa, mcx_mix_stats(m, j), bytes);   /* score the current blocks */
    memcpy(s->sb, mcx_mix_stats(m, l), bytes);
    double lr = -split_gain(m, s, K - 1, na, nb, s->saved) +
        mcx_rj_log_b(&s->c, K - 1) - mcx_rj_log_d(&s->c, K) + lq;
    if (!accept(lr)) return;
    s->c.accepts[MCX_RJ_COMBINE]++;
    int last = K - 1;
    swap_components(m, l, last);
    if (j == last) j = l;
    for (int i = 0; i < m->n; i++) if (m->z[i] == last) m->z[i] = j;
    memcpy(mcx_mix_stats(m, j), s->saved, bytes);
    m->size[j] += m->size[last];
    m->size[last] = 0;
    mcx_mix_delete_cluster(m, last);
}

/* log pi ratio and proposal ratio of a birth in a K-component state with
 * k0 empty components. */
static double birth_log_ratio(const mcx_mix *m, const mcx_rjc *s, int K, int k0)
{
    return log_k_part(m, s, K + 1) - log_k_part(m, s, K) + mcx_rj_log_d(&s->c, K + 1) -
        log(k0 + 1.0) - mcx_rj_log_b(&s->c, K) + log(K + 1.0);
}

static void try_birth(mcx_mix *m, mcx_rjc *s)
{
    int K = m->K, k0 = K - mcx_mix_n_occupied(m);
    s->c.tries[MCX_RJ_BIRTH]++;
    if (!accept(birth_log_ratio(m, s, K, k0))) return;
    s->c.accepts[MCX_RJ_BIRTH]++;
    int c = mcx_mix_new_cluster(m);
    swap_components(m, (int) floor((K + 1) * unif_rand()), c);
}

static void try_death(mcx_mix *m, mcx_rjc *s)
{
    int K = m->K, k0 = K - mcx_mix_n_occupied(m);
    s->c.tries[MCX_RJ_DEATH]++;
    if (k0 == 0) return;
    int e = (int) floor(k0 * unif_rand()), p = -1;
    for (int k = 0; k < K && e >= 0; k++) if (m->size[k] == 0 && e-- == 0) p = k;
    if (!accept(-birth_log_ratio(m, s, K - 1, k0 - 1))) return;
    s->c.accepts[MCX_RJ_DEATH]++;
    swap_components(m, p, K - 1);
    mcx_mix_delete_cluster(m, K - 1);
}

void mcx_rjc_sweep(mcx_mix *m, mcx_rjc *s)
{
    gibbs(m, s);
    if (unif_rand() < exp(mcx_rj_log_b(&s->c, m->K))) try_split(m, s);
    else if (m->K > 1) try_merge(m, s);
    if (unif_rand() < exp(mcx_rj_log_b(&s->c, m->K))) try_birth(m, s);
    else if (m->K > 1) try_death(m, s);
}
