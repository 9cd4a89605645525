/*
 * sampler_nuts.h -- the No-U-Turn sampler (SEXP-free engine).
 *
 * sampler_nuts.c builds one multinomial NUTS transition (Betancourt 2017,
 * "A conceptual introduction to Hamiltonian Monte Carlo", appendix A; the
 * trajectory doubling of Hoffman and Gelman 2014, JMLR 15, 1593-1623) with
 * the generalised no-U-turn criterion on the sharp momenta M^{-1} p,
 * including the checks across the two halves of every merged subtree, as
 * in Stan.  sampler_nuts_adapt.c runs chunks of iterations with Stan's windowed
 * warm-up: step size by dual averaging (Hoffman and Gelman 2014, section
 * 3.2) and a diagonal or dense inverse metric estimated in doubling slow
 * windows, regularised towards 1e-3 I.
 */
#ifndef MCMIX_SAMPLER_NUTS_H
#define MCMIX_SAMPLER_NUTS_H

#include "sampler.h"

/* A point of phase space: position, momentum, gradient, log density. */
typedef struct mcx_nuts_point {
    double *q, *p, *g;
    double logd;
} mcx_nuts_point;

/* One transition's setting and bookkeeping. */
typedef struct mcx_nuts_tree {
    mcx_tgt *h;
    int d, dense, max_depth;
    const double *minv;      /* inverse metric: d (diagonal) or d x d */
    const double *chol;      /* dense: lower Cholesky factor of minv */
    double eps;              /* step size */
    mcx_nuts_point z;        /* the integrator's current point */
    double H0;
    /* results of the transition */
    int n_leapfrog, depth, divergent;
    double sum_metro, energy;
    double *work;            /* workspace (see mcx_nuts_tree_alloc) */
} mcx_nuts_tree;

/* Allocate the workspace of a tree of dimension d and depth max_depth. */
void mcx_nuts_tree_alloc(mcx_nuts_tree *t);
/* Hamiltonian -log pi(q) + p' M^{-1} p / 2 at z (+Inf outside the support). */
double mcx_nuts_energy(const mcx_nuts_tree *t, const mcx_nuts_point *z);
/* Draw p ~ N(0, M) into p. */
void mcx_nuts_momentum(const mcx_nuts_tree *t, double *p);
/* One leapfrog step of size e from t->z (one evaluation of the log density
 * and its gradient); 0 when the new point is rejected: outside the support,
 * or a non-finite value of the target (see mcx_tgt_logd_grad()). */
int mcx_nuts_leapfrog(mcx_nuts_tree *t, double e);
/* One NUTS transition from (theta, logd, grad), updated in place. */
void mcx_nuts_transition(mcx_nuts_tree *t, double *theta, double *logd,
                         double *grad);

/* Settings of a run (R/nuts.R builds them). */
typedef struct mcx_nuts_ctrl {
    int max_depth, dense;
    int adapt_eps, adapt_metric; /* during warm-up */
    long n_warmup;               /* total warm-up iterations */
    long init_buffer, term_buffer;
    double delta, gamma, t0, kappa;
} mcx_nuts_ctrl;

/* The chain's state, arrays owned by R (see R/nuts.R for the names). */
typedef struct mcx_nuts_state {
    double *theta, *logd, *grad, *iteration;
    double *inv_metric, *chol;              /* d or d x d; chol: d x d (dense) */
    double *log_eps, *da_mu, *da_sbar, *da_xbar, *da_counter;
    double *win_n, *win_mean, *win_m2, *win_size, *win_end;
    /* kept phase */
    double *n_prop, *n_divergent, *n_max_depth, *n_leapfrog, *sum_accept;
    double *depth_counts;                    /* max_depth + 1 */
    double *e_prev, *e_n, *e_mean, *e_m2, *e_sqdiff;
    /* warm-up */
    double *w_divergent, *w_leapfrog;
} mcx_nuts_state;

/* Number of sampler parameters per kept iteration (Stan's names):
 * accept_stat__, stepsize__, treedepth__, n_leapfrog__, divergent__,
 * energy__. */
#define MCX_NUTS_N_PARAMS 6

/* Run the chunk `run`; `params` (n_kept x MCX_NUTS_N_PARAMS, column-major,
 * or NULL) receives the sampler parameters of every kept iteration. */
void mcx_nuts_run(mcx_tgt *h, const mcx_nuts_ctrl *c, mcx_nuts_state *s,
                  mcx_run *run, double *params);

#endif
