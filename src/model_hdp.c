/*
 * model_hdp.c -- hierarchical Dirichlet process mixture, Gibbs sampling in
 * the direct-assignment representation (Teh, Jordan, Beal and Blei 2006,
 * "Hierarchical Dirichlet processes", JASA, section 5.3 and appendix A;
 * Rogers and Girolami 2016, section 10.4.1 for the model).
 *
 *   G_0 ~ DP(gamma, H),  G_j ~ DP(alpha, G_0),  theta_ji ~ G_j,
 *   x_ji ~ F(theta_ji),  H conjugate to F (an mcx_family).
 *
 * State: the cluster z_ji of every observation, the global weights
 * beta = (beta_1 .. beta_K, beta_u) of the K represented clusters and of the
 * unrepresented rest, and the concentrations gamma and alpha.  One sweep:
 *
 * 1. for every observation in overall order (eq. 32 of Teh et al.):
 *      P(z_ji = k | rest) propto (n_jk^-i + alpha beta_k) f_k^-i(x_ji),
 *      P(z_ji = new)      propto alpha beta_u f_new(x_ji),
 *    f the family's collapsed predictive.  A new cluster takes
 *    beta_new = b beta_u, beta_u <- (1 - b) beta_u with b ~ Beta(1, gamma);
 *    a cluster left empty is dropped and its weight returns to beta_u.
 * 2. table counts (eq. 40; Antoniak 1974): m_jk = sum_{l=1}^{n_jk}
 *    Bernoulli(alpha beta_k / (alpha beta_k + l - 1)), which draws m_jk from
 *    P(m_jk = m | ...) propto s(n_jk, m) (alpha beta_k)^m (unsigned Stirling
 *    numbers of the first kind) without computing them.
 * 3. gamma | m, K (beta integrated out): the top-level DP seats m_..
 *    "customers" (tables) at K dishes, so gamma is the concentration of a
 *    partition prior with K clusters among m_.. items, updated by the
 *    shared Escobar and West (1995) step (mixture_prior.c).
 * 4. beta | m, gamma ~ Dir(m_.1, .., m_.K, gamma) (eq. 36).
 * 5. alpha | m, n: the concentration shared by the J group-level DPs with
 *    m_.. tables in all (Teh et al., appendix A; mixture_prior.c).
 * Steps 3-4 are a blocked update of (gamma, beta) given m.
 * Before step 1, `sm_moves` split-merge proposals on the global clusters
 * given beta and the concentrations (model_hdp_splitmerge.c).
 *
 * Cluster bookkeeping reuses mcx_mix (mixture_state.h); the per-cluster
 * arrays here (group counts, table counts, weights) follow its compaction:
 * deleting cluster k moves cluster K-1 into slot k.
 */
#include <string.h>
#include <Rmath.h>
#include "model_hdp.h"

/* A concentration as a partition prior (discount 0). */
static void conc_prior(mcx_partition_prior *p, mcx_hdp_conc c, int n)
{
    memset(p, 0, sizeof *p);
    p->alpha = c.value;
    p->alpha_random = !c.fixed;
    p->shape = c.shape;
    p->rate = c.rate;
    mcx_partition_prior_setup(p, n);
}

void mcx_hdp_build(mcx_hdp *h, const mcx_family *fam, const void *hyper,
                   const double *x, int n, int dim, const int *group, int J,
                   const int *labels, const double *beta, mcx_hdp_conc gamma,
                   mcx_hdp_conc alpha, int moves, int kind, int t, int sams)
{
    memset(h, 0, sizeof *h);
    for (int i = 0; i < n; i++)
        if (labels[i] < 0 || group[i] < 0 || group[i] >= J)
            MCX_INTERNAL("label or group out of range");
    mcx_mix_build(&h->mix, fam, hyper, x, n, dim, labels, 0);
    h->J = J;
    h->group = group;
    h->gibbs = 1;
    conc_prior(&h->top, gamma, n);
    conc_prior(&h->grp, alpha, n);
    h->n_j = mcx_alloc((size_t) J, sizeof(int));
    memset(h->n_j, 0, (size_t) J * sizeof(int));
    mcx_hdp_capacity(h);
    int K = h->mix.K;
    for (int k = 0; k < K; k++)
        if (h->mix.size[k] == 0) MCX_INTERNAL("empty cluster in the HDP state");
    for (int i = 0; i < n; i++) {
        h->njk[(size_t) labels[i] * J + group[i]]++;
        h->n_j[group[i]]++;
    }
    double s = 0.0;
    for (int k = 0; k <= K; k++) {
        if (!(beta[k] >= 0.0)) MCX_INTERNAL("negative global weight");
        h->beta[k] = beta[k];
        s += beta[k];
    }
    if (!(s > 0.0)) MCX_INTERNAL("global weights sum to zero");
    for (int k = 0; k <= K; k++) h->beta[k] /= s;
    mcx_hdp_sm_setup(h, moves, kind, t, sams);
}

/* Step 1: reassign every observation. */
static void hdp_assign(mcx_hdp *h)
{
    mcx_mix *m = &h->mix;
    const mcx_family *f = m->fam;
    const int J = h->J;
    const double alpha = h->grp.alpha, gamma = h->top.alpha;
    for (int i = 0; i < m->n; i++) {
        int j = h->group[i], k = m->z[i];
        const double *xi = mcx_mix_x(m, i);
        mcx_mix_remove(m, i);
        h->njk[(size_t) k * J + j]--;
        if (m->size[k] == 0) mcx_hdp_drop_cluster(h, k);
        int K = m->K;
        double *lw = h->logw;
        for (int c = 0; c < K; c++)
            lw[c] = log(h->njk[(size_t) c * J + j] + alpha * h->beta[c])
                + f->log_predictive(m->hyper, mcx_mix_stats(m, c), xi, m->work);
        lw[K] = log(alpha * h->beta[K])
            + f->log_predictive(m->hyper, m->empty, xi, m->work);
        k = mcx_rcat_log(lw, K + 1);
        if (k == K) {
            double bu = h->beta[K], b = mcx_rbeta(1.0, gamma);
            mcx_mix_new_cluster(m);
            mcx_hdp_capacity(h);
            h->beta[K] = b * bu;
            h->beta[K + 1] = (1.0 - b) * bu;
            memset(h->njk + (size_t) K * J, 0, (size_t) J * sizeof(int));
        }
        mcx_mix_add(m, i, k);
        h->njk[(size_t) k * J + j]++;
    }
}

/* Step 2: table counts by the Antoniak auxiliary draws. */
static void hdp_tables(mcx_hdp *h)
{
    const int K = h->mix.K, J = h->J;
    h->m_total = 0;
    for (int k = 0; k < K; k++) {
        double ab = h->grp.alpha * h->beta[k];
        int mk = 0;
        for (int j = 0; j < J; j++) {
            int njk = h->njk[(size_t) k * J + j];
            for (int l = 0; l < njk; l++)
                mk += unif_rand() * (ab + l) < ab;
        }
        h->mk[k] = mk;
        h->m_total += mk;
    }
}

/* Steps 3-5, through the shared partition-prior updates. */
static void hdp_concentrations(mcx_hdp *h)
{
    const int K = h->mix.K;
    mcx_partition_prior_update_counts(&h->top, K, h->m_total);
    for (int k = 0; k < K; k++) h->logw[k] = h->mk[k];
    h->logw[K] = h->top.alpha;
    mcx_rdirichlet(h->logw, K + 1, h->beta);
    mcx_partition_prior_update_groups(&h->grp, h->m_total, h->n_j, h->J);
}

void mcx_hdp_sweep(mcx_hdp *h)
{
    if ((h->sm_moves > 0 || h->gain_moves > 0) && h->mix.n >= 2) mcx_hdp_split_merge(h);
    if (h->gibbs) hdp_assign(h);
    hdp_tables(h);
    hdp_concentrations(h);
}

void mcx_hdp_run(mcx_hdp *h, const mcx_chunk *ch, double *traces, int *labels_out)
{
    const int n_iter = ch->n, thin = ch->thin, offset = ch->offset, warmup = ch->warmup,
              n_kept = ch->n_kept;
    int r = 0, n = h->mix.n;
    for (int it = 1; it <= n_iter; it++) {
        mcx_interrupt_point((double) n * (h->mix.K + 1) * (h->mix.dim + 1));
        mcx_hdp_sweep(h);
        int g = offset + it;
        /* stats from scratch on a rule of the iteration number only, never
         * of the chunking (mixture_state.h) */
        if (g % MCX_REFRESH_EVERY == 0) mcx_mix_refresh(&h->mix);
        if (warmup || g % thin != 0) continue;
        if (r >= n_kept) MCX_INTERNAL("more kept draws than allocated");
        traces[r] = h->mix.K;
        traces[r + (size_t) n_kept] = h->top.alpha;
        traces[r + 2 * (size_t) n_kept] = h->grp.alpha;
        traces[r + 3 * (size_t) n_kept] = mcx_mix_log_marginal(&h->mix);
        if (labels_out != NULL)
            for (int i = 0; i < n; i++)
                labels_out[r + (size_t) i * n_kept] = h->mix.z[i] + 1;
        r++;
    }
}
