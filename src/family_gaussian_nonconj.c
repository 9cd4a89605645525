/*
 * family_gaussian_nonconj.c -- univariate normal components with
 * independent (semi-conjugate, not jointly conjugate) priors on the mean
 * and the variance: the compiled example of a non-conjugate family (plugin
 * ABI 2, slot param_update; see inst/include/mcmix.h and inst/design.md
 * sec. 9).
 *
 * Model:  x | mu, s2 ~ N(mu, s2),  mu ~ N(m0, v0),  s2 ~ InvGamma(a0, b0)
 * (shape a0, scale b0).  The marginal likelihood has no closed form, so
 * log_predictive and log_marginal are NULL and only the DP sampler "neal8"
 * accepts the family.  param_update is one Gibbs scan on (mu, s2) given the
 * cluster's n members (Gelman et al., BDA3 sec. 3.4, semi-conjugate prior):
 *   mu | s2, x ~ N(mean = (m0 / v0 + S1 / s2) / P, var = 1 / P),
 *                P = 1 / v0 + n / s2;
 *   s2 | mu, x ~ InvGamma(a0 + n / 2, b0 + (S2 - 2 mu S1 + n mu^2) / 2),
 * with S1 = sum x, S2 = sum x^2 (the stats block: n, S1, S2).
 *
 * Hyperparameter vector (R constructor gaussian_nonconj()): c(m0, v0, a0, b0).
 * Parameter vector theta: (mu, s2).
 */
#include "family_common.h"

typedef struct { double m0, v0, a0, b0; } gn_hyper;

static size_t hyper_size(int dim) { (void) dim; return MCX_DOUBLES(sizeof(gn_hyper)); }

static int hyper_init(void *hyper, int dim, const double *v, int n_values)
{
    if (dim != 1 || n_values != 4 || !(v[1] > 0.0) || !(v[2] > 0.0) || !(v[3] > 0.0))
        return 1;
    gn_hyper *h = hyper;
    h->m0 = v[0]; h->v0 = v[1]; h->a0 = v[2]; h->b0 = v[3];
    return 0;
}

static size_t work_size(const void *hyper) { (void) hyper; return 1; }
static size_t stats_size(const void *hyper) { (void) hyper; return 3; }

static void stats_reset(const void *hyper, void *stats)
{
    (void) hyper;
    double *s = stats;
    s[0] = s[1] = s[2] = 0.0;
}

static void stats_add(const void *hyper, void *stats, const double *x, double *work)
{
    (void) hyper; (void) work;
    double *s = stats;
    s[0] += 1.0; s[1] += x[0]; s[2] += x[0] * x[0];
}

static void stats_remove(const void *hyper, void *stats, const double *x, double *work)
{
    (void) hyper; (void) work;
    double *s = stats;
    s[0] -= 1.0; s[1] -= x[0]; s[2] -= x[0] * x[0];
    if (s[0] <= 0.0) s[0] = s[1] = s[2] = 0.0;
}

static size_t param_size(const void *hyper) { (void) hyper; return 2; }

/* A draw from the prior (the only use of param_draw for this family: the
 * DP samplers call it for empty clusters). */
static void param_draw(const void *hyper, const void *stats, double *theta, double *work)
{
    (void) stats; (void) work;
    const gn_hyper *h = hyper;
    theta[0] = h->m0 + sqrt(h->v0) * norm_rand();
    theta[1] = 1.0 / mcx_rgamma(h->a0, h->b0);
}

static double log_lik(const void *hyper, const double *theta, const double *x, double *work)
{
    (void) hyper; (void) work;
    double r = x[0] - theta[0];
    return -0.5 * (MCX_LOG_2PI + log(theta[1]) + r * r / theta[1]);
}

static void param_update(const void *hyper, const void *stats, double *theta,
                         const double *x, int n, double *work)
{
    (void) x; (void) n; (void) work;
    const gn_hyper *h = hyper;
    const double *s = stats;
    double nn = s[0], s1 = s[1], s2 = s[2];
    double prec = 1.0 / h->v0 + nn / theta[1];
    double mean = (h->m0 / h->v0 + s1 / theta[1]) / prec;
    double mu = mean + norm_rand() / sqrt(prec);
    double ss = s2 - 2.0 * mu * s1 + nn * mu * mu;
    if (ss < 0.0) ss = 0.0;
    theta[0] = mu;
    theta[1] = 1.0 / mcx_rgamma(h->a0 + 0.5 * nn, h->b0 + 0.5 * ss);
}

const mcx_family mcx_family_gaussian_nonconj = {
    MCX_ABI_VERSION, "gaussian_nonconj",
    hyper_size, hyper_init, work_size,
    stats_size, stats_reset, stats_add, stats_remove,
    NULL, NULL,               /* no closed-form predictive or marginal */
    param_size, param_draw, log_lik,
    param_update,
    NULL, NULL                /* no speed slots (ABI 4) */
};

/* pure C, no fast paths beyond the slots */
const mcx_family_caps mcx_caps_gaussian_nonconj = { .thread_safe = 1 };
