/*
 * diag_psm.c -- co-clustering counts: acc[i, j] += #{s : labels[s, i] ==
 * labels[s, j]} over the S draws (rows) of an S x N label matrix.
 *
 * The N x N result is computed in square tiles of TILE x TILE integer
 * counters that stay in cache while every draw is streamed through them;
 * only tiles on or above the diagonal are computed and the lower triangle
 * is mirrored. The inner loop has a fixed trip count and no aliasing, so
 * compilers vectorise the compare-and-add.
 */
#include <string.h>
#include "diag.h"

#define TILE 256

static void tile_counts(const int *restrict lt, int S, int Np, int i0, int j0,
                        int *restrict cnt)
{
    int s, j;
    memset(cnt, 0, sizeof(int) * TILE * TILE);
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

void mcx_psm_counts(const int *labels, int S, int N, double *acc)
{
    int Np = ((N + TILE - 1) / TILE) * TILE, s, j, bi, bj;
    int *lt, *cnt;
    if (S <= 0 || N <= 0) return;
    /* draws stored contiguously, padded with values no label can match in
     * the rows that are discarded (padding rows never reach acc) */
    lt = (int *) mcx_alloc((size_t) S * Np, sizeof(int));
    cnt = (int *) mcx_alloc((size_t) TILE * TILE, sizeof(int));
    for (s = 0; s < S; s++) {
        int *l = lt + (size_t) s * Np;
        for (j = 0; j < N; j++) l[j] = labels[s + (size_t) j * S];
        for (j = N; j < Np; j++) l[j] = 0;
    }
    for (bj = 0; bj < Np; bj += TILE) {
        for (bi = 0; bi <= bj; bi += TILE) {
            int jmax = bj + TILE < N ? bj + TILE : N;
            int imax = bi + TILE < N ? bi + TILE : N;
            tile_counts(lt, S, Np, bi, bj, cnt);
            for (j = bj; j < jmax; j++) {
                const int *c = cnt + (size_t) (j - bj) * TILE;
                double *col = acc + (size_t) j * N;
                int i;
                for (i = bi; i < imax; i++) col[i] += c[i - bi];
                if (bi != bj) {
                    for (i = bi; i < imax; i++) acc[j + (size_t) i * N] += c[i - bi];
                }
            }
        }
    }
}
