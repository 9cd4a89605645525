/* ffi_list.c -- helpers of ffi_list.h. */
#include <string.h>
#include "mcmix_engine.h"
#include "ffi_list.h"

SEXP mcx_list_elt(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || TYPEOF(names) != STRSXP)
        mcx_error("mcmix internal error: expected a named list holding '%s'", name);
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
            return VECTOR_ELT(list, i);
    mcx_error("mcmix internal error: list element '%s' is missing", name);
}

double *mcx_list_real(SEXP list, const char *name, R_xlen_t len)
{
    SEXP x = mcx_list_elt(list, name);
    if (TYPEOF(x) != REALSXP || (len >= 0 && XLENGTH(x) != len))
        mcx_error("mcmix internal error: '%s' must be a double vector of length %ld",
                  name, (long) len);
    return REAL(x);
}

int *mcx_list_int(SEXP list, const char *name, R_xlen_t len)
{
    SEXP x = mcx_list_elt(list, name);
    if (TYPEOF(x) != INTSXP || (len >= 0 && XLENGTH(x) != len))
        mcx_error("mcmix internal error: '%s' must be an integer vector of length %ld",
                  name, (long) len);
    return INTEGER(x);
}

double mcx_list_num(SEXP list, const char *name)
{
    return mcx_list_real(list, name, 1)[0];
}

int mcx_list_count(SEXP list, const char *name)
{
    return mcx_list_int(list, name, 1)[0];
}

void mcx_list_set(SEXP list, const char *name, SEXP value)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0) {
            SET_VECTOR_ELT(list, i, value);
            return;
        }
    mcx_error("mcmix internal error: list element '%s' is missing", name);
}

SEXP mcx_named_list(const char **names, const SEXP *values)
{
    int n = 0;
    while (names[n] != NULL && names[n][0] != '\0') n++;
    SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, n));
    for (int i = 0; i < n; i++) {
        SET_VECTOR_ELT(out, i, values[i]);
        SET_STRING_ELT(nms, i, Rf_mkChar(names[i]));
    }
    Rf_setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(2);
    return out;
}
