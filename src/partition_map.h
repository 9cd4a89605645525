/*
 * partition_map.h -- MAP partitions by annealed Gibbs and iterated
 * conditional modes (partition_map.c).  SEXP-free.
 */
#ifndef MCMIX_PARTITION_MAP_H
#define MCMIX_PARTITION_MAP_H

#include "mixture_state.h"

typedef struct {
    int finite;          /* 1: finite mixture of K components, symmetric Dirichlet(a) */
    int K;
    double a;
    double alpha, d;     /* Pitman-Yor concentration and discount (d = 0: DP) */
    double c;            /* n_k + c for an existing cluster: a, or -d */
    double *logw;        /* scratch, n + 1 */
    int *perm;           /* scratch, n */
} mcx_icm;

void mcx_icm_setup(mcx_icm *s, const mcx_mix *m);
/* One sweep with the conditionals raised to `power` (R_PosInf: ICM).
 * The clusters of m are kept non-empty.  Returns the number of
 * observations that changed cluster slot. */
int mcx_icm_sweep(mcx_mix *m, mcx_icm *s, double power);
/* log p(partition) + log p(x | partition). */
double mcx_icm_log_post(const mcx_mix *m, const mcx_icm *s);

/* The annealing-then-ICM driver shared by the MAP searches (mixture
 * partitions here, Bayesian networks in model_bayesnet.c). */
typedef struct {
    void *ctx;
    void (*sweep)(void *ctx, double power);   /* one sweep at this power */
    double (*log_post)(void *ctx);            /* objective of the current state */
    void (*save_best)(void *ctx);             /* copy the current state as the best */
    double sweep_work;                        /* work units of one sweep (mcx_interrupt_point) */
} mcx_icm_problem;

/* Sweeps at powers schedule[0..ns-1], then ICM sweeps (power Inf) until
 * the objective stops increasing (at most max_icm).  The objective after
 * each sweep goes to trace (ns + max_icm entries); returns how many were
 * written.  *best holds the best objective (the initial state's counts),
 * the state saved by save_best(). */
int mcx_icm_run(const mcx_icm_problem *p, const double *schedule, int ns, int max_icm,
                double *trace, double *best);
#endif
