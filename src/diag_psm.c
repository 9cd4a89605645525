/*
 * diag_psm.c -- co-clustering counts: acc[i, j] += #{s : labels[s, i] ==
 * labels[s, j]} over the S draws (rows) of an S x N label matrix.
 *
 * The N x N result is computed in square tiles of TILE x TILE counters that
 * stay in cache while every draw is streamed through them; only tiles on or
 * above the diagonal are computed and the lower triangle is mirrored. Labels
 * are first recoded per draw to small codes 1..K (16 bits when N < 65536),
 * and tiles count in 16 bits over blocks of at most 65535 draws, so the
 * fixed-length inner compare-and-add loop vectorises with 8 lanes on any
 * x86-64 (or 4 lanes with 32-bit codes for larger N).
 *
 * The caller drives the work in pieces (src/ffi_diag.c), with interrupt
 * checks between them: mcx_psm_setup() allocates, mcx_psm_recode() recodes
 * a block of draws, mcx_psm_tile() adds one tile over all draws into acc.
 */
#include <stdint.h>
#include <string.h>
#include "diag.h"

#define TILE 256
#define BLOCK16 65535

/* Recode one draw's labels to 1..K (order of first appearance) with an
 * open-addressing hash table; stamp[] marks the slots used by this draw. */
static void recode_draw(const int *labels, int S, int s, int N, unsigned *codes,
                        int *keys, unsigned *vals, int *stamp, unsigned hmask)
{
    unsigned next = 0;
    int j;
    for (j = 0; j < N; j++) {
        int v = labels[s + (size_t) j * S];
        unsigned h = ((unsigned) v * 2654435761u) & hmask;
        while (stamp[h] == s + 1 && keys[h] != v) h = (h + 1) & hmask;
        if (stamp[h] != s + 1) {
            stamp[h] = s + 1;
            keys[h] = v;
            vals[h] = ++next;
        }
        codes[j] = vals[h];
    }
}

static void tile16(const uint16_t *restrict lt, int s0, int s1, int Np, int i0,
                   int j0, uint16_t *restrict cnt)
{
    int s, j;
    for (s = s0; s < s1; s++) {
        const uint16_t *restrict l = lt + (size_t) s * Np;
        const uint16_t *restrict li = l + i0;
        for (j = 0; j < TILE; j++) {
            const uint16_t v = l[j0 + j];
            uint16_t *restrict c = cnt + (size_t) j * TILE;
            int i;
            for (i = 0; i < TILE; i++) c[i] = (uint16_t) (c[i] + (li[i] == v));
        }
    }
}

static void tile32(const int *restrict lt, int S, int Np, int i0, int j0,
                   int *restrict cnt)
{
    int s, j;
    for (s = 0; s < S; s++) {
        const int *restrict l = lt + (size_t) s * Np;
        const int *restrict li = l + i0;
        for (j = 0; j < TILE; j++) {
            const int v = l[j0 + j];
            int *restrict c = cnt + (size_t) j * TILE;
            int i;
            for (i = 0; i < TILE; i++) c[i] += (li[i] == v);
        }
    }
}

/* Add a tile (16- or 32-bit counts) into acc and its mirror. */
static void flush_tile(const void *cnt, int wide, int N, int bi, int bj, double *acc)
{
    int jmax = bj + TILE < N ? bj + TILE : N;
    int imax = bi + TILE < N ? bi + TILE : N;
    int i, j;
    for (j = bj; j < jmax; j++) {
        double *col = acc + (size_t) j * N;
        for (i = bi; i < imax; i++) {
            size_t k = (size_t) (j - bj) * TILE + (size_t) (i - bi);
            double c = wide ? (double) ((const int *) cnt)[k] : (double) ((const uint16_t *) cnt)[k];
            col[i] += c;
            if (bi != bj) acc[j + (size_t) i * N] += c;
        }
    }
}

/* Scratch, and the recoded draws in contiguous rows of Np codes. */
void mcx_psm_setup(mcx_psm_work *w, int S, int N)
{
    unsigned H = 1;
    memset(w, 0, sizeof *w);
    w->S = S;
    w->N = N;
    w->Np = ((N + TILE - 1) / TILE) * TILE;
    w->wide = N >= 65536;
    if (S <= 0 || N <= 0) return;
    while (H < 2u * (unsigned) N) H <<= 1;
    w->H = H;
    w->codes = (unsigned *) mcx_alloc((size_t) N, sizeof(unsigned));
    w->vals = (unsigned *) mcx_alloc(H, sizeof(unsigned));
    w->keys = (int *) mcx_alloc(H, sizeof(int));
    w->stamp = (int *) mcx_alloc(H, sizeof(int));
    memset(w->stamp, 0, sizeof(int) * H);
    w->lt = mcx_alloc((size_t) S * w->Np, w->wide ? sizeof(int) : sizeof(uint16_t));
    w->cnt = mcx_alloc((size_t) TILE * TILE, w->wide ? sizeof(int) : sizeof(uint16_t));
    w->ntiles = (w->Np / TILE) * (w->Np / TILE + 1) / 2;
}

/* Recode draws s0..s1-1 of the S x N label matrix into w->lt. The padding
 * columns are computed but never reach acc, so their codes do not matter. */
void mcx_psm_recode(mcx_psm_work *w, const int *labels, int s0, int s1)
{
    int s, j, N = w->N, Np = w->Np;
    if (s0 < 0 || s1 > w->S) MCX_INTERNAL("draws out of range");
    for (s = s0; s < s1; s++) {
        recode_draw(labels, w->S, s, N, w->codes, w->keys, w->vals, w->stamp, w->H - 1);
        if (w->wide) {
            int *l = (int *) w->lt + (size_t) s * Np;
            for (j = 0; j < N; j++) l[j] = (int) w->codes[j];
            for (j = N; j < Np; j++) l[j] = 0;
        } else {
            uint16_t *l = (uint16_t *) w->lt + (size_t) s * Np;
            for (j = 0; j < N; j++) l[j] = (uint16_t) w->codes[j];
            for (j = N; j < Np; j++) l[j] = 0;
        }
    }
}

/* Add the counts of tile t (0 <= t < w->ntiles; tiles on or above the
 * diagonal, column by column) over all draws into acc. */
void mcx_psm_tile(mcx_psm_work *w, int t, double *acc)
{
    int bj = 0, bi, S = w->S, N = w->N, Np = w->Np;
    void *cnt = w->cnt;
    if (t < 0 || t >= w->ntiles) MCX_INTERNAL("tile out of range");
    while (t > bj) { bj++; t -= bj; }     /* column bj holds tiles 0..bj */
    bi = t * TILE;
    bj *= TILE;
    if (w->wide) {
        memset(cnt, 0, sizeof(int) * TILE * TILE);
        tile32((const int *) w->lt, S, Np, bi, bj, (int *) cnt);
        flush_tile(cnt, 1, N, bi, bj, acc);
    } else {
        int s0;
        for (s0 = 0; s0 < S; s0 += BLOCK16) {
            int s1 = s0 + BLOCK16 < S ? s0 + BLOCK16 : S;
            memset(cnt, 0, sizeof(uint16_t) * TILE * TILE);
            tile16((const uint16_t *) w->lt, s0, s1, Np, bi, bj, (uint16_t *) cnt);
            flush_tile(cnt, 0, N, bi, bj, acc);
        }
    }
}
