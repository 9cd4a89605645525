/*
 * sampler_tempering.c -- parallel tempering (population MCMC).
 *
 * K chains, chain k targets pi_k(theta) ~ p(X | theta)^t_k p(theta) with
 * 1 = t_1 > t_2 > ... > t_K > 0.  Each iteration makes one random-walk
 * Metropolis step in every chain (normal proposal, scale s_k per
 * temperature), then proposes to swap the states of one pair of
 * neighbouring temperatures (k, k+1) chosen uniformly, accepted with
 * probability min(1, exp((t_k - t_{k+1}) (l_{k+1} - l_k))) where l is the
 * log likelihood (the prior cancels).  The joint target prod_k pi_k is left
 * invariant, so chain 1 samples the posterior.
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler.h"

void mcx_pt_run(mcx_tgt *lik, mcx_tgt *prior, const double *temps, int K,
                const double *scales, mcx_pt_state *s, mcx_run *run)
{
    int d = lik->dim, row = 0;
    double *y = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *tmp = (double *) mcx_alloc((size_t) d, sizeof(double));
    for (int i = 0; i < run->n; i++) {
        mcx_interrupt_point(4.0 * K * d);
        long g = run->offset + i + 1;
        *s->iteration += 1.0;
        lik->iter = prior->iter = (long) *s->iteration;
        for (int k = 0; k < K; k++) {
            double *x = s->theta + (size_t) k * d;
            for (int j = 0; j < d; j++) y[j] = x[j] + scales[k] * norm_rand();
            double lpy = mcx_tgt_logd(prior, y);
            double lly = isfinite(lpy) ? mcx_tgt_logd(lik, y) : -INFINITY;
            double log_r = isfinite(lpy) && isfinite(lly) ?
                temps[k] * (lly - s->ll[k]) + (lpy - s->lp[k]) : -INFINITY;
            int accept = log_r >= 0 || log(unif_rand()) < log_r;
            if (accept) {
                memcpy(x, y, (size_t) d * sizeof(double));
                s->ll[k] = lly;
                s->lp[k] = lpy;
            }
            if (!run->warmup) { s->n_prop[k] += 1; s->n_accept[k] += accept; }
        }
        if (K > 1) {
            int k = (int) floor(unif_rand() * (K - 1));
            if (k > K - 2) k = K - 2;
            double log_r = (temps[k] - temps[k + 1]) * (s->ll[k + 1] - s->ll[k]);
            int accept = log_r >= 0 || log(unif_rand()) < log_r;
            if (accept) {
                double *a = s->theta + (size_t) k * d, *b = a + d, t;
                memcpy(tmp, a, (size_t) d * sizeof(double));
                memcpy(a, b, (size_t) d * sizeof(double));
                memcpy(b, tmp, (size_t) d * sizeof(double));
                t = s->ll[k]; s->ll[k] = s->ll[k + 1]; s->ll[k + 1] = t;
                t = s->lp[k]; s->lp[k] = s->lp[k + 1]; s->lp[k + 1] = t;
            }
            if (!run->warmup) { s->swap_prop[k] += 1; s->swap_accept[k] += accept; }
        }
        if (!run->warmup && g % run->thin == 0) {
            for (int j = 0; j < d; j++) run->out[row + (size_t) j * run->n_kept] = s->theta[j];
            row++;
        }
    }
    if (row != run->n_kept) MCX_INTERNAL("kept rows mismatch");
}
