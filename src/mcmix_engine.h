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
/* Report `work` units of work done (about one floating-point operation or
 * one memory access each); every MCX_INTERRUPT_UNITS units R is asked
 * whether the user interrupted (R_CheckUserInterrupt, errors.c), so long
 * loops stay interruptible at negligible cost.  Host thread only (never in
 * a parallel region).  An interrupt unwinds like mcx_error(): the .Call's
 * R_alloc memory is reclaimed and its results are discarded, so the chain
 * keeps the state of its last completed chunk (R/chains.R). */
#define MCX_INTERRUPT_UNITS 8388608.0
void mcx_interrupt_point(double work);

#include "rng.h"
#include "linalg.h"
#include "registry.h"

#endif
