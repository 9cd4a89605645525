/* ffi_mixture.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_MIXTURE_H
#define MCMIX_FFI_MIXTURE_H
#include <R.h>
#include <Rinternals.h>

/* ffi_mixture.c */
SEXP ffi_mixture_step(SEXP spec, SEXP xt, SEXP state, SEXP n, SEXP thin,
                      SEXP offset, SEXP warmup);
SEXP ffi_dp_alpha_update(SEXP alpha, SEXP K, SEXP n, SEXP prior, SEXP iters);
SEXP ffi_rcrp(SEXP n, SEXP alpha, SEXP discount);

/* ffi_mixture_dp.c (further DP samplers, predictive) */
SEXP ffi_dpx_step(SEXP spec, SEXP xt, SEXP state, SEXP n, SEXP thin,
                  SEXP offset, SEXP warmup, SEXP rfam);
SEXP ffi_mixture_predict(SEXP family, SEXP dim, SEXP hyper, SEXP xt, SEXP labels,
                         SEXP weights, SEXP newx, SEXP est);
SEXP ffi_family_conjugate(SEXP name);
SEXP ffi_dpx_register_abi1(void);

/* ffi_impute.c (imputation of joint Gaussian blocks) */
SEXP ffi_impute_step(SEXP xt, SEXP z, SEXP blocks, SEXP miss);

/* ffi_topic.c (LDA and HDP) */
SEXP ffi_lda_step(SEXP word, SEXP doc_start, SEXP z, SEXP phi_sum,
                  SEXP theta_sum, SEXP settings);
SEXP ffi_lda_log_joint(SEXP word, SEXP doc_start, SEXP z, SEXP settings);
SEXP ffi_hdp_step(SEXP family, SEXP hyper, SEXP x, SEXP group, SEXP z,
                  SEXP beta, SEXP stats, SEXP settings);

#endif
