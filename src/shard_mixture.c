/*
 * shard_mixture.c -- the passes of one shard of a sharded mixture chain
 * (see shard_mixture.h for the sweep and why the draws do not depend on
 * the workers).  Everything here reads only the shard's own observations.
 */
#include <string.h>
#include <limits.h>
#include <math.h>
#include "shard_mixture.h"

void mcx_shard_open(mcx_shard *sh, const mcx_family *fam, const void *hyper, const double *x,
                    int n, int dim, int *z, int K, int threads, long block0, int has_na)
{
    mcx_mix *m = &sh->m;
    mcx_subcluster *s = &sh->s;
    if (K < 1 || n < 0 || threads < 1) MCX_INTERNAL("bad shard");
    if (!mcx_family_thread_safe(fam)) threads = 1;
    /* the labels are not read here: the passes that index by them check
     * their range as they read them */
    mcx_mix_build_view(m, fam, hyper, x, n, dim, 1, threads, z, K);
    memset(s, 0, sizeof *s);
    sh->K = K;
    s->threads = threads;
    s->block0 = block0;
    s->has_na = has_na;
    s->combine = mcx_family_combiner(fam, hyper);
    if (s->combine == NULL) MCX_INTERNAL("a sharded chain needs a family with stats_combine");
    s->moments = !has_na ? mcx_family_stats_moments(fam) : NULL;
    s->lik_all = has_na ? NULL : mcx_family_log_lik_all(fam);
    s->psize = fam->param_size(hyper);
    s->wsz = fam->work_size(hyper);
    if (s->wsz < 1) s->wsz = 1;
    mcx_sc_reserve(s, K);
    mcx_sc_block_setup(m, s);
}

/* Block blk's part of the risk scan (z given) and the counts of its
 * proposals, relative to the block's start: 3 K ints at r (least, total,
 * count); returns 1 if a label of z is out of range. */
static int risk_block(const int *z, const int *znew, long lo, long hi, int K, int *r)
{
    int *least = r, *total = r + K, *count = r + 2 * K, bad = 0;
    for (int k = 0; k < K; k++) {
        least[k] = INT_MAX;
        total[k] = count[k] = 0;
    }
    for (long i = lo; i < hi; i++) {
        int b = znew[i];
        count[b]++;
        if (z == NULL) continue;
        int a = z[i];
        if (a < 0 || a >= K) {
            bad = 1;
            continue;
        }
        if (a == b) continue;
        if (total[a] < least[a]) least[a] = total[a];
        total[a]--;
        total[b]++;
    }
    return bad;
}

void mcx_shard_propose(mcx_shard *sh, const double *theta, const double *logpi,
                       uint64_t master, int *znew, int *least, int *total, double *out,
                       int *size)
{
    mcx_mix *m = &sh->m;
    mcx_subcluster *s = &sh->s;
    int K = sh->K;
    const int *z = least != NULL ? m->z : NULL;
    memcpy(s->theta, theta, (size_t) K * s->psize * sizeof(double));
    memcpy(s->logpi, logpi, (size_t) K * sizeof(double));
    s->znew = znew;
    for (int k = 0; k < K; k++) {
        if (z != NULL) {
            least[k] = INT_MAX;
            total[k] = 0;
        }
        size[k] = 0;
        memcpy(out + (size_t) k * m->sstride, m->empty, m->sstride * sizeof(double));
    }
    /* one read of each block: its proposals, their risk and counts, and
     * the statistics of the proposed groups (mcx_sc_group_stats() over
     * znew, the same operations) */
    long n = m->n, nb = mcx_sc_blocks(n);
    double *part;
    long round = mcx_sc_group_begin(m, s, K, nb, &part);
    size_t per = mcx_sc_group_slot(m, s, K);
    int *risk = mcx_alloc((size_t) round * 3 * (size_t) K, sizeof(int));
    for (long r0 = 0; r0 < nb; r0 += round) {
        long r1 = r0 + round < nb ? r0 + round : nb;
        int bad = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) \
    if (r1 - r0 > 1 && s->threads > 1) reduction(|: bad)
#endif
        for (long blk = r0; blk < r1; blk++) {
            long lo = blk * MCX_BLOCK, hi = lo + MCX_BLOCK < n ? lo + MCX_BLOCK : n;
            mcx_sc_propose_block(m, s, master, blk);
            bad |= risk_block(z, znew, lo, hi, K, risk + (size_t) (blk - r0) * 3 * K);
            mcx_sc_group_block(m, s, blk, n, NULL, znew, NULL, K,
                               part + (size_t) (blk - r0) * per);
        }
        if (bad) MCX_INTERNAL("shard labels out of range");
        mcx_sc_group_fold(m, s, K, r1 - r0, part, out);
        /* the blocks' risk in index order: the running change at a block's
         * start plus the least within it */
        for (long j = 0; j < r1 - r0; j++) {
            const int *r = risk + (size_t) j * 3 * K;
            for (int k = 0; k < K; k++) {
                size[k] += r[2 * K + k];
                if (z == NULL) continue;
                if (r[k] != INT_MAX && total[k] + r[k] < least[k]) least[k] = total[k] + r[k];
                total[k] += r[K + k];
            }
        }
    }
    mcx_sc_group_end(m, s, K, out);
}

void mcx_shard_accept(const mcx_shard *sh, int *znew, int *cnt)
{
    mcx_sc_accept(sh->m.z, znew, cnt, sh->m.n, NULL, 0);
}

void mcx_shard_stats(mcx_shard *sh, double *out, int *size)
{
    mcx_mix *m = &sh->m;
    for (int k = 0; k < sh->K; k++) {
        memcpy(out + (size_t) k * m->sstride, m->empty, m->sstride * sizeof(double));
        size[k] = 0;
    }
    for (int i = 0; i < m->n; i++) {
        if (m->z[i] < 0 || m->z[i] >= sh->K) MCX_INTERNAL("shard labels out of range");
        size[m->z[i]]++;
    }
    mcx_sc_group_stats(m, &sh->s, m->n, NULL, m->z, NULL, sh->K, out);
}

/* log((n_0 - d) p(x | st_0)) - log((n_1 - d) p(x | st_1)) for one observation. */
static double side_logit(const mcx_mix *m, double *st[2], const double *n, double d,
                         const double *x)
{
    const mcx_family *f = m->fam;
    return log(n[0] - d) + f->log_predictive(m->hyper, st[0], x, m->work)
        - log(n[1] - d) - f->log_predictive(m->hyper, st[1], x, m->work);
}

/* log of the probability of side c given the logit l = log(p0 / p1). */
static double log_side(double l, int c)
{
    double t = c == 0 ? -l : l;           /* log p_c = -log(1 + exp(t)) */
    return t > 0 ? -t - log1p(exp(-t)) : -log1p(exp(t));
}

double mcx_shard_sams(mcx_shard *sh, int a, int b, const long *skip, double *st[2], double *n,
                      double discount, int score, uint64_t seed, double lq0, double bound,
                      unsigned char *side)
{
    mcx_mix *m = &sh->m;
    const int *z = m->z;
    double lq = lq0;
    mcx_stream rs;
    long blk = -1;
    for (int i = 0; i < m->n; i++) {
        int zi = z[i];
        if (zi != a && zi != b) continue;
        if (i == skip[0] || i == skip[1]) {
            if (!score) side[i] = i == skip[1];
            continue;
        }
        const double *x = mcx_mix_x(m, i);
        double l = side_logit(m, st, n, discount, x);
        int c;
        if (score) {
            c = zi == a ? 0 : 1;
        } else {
            long bi = i / MCX_BLOCK;
            if (bi != blk) {
                blk = bi;
                mcx_stream_seed(&rs, seed, (uint64_t) (sh->s.block0 + bi));
            }
            double u = mcx_stream_unif(&rs);
            /* side 0 with probability 1 / (1 + exp(-l)) */
            c = u < (l >= 0 ? 1.0 / (1.0 + exp(-l)) : exp(l) / (1.0 + exp(l))) ? 0 : 1;
            side[i] = (unsigned char) c;
        }
        lq += log_side(l, c);
        m->fam->stats_add(m->hyper, st[c], x, m->work);
        n[c] += 1.0;
        if (score && lq < bound) return -INFINITY;
    }
    return lq;
}

void mcx_shard_apply_split(mcx_shard *sh, int a, int knew, const unsigned char *side)
{
    int *z = sh->m.z;
    for (int i = 0; i < sh->m.n; i++)
        if (z[i] == a && side[i]) z[i] = knew;
}

void mcx_shard_apply_merge(mcx_shard *sh, int a, int b, int last)
{
    int *z = sh->m.z;
    for (int i = 0; i < sh->m.n; i++) {
        if (z[i] == b) z[i] = a;
        else if (z[i] == last && last != b) z[i] = b;
    }
}

void mcx_shard_relabel(mcx_shard *sh, const int *map)
{
    int *z = sh->m.z;
    for (int i = 0; i < sh->m.n; i++) z[i] = map[z[i]];
}
