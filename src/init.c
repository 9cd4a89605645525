/*
 * init.c -- registration of every .Call routine (exact arities) and of the
 * C-callables that plugin packages use through inst/include/mcmix.h.
 *
 * Each area keeps its prototypes in its own ffi_*.h header and its entries
 * in its own block of the table below, one block per glue file, headed by
 * that file's name (tests/testthat/test-source-map.R checks the headings).
 */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>
#include "mcmix_engine.h"
#include "ffi.h"
#include "ffi_workspace.h"
#include "family_builtin.h"
#include "ffi_target.h"
#include "ffi_nuts.h"
#include "ffi_logit.h"
#include "ffi_textbook.h"
#include "ffi_hdp.h"
#include "ffi_shard.h"
#include "ffi_shard_lda.h"

/* Through void (*)(void), the generic function pointer type: a cast from
 * a function of another type straight to DL_FUNC draws
 * -Wcast-function-type (-Wextra) */
#define MCX_FN(f) ((DL_FUNC) (void (*)(void)) (f))
#define CALLDEF(name, n) {#name, MCX_FN(&name), n}

static const R_CallMethodDef call_methods[] = {
    /* --- families and the registry (ffi_family.c) --- */
    CALLDEF(ffi_families, 0),
    CALLDEF(ffi_family_eval, 5),
    CALLDEF(ffi_family_conjugate, 1),
    /* --- test-only entry points (ffi_testing.c) --- */
    CALLDEF(ffi_test_rng, 3),
    CALLDEF(ffi_test_linalg, 3),
    CALLDEF(ffi_dp_alpha_update, 5),
    CALLDEF(ffi_dpx_register_abi1, 0),
    /* --- the terminal's interrupt, chain workers, OpenMP (ffi_signals.c) --- */
    CALLDEF(ffi_sigint, 2),
    CALLDEF(ffi_openmp, 0),
    /* --- finite mixtures and the CRP simulator (ffi_mixture.c) --- */
    CALLDEF(ffi_finite_step, 4),
    CALLDEF(ffi_rcrp, 3),
    /* --- DP / Pitman-Yor mixtures (every algorithm of the table) (ffi_mixture_dp.c) --- */
    CALLDEF(ffi_dp_step, 4),
    CALLDEF(ffi_dp_warm_allocate, 6),
    /* --- the sharded mixture chain (ffi_shard.c) --- */
    CALLDEF(ffi_shard_propose, 8),
    CALLDEF(ffi_shard_accept, 3),
    CALLDEF(ffi_shard_stats, 4),
    CALLDEF(ffi_shard_sams, 9),
    CALLDEF(ffi_shard_apply, 4),
    CALLDEF(ffi_shard_nth, 3),
    CALLDEF(ffi_shard_warm, 6),
    CALLDEF(ffi_shard_params, 4),
    CALLDEF(ffi_shard_plan, 5),
    CALLDEF(ffi_shard_decide, 9),
    CALLDEF(ffi_shard_stats_of, 4),
    CALLDEF(ffi_shard_finish_sweep, 4),
    CALLDEF(ffi_shard_combine, 2),
    /* --- LDA over shards of documents (ffi_shard_lda.c) --- */
    CALLDEF(ffi_lda_shard_words, 4),
    CALLDEF(ffi_lda_shard_apply, 4),
    CALLDEF(ffi_lda_shard_draw, 4),
    CALLDEF(ffi_lda_shard_undo, 2),
    CALLDEF(ffi_lda_shard_count, 3),
    CALLDEF(ffi_lda_shard_sweep, 5),
    CALLDEF(ffi_lda_shard_theta, 3),
    CALLDEF(ffi_lda_shard_log_docs, 2),
    CALLDEF(ffi_lda_shard_take, 2),
    CALLDEF(ffi_lda_shard_combine, 3),
    CALLDEF(ffi_lda_shard_log_words, 3),
    CALLDEF(ffi_lda_shard_phi, 4),
    CALLDEF(ffi_lda_shard_seed, 0),
    CALLDEF(ffi_lda_shard_order, 4),
    /* --- a chain's workspace (ffi_workspace.c) --- */
    CALLDEF(ffi_workspace_new, 0),
    CALLDEF(ffi_workspace_detach, 2),
    /* --- posterior predictive of mixtures (ffi_mixture_predict.c) --- */
    CALLDEF(ffi_mixture_predict, 8),
    /* --- imputation of Gaussian blocks (ffi_impute.c) --- */
    CALLDEF(ffi_impute_step, 5),
    /* --- LDA (ffi_lda.c) --- */
    CALLDEF(ffi_lda_step, 8),
    CALLDEF(ffi_lda_samplers, 0),
    CALLDEF(ffi_lda_log_joint, 4),
    CALLDEF(ffi_lda_fold_in, 4),
    /* --- the HDP mixture (ffi_hdp.c) --- */
    CALLDEF(ffi_hdp_step, 5),
    /* --- diagnostics, co-clustering, partition losses and greedy search (ffi_diag.c) --- */
    CALLDEF(ffi_diag_stats, 2),
    CALLDEF(ffi_diag_autocorr, 2),
    CALLDEF(ffi_psm_counts, 3),
    CALLDEF(ffi_partition_loss, 4),
    CALLDEF(ffi_partition_greedy, 5),
    /* --- SALSO-style search, distances for credible balls (ffi_partition.c) --- */
    CALLDEF(ffi_partition_salso, 6),
    CALLDEF(ffi_partition_dists, 3),
    /* --- targets (ffi_target.c) --- */
    CALLDEF(ffi_target_info, 1),
    CALLDEF(ffi_target_eval, 4),
    CALLDEF(ffi_target_start, 4),
    /* --- generic samplers (ffi_sampler.c) --- */
    CALLDEF(ffi_mh_run, 5),
    CALLDEF(ffi_slice_run, 5),
    CALLDEF(ffi_hmc_run, 5),
    CALLDEF(ffi_tempering_run, 5),
    /* --- model-specific Gibbs samplers (ffi_models.c) --- */
    CALLDEF(ffi_probit_step, 3),
    CALLDEF(ffi_gpclass_step, 3),
    CALLDEF(ffi_ising_step, 3),
    CALLDEF(ffi_hierlm_step, 3),
    /* --- SMC, AIS, annealing (ffi_smc.c) --- */
    CALLDEF(ffi_smc_run, 4),
    CALLDEF(ffi_ais_run, 4),
    CALLDEF(ffi_anneal_run, 4),
    /* --- NUTS (ffi_nuts.c) --- */
    CALLDEF(ffi_nuts_run, 5),
    /* --- logistic regression, Polya-Gamma draws (ffi_logit.c) --- */
    CALLDEF(ffi_logit_step, 3),
    CALLDEF(ffi_rpolyagamma, 3),
    /* --- reversible jump, MAP partitions (ffi_rj.c) --- */
    CALLDEF(ffi_rg_step, 4),
    CALLDEF(ffi_rjc_step, 4),
    CALLDEF(ffi_map_partition, 4),
    /* --- Bayesian networks (ffi_bayesnet.c) --- */
    CALLDEF(ffi_bn_step, 3),
    CALLDEF(ffi_bn_anneal, 4),
    {NULL, NULL, 0}
};

void attribute_visible R_init_mcmix(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);

    mcx_register_builtin_families();
    mcx_register_family(&mcx_family_r_family);   /* glue: ffi_family_r.c */

    R_RegisterCCallable("mcmix", "mcx_register_family", MCX_FN(&mcx_register_family));
    R_RegisterCCallable("mcmix", "mcx_find_family", MCX_FN(&mcx_find_family));
    R_RegisterCCallable("mcmix", "mcx_abi_version", MCX_FN(&mcx_abi_version));
    /* --- target C-callables (ffi_target.c) --- */
    R_RegisterCCallable("mcmix", "mcx_target_xptr", MCX_FN(&mcx_target_xptr));
}
