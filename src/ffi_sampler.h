/* ffi_sampler.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_SAMPLER_H
#define MCMIX_FFI_SAMPLER_H
#include <R.h>
#include <Rinternals.h>

/* ffi_target.c */
SEXP ffi_target_info(SEXP xptr);
SEXP ffi_target_eval(SEXP target, SEXP theta, SEXP io, SEXP what);
/* ffi_sampler.c */


#endif
