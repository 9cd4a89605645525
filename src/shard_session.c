/*
 * shard_session.c -- the session's part of a sharded mixture chain (see
 * shard_mixture.h): the clusters' parameters of the restricted Gibbs pass
 * and the sequentially allocated split / merge moves, decided on the
 * clusters' statistics alone.
 *
 * The moves are those of mixture_subcluster_sams.c (Dahl 2003, merge
 * partners by their merge gain, thinning of large unions), with the
 * allocation order of the union's members fixed to their global index
 * order (a function of the union and the launch points, so each (i, j)
 * still pairs a split with its reverse merge) and without the 2-means
 * moves, so that a split is proposed with probability ps(K) = 1/2 (1 when
 * K = 1).  With L the log marginal likelihood and the Pitman-Yor EPPF
 * (Pitman 2006, eq. 3.6), a split of k (n members, K clusters) into A, B:
 *   log r = log(alpha + K d) + lgamma(n_A - d) + lgamma(n_B - d)
 *           - lgamma(n - d) - lgamma(1 - d) + L(A) + L(B) - L(k)
 *           + log q_merge({A, B} | K + 1) - log q_split(k | K) - log q_S,
 *   q_split(k | K)  = ps(K) / K * f(n) / (n (n - 1))   (ordered launch pair),
 *   q_merge({a, b} | K) = (1 - ps(K)) (w_a(b) + w_b(a)) / K * g(n_a, n_b)
 *                         / (2 n_a n_b)                 (coin and launch pair),
 *   w_a(b) = 1/2 1/(K - 1) + 1/2 softmax over c != a of gain(a, c),
 * gain the log posterior ratio merged / apart; a merge has the inverse
 * ratio with q_S the probability that the allocation gives back a and b.
 * Thinning (mixture_subcluster_sams.c; mcx_sc_log_thin() and
 * mcx_sc_log_merge_thin(), mixture_subcluster.h): f(n) = min(1, t / n),
 * g = 1 when n <= t or both parts hold at least max(2, t / 32), else
 * sqrt(t / n).
 */
#include <string.h>
#include <math.h>
#include <Rmath.h>
#include <R_ext/Random.h>
#include "shard_mixture.h"

#define SHARD_SPLIT_SHARE 0.5

static double ps_of(int K)
{
    return K <= 1 ? 1.0 : SHARD_SPLIT_SHARE;
}

void mcx_shard_session_init(mcx_shard_session *ss, const mcx_family *fam, const void *hyper,
                            int dim, int K, double *stats, int *size, const mcx_partition_prior *p,
                            int thin)
{
    memset(ss, 0, sizeof *ss);
    ss->fam = fam;
    ss->hyper = hyper;
    ss->ss = mcx_family_stats_doubles(fam, hyper);
    if (ss->ss == 0) ss->ss = 1;
    ss->combine = mcx_family_combiner(fam, hyper);
    if (ss->combine == NULL) MCX_INTERNAL("a sharded chain needs a family with stats_combine");
    ss->K = K;
    ss->stats = stats;
    ss->size = size;
    ss->p = p;
    ss->thin = thin;
    size_t ws = fam->work_size(hyper);
    ss->work = mcx_alloc(ws > 0 ? ws : 1, sizeof(double));
    ss->tmp = mcx_alloc(2 * ss->ss, sizeof(double));
    ss->lm = mcx_alloc((size_t) K + 2, sizeof(double));
    ss->lg = mcx_alloc((size_t) K + 2, sizeof(double));
    ss->row = mcx_alloc((size_t) (dim > 0 ? dim : 1), sizeof(double));
    for (int k = 0; k < K; k++)
        ss->lm[k] = fam->log_marginal(hyper, stats + (size_t) k * ss->ss, ss->work);
}

void mcx_shard_params(const mcx_shard_session *ss, double *theta, double *logpi)
{
    size_t ps = ss->fam->param_size(ss->hyper);
    for (int k = 0; k < ss->K; k++) {
        logpi[k] = mcx_rlog_gamma(ss->size[k] - ss->p->discount);
        ss->fam->param_draw(ss->hyper, ss->stats + (size_t) k * ss->ss, theta + (size_t) k * ps,
                            ss->work);
    }
}

void mcx_shard_stats_of(const mcx_shard_session *ss, const double *x, int nx, int dim,
                        double *st)
{
    double *row = ss->row;
    ss->fam->stats_reset(ss->hyper, st);
    for (int i = 0; i < nx; i++) {
        for (int t = 0; t < dim; t++) row[t] = x[i + (size_t) t * nx];
        ss->fam->stats_add(ss->hyper, st, row, ss->work);
    }
}

/* The stats of the union of a and b into out. */
static void merged(const mcx_shard_session *ss, const double *a, const double *b, double *out)
{
    memcpy(out, a, ss->ss * sizeof(double));
    ss->combine(ss->hyper, out, b, ss->work);
}

/* gain of merging (sa, na, la) and (sb, nb, lb) in a state of Kst clusters */
static double gain(const mcx_shard_session *ss, int Kst, const double *sa, int na, double la,
                   const double *sb, int nb, double lb)
{
    double *u = ss->tmp + ss->ss;
    merged(ss, sa, sb, u);
    return -mcx_sc_log_prior_split(ss->p, Kst - 1, na, nb) +
        ss->fam->log_marginal(ss->hyper, u, ss->work) - la - lb;
}

/* The gains of merging a (sa, na, la) with each of its partners in a
 * state of Kst clusters into ss->lg (slot c for session cluster c, slot K
 * for the extra cluster): the session's clusters other than `self`, and
 * the extra cluster (xs, xn, xl; xs NULL: none).  Returns their
 * log-sum-exp. */
static double partner_gains(const mcx_shard_session *ss, int Kst, const double *sa, int na,
                            double la, int self, const double *xs, int xn, double xl)
{
    double mx = -INFINITY, sum = 0.0;
    for (int c = 0; c <= ss->K; c++) {
        if (c == self || (c == ss->K && xs == NULL)) continue;
        double g = c == ss->K ? gain(ss, Kst, sa, na, la, xs, xn, xl)
            : gain(ss, Kst, sa, na, la, ss->stats + (size_t) c * ss->ss, ss->size[c], ss->lm[c]);
        ss->lg[c] = g;
        if (g > mx) mx = g;
    }
    for (int c = 0; c <= ss->K; c++) {
        if (c == self || (c == ss->K && xs == NULL)) continue;
        sum += exp(ss->lg[c] - mx);
    }
    return mx + log(sum);
}

/* log w_a(c) = log(1/2 1/(Kst - 1) + 1/2 softmax_c), after partner_gains(). */
static double log_w(const mcx_shard_session *ss, int Kst, double lse, int c)
{
    return log(0.5 / (Kst - 1.0) + 0.5 * exp(ss->lg[c] - lse));
}

void mcx_shard_plan(mcx_shard_session *ss, mcx_shard_move *mv)
{
    int K = ss->K;
    memset(mv, 0, sizeof *mv);
    if (unif_rand() < ps_of(K)) {
        int k = (int) R_unif_index((double) K);
        double n = ss->size[k];
        if (n < 2) return;
        double lf = mcx_sc_log_thin(ss->thin, n);
        if (mcx_sc_thinned_out(lf)) return;
        mv->type = 1;
        mv->a = mv->b = k;
        mv->ri = R_unif_index(n);
        mv->rj = R_unif_index(n - 1.0);
        if (mv->rj >= mv->ri) mv->rj += 1.0;
        /* - log q_split(k | K) */
        mv->lr = -(log(ps_of(K)) - log((double) K) + lf - log(n * (n - 1.0)));
        mv->seed = mcx_stream_master();
        return;
    }
    /* a merge: a uniform, its partner b ~ w_a */
    int a = (int) R_unif_index((double) K);
    const double *sa = ss->stats + (size_t) a * ss->ss;
    double lse = partner_gains(ss, K, sa, ss->size[a], ss->lm[a], a, NULL, 0, 0.0);
    double u = unif_rand(), acc = 0.0;
    int b = -1;
    for (int c = 0; c < K; c++) {
        if (c == a) continue;
        b = c;
        acc += exp(log_w(ss, K, lse, c));
        if (u < acc) break;
    }
    const double *sb = ss->stats + (size_t) b * ss->ss;
    double na = ss->size[a], nb = ss->size[b], n = na + nb;
    double lg = mcx_sc_log_merge_thin(ss->thin, na, nb);
    if (mcx_sc_thinned_out(lg)) return;
    double lwa = log_w(ss, K, lse, b);
    double lwb = log_w(ss, K, partner_gains(ss, K, sb, ss->size[b], ss->lm[b], b, NULL, 0, 0.0), a);
    double lqm = log(1.0 - ps_of(K)) - log((double) K) + lwa + log1p(exp(lwb - lwa)) + lg -
        log(2.0 * na * nb);
    double lqs = log(ps_of(K - 1)) - log(K - 1.0) + mcx_sc_log_thin(ss->thin, n) -
        log(n * (n - 1.0));
    double g = gain(ss, K, sa, ss->size[a], ss->lm[a], sb, ss->size[b], ss->lm[b]);
    mv->type = 2;
    /* a fair coin: which of a and b holds launch point i (side 0) */
    if (unif_rand() < 0.5) { mv->a = a; mv->b = b; }
    else { mv->a = b; mv->b = a; }
    mv->ri = R_unif_index((double) ss->size[mv->a]);
    mv->rj = R_unif_index((double) ss->size[mv->b]);
    mv->lr = g + lqs - lqm;
    /* accepted iff log u < lr + log q_S: no pass when log u >= lr (q_S <= 1) */
    mv->bound = log(unif_rand()) - mv->lr;
    if (mv->bound >= 0.0) mv->type = 0;
}

int mcx_shard_decide(mcx_shard_session *ss, const mcx_shard_move *mv, double *st[2],
                     const double *n, double lq)
{
    if (mv->type == 2) return lq > mv->bound;
    if (mv->type != 1) return 0;
    int K = ss->K, k = mv->a;
    double la = ss->fam->log_marginal(ss->hyper, st[0], ss->work);
    double lb = ss->fam->log_marginal(ss->hyper, st[1], ss->work);
    int na = (int) n[0], nb = (int) n[1];
    double lwa = log_w(ss, K + 1, partner_gains(ss, K + 1, st[0], na, la, k, st[1], nb, lb), K);
    double lwb = log_w(ss, K + 1, partner_gains(ss, K + 1, st[1], nb, lb, k, st[0], na, la), K);
    double lqm = log(1.0 - ps_of(K + 1)) - log(K + 1.0) + lwa + log1p(exp(lwb - lwa)) +
        mcx_sc_log_merge_thin(ss->thin, na, nb) - log(2.0 * na * (double) nb);
    double lr = mv->lr + mcx_sc_log_prior_split(ss->p, K, na, nb) + la + lb - ss->lm[k] + lqm -
        lq;
    return log(unif_rand()) < lr;
}
