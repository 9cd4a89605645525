/*
 * mcmix_chunk.h -- one chunk of one chain (SEXP-free; every sampler uses it).
 *
 * A chunk runs iterations offset + 1 .. offset + n of a chain; iteration g
 * is kept iff !warmup && g %% thin == 0 (R/chains.R cuts the run into
 * chunks; the rule depends on g only, so the draws do not depend on the
 * cut).  From R it arrives as the integer vector c(n, thin, offset,
 * warmup) (chunk_ctrl() in R/chains.R), read by mcx_chunk_read()
 * (ffi_list.h) into this struct.
 */
#ifndef MCMIX_CHUNK_H
#define MCMIX_CHUNK_H

typedef struct mcx_chunk {
    int n, thin, offset, warmup;
    int n_kept;            /* the number of kept iterations of the chunk */
} mcx_chunk;

/* The number of kept iterations among offset + 1 .. offset + n. */
static inline int mcx_chunk_kept(int n, int thin, long offset, int warmup)
{
    if (warmup || n <= 0) return 0;
    return (int) ((offset + n) / thin - offset / thin);
}

/* Is iteration g kept? */
static inline int mcx_chunk_keeps(const mcx_chunk *c, long g)
{
    return !c->warmup && g % c->thin == 0;
}
#endif
