/*
 * mixture_icm.h -- MAP partitions by annealed Gibbs and iterated
 * conditional modes (mixture_icm.c).  SEXP-free.
 */
#ifndef MCMIX_MIXTURE_ICM_H
#define MCMIX_MIXTURE_ICM_H

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
#endif
