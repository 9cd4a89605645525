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
 * When alpha has a Gamma(a, b) prior (rate b), it is updated after every
 * sweep by the auxiliary-variable method of Escobar & West (1995, sec. 6)
 * (slides 003, step 5), valid for d = 0.
 */
#include <float.h>
#include <string.h>
#include "mixture.h"

void mcx_dp_setup(mcx_dp *s, const mcx_mix *m, double alpha, double discount,
                  int alpha_random, double shape, double rate)
{
    int n = m->n;
    if (!(discount >= 0.0 && discount < 1.0) || !(alpha > -discount))
        MCX_INTERNAL("invalid concentration or discount");
    if (alpha_random && discount != 0.0)
        MCX_INTERNAL("the Escobar-West update needs discount 0");
    memset(s, 0, sizeof *s);
    s->alpha = alpha;
    s->discount = discount;
    s->alpha_random = alpha_random;
    s->shape = shape;
    s->rate = rate;
    s->logw = mcx_alloc((size_t) n + 1, sizeof(double));
    s->log_count = mcx_alloc((size_t) n + 1, sizeof(double));
    s->prior_pred = mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(double));
    s->perm = mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
    s->log_count[0] = R_NegInf;
    for (int j = 1; j <= n; j++) s->log_count[j] = log(j - discount);
    for (int i = 0; i < n; i++)
        s->prior_pred[i] = m->fam->log_predictive(m->hyper, m->empty,
                                                  mcx_mix_x(m, i), m->work);
}

double mcx_dp_alpha_update(double alpha, int K, int n, double shape, double rate)
{
    /* Escobar & West (1995), eqs. (13)-(14):
     *   eta | alpha, K ~ Beta(alpha + 1, n)
     *   alpha | eta, K ~ pi Gamma(a + K, b - log eta)
     *                    + (1 - pi) Gamma(a + K - 1, b - log eta),
     *   pi / (1 - pi) = (a + K - 1) / (n (b - log eta)). */
    double eta = mcx_rbeta(alpha + 1.0, (double) n);
    double r = rate - log(eta);
    double odds = (shape + K - 1.0) / (n * r);
    double pi = odds / (1.0 + odds);
    double a = unif_rand() < pi ? shape + K : shape + K - 1.0;
    /* With K = 1 the shape can be the prior's alone; for a small one (the
     * common vague Gamma(0.001, 0.001)) a Gamma draw underflows to 0 with
     * probability near 1/2, and alpha = 0 is not a valid concentration:
     * mcx_rgamma_conc() draws log alpha and keeps alpha >= DBL_MIN. */
    return mcx_rgamma_conc(a, r);
}

void mcx_dp_collapsed_sweep(mcx_mix *m, mcx_dp *s)
{
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    size_t sbytes = m->sstride * sizeof(double);
    double d = s->discount;
    int n = m->n;
    mcx_rperm(s->perm, n);
    for (int t = 0; t < n; t++) {
        int i = s->perm[t];
        const double *xi = mcx_mix_x(m, i);
        if (t + MCX_PREFETCH_AHEAD < n) {   /* the scan order is random: */
            int j = s->perm[t + MCX_PREFETCH_AHEAD];   /* hide the cache misses */
            MCX_PREFETCH(m->z + j);
            MCX_PREFETCH(s->prior_pred + j);
            MCX_PREFETCH(mcx_mix_x(m, j));
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
            logw[c] = s->log_count[m->size[c] - mine] +
                f->log_predictive(hyper, mine ? m->scratch : mcx_mix_stats(m, c),
                                  xi, m->work);
        }
        logw[K] = (K > 0 ? log(s->alpha + d * K) : 0.0) + s->prior_pred[i];
        int c = mcx_rcat_log(logw, K + 1);
        if (c == own) continue;
        if (own >= 0) mcx_mix_detach(m, i, m->scratch);
        if (c == K) mcx_mix_new_cluster(m);
        mcx_mix_add(m, i, c);
    }
    if (s->alpha_random)
        s->alpha = mcx_dp_alpha_update(s->alpha, m->K, n, s->shape, s->rate);
    s->log_lik = mcx_mix_log_marginal(m);
}
