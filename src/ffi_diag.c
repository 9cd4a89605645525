/*
 * ffi_diag.c -- .Call glue of the diagnostics, co-clustering and partition
 * routines. Arguments are validated in R (R/diag.R, R/psm.R,
 * R/partition.R); mismatches here are internal errors.
 */
#include <R.h>
#include <Rinternals.h>
#include <string.h>
#include "diag.h"
#include "partition.h"
#include "ffi_diag.h"

static void check_matrix(SEXP x, SEXPTYPE type, const char *what)
{
    if ((SEXPTYPE) TYPEOF(x) != type || !Rf_isMatrix(x))
        mcx_error("mcmix internal error: `%s` must be a %s matrix", what,
                  Rf_type2char(type));
}

/* x: n x m double matrix; what: integer codes (diag.h). */
SEXP ffi_diag_stats(SEXP x, SEXP what)
{
    SEXP out;
    int n, m;
    check_matrix(x, REALSXP, "x");
    if (TYPEOF(what) != INTSXP) mcx_error("mcmix internal error: `what` must be integer");
    n = Rf_nrows(x);
    m = Rf_ncols(x);
    out = PROTECT(Rf_allocVector(REALSXP, XLENGTH(what)));
    mcx_diag_stats(REAL(x), n, m, INTEGER(what), (int) XLENGTH(what), REAL(out));
    UNPROTECT(1);
    return out;
}

/* Autocorrelations at lags 0..lag_max of each column of x. */
SEXP ffi_diag_autocorr(SEXP x, SEXP lag_max)
{
    SEXP out;
    int n, m, L, c, k;
    double *xc, *ac;
    check_matrix(x, REALSXP, "x");
    n = Rf_nrows(x);
    m = Rf_ncols(x);
    L = Rf_asInteger(lag_max);
    if (L < 0 || L >= n) mcx_error("mcmix internal error: bad `lag_max`");
    out = PROTECT(Rf_allocMatrix(REALSXP, L + 1, m));
    xc = (double *) mcx_alloc((size_t) n, sizeof(double));
    for (c = 0; c < m; c++) {
        mcx_acov a;
        double *o = REAL(out) + (size_t) c * (L + 1);
        mcx_center(REAL(x) + (size_t) c * n, n, xc);
        mcx_acov_init(&a, xc, n, 1);
        mcx_acov_need(&a, L);
        ac = a.mean;
        for (k = 0; k <= L; k++) o[k] = ac[0] > 0 ? ac[k] / ac[0] : NA_REAL;
    }
    UNPROTECT(1);
    return out;
}

/* Check for an interrupt after about this many elementary operations. */
#define MCX_INTERRUPT_WORK 4194304.0

/* (acc + co-clustering counts of the S x N integer label matrix) * scale;
 * scaled in place, so the N x N result is the only large allocation. */
SEXP ffi_psm_counts(SEXP labels, SEXP acc, SEXP scale)
{
    SEXP out;
    int S, N;
    double sc = Rf_asReal(scale);
    mcx_psm_work w;
    size_t i;
    check_matrix(labels, INTSXP, "labels");
    S = Rf_nrows(labels);
    N = Rf_ncols(labels);
    out = PROTECT(Rf_allocMatrix(REALSXP, N, N));
    if (Rf_isNull(acc)) {
        memset(REAL(out), 0, sizeof(double) * (size_t) N * N);
    } else {
        check_matrix(acc, REALSXP, "acc");
        if (Rf_nrows(acc) != N || Rf_ncols(acc) != N)
            mcx_error("mcmix internal error: `acc` has the wrong size");
        memcpy(REAL(out), REAL(acc), sizeof(double) * (size_t) N * N);
    }
    /* in pieces of about MCX_INTERRUPT_WORK operations (blocks of draws,
     * then single tiles), with interrupt checks between them */
    mcx_psm_setup(&w, S, N);
    if (w.ntiles > 0) {
        int s0, t, block = (int) (MCX_INTERRUPT_WORK / N) + 1;
        for (s0 = 0; s0 < S; s0 += block) {
            mcx_psm_recode(&w, INTEGER(labels), s0, S - s0 > block ? s0 + block : S);
            R_CheckUserInterrupt();
        }
        for (t = 0; t < w.ntiles; t++) {
            mcx_psm_tile(&w, t, REAL(out));
            R_CheckUserInterrupt();
        }
    }
    if (sc != 1.0)
        for (i = 0; i < (size_t) N * N; i++) REAL(out)[i] *= sc;
    UNPROTECT(1);
    return out;
}

/* Expected loss of each row of `cands` (R x N, canonical labels 1..K). */
SEXP ffi_partition_loss(SEXP cands, SEXP labels, SEXP psm, SEXP loss)
{
    SEXP out;
    int R, N, r, j, code = Rf_asInteger(loss);
    int *cl;
    double cost, work = 0.0;
    mcx_loss_work lw;
    check_matrix(cands, INTSXP, "cands");
    R = Rf_nrows(cands);
    N = Rf_ncols(cands);
    if (code == MCX_LOSS_VI) {
        check_matrix(labels, INTSXP, "labels");
        if (Rf_ncols(labels) != N) mcx_error("mcmix internal error: label sizes differ");
        cost = (double) Rf_nrows(labels) * N;
    } else if (code == MCX_LOSS_BINDER || code == MCX_LOSS_VI_LB) {
        check_matrix(psm, REALSXP, "psm");
        if (Rf_ncols(psm) != N || Rf_nrows(psm) != N)
            mcx_error("mcmix internal error: psm size differs");
        cost = (double) N * N;
    } else {
        mcx_error("mcmix internal error: unknown loss %d", code);
    }
    out = PROTECT(Rf_allocVector(REALSXP, R));
    /* all scratch once, before the loop over candidates */
    cl = (int *) mcx_alloc((size_t) (N > 0 ? N : 1), sizeof(int));
    mcx_loss_work_init(&lw, N);
    for (r = 0; r < R; r++) {
        for (j = 0; j < N; j++) cl[j] = INTEGER(cands)[r + (size_t) j * R];
        switch (code) {
        case MCX_LOSS_VI:
            REAL(out)[r] = mcx_vi_expected(cl, INTEGER(labels), Rf_nrows(labels), N, &lw);
            break;
        case MCX_LOSS_BINDER: REAL(out)[r] = mcx_binder_expected(cl, REAL(psm), N); break;
        default: REAL(out)[r] = mcx_vi_lb(cl, REAL(psm), N, &lw); break;
        }
        work += cost + N;
        if (work >= MCX_INTERRUPT_WORK && r + 1 < R) {
            R_CheckUserInterrupt();
            work = 0.0;
        }
    }
    UNPROTECT(1);
    return out;
}

/* Greedy search from `start` (integer vector, canonical labels). */
SEXP ffi_partition_greedy(SEXP start, SEXP labels, SEXP psm, SEXP loss,
                          SEXP max_sweeps)
{
    SEXP out, sweeps;
    int N, code = Rf_asInteger(loss), S = 0, max = Rf_asInteger(max_sweeps);
    int n_sweeps = 0, moved = 1, block, i0;
    const int *lab = NULL;
    mcx_greedy g;
    const double *p = NULL;
    if (TYPEOF(start) != INTSXP) mcx_error("mcmix internal error: `start` must be integer");
    N = (int) XLENGTH(start);
    if (code == MCX_LOSS_VI) {
        check_matrix(labels, INTSXP, "labels");
        if (Rf_ncols(labels) != N) mcx_error("mcmix internal error: label sizes differ");
        lab = INTEGER(labels);
        S = Rf_nrows(labels);
    } else {
        check_matrix(psm, REALSXP, "psm");
        if (Rf_ncols(psm) != N) mcx_error("mcmix internal error: psm size differs");
        p = REAL(psm);
    }
    out = PROTECT(Rf_duplicate(start));
    /* sweeps until one moves nothing, each in blocks of observations of
     * about MCX_INTERRUPT_WORK operations with an interrupt check between
     * blocks (the same moves as one uninterrupted sweep) */
    mcx_greedy_setup(&g, INTEGER(out), N, code, lab, S, p);
    block = g.cost * N <= MCX_INTERRUPT_WORK ? N : (int) (MCX_INTERRUPT_WORK / g.cost);
    if (block < 1) block = 1;
    while (moved && n_sweeps < max) {
        moved = 0;
        n_sweeps++;
        for (i0 = 0; i0 < N; i0 += block) {
            moved |= mcx_greedy_sweep(&g, i0, N - i0 > block ? i0 + block : N);
            R_CheckUserInterrupt();
        }
    }
    mcx_greedy_finish(&g);
    /* protected: Rf_install() below may allocate */
    sweeps = PROTECT(Rf_ScalarInteger(n_sweeps));
    Rf_setAttrib(out, Rf_install("sweeps"), sweeps);
    UNPROTECT(2);
    return out;
}
