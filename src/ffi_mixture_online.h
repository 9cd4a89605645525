/* ffi_mixture_online.h -- glue of the subsample labels and the online
 * point estimate of a DP chain (ffi_mixture_online.c, mixture_online.h). */
#ifndef MCMIX_FFI_MIXTURE_ONLINE_H
#define MCMIX_FFI_MIXTURE_ONLINE_H
#include <R.h>
#include <Rinternals.h>
#include "mcmix_chunk.h"
#include "mixture_online.h"

typedef struct ffi_online {
    mcx_online acc;
    SEXP counts, mode;   /* the new state's vectors (worked on in place) */
    PROTECT_INDEX ipx;   /* of counts, replaced when slots are opened */
    SEXP sub_labels;     /* n_keep x n_sub labels of the subsample */
    int *sub, n_sub;     /* the subsample, 0-based */
    size_t n_keep;
} ffi_online;

/* The accumulator of a chunk: spec$online = list(subset = 1-based
 * integer indices, max_slots = integer) and state$online = NULL (fresh) or
 * list(counts = n x L integer matrix, or raw vector of n x L 16-bit
 * counts in native byte order while n_draws + the chunk's kept draws stay
 * within spec$online$narrow_max (default and at most
 * MCX_ONLINE_NARROW_MAX), mode = n integers (0-based slots, -1 before any
 * draw), n_draws = double).  Returns 0 (nothing opened)
 * when the spec has no `online` element or it is NULL.  Allocates and
 * PROTECTs three vectors (counted in *nprot). */
int ffi_online_open(ffi_online *f, SEXP spec, SEXP state_online, int n, const mcx_chunk *c,
                    int *nprot);
/* Kept draw r: labels lab[z[i]] (1..K) of the n observations. */
void ffi_online_keep(ffi_online *f, int r, const int *z, const int *lab, int K);
/* state$online after the chunk (PROTECTed, counted in *nprot). */
SEXP ffi_online_state(ffi_online *f, int *nprot);
#endif
