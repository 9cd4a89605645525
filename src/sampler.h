/*
 * sampler.h -- the generic samplers of the engine (SEXP-free).
 *
 * Every sampler advances a state held in plain arrays owned by R (the
 * state list of the chain, see R/chains.R), so that the state after a chunk
 * of iterations is all that is needed to continue: running n1 then n2
 * iterations gives the draws of one run of n1 + n2.
 *
 * Common run arguments (mcx_run, filled from the chunk, mcmix_chunk.h):
 *   n        number of iterations of this chunk
 *   thin     keep iteration g when g % thin == 0 (only when !warmup)
 *   offset   iterations of this phase already done (g = offset + 1 ...)
 *   warmup   non-zero during burn-in: nothing is kept, adaptation allowed
 *   out      kept draws, column-major n_kept x dim (n_kept rows)
 */
#ifndef MCMIX_SAMPLER_H
#define MCMIX_SAMPLER_H

#include "sampler_target.h"

typedef struct mcx_run {
    int     n, thin, warmup;
    long    offset;
    double *out;
    int     n_kept;
} mcx_run;


/* ------------------------------------------------------------------ */
/* Metropolis-Hastings (sampler_mh.c)                                  */
/* ------------------------------------------------------------------ */
enum { MCX_PROP_RW = 0, MCX_PROP_INDEP = 1, MCX_PROP_CUSTOM = 2 };
enum { MCX_ADAPT_NONE = 0, MCX_ADAPT_SCALE = 1, MCX_ADAPT_HAARIO = 2 };

typedef struct mcx_mh_prop {
    int     kind;              /* MCX_PROP_* */
    double  weight;            /* probability of choosing this proposal */
    double *L;                 /* RW and INDEP: lower Cholesky factor of the covariance */
    double *mean;              /* INDEP: mean */
    double  logdet;            /* INDEP: log det(L L') */
    /* CUSTOM: y ~ q(. | x), and log q(y | x) (NULL when symmetric) */
    void   (*draw)(const double *x, double *y, void *ctx);
    double (*logq)(const double *y, const double *x, void *ctx);
    void   *ctx;
} mcx_mh_prop;

typedef struct mcx_mh_adapt {
    int    kind;               /* MCX_ADAPT_* */
    int    always;             /* also adapt after burn-in (diminishing) */
    double target_accept;      /* SCALE: acceptance rate aimed at */
    double kappa;              /* SCALE: gain t^-kappa */
    double sd;                 /* HAARIO: s_d (2.38^2 / d by default) */
    double eps;                /* HAARIO: eps added to the diagonal */
    double start;              /* HAARIO: iterations before the first update */
} mcx_mh_adapt;

/* The chain's state, arrays owned by R. */
typedef struct mcx_mh_state {
    double *theta, *logd, *iteration;
    double *n_accept, *n_prop;           /* kept phase, totals */
    double *w_accept, *w_prop;           /* warm-up, totals */
    double *comp_accept, *comp_prop;     /* per proposal (all phases) */
    double *log_scale, *adapt_t;         /* adaptation */
    double *adapt_mean, *adapt_m2;       /* Haario running moments (d, d x d) */
} mcx_mh_state;

void mcx_mh_run(mcx_tgt *h, mcx_mh_prop *props, int n_props,
                const mcx_mh_adapt *ad, mcx_mh_state *s, mcx_run *run);

/* ------------------------------------------------------------------ */
/* Slice sampling (sampler_slice.c)                                    */
/* ------------------------------------------------------------------ */
typedef struct mcx_slice_state {
    double *theta, *logd, *iteration, *n_eval;
} mcx_slice_state;

void mcx_slice_run(mcx_tgt *h, const double *width, const int *discrete,
                   int max_steps, mcx_slice_state *s, mcx_run *run);

/* ------------------------------------------------------------------ */
/* Hamiltonian Monte Carlo (sampler_hmc.c)                             */
/* ------------------------------------------------------------------ */
typedef struct mcx_hmc_ctrl {
    int     n_steps;
    const double *mass;        /* diagonal of the mass matrix (d) */
    int     adapt;             /* dual averaging during burn-in */
    double  delta, gamma, t0, kappa;
} mcx_hmc_ctrl;

typedef struct mcx_hmc_state {
    double *theta, *logd, *grad, *iteration;
    double *log_eps, *da_mu, *da_hbar, *da_log_eps_bar, *da_m;
    double *n_accept, *n_prop, *sum_accept_prob, *n_divergent;
    double *w_divergent;
} mcx_hmc_state;

void mcx_hmc_run(mcx_tgt *h, const mcx_hmc_ctrl *c, mcx_hmc_state *s,
                 mcx_run *run);

/* ------------------------------------------------------------------ */
/* Parallel tempering (sampler_tempering.c)                            */
/* ------------------------------------------------------------------ */
typedef struct mcx_pt_state {
    double *theta;             /* d x K, column k at temperature k */
    double *ll, *lp;           /* log likelihood and log prior per chain */
    double *iteration;
    double *n_accept, *n_prop; /* per temperature, kept phase */
    double *swap_accept, *swap_prop; /* per neighbour pair (K - 1), kept phase */
} mcx_pt_state;

void mcx_pt_run(mcx_tgt *lik, mcx_tgt *prior, const double *temps, int K,
                const double *scales, mcx_pt_state *s, mcx_run *run);

#endif
