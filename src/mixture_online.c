/*
 * mixture_online.c -- the online "relabelled mode" estimate of a mixture
 * chain's partition and the labels of a subsample (mixture_online.h has
 * the algorithm).  Relabelling by matching each draw's clusters to a
 * reference by their overlap is the idea of the pivotal / reference
 * relabelling methods (Stephens 2000, J. R. Statist. Soc. B 62, 795--809;
 * Papastamoulis and Iliopoulos 2010, J. Comput. Graph. Statist. 19,
 * 313--331); here the reference is the running estimate itself, and the
 * assignment is the greedy one (each cluster to the free slot of largest
 * overlap) so that a draw costs O(n).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mixture_online.h"

void mcx_online_init(mcx_online *o, int n, int max_slots, void *counts, int wide, int cap,
                     int n_slots, int *mode, double n_draws,
                     void *(*grow)(void *ctx, int cap), void *grow_ctx)
{
    if (n < 1 || max_slots < 1 || cap < n_slots || n_slots < 0 || n_slots > max_slots)
        MCX_INTERNAL("bad online accumulator sizes");
    memset(o, 0, sizeof *o);
    o->n = n;
    o->max_slots = max_slots;
    o->counts = counts;
    o->wide = wide;
    o->cap = cap;
    o->n_slots = n_slots;
    o->mode = mode;
    o->n_draws = n_draws;
    o->grow = grow;
    o->grow_ctx = grow_ctx;
    o->holders = mcx_alloc((size_t) max_slots, sizeof(int));
    memset(o->holders, 0, (size_t) max_slots * sizeof(int));
    for (int i = 0; i < n; i++) {
        int l = mode[i];
        if (l < -1 || l >= n_slots || (l < 0 && n_slots > 0 && n_draws > 0))
            MCX_INTERNAL("bad online modes");
        if (l >= 0) o->holders[l]++;
    }
}

/* Scratch for draws of up to K clusters (amortised: doubling). */
static void reserve(mcx_online *o, int K)
{
    if (K <= o->kcap) return;
    int kc = o->kcap > 0 ? o->kcap : 16;
    while (kc < K) kc *= 2;
    o->ksize = mcx_alloc((size_t) kc + 1, sizeof(int));
    o->map = mcx_alloc((size_t) kc, sizeof(int));
    o->best = mcx_alloc((size_t) kc, sizeof(int));
    o->order = mcx_alloc((size_t) kc, sizeof(mcx_online_pair));
    if (o->lmatch == NULL) o->lmatch = mcx_alloc((size_t) o->max_slots, sizeof(int));
    o->kcap = kc;
}

/* Room for `len` items in a scratch array (doubling). */
static void *room(void *p, size_t *cap, size_t len, size_t size)
{
    if (len <= *cap && p != NULL) return p;
    size_t c = *cap > 0 ? *cap : 64;
    while (c < len) c *= 2;
    *cap = c;
    return mcx_alloc(c, size);
}

/* Step 1 of mcx_online_add(): the pairs (overlap, cluster, slot) with a
 * positive overlap into o->entries (returns how many), the sizes of the
 * clusters and best[k], the slot of largest overlap with cluster k (ties:
 * the smaller slot; 0 when none).  A dense K x L table when it has at
 * most n cells, else the members of each cluster in turn (a counting sort
 * by cluster), so that the scratch stays O(n + K) whatever K. */
static size_t overlaps(mcx_online *o, const int *z, const int *lab, int K)
{
    const int n = o->n, L = o->n_slots;
    const int *mode = o->mode;
    int *size = o->ksize, *best = o->best;
    size_t ne = 0;
    memset(size, 0, (size_t) K * sizeof(int));
    for (int k = 0; k < K; k++) best[k] = 0;
    if ((size_t) K * L <= (size_t) n) {
        size_t cells = (size_t) K * L;
        o->table = room(o->table, &o->table_cap, cells > 0 ? cells : 1, sizeof(int));
        o->entries = room(o->entries, &o->entries_cap, cells > 0 ? cells : 1,
                          sizeof(mcx_online_pair));
        int *tab = o->table;
        memset(tab, 0, cells * sizeof(int));
        for (int i = 0; i < n; i++) {
            int k = lab[z[i]] - 1;
            size[k]++;
            if (mode[i] >= 0) tab[(size_t) k * L + mode[i]]++;
        }
        for (int k = 0; k < K; k++)
            for (int l = 0; l < L; l++) {
                int c = tab[(size_t) k * L + l];
                if (c <= 0) continue;
                mcx_online_pair e = {c, k, l};
                o->entries[ne++] = e;
                if (c > tab[(size_t) k * L + best[k]]) best[k] = l;
            }
        return ne;
    }
    /* the members of each cluster: start[k] .. start[k + 1] - 1 of idx */
    o->idx = room(o->idx, &o->idx_cap, (size_t) n, sizeof(int));
    o->entries = room(o->entries, &o->entries_cap, (size_t) n, sizeof(mcx_online_pair));
    o->table = room(o->table, &o->table_cap, (size_t) o->max_slots, sizeof(int));
    int *start = o->ksize, *cnt = o->table;   /* ksize holds K + 1 ints */
    memset(start, 0, ((size_t) K + 1) * sizeof(int));
    for (int i = 0; i < n; i++) start[lab[z[i]]]++;          /* start[k + 1] = size */
    for (int k = 0; k < K; k++) start[k + 1] += start[k];
    int *pos = o->best;                                        /* next free place */
    for (int k = 0; k < K; k++) pos[k] = start[k];
    for (int i = 0; i < n; i++) o->idx[pos[lab[z[i]] - 1]++] = i;
    for (int l = 0; l < L; l++) cnt[l] = 0;
    for (int k = 0; k < K; k++) {
        int b = 0;
        for (int j = start[k]; j < start[k + 1]; j++)
            if (mode[o->idx[j]] >= 0) cnt[mode[o->idx[j]]]++;
        for (int l = 0; l < L; l++) {
            if (cnt[l] <= 0) continue;
            mcx_online_pair e = {cnt[l], k, l};
            o->entries[ne++] = e;
            if (cnt[l] > cnt[b]) b = l;
        }
        best[k] = b;
        for (int l = 0; l < L; l++) cnt[l] = 0;
    }
    for (int k = 0; k < K; k++) size[k] = start[k + 1] - start[k];   /* (in place) */
    return ne;
}

/* Sort keys of the greedy matching (pairs by decreasing overlap, ties by
 * cluster then slot) and of the unmatched clusters (by decreasing size,
 * ties by cluster): the keys are in the sorted items, no context needed. */
static int by_overlap(const void *a, const void *b)
{
    const mcx_online_pair *p = a, *q = b;
    if (p->c != q->c) return p->c > q->c ? -1 : 1;
    if (p->k != q->k) return p->k < q->k ? -1 : 1;
    return p->l < q->l ? -1 : (p->l > q->l);
}


void mcx_online_add(mcx_online *o, const int *z, const int *lab, int K)
{
    const int n = o->n, M = o->max_slots;
    if (K < 1) MCX_INTERNAL("a draw without clusters");
    if (!o->wide && o->n_draws >= MCX_ONLINE_NARROW_MAX)
        MCX_INTERNAL("16-bit online counts would overflow");
    reserve(o, K);
    int *size = o->ksize, *map = o->map, *lm = o->lmatch;
    /* 1. the overlaps of the draw's clusters and the slots */
    size_t ne = overlaps(o, z, lab, K);
    /* 2. greedy matching by decreasing overlap */
    if (ne > 1) qsort(o->entries, ne, sizeof(mcx_online_pair), by_overlap);
    for (int k = 0; k < K; k++) map[k] = -1;
    for (int l = 0; l < M; l++) lm[l] = 0;
    for (size_t e = 0; e < ne; e++) {
        int k = o->entries[e].k, l = o->entries[e].l;
        if (map[k] < 0 && !lm[l]) {
            map[k] = l;
            lm[l] = 1;
        }
    }
    /* 3. the unmatched clusters, largest first */
    int nu = 0;
    for (int k = 0; k < K; k++)
        if (map[k] < 0) {
            mcx_online_pair e = {size[k], k, 0};
            o->order[nu++] = e;
        }
    if (nu > 1) qsort(o->order, (size_t) nu, sizeof(mcx_online_pair), by_overlap);
    /* the new slots this draw opens: the unmatched clusters beyond the
     * reusable slots, within max_slots (one larger counts block) */
    int reusable = 0;
    for (int s = 0; s < o->n_slots; s++) reusable += !lm[s] && o->holders[s] == 0;
    int need = nu - reusable;
    if (need > M - o->n_slots) need = M - o->n_slots;
    if (need > 0 && o->n_slots + need > o->cap) {
        o->counts = o->grow(o->grow_ctx, o->n_slots + need);
        o->cap = o->n_slots + need;
    }
    for (int u = 0; u < nu; u++) {
        int k = o->order[u].k, l = -1;
        for (int s = 0; s < o->n_slots; s++)
            if (!lm[s] && o->holders[s] == 0) { l = s; break; }
        if (l >= 0) {            /* a slot no observation holds: reused */
            size_t w = o->wide ? sizeof(int) : sizeof(uint16_t);
            memset((char *) o->counts + (size_t) l * n * w, 0, (size_t) n * w);
        } else if (o->n_slots < M) {
            l = o->n_slots++;    /* zero in the block from grow() */
        } else {                 /* all slots taken: the one of largest overlap */
            l = o->best[k];
        }
        map[k] = l;
        lm[l] = 1;
    }
    /* 4. the counts and the modes */
#define MCX_ONLINE_COUNT(type)                                                \
    do {                                                                      \
        type *cnt = o->counts;                                                \
        for (int i = 0; i < n; i++) {                                         \
            int l = map[lab[z[i]] - 1], m = o->mode[i];                       \
            int c = ++cnt[i + (size_t) l * n];                                \
            if (m != l && (m < 0 || c > (int) cnt[i + (size_t) m * n])) {     \
                if (m >= 0) o->holders[m]--;                                  \
                o->holders[l]++;                                              \
                o->mode[i] = l;                                               \
            }                                                                 \
        }                                                                     \
    } while (0)
    if (o->wide) MCX_ONLINE_COUNT(int);
    else MCX_ONLINE_COUNT(uint16_t);
#undef MCX_ONLINE_COUNT
    o->n_draws += 1;
}

void mcx_online_subset(const int *z, const int *lab, const int *sub, int n_sub,
                       int *out, size_t stride)
{
    for (int j = 0; j < n_sub; j++) out[(size_t) j * stride] = lab[z[sub[j]]];
}
