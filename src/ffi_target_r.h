/*
 * ffi_target_r.h -- the R-function side of targets: safe calls of user R
 * functions from C loops, and the adapter that makes an R function an
 * mcx_target (ffi_target_r.c).  The glue that opens any target, R or
 * compiled, is ffi_target.h (ffi_target.c), which calls this file and is
 * never called by it.
 *
 * Error context.  A user function that raises an R error unwinds out of the
 * .Call (R_alloc memory is reclaimed, nothing leaks).  So that the R caller
 * can say where it happened, every call of a user function first writes
 *     io[0] = callback code (MCX_CB_*), io[1] = iteration, io[2..] = theta
 * into `io`, a fresh numeric vector of length dim + 2 made by the R caller
 * (or R_NilValue), and sets io[0] = 0 when the function returned.  The R
 * helper with_target_io() (R/target.R) turns an error raised while
 * io[0] != 0 into one naming the function, the iteration and theta.
 */
#ifndef MCMIX_FFI_TARGET_R_H
#define MCMIX_FFI_TARGET_R_H

#include <R.h>
#include <Rinternals.h>
#include "sampler_target.h"

/* Which user function was running (io[0]); R/target.R has the same table. */
enum {
    MCX_CB_NONE = 0,
    MCX_CB_LOG_DENSITY = 1, MCX_CB_GRADIENT = 2,
    MCX_CB_LOG_LIK = 3, MCX_CB_LOG_LIK_GRADIENT = 4,
    MCX_CB_LOG_PRIOR = 5, MCX_CB_LOG_PRIOR_GRADIENT = 6,
    MCX_CB_PROPOSAL_DRAW = 7, MCX_CB_PROPOSAL_DENSITY = 8
};

/* A user R function f(x) or f(x, y) of numeric vectors of length dim,
 * ready to be called repeatedly (the call and its argument vectors are
 * built once). */
typedef struct mcx_rfun {
    SEXP call;          /* protected by the opener */
    SEXP x, y;          /* argument vectors (y may be NULL) */
    SEXP io;            /* context vector or R_NilValue */
    int  code;          /* MCX_CB_* */
    int  dim;
    int  rng;           /* bracket the call with PutRNGstate/GetRNGstate */
    const long *iter;   /* iteration shown in messages */
    const char *label;  /* "log_density", "draw", ... */
} mcx_rfun;

/* Prepare f for calls with nargs (1 or 2) numeric vectors of length dim.
 * Returns the number of objects it PROTECTed (the caller unprotects). */
int mcx_rfun_open(mcx_rfun *f, SEXP fun, int nargs, int dim, SEXP io,
                  int code, const char *label, const long *iter, int rng);

/* Evaluate f(x[, y]); the result is unprotected and valid until the next
 * allocation. */
SEXP mcx_rfun_eval(mcx_rfun *f, const double *x, const double *y);

/* Evaluate f(x[, y]) and return its value as one number: numeric, length
 * one, not NA.  NaN/+Inf are left to the caller (the engine checks). */
double mcx_rfun_number(mcx_rfun *f, const double *x, const double *y);

/* Evaluate f(x[, y]) and copy its value, a numeric vector of length n with
 * finite entries, into out. */
void mcx_rfun_vector(mcx_rfun *f, const double *x, const double *y,
                     double *out, int n);

/* The handle h of an R-function target (`target` a list with elements
 * log_density, gradient, combined; no compiled descriptor): the adapter
 * whose slots call the user's functions.  mcx_target_open() (ffi_target.h)
 * calls it for targets without an external pointer.  Returns the number
 * of objects PROTECTed. */
int mcx_r_target_open(SEXP target, int dim, SEXP io, int code,
                      const char *label, mcx_tgt *h);

#endif
