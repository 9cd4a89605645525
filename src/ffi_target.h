/*
 * ffi_target.h -- glue side of targets (ffi_target.c): build an engine
 * handle (sampler_target.h) from an R "mcmix_target" object, a compiled
 * target given as an external pointer or an R function (through the
 * adapter of ffi_target_r.h), and count the points a sampler rejected.
 * Calls go one way: ffi_target.c -> ffi_target_r.c.
 */
#ifndef MCMIX_FFI_TARGET_H
#define MCMIX_FFI_TARGET_H

#include "ffi_target_r.h"

/* Build the handle h for the R target object `target` (list with elements
 * log_density, gradient, xptr, dim) for parameter vectors of length dim.
 * code is the MCX_CB_* of its log density (its gradient is code + 1) and
 * label its name in messages.  h must stay at the same address while used.
 * Returns the number of objects PROTECTed. */
int mcx_target_open(SEXP target, int dim, SEXP io, int code,
                    const char *label, mcx_tgt *h);

/* Make h reject non-finite values after the initial one (MCX_TGT_REJECT),
 * as the samplers do; mcx_target_count() then adds the number rejected in
 * a chunk to the element "n_nonfinite" of the chain's state list. */
void mcx_target_reject_nonfinite(mcx_tgt *h);
void mcx_target_count(SEXP state, const mcx_tgt *h);

/* The compiled descriptor inside an "mcmix_target_ptr" (errors otherwise). */
const mcx_target *mcx_target_from_xptr(SEXP xptr);

/* The C-callable behind mcmix_target_xptr() (mcmix.h). */
SEXP mcx_target_xptr(const mcx_target *target, SEXP prot);

#endif
