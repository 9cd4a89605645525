/*
 * ffi_target.c -- compiled targets as external pointers, and .Call entries
 * that evaluate a target (used by target() to probe it and by the tests).
 *
 * A package providing a compiled target fills an mcx_target (static
 * storage, or memory owned by an R object `prot`) and returns
 * mcmix_target_xptr(&desc, prot) to R (see inst/include/mcmix.h).
 */
#include <string.h>
#include "mcmix_engine.h"
#include "ffi_target.h"
#include "ffi_list.h"
#include "ffi.h"

static SEXP target_tag(void)
{
    return Rf_install("mcmix_target_ptr");
}

SEXP mcx_target_xptr(const mcx_target *target, SEXP prot)
{
    if (target == NULL)
        Rf_error("mcmix_target_xptr(): the target descriptor is NULL.");
    if (target->abi_version < MCX_ABI_MIN_VERSION ||
        target->abi_version > MCX_ABI_VERSION)
        Rf_error("mcmix_target_xptr(): the target was compiled against mcmix "
                 "ABI version %d, but this mcmix supports versions %d to %d; "
                 "reinstall the package that provides it.",
                 target->abi_version, MCX_ABI_MIN_VERSION, MCX_ABI_VERSION);
    if (target->dim < 1)
        Rf_error("mcmix_target_xptr(): the target's `dim` must be at least 1, "
                 "not %d.", target->dim);
    if (target->log_density == NULL)
        Rf_error("mcmix_target_xptr(): the target has no log_density function.");
    if (target->abi_version >= 5 && target->log_density_gradient != NULL &&
        target->gradient == NULL)
        Rf_error("mcmix_target_xptr(): the target has log_density_gradient but no "
                 "gradient function (give both).");
    SEXP ptr = PROTECT(R_MakeExternalPtr((void *) target, target_tag(), prot));
    Rf_setAttrib(ptr, R_ClassSymbol, Rf_mkString("mcmix_target_ptr"));
    UNPROTECT(1);
    return ptr;
}

const mcx_target *mcx_target_from_xptr(SEXP xptr)
{
    if (TYPEOF(xptr) != EXTPTRSXP || R_ExternalPtrTag(xptr) != target_tag())
        mcx_error("the compiled target is not an external pointer made by "
                  "mcmix_target_xptr().");
    const mcx_target *t = (const mcx_target *) R_ExternalPtrAddr(xptr);
    if (t == NULL)
        mcx_error("the compiled target is no longer valid (external pointers "
                  "do not survive saveRDS() or a new session); create it again.");
    return t;
}

/* list(dim = , has_gradient = , one_call = ) of a compiled target. */
SEXP ffi_target_info(SEXP xptr)
{
    const mcx_target *t = mcx_target_from_xptr(xptr);
    const char *nms[] = {"dim", "has_gradient", "one_call", NULL};
    SEXP vals[3];
    vals[0] = PROTECT(Rf_ScalarInteger(t->dim));
    vals[1] = PROTECT(Rf_ScalarLogical(t->gradient != NULL));
    vals[2] = PROTECT(Rf_ScalarLogical(t->abi_version >= 5 && t->gradient != NULL &&
                                       t->log_density_gradient != NULL));
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(3);
    return out;
}

/* The initial point of a chain: list(logd = , grad = , status = ) with the
 * log density at theta, its gradient (need_grad = 1 and a finite value;
 * else NULL) and the MCX_EVAL_* outcome (sampler_target.h).  Values are returned
 * unchecked: R/target.R's target_start() turns a non-finite one into an
 * error naming the argument of the initial values. */
SEXP ffi_target_start(SEXP target, SEXP io, SEXP theta, SEXP need_grad)
{
    if (TYPEOF(theta) != REALSXP || XLENGTH(theta) < 1 ||
        TYPEOF(need_grad) != INTSXP || XLENGTH(need_grad) != 1)
        MCX_INTERNAL("bad argument types");
    int dim = (int) XLENGTH(theta), nprot = 0;
    mcx_tgt h;
    nprot += mcx_target_open(target, dim, io, MCX_CB_LOG_DENSITY, "log_density", &h);
    SEXP grad = PROTECT(Rf_allocVector(REALSXP, dim)); nprot++;
    double logd;
    int st = mcx_tgt_eval(&h, REAL(theta), &logd,
                          INTEGER(need_grad)[0] ? REAL(grad) : NULL);
    const char *nms[] = {"logd", "grad", "status", NULL};
    SEXP vals[3];
    vals[0] = PROTECT(Rf_ScalarReal(logd)); nprot++;
    vals[1] = INTEGER(need_grad)[0] && st != MCX_EVAL_OUTSIDE && st != MCX_EVAL_BAD_VALUE ?
        grad : R_NilValue;
    vals[2] = PROTECT(Rf_ScalarInteger(st)); nprot++;
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(nprot);
    return out;
}

/* The log density (what = 0) or its gradient (what = 1) at theta, with the
 * checks of the samplers; messages say "at the initial value". */
SEXP ffi_target_eval(SEXP target, SEXP theta, SEXP io, SEXP what)
{
    if (TYPEOF(theta) != REALSXP || XLENGTH(theta) < 1 ||
        TYPEOF(what) != INTSXP || XLENGTH(what) != 1)
        MCX_INTERNAL("bad argument types");
    int dim = (int) XLENGTH(theta), nprot = 0;
    mcx_tgt h;
    nprot += mcx_target_open(target, dim, io, MCX_CB_LOG_DENSITY, "log_density", &h);
    SEXP out;
    if (INTEGER(what)[0] == 0) {
        double v = mcx_tgt_logd(&h, REAL(theta));
        out = PROTECT(Rf_ScalarReal(v));
    } else {
        out = PROTECT(Rf_allocVector(REALSXP, dim));
        mcx_tgt_grad(&h, REAL(theta), REAL(out));
    }
    nprot++;
    UNPROTECT(nprot);
    return out;
}

int mcx_target_open(SEXP target, int dim, SEXP io, int code,
                    const char *label, mcx_tgt *h)
{
    if (TYPEOF(target) != VECSXP || !Rf_inherits(target, "mcmix_target"))
        MCX_INTERNAL("`target` is not an mcmix_target");
    if (io != R_NilValue && (TYPEOF(io) != REALSXP || XLENGTH(io) != dim + 2))
        MCX_INTERNAL("bad context vector");
    SEXP xptr = mcx_list_get(target, "xptr");
    if (xptr != R_NilValue) {
        const mcx_target *desc = mcx_target_from_xptr(xptr);
        if (desc->dim != dim)
            mcx_error("the compiled target has dimension %d, but the parameter "
                      "vector has length %d.", desc->dim, dim);
        mcx_tgt_init(h, desc, label);
        return 0;
    }
    return mcx_r_target_open(target, dim, io, code, label, h);
}

void mcx_target_reject_nonfinite(mcx_tgt *h)
{
    h->nonfinite = MCX_TGT_REJECT;
    h->n_nonfinite = 0.0;
}

void mcx_target_count(SEXP state, const mcx_tgt *h)
{
    *mcx_list_real(state, "n_nonfinite", 1) += h->n_nonfinite;
}
