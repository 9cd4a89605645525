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

void mcx_psm_counts(const int *labels, int S, int N, double *acc)
{
    int Np = ((N + TILE - 1) / TILE) * TILE, s, j, bi, bj, wide = N >= 65536;
    unsigned H = 1, *codes, *vals;
    int *keys, *stamp;
    void *lt, *cnt;
    if (S <= 0 || N <= 0) return;
    while (H < 2u * (unsigned) N) H <<= 1;
    codes = (unsigned *) mcx_alloc((size_t) N, sizeof(unsigned));
    vals = (unsigned *) mcx_alloc(H, sizeof(unsigned));
    keys = (int *) mcx_alloc(H, sizeof(int));
    stamp = (int *) mcx_alloc(H, sizeof(int));
    memset(stamp, 0, sizeof(int) * H);
    /* draws stored contiguously; the padding rows and columns are computed
     * but never reach acc, so their codes do not matter */
    lt = mcx_alloc((size_t) S * Np, wide ? sizeof(int) : sizeof(uint16_t));
    for (s = 0; s < S; s++) {
        recode_draw(labels, S, s, N, codes, keys, vals, stamp, H - 1);
        if (wide) {
            int *l = (int *) lt + (size_t) s * Np;
            for (j = 0; j < N; j++) l[j] = (int) codes[j];
            for (j = N; j < Np; j++) l[j] = 0;
        } else {
            uint16_t *l = (uint16_t *) lt + (size_t) s * Np;
            for (j = 0; j < N; j++) l[j] = (uint16_t) codes[j];
            for (j = N; j < Np; j++) l[j] = 0;
        }
    }
    cnt = mcx_alloc((size_t) TILE * TILE, wide ? sizeof(int) : sizeof(uint16_t));
    for (bj = 0; bj < Np; bj += TILE) {
        for (bi = 0; bi <= bj; bi += TILE) {
            if (wide) {
                memset(cnt, 0, sizeof(int) * TILE * TILE);
                tile32((const int *) lt, S, Np, bi, bj, (int *) cnt);
                flush_tile(cnt, 1, N, bi, bj, acc);
            } else {
                int s0;
                for (s0 = 0; s0 < S; s0 += BLOCK16) {
                    int s1 = s0 + BLOCK16 < S ? s0 + BLOCK16 : S;
                    memset(cnt, 0, sizeof(uint16_t) * TILE * TILE);
                    tile16((const uint16_t *) lt, s0, s1, Np, bi, bj, (uint16_t *) cnt);
                    flush_tile(cnt, 0, N, bi, bj, acc);
                }
            }
        }
    }
}
