/*
 * sampler_slice.c -- coordinate-wise slice sampling with stepping out and
 * shrinkage (Neal 2003, "Slice sampling", Ann. Statist. 31, Figs. 3 and 5).
 *
 * For coordinate j with current value x0 and log density f:
 *   log y = f(x0) - E,  E ~ Exp(1)                       (the slice level)
 *   L = x0 - w U, R = L + w; J = floor(m V), K = m - 1 - J
 *   while J > 0 and f(L) > log y: L -= w, J -= 1          (stepping out)
 *   while K > 0 and f(R) > log y: R += w, K -= 1
 *   repeat: x1 = L + U (R - L); if f(x1) > log y accept,
 *           else shrink: x1 < x0 ? L = x1 : R = x1        (shrinkage)
 *
 * Integer-valued coordinates (discrete = 1) are sampled through a
 * continuous auxiliary u whose density is f(floor(u)): given theta_j = k,
 * u ~ Uniform(k, k + 1); the slice update above is applied to u and theta_j
 * = floor(u).  The joint density of (theta_j, u) has the target as its
 * theta_j-marginal, so the update leaves the discrete target invariant (the
 * integer slice sampler, with stepping out and shrinkage over integers).
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler.h"

#define MCX_SLICE_MAX_SHRINK 10000

/* log density with coordinate j set to v (floor(v) when discrete) */
static double eval_at(mcx_tgt *h, double *x, int j, double v, int disc,
                      double *n_eval)
{
    x[j] = disc ? floor(v) : v;
    *n_eval += 1.0;
    return mcx_tgt_logd(h, x);
}

void mcx_slice_run(mcx_tgt *h, const double *width, const int *discrete,
                   int max_steps, mcx_slice_state *s, mcx_run *run)
{
    int d = h->dim, row = 0;
    double *x = s->theta;
    for (int i = 0; i < run->n; i++) {
        mcx_interrupt_point(16.0 * d);
        long g = run->offset + i + 1;
        *s->iteration += 1.0;
        h->iter = (long) *s->iteration;
        for (int j = 0; j < d; j++) {
            int disc = discrete[j];
            double w = width[j];
            double x0 = disc ? x[j] + unif_rand() : x[j];
            double kept = x[j];
            double logy = *s->logd - exp_rand();
            double L = x0 - w * unif_rand(), R = L + w;
            int J = (int) floor(max_steps * unif_rand()), K = max_steps - 1 - J;
            while (J > 0 && eval_at(h, x, j, L, disc, s->n_eval) > logy) { L -= w; J--; }
            while (K > 0 && eval_at(h, x, j, R, disc, s->n_eval) > logy) { R += w; K--; }
            int tries = 0;
            for (;;) {
                double x1 = L + unif_rand() * (R - L);
                double f1 = eval_at(h, x, j, x1, disc, s->n_eval);
                if (f1 > logy) { *s->logd = f1; break; }
                if (x1 < x0) L = x1; else R = x1;
                if (++tries > MCX_SLICE_MAX_SHRINK) {
                    x[j] = kept;
                    mcx_error("slice sampling of coordinate %d did not find a point "
                              "in the slice after %d shrinkage steps at iteration "
                              "%ld: is `log_density` deterministic?",
                              j + 1, MCX_SLICE_MAX_SHRINK, h->iter);
                }
            }
        }
        if (!run->warmup && g % run->thin == 0) {
            for (int j = 0; j < d; j++) run->out[row + (size_t) j * run->n_kept] = x[j];
            row++;
        }
    }
    if (row != run->n_kept) MCX_INTERNAL("kept rows mismatch");
}
