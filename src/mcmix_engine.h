/*
 * mcmix_engine.h -- hub header of the SEXP-free engine.
 *
 * Engine files (every C file of src/ except init.c and ffi_*.c) include this
 * header (and the engine headers built on it) only.  It is pure: it brings
 * the plugin ABI (mcmix_abi.h, no R headers) and, from R, only the
 * numerical, RNG and memory headers -- R_ext/Arith.h (NA/NaN/Inf),
 * R_ext/Random.h (unif_rand, norm_rand, exp_rand), Rmath.h, R_ext/Print.h,
 * R_ext/Memory.h (R_alloc), R_ext/Utils.h (R_CheckUserInterrupt, sorting;
 * interrupts are checked from the host loop, never from threads) -- never
 * R.h or Rinternals.h, so an engine file cannot see SEXP, PROTECT or the
 * remapped length()/error() (tests/testthat/test-layers.R checks this
 * after preprocessing).  Errors leave the engine through mcx_error() and
 * scratch memory comes from mcx_alloc(), both defined on the glue side
 * (ffi_errors.c over Rf_error, ffi_workspace.c over a chain's arena or
 * R_alloc, so memory is reclaimed and nothing leaks on an error or an
 * interrupt).
 */
#ifndef MCMIX_ENGINE_H
#define MCMIX_ENGINE_H

#include <stddef.h>
#include <math.h>
#include <R_ext/Arith.h>
#include <R_ext/Random.h>
#include <R_ext/Print.h>
#include <R_ext/Memory.h>
#include <R_ext/Utils.h>
#include <Rmath.h>
#include "mcmix_abi.h"
#include "mcmix_chunk.h"

/* OpenMP's header, for every engine header that needs it (its include
 * guard makes later includes no-ops).  A glue file may have included
 * Rinternals.h first, whose macro `match` (Rf_match) breaks the `match`
 * clause of the declare-variant pragmas in clang's omp.h: the macro is
 * lifted around the include. */
#ifdef _OPENMP
#ifdef match
#undef match
#include <omp.h>
#define match Rf_match
#else
#include <omp.h>
#endif
#endif

#if defined(__GNUC__)
#define MCX_NORETURN __attribute__((noreturn))
#define MCX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MCX_NORETURN
#define MCX_PRINTF(a, b)
#endif

/* Raise an R error (never returns). */
void mcx_error(const char *fmt, ...) MCX_NORETURN MCX_PRINTF(1, 2);
/* An internal error: a bug in mcmix, not a user mistake.  The message names
 * the function and place that found it and, when a sampler has named the
 * move in progress (mcx_context()), that move: a broken invariant is
 * usually found by a family or an RNG helper, long after the move that
 * broke it returned, so the place alone does not say which move to read. */
#define MCX_INTERNAL(msg) mcx_internal_error(__func__, __FILE__, __LINE__, (msg))
void mcx_internal_error(const char *func, const char *file, int line, const char *msg)
    MCX_NORETURN;
/* Name the move about to run ("subcluster: sequentially allocated merge");
 * returns the name it replaces, to be put back when the move is done
 * (contexts nest).  `move` must outlive the move (a literal, or a table's
 * name); NULL: none.  Host thread only: a plain store, so it costs nothing
 * per move.  Cleared by an error (the .Call ends) and by the glue at the
 * start of a chunk (ffi_mix_step_run()). */
const char *mcx_context(const char *move);
/* Scratch memory reclaimed by R at the end of the .Call (also on error). */
void *mcx_alloc(size_t n, size_t size);
/* Report `work` units of work done (about one floating-point operation or
 * one memory access each); every MCX_INTERRUPT_UNITS units R is asked
 * whether the user interrupted (R_CheckUserInterrupt, ffi_errors.c), so long
 * loops stay interruptible at negligible cost.  Host thread only (never in
 * a parallel region).  An interrupt unwinds like mcx_error(): the .Call's
 * R_alloc memory is reclaimed and its results are discarded, so the chain
 * keeps the state of its last completed chunk (R/chains.R). */
#define MCX_INTERRUPT_UNITS 8388608.0
void mcx_interrupt_point(double work);

/*
 * log Gamma(x + n) - log Gamma(x) for x > 0 and a count n >= 0 (the log
 * rising factorial).  Below MCX_LGAMMA_DIRECT the two lgamma values are
 * subtracted; from there on, where each is some x log x and their
 * difference would lose its digits (every one at x = 1e20), Stirling's
 * series taken at both arguments (Abramowitz and Stegun 1964, 6.1.41):
 *   (x - 1/2) log1p(n / x) + n log(x + n) - n + (1/(x + n) - 1/x) / 12,
 * the next term below 1e-20 there: a relative error of a few ulps for any
 * x up to the largest double.
 */
#define MCX_LGAMMA_DIRECT 1e6
static inline double mcx_lgamma_rise(double x, double n)
{
    if (n <= 0.0) return 0.0;
    if (x < MCX_LGAMMA_DIRECT) return lgammafn(x + n) - lgammafn(x);
    const double y = x + n;
    return (x - 0.5) * log1p(n / x) + n * log(y) - n + (1.0 / y - 1.0 / x) / 12.0;
}

#include "rng.h"
#include "linalg.h"
#include "family_registry.h"

#endif
