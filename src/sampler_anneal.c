/*
 * sampler_anneal.c -- simulated annealing for the mode of a target
 * (Murphy 2012, section 24.6.1; Kirkpatrick, Gelatt and Vecchi 1983).
 *
 * At temperature T_k the chain is a random-walk Metropolis chain on
 * f(theta)^(1/T_k): a proposal theta' = theta + scale * z is accepted with
 * probability min(1, exp((log f(theta') - log f(theta)) / T_k)).  The
 * temperatures come from the caller (geometric cooling T_k = T_0 c^k by
 * default in R/anneal.R); the best point visited is returned.
 */
#include <string.h>
#include "sampler_smc.h"

double mcx_anneal_run(mcx_tgt *h, const double *temps, int n, int k_begin,
                      int k_end, const double *scale, double *theta, double *value,
                      double *best, double *best_value, double *path,
                      double *values, double *work)
{
    const int d = h->dim;
    double *y = work, acc = 0.0;
    if (k_begin < 0 || k_end > n || k_begin > k_end) MCX_INTERNAL("bad iteration range");
    for (int k = k_begin; k < k_end; k++) {
        h->iter = k + 1;
        for (int j = 0; j < d; j++) y[j] = theta[j] + scale[j] * norm_rand();
        double fy = mcx_tgt_logd(h, y);
        if (isfinite(fy) && log(unif_rand()) < (fy - *value) / temps[k]) {
            memcpy(theta, y, (size_t) d * sizeof(double));
            *value = fy;
            acc += 1.0;
            if (fy > *best_value) {
                memcpy(best, y, (size_t) d * sizeof(double));
                *best_value = fy;
            }
        }
        for (int j = 0; j < d; j++) path[k + (size_t) j * n] = theta[j];
        values[k] = *value;
    }
    return acc;
}
