/*
 * ffi_shard_lda.h -- .Call entry points of LDA over shards of documents
 * (ffi_shard_lda.c).
 */
#ifndef MCMIX_FFI_SHARD_LDA_H
#define MCMIX_FFI_SHARD_LDA_H
#include <Rinternals.h>

SEXP ffi_lda_shard_words(SEXP set, SEXP tok, SEXP idx, SEXP val);
SEXP ffi_lda_shard_apply(SEXP words, SEXP set, SEXP idx, SEXP val);
SEXP ffi_lda_shard_draw(SEXP s, SEXP set, SEXP seed, SEXP phi);
SEXP ffi_lda_shard_undo(SEXP s, SEXP set);
SEXP ffi_lda_shard_count(SEXP s, SEXP set, SEXP acc);
SEXP ffi_lda_shard_sweep(SEXP words, SEXP s, SEXP set, SEXP seed, SEXP acc);
SEXP ffi_lda_shard_theta(SEXP s, SEXP set, SEXP theta_sum);
SEXP ffi_lda_shard_log_docs(SEXP s, SEXP set);
SEXP ffi_lda_shard_take(SEXP acc, SEXP set);
SEXP ffi_lda_shard_combine(SEXP nwk, SEXP idxs, SEXP vals);
SEXP ffi_lda_shard_log_words(SEXP nwk, SEXP nk, SEXP beta);
SEXP ffi_lda_shard_phi(SEXP nwk, SEXP nk, SEXP beta, SEXP phi_sum);
SEXP ffi_lda_shard_seed(void);
SEXP ffi_lda_shard_order(SEXP word, SEXP doc_start, SEXP W, SEXP groups);

#endif
