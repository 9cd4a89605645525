/*
 * sampler_nuts_adapt.c -- chunks of NUTS iterations with Stan's windowed warm-up.
 *
 * Warm-up iteration w = 0 .. n_warmup - 1 (the chunk's offset + i):
 *   - the step size is adapted at every warm-up iteration by dual averaging
 *     (Hoffman and Gelman 2014, section 3.2, with Stan's constants
 *     gamma = 0.05, t0 = 10, kappa = 0.75) towards the mean acceptance
 *     statistic delta:
 *       sbar_m = (1 - 1/(m + t0)) sbar_{m-1} + (delta - a_m) / (m + t0)
 *       x_m    = mu - sqrt(m) / gamma * sbar_m,     eps_m = exp(x_m)
 *       xbar_m = m^-kappa x_m + (1 - m^-kappa) xbar_{m-1};
 *     after warm-up eps = exp(xbar);
 *   - the inverse metric is estimated from the draws of "slow" windows:
 *     after an initial fast buffer of init_buffer iterations, windows of
 *     base_window, 2 base_window, 4 base_window, ... iterations (the last one
 *     stretched to end term_buffer iterations before the end of warm-up).
 *     At the end of a window with n draws and sample covariance S (or its
 *     diagonal) the inverse metric becomes
 *       n / (n + 5) S + 1e-3 * 5 / (n + 5) I
 *     (Stan's regularisation), the step size is re-initialised by the
 *     doubling heuristic and dual averaging restarts with mu = log(10 eps);
 *   - the terminal fast buffer adapts the step size only.
 * The window boundaries live in the state (win_size, win_end), so chunks
 * of any length give the same chain.
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler_nuts.h"

/* Stan's heuristic: double or halve eps until the acceptance probability
 * of one leapfrog step from theta crosses 0.8. */
static void init_step_size(mcx_nuts_tree *t, const mcx_nuts_state *s)
{
    int d = t->d, direction = 0;
    for (int k = 0; k < 100; k++) {
        memcpy(t->z.q, s->theta, (size_t) d * sizeof(double));
        memcpy(t->z.g, s->grad, (size_t) d * sizeof(double));
        t->z.logd = *s->logd;
        mcx_nuts_momentum(t, t->z.p);
        double H0 = mcx_nuts_energy(t, &t->z);
        int ok = mcx_nuts_leapfrog(t, t->eps);
        double hv = ok ? mcx_nuts_energy(t, &t->z) : INFINITY;
        if (isnan(hv)) hv = INFINITY;
        int above = H0 - hv > log(0.8);
        if (direction == 0) direction = above ? 1 : -1;
        else if ((direction == 1 && !above) || (direction == -1 && above)) break;
        t->eps = direction == 1 ? 2.0 * t->eps : 0.5 * t->eps;
        if (t->eps > 1e7)
            mcx_error("the step size grew beyond 1e7 while tuning NUTS: the "
                      "target looks improper (unbounded in some direction), or "
                      "`inv_metric` is far too small for its scale.");
        if (t->eps < 1e-300)
            mcx_error("the step size fell to 0 while tuning NUTS: the log "
                      "density or its gradient is not well behaved at the "
                      "current point, or `inv_metric` is far too large for its "
                      "scale.");
    }
}

/* Add theta to the running moments of the window (Welford). */
static void window_add(const mcx_nuts_ctrl *c, mcx_nuts_state *s, int d)
{
    double n = ++*s->win_n;
    double *m = s->win_mean, *M2 = s->win_m2;
    if (!c->dense) {
        for (int j = 0; j < d; j++) {
            double dl = s->theta[j] - m[j];
            m[j] += dl / n;
            M2[j] += dl * (s->theta[j] - m[j]);
        }
        return;
    }
    /* dense: M2 += (x - m_old)(x - m_new)' = (1 - 1/n) dl dl' */
    double f = 1.0 - 1.0 / n;
    for (int k = 0; k < d; k++) {
        double dk = f * (s->theta[k] - m[k]);
        for (int j = 0; j < d; j++)
            M2[j + (size_t) k * d] += (s->theta[j] - m[j]) * dk;
    }
    for (int j = 0; j < d; j++) m[j] += (s->theta[j] - m[j]) / n;
}

/* End of a slow window: set the regularised inverse metric and restart. */
static void window_close(const mcx_nuts_ctrl *c, mcx_nuts_state *s, int d)
{
    double n = *s->win_n, a = n / (n + 5.0), b = 1e-3 * 5.0 / (n + 5.0);
    if (!c->dense) {
        for (int j = 0; j < d; j++)
            s->inv_metric[j] = a * s->win_m2[j] / (n - 1.0) + b;
    } else {
        size_t dd = (size_t) d * d;
        for (size_t i = 0; i < dd; i++)
            s->inv_metric[i] = a * s->win_m2[i] / (n - 1.0);
        for (int j = 0; j < d; j++) s->inv_metric[j + (size_t) j * d] += b;
        memcpy(s->chol, s->inv_metric, dd * sizeof(double));
        if (mcx_chol(s->chol, d) != 0)
            mcx_error("the estimated NUTS metric is not positive definite; "
                      "try metric = \"diag\" or a longer warm-up.");
    }
    *s->win_n = 0.0;
    memset(s->win_mean, 0, (size_t) d * sizeof(double));
    memset(s->win_m2, 0, (size_t) (c->dense ? d * d : d) * sizeof(double));
}

/* Stan's compute_next_window(): the window just closed ended at w. */
static void window_next(const mcx_nuts_ctrl *c, mcx_nuts_state *s, long w)
{
    long last = c->n_warmup - c->term_buffer - 1;
    if ((long) *s->win_end == last) return;
    *s->win_size *= 2.0;
    long next = w + (long) *s->win_size;
    if (next != last && next + 2 * (long) *s->win_size >= c->n_warmup - c->term_buffer)
        next = last;
    *s->win_end = (double) next;
}

static void dual_averaging(const mcx_nuts_ctrl *c, mcx_nuts_state *s, double accept)
{
    if (accept > 1.0) accept = 1.0;
    double m = ++*s->da_counter, eta = 1.0 / (m + c->t0);
    *s->da_sbar = (1.0 - eta) * *s->da_sbar + eta * (c->delta - accept);
    double x = *s->da_mu - *s->da_sbar * sqrt(m) / c->gamma;
    double xe = pow(m, -c->kappa);
    *s->da_xbar = (1.0 - xe) * *s->da_xbar + xe * x;
    *s->log_eps = x;
}

/* Energy statistics of the kept phase (for the E-BFMI). */
static void energy_add(mcx_nuts_state *s, double e)
{
    if (*s->e_n > 0) *s->e_sqdiff += (e - *s->e_prev) * (e - *s->e_prev);
    double n = ++*s->e_n, dl = e - *s->e_mean;
    *s->e_mean += dl / n;
    *s->e_m2 += dl * (e - *s->e_mean);
    *s->e_prev = e;
}

void mcx_nuts_run(mcx_tgt *h, const mcx_nuts_ctrl *c, mcx_nuts_state *s,
                  mcx_run *run, double *params)
{
    int d = h->dim, row = 0;
    mcx_nuts_tree t;
    memset(&t, 0, sizeof t);
    t.h = h;
    t.d = d;
    t.dense = c->dense;
    t.max_depth = c->max_depth;
    t.minv = s->inv_metric;
    t.chol = s->chol;
    mcx_nuts_tree_alloc(&t);
    for (int i = 0; i < run->n; i++) {
        long g = run->offset + i + 1, w = run->offset + i;
        *s->iteration += 1.0;
        h->iter = (long) *s->iteration;
        if (run->warmup && c->adapt_eps && w == 0) {
            t.eps = exp(*s->log_eps);
            init_step_size(&t, s);
            *s->log_eps = log(t.eps);
            *s->da_mu = log(10.0 * t.eps);
        }
        int adapted = c->adapt_eps && *s->da_counter > 0;
        t.eps = (!run->warmup && adapted) ? exp(*s->da_xbar) : exp(*s->log_eps);

        mcx_nuts_transition(&t, s->theta, s->logd, s->grad);
        double accept = t.n_leapfrog > 0 ? t.sum_metro / t.n_leapfrog : 0.0;

        if (run->warmup) {
            *s->w_divergent += t.divergent;
            *s->w_leapfrog += t.n_leapfrog;
            if (c->adapt_eps) dual_averaging(c, s, accept);
            if (c->adapt_metric) {
                if (w >= c->init_buffer && w < c->n_warmup - c->term_buffer)
                    window_add(c, s, d);
                if (w == (long) *s->win_end) {
                    window_next(c, s, w);
                    window_close(c, s, d);
                    t.eps = exp(*s->log_eps);
                    init_step_size(&t, s);
                    *s->log_eps = log(t.eps);
                    *s->da_mu = log(10.0 * t.eps);
                    *s->da_counter = 0.0;
                    *s->da_sbar = 0.0;
                    *s->da_xbar = 0.0;
                }
            }
        } else {
            *s->n_prop += 1.0;
            *s->n_divergent += t.divergent;
            *s->n_max_depth += (t.depth >= c->max_depth);
            *s->n_leapfrog += t.n_leapfrog;
            *s->sum_accept += accept;
            s->depth_counts[t.depth] += 1.0;
            energy_add(s, t.energy);
            if (g % run->thin == 0) {
                for (int j = 0; j < d; j++)
                    run->out[row + (size_t) j * run->n_kept] = s->theta[j];
                if (params != NULL) {
                    double v[MCX_NUTS_N_PARAMS] = {accept, t.eps, (double) t.depth,
                                                   (double) t.n_leapfrog,
                                                   (double) t.divergent, t.energy};
                    for (int j = 0; j < MCX_NUTS_N_PARAMS; j++)
                        params[row + (size_t) j * run->n_kept] = v[j];
                }
                row++;
            }
        }
    }
    if (row != run->n_kept) MCX_INTERNAL("kept rows mismatch");
}
