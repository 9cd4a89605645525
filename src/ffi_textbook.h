/* ffi_textbook.h -- .Call entry points of the reversible-jump mixtures
 * (ffi_rj.c), MAP partitions (ffi_rj.c) and discrete Bayesian networks
 * (ffi_bayesnet.c). */
#ifndef MCMIX_FFI_TEXTBOOK_H
#define MCMIX_FFI_TEXTBOOK_H
#include <R.h>
#include <Rinternals.h>

SEXP ffi_rg_step(SEXP spec, SEXP y, SEXP state, SEXP ctrl);
SEXP ffi_rjc_step(SEXP spec, SEXP xt, SEXP state, SEXP ctrl);
SEXP ffi_map_partition(SEXP spec, SEXP xt, SEXP labels, SEXP schedule);
SEXP ffi_bn_step(SEXP spec, SEXP state, SEXP ctrl);
SEXP ffi_bn_anneal(SEXP spec, SEXP x0, SEXP schedule, SEXP max_icm);
#endif
