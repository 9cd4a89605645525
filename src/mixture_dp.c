/*
 * mixture_dp.c -- collapsed Gibbs sampler (Chinese restaurant process) for
 * Dirichlet process mixtures with conjugate component families, with the
 * Pitman-Yor generalisation built in (discount d = 0 gives the DP).
 *
 * Reference: Neal (2000), algorithm 3; Sudderth (2011), slides
 * "Collapsed DP Mixture Sampler".  For each observation i in turn:
 *   leave x_i out of its cluster (deleting the cluster if it became empty),
 *   draw z_i from
 *     existing cluster k:  (n_k^-i - d)       p(x_i | x_{k,-i})
 *     new cluster:         (alpha + d K^-i)   p(x_i)          (prior predictive)
 *   and add x_i to the chosen (possibly new) cluster.
 *
 * Cost per observation (the floor is bench/floor.c: K + 1 predictives from
 * cached factors and one categorical draw):
 * - The point's own cluster.  p(x_i | x_{k,-i}) is read from the full
 *   cluster's cached factors by the family's log_predictive_loo slot
 *   (rank-one determinant and inverse identities, see each family file),
 *   so nothing is copied or downdated unless x_i actually moves; families
 *   without the slot take the old path (copy the stats to scratch, remove
 *   x_i there, and copy the result back only when x_i moves).
 * - The other clusters, for families with a cheap upper bound on the
 *   predictive (family_registry.h: gaussian_niw, whose bound needs no logarithm):
 *   with w_own the weight of the own cluster, B_k >= w_k bounds of the K - 1
 *   others, w_0 the new cluster's weight, M = max(B_k, w_0) and one uniform
 *   u, the point stays when u (w_own + K M) < w_own; as the total W <=
 *   w_own + K M, this implies u W < w_own, which is the event "own" of the
 *   inversion of u over the exact weights with the own cluster first.  Only
 *   when it fails are the others evaluated, and that inversion is done
 *   with the same u (rcat_first()), so every draw is exactly the one of the
 *   full computation.  With well-separated clusters most points stay: K - 1
 *   logarithms and K + 1 exponentials per point become one exponential (at
 *   N = 1e4, D = 2, five clusters: 0.56x the CPU per sweep), and that one
 *   is first replaced by a power of two above it (mcx_exp_bound()), a
 *   stricter test that decides most points; only when it fails is exp()
 *   called, so the draws are those of the exact test.  The bounds of the
 *   others come from one call of the family's batched bound (no call per
 *   cluster), and w_own is first replaced by a lower bound without a
 *   logarithm (the family's loo_lower, family_registry.h), again a stricter test
 *   tried before the exact one: about 0.78x the CPU per sweep of the
 *   per-cluster bounds and exact w_own at N = 1e4 (bench/RESULTS.md).
 * - The prior predictive p(x_i) does not change during a chunk: in a
 *   chunk of several sweeps it is computed during the first sweep, as the
 *   scan reaches x_i, and read from a table afterwards (no separate pass
 *   over the data).
 * - log(alpha + d K) is recomputed only when K changes; log(j - d) is
 *   tabulated (p->log_count); the categorical draw does not normalise.
 * - Scan order.  A sweep visits the observations cyclically, i = s, s + e,
 *   s + 2e, ... (mod n), from a uniform start s in the direction e = +1 or
 *   -1 (two uniforms per sweep), instead of a fresh random permutation
 *   (n draws of R_unif_index, about a tenth of a sweep at large n, and a
 *   random memory access per point).  Validity: each single-site update is
 *   a Gibbs update, i.e. a Metropolis-Hastings move accepted with
 *   probability 1 (Murphy 2012, sec. 24.3.2), so it leaves the posterior
 *   pi invariant; a composition of pi-invariant kernels (a cycle) and a
 *   mixture of them over an index drawn independently of the state are
 *   pi-invariant (Tierney 1994, Ann. Statist. 22, sec. 2.3, "cycles and
 *   mixtures").  Each update P_i is self-adjoint in L2(pi); the adjoint
 *   of the forward cycle from a, P_a P_{a+1} ... P_{a-1}, is the backward
 *   cycle from a - 1, P_{a-1} ... P_{a+1} P_a, and with a uniform start
 *   both have probability 1/(2n), so the sweep kernel (their mixture) is
 *   self-adjoint, i.e. reversible (cf. the random and symmetric scans of
 *   Liu, Wong and Kong 1995, J. R. Statist. Soc. B 57).  Irreducibility is that of the systematic-scan
 *   sampler (every allocation has positive conditional probability).
 *   The exact-enumeration tests (test-dpx-exact.R, test-mixture-exact.R)
 *   check the stationary distribution.
 *
 * Memory: the K + 1 weights take O(K) doubles (the scan runs in blocks of
 * points, and the weights are grown between blocks when the clusters
 * could outgrow them within the next block); the prior predictives take
 * one double per point in chunks of several sweeps (see
 * mcx_dp_collapsed_init()).
 *
 * The prior parameters are updated after every sweep
 * (mcx_partition_prior_update(): alpha under a Gamma(a, b) prior by the
 * auxiliary-variable method of Escobar & West 1995, sec. 6; Sudderth 2011,
 * slides, step 5; valid for d = 0; a Beta-prior discount by slice sampling).
 *
 * The row "collapsed" of the algorithm table (mixture_dp.h); the scan is
 * shared with "split_merge" (mixture_splitmerge.c).
 */
#include <string.h>
#include "mixture_dp.h"

/* Points per block of the scan: K grows by at most one per point, so a
 * block starting with K clusters needs at most K + 1 + SCAN_BLOCK weights
 * (logw is checked before each block, never inside one). */
#define SCAN_BLOCK 256

/* logw with room for `need` weights (doubling; the old values are not
 * kept: logw is scratch of one point). */
static void reserve_logw(mcx_dp_scan *s, int need)
{
    if (need <= s->logw_cap) return;
    s->logw_cap = need > 2 * s->logw_cap ? need : 2 * s->logw_cap;
    s->logw = mcx_alloc((size_t) s->logw_cap, sizeof(double));
}

void mcx_dp_collapsed_init(mcx_dp_scan *s, const mcx_mix *m, mcx_partition_prior *p,
                           int sweeps)
{
    int n = m->n;
    mcx_partition_prior_tabulate(p);   /* the weights n_k - d */
    s->logw = NULL;
    s->logw_cap = 0;
    reserve_logw(s, 2 * (m->K + 1) + SCAN_BLOCK);
    /* One double per point, for a chunk of several sweeps: every sweep
     * after the first saves one predictive per point (a tenth of a sweep
     * with small K).  A chunk of one sweep (large n: chunks last about a
     * quarter of a second) would never read it back: none then (8 MB at
     * n = 1e6), the predictive is computed in place (the same value). */
    s->prior_pred = sweeps > 1 ? mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(double)) : NULL;
    s->prior_ready = 0;
}

/* The start and the step (+1 or n - 1, i.e. -1 mod n) of a sweep. */
static void scan_order(int n, int *start, int *step)
{
    int s = (int) (unif_rand() * n);
    *start = s < n ? s : n - 1;
    *step = unif_rand() < 0.5 || n == 1 ? 1 : n - 1;
}

/* log p(x_i | the other members of its cluster `own`), by the family's
 * leave-one-out slot or by removing x_i from a scratch copy of the stats
 * (left in m->scratch for mcx_mix_detach()). */
static double own_predictive(mcx_mix *m, mcx_predictive_loo_fn loo, int own, const double *xi)
{
    const mcx_family *f = m->fam;
    if (loo != NULL) return loo(m->hyper, mcx_mix_stats(m, own), xi, m->work);
    memcpy(m->scratch, mcx_mix_stats(m, own), m->sstride * sizeof(double));
    f->stats_remove(m->hyper, m->scratch, xi, m->work);
    return f->log_predictive(m->hyper, m->scratch, xi, m->work);
}

/* A categorical draw over k unnormalised log weights by inversion of the
 * uniform u, category `first` placed first: first iff u W < w_first (W
 * the total), else the others in index order. */
static int rcat_first(double *logw, int k, int first, double u)
{
    double mx = logw[0];
    for (int i = 1; i < k; i++)
        if (logw[i] > mx) mx = logw[i];
    double total = 0.0;
    if (isfinite(mx))
        for (int i = 0; i < k; i++) total += (logw[i] = exp(logw[i] - mx));
    if (!(total >= 1.0) || !isfinite(total))
        MCX_INTERNAL("non-finite log-weights in the collapsed Gibbs draw");
    double target = u * total, cum = logw[first];
    if (target < cum) return first;
    int last = first;
    for (int i = 0; i < k; i++) {
        if (i == first || !(logw[i] > 0.0)) continue;
        cum += logw[i];
        last = i;
        if (target < cum) return i;
    }
    return last;   /* rounding in the running sum */
}

void mcx_dp_collapsed_scan(mcx_mix *m, mcx_dp_scan *s, const mcx_partition_prior *p)
{
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    mcx_predictive_loo_fn loo = mcx_family_predictive_loo(f);
    mcx_predictive_bound_max_fn bound = mcx_family_predictive_bound_max(f);
    mcx_predictive_loo_lower_fn loo_lower = mcx_family_predictive_loo_lower(f);
    double d = p->discount;
    const double *log_count = p->log_count;
    double *prior_pred = s->prior_pred;
    int n = m->n, ready = s->prior_ready;
    if (n == 0) return;
    int i, step, lnew_K = -1;
    double lnew = 0.0;          /* log(alpha + d K) for K = lnew_K */
    scan_order(n, &i, &step);
    for (int t = 0; t < n;) {
        int end = n - t > SCAN_BLOCK ? t + SCAN_BLOCK : n;
        reserve_logw(s, m->K + 1 + (end - t));
        double *logw = s->logw;
        for (; t < end; t++, i = i + step < n ? i + step : i + step - n) {
            const double *xi = mcx_mix_x(m, i);
            int own = m->z[i];
            if (m->size[own] == 1) {   /* a singleton: delete its cluster */
                mcx_mix_remove(m, i);
                mcx_mix_delete_cluster(m, own);
                own = -1;
            }
            int K = m->K;
            double lp0;   /* log p(x_i), the prior predictive */
            if (ready) {
                lp0 = prior_pred[i];
            } else {
                lp0 = f->log_predictive(hyper, m->empty, xi, m->work);
                if (prior_pred != NULL) prior_pred[i] = lp0;
            }
            if (K != lnew_K) {
                lnew = K > 0 ? log(p->alpha + d * K) : 0.0;
                lnew_K = K;
            }
            int c;
            if (bound != NULL && own >= 0) {
                /* the own cluster first, the others bounded (see the header) */
                double lc = log_count[m->size[own] - 1];
                double mb = bound(hyper, m->stats, m->sstride, K, own, m->size, log_count, xi,
                                  lnew + lp0, m->work);
                double u = unif_rand(), y;
                /* stays: first with a lower bound on the own weight and an
                 * upper bound on exp(y) (no libm call; the bounds only make
                 * the test stricter), then exactly */
                if (loo_lower != NULL) {
                    y = mb - (lc + loo_lower(hyper, mcx_mix_stats(m, own), xi, m->work));
                    if (y <= 0.0 && u * (1.0 + K * mcx_exp_bound(y)) < 1.0) continue;
                }
                double lown = lc + own_predictive(m, loo, own, xi);
                y = mb - lown;
                if (y <= 0.0 && u * (1.0 + K * mcx_exp_bound(y)) < 1.0) continue;
                if (u * (1.0 + K * exp(y)) < 1.0) continue;
                for (int k = 0; k < K; k++)
                    logw[k] = k == own ? lown
                        : log_count[m->size[k]] + f->log_predictive(hyper, mcx_mix_stats(m, k),
                                                                    xi, m->work);
                logw[K] = lnew + lp0;
                c = rcat_first(logw, K + 1, own, u);
            } else {
                for (int k = 0; k < K; k++)
                    logw[k] = k == own
                        ? log_count[m->size[k] - 1] + own_predictive(m, loo, k, xi)
                        : log_count[m->size[k]] + f->log_predictive(hyper, mcx_mix_stats(m, k),
                                                                    xi, m->work);
                logw[K] = lnew + lp0;
                c = mcx_rcat_log_unnorm(logw, K + 1);
            }
            if (c == own) continue;
            if (own >= 0) {
                if (loo != NULL) mcx_mix_remove(m, i);
                else mcx_mix_detach(m, i, m->scratch);
            }
            if (c == K) mcx_mix_new_cluster(m);
            mcx_mix_add(m, i, c);
        }
    }
    s->prior_ready = prior_pred != NULL;
}

/* ---- the table row ---- */

static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    (void) control;
    mcx_dp_collapsed_init(st, m, p, saved->sweeps);
}

static double sweep(void *st, mcx_mix *m, mcx_partition_prior *p)
{
    mcx_dp_collapsed_scan(m, st, p);
    double ll = mcx_mix_log_marginal(m);
    mcx_partition_prior_update(p, m);
    return ll;
}

static const char *const no_control[] = {NULL};

const mcx_dp_algorithm mcx_dp_collapsed = {
    "collapsed", 1, 0, 1, sizeof(mcx_dp_scan), no_control,
    setup, sweep, NULL, NULL, NULL, NULL
};
