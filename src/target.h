/*
 * target.h -- the engine's view of a target density (DESIGN section 2.2).
 *
 * A sampler never calls an mcx_target descriptor directly: it wraps it in a
 * handle (mcx_tgt) that
 *   - checks every value (NaN and +Inf are errors; -Inf means "outside the
 *     support") and reports a bad value with the iteration and theta,
 *   - provides the gradient, by central finite differences when the target
 *     has none,
 *   - records the iteration being run (set by the sampler in h->iter), so
 *     that messages say where things went wrong.
 *
 * The handle is SEXP-free.  Handles for R-function targets and for compiled
 * targets (external pointers) are built by mcx_target_open() in the glue
 * (ffi_target_r.c, declared in ffi_target_r.h); the engine cannot tell them apart.
 *
 * Typical use in an engine file:
 *     h->iter = it;                        (1-based; 0 = the initial value)
 *     double lp = mcx_tgt_logd(h, theta);  (checked; may be -Inf)
 *     mcx_tgt_grad(h, theta, grad);        (checked; finite)
 */
#ifndef MCMIX_TARGET_H
#define MCMIX_TARGET_H

#include <math.h>
#include "mcmix_abi.h"

typedef struct mcx_tgt {
    const mcx_target *desc;  /* the descriptor (R adapter or compiled) */
    int    dim;              /* desc->dim */
    long   iter;             /* iteration being run; 0 = initial value */
    const char *label;       /* name used in messages, e.g. "log_density" */
    double *work;            /* dim doubles: finite-difference scratch */
} mcx_tgt;

/* Fill a handle for `desc` (work from mcx_alloc).  `label` must outlive h. */
void mcx_tgt_init(mcx_tgt *h, const mcx_target *desc, const char *label);

/* Raise the error for a bad value v of the log density at theta. */
void mcx_tgt_bad_value(const mcx_tgt *h, const char *what, double v,
                       const double *theta)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* Write theta as "0.1, 2" (at most the first 10 coordinates) into buf. */
void mcx_format_theta(char *buf, size_t size, const double *theta, int dim);

/* Write "at the initial value" (iter <= 0) or "at iteration <iter>" into buf. */
void mcx_format_where(char *buf, size_t size, long iter);

/* The log density at theta: finite or -Inf (anything else is an error). */
static inline double mcx_tgt_logd(const mcx_tgt *h, const double *theta)
{
    double v = h->desc->log_density(theta, h->desc->ctx);
    if (isnan(v) || v == INFINITY) mcx_tgt_bad_value(h, "log density", v, theta);
    return v;
}

/* Non-zero when the target provides its own gradient. */
static inline int mcx_tgt_has_grad(const mcx_tgt *h)
{
    return h->desc->gradient != NULL;
}

/* Gradient of the log density at theta into grad (dim doubles): the
 * target's own, or central differences (one-sided next to the boundary of
 * the support).  Every coordinate is checked to be finite. */
void mcx_tgt_grad(const mcx_tgt *h, const double *theta, double *grad);

#endif
