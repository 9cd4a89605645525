/*
 * mixture_finite.c -- Gibbs samplers for finite Bayesian mixtures with K
 * components, weights w ~ Dirichlet(alpha_1, ..., alpha_K) and conjugate
 * component families.
 *
 * The three algorithms of De Bacco and Valera's lecture notes on Bayesian
 * mixture models ("Inferring BMMs via Gibbs sampling", Algorithms 1-3;
 * Sudderth 2011, slides "Collapsed Finite Mixture Sampler"):
 *
 *   gibbs (Alg. 1)   w | z ~ Dirichlet(alpha + n);  theta_k | z ~ p(theta_k | x_k);
 *                    z_i | w, theta  prop. to  w_k f(x_i | theta_k).
 *   collapsed_weights (Alg. 2)
 *                    theta_k | z ~ p(theta_k | x_k);
 *                    z_i | z_-i, theta  prop. to  (n_k^-i + alpha_k) f(x_i | theta_k).
 *   collapsed (Alg. 3)
 *                    z_i | z_-i  prop. to  (n_k^-i + alpha_k) p(x_i | x_{k,-i})
 *                    (the family's posterior predictive).
 *
 * The sweep starts with the parameters given the current assignments and
 * ends with the assignments, so the Markov chain state is the assignment
 * vector alone and the kept (w, theta, z) is one joint draw.  The
 * assignments of "gibbs" are conditionally independent given (w, theta)
 * and are visited in index order; the two collapsed samplers visit the
 * observations in a fresh random permutation every sweep.
 * Components may be empty; they keep their slot (labels are 0..K-1).
 */
#include <string.h>
#include "mixture.h"

static const struct {
    const char *name;
    mcx_finite_algorithm alg;
    int keeps_weights, keeps_params;
} finite_table[] = {
    {"gibbs", MCX_FINITE_GIBBS, 1, 1},
    {"collapsed_weights", MCX_FINITE_COLLAPSED_WEIGHTS, 0, 1},
    {"collapsed", MCX_FINITE_COLLAPSED, 0, 0},
};

mcx_finite_algorithm mcx_finite_algorithm_find(const char *name, int *keeps_weights,
                                               int *keeps_params)
{
    int n = (int) (sizeof finite_table / sizeof finite_table[0]);
    for (int i = 0; i < n; i++)
        if (strcmp(finite_table[i].name, name) == 0) {
            *keeps_weights = finite_table[i].keeps_weights;
            *keeps_params = finite_table[i].keeps_params;
            return finite_table[i].alg;
        }
    mcx_error("mcmix internal error: unknown finite mixture algorithm '%s' "
              "(known: gibbs, collapsed_weights, collapsed)", name);
}

void mcx_finite_setup(mcx_finite *s, const mcx_mix *m, mcx_finite_algorithm alg,
                      int K, const double *alpha)
{
    if (m->K != K) MCX_INTERNAL("finite mixture state has the wrong number of components");
    memset(s, 0, sizeof *s);
    s->algorithm = alg;
    s->K = K;
    s->alpha = alpha;
    s->psize = m->fam->param_size(m->hyper);
    s->weights = mcx_alloc((size_t) K, sizeof(double));
    s->theta = mcx_alloc((size_t) K * (s->psize > 0 ? s->psize : 1), sizeof(double));
    s->logw = mcx_alloc((size_t) K, sizeof(double));
    s->ll = mcx_alloc((size_t) K, sizeof(double));
    s->dir = mcx_alloc((size_t) K, sizeof(double));
    s->perm = mcx_alloc((size_t) (m->n > 0 ? m->n : 1), sizeof(int));
    for (int k = 0; k < K; k++) s->weights[k] = R_NaN;
    for (size_t j = 0; j < (size_t) K * s->psize; j++) s->theta[j] = R_NaN;
}

/* theta_k ~ p(theta_k | observations in k), the prior when k is empty. */
static void draw_params(mcx_mix *m, mcx_finite *s)
{
    for (int k = 0; k < s->K; k++)
        m->fam->param_draw(m->hyper, mcx_mix_stats(m, k),
                           s->theta + (size_t) k * s->psize, m->work);
}

/* Move observation i to component c (stats follow). */
static void move(mcx_mix *m, int i, int c)
{
    if (m->z[i] == c) return;
    mcx_mix_remove(m, i);
    mcx_mix_add(m, i, c);
}

/* Assignments given the parameters: with_weights = 1 uses log w_k (gibbs),
 * 0 uses log(n_k^-i + alpha_k) (collapsed_weights). */
static void assign_given_params(mcx_mix *m, mcx_finite *s, int with_weights)
{
    const mcx_family *f = m->fam;
    int K = s->K, n = m->n;
    double ll = 0.0;
    if (with_weights)
        for (int k = 0; k < K; k++) s->dir[k] = log(s->weights[k]);
    else
        mcx_rperm(s->perm, n);
    for (int t = 0; t < n; t++) {
        int i = with_weights ? t : s->perm[t];
        const double *xi = mcx_mix_x(m, i);
        int zi = m->z[i];
        for (int k = 0; k < K; k++) {
            double lk = f->log_lik(m->hyper, s->theta + (size_t) k * s->psize, xi, m->work);
            s->ll[k] = lk;
            s->logw[k] = lk + (with_weights ? s->dir[k]
                               : log(m->size[k] - (k == zi) + s->alpha[k]));
        }
        int c = mcx_rcat_log(s->logw, K);
        ll += s->ll[c];
        move(m, i, c);
    }
    s->log_lik = ll;
}

static void sweep_collapsed(mcx_mix *m, mcx_finite *s)
{
    const mcx_family *f = m->fam;
    int K = s->K, n = m->n;
    size_t sbytes = m->sstride * sizeof(double);
    mcx_rperm(s->perm, n);
    for (int t = 0; t < n; t++) {
        int i = s->perm[t];
        const double *xi = mcx_mix_x(m, i);
        /* the component without x_i is formed in scratch (see mixture_dp.c) */
        int own = m->z[i];
        memcpy(m->scratch, mcx_mix_stats(m, own), sbytes);
        f->stats_remove(m->hyper, m->scratch, xi, m->work);
        for (int k = 0; k < K; k++) {
            int mine = k == own;
            s->logw[k] = log(m->size[k] - mine + s->alpha[k]) +
                f->log_predictive(m->hyper, mine ? m->scratch : mcx_mix_stats(m, k),
                                  xi, m->work);
        }
        int c = mcx_rcat_log(s->logw, K);
        if (c == own) continue;
        mcx_mix_detach(m, i, m->scratch);
        mcx_mix_add(m, i, c);
    }
    s->log_lik = mcx_mix_log_marginal(m);
}

void mcx_finite_sweep(mcx_mix *m, mcx_finite *s)
{
    switch (s->algorithm) {
    case MCX_FINITE_GIBBS:
        for (int k = 0; k < s->K; k++) s->dir[k] = s->alpha[k] + m->size[k];
        mcx_rdirichlet(s->dir, s->K, s->weights);
        draw_params(m, s);
        assign_given_params(m, s, 1);
        break;
    case MCX_FINITE_COLLAPSED_WEIGHTS:
        draw_params(m, s);
        assign_given_params(m, s, 0);
        break;
    case MCX_FINITE_COLLAPSED:
        sweep_collapsed(m, s);
        break;
    default:
        MCX_INTERNAL("unknown finite mixture algorithm");
    }
}
