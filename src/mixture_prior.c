/*
 * mixture_prior.c -- the prior over partitions of the DP / Pitman-Yor
 * mixture samplers (mcx_partition_prior, mixture_dp.h) and the updates of
 * its parameters given the partition: the concentration by Escobar & West
 * (1995), the discount by slice sampling; and the concentration shared
 * by the group-level DPs of an HDP (Teh et al. 2006, appendix A).
 *
 * The exchangeable partition probability function of the two-parameter
 * Poisson-Dirichlet (Pitman-Yor) process with concentration alpha and
 * discount d, for K clusters of sizes n_1..n_K among n items, is
 *   p(partition | alpha, d) = prod_{j=1}^{K-1} (alpha + j d) / (alpha + 1)_{n-1}
 *                             * prod_k (1 - d)_{n_k - 1}
 * (Pitman 2006, Combinatorial Stochastic Processes, eq. 3.6), where
 * (a)_m = Gamma(a + m) / Gamma(a).  With alpha fixed and a Beta(da, db)
 * prior on d, the conditional of d given the partition is therefore
 *   p(d | K, n) prop. to  d^(da-1) (1-d)^(db-1) prod_{j=1}^{K-1} (alpha + j d)
 *                         prod_k Gamma(n_k - d) / Gamma(1 - d),
 * on alpha + d > 0, i.e. d in (max(0, -alpha), 1).  It is updated by one
 * univariate slice-sampling step (Neal 2003, "Slice sampling", sec. 4):
 * the support is bounded, so the interval starts as the whole support and
 * shrinks towards the current point after each rejection.
 */
#include <Rmath.h>
#include "mixture_dp.h"

void mcx_partition_prior_setup(mcx_partition_prior *p, int n)
{
    if (!(p->discount >= 0.0 && p->discount < 1.0) || !(p->alpha > -p->discount) ||
        (p->alpha_random && (p->discount != 0.0 || p->discount_random)))
        MCX_INTERNAL("invalid concentration or discount");
    p->n = n;
    p->log_count = NULL;
}

/* log(j - d) for j = 1..n, in the table of the rows that read it. */
static void fill_log_count(mcx_partition_prior *p)
{
    for (int j = 1; j <= p->n; j++) p->log_count[j] = log(j - p->discount);
}

void mcx_partition_prior_tabulate(mcx_partition_prior *p)
{
    if (p->log_count != NULL) return;
    p->log_count = mcx_alloc((size_t) p->n + 1, sizeof(double));
    p->log_count[0] = R_NegInf;
    fill_log_count(p);
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

double mcx_py_discount_logpost(double d, double alpha, const int *size, int nslots,
                               double da, double db)
{
    if (!(d > 0.0 && d < 1.0) || !(alpha + d > 0.0)) return R_NegInf;
    double lp = (da - 1.0) * log(d) + (db - 1.0) * log1p(-d);
    double lg1 = lgammafn(1.0 - d);
    int K = 0;
    for (int k = 0; k < nslots; k++) {
        if (size[k] <= 0) continue;            /* empty slots (slice sticks) */
        if (K > 0) lp += log(alpha + K * d);   /* j = 1 .. K - 1 */
        K++;
        if (size[k] > 1) lp += lgammafn(size[k] - d) - lg1;
    }
    return lp;
}

double mcx_py_discount_update(double d, double alpha, const int *size, int nslots,
                              double da, double db)
{
    double lo = alpha < 0.0 ? -alpha : 0.0, hi = 1.0;
    double y = mcx_py_discount_logpost(d, alpha, size, nslots, da, db) - exp_rand();
    if (!(y > R_NegInf)) MCX_INTERNAL("discount outside its support");
    for (int tries = 0; tries < 10000; tries++) {
        double prop = lo + (hi - lo) * unif_rand();
        if (mcx_py_discount_logpost(prop, alpha, size, nslots, da, db) > y) return prop;
        if (prop < d) lo = prop; else hi = prop;
    }
    return d;    /* the interval collapsed onto d (numerically) */
}

void mcx_partition_prior_update_counts(mcx_partition_prior *p, int K, int n)
{
    if (p->alpha_random && n >= 1)
        p->alpha = mcx_dp_alpha_update(p->alpha, K, n, p->shape, p->rate);
}

void mcx_partition_prior_update_groups(mcx_partition_prior *p, int K_total,
                                       const int *n_j, int J)
{
    /* Teh, Jordan, Beal and Blei (2006), appendix A: for J DPs sharing the
     * concentration alpha, with K_total clusters (tables) in all and n_j
     * draws in DP j,
     *   w_j ~ Beta(alpha + 1, n_j),  s_j ~ Bernoulli(n_j / (n_j + alpha)),
     *   alpha ~ Gamma(a + K_total - sum_j s_j, b - sum_j log w_j).
     * For J = 1 this is another auxiliary scheme for the update above. */
    if (!p->alpha_random) return;
    double shape = p->shape + K_total, rate = p->rate;
    for (int j = 0; j < J; j++) {
        int nj = n_j[j];
        if (nj == 0) continue;
        rate -= log(mcx_rbeta(p->alpha + 1.0, (double) nj));
        if (unif_rand() * (nj + p->alpha) < nj) shape -= 1.0;
    }
    p->alpha = mcx_rgamma_conc(shape, rate);   /* no underflow to 0 */
}

void mcx_partition_prior_update(mcx_partition_prior *p, const mcx_mix *m)
{
    mcx_partition_prior_update_counts(p, mcx_mix_n_occupied(m), m->n);
    if (p->discount_random) {
        double d = mcx_py_discount_update(p->discount, p->alpha, m->size, m->K,
                                          p->da, p->db);
        if (d != p->discount) {
            p->discount = d;
            if (p->log_count != NULL) fill_log_count(p);
        }
    }
}
