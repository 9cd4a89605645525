/*
 * mixture_subcluster_stats.c -- the data-parallel helpers of the
 * sub-cluster sampler (see mixture_subcluster.h): the per-cluster arrays,
 * the member lists of a split / merge proposal, and sufficient statistics
 * of groups of observations summed over fixed blocks and combined in block
 * order (inst/design.md, "Threads inside a chain": the result never
 * depends on the number of threads).
 *
 * The observations of a block are read through mcx_mix_block() (no
 * per-item thread lookup), in one place per loop, so that a change of
 * the storage of the data touches one line.
 */
#include <string.h>
#include "mixture_subcluster.h"

/* Doubles of per-block group statistics held at once (8 MB): the blocks
 * are processed in rounds of at most this much, a number that depends on
 * the groups and the family only, never on the thread count. */
#define SC_GROUP_BUDGET ((size_t) 1 << 20)

void mcx_sc_reserve(mcx_subcluster *s, int K)
{
    if (K <= s->kcap) return;
    int cap = s->kcap > 0 ? s->kcap : 8;
    while (cap < K) cap *= 2;
    s->theta = mcx_alloc(s->psize * (size_t) cap, sizeof(double));
    s->logpi = mcx_alloc((size_t) cap, sizeof(double));
    s->cnt = mcx_alloc((size_t) cap, sizeof(int));
    s->lm = mcx_alloc((size_t) cap, sizeof(double));
    s->lg = mcx_alloc((size_t) cap + 1, sizeof(double));
    s->kcap = cap;
    s->tscr = mcx_alloc((size_t) s->threads * mcx_sc_stride(s), sizeof(double));
}

void mcx_sc_block_setup(const mcx_mix *m, mcx_subcluster *s)
{
    s->tacc = ((2 * (size_t) m->dim + 4 + 7) / 8) * 8;
    s->tbs = s->tacc + ((mcx_mix_block_doubles(m, MCX_BLOCK) + 7) / 8) * 8 + 8;
    s->tblk = mcx_alloc((size_t) s->threads * s->tbs, sizeof(double));
}

int mcx_sc_data_has_na(const mcx_mix *m)
{
    size_t is = mcx_mix_istep(m), ts = mcx_mix_xstep(m);
    const double *x0 = mcx_mix_xs(m, 0);
    for (int i = 0; i < m->n; i++)
        for (int t = 0; t < m->dim; t++)
            if (ISNAN(x0[(size_t) i * is + (size_t) t * ts])) return 1;
    return 0;
}

int mcx_sc_members(const mcx_mix *m, mcx_subcluster *s, int a, int b)
{
    long n = m->n, nb = mcx_sc_blocks(n);
    const int *z = m->z;
    long *cnt = s->bcount;
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) if (mcx_sc_parallel(s, nb, MCX_SC_MIN_BLOCKS))
#endif
    for (long blk = 0; blk < nb; blk++) {
        long lo = blk * MCX_BLOCK, hi = lo + MCX_BLOCK < n ? lo + MCX_BLOCK : n, c = 0;
        for (long i = lo; i < hi; i++) c += z[i] == a || z[i] == b;
        cnt[blk] = c;
    }
    long total = 0;
    for (long blk = 0; blk < nb; blk++) {       /* counts -> offsets */
        long c = cnt[blk];
        cnt[blk] = total;
        total += c;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) if (mcx_sc_parallel(s, nb, MCX_SC_MIN_BLOCKS))
#endif
    for (long blk = 0; blk < nb; blk++) {
        long lo = blk * MCX_BLOCK, hi = lo + MCX_BLOCK < n ? lo + MCX_BLOCK : n, j = cnt[blk];
        for (long i = lo; i < hi; i++)
            if (z[i] == a || z[i] == b) {
                s->side[j] = z[i] == b && b != a;
                s->mem[j++] = (int) i;
            }
    }
    return (int) total;
}

/* The raw moments of the items of block blk per group into ng moment
 * blocks at slot (read in place with strides: mcx_mix_xs()). */
static void block_moments(const mcx_mix *m, long blk, long nitems, const int *obs,
                          const int *gi, const unsigned char *gc, int ng, double *slot)
{
    int d = m->dim;
    size_t ms = mcx_moments_size(d), is = mcx_mix_istep(m), ts = mcx_mix_xstep(m);
    const double *x0 = mcx_mix_xs(m, 0);
    for (int g = 0; g < ng; g++) mcx_moments_clear(slot + (size_t) g * ms, d);
    long lo = blk * MCX_BLOCK, hi = lo + MCX_BLOCK < nitems ? lo + MCX_BLOCK : nitems;
    for (long j = lo; j < hi; j++) {
        int g = gi != NULL ? gi[j] : gc[j];
        size_t i = obs != NULL ? (size_t) obs[j] : (size_t) j;
        mcx_moments_add(slot + (size_t) g * ms, x0 + i * is, ts, d);
    }
    for (int g = 0; g < ng; g++) mcx_moments_finish(slot + (size_t) g * ms, d);
}

/* The items of block blk summed into ng stats blocks at slot. */
static void block_stats(const mcx_mix *m, const mcx_subcluster *s, long blk, long nitems,
                        const int *obs, const int *gi, const unsigned char *gc, int ng,
                        double *slot)
{
    const mcx_family *f = m->fam;
    size_t ss = m->sstride;
    double *work = mcx_sc_work(s);
    for (int g = 0; g < ng; g++) memcpy(slot + (size_t) g * ss, m->empty, ss * sizeof(double));
    long lo = blk * MCX_BLOCK, hi = lo + MCX_BLOCK < nitems ? lo + MCX_BLOCK : nitems;
    mcx_xblock xb;
    mcx_mix_block(m, obs, lo, hi, mcx_sc_block_area(s) + s->tacc, &xb);
    for (long j = lo; j < hi; j++) {
        int g = gi != NULL ? gi[j] : gc[j];
        f->stats_add(m->hyper, slot + (size_t) g * ss, mcx_xblock_at(&xb, j), work);
    }
}

/* Doubles of one block's group statistics (moments or stats blocks). */
size_t mcx_sc_group_slot(const mcx_mix *m, const mcx_subcluster *s, int ng)
{
    size_t per = (size_t) ng * (s->moments != NULL ? mcx_moments_size(m->dim) : m->sstride);
    return per > 0 ? per : 1;
}

long mcx_sc_group_begin(const mcx_mix *m, mcx_subcluster *s, int ng, long nb, double **part)
{
    int d = m->dim;
    size_t per = mcx_sc_group_slot(m, s, ng);
    long round = (long) (SC_GROUP_BUDGET / per);
    if (round < 1) round = 1;
    if (round > nb) round = nb;
    /* the moments path: the per-group totals and one stats block first */
    size_t head = s->moments != NULL ? per + m->sstride : 0;
    if (head + (size_t) round * per > s->gcap) {
        s->gcap = head + (size_t) round * per;
        s->gpart = mcx_alloc(s->gcap, sizeof(double));
    }
    if (s->moments != NULL)
        for (int g = 0; g < ng; g++) mcx_moments_clear(s->gpart + (size_t) g * mcx_moments_size(d), d);
    *part = s->gpart + head;
    return round;
}

void mcx_sc_group_block(const mcx_mix *m, const mcx_subcluster *s, long blk, long nitems,
                        const int *obs, const int *gi, const unsigned char *gc, int ng,
                        double *slot)
{
    if (s->moments != NULL) block_moments(m, blk, nitems, obs, gi, gc, ng, slot);
    else block_stats(m, s, blk, nitems, obs, gi, gc, ng, slot);
}

void mcx_sc_group_fold(const mcx_mix *m, mcx_subcluster *s, int ng, long nblk,
                       const double *part, double *out)
{
    int d = m->dim;
    size_t per = mcx_sc_group_slot(m, s, ng);
    if (s->moments != NULL) {      /* pooled into the totals at the head of gpart */
        size_t ms = mcx_moments_size(d);
        for (int g = 0; g < ng; g++)
            for (long j = 0; j < nblk; j++)
                mcx_moments_pool(s->gpart + (size_t) g * ms, part + (size_t) j * per
                                 + (size_t) g * ms, d);
        return;
    }
    size_t ss = m->sstride;
    /* each group on one thread */
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) \
    if (ng > 1 && mcx_sc_parallel(s, (long) ng * nblk, MCX_SC_MIN_COMBINES))
#endif
    for (int g = 0; g < ng; g++)
        for (long j = 0; j < nblk; j++)
            s->combine(m->hyper, out + (size_t) g * ss, part + (size_t) j * per + (size_t) g * ss,
                       mcx_sc_work(s));
}

void mcx_sc_group_end(const mcx_mix *m, mcx_subcluster *s, int ng, double *out)
{
    if (s->moments == NULL) return;
    size_t ss = m->sstride, ms = mcx_moments_size(m->dim), per = mcx_sc_group_slot(m, s, ng);
    double *tot = s->gpart, *st = s->gpart + per;
    for (int g = 0; g < ng; g++) {
        if (tot[(size_t) g * ms] == 0.0) continue;
        s->moments(m->hyper, st, tot + (size_t) g * ms);
        s->combine(m->hyper, out + (size_t) g * ss, st, m->work);
    }
}

void mcx_sc_group_stats(const mcx_mix *m, mcx_subcluster *s, long nitems, const int *obs,
                        const int *gi, const unsigned char *gc, int ng, double *out)
{
    size_t ss = m->sstride;
    if (s->moments == NULL && s->combine == NULL) {     /* one by one, in order */
        for (long j = 0; j < nitems; j++) {
            int g = gi != NULL ? gi[j] : gc[j];
            m->fam->stats_add(m->hyper, out + (size_t) g * ss,
                              mcx_mix_x(m, obs != NULL ? obs[j] : (int) j), m->work);
        }
        return;
    }
    /* blocks summed in parallel in rounds, folded in block order */
    long nb = mcx_sc_blocks(nitems);
    double *part;
    long round = mcx_sc_group_begin(m, s, ng, nb, &part);
    size_t per = mcx_sc_group_slot(m, s, ng);
    for (long r0 = 0; r0 < nb; r0 += round) {
        long r1 = r0 + round < nb ? r0 + round : nb;
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) \
    if (mcx_sc_parallel(s, r1 - r0, 2))
#endif
        for (long blk = r0; blk < r1; blk++)
            mcx_sc_group_block(m, s, blk, nitems, obs, gi, gc, ng, part + (size_t) (blk - r0) * per);
        mcx_sc_group_fold(m, s, ng, r1 - r0, part, out);
    }
    mcx_sc_group_end(m, s, ng, out);
}
