/* ffi_mixture.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_MIXTURE_H
#define MCMIX_FFI_MIXTURE_H
#include <R.h>
#include <Rinternals.h>

/* ffi_mixture.c (finite mixtures, CRP simulator) */
SEXP ffi_finite_step(SEXP spec, SEXP xt, SEXP state, SEXP chunk);
SEXP ffi_rcrp(SEXP n, SEXP alpha, SEXP discount);
/* ffi_mixture_dp.c: every DP / Pitman-Yor algorithm (mixture_dp.h) */
SEXP ffi_dp_step(SEXP spec, SEXP xt, SEXP state, SEXP chunk);
/* ffi_mixture_predict.c */
SEXP ffi_mixture_predict(SEXP family, SEXP dim, SEXP hyper, SEXP xt, SEXP labels,
                         SEXP weights, SEXP newx, SEXP est);

/* ffi_topic.c (LDA and HDP) */
SEXP ffi_lda_step(SEXP word, SEXP doc_start, SEXP z, SEXP phi_sum,
                  SEXP theta_sum, SEXP settings, SEXP chunk);
SEXP ffi_lda_log_joint(SEXP word, SEXP doc_start, SEXP z, SEXP settings);
SEXP ffi_hdp_step(SEXP family, SEXP hyper, SEXP x, SEXP group, SEXP z,
                  SEXP beta, SEXP settings, SEXP chunk);

#endif
