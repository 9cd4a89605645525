/* ffi.h -- prototypes of the .Call entry points, one include per area. */
#ifndef MCMIX_FFI_H
#define MCMIX_FFI_H
#include <R.h>
#include <Rinternals.h>

/* ffi_family.c */
SEXP ffi_families(void);
SEXP ffi_family_eval(SEXP name, SEXP hyper, SEXP x, SEXP op, SEXP arg);
/* ffi_testing.c */
SEXP ffi_test_rng(SEXP what, SEXP n, SEXP args);
SEXP ffi_test_linalg(SEXP what, SEXP a, SEXP b);

#include "ffi_mixture.h"
#include "ffi_diag.h"
#include "ffi_sampler.h"
#endif
