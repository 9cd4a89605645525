/*
 * mixture_dp.c -- collapsed Gibbs sampler (Chinese restaurant process) for
 * Dirichlet process mixtures with conjugate component families, with the
 * Pitman-Yor generalisation built in (discount d = 0 gives the DP).
 *
 * Reference: slides 003, "Collapsed DP Mixture Sampler" (Neal 2000,
 * algorithm 3).  For each observation i, in a fresh random permutation:
 *   remove x_i from its cluster (deleting the cluster if it became empty),
 *   draw z_i from
 *     existing cluster k:  (n_k^-i - d)       p(x_i | x_{k,-i})
 *     new cluster:         (alpha + d K^-i)   p(x_i)          (prior predictive)
 *   and add x_i to the chosen (possibly new) cluster.
 * The prior predictive p(x_i) does not change during a chunk and is
 * computed once per chunk; log(j - d) is tabulated for j = 1..n.
 *
 * The prior parameters are updated after every sweep
 * (mcx_partition_prior_update(): alpha under a Gamma(a, b) prior by the
 * auxiliary-variable method of Escobar & West 1995, sec. 6, slides 003,
 * step 5, valid for d = 0; a Beta-prior discount by slice sampling).
 *
 * The row "collapsed" of the algorithm table (mixture_dp.h); the scan is
 * shared with "split_merge" (mixture_splitmerge.c).
 */
#include <string.h>
#include "mixture_dp.h"

void mcx_dp_collapsed_init(mcx_dp_scan *s, const mcx_mix *m)
{
    int n = m->n;
    s->logw = mcx_alloc((size_t) n + 1, sizeof(double));
    s->prior_pred = mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(double));
    s->perm = mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
    for (int i = 0; i < n; i++)
        s->prior_pred[i] = m->fam->log_predictive(m->hyper, m->empty,
                                                  mcx_mix_x(m, i), m->work);
}

void mcx_dp_collapsed_scan(mcx_mix *m, mcx_dp_scan *s, const mcx_partition_prior *p)
{
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    size_t sbytes = m->sstride * sizeof(double);
    double d = p->discount;
    const double *log_count = p->log_count;
    int n = m->n;
    mcx_rperm(s->perm, n);
    for (int t = 0; t < n; t++) {
        int i = s->perm[t];
        const double *xi = mcx_mix_x(m, i);
        if (t + MCX_PREFETCH_AHEAD < n) {   /* the scan order is random: */
            int j = s->perm[t + MCX_PREFETCH_AHEAD];   /* hide the cache misses */
            MCX_PREFETCH(m->z + j);
            MCX_PREFETCH(s->prior_pred + j);
            mcx_mix_prefetch(m, j);
        }
        /* Leave x_i out.  A singleton's cluster is deleted at once; otherwise
         * the cluster without x_i is formed in scratch, so that when x_i
         * stays where it was (the common case) nothing has to be undone. */
        int own = m->z[i];
        if (m->size[own] == 1) {
            mcx_mix_remove(m, i);
            mcx_mix_delete_cluster(m, own);
            own = -1;
        } else {
            memcpy(m->scratch, mcx_mix_stats(m, own), sbytes);
            f->stats_remove(hyper, m->scratch, xi, m->work);
        }
        int K = m->K;
        double *logw = s->logw;
        for (int c = 0; c < K; c++) {
            int mine = c == own;
            logw[c] = log_count[m->size[c] - mine] +
                f->log_predictive(hyper, mine ? m->scratch : mcx_mix_stats(m, c),
                                  xi, m->work);
        }
        logw[K] = (K > 0 ? log(p->alpha + d * K) : 0.0) + s->prior_pred[i];
        int c = mcx_rcat_log(logw, K + 1);
        if (c == own) continue;
        if (own >= 0) mcx_mix_detach(m, i, m->scratch);
        if (c == K) mcx_mix_new_cluster(m);
        mcx_mix_add(m, i, c);
    }
}

/* ---- the table row ---- */

static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    (void) p; (void) control; (void) saved;
    mcx_dp_collapsed_init(st, m);
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
