/* ffi_logit.h -- .Call prototypes of logistic regression (ffi_logit.c). */
#ifndef MCMIX_FFI_LOGIT_H
#define MCMIX_FFI_LOGIT_H
#include <R.h>
#include <Rinternals.h>

SEXP ffi_logit_step(SEXP data, SEXP state, SEXP ctrl);
SEXP ffi_rpolyagamma(SEXP n, SEXP z, SEXP kind);

#endif
