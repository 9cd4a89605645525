/*
 * sampler_hmc.c -- Hamiltonian Monte Carlo with a fixed number of leapfrog
 * steps, a diagonal mass matrix, and step-size adaptation by dual averaging
 * during burn-in (Hoffman & Gelman 2014, JMLR 15, section 3.2, Algorithm 5):
 *
 *   Hbar_m = (1 - 1/(m + t0)) Hbar_{m-1} + (delta - alpha_m) / (m + t0)
 *   log eps_m = mu - sqrt(m) / gamma * Hbar_m,       mu = log(10 eps_0)
 *   log epsbar_m = m^-kappa log eps_m + (1 - m^-kappa) log epsbar_{m-1}
 *
 * After burn-in the step size is fixed at epsbar.  Momentum p ~ N(0, M),
 * H(theta, p) = -log pi(theta) + p' M^-1 p / 2.  A transition whose energy
 * error exceeds 1000 (or is not finite, or leaves the support, or meets a
 * non-finite log density or gradient: mcx_tgt_logd_grad()) is a
 * divergence: it is rejected and counted.
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler.h"

#define MCX_HMC_DIVERGENCE 1000.0

void mcx_hmc_run(mcx_tgt *h, const mcx_hmc_ctrl *c, mcx_hmc_state *s,
                 mcx_run *run)
{
    int d = h->dim, row = 0;
    double *q = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *p = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *gq = (double *) mcx_alloc((size_t) d, sizeof(double));
    const double *M = c->mass;
    for (int i = 0; i < run->n; i++) {
        mcx_interrupt_point((double) d * (c->n_steps + 1));
        long g = run->offset + i + 1;
        *s->iteration += 1.0;
        h->iter = (long) *s->iteration;
        int adapting = c->adapt && run->warmup;
        double eps = (c->adapt && !run->warmup && *s->da_m > 0) ?
            exp(*s->da_log_eps_bar) : exp(*s->log_eps);
        double kin0 = 0.0;
        for (int j = 0; j < d; j++) {
            p[j] = sqrt(M[j]) * norm_rand();
            kin0 += p[j] * p[j] / M[j];
        }
        double H0 = -*s->logd + 0.5 * kin0;
        memcpy(q, s->theta, (size_t) d * sizeof(double));
        memcpy(gq, s->grad, (size_t) d * sizeof(double));
        double lq = *s->logd;
        int outside = 0;
        for (int j = 0; j < d; j++) p[j] += 0.5 * eps * gq[j];
        for (int l = 0; l < c->n_steps; l++) {
            for (int j = 0; j < d; j++) q[j] += eps * p[j] / M[j];
            if (!mcx_tgt_logd_grad(h, q, &lq, gq)) { outside = 1; break; }
            double f = (l == c->n_steps - 1) ? 0.5 : 1.0;
            for (int j = 0; j < d; j++) p[j] += f * eps * gq[j];
        }
        double alpha = 0.0;
        int accept = 0, divergent = outside;
        if (!outside) {
            double kin = 0.0;
            for (int j = 0; j < d; j++) kin += p[j] * p[j] / M[j];
            double dH = (-lq + 0.5 * kin) - H0;
            if (!isfinite(dH) || dH > MCX_HMC_DIVERGENCE) divergent = 1;
            else {
                alpha = dH <= 0 ? 1.0 : exp(-dH);
                accept = log(unif_rand()) < -dH;
            }
        }
        if (accept) {
            memcpy(s->theta, q, (size_t) d * sizeof(double));
            memcpy(s->grad, gq, (size_t) d * sizeof(double));
            *s->logd = lq;
        }
        if (run->warmup) *s->w_divergent += divergent;
        else {
            *s->n_prop += 1;
            *s->n_accept += accept;
            *s->sum_accept_prob += alpha;
            *s->n_divergent += divergent;
        }
        if (adapting) {
            double m = *s->da_m + 1.0, eta = 1.0 / (m + c->t0);
            *s->da_hbar = (1.0 - eta) * *s->da_hbar + eta * (c->delta - alpha);
            *s->log_eps = *s->da_mu - sqrt(m) / c->gamma * *s->da_hbar;
            double w = pow(m, -c->kappa);
            *s->da_log_eps_bar = w * *s->log_eps + (1.0 - w) * *s->da_log_eps_bar;
            *s->da_m = m;
        }
        if (!run->warmup && g % run->thin == 0) {
            for (int j = 0; j < d; j++) run->out[row + (size_t) j * run->n_kept] = s->theta[j];
            row++;
        }
    }
    if (row != run->n_kept) MCX_INTERNAL("kept rows mismatch");
}
