/* ffi_mixture.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_MIXTURE_H
#define MCMIX_FFI_MIXTURE_H
#include <R.h>
#include <Rinternals.h>

#include "mixture_state.h"

/* Shared by the mixture glue (ffi_mixture.c): the partition of a state
 * from its labels (N integers, 0-based, internal order; k_min as in
 * mcx_mix_build()) and its exported stats blocks (raw, or NULL: computed
 * from the labels); and the export of both (two new PROTECTed vectors). */
void ffi_mix_open(mcx_mix *m, const mcx_family *fam, const void *hyper, SEXP xt, int dim,
                  SEXP labels, SEXP stats, int k_min);
void ffi_mix_export(const mcx_mix *m, SEXP *labels, SEXP *stats);

/* ffi_mixture.c (finite mixtures, CRP simulator) */
SEXP ffi_finite_step(SEXP spec, SEXP xt, SEXP state, SEXP chunk);
SEXP ffi_rcrp(SEXP n, SEXP alpha, SEXP discount);
/* ffi_mixture_dp.c: every DP / Pitman-Yor algorithm (mixture_dp.h) */
SEXP ffi_dp_step(SEXP spec, SEXP xt, SEXP state, SEXP chunk);
/* ffi_mixture_predict.c */
SEXP ffi_mixture_predict(SEXP family, SEXP dim, SEXP hyper, SEXP xt, SEXP labels,
                         SEXP weights, SEXP newx, SEXP est);

/* ffi_impute.c (imputation of joint Gaussian blocks) */
SEXP ffi_impute_step(SEXP xt, SEXP z, SEXP blocks, SEXP miss);

/* ffi_topic.c (LDA and HDP) */
SEXP ffi_lda_step(SEXP word, SEXP doc_start, SEXP z, SEXP phi_sum,
                  SEXP theta_sum, SEXP settings, SEXP chunk);
SEXP ffi_lda_log_joint(SEXP word, SEXP doc_start, SEXP z, SEXP settings);
SEXP ffi_hdp_step(SEXP family, SEXP hyper, SEXP x, SEXP group, SEXP z,
                  SEXP beta, SEXP stats, SEXP settings, SEXP chunk);

#endif
