/*
 * model_ising.c -- samplers for the 2-D lattice Ising model
 *
 *   p(x) propto exp( J sum_{edges (s,t)} x_s x_t + sum_t h_t x_t ),  x_t = +-1,
 *
 * on an nrow x ncol grid (4-neighbour edges, free or periodic boundary).
 * Gaussian local evidence psi_t(x_t) = N(y_t | x_t, sigma^2) is a field:
 * log psi_t(+1) - log psi_t(-1) = 2 y_t / sigma^2, so h_t += y_t / sigma^2
 * (the caller folds it into h).  Murphy (2012), section 24.2.2.
 *
 * Gibbs (eq. 24.4-24.6): p(x_t = +1 | rest) = sigm(2 (J eta_t + h_t)),
 *   eta_t = sum of the neighbouring spins; one sweep visits the sites in
 *   storage order.
 * Swendsen-Wang (section 24.5.3): bonds between equal neighbours switched on
 *   with probability 1 - exp(-2J); the connected components are found by
 *   union-find; with a field every component C is then set to +1 with
 *   probability sigm(2 sum_{t in C} h_t), independently (the standard
 *   extension: given the bonds, p(x | z) factorises over components with
 *   weight exp(x_C sum_{t in C} h_t)).  Requires J >= 0.
 * Sites are stored column-major: t = i + nrow * j.
 */
#include <Rmath.h>
#include "model.h"

/* Neighbour below (dir 0) or to the right (dir 1) of site t, or -1. */
static int next_site(const mcx_ising_data *d, int t, int dir)
{
    int i = t % d->nrow, j = t / d->nrow;
    if (dir == 0) {
        if (i + 1 < d->nrow) return t + 1;
        return d->periodic ? t - i : -1;
    }
    if (j + 1 < d->ncol) return t + d->nrow;
    return d->periodic ? i : -1;
}

/* Neighbour above (dir 0) or to the left (dir 1) of site t, or -1. */
static int prev_site(const mcx_ising_data *d, int t, int dir)
{
    int i = t % d->nrow, j = t / d->nrow;
    if (dir == 0) {
        if (i > 0) return t - 1;
        return d->periodic ? t + d->nrow - 1 : -1;
    }
    if (j > 0) return t - d->nrow;
    return d->periodic ? i + d->nrow * (d->ncol - 1) : -1;
}

double mcx_ising_energy(const mcx_ising_data *d, const int *x)
{
    const int N = d->nrow * d->ncol;
    double pair = 0.0, field = 0.0;
    for (int t = 0; t < N; t++) {
        for (int dir = 0; dir < 2; dir++) {
            int s = next_site(d, t, dir);
            if (s >= 0) pair += x[t] * x[s];
        }
        field += d->h[t] * x[t];
    }
    return -(d->J * pair + field);
}

static void gibbs_sweep(const mcx_ising_data *d, int *x)
{
    const int N = d->nrow * d->ncol;
    for (int t = 0; t < N; t++) {
        double eta = 0.0;
        for (int dir = 0; dir < 2; dir++) {
            int s = next_site(d, t, dir);
            if (s >= 0) eta += x[s];
            s = prev_site(d, t, dir);
            if (s >= 0) eta += x[s];
        }
        double a = 2.0 * (d->J * eta + d->h[t]);
        double p_plus = 1.0 / (1.0 + exp(-a));
        x[t] = unif_rand() < p_plus ? 1 : -1;
    }
}

static int find_root(int *parent, int t)
{
    while (parent[t] != t) {
        parent[t] = parent[parent[t]];   /* path halving */
        t = parent[t];
    }
    return t;
}

/* work: parent (N ints), cl_state (N ints), cl_field (N doubles) */
static void sw_step(const mcx_ising_data *d, int *x, int *parent, int *cl_state,
                    double *cl_field)
{
    const int N = d->nrow * d->ncol;
    const double p_bond = -expm1(-2.0 * d->J);
    for (int t = 0; t < N; t++) {
        parent[t] = t;
        cl_field[t] = 0.0;
    }
    /* bonds, visited site by site (down, then right) */
    for (int t = 0; t < N; t++)
        for (int dir = 0; dir < 2; dir++) {
            int s = next_site(d, t, dir);
            if (s < 0 || x[s] != x[t]) continue;
            if (unif_rand() < p_bond) {
                int a = find_root(parent, t), b = find_root(parent, s);
                if (a != b) parent[a < b ? b : a] = a < b ? a : b;
            }
        }
    for (int t = 0; t < N; t++) cl_field[find_root(parent, t)] += d->h[t];
    /* new state of every component, drawn at its root in site order */
    for (int t = 0; t < N; t++)
        if (parent[t] == t) {
            double p_plus = 1.0 / (1.0 + exp(-2.0 * cl_field[t]));
            cl_state[t] = unif_rand() < p_plus ? 1 : -1;
        }
    for (int t = 0; t < N; t++) x[t] = cl_state[find_root(parent, t)];
}

void mcx_ising_run(const mcx_ising_data *d, int method, int *spins,
                   double *spin_sum, const mcx_chunk *ch, double *traces, int *spins_out)
{
    const int n_iter = ch->n, thin = ch->thin, offset = ch->offset, warmup = ch->warmup,
              n_kept = ch->n_kept;
    const int N = d->nrow * d->ncol;
    int *parent = NULL, *cl_state = NULL;
    double *cl_field = NULL;
    if (method == 1) {
        if (d->J < 0.0) MCX_INTERNAL("Swendsen-Wang needs J >= 0");
        parent = mcx_alloc((size_t) N, sizeof(int));
        cl_state = mcx_alloc((size_t) N, sizeof(int));
        cl_field = mcx_alloc((size_t) N, sizeof(double));
    }
    int k_out = 0;
    for (int it = 1; it <= n_iter; it++) {
        mcx_interrupt_point(8.0 * d->nrow * d->ncol);
        if (method == 1) sw_step(d, spins, parent, cl_state, cl_field);
        else gibbs_sweep(d, spins);
        int g = offset + it;
        if (!warmup && g % thin == 0) {
            if (k_out >= n_kept) MCX_INTERNAL("more kept draws than allocated");
            double m = 0.0;
            for (int t = 0; t < N; t++) {
                m += spins[t];
                spin_sum[t] += spins[t];
            }
            traces[k_out] = m / N;
            traces[k_out + (size_t) n_kept] = mcx_ising_energy(d, spins);
            if (spins_out != NULL)
                for (int t = 0; t < N; t++)
                    spins_out[k_out + (size_t) t * n_kept] = spins[t];
            k_out++;
        }
    }
    if (k_out != n_kept) MCX_INTERNAL("fewer kept draws than allocated");
}
