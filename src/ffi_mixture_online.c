/*
 * ffi_mixture_online.c -- glue of the labels of a subsample and of the
 * online point estimate kept by a DP chain that does not store the labels
 * of every observation (R/mixture_online.R; the engine is
 * mixture_online.c).  ffi_dp_step() (ffi_mixture_dp.c) opens the
 * accumulator, hands it every kept draw and exports it with the state.
 * The chunk's input state is never modified: the counts and modes are
 * copied into the new state's vectors, which the engine updates.
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "ffi_mixture_online.h"
#include "ffi_list.h"
#include "ffi.h"

/* A counts block of n x cap with the slots in use (mcx_online.grow). */
static int *grow(void *ctx, int cap)
{
    ffi_online *f = ctx;
    const mcx_online *o = &f->acc;
    size_t n = (size_t) o->n, used = n * (size_t) o->n_slots;
    SEXP v = Rf_allocMatrix(INTSXP, o->n, cap);
    memcpy(INTEGER(v), o->counts, used * sizeof(int));
    memset(INTEGER(v) + used, 0, (n * (size_t) cap - used) * sizeof(int));
    REPROTECT(f->counts = v, f->ipx);   /* the previous block is released */
    return INTEGER(v);
}

int ffi_online_open(ffi_online *f, SEXP spec, SEXP state_online, int n, const mcx_chunk *c,
                    int *nprot)
{
    SEXP os = mcx_list_get(spec, "online");
    memset(f, 0, sizeof *f);
    if (os == R_NilValue) return 0;
    SEXP subset = mcx_list_elt(os, "subset");
    int max_slots = mcx_list_count(os, "max_slots");
    if (TYPEOF(subset) != INTSXP || XLENGTH(subset) < 1 || XLENGTH(subset) > n ||
        max_slots < 1)
        MCX_INTERNAL("bad spec$online");
    f->n_sub = (int) XLENGTH(subset);
    f->sub = mcx_alloc((size_t) f->n_sub, sizeof(int));
    for (int j = 0; j < f->n_sub; j++) {
        int s = INTEGER(subset)[j];
        if (s == NA_INTEGER || s < 1 || s > n) MCX_INTERNAL("bad online subset");
        f->sub[j] = s - 1;
    }
    int L = 0;
    double n_draws = 0;
    const int *cin = NULL, *min = NULL;
    if (state_online != R_NilValue) {
        SEXP cnt = mcx_list_elt(state_online, "counts"), md = mcx_list_elt(state_online, "mode");
        if (TYPEOF(cnt) != INTSXP || !Rf_isMatrix(cnt) || Rf_nrows(cnt) != n ||
            TYPEOF(md) != INTSXP || XLENGTH(md) != n)
            MCX_INTERNAL("bad state$online");
        L = Rf_ncols(cnt);
        if (L > max_slots) MCX_INTERNAL("state$online has more slots than max_slots");
        n_draws = mcx_list_num(state_online, "n_draws");
        cin = INTEGER(cnt);
        min = INTEGER(md);
    }
    PROTECT_WITH_INDEX(f->counts = Rf_allocMatrix(INTSXP, n, L), &f->ipx);
    f->mode = PROTECT(Rf_allocVector(INTSXP, n));
    f->n_keep = (size_t) c->n_kept;
    f->sub_labels = PROTECT(mcx_chunk_matrix(c, INTSXP, f->n_sub, NULL));
    *nprot += 3;
    if (L > 0) memcpy(INTEGER(f->counts), cin, (size_t) n * L * sizeof(int));
    if (min != NULL) memcpy(INTEGER(f->mode), min, (size_t) n * sizeof(int));
    else for (int i = 0; i < n; i++) INTEGER(f->mode)[i] = -1;
    mcx_online_init(&f->acc, n, max_slots, INTEGER(f->counts), L, L, INTEGER(f->mode),
                    n_draws, grow, f);
    return 1;
}

void ffi_online_keep(ffi_online *f, int r, const int *z, const int *lab, int K)
{
    mcx_online_subset(z, lab, f->sub, f->n_sub, INTEGER(f->sub_labels) + r, f->n_keep);
    mcx_online_add(&f->acc, z, lab, K);
}

SEXP ffi_online_state(ffi_online *f, int *nprot)
{
    const mcx_online *o = &f->acc;
    if (o->counts != INTEGER(f->counts) || o->cap != o->n_slots || Rf_ncols(f->counts) != o->cap)
        MCX_INTERNAL("online counts block out of step");
    SEXP counts = f->counts;
    SEXP nd = PROTECT(Rf_ScalarReal(o->n_draws)); (*nprot)++;
    const char *nm[] = {"counts", "mode", "n_draws", NULL};
    SEXP v[] = {counts, f->mode, nd};
    SEXP out = PROTECT(mcx_named_list(nm, v)); (*nprot)++;
    return out;
}
