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
 * ffi_impute_step(xt, z, blocks, miss, params): xt the completed data (dim
 * x n double), z the labels (n, 0-based), miss the missing mask (dim x n
 * integer), blocks a list of list(family, hyper, off, dim, cov, poff) (cov
 * a dim x dim double matrix or NULL; poff the offset of the block's
 * parameter in a cluster's parameter vector), params NULL or the chain's
 * own cluster parameters (psize x K double matrix, column z[i] + 1 for
 * observation i).  Returns a copy of xt with the missing cells of every
 * block redrawn (one P-step and I-step per block; the I-step alone, given
 * params, when the chain keeps them).
 */
SEXP ffi_impute_step(SEXP xt, SEXP z, SEXP blocks, SEXP miss, SEXP params)
{
    if (TYPEOF(xt) != REALSXP || !Rf_isMatrix(xt) || TYPEOF(z) != INTSXP ||
        TYPEOF(miss) != INTSXP || XLENGTH(miss) != XLENGTH(xt) || TYPEOF(blocks) != VECSXP)
        MCX_INTERNAL("bad arguments");
    if (params != R_NilValue && (TYPEOF(params) != REALSXP || !Rf_isMatrix(params)))
        MCX_INTERNAL("`params` must be NULL or a double matrix");
    int dim = Rf_nrows(xt), n = Rf_ncols(xt);
    if (XLENGTH(z) != n) MCX_INTERNAL("`z` must have one label per observation");
    int prow = params == R_NilValue ? 0 : Rf_nrows(params);
    int pcol = params == R_NilValue ? n : Rf_ncols(params);
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
        spec[b].poff = 0;
        if (params != R_NilValue) {
            int poff = mcx_list_count(bl, "poff");
            size_t need = (size_t) spec[b].dim * (spec[b].cov == NULL ? spec[b].dim + 1 : 1);
            if (poff < 0 || (size_t) poff + need > (size_t) prow)
                MCX_INTERNAL("block parameter out of range");
            spec[b].poff = (size_t) poff;
        }
    }
    for (int i = 0; i < n; i++)
        if (INTEGER(z)[i] < 0 || INTEGER(z)[i] >= n || INTEGER(z)[i] >= pcol)
            MCX_INTERNAL("label out of range");
    SEXP out = PROTECT(Rf_duplicate(xt));
    GetRNGstate();
    for (int b = 0; b < nb; b++)
        mcx_impute_block(spec + b, REAL(out), dim, n, INTEGER(miss), INTEGER(z),
                         params == R_NilValue ? NULL : REAL(params), (size_t) prow);
    PutRNGstate();
    UNPROTECT(1);
    return out;
}
