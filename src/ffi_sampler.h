/* ffi_sampler.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_SAMPLER_H
#define MCMIX_FFI_SAMPLER_H
#include <R.h>
#include <Rinternals.h>

/* ffi_target.c */
SEXP ffi_target_info(SEXP xptr);
SEXP ffi_target_eval(SEXP target, SEXP theta, SEXP io, SEXP what);
SEXP ffi_target_start(SEXP target, SEXP io, SEXP theta, SEXP need_grad);
/* ffi_sampler.c */
SEXP ffi_mh_run(SEXP target, SEXP io, SEXP state, SEXP run, SEXP spec);
SEXP ffi_slice_run(SEXP target, SEXP io, SEXP state, SEXP run, SEXP spec);
SEXP ffi_hmc_run(SEXP target, SEXP io, SEXP state, SEXP run, SEXP spec);
SEXP ffi_tempering_run(SEXP targets, SEXP io, SEXP state, SEXP run, SEXP spec);

/* ffi_models.c (model-specific Gibbs samplers) */
SEXP ffi_probit_step(SEXP data, SEXP state, SEXP ctrl);
SEXP ffi_gpclass_step(SEXP data, SEXP state, SEXP ctrl);
SEXP ffi_ising_step(SEXP data, SEXP state, SEXP ctrl);
SEXP ffi_hierlm_step(SEXP data, SEXP state, SEXP ctrl);

/* ffi_smc.c (SMC, AIS, simulated annealing) */
SEXP ffi_smc_run(SEXP targets, SEXP io, SEXP theta0, SEXP spec);
SEXP ffi_ais_run(SEXP targets, SEXP io, SEXP theta0, SEXP spec);
SEXP ffi_anneal_run(SEXP target, SEXP io, SEXP theta0, SEXP spec);

#endif
