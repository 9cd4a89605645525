/*
 * ffi_list.h -- the glue convention (every src/ffi_*.c file uses it):
 *
 * - Named lists from R are read with the mcx_list_*() functions below (the
 *   only list reader of the glue).  A missing element or a wrong type or
 *   length is an internal error: R validated the user's input before the
 *   .Call.
 * - A chunk of a chain arrives as one integer vector c(n, thin, offset,
 *   warmup) and is read by mcx_chunk_read() into an mcx_chunk (mcmix_chunk.h).
 * - A sampler's state list is declared once, as an X-macro of its field
 *   names, e.g.
 *       #define DP_STATE(X) X(labels) X(alpha) X(stats)
 *       enum { DP_STATE(MCX_FIELD_ENUM) DP_STATE_N };
 *       static const char *const dp_state[] = {DP_STATE(MCX_FIELD_NAME) NULL};
 *   imported with mcx_list_fields(state, dp_state, in) (in[F_alpha], ...)
 *   and exported with mcx_named_list(dp_state, out): one table for both.
 *   A sampler whose engine state is a struct of `double *` into the (copied)
 *   state list, advanced in place, declares it as one mcx_field table
 *   (list name, struct member, length) bound by mcx_bind_fields().
 */
#ifndef MCMIX_FFI_LIST_H
#define MCMIX_FFI_LIST_H
#include <R.h>
#include <Rinternals.h>
#include "mcmix_chunk.h"

#include <stddef.h>
#include <stdint.h>

#define MCX_FIELD_ENUM(name) F_##name,
#define MCX_FIELD_NAME(name) #name,

/* A double vector of a state list bound to a `double *` member of an
 * engine struct: its name in the list, the member's offset, and its length
 * as an index into the `lens` array given to mcx_bind_fields(). */
typedef struct mcx_field {
    const char *name;
    size_t offset;
    int len;
} mcx_field;
#define MCX_FIELD(type, member, name, len) {name, offsetof(type, member), len}
/* Point the members of *obj at the elements of `list` named by the
 * fields (a table ending with a NULL name), checking type and length. */
void mcx_bind_fields(SEXP list, const mcx_field *fields, void *obj, const R_xlen_t *lens);

/* Element `name` of the named list `list` (internal error when missing). */
SEXP mcx_list_elt(SEXP list, const char *name);
/* Element `name`, or R_NilValue when the list has none. */
SEXP mcx_list_get(SEXP list, const char *name);
/* Elements names[0..] (NULL-terminated) into out[] (missing: an error). */
void mcx_list_fields(SEXP list, const char *const *names, SEXP *out);
/* Its string (a character vector of length one). */
const char *mcx_list_str(SEXP list, const char *name);
/* Its double (resp. integer) data, checking the length when len >= 0. */
double *mcx_list_real(SEXP list, const char *name, R_xlen_t len);
int *mcx_list_int(SEXP list, const char *name, R_xlen_t len);
/* Scalars. */
double mcx_list_num(SEXP list, const char *name);
int mcx_list_count(SEXP list, const char *name);
/* A 64-bit seed (of the block streams, rng_stream.h) as it travels in R:
 * two doubles, its high and low 32 bits. */
uint64_t mcx_seed_read(SEXP s);
SEXP mcx_seed_new(uint64_t v);
/* Replace element `name` of `list` by `value`. */
void mcx_list_set(SEXP list, const char *name, SEXP value);
/* A named list from NULL-terminated names and values (values protected by
 * the caller). */
SEXP mcx_named_list(const char *const *names, const SEXP *values);

/* The chunk c(n, thin, offset, warmup) (mcmix_chunk.h), checked. */
mcx_chunk mcx_chunk_read(SEXP ctrl);
/* A kept-draws matrix of the chunk: n_kept x ncol, REALSXP or INTSXP,
 * with column names names[0..ncol-1] when names is not NULL. */
SEXP mcx_chunk_matrix(const mcx_chunk *c, SEXPTYPE type, int ncol, const char *const *names);
#endif
