/*
 * ffi_partition.c -- .Call glue of the SALSO-style search and of the
 * per-draw distances used by credible balls (R/partition.R,
 * R/credible_ball.R; engine in partition_salso.c, partition_search.c,
 * partition_loss.c).  R validated everything; mismatches are internal
 * errors.
 */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Memory.h>
#include <string.h>
#include "partition.h"
#include "ffi_diag.h"

static void need_int_matrix(SEXP x, int ncol, const char *what)
{
    if (TYPEOF(x) != INTSXP || !Rf_isMatrix(x) || (ncol >= 0 && Rf_ncols(x) != ncol))
        mcx_error("mcmix internal error: `%s` must be an integer matrix", what);
}

/* Greedy sweeps from cl until one moves nothing (or max_sweeps); scratch
 * of the search is released afterwards. */
static void sweeten(int *cl, int N, int loss, const int *lab, int S, const double *p,
                    int max_sweeps)
{
    const void *vmax = vmaxget();
    mcx_greedy g;
    mcx_greedy_setup(&g, cl, N, loss, lab, S, p);
    for (int sweep = 0, moved = 1; moved && sweep < max_sweeps; sweep++) {
        moved = mcx_greedy_sweep(&g, 0, N);
        R_CheckUserInterrupt();
    }
    mcx_greedy_finish(&g);
    vmaxset(vmax);
}

/*
 * ffi_partition_salso(perms, labels, psm, loss, max_sweeps, kmax):
 * for each column of `perms` (N x R, 0-based permutations) a sequential
 * allocation followed by greedy sweetening; returns list(labels = the best
 * partition (1..K), loss = its exact expected loss, run_loss = the exact
 * expected loss of every run).  VI uses `labels` (S x N, canonical), Binder
 * `psm` (N x N).
 */
SEXP ffi_partition_salso(SEXP perms, SEXP labels, SEXP psm, SEXP loss, SEXP max_sweeps,
                         SEXP kmax)
{
    int code = Rf_asInteger(loss), S = 0, N, R;
    const int *lab = NULL;
    const double *p = NULL;
    need_int_matrix(perms, -1, "perms");
    N = Rf_nrows(perms);
    R = Rf_ncols(perms);
    if (code == MCX_LOSS_VI) {
        need_int_matrix(labels, N, "labels");
        lab = INTEGER(labels);
        S = Rf_nrows(labels);
    } else if (code == MCX_LOSS_BINDER) {
        if (TYPEOF(psm) != REALSXP || Rf_nrows(psm) != N || Rf_ncols(psm) != N)
            mcx_error("mcmix internal error: `psm` must be an N x N double matrix");
        p = REAL(psm);
    } else {
        mcx_error("mcmix internal error: unknown loss %d", code);
    }
    if (N < 1 || R < 1) mcx_error("mcmix internal error: empty search");
    SEXP out_lab = PROTECT(Rf_allocVector(INTSXP, N));
    SEXP out_runs = PROTECT(Rf_allocVector(REALSXP, R));
    int *cl = (int *) mcx_alloc((size_t) N, sizeof(int));
    mcx_loss_work lw;
    mcx_loss_work_init(&lw, N);
    mcx_salso w;
    mcx_salso_setup(&w, N, code, lab, S, p, Rf_asInteger(kmax));
    double best = INFINITY;
    for (int r = 0; r < R; r++) {
        mcx_salso_allocate(&w, INTEGER(perms) + (size_t) r * N, cl);
        R_CheckUserInterrupt();
        sweeten(cl, N, code, lab, S, p, Rf_asInteger(max_sweeps));
        double l = code == MCX_LOSS_VI ? mcx_vi_expected(cl, lab, S, N, &lw)
                                       : mcx_binder_expected(cl, p, N);
        REAL(out_runs)[r] = l;
        if (l < best) {
            best = l;
            memcpy(INTEGER(out_lab), cl, sizeof(int) * (size_t) N);
        }
    }
    SEXP best_ = PROTECT(Rf_ScalarReal(best));
    const char *names[] = { "labels", "loss", "run_loss", NULL };
    SEXP vals[] = { out_lab, best_, out_runs };
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, 3));
    for (int k = 0; names[k]; k++) {
        SET_VECTOR_ELT(out, k, vals[k]);
        SET_STRING_ELT(nms, k, Rf_mkChar(names[k]));
    }
    Rf_setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(5);
    return out;
}

/* ffi_partition_dists(cl, labels, loss): the distance (VI in bits, or
 * Binder's number of disagreeing pairs) from cl (1..K) to every draw. */
SEXP ffi_partition_dists(SEXP cl, SEXP labels, SEXP loss)
{
    int code = Rf_asInteger(loss);
    if (TYPEOF(cl) != INTSXP) mcx_error("mcmix internal error: `cl` must be integer");
    int N = (int) XLENGTH(cl);
    need_int_matrix(labels, N, "labels");
    if (code != MCX_LOSS_VI && code != MCX_LOSS_BINDER)
        mcx_error("mcmix internal error: unknown loss %d", code);
    int S = Rf_nrows(labels);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, S));
    mcx_loss_work lw;
    mcx_loss_work_init(&lw, N);
    if (S > 0) mcx_dist_draws(INTEGER(cl), INTEGER(labels), S, N, &lw, code, REAL(out));
    UNPROTECT(1);
    return out;
}
