/* ffi_diag.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_DIAG_H
#define MCMIX_FFI_DIAG_H
#include <R.h>
#include <Rinternals.h>

/* ffi_diag.c */
SEXP ffi_diag_stats(SEXP x, SEXP what);
SEXP ffi_diag_autocorr(SEXP x, SEXP lag_max);
SEXP ffi_psm_counts(SEXP labels, SEXP acc, SEXP scale);
SEXP ffi_partition_loss(SEXP cands, SEXP labels, SEXP psm, SEXP loss);
SEXP ffi_partition_greedy(SEXP start, SEXP labels, SEXP psm, SEXP loss, SEXP max_sweeps);
/* ffi_partition.c */
SEXP ffi_partition_salso(SEXP perms, SEXP labels, SEXP psm, SEXP loss, SEXP max_sweeps,
                         SEXP kmax);
SEXP ffi_partition_dists(SEXP cl, SEXP labels, SEXP loss);
#endif
