/* ffi.h -- prototypes of the .Call entry points, one include per area. */
#ifndef MCMIX_FFI_H
#define MCMIX_FFI_H
#include <R.h>
#include <Rinternals.h>
#include "mcmix_engine.h"

/* ffi_family.c */
SEXP ffi_families(void);
SEXP ffi_family_eval(SEXP name, SEXP hyper, SEXP x, SEXP op, SEXP arg);
SEXP ffi_family_conjugate(SEXP name);
/* The family named spec$family with its hyper block: from the double
 * vector spec$hyper (hyper_init), or, for a family whose hyper block
 * holds R objects (the R-function family), from the list spec$hyper.
 * *nprot is increased by the number of objects PROTECTed. */
const mcx_family *ffi_family_open(SEXP spec, int dim, const void **hyper, int *nprot);
/* ffi_family_r.c: the R-function family (registered by R_init_mcmix) */
extern const mcx_family mcx_family_r_family;
const void *ffi_family_r_hyper(SEXP rfam, int dim, int *nprot);
/* ffi_testing.c (test-only entry points) */
SEXP ffi_test_rng(SEXP what, SEXP n, SEXP args);
SEXP ffi_test_linalg(SEXP what, SEXP a, SEXP b);
/* ffi_signals.c (SIGINT and the processes running chains) */
SEXP ffi_sigint(SEXP action, SEXP arg);
SEXP ffi_openmp(void);
SEXP ffi_dp_alpha_update(SEXP alpha, SEXP K, SEXP n, SEXP prior, SEXP iters);
SEXP ffi_dpx_register_abi1(void);

#include "ffi_mixture.h"
#include "ffi_diag.h"
#include "ffi_sampler.h"
#endif
