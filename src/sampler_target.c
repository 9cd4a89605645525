/*
 * sampler_target.c -- checked evaluation of target densities and finite-difference
 * gradients (see sampler_target.h).
 */
#include <stdio.h>
#include <string.h>
#include "mcmix_engine.h"
#include "sampler_target.h"

void mcx_tgt_init(mcx_tgt *h, const mcx_target *desc, const char *label)
{
    if (desc == NULL || desc->log_density == NULL || desc->dim < 1)
        MCX_INTERNAL("invalid target descriptor");
    h->desc = desc;
    h->dim = desc->dim;
    h->iter = 0;
    h->label = label;
    h->work = (double *) mcx_alloc((size_t) desc->dim, sizeof(double));
    h->nonfinite = MCX_TGT_STRICT;
    h->n_nonfinite = 0.0;
    h->logd_grad = desc->abi_version >= 5 && desc->gradient != NULL ?
        desc->log_density_gradient : NULL;
}

void mcx_format_theta(char *buf, size_t size, const double *theta, int dim)
{
    size_t used = 0;
    int shown = dim < 10 ? dim : 10;
    buf[0] = '\0';
    for (int j = 0; j < shown && used + 1 < size; j++) {
        int k = snprintf(buf + used, size - used, "%s%.6g", j ? ", " : "", theta[j]);
        if (k < 0) break;
        used += (size_t) k;
    }
    if (dim > shown && used + 1 < size)
        snprintf(buf + used, size - used, ", ... (%d values)", dim);
}

void mcx_format_where(char *buf, size_t size, long iter)
{
    if (iter <= 0) snprintf(buf, size, "at the initial value");
    else snprintf(buf, size, "at iteration %ld", iter);
}

void mcx_tgt_bad_value(const mcx_tgt *h, const char *what, double v,
                       const double *theta)
{
    char th[256], where[64];
    mcx_format_theta(th, sizeof th, theta, h->dim);
    mcx_format_where(where, sizeof where, h->iter);
    const char *shown = isnan(v) ? "NaN" : (v > 0 ? "Inf" : "-Inf");
    mcx_error("`%s` returned %s %s (theta = %s); the %s must be a number or -Inf.",
              h->label, shown, where, th, what);
}

double mcx_tgt_nonfinite(mcx_tgt *h, double v, const double *theta)
{
    if (h->nonfinite == MCX_TGT_REJECT && h->iter > 0) {
        h->n_nonfinite += 1.0;
        return -INFINITY;
    }
    mcx_tgt_bad_value(h, "log density", v, theta);
}

/* The error for a non-finite coordinate j of the gradient g at theta. */
static MCX_NORETURN void bad_gradient(const mcx_tgt *h, const double *theta,
                                      const double *g, int j);
static void bad_gradient(const mcx_tgt *h, const double *theta, const double *g, int j)
{
    char th[256], where[64];
    mcx_format_theta(th, sizeof th, theta, h->dim);
    mcx_format_where(where, sizeof where, h->iter);
    mcx_error("the gradient of `%s` has a non-finite value (%g in "
              "coordinate %d) %s (theta = %s).", h->label, g[j], j + 1, where, th);
}

/* Index of the first non-finite coordinate of g, or -1. */
static int first_nonfinite(const double *g, int d)
{
    for (int j = 0; j < d; j++) if (!isfinite(g[j])) return j;
    return -1;
}

static int fd_grad(mcx_tgt *h, const double *theta, double *grad);

int mcx_tgt_eval(mcx_tgt *h, const double *theta, double *logd, double *grad)
{
    double v;
    if (grad != NULL && h->logd_grad != NULL) {
        v = h->logd_grad(theta, grad, h->desc->ctx);
    } else {
        v = h->desc->log_density(theta, h->desc->ctx);
        if (grad != NULL && isfinite(v)) {
            if (h->desc->gradient != NULL) h->desc->gradient(theta, grad, h->desc->ctx);
            else (void) fd_grad(h, theta, grad);   /* NaN where it cannot */
        }
    }
    *logd = v;
    if (v == -INFINITY) return MCX_EVAL_OUTSIDE;
    if (!isfinite(v)) return MCX_EVAL_BAD_VALUE;
    if (grad != NULL && first_nonfinite(grad, h->dim) >= 0) return MCX_EVAL_BAD_GRAD;
    return MCX_EVAL_OK;
}

int mcx_tgt_logd_grad(mcx_tgt *h, const double *theta, double *logd, double *grad)
{
    int st = mcx_tgt_eval(h, theta, logd, grad);
    if (st == MCX_EVAL_OK) return 1;
    if (st == MCX_EVAL_OUTSIDE) return 0;
    if (h->nonfinite == MCX_TGT_REJECT && h->iter > 0) {
        h->n_nonfinite += 1.0;
        *logd = -INFINITY;
        return 0;
    }
    if (st == MCX_EVAL_BAD_VALUE) mcx_tgt_bad_value(h, "log density", *logd, theta);
    bad_gradient(h, theta, grad, first_nonfinite(grad, h->dim));
}

/* Central differences with step h_j = 6e-6 * max(1, |theta_j|) (about the
 * cube root of the machine epsilon); one-sided when one side is outside the
 * support.  Returns -1, or the first coordinate whose derivative cannot be
 * computed (the density is not finite on either side; grad[j] = NaN). */
static int fd_grad(mcx_tgt *h, const double *theta, double *grad)
{
    int d = h->dim;
    double *x = h->work;
    memcpy(x, theta, (size_t) d * sizeof(double));
    double f0 = NAN;
    for (int j = 0; j < d; j++) {
        double step = 6e-6 * fmax(1.0, fabs(theta[j]));
        x[j] = theta[j] + step;
        double fp = mcx_tgt_logd(h, x);
        x[j] = theta[j] - step;
        double fm = mcx_tgt_logd(h, x);
        x[j] = theta[j];
        if (isfinite(fp) && isfinite(fm)) {
            grad[j] = (fp - fm) / (2.0 * step);
        } else {
            if (isnan(f0)) f0 = mcx_tgt_logd(h, theta);
            if (isfinite(fp) && isfinite(f0)) grad[j] = (fp - f0) / step;
            else if (isfinite(fm) && isfinite(f0)) grad[j] = (f0 - fm) / step;
            else {
                grad[j] = NAN;
                return j;
            }
        }
    }
    return -1;
}

void mcx_tgt_grad(mcx_tgt *h, const double *theta, double *grad)
{
    int d = h->dim;
    if (h->desc->gradient != NULL) {
        h->desc->gradient(theta, grad, h->desc->ctx);
        int j = first_nonfinite(grad, d);
        if (j >= 0) bad_gradient(h, theta, grad, j);
        return;
    }
    if (fd_grad(h, theta, grad) >= 0) {
        char th[256], where[64];
        mcx_format_theta(th, sizeof th, theta, d);
        mcx_format_where(where, sizeof where, h->iter);
        mcx_error("cannot compute the gradient of `%s` by finite "
                  "differences %s (theta = %s): the density is -Inf "
                  "next to theta.", h->label, where, th);
    }
}
