/*
 * partition_map.c -- MAP partitions of conjugate mixtures by annealed Gibbs
 * sampling and iterated conditional modes (Geman and Geman 1984; Besag 1986).
 *
 * The collapsed conditional of observation i given the other allocations
 * is, on partitions (empty components of a finite mixture lumped into one
 * "new cluster" choice),
 *   existing cluster k:  (n_k^-i + c) p(x_i | x_k^-i),
 *   new cluster:         w_new(b) p(x_i),
 * with, for a finite mixture of K components and symmetric Dirichlet(a)
 * weights, c = a and w_new = (K - b) a (b = clusters of the others); for a
 * Pitman-Yor (Dirichlet process when d = 0) mixture, c = -d and
 * w_new = alpha + d b.  A sweep visits the observations in random order
 * and draws from the conditional raised to the power `power` (the inverse
 * temperature T of section 2.4.2: 1 is Gibbs sampling, larger values make
 * it peakier); power = Inf takes the mode (ICM).
 */
#include <string.h>
#include <Rmath.h>
#include "partition_map.h"

void mcx_icm_setup(mcx_icm *s, const mcx_mix *m)
{
    s->logw = mcx_alloc((size_t) m->n + 1, sizeof(double));
    s->perm = mcx_alloc((size_t) m->n, sizeof(int));
}

static double log_new_weight(const mcx_icm *s, int b)
{
    if (s->finite) return b < s->K ? log((double) (s->K - b)) + log(s->a) : R_NegInf;
    return log(s->alpha + s->d * b);
}

double mcx_icm_log_post(const mcx_mix *m, const mcx_icm *s)
{
    int b = m->K, n = m->n;
    double lp = 0.0;
    if (s->finite) {
        if (b > s->K) return R_NegInf;
        lp = lgammafn(s->K + 1.0) - lgammafn(s->K - b + 1.0) +
            lgammafn(s->K * s->a) - lgammafn(s->K * s->a + n);
        for (int k = 0; k < b; k++) lp += lgammafn(s->a + m->size[k]) - lgammafn(s->a);
    } else {
        for (int i = 1; i < b; i++) lp += log(s->alpha + i * s->d);
        lp -= lgammafn(s->alpha + n) - lgammafn(s->alpha + 1.0);
        for (int k = 0; k < b; k++) lp += lgammafn(m->size[k] - s->d) - lgammafn(1.0 - s->d);
    }
    return lp + mcx_mix_log_marginal(m);
}

/* Index of the largest entry (the first among ties). */
static int argmax(const double *v, int k)
{
    int best = 0;
    for (int j = 1; j < k; j++) if (v[j] > v[best]) best = j;
    return best;
}

int mcx_icm_sweep(mcx_mix *m, mcx_icm *s, double power)
{
    const mcx_family *f = m->fam;
    int moved = 0;
    mcx_rperm(s->perm, m->n);
    for (int t = 0; t < m->n; t++) {
        int i = s->perm[t], own = m->z[i];
        const double *xi = mcx_mix_x(m, i);
        mcx_mix_remove(m, i);
        if (m->size[own] == 0) {
            mcx_mix_delete_cluster(m, own);
            if (own == m->K) own = -1;   /* its slot is gone */
        }
        int K = m->K;
        for (int k = 0; k < K; k++)
            s->logw[k] = log(m->size[k] + s->c) +
                f->log_predictive(m->hyper, mcx_mix_stats(m, k), xi, m->work);
        s->logw[K] = log_new_weight(s, K) + f->log_predictive(m->hyper, m->empty, xi, m->work);
        int c;
        if (power == R_PosInf) {
            c = argmax(s->logw, K + 1);
        } else {
            for (int k = 0; k <= K; k++) s->logw[k] *= power;
            c = mcx_rcat_log(s->logw, K + 1);
        }
        if (c == K) c = mcx_mix_new_cluster(m);
        moved += c != own;
        mcx_mix_add(m, i, c);
    }
    return moved;
}

int mcx_icm_run(const mcx_icm_problem *p, const double *schedule, int ns, int max_icm,
                double *trace, double *best)
{
    double prev = p->log_post(p->ctx);
    *best = prev;
    p->save_best(p->ctx);
    int done = 0;
    for (int t = 0; t < ns + max_icm; t++) {
        p->sweep(p->ctx, t < ns ? schedule[t] : R_PosInf);
        double lp = p->log_post(p->ctx);
        trace[done++] = lp;
        if (lp > *best) {
            *best = lp;
            p->save_best(p->ctx);
        }
        if (t >= ns && !(lp > prev)) break;     /* ICM reached a local mode */
        prev = lp;
        mcx_interrupt_point(p->sweep_work);
    }
    return done;
}
