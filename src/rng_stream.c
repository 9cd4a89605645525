/*
 * rng_stream.c -- block streams for parallel regions (see rng_stream.h).
 */
#include <math.h>
#include <R_ext/Random.h>
#include "rng_stream.h"

/* splitmix64 (Steele, Lea and Flood 2014): the recommended seeder of the
 * xoshiro generators; distinct inputs give well-mixed, distinct states. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t mcx_stream_master(void)
{
    /* two uniforms of R's generator, 32 bits from each */
    uint64_t hi = (uint64_t) (unif_rand() * 4294967296.0);
    uint64_t lo = (uint64_t) (unif_rand() * 4294967296.0);
    return (hi << 32) ^ lo;
}

void mcx_stream_seed(mcx_stream *st, uint64_t master, uint64_t block)
{
    uint64_t x = master ^ (block * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
    for (int j = 0; j < 4; j++) st->s[j] = splitmix64(&x);
    if ((st->s[0] | st->s[1] | st->s[2] | st->s[3]) == 0) st->s[0] = 1;  /* never all zero */
}

int mcx_stream_rcat_log(mcx_stream *st, double *logw, int k)
{
    double mx = logw[0];
    for (int i = 1; i < k; i++)
        if (logw[i] > mx) mx = logw[i];
    double total = 0.0;
    for (int i = 0; i < k; i++) {
        double w = exp(logw[i] - mx);
        logw[i] = w;
        total += w;
    }
    double u = mcx_stream_unif(st) * total;
    int last = 0;
    for (int i = 0; i < k; i++) {
        if (logw[i] <= 0.0) continue;
        last = i;
        if (u < logw[i]) return i;
        u -= logw[i];
    }
    return last;        /* rounding in the running sum */
}
