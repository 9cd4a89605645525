/*
 * ffi_impute.c -- .Call glue of the imputation step of joint Gaussian
 * blocks (R/impute.R; engine in mixture_impute.c).
 */
#include <R.h>
#include <Rinternals.h>
#include "mixture_impute.h"
#include "mixture_state.h"
#include "ffi_list.h"
#include "ffi_mixture.h"

/*
 * ffi_impute_step(xt, z, blocks, miss): xt the completed data (dim x n
 * double), z the labels (n, 0-based), miss the missing mask (dim x n
 * integer), blocks a list of list(family, hyper, off, dim, cov) (cov a
 * dim x dim double matrix or NULL).  Returns a copy of xt with the missing
 * cells of every block redrawn (one P-step and I-step per block).
 */
SEXP ffi_impute_step(SEXP xt, SEXP z, SEXP blocks, SEXP miss)
{
    if (TYPEOF(xt) != REALSXP || !Rf_isMatrix(xt) || TYPEOF(z) != INTSXP ||
        TYPEOF(miss) != INTSXP || XLENGTH(miss) != XLENGTH(xt) || TYPEOF(blocks) != VECSXP)
        MCX_INTERNAL("bad arguments");
    int dim = Rf_nrows(xt), n = Rf_ncols(xt);
    if (XLENGTH(z) != n) MCX_INTERNAL("`z` must have one label per observation");
    int nb = (int) XLENGTH(blocks);
    mcx_impute_block_spec *spec = mcx_alloc((size_t) (nb > 0 ? nb : 1), sizeof *spec);
    for (int b = 0; b < nb; b++) {
        SEXP bl = VECTOR_ELT(blocks, b), fam = mcx_list_elt(bl, "family");
        SEXP hyper = mcx_list_elt(bl, "hyper"), cov = mcx_list_elt(bl, "cov");
        if (!Rf_isString(fam) || TYPEOF(hyper) != REALSXP) MCX_INTERNAL("bad block");
        spec[b].fam = mcx_get_family(CHAR(STRING_ELT(fam, 0)));
        spec[b].off = mcx_list_count(bl, "off");
        spec[b].dim = mcx_list_count(bl, "dim");
        if (spec[b].off < 0 || spec[b].dim < 1 || spec[b].off + spec[b].dim > dim)
            MCX_INTERNAL("block out of range");
        spec[b].hyper = mcx_family_hyper(spec[b].fam, spec[b].dim, REAL(hyper),
                                         (int) XLENGTH(hyper));
        if (cov != R_NilValue && (TYPEOF(cov) != REALSXP ||
                                  XLENGTH(cov) != (R_xlen_t) spec[b].dim * spec[b].dim))
            MCX_INTERNAL("bad known covariance");
        spec[b].cov = cov == R_NilValue ? NULL : REAL(cov);
    }
    for (int i = 0; i < n; i++)
        if (INTEGER(z)[i] < 0 || INTEGER(z)[i] >= n) MCX_INTERNAL("label out of range");
    SEXP out = PROTECT(Rf_duplicate(xt));
    GetRNGstate();
    for (int b = 0; b < nb; b++)
        mcx_impute_block(spec + b, REAL(out), dim, n, INTEGER(miss), INTEGER(z));
    PutRNGstate();
    UNPROTECT(1);
    return out;
}
