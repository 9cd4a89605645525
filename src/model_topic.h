/*
 * model_topic.h -- SEXP-free engines of the grouped-data models:
 * latent Dirichlet allocation (model_lda.c) and the hierarchical Dirichlet
 * process mixture (model_hdp.c).  Glue: ffi_topic.c.
 *
 * Conventions shared with the other model engines: a call runs iterations
 * offset + 1 .. offset + n_iter; unless `warmup`, iteration g is kept iff
 * g %% thin == 0.  State arrays are updated in place and hold everything
 * needed to continue, so running in chunks equals one longer run.
 */
#ifndef MCMIX_MODEL_TOPIC_H
#define MCMIX_MODEL_TOPIC_H

#include "mcmix_engine.h"
#include "mixture_state.h"

/* ---- LDA, collapsed Gibbs (Griffiths and Steyvers 2004) ---------------- */
typedef struct mcx_lda {
    int K, W, D, N;           /* topics, vocabulary, documents, tokens */
    double alpha, beta;       /* symmetric Dirichlet parameters */
    const int *word;          /* N word ids in 0 .. W-1, documents in order */
    const int *doc_start;     /* D + 1 offsets into word[] */
    int *z;                   /* N topics in 0 .. K-1 (the state) */
    int *nwk;                 /* W x K: nwk[w * K + k] tokens of word w in topic k */
    int *ndk;                 /* D x K: ndk[d * K + k] tokens of document d in topic k */
    int *nk;                  /* K: tokens in topic k */
    double *inv_den;          /* K: 1 / (nk[k] + W beta) */
    double *cum;              /* K: scratch for the cumulative weights */
} mcx_lda;

/* Counts rebuilt from z (every z[t] must be in 0 .. K-1). */
void   mcx_lda_build(mcx_lda *m, int K, int W, int D, double alpha, double beta,
                     const int *word, const int *doc_start, int *z);
void   mcx_lda_sweep(mcx_lda *m);
double mcx_lda_log_joint(const mcx_lda *m);
/* phi_sum (K x W, column-major) += posterior mean of phi given z;
 * theta_sum (D x K, column-major) += posterior mean of theta given z. */
void   mcx_lda_accumulate(const mcx_lda *m, double *phi_sum, double *theta_sum);
/* Sweeps offset + 1 .. offset + n_iter; log_joint[r] for kept draw r. */
void   mcx_lda_run(mcx_lda *m, const mcx_chunk *ch,
                   double *log_joint, double *phi_sum, double *theta_sum);

/* ---- HDP mixture: model_hdp.h ---------------------------------------- */
#include "model_hdp.h"

#endif
