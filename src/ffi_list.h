/*
 * ffi_list.h -- reading the named lists that R passes to the glue
 * (ffi_models.c, ffi_smc.c).  A missing element or a wrong type or length
 * is an internal error: R validated the user's input before the .Call.
 */
#ifndef MCMIX_FFI_LIST_H
#define MCMIX_FFI_LIST_H
#include <R.h>
#include <Rinternals.h>

/* Element `name` of the named list `list`. */
SEXP mcx_list_elt(SEXP list, const char *name);
/* Its double (resp. integer) data, checking the length when len >= 0. */
double *mcx_list_real(SEXP list, const char *name, R_xlen_t len);
int *mcx_list_int(SEXP list, const char *name, R_xlen_t len);
/* Scalars. */
double mcx_list_num(SEXP list, const char *name);
int mcx_list_count(SEXP list, const char *name);
/* Replace element `name` of `list` by `value`. */
void mcx_list_set(SEXP list, const char *name, SEXP value);
/* A named list from NULL-terminated names and values (values protected by
 * the caller). */
SEXP mcx_named_list(const char **names, const SEXP *values);
#endif
