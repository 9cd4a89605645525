/*
 * mixture_slice.c -- slice sampler for Dirichlet / Pitman-Yor process
 * mixtures on the stick-breaking representation: Kalli, Griffin & Walker
 * (2011), "Slice sampling mixture models", Statistics and Computing 21,
 * sec. 2-3 (the dependent choice xi_j = w_j is Walker 2007).
 *
 * Model: w_j = v_j prod_{l<j} (1 - v_l), v_j ~ Beta(1 - d, alpha + j d)
 * (j = 1, 2, ...; d = 0 is the DP), theta_j ~ G0, z_i = j w.p. w_j.  With a
 * decreasing positive sequence xi_j and latent u_i,
 *   p(z_i = j, u_i | w) = 1(u_i < xi_j) w_j / xi_j,
 * so given u only the finitely many sticks with xi_j > u_i are candidates.
 * Sequences: geometric xi_j = (1 - kappa) kappa^(j-1) (deterministic,
 * KGW 2011 sec. 3, "independent slice-efficient"), or xi_j = w_j
 * ("dependent", Walker 2007).
 *
 * One sweep, given the stick labels z (the chain's state):
 * 1. v_j | z ~ Beta(1 - d + n_j, alpha + j d + sum_{l>j} n_l) for the sticks
 *    j <= J* (the largest occupied one), u integrated out (KGW eq. 6);
 * 2. alpha | v_{1..J*} ~ Gamma(a + J*, b - sum log(1 - v_j)) under a
 *    Gamma(a, b) prior (DP only): p(alpha | v, z) = p(alpha | v);
 * 3. theta_j | z: exact posterior draw (conjugate family), prior if empty;
 * 4. u_i | z, v ~ U(0, xi_{z_i});
 * 5. more sticks (v from the prior with the current alpha, theta from G0)
 *    until every stick that any u_i allows exists: xi_J <= min u for the
 *    geometric sequence, 1 - sum_{j<=J} w_j < min u for xi = w;
 * 6. z_i | u, v, theta: P(z_i = j) prop. to 1(u_i < xi_j) (w_j / xi_j) f(x_i | theta_j).
 * 0. (before 1) label-switching moves (Papaspiliopoulos & Roberts 2008,
 *    Biometrika 95, sec. 3.4): for j = 1 .. J*-1 in turn, propose to swap
 *    the labels of sticks j and j+1 (the partition, hence the likelihood,
 *    is unchanged), accepted with the ratio of the stick-label priors with
 *    v integrated out,
 *      p(z | alpha, d) = prod_j B(1 - d + n_j, alpha + j d + m_j)
 *                              / B(1 - d, alpha + j d),  m_j = sum_{l>j} n_l;
 *    only the factors j and j+1 change.  The blocked sampler alone moves
 *    large clusters to early sticks slowly.
 (v, alpha, theta, u) from their joint conditional
 * given z, so the labels alone are the state of a Markov chain with the
 * right stationary distribution; this is what the exported state keeps
 * (continuing a chain is one longer run).
 */
#include <string.h>
#include <float.h>
#include <Rmath.h>
#include "mixture_dp.h"

/* The row "slice" of the algorithm table (mixture_dp.h): settings
 * geometric (0/1), kappa, and the budget memory_budget (bytes) and
 * work_budget (label evaluations per sweep) of R/mixture_dp.R
 * slice_budget(); labels are stick indices (empty sticks allowed); the
 * discount must be fixed. */
typedef struct {
    int geometric;         /* xi_j = (1 - kappa) kappa^(j-1); else xi_j = w_j */
    double kappa;
    size_t psize;
    int cap;               /* capacity of the stick arrays */
    double *v, *w;         /* log(1 - v_j), log w_j (in logs: no underflow) */
    double *theta, *logw;
    double *u;             /* n */
    double *swap;          /* one stats block */
    int *cand;             /* candidate sticks of one observation */
    int n_sticks;          /* sticks instantiated in the last sweep */
    double max_sticks;     /* budget: more sticks is an error (0: no limit) */
} mcx_slice;

static void grow(mcx_slice *s, int need)
{
    if (need <= s->cap) return;
    int cap = s->cap;
    while (cap < need) cap *= 2;
    double *v = mcx_alloc((size_t) cap, sizeof(double));
    double *w = mcx_alloc((size_t) cap, sizeof(double));
    double *th = mcx_alloc((size_t) cap * s->psize, sizeof(double));
    double *lw = mcx_alloc((size_t) cap, sizeof(double));
    int *cand = mcx_alloc((size_t) cap, sizeof(int));
    memcpy(v, s->v, (size_t) s->cap * sizeof(double));
    memcpy(w, s->w, (size_t) s->cap * sizeof(double));
    memcpy(th, s->theta, (size_t) s->cap * s->psize * sizeof(double));
    s->v = v; s->w = w; s->theta = th; s->logw = lw; s->cand = cand;
    s->cap = cap;
}

static void setup(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                  const mcx_dp_saved *saved)
{
    mcx_slice *s = st;
    int geometric = control[0] != 0.0;
    double kappa = control[1];
    (void) p; (void) saved;
    if (geometric && !(kappa > 0.0 && kappa < 1.0)) MCX_INTERNAL("kappa not in (0, 1)");
    s->geometric = geometric;
    s->kappa = kappa;
    s->psize = m->fam->param_size(m->hyper);
    if (s->psize < 1) s->psize = 1;
    s->cap = 64;
    while (s->cap < 2 * m->K) s->cap *= 2;
    s->v = mcx_alloc((size_t) s->cap, sizeof(double));
    s->w = mcx_alloc((size_t) s->cap, sizeof(double));
    s->theta = mcx_alloc((size_t) s->cap * s->psize, sizeof(double));
    s->logw = mcx_alloc((size_t) s->cap, sizeof(double));
    s->cand = mcx_alloc((size_t) s->cap, sizeof(int));
    s->u = mcx_alloc((size_t) (m->n > 0 ? m->n : 1), sizeof(double));
    s->swap = mcx_alloc(m->sstride, sizeof(double));
    /* the budget: bytes and label work per stick */
    double per_stick = 8.0 * ((double) s->psize + (double) m->sstride + 8.0);
    s->max_sticks = fmin(control[2] / per_stick, fmax(1000.0, control[3] / m->n));
}

/* xi_j for stick j (0-based); s->w holds log w_j */
static inline double xi_of(const mcx_slice *s, int j)
{
    return s->geometric ? (1.0 - s->kappa) * R_pow_di(s->kappa, j) : exp(s->w[j]);
}

/* v ~ Beta(a, b) as log v and log(1 - v), from two Gamma draws in logs, so
 * that neither underflows nor rounds to log(0) when a or b is tiny. */
static void rbeta_logs(double a, double b, double *lv, double *l1mv)
{
    double g1 = mcx_rlog_gamma(a), g2 = mcx_rlog_gamma(b);
    double mx = g1 > g2 ? g1 : g2;
    double lse = mx + log(exp(g1 - mx) + exp(g2 - mx));
    *lv = g1 - lse;
    *l1mv = g2 - lse;
}

/* Step 0: adjacent label swaps, j = 0, 1, ... over the infinite sequence of
 * sticks: the scan goes on while stick j is occupied (an empty stick is
 * appended as stick j + 1 when needed), since a swap of two empty sticks
 * changes nothing.  Scanning only the first K sticks would never propose
 * moving the last cluster up, and the reverse of such moves would then be
 * missing (no detailed balance). */
static void label_swaps(mcx_mix *m, mcx_slice *s, const mcx_partition_prior *p)
{
    double d = p->discount, al = p->alpha;
    size_t sbytes = m->sstride * sizeof(double);
    /* after = m_{j+1} = sum_{l > j+1} n_l, from the positions > j+1, which
     * the swaps at positions < j+1 do not touch */
    int after = 0;
    for (int l = 2; l < m->K; l++) after += m->size[l];
    for (int j = 0; j < m->K; j++) {
        if (j + 1 == m->K) {
            if (m->size[j] == 0) break;
            mcx_mix_new_cluster(m);          /* an empty stick j + 1 */
        }
        int nj = m->size[j], nk = m->size[j + 1];
        if (nj != nk) {
            double b1 = al + (j + 1) * d, b2 = al + (j + 2) * d;
            double lr = lbeta(1.0 - d + nk, b1 + nj + after) + lbeta(1.0 - d + nj, b2 + after)
                - lbeta(1.0 - d + nj, b1 + nk + after) - lbeta(1.0 - d + nk, b2 + after);
            if (log(unif_rand()) < lr) {
                memcpy(s->swap, mcx_mix_stats(m, j), sbytes);
                memcpy(mcx_mix_stats(m, j), mcx_mix_stats(m, j + 1), sbytes);
                memcpy(mcx_mix_stats(m, j + 1), s->swap, sbytes);
                m->size[j] = nk;
                m->size[j + 1] = nj;
                for (int i = 0; i < m->n; i++) {
                    if (m->z[i] == j) m->z[i] = j + 1;
                    else if (m->z[i] == j + 1) m->z[i] = j;
                }
            }
        }
        if (j + 2 < m->K) after -= m->size[j + 2];
    }
    while (m->K > 0 && m->size[m->K - 1] == 0) m->K--;
}

static double sweep(void *st, mcx_mix *m, mcx_partition_prior *p)
{
    mcx_slice *s = st;
    const mcx_family *f = m->fam;
    const void *hyper = m->hyper;
    size_t ps = s->psize;
    int n = m->n;
    double d = p->discount;
    /* drop trailing empty sticks: J* = m->K afterwards */
    while (m->K > 0 && m->size[m->K - 1] == 0) m->K--;
    label_swaps(m, s, p);
    int Jstar = m->K;
    grow(s, Jstar + 1);
    /* 1. sticks given z (s->v: log(1 - v_j); s->w: log w_j) */
    int above = n;
    for (int j = 0; j < Jstar; j++) {
        above -= m->size[j];
        rbeta_logs(1.0 - d + m->size[j], p->alpha + (j + 1) * d + above,
                   s->w + j, s->v + j);
    }
    /* 2. alpha given v_1..J* */
    if (p->alpha_random) {
        double sl = 0.0;
        for (int j = 0; j < Jstar; j++) sl += s->v[j];
        p->alpha = mcx_rgamma_conc(p->shape + Jstar, p->rate - sl);  /* no underflow */
    }
    double lrest = 0.0;     /* log prod_{l<j} (1 - v_l) */
    for (int j = 0; j < Jstar; j++) {
        s->w[j] += lrest;
        lrest += s->v[j];
    }
    /* 3. parameters given z */
    for (int j = 0; j < Jstar; j++)
        f->param_draw(hyper, mcx_mix_stats(m, j), s->theta + j * ps, m->work);
    /* 4. slice variables */
    double umin = 1.0;
    for (int i = 0; i < n; i++) {
        s->u[i] = xi_of(s, m->z[i]) * unif_rand();
        if (s->u[i] < umin) umin = s->u[i];
    }
    if (umin < DBL_MIN) umin = DBL_MIN;   /* underflowed weights: stay finite */
    /* 5. enough sticks */
    int J = Jstar;
    for (;;) {
        int more = s->geometric ? xi_of(s, J) > umin : lrest >= log(umin);
        if (!more) break;
        if (s->max_sticks > 0 && J >= s->max_sticks)
            mcx_error("the slice sampler needs more than %.0f sticks, beyond the budget "
                      "(options `mcmix.work_budget` and `mcmix.memory_budget`): lower "
                      "`alpha`, `discount` or dp_control(kappa = ), or raise the budget",
                      s->max_sticks);
        mcx_interrupt_point((double) ps + 16.0);
        grow(s, J + 1);
        rbeta_logs(1.0 - d, p->alpha + (J + 1) * d, s->w + J, s->v + J);
        s->w[J] += lrest;
        lrest += s->v[J];
        f->param_draw(hyper, m->empty, s->theta + J * ps, m->work);
        J++;
    }
    while (m->K < J) mcx_mix_new_cluster(m);
    s->n_sticks = J;
    /* 6. labels */
    for (int i = 0; i < n; i++) {
        const double *xi = mcx_mix_x(m, i);
        int nc = 0;
        for (int j = 0; j < J; j++) {
            double xj = xi_of(s, j);
            /* (j == z_i: its own stick is always allowed, even if w_j
             * underflowed and u_i = 0) */
            if (!(s->u[i] < xj) && j != m->z[i]) {
                if (s->geometric) break;    /* decreasing: no later candidate */
                continue;
            }
            s->cand[nc] = j;
            /* log xi_j in logs when xi_j underflowed (kappa tiny) */
            double lxj = xj > 0.0 ? log(xj) : log1p(-s->kappa) + j * log(s->kappa);
            s->logw[nc] = (s->geometric ? s->w[j] - lxj : 0.0) +
                f->log_lik(hyper, s->theta + j * ps, xi, m->work);
            nc++;
        }
        if (nc == 0) MCX_INTERNAL("no candidate stick");
        int c = s->cand[mcx_rcat_log(s->logw, nc)];
        int old = m->z[i];
        if (c != old) {
            mcx_mix_remove(m, i);
            if (m->size[old] == 0)      /* no rounding residue in empty sticks */
                memcpy(mcx_mix_stats(m, old), m->empty, m->sstride * sizeof(double));
            mcx_mix_add(m, i, c);
        }
    }
    while (m->K > 0 && m->size[m->K - 1] == 0) m->K--;
    return mcx_mix_log_marginal(m);
}

static int capacity(const void *st) { return ((const mcx_slice *) st)->cap; }

static const char *const control_names[] = {"geometric", "kappa", "memory_budget",
                                            "work_budget", NULL};

const mcx_dp_algorithm mcx_dp_slice = {
    "slice", 1, 1, 0, sizeof(mcx_slice), control_names,
    setup, sweep, NULL, NULL, NULL, capacity
};
