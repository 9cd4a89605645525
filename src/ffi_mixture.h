/* ffi_mixture.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_MIXTURE_H
#define MCMIX_FFI_MIXTURE_H
#include <R.h>
#include <Rinternals.h>

#include "mixture_state.h"

/* Shared by the mixture glue (ffi_mixture.c): the partition of a state
 * from its labels (N integers, 0-based, internal order; k_min as in
 * mcx_mix_build()) and its exported stats blocks (raw, or NULL: computed
 * from the labels); and the export of both (two new PROTECTed vectors). */
void ffi_mix_open(mcx_mix *m, const mcx_family *fam, const void *hyper, SEXP xt, int dim,
                  SEXP labels, SEXP stats, int k_min);
void ffi_mix_export(const mcx_mix *m, SEXP *labels, SEXP *stats);
/* The same for the finite and DP mixtures, whose data and workspace come
 * with the spec: x is the N x dim matrix read in place when spec$x_rows is
 * TRUE, else dim x N (ffi_mix_n() checks it and gives N); gather buffers
 * for spec$control$threads threads; with a workspace (spec$workspace,
 * ffi_workspace.c) the labels are worked on in its label buffer, which is
 * returned (else R_NilValue) and exported as they are by
 * ffi_mix_export_spec(). */
int ffi_mix_n(SEXP x, int dim);
SEXP ffi_mix_open_spec(mcx_mix *m, const mcx_family *fam, const void *hyper, SEXP spec,
                       SEXP x, int dim, SEXP labels, SEXP stats, int k_min);
void ffi_mix_export_spec(const mcx_mix *m, SEXP zbuf, SEXP *labels, SEXP *stats);
/* The arguments of a mixture step .Call, and body(&args) run with the
 * workspace spec$workspace (ffi_workspace_run()). */
typedef struct {
    SEXP spec, x, state, chunk;
} ffi_mix_step_args;
SEXP ffi_mix_step_run(SEXP (*body)(void *), SEXP spec, SEXP x, SEXP state, SEXP chunk);

/* ffi_mixture.c (finite mixtures, CRP simulator) */
SEXP ffi_finite_step(SEXP spec, SEXP xt, SEXP state, SEXP chunk);
SEXP ffi_rcrp(SEXP n, SEXP alpha, SEXP discount);
/* ffi_mixture_dp.c: every DP / Pitman-Yor algorithm (mixture_dp.h) */
SEXP ffi_dp_step(SEXP spec, SEXP xt, SEXP state, SEXP chunk);
SEXP ffi_dp_warm_allocate(SEXP spec, SEXP x, SEXP sub, SEXP lab, SEXP range, SEXP out);
/* ffi_mixture_predict.c */
SEXP ffi_mixture_predict(SEXP family, SEXP dim, SEXP hyper, SEXP xt, SEXP labels,
                         SEXP weights, SEXP newx, SEXP est);

/* ffi_impute.c (imputation of joint Gaussian blocks) */
SEXP ffi_impute_step(SEXP xt, SEXP z, SEXP blocks, SEXP miss, SEXP params);

/* ffi_lda.c (LDA; the HDP: ffi_hdp.h) */
SEXP ffi_lda_step(SEXP word, SEXP doc_start, SEXP z, SEXP phi_sum,
                  SEXP theta_sum, SEXP settings, SEXP chunk, SEXP workspace);
SEXP ffi_lda_log_joint(SEXP word, SEXP doc_start, SEXP z, SEXP settings);
SEXP ffi_lda_fold_in(SEXP word, SEXP doc_start, SEXP phi, SEXP settings);
SEXP ffi_lda_samplers(void);

#endif
