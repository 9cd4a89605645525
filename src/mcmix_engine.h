/*
 * mcmix_engine.h -- hub header of the SEXP-free engine.
 *
 * Engine files include this header only.  They see plain C types, report
 * errors through mcx_error() (defined in errors.c, a wrapper over Rf_error,
 * so memory from R_alloc is reclaimed and nothing leaks), and draw random
 * numbers through R's generator only (rng.h).
 */
#ifndef MCMIX_ENGINE_H
#define MCMIX_ENGINE_H

#include <stddef.h>
#include <math.h>
#include "mcmix.h"

#if defined(__GNUC__)
#define MCX_NORETURN __attribute__((noreturn))
#define MCX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MCX_NORETURN
#define MCX_PRINTF(a, b)
#endif

/* Raise an R error (never returns). */
void mcx_error(const char *fmt, ...) MCX_NORETURN MCX_PRINTF(1, 2);
/* An internal error: a bug in mcmix, not a user mistake. */
#define MCX_INTERNAL(msg) \
    mcx_error("mcmix internal error in %s (%s:%d): %s", __func__, __FILE__, __LINE__, (msg))
/* Scratch memory reclaimed by R at the end of the .Call (also on error). */
void *mcx_alloc(size_t n, size_t size);

#include "rng.h"
#include "linalg.h"
#include "registry.h"

#endif
