/*
 * mixture_neal8.c -- Neal (2000), "Markov chain sampling methods for
 * Dirichlet process mixture models", algorithm 8 (sec. 6), with the
 * Pitman-Yor weights, for conjugate and non-conjugate component families.
 *
 * State: the partition (mcx_mix) and one parameter theta_k per cluster.
 * One sweep:
 * 1. For each observation i, in a fresh random permutation: remove x_i from
 *    its cluster c.  If c became empty, its parameter becomes the first
 *    auxiliary component and the cluster is deleted; the other auxiliary
 *    parameters (all m of them otherwise) are fresh draws from the prior
 *    G0.  Then draw z_i from
 *      existing cluster k:  (n_k^-i - d)           f(x_i | theta_k)
 *      auxiliary j:         (alpha + d K^-i) / m   f(x_i | phi_j)
 *    (Neal 2000, eq. 3.7 with the Pitman-Yor predictive rule of the
 *    two-parameter process); choosing an auxiliary opens a new cluster
 *    with parameter phi_j.
 * 2. Every cluster's parameter is updated given its members: for a
 *    conjugate family by an exact draw from p(theta | members) (param_draw),
 *    otherwise by the family's Markov move param_update (mcmix.h, ABI 2).
 * The alpha and discount updates (mixture_prior.c) follow the sweep.
 *
 * The row "neal8" of the algorithm table (mixture_dp.h): setting m_aux;
 * the clusters' parameters are exported as state$params (psize x K).
 */
#include <string.h>
#include "mixture_dp.h"

typedef struct {
    int m_aux;             /* number of auxiliary components */
    int conjugate;         /* parameter update: exact posterior draw */
    size_t psize;          /* doubles per component parameter */
    double *theta;         /* psize * (n + 1): parameters of clusters 0..K-1 */
    double *aux;           /* psize * m_aux */
    double *logw;          /* n + m_aux */
    double *xbuf;          /* dim * n: members of one cluster */
    int *perm, *order, *start;
} mcx_neal8;

/* Update every cluster's parameter given its members. */
static void update_params(mcx_mix *m, mcx_neal8 *s)
{
    const mcx_family *f = m->fam;
    size_t ps = s->psize;
    if (s->conjugate) {
        for (int k = 0; k < m->K; k++)
            f->param_draw(m->hyper, mcx_mix_stats(m, k), s->theta + k * ps, m->work);
        return;
    }
    mcx_param_update_fn upd = mcx_family_param_update(f);
    /* members grouped by cluster (counting sort, index order within) */
    int K = m->K, n = m->n, dim = m->dim;
    for (int k = 0; k <= K; k++) s->start[k] = 0;
    for (int i = 0; i < n; i++) s->start[m->z[i] + 1]++;
    for (int k = 0; k < K; k++) s->start[k + 1] += s->start[k];
    for (int i = 0; i < n; i++) s->order[s->start[m->z[i]]++] = i;
    for (int k = K; k > 0; k--) s->start[k] = s->start[k - 1];
    s->start[0] = 0;
    for (int k = 0; k < K; k++) {
        int nk = s->start[k + 1] - s->start[k];
        for (int r = 0; r < nk; r++)
            memcpy(s->xbuf + (size_t) r * dim, mcx_mix_x(m, s->order[s->start[k] + r]),
                   (size_t) dim * sizeof(double));
        upd(m->hyper, mcx_mix_stats(m, k), s->theta + k * ps, s->xbuf, nk, m->work);
    }
}

/* control[0] = m_aux; saved->params: psize x K parameters of the current
 * clusters, or NULL to draw them given the members (a fresh state). */
static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    mcx_neal8 *s = st;
    int n = m->n, m_aux = (int) control[0];
    mcx_partition_prior_tabulate(p);   /* the weights n_k - d */
    if (m_aux < 1) MCX_INTERNAL("neal8 needs at least one auxiliary component");
    s->m_aux = m_aux;
    s->conjugate = mcx_family_param_update(m->fam) == NULL;
    if (s->conjugate && !mcx_family_conjugate(m->fam))
        MCX_INTERNAL("family without a parameter update nor a conjugate prior");
    s->psize = m->fam->param_size(m->hyper);
    if (s->psize < 1) s->psize = 1;
    s->theta = mcx_alloc(s->psize * ((size_t) n + 1), sizeof(double));
    s->aux = mcx_alloc(s->psize * (size_t) m_aux, sizeof(double));
    s->logw = mcx_alloc((size_t) n + m_aux + 1, sizeof(double));
    s->xbuf = mcx_alloc((size_t) m->dim * (n > 0 ? n : 1), sizeof(double));
    s->perm = mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
    s->order = mcx_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
    s->start = mcx_alloc((size_t) n + 2, sizeof(int));
    if (m->K > n) MCX_INTERNAL("more clusters than observations");
    if (saved->params != NULL) {
        if (saved->n_params != s->psize * (size_t) m->K)
            MCX_INTERNAL("state$params does not match the clusters");
        memcpy(s->theta, saved->params, s->psize * (size_t) m->K * sizeof(double));
    } else {
        /* fresh state: start from the prior, then condition on the members
         * (for a non-conjugate family a few moves from the prior draw) */
        for (int k = 0; k < m->K; k++)
            m->fam->param_draw(m->hyper, m->empty, s->theta + k * s->psize, m->work);
        for (int r = 0; r < (s->conjugate ? 1 : 5); r++) update_params(m, s);
    }
}

static double sweep(void *st, mcx_mix *m, mcx_partition_prior *p)
{
    mcx_neal8 *s = st;
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    size_t ps = s->psize;
    size_t pbytes = ps * sizeof(double);
    int n = m->n, M = s->m_aux;
    double d = p->discount, log_m = log((double) M);
    mcx_rperm(s->perm, n);
    for (int t = 0; t < n; t++) {
        int i = s->perm[t];
        const double *xi = mcx_mix_x(m, i);
        int k = m->z[i];
        mcx_mix_remove(m, i);
        int first = 0;
        if (m->size[k] == 0) {
            /* the singleton's parameter becomes auxiliary component 1 */
            memcpy(s->aux, s->theta + k * ps, pbytes);
            int last = m->K - 1;
            mcx_mix_delete_cluster(m, k);
            if (k != last) memcpy(s->theta + k * ps, s->theta + last * ps, pbytes);
            first = 1;
        }
        for (int j = first; j < M; j++)
            f->param_draw(hyper, m->empty, s->aux + j * ps, m->work);
        int K = m->K;
        double *logw = s->logw;
        for (int c = 0; c < K; c++)
            logw[c] = p->log_count[m->size[c]] + f->log_lik(hyper, s->theta + c * ps, xi, m->work);
        double lnew = (K > 0 ? log(p->alpha + d * K) : 0.0) - log_m;
        for (int j = 0; j < M; j++)
            logw[K + j] = lnew + f->log_lik(hyper, s->aux + j * ps, xi, m->work);
        int c = mcx_rcat_log(logw, K + M);
        if (c >= K) {
            int kk = mcx_mix_new_cluster(m);
            memcpy(s->theta + kk * ps, s->aux + (c - K) * ps, pbytes);
            c = kk;
        }
        mcx_mix_add(m, i, c);
    }
    update_params(m, s);
    mcx_partition_prior_update(p, m);
    if (s->conjugate) return mcx_mix_log_marginal(m);
    double ll = 0.0;
    for (int i = 0; i < n; i++)
        ll += f->log_lik(hyper, s->theta + m->z[i] * ps, mcx_mix_x(m, i), m->work);
    return ll;
}

static const double *params(const void *st, const mcx_mix *m, int *rows, int *cols)
{
    const mcx_neal8 *s = st;
    *rows = (int) s->psize;
    *cols = m->K;
    return s->theta;
}

static const char *const control_names[] = {"m_aux", NULL};

const mcx_dp_algorithm mcx_dp_neal8 = {
    "neal8", 0, 0, 1, sizeof(mcx_neal8), control_names,
    setup, sweep, params, NULL, NULL, NULL
};
