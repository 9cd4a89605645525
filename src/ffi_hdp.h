/* ffi_hdp.h -- .Call entry point of the HDP mixture (ffi_hdp.c). */
#ifndef MCMIX_FFI_HDP_H
#define MCMIX_FFI_HDP_H
#include <R.h>
#include <Rinternals.h>

SEXP ffi_hdp_step(SEXP spec, SEXP x, SEXP group, SEXP state, SEXP chunk);

#endif
