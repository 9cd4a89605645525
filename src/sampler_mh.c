/*
 * sampler_mh.c -- Metropolis-Hastings with random-walk, independence,
 * custom and mixed proposals, and adaptive random-walk proposals.
 *
 * Mixtures.  With several proposals, each iteration chooses proposal k with
 * probability weight[k] (independently of the state) and makes one MH step
 * with it: a mixture of MH kernels, each of which leaves the target
 * invariant, so the mixture does too.
 *
 * Adaptation (random-walk proposal only):
 *  - SCALE: Robbins-Monro on the log scale, log s <- log s + t^-kappa
 *    (alpha - target_accept), with alpha the acceptance probability of the
 *    step (Andrieu & Thoms 2008, Algorithm 4 with a scalar scale).
 *  - HAARIO: the adaptive Metropolis algorithm (Haario, Saksman & Tamminen
 *    2001): after `start` adaptation steps the proposal covariance is
 *    lambda_t s_d (C_t + eps I) with C_t the empirical covariance of the
 *    states visited while adapting (Welford updates of mean and M2), and
 *    the global scale lambda_t adapted as in SCALE (Andrieu & Thoms 2008,
 *    Algorithm 4, "AM with global adaptive scaling"); before `start` steps
 *    the initial proposal is scaled by lambda_t.  The scale lets a chain
 *    whose initial proposal is far too wide (or narrow) move at once, so the
 *    covariance is learnt from a moving chain.
 * By default adaptation happens during burn-in only and the proposal is
 * then frozen, so the kept draws come from a proper Markov chain; with
 * `always` it continues with a vanishing effect (t^-kappa gains; for
 * HAARIO the 1/t weight of a new state), which keeps the target as the
 * limiting distribution (diminishing adaptation, Roberts & Rosenthal 2007).
 *
 * Cost per iteration.  With a compiled target the step is dominated by R's
 * generator, so the normal proposals come from rnorm_polar() (1.27 uniforms
 * per normal instead of norm_rand()'s two uniforms and a qnorm()), the
 * acceptance test draws its uniform only when log r < 0, and the plain
 * random-walk case runs in mh_rw_fixed() with the state in locals.
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler.h"

/* log N(y; mean, L L') up to the constant -d/2 log(2 pi). */
static double lognorm_chol(const double *y, const double *mean, const double *L,
                           double logdet, int d, double *work)
{
    for (int j = 0; j < d; j++) work[j] = y[j] - mean[j];
    mcx_trsv_lower(L, work, d);
    double q = 0.0;
    for (int j = 0; j < d; j++) q += work[j] * work[j];
    return -0.5 * q - 0.5 * logdet;
}

/* d standard normals into z by Marsaglia's polar method (Marsaglia & Bray
 * 1964): (v1, v2) uniform on the unit disc (two unif_rand() per try, a try
 * succeeds with probability pi/4), then v * sqrt(-2 log s / s), s = |v|^2,
 * are two independent N(0, 1).  Exact, from R's generator only (so
 * set.seed() reproduces the chain), and about twice as cheap as norm_rand()
 * by inversion (two uniforms and a qnorm() per variate): 1.27 uniforms per
 * normal.  With d odd the second normal of the last pair is dropped (no
 * state is carried between iterations, so chunks do not change draws). */
static void rnorm_polar(double *z, int d)
{
    for (int j = 0; j < d; j += 2) {
        double v1, v2, s;
        do {
            v1 = 2.0 * unif_rand() - 1.0;
            v2 = 2.0 * unif_rand() - 1.0;
            s = v1 * v1 + v2 * v2;
        } while (s >= 1.0 || s == 0.0);
        double f = sqrt(-2.0 * log(s) / s);
        z[j] = v1 * f;
        if (j + 1 < d) z[j + 1] = v2 * f;
    }
}

/* y = x + scale * L z (L lower triangular, or diagonal when diag != 0). */
static inline void rw_draw(const double *x, const double *L, int diag,
                           double scale, int d, double *y, double *z)
{
    rnorm_polar(z, d);
    if (diag) {
        for (int j = 0; j < d; j++) y[j] = x[j] + scale * (L[j + j * d] * z[j]);
        return;
    }
    for (int i = 0; i < d; i++) {
        double s = 0.0;
        for (int j = 0; j <= i; j++) s += L[i + j * d] * z[j];
        y[i] = x[i] + scale * s;
    }
}

static int is_diagonal(const double *L, int d)
{
    for (int j = 0; j < d; j++)
        for (int i = j + 1; i < d; i++)
            if (L[i + j * d] != 0.0) return 0;
    return 1;
}

/* The MH decision log(u) < log_r for log acceptance ratio log_r (not NaN),
 * u ~ U(0, 1): no uniform is drawn when the move is certainly accepted,
 * and log(u) is computed only when the bounds 1 - 1/u <= log(u) <=
 * 2 (u - 1) / (u + 1), valid on (0, 1], do not decide (multiplied out by
 * u > 0 and u + 1 > 0).  Same uniforms, same decisions. */
static inline int mh_accept(double log_r)
{
    if (log_r >= 0) return 1;
    double u = unif_rand();
    if (2.0 * (u - 1.0) < log_r * (u + 1.0)) return 1;
    if (u - 1.0 >= log_r * u) return 0;
    return log(u) < log_r;
}

/* Iterations until the next kept one (iteration g is kept when g % thin
 * == 0; the chunk starts at g = offset + 1).  Unused during warm-up. */
static long keep_countdown(const mcx_run *run)
{
    return run->thin - run->offset % run->thin;
}

/* Haario proposal factor from the running moments: L = chol(sd (C + eps I)),
 * falling back on L0 before `start` steps or when C is not positive definite. */
static void haario_factor(const mcx_mh_adapt *ad, const mcx_mh_state *s,
                          const double *L0, int d, double *L)
{
    double t = *s->adapt_t;
    if (t > ad->start && t > 1) {
        for (int i = 0; i < d * d; i++) L[i] = ad->sd * s->adapt_m2[i] / (t - 1.0);
        for (int j = 0; j < d; j++) L[j + j * d] += ad->sd * ad->eps;
        if (mcx_chol(L, d) == 0) return;
    }
    memcpy(L, L0, (size_t) d * d * sizeof(double));
}

/* Welford update of the running mean and M2 with the state x. */
static void haario_update(mcx_mh_state *s, const double *x, int d, double *delta)
{
    double t = *s->adapt_t + 1.0;
    for (int j = 0; j < d; j++) {
        delta[j] = x[j] - s->adapt_mean[j];
        s->adapt_mean[j] += delta[j] / t;
    }
    for (int j = 0; j < d; j++)
        for (int i = 0; i < d; i++)
            s->adapt_m2[i + j * d] += delta[i] * (x[j] - s->adapt_mean[j]);
    *s->adapt_t = t;
}

static int choose_prop(const mcx_mh_prop *props, int n_props)
{
    if (n_props == 1) return 0;
    double u = unif_rand(), c = 0.0;
    for (int k = 0; k < n_props - 1; k++) {
        c += props[k].weight;
        if (u < c) return k;
    }
    return n_props - 1;
}

/* The common case, kept lean: one random-walk proposal with a fixed factor
 * L (and scale), no adaptation in this chunk.  The chain's state lives in
 * locals during the chunk (two theta buffers swapped on acceptance,
 * counters) and is written back at the end; draws are stored only for kept
 * iterations (countdown, no modulo).  Same arithmetic and the same random
 * numbers as the general loop below, so either may run any chunk. */
static void mh_rw_fixed(mcx_tgt *h, const double *L, double scale,
                        mcx_mh_state *s, mcx_run *run)
{
    int d = h->dim, diag = is_diagonal(L, d);
    double *x = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *y = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *z = (double *) mcx_alloc((size_t) d, sizeof(double));
    memcpy(x, s->theta, (size_t) d * sizeof(double));
    double lx = *s->logd, n_acc = 0.0;
    long it = (long) *s->iteration, keep = keep_countdown(run);
    double *out = run->out;
    size_t n_kept = (size_t) run->n_kept;
    int row = 0;
    for (int i = 0; i < run->n; i++) {
        mcx_interrupt_point(4.0 * d + 16.0);
        h->iter = ++it;
        rw_draw(x, L, diag, scale, d, y, z);
        double ly = mcx_tgt_logd(h, y);
        double log_r = ly - lx;
        if (isnan(log_r)) log_r = -INFINITY;
        if (mh_accept(log_r)) {
            double *t = x; x = y; y = t;
            lx = ly;
            n_acc += 1.0;
        }
        if (!run->warmup && --keep == 0) {
            for (int j = 0; j < d; j++) out[row + (size_t) j * n_kept] = x[j];
            row++;
            keep = run->thin;
        }
    }
    memcpy(s->theta, x, (size_t) d * sizeof(double));
    *s->logd = lx;
    *s->iteration += run->n;
    if (run->warmup) { *s->w_prop += run->n; *s->w_accept += n_acc; }
    else { *s->n_prop += run->n; *s->n_accept += n_acc; }
    s->comp_prop[0] += run->n;
    s->comp_accept[0] += n_acc;
    if (row != run->n_kept) MCX_INTERNAL("kept rows mismatch");
}

void mcx_mh_run(mcx_tgt *h, mcx_mh_prop *props, int n_props,
                const mcx_mh_adapt *ad, mcx_mh_state *s, mcx_run *run)
{
    int d = h->dim;
    double *y = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *z = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *Lcur = NULL;
    if (ad->kind != MCX_ADAPT_NONE && props[0].kind != MCX_PROP_RW)
        MCX_INTERNAL("adaptation needs a random-walk proposal");
    if (ad->kind == MCX_ADAPT_HAARIO) {
        Lcur = (double *) mcx_alloc((size_t) d * d, sizeof(double));
        haario_factor(ad, s, props[0].L, d, Lcur);
    }
    int adapting = ad->kind != MCX_ADAPT_NONE && (run->warmup || ad->always);
    if (n_props == 1 && props[0].kind == MCX_PROP_RW && !adapting) {
        mh_rw_fixed(h, Lcur != NULL ? Lcur : props[0].L,
                    ad->kind != MCX_ADAPT_NONE ? exp(*s->log_scale) : 1.0, s, run);
        return;
    }
    int *diag = (int *) mcx_alloc((size_t) n_props, sizeof(int));
    for (int k = 0; k < n_props; k++)
        diag[k] = props[k].kind == MCX_PROP_RW && Lcur == NULL && is_diagonal(props[k].L, d);
    long keep = keep_countdown(run);
    int row = 0;
    for (int i = 0; i < run->n; i++) {
        mcx_interrupt_point(4.0 * d + 16.0);
        *s->iteration += 1.0;
        h->iter = (long) *s->iteration;
        int k = choose_prop(props, n_props);
        const mcx_mh_prop *p = &props[k];
        double log_q_ratio = 0.0;
        switch (p->kind) {
        case MCX_PROP_RW: {
            const double *L = Lcur != NULL ? Lcur : p->L;
            double sc = ad->kind != MCX_ADAPT_NONE ? exp(*s->log_scale) : 1.0;
            rw_draw(s->theta, L, diag[k], sc, d, y, z);
            break;
        }
        case MCX_PROP_INDEP:
            rnorm_polar(z, d);
            for (int r = 0; r < d; r++) {
                double acc = 0.0;
                for (int j = 0; j <= r; j++) acc += p->L[r + j * d] * z[j];
                y[r] = p->mean[r] + acc;
            }
            log_q_ratio = lognorm_chol(s->theta, p->mean, p->L, p->logdet, d, z) -
                lognorm_chol(y, p->mean, p->L, p->logdet, d, z);
            break;
        default:
            p->draw(s->theta, y, p->ctx);
            if (p->logq != NULL) {
                double fwd = p->logq(y, s->theta, p->ctx);
                if (fwd == -INFINITY)
                    mcx_error("the proposal's `log_density` is -Inf at a point "
                              "drawn by its `draw` (iteration %ld): the two "
                              "functions do not agree.", h->iter);
                log_q_ratio = p->logq(s->theta, y, p->ctx) - fwd;
            }
            break;
        }
        double ly = mcx_tgt_logd(h, y);
        double log_r = ly - *s->logd + log_q_ratio;
        if (isnan(log_r)) log_r = -INFINITY;  /* -Inf - -Inf cannot happen: logd finite */
        int accept = mh_accept(log_r);
        if (accept) {
            memcpy(s->theta, y, (size_t) d * sizeof(double));
            *s->logd = ly;
        }
        if (run->warmup) { *s->w_prop += 1; *s->w_accept += accept; }
        else { *s->n_prop += 1; *s->n_accept += accept; }
        s->comp_prop[k] += 1;
        s->comp_accept[k] += accept;
        if (adapting) {
            double alpha = log_r >= 0 ? 1.0 : exp(log_r);
            if (ad->kind == MCX_ADAPT_SCALE) *s->adapt_t += 1.0;
            else haario_update(s, s->theta, d, z);   /* adapt_t += 1 */
            *s->log_scale += pow(*s->adapt_t, -ad->kappa) * (alpha - ad->target_accept);
            if (ad->kind == MCX_ADAPT_HAARIO) haario_factor(ad, s, props[0].L, d, Lcur);
        }
        if (!run->warmup && --keep == 0) {
            for (int j = 0; j < d; j++) run->out[row + (size_t) j * run->n_kept] = s->theta[j];
            row++;
            keep = run->thin;
        }
    }
    if (row != run->n_kept) MCX_INTERNAL("kept rows mismatch");
}
