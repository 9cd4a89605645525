/*
 * mixture_subcluster_sams.c -- sequentially allocated split / merge moves
 * of the sub-cluster sampler (see mixture_subcluster.h), after Dahl (2003),
 * "An improved merge-split sampler for conjugate Dirichlet process mixture
 * models" (also Dahl & Newcomb 2022, J. Statist. Comput. Simul. 92), with
 * the merge partner chosen by how much the merge would raise the posterior.
 *
 * Why: a split along the 2-means sub-clusters (mixture_subcluster_split.c)
 * can cut a true cluster (2-means of a cluster holding several true ones),
 * and the restricted Gibbs pass then blurs the border between the two
 * pieces.  Their merge is the reverse of a split of the union, and the
 * 2-means proposal of the union reproduces two blurred pieces with a
 * probability that falls exponentially with their size (about 2^-n), far
 * below the posterior gain of the merge (which grows like n as well, but
 * with a smaller rate): at N = 1e5 two pieces of 12,000 and 8,000 points
 * gained 13,000 nats by merging and their reverse split had log q =
 * -14,000, so they stayed cut.  The sequential allocation scores each
 * point against the two sides built from the points placed before it, so
 * the probability that it reproduces the current pieces is about that of
 * the posterior of the split given the union, and the merge is accepted
 * about as often as the union is more probable than its splits.
 *
 * Move (Metropolis-Hastings on the partition, `moves` per sweep):
 *  - with probability ps(K) (1 if K = 1, else SAMS_SPLIT_SHARE) a split of
 *    a cluster k drawn uniformly (q = ps(K) / K); launch points i != j
 *    drawn uniformly (ordered) among its n members, S = the others in a
 *    random order (uniform, in shells of decreasing distance from the
 *    union's mean, of increasing distance from j: shell_order(); or
 *    local: the members other than the k nearest to j first, put with i
 *    with probability 1, then the k nearest, nearest first:
 *    nearest_order(); with probabilities order_cuts(), 1/4 each on
 *    unions of at most t members); i founds side A, j side B,
 *    and each point of S goes to side c with probability proportional to
 *      (n_c - d) p(x | side c so far)    (collapsed predictive),
 *    q_S the product of these probabilities;
 *  - else a merge: cluster a drawn uniformly, its partner b != a with
 *    probability w_a(b) = 1/2 1/(K-1) + 1/2 softmax_b g(a, b), g(a, b) the
 *    log posterior ratio of merging a and b (prior x likelihood); the pair
 *    {a, b} is proposed with q = (1 - ps(K)) (w_a(b) + w_b(a)) / K; a
 *    fair coin says which of a and b holds the reverse split's launch
 *    point i of side A, the other holds j (each drawn uniformly among its
 *    members: probability 1 / (2 n_a n_b) of the ordered launch pair given
 *    {a, b}, whichever was drawn first), with q_S the probability that the
 *    allocation of S in the drawn order gives back a and b.
 * The order of S is drawn independently of the state given S, and the
 * launch points given the pair, so each (i, j, order) is a
 * Metropolis-Hastings pair of moves and their mixture is reversible
 * (Tierney 1994, sec. 2.3).
 *
 * Thinning: a move on a union of n > t members (t the setting s->thin,
 * 0: none) is carried out with probability f = t / n if a split, g if a
 * merge, and else skipped (the state kept): g = 1 when both clusters of
 * the merge (both sides of the split) hold at least w = max(2, t / 32)
 * members, else g = sqrt(t / n) (merge_log_share()).  A split is thinned
 * before its allocation pass and its g is known after it; g is a function
 * of the two sides alone, the same in both directions, and so is f; so a
 * split's q carries f and its reverse merge's g: log(g / f) is added to a
 * split's log r below and log(f / g) to a merge's (a move made with a
 * probability that depends on both of its states is still a
 * Metropolis-Hastings move if that probability is the same in both
 * directions).  Against thinning both directions by f, every move is at
 * least as likely to be made and accepted (a merge at rate g min(1, r f /
 * g) >= f min(1, r), a split at f min(1, r g / f) >= f min(1, r)): the two
 * pieces of a cut cluster (r huge) merge whenever their pair is proposed,
 * small clusters (r about 1) as often as before.  Why: a split of a
 * cluster of millions visits every member in random order (a cache miss
 * each, serial), about as much CPU as the rest of the sweep, and so can a
 * merge of a few points into such a cluster, which is scored until its
 * running log q_S rules it out; thinned, the members visited per move
 * stay about t, or sqrt(t n), whatever N (mcx_sc_log_share(),
 * mixture_subcluster.h).  Merges of two clusters of w or more were
 * thinned by sqrt(t / n) as well: at N = 1e7 the pair of pieces of a cut
 * cluster of 2e6 members was then tried about once in 11 sweeps (at 1e8
 * once in 35), and a cut of a true cluster stayed for 100 sweeps.  A
 * merge whose prior and likelihood ratio rules it out costs no pass
 * (below), so merges of the true clusters cost O(K) log marginals.
 * Orders on large unions (order_cuts()): on a union of n > t members the
 * uniform order is drawn with probability 1/2, the two shell orders with
 * 1/8 each and the local one with 1/4 (1/4 each on smaller unions; a
 * function of n alone, so the mixture is still reversible).  Why: the
 * pieces of one true cluster are given back by the uniform order with log
 * q_S about the log posterior gain of their merge minus its regret
 * (gain + log q_S = +2,500 at N = 1e7 for a cut of 2e6 points, +30 at
 * 1e6 after 40 sweeps of blurring), by the shell orders 10,000 nats worse
 * at 1e7 (the sides are first fitted to the outer or inner points alone)
 * and by the local order never (side B holds more than the k nearest).
 *
 * With the Pitman-Yor EPPF (Pitman 2006, eq. 3.6) and L the log marginal
 * likelihood, a split of k (K clusters) into
 * A and B is accepted with probability min(1, r),
 *   log r = log(alpha + K d) + lgamma(n_A - d) + lgamma(n_B - d)
 *           - lgamma(n - d) - lgamma(1 - d) + L(A) + L(B) - L(k)
 *           + log q_merge(A, B | after) - log(2 n_A n_B)
 *           - log q_split(k | before) + log(n (n - 1)) - log q_S,
 * the merge with the inverse.  As q_S <= 1 a merge is rejected without the
 * allocation pass when log u exceeds the rest of its log r, and the pass
 * stops as soon as the running log q_S makes acceptance impossible: merges
 * of well-separated clusters cost O(K) log marginals.
 *
 * Everything here runs on the main thread (one pass over the members of
 * one or two clusters, each point depending on the ones before it) and
 * draws from R's generator, so the draws do not depend on the thread count.
 */
#include <string.h>
#include <math.h>
#include <R_ext/Random.h>
#include <Rmath.h>
#include "mixture_subcluster.h"

/* Share of splits among the sequentially allocated proposals when K > 1
 * (the 2-means moves make the useful splits; these are the reverse moves
 * of the merges, and cost a full pass each). */
#define SAMS_SPLIT_SHARE 0.1
/* Sizes of the neighbourhood of the local order (one drawn uniformly). */
#define SAMS_N_LOCAL 5
static const int SAMS_LOCAL_K[SAMS_N_LOCAL] = {4, 16, 64, 256, 1024};

static double ps_sams(int K)
{
    return K <= 1 ? 1.0 : SAMS_SPLIT_SHARE;
}

/* The merged statistics of two stats blocks into out (family stats_combine). */
static void combined(const mcx_mix *m, const mcx_subcluster *s, const double *a,
                     const double *b, double *out)
{
    memcpy(out, a, m->sstride * sizeof(double));
    s->combine(m->hyper, out, b, m->work);
}

/* log of the posterior ratio merged / apart of two clusters (stats sa, sb,
 * sizes na, nb, log marginals la, lb) in a state of K clusters. */
static double merge_gain(const mcx_mix *m, const mcx_subcluster *s, const mcx_partition_prior *p,
                         int K, const double *sa, int na, double la, const double *sb, int nb,
                         double lb)
{
    double *u = s->ss + 2 * m->sstride;
    combined(m, s, sa, sb, u);
    return -mcx_sc_log_prior_split(p, K - 1, na, nb) + m->fam->log_marginal(m->hyper, u, m->work)
        - la - lb;
}

/* The merge gains g(x, c) of cluster x (stats sx, size nx, log marginal
 * lx) with every other cluster c of a state of K clusters: the clusters of
 * m other than skip1 and skip2 (log marginals in s->lm) into s->lg[c], and
 * `extra` (stats, size, log marginal; NULL: none) into s->lg[m->K].
 * Returns their log sum of exponentials. */
static double partner_gains(const mcx_mix *m, const mcx_subcluster *s,
                            const mcx_partition_prior *p, int K, const double *sx, int nx,
                            double lx, int skip1, int skip2, const double *extra, int nextra,
                            double lextra)
{
    double mx = -INFINITY, *lg = s->lg;
    for (int c = 0; c <= m->K; c++) {
        if (c == m->K) {
            if (extra == NULL) break;
            lg[c] = merge_gain(m, s, p, K, sx, nx, lx, extra, nextra, lextra);
        } else {
            if (c == skip1 || c == skip2) continue;
            lg[c] = merge_gain(m, s, p, K, sx, nx, lx, mcx_mix_stats(m, c), m->size[c], s->lm[c]);
        }
        if (lg[c] > mx) mx = lg[c];
    }
    double tot = 0.0;
    for (int c = 0; c <= m->K; c++) {
        if (c == m->K && extra == NULL) break;
        if (c == skip1 || c == skip2) continue;
        tot += exp(lg[c] - mx);
    }
    return mx + log(tot);
}

/* log w_x(y) = log(1/2 1/(K-1) + 1/2 exp(g(x, y) - lse)), y the slot
 * `target` of s->lg (partner_gains() called before); uniform without
 * stats_combine. */
static double log_partner(const mcx_subcluster *s, int K, double lse, int target)
{
    double lunif = -log(K - 1.0);
    if (s->combine == NULL) return lunif;
    double a = log(0.5) + lunif, b = log(0.5) + s->lg[target] - lse;
    double hi = a > b ? a : b;
    return hi + log1p(exp((a > b ? b : a) - hi));
}

/* log w_x(y) in one call (the gains of x computed here). */
static double log_partner_of(const mcx_mix *m, const mcx_subcluster *s,
                             const mcx_partition_prior *p, int K, const double *sx, int nx,
                             double lx, int skip1, int skip2, const double *extra, int nextra,
                             double lextra, int target)
{
    if (s->combine == NULL) return -log(K - 1.0);
    double lse = partner_gains(m, s, p, K, sx, nx, lx, skip1, skip2, extra, nextra, lextra);
    return log_partner(s, K, lse, target);
}

/* The coordinates and labels of the len members s->mem[r0 ..] into s->xg
 * and s->zg, in a loop of independent loads: the allocation below visits
 * the members of a cluster in random order and, reading each member as it
 * went, waited on memory for most of its time (its long dependent chain
 * of arithmetic keeps the processor from overlapping the loads). */
static void gather(const mcx_mix *m, mcx_subcluster *s, int r0, int len)
{
    int d = m->dim;
    size_t ts = mcx_mix_xstep(m);
    const int *mem = s->mem + r0;
    for (int c = 0; c < len; c++) {
        const double *x = mcx_mix_xs(m, mem[c]);
        double *to = s->xg + (size_t) c * d;
        for (int t = 0; t < d; t++) to[t] = x[t * ts];
        s->zg[c] = m->z[mem[c]];
    }
}

/* The lazily drawn allocation order: positions s->odone .. end-1 of
 * s->mem made final, each by a forward Fisher-Yates step within its
 * segment (s->oseg: the whole of S for the uniform order, the shells for
 * the shell order), so that every segment is in uniformly random order
 * (Knuth 1997, TAOCP vol. 2, sec. 3.4.2, algorithm P) whatever the
 * position at which the allocation stops.  Why: a merge's pass stops as
 * soon as it cannot be accepted, often after a few of the union's
 * members, and drawing the whole order of a union of millions first cost
 * more than the pass. */
static void order_upto(mcx_subcluster *s, int end)
{
    int *mem = s->mem, g = 0;
    for (int p = s->odone; p < end; p++) {
        while (p >= s->oseg[g + 1]) g++;
        int hi = s->oseg[g + 1];
        int j = p + (int) R_unif_index((double) (hi - p));
        int t = mem[p]; mem[p] = mem[j]; mem[j] = t;
    }
    if (end > s->odone) s->odone = end;
}

/* The allocation pass over the members s->mem[0 .. nS-1] (in that order),
 * sides A (stats st[0], launch member i) and B (st[1], j) already holding
 * their launch points.  force < 0: draw each side into s->side[r]; else
 * put r on side B iff z[mem[r]] == force.  The first nfix members go to
 * side A with probability 1 (the local order: the members far from the
 * launch point of B first, so that the members near it are scored against
 * side A holding nearly all of the union); side A's stats are then those
 * of the union (ust) without j and the members allocated, so that the
 * move costs O(nS - nfix) family operations.  Returns log q_S, or
 * -INFINITY as soon as it falls below `floor`. */
static double allocate(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p, int nS,
                       int nfix, double *st[2], int *n, int force, double floor,
                       const double *ust)
{
    const mcx_family *f = m->fam;
    const void *h = m->hyper;
    double d = p->discount, lq = 0.0;
    if (nfix > 0) {
        /* side A: the union without j and the members from nfix on (the
         * launch point j is s->mem[nS + 1]) */
        int inB = 1;
        memcpy(st[0], ust, m->sstride * sizeof(double));
        f->stats_remove(h, st[0], mcx_mix_x(m, s->mem[nS + 1]), m->work);
        for (int r = nfix; r < nS; r++) {
            f->stats_remove(h, st[0], mcx_mix_x(m, s->mem[r]), m->work);
            if (force >= 0) inB += m->z[s->mem[r]] == force;
        }
        /* a merge: every member of B must be among the allocated ones */
        if (force >= 0 && inB != m->size[force]) return -INFINITY;
        if (force < 0) memset(s->side, 0, (size_t) nfix);
        n[0] += nfix;
    }
    int dim = m->dim;
    for (int r = nfix; r < nS; r++) {
        int c = (r - nfix) % s->gather;
        if (c == 0) {
            int cnt = nS - r < s->gather ? nS - r : s->gather;
            order_upto(s, r + cnt);
            gather(m, s, r, cnt);
        }
        const double *x = s->xg + (size_t) c * dim;
        double l0 = f->log_predictive(h, st[0], x, m->work);
        double l1 = f->log_predictive(h, st[1], x, m->work);
        double dl = l1 - l0 + log((n[1] - d) / (n[0] - d));    /* log odds of side B */
        int side;
        if (force >= 0) side = s->zg[c] == force;
        else {
            side = unif_rand() * (1.0 + exp(-dl)) < 1.0 ? 1 : 0;   /* P(B) = 1 / (1 + e^-dl) */
            s->side[r] = (unsigned char) side;
        }
        lq -= mcx_softplus(side ? -dl : dl);
        if (lq < floor) return -INFINITY;
        f->stats_add(h, st[side], x, m->work);
        n[side]++;
    }
    return lq;
}

/* Shells of the outside-in order: the standardised squared distance q of
 * a member from the union's mean (each coordinate divided by its variance
 * over the union) in units of the dimension D, shell c holding
 * q / D > SHELL_CUT[c] (outermost first). */
#define N_SHELLS 8
static const double SHELL_CUT[N_SHELLS - 1] = {4.0, 3.0, 2.3, 1.6, 1.0, 0.5, 0.25};

/* The union's mean into s->cen[0 .. D-1] and the inverse of D times the
 * variance of each coordinate over the union into s->cen[D .. 2D-1] (the
 * weights of the standardised squared distance / D); the union is
 * s->mem[0 .. nm-1]. */
static void union_scale(const mcx_mix *m, mcx_subcluster *s, int nm)
{
    int d = m->dim, na = s->has_na;
    const int *mem = s->mem;
    /* with missing cells: mean and variance of the observed cells of each
     * coordinate, their counts in cen[2 D .. 3 D - 1] (unused by these moves) */
    double *mu = s->cen, *v = s->cen + d, *cnt = s->cen + 2 * d;
    for (int t = 0; t < d; t++) mu[t] = v[t] = cnt[t] = 0.0;
    for (int r = 0; r < nm; r++) {
        const double *x = mcx_mix_x(m, mem[r]);
        for (int t = 0; t < d; t++) {
            if (na && ISNAN(x[t])) continue;
            mu[t] += x[t];
            cnt[t] += 1.0;
        }
    }
    for (int t = 0; t < d; t++) mu[t] = !na ? mu[t] / nm : cnt[t] > 0 ? mu[t] / cnt[t] : 0.0;
    for (int r = 0; r < nm; r++) {
        const double *x = mcx_mix_x(m, mem[r]);
        for (int t = 0; t < d; t++) {
            double y = mcx_sc_coord(na, x, 1, t, mu);
            v[t] += (y - mu[t]) * (y - mu[t]);
        }
    }
    for (int t = 0; t < d; t++)
        v[t] = v[t] > 0.0 ? (na ? cnt[t] : nm) / (v[t] * d) : 0.0;
}

/* The standardised squared distance / D of x from c0 (missing cells of
 * either read as the union's mean: mcx_sc_coord()). */
static double scaled_dist(const mcx_mix *m, const mcx_subcluster *s, const double *x,
                          const double *c0)
{
    const double *v = s->cen + m->dim, *mu = s->cen;
    double q = 0.0;
    for (int t = 0; t < m->dim; t++) {
        double e = mcx_sc_coord(s->has_na, x, 1, t, mu) - mcx_sc_coord(s->has_na, c0, 1, t, mu);
        q += e * e * v[t];
    }
    return q;
}

/* The shell order of S = s->mem[0 .. nS-1] (the union's members but the
 * launch points; nm members with them): the standardised squared distance
 * of each member from a centre, in shells, outermost first from the
 * union's mean (centre NULL), else innermost first from the centre (the
 * launch point of side B), each shell in a uniformly random order.  The
 * shells are a function of the union and the launch points alone (the
 * same in both directions of a move), so the order is still drawn
 * independently of the state.  Why: a cluster in the tail or on the edge
 * of a big one is given back by the allocation only if its points are
 * placed while the big side is still small. */
static void shell_order(const mcx_mix *m, mcx_subcluster *s, int nS, int nm, const double *centre,
                        int lazy)
{
    int *mem = s->mem;
    unsigned char *shell = s->side;
    union_scale(m, s, nm);
    const double *c0 = centre != NULL ? centre : s->cen;
    for (int r = 0; r < nS; r++) {
        double q = scaled_dist(m, s, mcx_mix_x(m, mem[r]), c0);
        int c = 0;
        while (c < N_SHELLS - 1 && q <= SHELL_CUT[c]) c++;
        shell[r] = (unsigned char) (centre != NULL ? N_SHELLS - 1 - c : c);
    }
    /* shell by shell to the front (in-place partitions), each shuffled
     * (lazy: each a segment of the order drawn by order_upto()) */
    int lo = 0;
    s->noseg = 0;
    s->oseg[0] = 0;
    for (int c = 0; c < N_SHELLS && lo < nS; c++) {
        int start = lo;
        for (int r = lo; r < nS; r++)
            if (shell[r] == c) {
                int tm = mem[lo]; mem[lo] = mem[r]; mem[r] = tm;
                unsigned char ts = shell[lo]; shell[lo] = shell[r]; shell[r] = ts;
                lo++;
            }
        if (lazy) { if (lo > start) s->oseg[++s->noseg] = lo; }
        else mcx_rshuffle(mem + start, lo - start);
    }
}

/* (q, member) pairs ordered by q, ties by the member's index (so that the
 * order is a function of the union alone). */
static int farther(double qa, int ia, double qb, int ib)
{
    return qa > qb || (qa == qb && ia > ib);
}

/* Sift down in the max-heap hq / hi of size len from position r. */
static void heap_down(double *hq, int *hi, int len, int r)
{
    for (;;) {
        int c = 2 * r + 1;
        if (c >= len) return;
        if (c + 1 < len && farther(hq[c + 1], hi[c + 1], hq[c], hi[c])) c++;
        if (!farther(hq[c], hi[c], hq[r], hi[r])) return;
        double tq = hq[r]; hq[r] = hq[c]; hq[c] = tq;
        int ti = hi[r]; hi[r] = hi[c]; hi[c] = ti;
        r = c;
    }
}

/* The local order of S = s->mem[0 .. nS-1]: its k members nearest to the
 * launch point xj of side B (standardised distance, ties by index) last,
 * nearest first, the others before them in index order; returns how many
 * are before them (nS - k, those that go to side A with probability 1).
 * O(nS log k) with a heap of the k nearest so far (scratch s->hq, s->hi). */
static int nearest_order(const mcx_mix *m, mcx_subcluster *s, int nS, int nm, const double *xj,
                         int k)
{
    int *mem = s->mem;
    if (k > nS) k = nS;
    union_scale(m, s, nm);
    double *hq = s->hq;
    int *hi = s->hi, len = 0;
    for (int r = 0; r < nS; r++) {
        double q = scaled_dist(m, s, mcx_mix_x(m, mem[r]), xj);
        if (len < k) {              /* sift up */
            int c = len++;
            hq[c] = q;
            hi[c] = mem[r];
            while (c > 0 && farther(hq[c], hi[c], hq[(c - 1) / 2], hi[(c - 1) / 2])) {
                int pa = (c - 1) / 2;
                double tq = hq[c]; hq[c] = hq[pa]; hq[pa] = tq;
                int ti = hi[c]; hi[c] = hi[pa]; hi[pa] = ti;
                c = pa;
            }
        } else if (k > 0 && farther(hq[0], hi[0], q, mem[r])) {
            hq[0] = q;
            hi[0] = mem[r];
            heap_down(hq, hi, len, 0);
        }
    }
    /* the heap's members, farthest first, into the tail (nearest last in
     * the heap's order, so filled from the end), the others compacted */
    double qk = len > 0 ? hq[0] : 0.0;
    int ik = len > 0 ? hi[0] : -1, w = 0;
    for (int r = 0; r < nS; r++)
        if (farther(scaled_dist(m, s, mcx_mix_x(m, mem[r]), xj), mem[r], qk, ik))
            mem[w++] = mem[r];
    /* (q, member) is a strict total order on finite q: exactly the nS - k
     * members outside the heap come before it (with NaN distances it is
     * not, and members would be lost and repeated: mcx_sc_coord()) */
    if (w != nS - len) MCX_INTERNAL("the local order lost or repeated members");
    while (len > 0) {                  /* heap sort: the farthest popped first */
        mem[w + len - 1] = hi[0];
        len--;
        hq[0] = hq[len];
        hi[0] = hi[len];
        heap_down(hq, hi, len, 0);
    }
    return nS - k;
}

/* The allocation order's probabilities on a union of nm members, as
 * cumulative cuts of one uniform: uniform, shells outside-in, shells
 * inside-out, local (see the top of this file). */
static void order_cuts(const mcx_subcluster *s, int nm, double *cut)
{
    int large = mcx_sc_log_share(s, nm) < 0.0;
    cut[0] = large ? 0.5 : 0.25;
    cut[1] = large ? 0.625 : 0.5;
    cut[2] = 0.75;
}

/* Launch: member positions pi (side A) and pj (side B) moved to the end of
 * s->mem[0 .. nm-1], the rest in the order of the allocation: with the
 * probabilities of order_cuts() uniformly random, outside-in from the union's mean,
 * inside-out from the launch point of B (shell_order()), or local: only
 * the k members nearest to the launch point of B allocated (k drawn from
 * SAMS_LOCAL_K), nearest first, after the others have been put on side A
 * (nearest_order(); a small cluster in the tail of a big one is otherwise
 * lost among the big one's many points, each with a small chance of going
 * to B, and scored against a side A that holds its launch point alone);
 * returns how many members of S, the first ones, go to side A with
 * probability 1; st[] set to the two launch points. */
static int launch(mcx_mix *m, mcx_subcluster *s, int nm, int pi, int pj, double *st[2], int *n,
                  int lazy)
{
    int *mem = s->mem;
    int i = mem[pi], j = mem[pj];
    /* remove positions pi, pj (keeping the others in index order) */
    int w = 0;
    for (int r = 0; r < nm; r++)
        if (r != pi && r != pj) mem[w++] = mem[r];
    mem[nm - 2] = i;
    mem[nm - 1] = j;
    double u = unif_rand(), cut[3];
    order_cuts(s, nm, cut);
    int nfix = 0, nS = nm - 2;
    s->odone = lazy ? 0 : nS;
    if (u < cut[0]) {
        if (lazy) { s->noseg = 1; s->oseg[0] = 0; s->oseg[1] = nS; }
        else mcx_rshuffle(mem, nS);
    } else if (u < cut[1]) shell_order(m, s, nS, nm, NULL, lazy);
    else {
        /* the launch point of B (a copy: mcx_mix_x() may gather into a ring) */
        double *xj = s->cen + 3 * m->dim;
        memcpy(xj, mcx_mix_x(m, j), (size_t) m->dim * sizeof(double));
        if (u < cut[2]) shell_order(m, s, nS, nm, xj, lazy);
        else {
            nfix = nearest_order(m, s, nS, nm, xj,
                                 SAMS_LOCAL_K[(int) R_unif_index((double) SAMS_N_LOCAL)]);
            s->odone = nS;   /* a function of the union and launch points: final */
        }
    }
    for (int c = 0; c < 2; c++) {
        memcpy(st[c], m->empty, m->sstride * sizeof(double));
        m->fam->stats_add(m->hyper, st[c], mcx_mix_x(m, c == 0 ? i : j), m->work);
        n[c] = 1;
    }
    return nfix;
}

/* The record of a move (setting sc_record, tests; splits in the first
 * column of s->rec, merges in the second): rec[0] kind (1 split,
 * 2 merge), [1] members nm, [2] log p(split) - log p(merged) (prior x
 * likelihood), [3] log q_S, [4] log q of the merge choice and launch, [5]
 * log q of the split choice and launch, [6] log r, [7] accepted, [8] K
 * before, [9] the members of S put on side A with probability 1 (the first
 * ones); then from SC_REC_HEAD: the members in allocation order (launch
 * i, launch j, then S), their sides (after n entries) and the labels
 * before the move (after 2 n entries). */
static void record(const mcx_mix *m, mcx_subcluster *s, int kind, int nm, int nfix, double g,
                   double lq, double lqm, double lqs, double lr)
{
    double *r = s->rec + (size_t) (kind - 1) * (SC_REC_HEAD + 3 * (size_t) m->n);
    double *mem = r + SC_REC_HEAD, *sd = mem + m->n, *lab = sd + m->n;
    r[0] = kind; r[1] = nm; r[2] = g; r[3] = lq; r[4] = lqm; r[5] = lqs; r[6] = lr;
    r[7] = 0; r[8] = m->K; r[9] = nfix;
    /* s->mem holds S then i, j */
    mem[0] = s->mem[nm - 2];
    mem[1] = s->mem[nm - 1];
    sd[0] = 0;
    sd[1] = 1;
    for (int q = 0; q < nm - 2; q++) {
        mem[q + 2] = s->mem[q];
        sd[q + 2] = kind == 1 ? s->side[q] : -1;
    }
    for (int i = 0; i < m->n; i++) lab[i] = m->z[i];
}

static void log_marginals(const mcx_mix *m, mcx_subcluster *s)
{
    for (int c = 0; c < m->K; c++)
        s->lm[c] = m->fam->log_marginal(m->hyper, mcx_mix_stats(m, c), m->work);
}

/* log g, g the probability that a sequentially allocated merge of two
 * clusters of na and nb members is made (the same for the split into two
 * sides of these sizes; see the top of this file). */
static double merge_log_share(const mcx_subcluster *s, int na, int nb)
{
    return mcx_sc_log_merge_thin(s->thin, na, nb);
}

/* A split's cluster *k (uniform among the K) and its ordered launch points
 * *pi != *pj (uniform among its nm members, listed in s->mem by
 * mcx_sc_members()); returns nm, below 2 when *k cannot be split or the
 * split is thinned out (then *pi, *pj are not set).  Shared with the HDP's
 * split (model_hdp_sams.c), which thins nothing. */
int mcx_sc_sams_pick(mcx_mix *m, mcx_subcluster *s, int *k, int *pi, int *pj)
{
    int K = m->K, c = (int) (unif_rand() * K);
    if (c >= K) c = K - 1;
    *k = c;
    if (mcx_sc_thinned_out(mcx_sc_log_share(s, m->size[c]))) return 0;
    int nm = mcx_sc_members(m, s, c, c);
    if (nm < 2) return nm;
    *pi = (int) R_unif_index((double) nm);
    *pj = (int) R_unif_index((double) (nm - 1));
    if (*pj >= *pi) (*pj)++;
    return nm;
}

/* log q of a merge's choice among K clusters and its launch: the first
 * cluster uniform, its partner by w (log weights lwa = w_a(b), lwb =
 * w_b(a): either may be drawn first), the ordered launch pair 1 / (2 na
 * nb) (a fair coin gives side A); into *lqs log q of the reverse split's
 * choice of the merged cluster among K - 1 and of its ordered launch pair.
 * A split of a cluster among K - 1 scores its reverse merge with the same. */
double mcx_sc_sams_merge_lq(int K, double lwa, double lwb, int na, int nb, double *lqs)
{
    int nm = na + nb;
    *lqs = log(ps_sams(K - 1)) - log(K - 1.0) - log((double) nm * (nm - 1.0));
    return log(1.0 - ps_sams(K)) - log((double) K) + lwa + log1p(exp(lwb - lwa)) -
        log(2.0 * na * (double) nb);
}

/* An accepted sequentially allocated split of cluster k: the nm members in
 * s->mem (launch points last, sides of the others in s->side), side A
 * (st[0], n[0]) stays in slot k, side B becomes a new cluster, returned. */
int mcx_sc_sams_apply_split(mcx_mix *m, mcx_subcluster *s, int k, int nm, double *st[2],
                            const int *n)
{
    s->side[nm - 2] = 0;
    s->side[nm - 1] = 1;
    return mcx_sc_apply_split(m, s, k, nm, n[0], n[1], st[0], st[1]);
}

/* For a split of cluster k among the K = m->K into sides st[0], st[1] (n
 * members, log marginals lA, lB): log q of its reverse, the merge of A
 * and B among K + 1 clusters (k replaced by them), and into *lqs log q of
 * the split's own choice and launch (s->lm set to the log marginals of
 * the K clusters).  Shared with the HDP's split (model_hdp_sams.c). */
double mcx_sc_sams_split_reverse_lq(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p,
                                    int k, double *st[2], const int *n, double lA, double lB,
                                    double *lqs)
{
    int K = m->K;
    log_marginals(m, s);
    double lw = log_partner_of(m, s, p, K + 1, st[0], n[0], lA, k, -1, st[1], n[1], lB, K);
    double lw2 = log_partner_of(m, s, p, K + 1, st[1], n[1], lB, k, -1, st[0], n[0], lA, K);
    return mcx_sc_sams_merge_lq(K + 1, lw, lw2, n[0], n[1], lqs);
}

double mcx_sc_ps_sams(int K)
{
    return ps_sams(K);
}

static void sams_split(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int K = m->K, k, pi, pj;
    int nm = mcx_sc_sams_pick(m, s, &k, &pi, &pj);
    if (nm < 2) return;
    double *st[2] = {s->ss, s->ss + m->sstride};
    int n[2];
    int nfix = launch(m, s, nm, pi, pj, st, n, 1);
    double lq = allocate(m, s, p, nm - 2, nfix, st, n, -1, -INFINITY, mcx_mix_stats(m, k)), lqs;
    const mcx_family *f = m->fam;
    double lA = f->log_marginal(m->hyper, st[0], m->work);
    double lB = f->log_marginal(m->hyper, st[1], m->work);
    double lqm = mcx_sc_sams_split_reverse_lq(m, s, p, k, st, n, lA, lB, &lqs);
    double g = mcx_sc_log_prior_split(p, K, n[0], n[1]) + lA + lB - s->lm[k];
    double lr = g + lqm - lqs - lq + merge_log_share(s, n[0], n[1])
        - mcx_sc_log_share(s, nm);                                  /* + log(g / f) */
    if (s->record) record(m, s, 1, nm, nfix, g, lq, lqm, lqs, lr);
    if (!(lr >= 0.0 || log(unif_rand()) < lr)) return;
    if (s->record) s->rec[7] = 1;                     /* the split's record */
    mcx_sc_sams_apply_split(m, s, k, nm, st, n);
    s->counts[0] += 1;
}

/* A merge's pair among the K >= 2 clusters (s->lm set to their log
 * marginals): *pa uniform, its partner *pb drawn by w_a; returns log q of
 * the choice and launch (mcx_sc_sams_merge_lq(): either may be drawn
 * first), into *lqs that of the reverse split.  Shared with the HDP's
 * merge (model_hdp_sams.c). */
double mcx_sc_sams_merge_pick(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p,
                              int *pa, int *pb, double *lqs)
{
    int K = m->K, a = (int) (unif_rand() * K);
    if (a >= K) a = K - 1;
    log_marginals(m, s);
    /* the partner b ~ w_a */
    double lse = s->combine != NULL
        ? partner_gains(m, s, p, K, mcx_mix_stats(m, a), m->size[a], s->lm[a], a, -1, NULL, 0,
                        0.0)
        : 0.0;
    double u = unif_rand(), acc = 0.0;
    int b = -1;
    for (int c = 0; c < K; c++) {
        if (c == a) continue;
        b = c;
        acc += exp(log_partner(s, K, lse, c));
        if (u < acc) break;
    }
    double lwa = log_partner(s, K, lse, b);
    double lwb = log_partner_of(m, s, p, K, mcx_mix_stats(m, b), m->size[b], s->lm[b], b, -1,
                                NULL, 0, 0.0, a);
    *pa = a;
    *pb = b;
    return mcx_sc_sams_merge_lq(K, lwa, lwb, m->size[a], m->size[b], lqs);
}

static void sams_merge(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    int K = m->K, a, b;
    double lqs, lqm = mcx_sc_sams_merge_pick(m, s, p, &a, &b, &lqs);
    int na = m->size[a], nb = m->size[b], nm = na + nb;
    double lf = mcx_sc_log_share(s, nm), lg = merge_log_share(s, na, nb);
    if (mcx_sc_thinned_out(lg)) return;
    const double *sa = mcx_mix_stats(m, a), *sb = mcx_mix_stats(m, b);
    double *su = s->ss + 2 * m->sstride;
    double gain;
    if (s->combine != NULL) {
        gain = merge_gain(m, s, p, K, sa, na, s->lm[a], sb, nb, s->lm[b]);
    } else {
        memcpy(su, sa, m->sstride * sizeof(double));
        for (int i = 0; i < m->n; i++)
            if (m->z[i] == b) m->fam->stats_add(m->hyper, su, mcx_mix_x(m, i), m->work);
        gain = -mcx_sc_log_prior_split(p, K - 1, na, nb)
            + m->fam->log_marginal(m->hyper, su, m->work) - s->lm[a] - s->lm[b];
    }
    double lu = log(unif_rand()), base = gain + lqs - lqm + lf - lg;   /* + log(f / g) */
    if (!(lu < base) && !s->record) return;   /* q_S <= 1: rejected whatever the pass gives */
    /* which of the two gives the launch point of side A: a fair coin, so
     * that the ordered launch pair has probability 1 / (2 n_a n_b) given
     * the pair {a, b} whichever of them was drawn first (lqm above) */
    int first = a, second = b;
    if (unif_rand() < 0.5) { first = b; second = a; }
    mcx_sc_members(m, s, first, second);
    /* launch points: the ia-th member of first and the ib-th of second */
    int ia = (int) R_unif_index((double) m->size[first]);
    int ib = (int) R_unif_index((double) m->size[second]);
    int pi = -1, pj = -1;
    for (int r = 0, ca = 0, cb = 0; r < nm && (pi < 0 || pj < 0); r++) {
        if (s->side[r]) { if (cb++ == ib) pj = r; }
        else if (ca++ == ia) pi = r;
    }
    double *st[2] = {s->ss, s->ss + m->sstride};
    int n[2];
    int nfix = launch(m, s, nm, pi, pj, st, n, 1);
    if (s->combine != NULL) combined(m, s, sa, sb, su);
    double lq = allocate(m, s, p, nm - 2, nfix, st, n, second, s->record ? -INFINITY : lu - base,
                         su);
    if (s->record) record(m, s, 2, nm, nfix, -gain, lq, lqm, lqs, base + lq);
    if (!(lu < base + lq)) return;
    if (s->record) s->rec[SC_REC_HEAD + 3 * (size_t) m->n + 7] = 1;   /* the merge's */
    memcpy(mcx_mix_stats(m, a), su, m->sstride * sizeof(double));
    m->size[a] = nm;
    m->size[b] = 0;
    for (int r = 0; r < nm; r++)
        if (m->z[s->mem[r]] == b) m->z[s->mem[r]] = a;
    mcx_mix_delete_cluster(m, b);
    s->counts[0] += 1;
}

void mcx_subcluster_sams(mcx_mix *m, mcx_subcluster *s, const mcx_partition_prior *p)
{
    for (int t = 0; t < s->moves; t++) {
        if (m->K < 1 || m->n < 2) return;
        mcx_sc_reserve(s, m->K + 1);
        s->counts[1] += 1;
        if (unif_rand() < ps_sams(m->K))
            MCX_MIX_MOVE(m, "subcluster: sequentially allocated split", sams_split(m, s, p));
        else MCX_MIX_MOVE(m, "subcluster: sequentially allocated merge", sams_merge(m, s, p));
    }
}

/* ---- shared with the HDP's sequentially allocated moves (model_hdp_sams.c) */
int mcx_sc_sams_launch(mcx_mix *m, mcx_subcluster *s, int nm, int pi, int pj, double *st[2],
                       int *n)
{
    return launch(m, s, nm, pi, pj, st, n, 0);   /* the HDP draws the whole order first */
}
