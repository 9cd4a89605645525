/*
 * ffi_workspace.c -- memory of a chain held across the chunks of one run
 * (R/chains_workspace.R), so that a long run at large N allocates nothing
 * per chunk:
 *
 *  - an arena serving every mcx_alloc() of a chunk (the engine's scratch:
 *    the partition's per-cluster buffers, the samplers' member lists,
 *    permutations, gather buffers): blocks kept across the chunks of the
 *    run, so that the second and later chunks allocate nothing instead of
 *    leaving their R_alloc scratch to the garbage collector after every
 *    .Call (see ffi_arena_alloc());
 *  - two integer vectors of N labels, used in turn as the labels of the
 *    state a chunk returns: the engine works on the labels in place in the
 *    vector that the chunk's input state does not use, which it returns as
 *    the new state's labels.  The input state is never modified (a chunk
 *    abandoned by an interrupt or an error leaves the chain's state as it
 *    was), and the vector two chunks old is no longer referenced by the
 *    driver, which keeps only the chain's current state.  When the run
 *    ends the driver takes the current buffer out of the workspace
 *    (ffi_workspace_detach()), so no fit shares memory with a workspace.
 *
 *  - one R object a model's glue may keep there across the chunks of the
 *    run (ffi_workspace_model()): LDA keeps its counts and its sampler's
 *    structures (ffi_lda.c).
 *
 * A workspace is an external pointer whose protected value holds all its
 * memory as R vectors: an error or an interrupt leaks nothing, and no
 * finalizer is needed.  It lives in the chain driver's frame during one
 * run and is never stored in a fit; a workspace restored by readRDS() has a
 * NULL address and is ignored (plain allocation).
 *
 * Everything is single-threaded: mcx_alloc() is never called in parallel
 * regions (R_alloc could not be either).
 */
#include <string.h>
#include <stdint.h>
#include <R.h>
#include <Rinternals.h>
#include "ffi_workspace.h"

#define ALIGN 64
#define MIN_BLOCK (64 * 1024)
enum { WS_BLOCKS, WS_LAB_A, WS_LAB_B, WS_MODEL, WS_N };

/* The arena is a list of blocks (raw vectors) kept across chunks.  A chunk
 * allocates from the blocks in order, moving to the next block when a
 * request does not fit the rest of the current one and appending a block
 * (of at least MIN_BLOCK bytes) when none is left.  Every chunk of a run
 * makes the same sequence of requests (up to the rare growth of cluster
 * buffers), so from the second chunk on each request finds its block:
 * nothing is allocated, nothing is left to the garbage collector. */
typedef struct {
    SEXP ptr;              /* the external pointer (protected by the caller) */
    int nblocks, block;    /* blocks held; the current one */
    size_t off;            /* bytes used in the current block */
    int active;
} ws_arena;

static ws_arena *current = NULL;

SEXP ffi_workspace_new(void)
{
    SEXP prot = PROTECT(Rf_allocVector(VECSXP, WS_N));
    SET_VECTOR_ELT(prot, WS_BLOCKS, Rf_allocVector(VECSXP, 16));
    SEXP cell = PROTECT(Rf_allocVector(RAWSXP, sizeof(ws_arena)));
    ws_arena *a = (ws_arena *) RAW(cell);
    memset(a, 0, sizeof *a);
    /* the struct lives in `cell`, kept alive as the pointer's tag */
    SEXP ptr = R_MakeExternalPtr(a, cell, prot);
    UNPROTECT(2);
    return ptr;
}

static ws_arena *ws_get(SEXP ws)
{
    if (ws == R_NilValue) return NULL;
    if (TYPEOF(ws) != EXTPTRSXP) MCX_INTERNAL("bad workspace");
    return (ws_arena *) R_ExternalPtrAddr(ws);   /* NULL after readRDS() */
}

static char *block_base(SEXP blk)
{
    uintptr_t p = (uintptr_t) RAW(blk);
    return (char *) ((p + ALIGN - 1) / ALIGN * ALIGN);
}

static size_t block_size(SEXP blk)
{
    return (size_t) XLENGTH(blk) - ALIGN;
}

/* Append a block of at least `bytes` bytes; returns its index. */
static int add_block(ws_arena *a, size_t bytes)
{
    SEXP prot = R_ExternalPtrProtected(a->ptr);
    SEXP list = VECTOR_ELT(prot, WS_BLOCKS);
    if (a->nblocks == XLENGTH(list)) {
        SEXP bigger = PROTECT(Rf_allocVector(VECSXP, 2 * XLENGTH(list)));
        for (int k = 0; k < a->nblocks; k++) SET_VECTOR_ELT(bigger, k, VECTOR_ELT(list, k));
        SET_VECTOR_ELT(prot, WS_BLOCKS, bigger);
        UNPROTECT(1);
        list = bigger;
    }
    if (bytes < MIN_BLOCK) bytes = MIN_BLOCK;
    SET_VECTOR_ELT(list, a->nblocks, Rf_allocVector(RAWSXP, (R_xlen_t) (bytes + ALIGN)));
    return a->nblocks++;
}

void *ffi_arena_alloc(size_t n, size_t size)
{
    ws_arena *a = current;
    if (size != 0 && n > (SIZE_MAX / 2 - ALIGN) / size) MCX_INTERNAL("allocation too large");
    size_t b = (n * size + ALIGN - 1) / ALIGN * ALIGN;
    SEXP list = VECTOR_ELT(R_ExternalPtrProtected(a->ptr), WS_BLOCKS);
    while (a->block < a->nblocks && a->off + b > block_size(VECTOR_ELT(list, a->block))) {
        a->block++;
        a->off = 0;
    }
    if (a->block == a->nblocks) {
        a->block = add_block(a, b);
        a->off = 0;
        list = VECTOR_ELT(R_ExternalPtrProtected(a->ptr), WS_BLOCKS);
    }
    char *p = block_base(VECTOR_ELT(list, a->block)) + a->off;
    a->off += b;
    return p;
}

int ffi_arena_active(void)
{
    return current != NULL;
}

/* The engine's scratch allocator (mcmix_engine.h): from the active arena
 * of a chain's workspace, else R_alloc (reclaimed at the end of the .Call
 * or by an error). */
void *mcx_alloc(size_t n, size_t size)
{
    if (n == 0) n = 1;
    if (ffi_arena_active()) return ffi_arena_alloc(n, size);
    return (void *) R_alloc(n, (int) size);
}

/* Start a chunk at the first block. */
static void arena_begin(ws_arena *a)
{
    if (a->active) MCX_INTERNAL("workspace used by two chunks at once");
    a->block = 0;
    a->off = 0;
    a->active = 1;
}

typedef struct {
    ws_arena *a, *prev;
} ws_scope;

/* End a chunk (also on error): blocks beyond the last one used are
 * released (a chunk that needed less than an earlier one). */
static void arena_end(void *data)
{
    ws_scope *sc = data;
    ws_arena *a = sc->a;
    current = sc->prev;
    a->active = 0;
    SEXP list = VECTOR_ELT(R_ExternalPtrProtected(a->ptr), WS_BLOCKS);
    int used = a->off > 0 ? a->block + 1 : a->block;
    for (int k = used; k < a->nblocks; k++) SET_VECTOR_ELT(list, k, R_NilValue);
    if (used < a->nblocks) a->nblocks = used;
}

SEXP ffi_workspace_run(SEXP ws, SEXP (*body)(void *), void *data)
{
    ws_scope sc = {ws_get(ws), current};
    if (sc.a == NULL) return body(data);
    sc.a->ptr = ws;
    arena_begin(sc.a);
    current = sc.a;
    return R_ExecWithCleanup(body, data, arena_end, &sc);
}

SEXP ffi_workspace_labels(SEXP ws, SEXP in, R_xlen_t n)
{
    if (ws_get(ws) == NULL) return R_NilValue;
    SEXP prot = R_ExternalPtrProtected(ws);
    SEXP a = VECTOR_ELT(prot, WS_LAB_A);
    int slot = in == a && a != R_NilValue ? WS_LAB_B : WS_LAB_A;
    SEXP out = VECTOR_ELT(prot, slot);
    if (out == R_NilValue || XLENGTH(out) != n) {
        out = Rf_allocVector(INTSXP, n);
        SET_VECTOR_ELT(prot, slot, out);
    }
    return out;
}

SEXP ffi_workspace_model(SEXP ws)
{
    if (ws_get(ws) == NULL) return R_NilValue;
    return VECTOR_ELT(R_ExternalPtrProtected(ws), WS_MODEL);
}

void ffi_workspace_set_model(SEXP ws, SEXP obj)
{
    if (ws_get(ws) == NULL) return;
    SET_VECTOR_ELT(R_ExternalPtrProtected(ws), WS_MODEL, obj);
}

SEXP ffi_workspace_detach(SEXP ws, SEXP labels)
{
    if (ws_get(ws) == NULL || TYPEOF(labels) != INTSXP) return labels;
    SEXP prot = R_ExternalPtrProtected(ws);
    /* the buffer leaves the workspace: it is never written again */
    for (int slot = WS_LAB_A; slot <= WS_LAB_B; slot++)
        if (labels == VECTOR_ELT(prot, slot)) SET_VECTOR_ELT(prot, slot, R_NilValue);
    return labels;
}
