/*
 * rng_stream.h -- small counter-seeded generators for the data-parallel
 * parts of a sweep (inst/design.md, "Threads inside a chain").
 *
 * The observations are cut into fixed blocks of MCX_BLOCK (the block size
 * never depends on the number of threads).  At the start of each parallel
 * pass the main thread draws one 64-bit master seed from R's generator
 * (mcx_stream_master(), two unif_rand() calls); block b then runs its own
 * xoshiro256++ stream (Blackman and Vigna 2021, "Scrambled linear
 * pseudorandom number generators") seeded by splitmix64 from (master, b).
 * A block's draws therefore depend on the master seed and on b only, never
 * on which thread runs it, so set.seed() reproduces a run identically for
 * any number of threads.  These functions use no R API (callable inside
 * OpenMP regions) except mcx_stream_master(), which is main-thread only.
 */
#ifndef MCMIX_RNG_STREAM_H
#define MCMIX_RNG_STREAM_H

#include <stdint.h>

#define MCX_BLOCK 4096

typedef struct {
    uint64_t s[4];
} mcx_stream;

/* One 64-bit seed from R's generator (main thread, inside GetRNGstate). */
uint64_t mcx_stream_master(void);
/* The stream of block `block` under master seed `master`. */
void mcx_stream_seed(mcx_stream *st, uint64_t master, uint64_t block);

static inline uint64_t mcx_stream_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256++ */
static inline uint64_t mcx_stream_next(mcx_stream *st)
{
    uint64_t *s = st->s;
    uint64_t r = mcx_stream_rotl(s[0] + s[3], 23) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = mcx_stream_rotl(s[3], 45);
    return r;
}

/* Uniform on the open interval (0, 1): 53 random bits, offset by half a step. */
static inline double mcx_stream_unif(mcx_stream *st)
{
    return ((double) (mcx_stream_next(st) >> 11) + 0.5) * 0x1.0p-53;
}

/* Index in 0..k-1 with probabilities proportional to exp(logw[i]); logw is
 * overwritten.  The caller guarantees a finite maximum (no R API here). */
int mcx_stream_rcat_log(mcx_stream *st, double *logw, int k);

#endif
