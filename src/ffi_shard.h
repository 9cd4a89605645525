/*
 * ffi_shard.h -- .Call entry points of the sharded mixture chain (ffi_shard.c).
 */
#ifndef MCMIX_FFI_SHARD_H
#define MCMIX_FFI_SHARD_H
#include <Rinternals.h>

SEXP ffi_shard_propose(SEXP spec, SEXP x, SEXP z, SEXP znew, SEXP info, SEXP theta,
                       SEXP logpi, SEXP seed);
SEXP ffi_shard_accept(SEXP z, SEXP znew, SEXP cnt);
SEXP ffi_shard_stats(SEXP spec, SEXP x, SEXP z, SEXP info);
SEXP ffi_shard_sams(SEXP spec, SEXP x, SEXP z, SEXP side, SEXP info, SEXP args, SEXP seed,
                    SEXP st, SEXP n);
SEXP ffi_shard_apply(SEXP z, SEXP side, SEXP args, SEXP map);
SEXP ffi_shard_nth(SEXP z, SEXP k, SEXP r);
SEXP ffi_shard_warm(SEXP spec, SEXP x, SEXP z, SEXP info, SEXP xs, SEXP lab);
SEXP ffi_shard_params(SEXP spec, SEXP stats, SEXP size, SEXP prior);
SEXP ffi_shard_plan(SEXP spec, SEXP stats, SEXP size, SEXP prior, SEXP thin);
SEXP ffi_shard_decide(SEXP spec, SEXP stats, SEXP size, SEXP prior, SEXP thin, SEXP move,
                      SEXP st, SEXP n, SEXP lq);
SEXP ffi_shard_stats_of(SEXP spec, SEXP xr, SEXP a, SEXP b);
SEXP ffi_shard_finish_sweep(SEXP spec, SEXP stats, SEXP size, SEXP prior);
SEXP ffi_shard_combine(SEXP spec, SEXP parts);

#endif
