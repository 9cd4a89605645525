/*
 * mixture_subcluster_pass.c -- the sub-clusters of a split / merge
 * proposal (see mixture_subcluster.h and mixture_subcluster_split.c):
 * passes over the members s->mem[0 .. nmem-1] in parallel over fixed
 * blocks of MCX_BLOCK members, each block summed into its own partial
 * sums, the blocks added in block order (so the result never depends on
 * the number of threads).
 *
 * These passes are cheap per member (a few flops at small dim) and many
 * (up to 24 per proposal), so they read the coordinates in place with
 * strides (mcx_mix_xs(): no copy and no thread lookup per member; a
 * thread lookup per member in mcx_mix_x() cost two threads about 15% more
 * CPU than one) and sum into the thread's own accumulators, copied to the
 * block's partial sums at the end (no store into shared memory per
 * member).  Every sum is formed in the same order as a member-by-member
 * loop, so the results are bit for bit those of the plain loop.
 */
#include <string.h>
#include <math.h>
#include "mixture_subcluster.h"

#define POWER_STEPS 2
/* Lloyd 2-means steps at most (fewer at a fixed point): the split of a
 * union of separated clusters reaches its fixed point in a few steps; on
 * one Gaussian cluster the border turns slowly and 40% of the proposals
 * ran to 20 steps (mean 11.3 at N = 1e5) without a better proposal */
#define LLOYD_STEPS 8
#define MAX_LOGIT 40.0

/* One block of a pass: member j (lo <= j < hi) has coordinate t at
 * x + mem[j] * istep + t * tstep (mcx_mix_xs()); centres in s->cen. */
typedef struct {
    const double *x;
    const int *mem;
    size_t istep, tstep, stride;
    long lo, hi;
    int d;
    const double *mu, *v, *c0, *c1;
} pass_ctx;

static inline const double *member(const pass_ctx *c, long j)
{
    if (c->mem == NULL) return c->x + (size_t) j * c->istep;    /* gathered rows */
    return c->x + (size_t) c->mem[(size_t) j * c->stride] * c->istep;
}

/* Missing coordinates (NaN: a product family's missing cells) are left
 * out: of the mean (the sums and the counts of each coordinate, in acc[0 ..
 * d-1] and acc[d .. 2d-1]), of the deviations from it and of the distances
 * to the centres; in the Lloyd sums a missing coordinate counts at the
 * centre of its side.  Without them a NaN mean made every proposal of a
 * cluster holding one missing cell NaN, and no such cluster was split. */
static void sums_mean(const pass_ctx *c, double *restrict acc)
{
    int d = c->d;
    size_t ts = c->tstep;
    for (long j = c->lo; j < c->hi; j++) {
        const double *x = member(c, j);
        for (int t = 0; t < d; t++) {
            double y = x[t * ts];
            if (!isnan(y)) { acc[t] += y; acc[d + t] += 1.0; }
        }
    }
}

/* x - mu, 0 for a missing coordinate. */
static inline double dev(double x, double mu)
{
    return isnan(x) ? 0.0 : x - mu;
}

static void sums_axis(const pass_ctx *c, double *restrict acc)
{
    int d = c->d;
    size_t ts = c->tstep;
    const double *mu = c->mu, *v = c->v;
    double var = 0.0;
    for (long j = c->lo; j < c->hi; j++) {
        const double *x = member(c, j);
        double pr = 0.0;
        for (int t = 0; t < d; t++) pr += dev(x[t * ts], mu[t]) * v[t];
        for (int t = 0; t < d; t++) acc[t] += dev(x[t * ts], mu[t]) * pr;
        var += pr * pr;
    }
    acc[2 * d] = var;
}

/* Squared distances of member x to the two centres. */
static inline void dist2(const pass_ctx *c, const double *x, double *e0, double *e1)
{
    const double *c0 = c->c0, *c1 = c->c1;
    size_t ts = c->tstep;
    double a = 0.0, b = 0.0;
    for (int t = 0; t < c->d; t++) {
        double y = x[t * ts];
        if (isnan(y)) continue;
        a += (y - c0[t]) * (y - c0[t]);
        b += (y - c1[t]) * (y - c1[t]);
    }
    *e0 = a;
    *e1 = b;
}

/* Sums per side (indexed by the side: no branch on a side that is as good
 * as random in index order). */
static void sums_lloyd(const pass_ctx *c, double *restrict acc)
{
    int d = c->d;
    size_t ts = c->tstep;
    double cnt[2] = {0.0, 0.0}, err = 0.0;
    for (long j = c->lo; j < c->hi; j++) {
        const double *x = member(c, j);
        double e0, e1;
        dist2(c, x, &e0, &e1);
        int side = e1 < e0;
        double *to = acc + side * d;
        const double *cs = side ? c->c1 : c->c0;
        for (int t = 0; t < d; t++) {
            double y = x[t * ts];
            to[t] += isnan(y) ? cs[t] : y;
        }
        cnt[side] += 1.0;
        err += side ? e1 : e0;
    }
    acc[2 * d] = cnt[0];
    acc[2 * d + 1] = cnt[1];
    acc[2 * d + 2] = err;
}

/* Sides drawn (master != 0: split) or given (merge); the log rho of both
 * labelings, with log-odds a of side 0 (the sharp sub-cluster probability). */
static void sums_sides(const pass_ctx *c, mcx_subcluster *s, long b, uint64_t master,
                       double *restrict acc)
{
    int d = c->d;
    double beta = s->cen[4 * d];
    int uniform = s->cen[4 * d + 1] != 0.0;
    mcx_stream st;
    if (master != 0) mcx_stream_seed(&st, master, (uint64_t) b);
    double l[2] = {0.0, 0.0}, nb = 0.0;
    unsigned char *side = s->side;
    for (long j = c->lo; j < c->hi; j++) {
        double e0, e1;
        dist2(c, member(c, j), &e0, &e1);
        double a = 0.5 * beta * (e1 - e0);
        a = a > MAX_LOGIT ? MAX_LOGIT : a < -MAX_LOGIT ? -MAX_LOGIT : a;
        /* log rho of side 0 and 1 (log-logistic of +-a) from one exp and one log1p */
        double e = exp(-fabs(a)), lp = log1p(e);
        double l0 = a >= 0 ? -lp : a - lp, l1 = a >= 0 ? -a - lp : -lp;
        if (master != 0) {    /* the uniform component draws with log-odds 0 */
            double p0 = uniform ? 0.5 : a >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
            side[j] = mcx_stream_unif(&st) < p0 ? 0 : 1;
        }
        l[0] += side[j] ? l1 : l0;
        l[1] += side[j] ? l0 : l1;
        nb += side[j];
    }
    acc[0] = l[0];
    acc[1] = l[1];
    acc[2] = nb;
}

/* One pass over the member block b: partial sums into s->part (stride ps). */
static void pass_block(const mcx_mix *m, mcx_subcluster *s, int kind, long b, int nmem,
                       uint64_t master)
{
    int d = m->dim;
    size_t ps = 2 * (size_t) d + 4;
    double *acc = mcx_sc_block_area(s);
    memset(acc, 0, ps * sizeof(double));
    long lo = b * MCX_BLOCK, hi = lo + MCX_BLOCK < nmem ? lo + MCX_BLOCK : nmem;
    const double *cen = s->cen;
    /* the fitting passes read every fit_stride-th member (SC_FIT_MAX);
     * the sides are drawn for all */
    size_t stride = kind != MCX_PASS_SIDES && s->fit_stride > 1 ? (size_t) s->fit_stride : 1;
    pass_ctx c = {mcx_mix_xs(m, 0), s->mem, mcx_mix_istep(m), mcx_mix_xstep(m), stride,
                  lo, hi, d, cen, cen + d, cen + 2 * d, cen + 3 * d};
    if (kind != MCX_PASS_SIDES && s->fit_gathered) {    /* the rows of s->fitx */
        c.x = s->fitx;
        c.mem = NULL;
        c.istep = (size_t) d;
        c.tstep = 1;
    }
    if (kind == MCX_PASS_MEAN) sums_mean(&c, acc);
    else if (kind == MCX_PASS_AXIS) sums_axis(&c, acc);
    else if (kind == MCX_PASS_LLOYD) sums_lloyd(&c, acc);
    else sums_sides(&c, s, b, master, acc);
    memcpy(s->part + (size_t) b * ps, acc, ps * sizeof(double));
}

void mcx_sc_pass(const mcx_mix *m, mcx_subcluster *s, int kind, int nmem, uint64_t master,
                 double *out)
{
    long nb = ((long) nmem + MCX_BLOCK - 1) / MCX_BLOCK;
    size_t ps = 2 * (size_t) m->dim + 4;
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->threads) schedule(static) if (mcx_sc_parallel(s, nb, MCX_SC_MIN_BLOCKS))
#endif
    for (long b = 0; b < nb; b++) pass_block(m, s, kind, b, nmem, master);
    memset(out, 0, ps * sizeof(double));
    for (long b = 0; b < nb; b++)
        for (size_t t = 0; t < ps; t++) out[t] += s->part[(size_t) b * ps + t];
}

void mcx_sc_subclusters(const mcx_mix *m, mcx_subcluster *s, int nall, double *sum)
{
    int d = m->dim;
    /* the sub-clusters of a large member set are fitted to every stride-th
     * member (in index order: a function of the set alone, the same in both
     * directions of a move, so the proposal stays exact); its sides are
     * still drawn for every member */
    int stride = nall > SC_FIT_MAX ? (nall + SC_FIT_MAX - 1) / SC_FIT_MAX : 1;
    int nmem = (nall + stride - 1) / stride;
    s->fit_stride = stride;
    /* the up to 11 fitting passes read the same members: copied once into
     * contiguous rows (independent loads), they cost no memory waits (the
     * every stride-th member of a cluster lie far apart in the data); the
     * same values in the same order, so the same sums bit for bit */
    if (s->fitx != NULL && stride > 1) {
        size_t ts = mcx_mix_xstep(m);
        for (int j = 0; j < nmem; j++) {
            const double *x = mcx_mix_xs(m, s->mem[(size_t) j * stride]);
            for (int t = 0; t < d; t++) s->fitx[(size_t) j * d + t] = x[t * ts];
        }
        s->fit_gathered = 1;
    }
    double *mu = s->cen, *v = s->cen + d, *c0 = s->cen + 2 * d, *c1 = s->cen + 3 * d;
    mcx_sc_pass(m, s, MCX_PASS_MEAN, nmem, 0, sum);
    for (int t = 0; t < d; t++) {
        mu[t] = sum[d + t] > 0.0 ? sum[t] / sum[d + t] : 0.0;   /* sum[d + t] = nmem: no NaN */
        v[t] = 1.0 / sqrt((double) d) * (1.0 + 0.01 * t);   /* not symmetric in t */
    }
    double var = 0.0;
    for (int it = 0; it < POWER_STEPS; it++) {
        mcx_sc_pass(m, s, MCX_PASS_AXIS, nmem, 0, sum);
        double nrm = 0.0;
        for (int t = 0; t < d; t++) nrm += sum[t] * sum[t];
        nrm = sqrt(nrm);
        var = sum[2 * d] / nmem;
        if (nrm > 0.0) for (int t = 0; t < d; t++) v[t] = sum[t] / nrm;
    }
    double sd = sqrt(var);
    for (int t = 0; t < d; t++) {
        c0[t] = mu[t] + sd * v[t];
        c1[t] = mu[t] - sd * v[t];
    }
    double within = 0.0, last_n0 = -1.0;
    for (int it = 0; it < LLOYD_STEPS; it++) {
        mcx_sc_pass(m, s, MCX_PASS_LLOYD, nmem, 0, sum);
        double n0 = sum[2 * d], n1 = sum[2 * d + 1];
        /* a fixed point: the same assignment (same count and error) gives the same centres */
        if (n0 == last_n0 && sum[2 * d + 2] == within) break;
        last_n0 = n0;
        within = sum[2 * d + 2];
        for (int t = 0; t < d; t++) {
            if (n0 > 0) c0[t] = sum[t] / n0;
            if (n1 > 0) c1[t] = sum[d + t] / n1;
        }
    }
    double scale = 0.0;
    for (int t = 0; t < d; t++) scale += mu[t] * mu[t];
    double w = within / ((double) nmem * d);
    double floor_w = 1e-12 * (1.0 + scale / d);
    s->cen[4 * d] = 1.0 / (w > floor_w ? w : floor_w);
    s->fit_stride = 1;
    s->fit_gathered = 0;
}
