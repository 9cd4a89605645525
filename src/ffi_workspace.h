/* ffi_workspace.h -- a chain's memory held across chunks (ffi_workspace.c). */
#ifndef MCMIX_FFI_WORKSPACE_H
#define MCMIX_FFI_WORKSPACE_H
#include <R.h>
#include <Rinternals.h>
#include "mcmix_engine.h"

/* .Call: a new, empty workspace (an external pointer). */
SEXP ffi_workspace_new(void);
/* .Call: `labels`, taken out of the workspace when it is one of its label
 * buffers (the workspace never writes it again: the state a run leaves in
 * the chain shares no memory with a workspace). */
SEXP ffi_workspace_detach(SEXP ws, SEXP labels);

/* body(data) with every mcx_alloc() served by the arena of `ws` (R_NilValue
 * or a restored workspace: plain R_alloc), the arena released on any exit. */
SEXP ffi_workspace_run(SEXP ws, SEXP (*body)(void *), void *data);
/* The label buffer a chunk whose state has labels `in` works in and
 * returns (n ints, not protected: held by the workspace); R_NilValue
 * without a usable workspace. */
SEXP ffi_workspace_labels(SEXP ws, SEXP in, R_xlen_t n);

/* The object a model keeps in the workspace across the chunks of a run
 * (R_NilValue: none yet, or no usable workspace), and setting it (ignored
 * without a usable workspace). */
SEXP ffi_workspace_model(SEXP ws);
void ffi_workspace_set_model(SEXP ws, SEXP obj);

/* The arena behind mcx_alloc() (ffi_workspace.c) while a chunk runs with a
 * workspace. */
int ffi_arena_active(void);
void *ffi_arena_alloc(size_t n, size_t size);
#endif
