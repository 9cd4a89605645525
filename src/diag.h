/*
 * diag.h -- SEXP-free convergence diagnostics and co-clustering summaries
 * (diag_*.c).  Point estimates of partitions: partition.h.
 *
 * Draws of one quantity are an n x m column-major matrix (n iterations,
 * m chains). The estimators follow Vehtari, Gelman, Simpson, Carpenter and
 * Buerkner (2021), "Rank-normalization, folding, and localization: an
 * improved R-hat", Bayesian Analysis 16(2), Sections 3-4 and Appendix A,
 * and coincide with those of the posterior package (version 1.4) up to
 * rounding. The classic potential scale reduction factor is Gelman and
 * Rubin (1992), with the degrees-of-freedom correction of Brooks and
 * Gelman (1998) as in coda::gelman.diag().
 */
#ifndef MCMIX_DIAG_H
#define MCMIX_DIAG_H
#include "mcmix_engine.h"

/* What mcx_diag_stats() computes, one code per output value. */
enum {
    MCX_DIAG_RHAT = 1,          /* max(bulk, tail) rank-normalised split R-hat */
    MCX_DIAG_RHAT_CLASSIC = 2,  /* Gelman-Rubin PSRF point estimate */
    MCX_DIAG_ESS_BULK = 3,
    MCX_DIAG_ESS_TAIL = 4,
    MCX_DIAG_ESS_BASIC = 5,     /* split chains, no rank normalisation */
    MCX_DIAG_MCSE_MEAN = 6,
    MCX_DIAG_RHAT_BULK = 7,
    MCX_DIAG_RHAT_TAIL = 8,
    MCX_DIAG_MEAN = 9,
    MCX_DIAG_SD = 10
};

/* diag_rank.c: sorting and rank normalisation */
void mcx_sort_index(const double *x, size_t n, int *order);
void mcx_rank_normal(const double *x, size_t n, const int *order,
                     const int *skip, double *z);
double mcx_quantile7(const double *x, const int *order, size_t n, double p);

/* diag_fft.c */
typedef struct { int n; double *cs; } mcx_fft;
void mcx_fft_plan(mcx_fft *p, int n);
void mcx_fft_run(const mcx_fft *p, double *z, int inverse);

/* diag_autocorr.c: autocovariances (divisor n, lags 0..n-1) */
typedef struct {
    const double *x;   /* n x m, each column centred by the caller */
    int n, m;
    int have;          /* lags computed so far in mean[] */
    double *mean;      /* length n: autocovariance averaged over chains */
    double *work;      /* length n: one chain's autocovariance */
} mcx_acov;
void mcx_acov_init(mcx_acov *a, const double *xc, int n, int m);
void mcx_acov_need(mcx_acov *a, int lag);
void mcx_autocov_fft(const double *x1, const double *x2, int n, double *ac1,
                     double *ac2);
double mcx_center(const double *x, int n, double *xc);

/* diag_ess.c */
int mcx_diag_degenerate(const double *x, size_t len);
double mcx_var(const double *v, int k);
double mcx_ess_geyer(const double *x, int n, int m);

/* diag_rhat.c */
double mcx_rhat_split(const double *x, int n, int m);
double mcx_rhat_classic(const double *x, int n, int m);
void mcx_diag_stats(const double *x, int n, int m, const int *what, int nwhat,
                    double *out);

/* diag_psm.c */
typedef struct {
    int S, N, Np, wide, ntiles;   /* Np: N padded to whole tiles */
    unsigned H, *codes, *vals;    /* hash table of one draw's labels */
    int *keys, *stamp;
    void *lt, *cnt;               /* recoded draws (S x Np); one tile */
} mcx_psm_work;
void mcx_psm_setup(mcx_psm_work *w, int S, int N);
void mcx_psm_recode(mcx_psm_work *w, const int *labels, int s0, int s1);
void mcx_psm_tile(mcx_psm_work *w, int t, double *acc);

#endif
