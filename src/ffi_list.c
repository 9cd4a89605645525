/* ffi_list.c -- helpers of ffi_list.h. */
#include <string.h>
#include "mcmix_engine.h"
#include "ffi_list.h"

/* index of element `name`, or -1 */
static R_xlen_t find(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || TYPEOF(names) != STRSXP)
        mcx_error("mcmix internal error: expected a named list holding '%s'", name);
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0) return i;
    return -1;
}

SEXP mcx_list_get(SEXP list, const char *name)
{
    R_xlen_t i = find(list, name);
    return i < 0 ? R_NilValue : VECTOR_ELT(list, i);
}

SEXP mcx_list_elt(SEXP list, const char *name)
{
    R_xlen_t i = find(list, name);
    if (i < 0) mcx_error("mcmix internal error: list element '%s' is missing", name);
    return VECTOR_ELT(list, i);
}

void mcx_list_fields(SEXP list, const char *const *names, SEXP *out)
{
    for (int j = 0; names[j] != NULL; j++) out[j] = mcx_list_elt(list, names[j]);
}

const char *mcx_list_str(SEXP list, const char *name)
{
    SEXP x = mcx_list_elt(list, name);
    if (TYPEOF(x) != STRSXP || XLENGTH(x) != 1 || STRING_ELT(x, 0) == NA_STRING)
        mcx_error("mcmix internal error: '%s' must be a string", name);
    return CHAR(STRING_ELT(x, 0));
}

/* element `name` of type `type` and length len (len < 0: any) */
static SEXP typed_elt(SEXP list, const char *name, SEXPTYPE type, R_xlen_t len)
{
    SEXP x = mcx_list_elt(list, name);
    if (TYPEOF(x) != (int) type || (len >= 0 && XLENGTH(x) != len))
        mcx_error("mcmix internal error: '%s' must be %s vector of length %ld", name,
                  type == REALSXP ? "a double" : "an integer", (long) len);
    return x;
}

double *mcx_list_real(SEXP list, const char *name, R_xlen_t len)
{
    return REAL(typed_elt(list, name, REALSXP, len));
}

int *mcx_list_int(SEXP list, const char *name, R_xlen_t len)
{
    return INTEGER(typed_elt(list, name, INTSXP, len));
}

void mcx_bind_fields(SEXP list, const mcx_field *fields, void *obj, const R_xlen_t *lens)
{
    for (const mcx_field *f = fields; f->name != NULL; f++)
        *(double **) (void *) ((char *) obj + f->offset) =
            mcx_list_real(list, f->name, lens[f->len]);
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
    R_xlen_t i = find(list, name);
    if (i < 0) mcx_error("mcmix internal error: list element '%s' is missing", name);
    SET_VECTOR_ELT(list, i, value);
}

SEXP mcx_named_list(const char *const *names, const SEXP *values)
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

mcx_chunk mcx_chunk_read(SEXP ctrl)
{
    if (TYPEOF(ctrl) != INTSXP || XLENGTH(ctrl) != 4)
        MCX_INTERNAL("the chunk must be the integer vector c(n, thin, offset, warmup)");
    const int *r = INTEGER(ctrl);
    mcx_chunk c = {r[0], r[1], r[2], r[3], 0};
    if (c.n < 0 || c.thin < 1 || c.offset < 0 || (c.warmup != 0 && c.warmup != 1) ||
        (double) c.offset + c.n > 2147483647.0)
        MCX_INTERNAL("bad chunk c(n, thin, offset, warmup)");
    c.n_kept = mcx_chunk_kept(c.n, c.thin, c.offset, c.warmup);
    return c;
}

SEXP mcx_chunk_matrix(const mcx_chunk *c, SEXPTYPE type, int ncol, const char *const *names)
{
    SEXP m = PROTECT(Rf_allocMatrix(type, c->n_kept, ncol));
    if (names != NULL) {
        SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2));
        SEXP cn = Rf_allocVector(STRSXP, ncol);
        SET_VECTOR_ELT(dn, 1, cn);
        for (int j = 0; j < ncol; j++) SET_STRING_ELT(cn, j, Rf_mkChar(names[j]));
        Rf_setAttrib(m, R_DimNamesSymbol, dn);
        UNPROTECT(1);
    }
    UNPROTECT(1);
    return m;
}

uint64_t mcx_seed_read(SEXP s)
{
    if (TYPEOF(s) != REALSXP || XLENGTH(s) != 2) MCX_INTERNAL("bad seed");
    return ((uint64_t) REAL(s)[0] << 32) | (uint64_t) REAL(s)[1];
}

SEXP mcx_seed_new(uint64_t v)
{
    SEXP s = PROTECT(allocVector(REALSXP, 2));
    REAL(s)[0] = (double) (v >> 32);
    REAL(s)[1] = (double) (v & 0xffffffffu);
    UNPROTECT(1);
    return s;
}
