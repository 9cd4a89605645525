/* ffi_nuts.h -- .Call prototypes of the NUTS sampler (ffi_nuts.c). */
#ifndef MCMIX_FFI_NUTS_H
#define MCMIX_FFI_NUTS_H
#include <R.h>
#include <Rinternals.h>

SEXP ffi_nuts_run(SEXP target, SEXP io, SEXP state, SEXP run, SEXP spec);

#endif
