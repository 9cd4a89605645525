/*
 * ffi_mixture_online.c -- glue of the labels of a subsample and of the
 * online point estimate kept by a DP chain that does not store the labels
 * of every observation (R/mixture_online.R; the engine is
 * mixture_online.c).  ffi_dp_step() (ffi_mixture_dp.c) opens the
 * accumulator, hands it every kept draw and exports it with the state.
 * The chunk's input state is never modified: the counts and modes are
 * copied into the new state's vectors, which the engine updates.
 */
#include <stdint.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "ffi_mixture_online.h"
#include "ffi_list.h"
#include "ffi.h"

/* Bytes of one count. */
static size_t count_size(int wide) { return wide ? sizeof(int) : sizeof(uint16_t); }

/* A counts vector of n x cap counts: an n x cap integer matrix, or a raw
 * vector of n x cap 16-bit counts (2 n cap bytes). */
static SEXP alloc_counts(int n, int cap, int wide)
{
    return wide ? Rf_allocMatrix(INTSXP, n, cap)
                : Rf_allocVector(RAWSXP, (R_xlen_t) n * cap * (R_xlen_t) sizeof(uint16_t));
}
static void *counts_data(SEXP v) { return TYPEOF(v) == INTSXP ? (void *) INTEGER(v) : (void *) RAW(v); }

/* A counts block of n x cap with the slots in use (mcx_online.grow). */
static void *grow(void *ctx, int cap)
{
    ffi_online *f = ctx;
    const mcx_online *o = &f->acc;
    size_t w = count_size(o->wide), n = (size_t) o->n, used = n * (size_t) o->n_slots * w;
    SEXP v = alloc_counts(o->n, cap, o->wide);
    memcpy(counts_data(v), o->counts, used);
    memset((char *) counts_data(v) + used, 0, n * (size_t) cap * w - used);
    REPROTECT(f->counts = v, f->ipx);   /* the previous block is released */
    return counts_data(v);
}

int ffi_online_open(ffi_online *f, SEXP spec, SEXP state_online, int n, const mcx_chunk *c,
                    int *nprot)
{
    SEXP os = mcx_list_get(spec, "online");
    memset(f, 0, sizeof *f);
    if (os == R_NilValue) return 0;
    SEXP subset = mcx_list_elt(os, "subset");
    int max_slots = mcx_list_count(os, "max_slots");
    SEXP nm = mcx_list_get(os, "narrow_max");   /* tests only: a lower bound */
    double narrow_max = nm == R_NilValue ? MCX_ONLINE_NARROW_MAX : Rf_asReal(nm);
    if (TYPEOF(subset) != INTSXP || XLENGTH(subset) < 1 || XLENGTH(subset) > n ||
        max_slots < 1 || !(narrow_max >= 0 && narrow_max <= MCX_ONLINE_NARROW_MAX))
        MCX_INTERNAL("bad spec$online");
    f->n_sub = (int) XLENGTH(subset);
    f->sub = mcx_alloc((size_t) f->n_sub, sizeof(int));
    for (int j = 0; j < f->n_sub; j++) {
        int s = INTEGER(subset)[j];
        if (s == NA_INTEGER || s < 1 || s > n) MCX_INTERNAL("bad online subset");
        f->sub[j] = s - 1;
    }
    int L = 0, wide_in = 0;
    double n_draws = 0;
    SEXP cnt = R_NilValue, md = R_NilValue;
    if (state_online != R_NilValue) {
        cnt = mcx_list_elt(state_online, "counts");
        md = mcx_list_elt(state_online, "mode");
        wide_in = TYPEOF(cnt) == INTSXP;
        if (wide_in && Rf_isMatrix(cnt) && Rf_nrows(cnt) == n) L = Rf_ncols(cnt);
        else if (TYPEOF(cnt) == RAWSXP && XLENGTH(cnt) % (2 * (R_xlen_t) n) == 0)
            L = (int) (XLENGTH(cnt) / (2 * (R_xlen_t) n));
        else MCX_INTERNAL("bad state$online$counts");
        if (TYPEOF(md) != INTSXP || XLENGTH(md) != n) MCX_INTERNAL("bad state$online$mode");
        if (L > max_slots) MCX_INTERNAL("state$online has more slots than max_slots");
        n_draws = mcx_list_num(state_online, "n_draws");
    }
    /* 16-bit counts while no count can pass narrow_max in this chunk */
    int wide = wide_in || n_draws + c->n_kept > narrow_max;
    PROTECT_WITH_INDEX(f->counts = alloc_counts(n, L, wide), &f->ipx);
    f->mode = PROTECT(Rf_allocVector(INTSXP, n));
    f->n_keep = (size_t) c->n_kept;
    f->sub_labels = PROTECT(mcx_chunk_matrix(c, INTSXP, f->n_sub, NULL));
    *nprot += 3;
    size_t cells = (size_t) n * (size_t) L;
    if (cnt != R_NilValue && wide == wide_in) {
        memcpy(counts_data(f->counts), counts_data(cnt), cells * count_size(wide));
    } else if (cnt != R_NilValue) {          /* widened: 16-bit to int */
        const uint16_t *from = (const uint16_t *) RAW(cnt);
        int *to = INTEGER(f->counts);
        for (size_t j = 0; j < cells; j++) to[j] = from[j];
    }
    if (md != R_NilValue) memcpy(INTEGER(f->mode), INTEGER(md), (size_t) n * sizeof(int));
    else for (int i = 0; i < n; i++) INTEGER(f->mode)[i] = -1;
    mcx_online_init(&f->acc, n, max_slots, counts_data(f->counts), wide, L, L,
                    INTEGER(f->mode), n_draws, grow, f);
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
    if (o->counts != counts_data(f->counts) || o->cap != o->n_slots ||
        (size_t) XLENGTH(f->counts) != (size_t) o->n * o->cap * (o->wide ? 1 : 2))
        MCX_INTERNAL("online counts block out of step");
    SEXP nd = PROTECT(Rf_ScalarReal(o->n_draws)); (*nprot)++;
    const char *nm[] = {"counts", "mode", "n_draws", NULL};
    SEXP v[] = {f->counts, f->mode, nd};
    SEXP out = PROTECT(mcx_named_list(nm, v)); (*nprot)++;
    return out;
}
