/*
 * mixture_rj.c -- Richardson and Green's (1997) reversible-jump sampler for
 * univariate Gaussian mixtures with an unknown number of components
 * (Murphy 2012, section 24.3.7; model and priors in mixture_rj.h).
 *
 * One sweep is R&G's moves (a)-(f):
 *   (a) w ~ Dirichlet(delta + n_1, ..., delta + n_k);
 *   (b) mu_j ~ N(.,.) given its members, then the components are put back
 *       in increasing order of mu (the sorted image of a move invariant
 *       for the symmetric unordered posterior leaves the ordered one
 *       invariant); 1/sigma2_j ~ Gamma(alpha + n_j/2, beta + SS_j/2);
 *   (c) z_i ~ w_j N(y_i | mu_j, sigma2_j);
 *   (d) beta ~ Gamma(g + k alpha, h + sum_j 1/sigma2_j);
 *   (e) split one component into two adjacent ones, or combine an
 *       adjacent pair (R&G section 3.2, moment-matching with
 *       u1, u2 ~ Beta(2, 2), u3 ~ U(0, 1); acceptance of their eq. (11));
 *   (f) birth of an empty component from the prior (w ~ Beta(1, k)) or
 *       death of an empty one (R&G section 3.3).
 */
#include <string.h>
#include <Rmath.h>
#include "mixture_rj.h"

double mcx_rj_log_b(const mcx_rj_common *c, int k)
{
    if (k >= c->kmax) return R_NegInf;
    return k <= 1 ? 0.0 : -M_LN2;
}

double mcx_rj_log_d(const mcx_rj_common *c, int k)
{
    if (k <= 1) return R_NegInf;
    return k >= c->kmax ? 0.0 : -M_LN2;
}

static double sq(double x) { return x * x; }

static double lnorm(double y, double mu, double s2)
{
    return -0.5 * (M_LN_2PI + log(s2) + sq(y - mu) / s2);
}

void mcx_rg_setup(mcx_rg *s, int n, const double *y, int kmax)
{
    s->n = n;
    s->y = y;
    s->c.kmax = kmax;
    size_t K = (size_t) kmax + 1;
    s->w = mcx_alloc(K, sizeof(double));
    s->mu = mcx_alloc(K, sizeof(double));
    s->s2 = mcx_alloc(K, sizeof(double));
    s->a = mcx_alloc(K, sizeof(double));
    s->sum = mcx_alloc(K, sizeof(double));
    s->ss = mcx_alloc(K, sizeof(double));
    s->nk = mcx_alloc(K, sizeof(int));
    s->map = mcx_alloc(2 * K, sizeof(int));
    s->z = mcx_alloc((size_t) n, sizeof(int));
    s->side = mcx_alloc((size_t) n, sizeof(int));
}

static void count(mcx_rg *s)
{
    for (int j = 0; j < s->k; j++) s->nk[j] = 0;
    for (int i = 0; i < s->n; i++) s->nk[s->z[i]]++;
}

/* Permute the components so that rank r holds old component ord[r]. */
static void permute(mcx_rg *s, const int *ord)
{
    int k = s->k, *inv = s->map + s->c.kmax + 1;
    double *arrays[3] = {s->w, s->mu, s->s2};
    for (int t = 0; t < 3; t++) {
        memcpy(s->a, arrays[t], (size_t) k * sizeof(double));
        for (int r = 0; r < k; r++) arrays[t][r] = s->a[ord[r]];
    }
    for (int r = 0; r < k; r++) inv[ord[r]] = r;
    for (int i = 0; i < s->n; i++) s->z[i] = inv[s->z[i]];
    count(s);
}

static void reorder(mcx_rg *s)
{
    int k = s->k, *ord = s->map, sorted = 1;
    for (int r = 0; r < k; r++) ord[r] = r;
    for (int r = 1; r < k; r++) {           /* insertion sort (k is small) */
        int v = ord[r], t = r;
        while (t > 0 && s->mu[ord[t - 1]] > s->mu[v]) { ord[t] = ord[t - 1]; t--; sorted = 0; }
        ord[t] = v;
    }
    if (!sorted) permute(s, ord);
}

static void update_params(mcx_rg *s)
{
    int k = s->k;
    for (int j = 0; j < k; j++) s->a[j] = s->c.delta + s->nk[j];
    mcx_rdirichlet(s->a, k, s->w);
    for (int j = 0; j < k; j++) s->sum[j] = 0.0;
    for (int i = 0; i < s->n; i++) s->sum[s->z[i]] += s->y[i];
    for (int j = 0; j < k; j++) {
        double prec = s->nk[j] / s->s2[j] + s->kappa;
        double mean = (s->sum[j] / s->s2[j] + s->kappa * s->xi) / prec;
        s->mu[j] = mean + norm_rand() / sqrt(prec);
    }
    reorder(s);
    for (int j = 0; j < k; j++) s->ss[j] = 0.0;
    for (int i = 0; i < s->n; i++) s->ss[s->z[i]] += sq(s->y[i] - s->mu[s->z[i]]);
    double tau = 0.0;
    for (int j = 0; j < k; j++) {
        double prec = mcx_rgamma(s->alpha + 0.5 * s->nk[j], s->beta + 0.5 * s->ss[j]);
        s->s2[j] = 1.0 / prec;
        tau += prec;
    }
    /* (c) allocations, then (d) beta */
    for (int i = 0; i < s->n; i++) {
        for (int j = 0; j < k; j++) s->a[j] = log(s->w[j]) + lnorm(s->y[i], s->mu[j], s->s2[j]);
        s->z[i] = mcx_rcat_log(s->a, k);
    }
    count(s);
    s->beta = mcx_rgamma(s->g + k * s->alpha, s->h + tau);
}

/* Log acceptance ratio of splitting component (ws, ms, vs) of a k-component
 * state into (w1, m1, v1) < (w2, m2, v2) with l1 and l2 members, dll the
 * change of the log-likelihood and lpa the log probability of the proposed
 * allocation (R&G 1997, eqs. 11-12, with variances v = sigma^2). */
static double split_log_ratio(const mcx_rg *s, int k, const double *t, const double *u,
                              int l1, int l2, double dll, double lpa)
{
    double ws = t[0], ms = t[1], vs = t[2], w1 = t[3], m1 = t[4], v1 = t[5];
    double w2 = t[6], m2 = t[7], v2 = t[8], d = s->c.delta;
    return dll + s->c.logpk[k] - s->c.logpk[k - 1] + log(k + 1.0) +
        (d - 1 + l1) * log(w1) + (d - 1 + l2) * log(w2) -
        (d - 1 + l1 + l2) * log(ws) - lbeta(d, k * d) +
        0.5 * log(s->kappa / (2 * M_PI)) -
        0.5 * s->kappa * (sq(m1 - s->xi) + sq(m2 - s->xi) - sq(ms - s->xi)) +
        s->alpha * log(s->beta) - lgammafn(s->alpha) -
        (s->alpha + 1) * (log(v1) + log(v2) - log(vs)) -
        s->beta * (1 / v1 + 1 / v2 - 1 / vs) +
        mcx_rj_log_d(&s->c, k + 1) - mcx_rj_log_b(&s->c, k) - lpa -
        dbeta(u[0], 2, 2, 1) - dbeta(u[1], 2, 2, 1) +
        log(ws * fabs(m2 - m1) * v1 * v2 / vs) -
        log(u[1] * (1 - u[1] * u[1]) * u[2] * (1 - u[2]));
}

/* Log probabilities of joining side 1 or 2 for observation y. */
static double side_logp(double y, const double *t, int side)
{
    double a1 = log(t[3]) + lnorm(y, t[4], t[5]), a2 = log(t[6]) + lnorm(y, t[7], t[8]);
    double mx = fmax(a1, a2), lse = mx + log(exp(a1 - mx) + exp(a2 - mx));
    return (side == 1 ? a1 : a2) - lse;
}

/* Insert a component at position p (components p.. move up one). */
static void insert_at(mcx_rg *s, int p, double w, double mu, double s2)
{
    for (int j = s->k; j > p; j--) {
        s->w[j] = s->w[j - 1]; s->mu[j] = s->mu[j - 1]; s->s2[j] = s->s2[j - 1];
        s->nk[j] = s->nk[j - 1];
    }
    s->w[p] = w; s->mu[p] = mu; s->s2[p] = s2; s->nk[p] = 0;
    for (int i = 0; i < s->n; i++) if (s->z[i] >= p) s->z[i]++;
    s->k++;
}

/* Remove component p, whose members (if any) must have been moved. */
static void remove_at(mcx_rg *s, int p)
{
    for (int j = p; j < s->k - 1; j++) {
        s->w[j] = s->w[j + 1]; s->mu[j] = s->mu[j + 1]; s->s2[j] = s->s2[j + 1];
        s->nk[j] = s->nk[j + 1];
    }
    for (int i = 0; i < s->n; i++) if (s->z[i] > p) s->z[i]--;
    s->k--;
}

static int accept(double log_ratio)
{
    return log_ratio >= 0 || log(unif_rand()) < log_ratio;
}

static void try_split(mcx_rg *s)
{
    int k = s->k, j = (int) floor(k * unif_rand());
    double u[3] = {rbeta(2, 2), rbeta(2, 2), unif_rand()}, t[9];
    double ws = s->w[j], ms = s->mu[j], vs = s->s2[j], sd = sqrt(vs);
    t[0] = ws; t[1] = ms; t[2] = vs;
    t[3] = ws * u[0]; t[6] = ws * (1 - u[0]);
    t[4] = ms - u[1] * sd * sqrt(t[6] / t[3]);
    t[7] = ms + u[1] * sd * sqrt(t[3] / t[6]);
    t[5] = u[2] * (1 - u[1] * u[1]) * vs * ws / t[3];
    t[8] = (1 - u[2]) * (1 - u[1] * u[1]) * vs * ws / t[6];
    s->c.tries[MCX_RJ_SPLIT]++;
    if (!(t[3] > 0 && t[6] > 0 && t[5] > 0 && t[8] > 0)) return;
    /* the two new components must be adjacent */
    if ((j > 0 && t[4] <= s->mu[j - 1]) || (j < k - 1 && t[7] >= s->mu[j + 1])) return;
    double lpa = 0.0, dll = 0.0;
    int l1 = 0, l2 = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->z[i] != j) continue;
        double y = s->y[i], p1 = exp(side_logp(y, t, 1));
        int side = unif_rand() < p1 ? 1 : 2;
        s->side[i] = side;
        lpa += side_logp(y, t, side);
        dll += (side == 1 ? lnorm(y, t[4], t[5]) : lnorm(y, t[7], t[8])) - lnorm(y, ms, vs);
        l1 += side == 1;
        l2 += side == 2;
    }
    if (!accept(split_log_ratio(s, k, t, u, l1, l2, dll, lpa))) return;
    s->c.accepts[MCX_RJ_SPLIT]++;
    s->w[j] = t[3]; s->mu[j] = t[4]; s->s2[j] = t[5];
    insert_at(s, j + 1, t[6], t[7], t[8]);
    for (int i = 0; i < s->n; i++)
        if (s->z[i] == j && s->side[i] == 2) s->z[i] = j + 1;
    s->nk[j] = l1;
    s->nk[j + 1] = l2;
}

static void try_combine(mcx_rg *s)
{
    int k = s->k, j = (int) floor((k - 1) * unif_rand());
    double t[9], u[3];
    double w1 = s->w[j], m1 = s->mu[j], v1 = s->s2[j];
    double w2 = s->w[j + 1], m2 = s->mu[j + 1], v2 = s->s2[j + 1];
    double ws = w1 + w2, ms = (w1 * m1 + w2 * m2) / ws;
    double vs = (w1 * v1 + w2 * v2) / ws + w1 * w2 * sq(m1 - m2) / sq(ws);
    t[0] = ws; t[1] = ms; t[2] = vs; t[3] = w1; t[4] = m1; t[5] = v1;
    t[6] = w2; t[7] = m2; t[8] = v2;
    u[0] = w1 / ws;
    u[1] = (ms - m1) / (sqrt(vs) * sqrt(w2 / w1));
    u[2] = v1 * w1 / (w1 * v1 + w2 * v2);
    s->c.tries[MCX_RJ_COMBINE]++;
    double lpa = 0.0, dll = 0.0;
    for (int i = 0; i < s->n; i++) {
        int zi = s->z[i];
        if (zi != j && zi != j + 1) continue;
        double y = s->y[i];
        lpa += side_logp(y, t, zi == j ? 1 : 2);
        dll += lnorm(y, s->mu[zi], s->s2[zi]) - lnorm(y, ms, vs);
    }
    if (!accept(-split_log_ratio(s, k - 1, t, u, s->nk[j], s->nk[j + 1], dll, lpa))) return;
    s->c.accepts[MCX_RJ_COMBINE]++;
    for (int i = 0; i < s->n; i++) if (s->z[i] == j + 1) s->z[i] = j;
    int nj = s->nk[j] + s->nk[j + 1];
    remove_at(s, j + 1);
    s->w[j] = ws; s->mu[j] = ms; s->s2[j] = vs; s->nk[j] = nj;
}

/* Log acceptance ratio of the birth of an empty component of weight w in a
 * k-component state with k0 empty components (R&G 1997, section 3.3; the
 * Beta(1, k) proposal density cancels the Jacobian (1 - w)^(k - 1)). */
static double birth_log_ratio(const mcx_rg *s, int k, double w, int k0)
{
    double d = s->c.delta;
    return s->c.logpk[k] - s->c.logpk[k - 1] - lbeta(k * d, d) + (d - 1) * log(w) +
        (s->n + k * d - k) * log1p(-w) + log(k + 1.0) + mcx_rj_log_d(&s->c, k + 1) -
        log(k0 + 1.0) - mcx_rj_log_b(&s->c, k) - log((double) k);
}

static void try_birth(mcx_rg *s)
{
    int k = s->k, k0 = 0;
    for (int j = 0; j < k; j++) k0 += s->nk[j] == 0;
    double w = rbeta(1, k), mu = s->xi + norm_rand() / sqrt(s->kappa);
    double s2 = 1.0 / mcx_rgamma(s->alpha, s->beta);
    s->c.tries[MCX_RJ_BIRTH]++;
    if (!(w < 1) || !accept(birth_log_ratio(s, k, w, k0))) return;
    s->c.accepts[MCX_RJ_BIRTH]++;
    for (int j = 0; j < k; j++) s->w[j] *= 1 - w;
    int p = 0;
    while (p < k && s->mu[p] < mu) p++;
    insert_at(s, p, w, mu, s2);
}

static void try_death(mcx_rg *s)
{
    int k = s->k, k0 = 0;
    for (int j = 0; j < k; j++) k0 += s->nk[j] == 0;
    s->c.tries[MCX_RJ_DEATH]++;
    if (k0 == 0) return;
    int e = (int) floor(k0 * unif_rand()), p = -1;
    for (int j = 0; j < k && e >= 0; j++) if (s->nk[j] == 0 && e-- == 0) p = j;
    double w = s->w[p];
    if (!accept(-birth_log_ratio(s, k - 1, w, k0 - 1))) return;
    s->c.accepts[MCX_RJ_DEATH]++;
    remove_at(s, p);
    for (int j = 0; j < s->k; j++) s->w[j] /= 1 - w;
}

void mcx_rg_sweep(mcx_rg *s)
{
    update_params(s);
    if (unif_rand() < exp(mcx_rj_log_b(&s->c, s->k))) try_split(s);
    else if (s->k > 1) try_combine(s);
    if (unif_rand() < exp(mcx_rj_log_b(&s->c, s->k))) try_birth(s);
    else if (s->k > 1) try_death(s);
}

double mcx_rg_log_lik(const mcx_rg *s)
{
    double ll = 0.0;
    for (int i = 0; i < s->n; i++) {
        double mx = R_NegInf;
        for (int j = 0; j < s->k; j++) {
            s->a[j] = log(s->w[j]) + lnorm(s->y[i], s->mu[j], s->s2[j]);
            if (s->a[j] > mx) mx = s->a[j];
        }
        double t = 0.0;
        for (int j = 0; j < s->k; j++) t += exp(s->a[j] - mx);
        ll += mx + log(t);
    }
    return ll;
}
