/*
 * partition.h -- SEXP-free point estimates of a partition from posterior
 * draws (partition_loss.c: expected losses; partition_search.c: greedy
 * search; partition_salso.c: randomised sequential allocation).  MAP
 * partitions of a mixture are partition_map.h.
 */
#ifndef MCMIX_PARTITION_H
#define MCMIX_PARTITION_H
#include "mcmix_engine.h"

/* partition_loss.c / partition_search.c; loss codes */
enum { MCX_LOSS_VI = 1, MCX_LOSS_BINDER = 2, MCX_LOSS_VI_LB = 3 };
double mcx_xlog2x(double x);
int mcx_canonical(int *cl, int N, int *map, int maxlab);
/* scratch of mcx_vi_expected() / mcx_vi_lb() for partitions of N items */
typedef struct { int N; int *cnt, *ccnt, *first, *next, *touched; } mcx_loss_work;
void mcx_loss_work_init(mcx_loss_work *w, int N);
double mcx_vi_expected(const int *cl, const int *labels, int S, int N, mcx_loss_work *w);
/* Distance (VI, or Binder's count of pairs) to each draw into out (or NULL); the mean. */
double mcx_dist_draws(const int *cl, const int *labels, int S, int N, mcx_loss_work *w,
                      int loss, double *out);
double mcx_binder_expected(const int *cl, const double *psm, int N);
double mcx_vi_lb(const int *cl, const double *psm, int N, mcx_loss_work *w);
/* greedy search state (partition_search.c) */
typedef struct {
    int *cl, N, loss, Kcap;       /* cl: the partition, updated in place */
    const int *labels;            /* VI: S x N draws */
    int S;
    const double *psm;            /* Binder, VI bound: N x N */
    int *n, *map;                 /* cluster sizes (1..Kcap); relabel map */
    double *gain;                 /* VI / Binder: per-cluster scores */
    int Lmax, stride, Suse, *T, *rowl;   /* VI: contingency tables */
    size_t cell;
    double *fl;                   /* VI: x log2 x, x = 0..N+1 */
    double *Sm;                   /* VI bound: sum_{j in k} p_ij */
    double cost;                  /* operations per observation visited */
} mcx_greedy;
void mcx_greedy_setup(mcx_greedy *g, int *cl, int N, int loss, const int *labels,
                      int S, const double *psm);
int mcx_greedy_sweep(mcx_greedy *g, int i0, int i1);
void mcx_greedy_finish(mcx_greedy *g);
/* SALSO-style sequential allocation (partition_salso.c) */
typedef struct {
    int N, S, loss, Kmax;
    const int *labels;            /* VI: S x N draws, canonical 1..Lmax */
    const double *psm;            /* Binder: N x N */
    int Lmax, stride, Suse, *T;   /* VI: contingency tables, Suse x Kmax x Lmax */
    size_t cell;
    int *n;                       /* cluster sizes 1..Kmax */
    double *fl, *gain;            /* x log2 x, x = 0..N+1; per-cluster scores */
} mcx_salso;
void mcx_salso_setup(mcx_salso *w, int N, int loss, const int *labels, int S,
                     const double *psm, int Kmax);
int mcx_salso_allocate(mcx_salso *w, const int *perm, int *cl);
#endif
