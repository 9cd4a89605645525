/*
 * sampler_target.h -- the engine's view of a target density (DESIGN section 2.2).
 *
 * A sampler never calls an mcx_target descriptor directly: it wraps it in a
 * handle (mcx_tgt) that
 *   - checks every value (-Inf means "outside the support"; NaN and +Inf
 *     are errors reported with the iteration and theta, unless the sampler
 *     made the handle reject them: then a non-finite value after the
 *     initial one is a rejected point, counted, as Stan does),
 *   - gives the log density and its gradient from one call of the target
 *     when it can (mcx_tgt_logd_grad()),
 *   - provides the gradient, by central finite differences when the target
 *     has none,
 *   - records the iteration being run (set by the sampler in h->iter), so
 *     that messages say where things went wrong.
 *
 * The handle is SEXP-free.  Handles for R-function targets and for compiled
 * targets (external pointers) are built by mcx_target_open() in the glue
 * (ffi_target.c, declared in ffi_target.h; the R-function adapter is
 * ffi_target_r.c); the engine cannot tell them apart.
 *
 * Typical use in an engine file:
 *     h->iter = it;                        (1-based; 0 = the initial value)
 *     double lp = mcx_tgt_logd(h, theta);  (checked; may be -Inf)
 *     mcx_tgt_grad(h, theta, grad);        (checked; finite)
 *     if (mcx_tgt_logd_grad(h, theta, &lp, grad)) ... (both; 0 = rejected)
 */
#ifndef MCMIX_SAMPLER_TARGET_H
#define MCMIX_SAMPLER_TARGET_H

#include <math.h>
#include "mcmix_abi.h"

/* What to do with a non-finite value (NaN or +Inf log density, non-finite
 * gradient coordinate) returned by the target. */
enum {
    MCX_TGT_STRICT = 0,  /* always an error (with the iteration and theta) */
    MCX_TGT_REJECT = 1   /* after the initial value (iter > 0): the point is
                          * rejected, as one outside the support, and counted
                          * in n_nonfinite; at the initial value an error */
};

typedef struct mcx_tgt {
    const mcx_target *desc;  /* the descriptor (R adapter or compiled) */
    int    dim;              /* desc->dim */
    long   iter;             /* iteration being run; 0 = initial value */
    const char *label;       /* name used in messages, e.g. "log_density" */
    double *work;            /* dim doubles: finite-difference scratch */
    int    nonfinite;        /* MCX_TGT_STRICT (default) or MCX_TGT_REJECT */
    double n_nonfinite;      /* non-finite values rejected (MCX_TGT_REJECT) */
    /* desc->log_density_gradient when the descriptor has it (ABI >= 5) */
    double (*logd_grad)(const double *theta, double *grad, void *ctx);
} mcx_tgt;

/* Outcome of mcx_tgt_eval(). */
enum {
    MCX_EVAL_OK = 0,         /* finite log density (and gradient) */
    MCX_EVAL_OUTSIDE = 1,    /* log density -Inf (gradient not computed) */
    MCX_EVAL_BAD_VALUE = 2,  /* log density NaN or +Inf */
    MCX_EVAL_BAD_GRAD = 3    /* a gradient coordinate not finite */
};

/* Fill a handle for `desc` (work from mcx_alloc).  `label` must outlive h.
 * The handle starts strict (h->nonfinite = MCX_TGT_STRICT). */
void mcx_tgt_init(mcx_tgt *h, const mcx_target *desc, const char *label);

/* Raise the error for a bad value v of the log density at theta. */
void mcx_tgt_bad_value(const mcx_tgt *h, const char *what, double v,
                       const double *theta)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* A non-finite log density v at theta: -Inf (counted) when the handle
 * rejects such points after the initial value, else the error above. */
double mcx_tgt_nonfinite(mcx_tgt *h, double v, const double *theta);

/* Write theta as "0.1, 2" (at most the first 10 coordinates) into buf. */
void mcx_format_theta(char *buf, size_t size, const double *theta, int dim);

/* Write "at the initial value" (iter <= 0) or "at iteration <iter>" into buf. */
void mcx_format_where(char *buf, size_t size, long iter);

/* The log density at theta: finite or -Inf.  NaN and +Inf are errors on a
 * strict handle; a rejecting one returns -Inf after the initial value. */
static inline double mcx_tgt_logd(mcx_tgt *h, const double *theta)
{
    double v = h->desc->log_density(theta, h->desc->ctx);
    if (isnan(v) || v == INFINITY) return mcx_tgt_nonfinite(h, v, theta);
    return v;
}

/* Non-zero when the target provides its own gradient. */
static inline int mcx_tgt_has_grad(const mcx_tgt *h)
{
    return h->desc->gradient != NULL;
}

/* Gradient of the log density at theta into grad (dim doubles): the
 * target's own, or central differences (one-sided next to the boundary of
 * the support).  Every coordinate is checked to be finite (an error
 * otherwise, whatever h->nonfinite). */
void mcx_tgt_grad(mcx_tgt *h, const double *theta, double *grad);

/* The log density at theta into *logd and, when grad != NULL and the value
 * is finite, the gradient into grad: one call of the target when it has
 * log_density_gradient, else log_density then the gradient.  No value is
 * checked beyond the MCX_EVAL_* outcome (and no error raised for one). */
int mcx_tgt_eval(mcx_tgt *h, const double *theta, double *logd, double *grad);

/* The point of a gradient sampler: *logd and grad at theta.  Returns 1 for
 * a usable point (finite value and gradient), 0 for a rejected one (outside
 * the support, or a non-finite value on a rejecting handle after the
 * initial value, counted in n_nonfinite); other non-finite values are the
 * errors of mcx_tgt_logd() / mcx_tgt_grad(). */
int mcx_tgt_logd_grad(mcx_tgt *h, const double *theta, double *logd, double *grad);
#endif
