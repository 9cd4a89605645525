/*
 * sampler_nuts.c -- one transition of the multinomial No-U-Turn sampler.
 *
 * Hamiltonian H(q, p) = -log pi(q) + p' M^{-1} p / 2 with p ~ N(0, M)
 * (Murphy 2012, section 24.5.4, for HMC; Betancourt 2017, appendix A, for
 * the multinomial form).  The trajectory grows by doubling in a random
 * direction (Hoffman and Gelman 2014, Algorithm 3) until
 *   - the generalised no-U-turn criterion fails: with rho the sum of the
 *     momenta of a (sub)trajectory and p#_- = M^{-1} p_-, p#_+ = M^{-1} p_+
 *     the sharp momenta at its ends, the trajectory continues only while
 *     p#_-' rho > 0 and p#_+' rho > 0; it is checked on every subtree, on
 *     the whole trajectory, and on each half extended by the first point of
 *     the other half (the extra checks of Stan 2.26, which stop some
 *     periodic trajectories early);
 *   - an energy error H - H0 exceeds 1000 (a divergence), or
 *   - the tree depth reaches max_depth (2^max_depth leapfrog steps).
 * Within a subtree the proposal is drawn uniformly with weights
 * exp(H0 - H) (multinomial sampling); at the top level a new subtree's
 * proposal replaces the sample with probability min(1, w_new / w_old)
 * (biased progressive sampling, Betancourt 2017, A.3.2).
 *
 * The acceptance statistic used by adaptation is the mean of
 * min(1, exp(H0 - H)) over every leapfrog step of the transition.
 * All memory comes from mcx_nuts_tree_alloc() once per chunk.
 */
#include <string.h>
#include "mcmix_engine.h"
#include "sampler_nuts.h"

#define NUTS_MAX_DELTA_H 1000.0
#define LEVEL_VECS 10   /* vectors of length d per level of recursion */
#define TOP_VECS 28     /* vectors of length d of the top level */

void mcx_nuts_tree_alloc(mcx_nuts_tree *t)
{
    size_t n = (size_t) t->d * ((size_t) LEVEL_VECS * (size_t) t->max_depth + TOP_VECS);
    t->work = (double *) mcx_alloc(n, sizeof(double));
    double *w = t->work + (size_t) LEVEL_VECS * t->max_depth * t->d;
    t->z.q = w; t->z.p = w + t->d; t->z.g = w + 2 * (size_t) t->d;
}

static double log_sum_exp(double a, double b)
{
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/* out = M^{-1} p */
static void sharp(const mcx_nuts_tree *t, const double *p, double *out)
{
    int d = t->d;
    if (!t->dense) {
        for (int j = 0; j < d; j++) out[j] = t->minv[j] * p[j];
        return;
    }
    for (int j = 0; j < d; j++) out[j] = 0.0;
    for (int k = 0; k < d; k++) {
        const double *col = t->minv + (size_t) k * d;
        double pk = p[k];
        for (int j = 0; j < d; j++) out[j] += col[j] * pk;
    }
}

static double dot(const double *a, const double *b, int d)
{
    double s = 0.0;
    for (int j = 0; j < d; j++) s += a[j] * b[j];
    return s;
}

/* Scratch vector of the top level (last of the TOP_VECS). */
static double *scratch(const mcx_nuts_tree *t)
{
    return t->work + (size_t) t->d * ((size_t) LEVEL_VECS * t->max_depth + TOP_VECS - 1);
}

double mcx_nuts_energy(const mcx_nuts_tree *t, const mcx_nuts_point *z)
{
    if (!isfinite(z->logd)) return INFINITY;
    double *tmp = scratch(t);
    sharp(t, z->p, tmp);
    return -z->logd + 0.5 * dot(z->p, tmp, t->d);
}

void mcx_nuts_momentum(const mcx_nuts_tree *t, double *p)
{
    int d = t->d;
    for (int j = 0; j < d; j++) p[j] = norm_rand();
    if (!t->dense) {
        for (int j = 0; j < d; j++) p[j] /= sqrt(t->minv[j]);
        return;
    }
    /* M^{-1} = L L': p = L'^{-1} u has covariance (L L')^{-1} = M */
    mcx_trsv_lower_t(t->chol, p, d);
}

int mcx_nuts_leapfrog(mcx_nuts_tree *t, double e)
{
    int d = t->d;
    double *tmp = scratch(t);
    mcx_nuts_point *z = &t->z;
    for (int j = 0; j < d; j++) z->p[j] += 0.5 * e * z->g[j];
    sharp(t, z->p, tmp);
    for (int j = 0; j < d; j++) z->q[j] += e * tmp[j];
    /* a point outside the support, or (after the initial value) with a
     * non-finite log density or gradient, ends the trajectory: divergent */
    if (!mcx_tgt_logd_grad(t->h, z->q, &z->logd, z->g)) {
        z->logd = -INFINITY;
        return 0;
    }
    for (int j = 0; j < d; j++) z->p[j] += 0.5 * e * z->g[j];
    return 1;
}

static void point_copy(mcx_nuts_point *dst, const mcx_nuts_point *src, int d)
{
    size_t b = (size_t) d * sizeof(double);
    memcpy(dst->q, src->q, b);
    memcpy(dst->p, src->p, b);
    memcpy(dst->g, src->g, b);
    dst->logd = src->logd;
}

static void vcopy(double *dst, const double *src, int d)
{
    memcpy(dst, src, (size_t) d * sizeof(double));
}

static void vadd(double *dst, const double *a, const double *b, int d)
{
    for (int j = 0; j < d; j++) dst[j] = a[j] + b[j];
}

static int criterion(const double *ps_minus, const double *ps_plus,
                     const double *rho, int d)
{
    return dot(ps_plus, rho, d) > 0 && dot(ps_minus, rho, d) > 0;
}

/* Build a subtree of 2^depth leapfrog steps in direction `sign` from t->z.
 * On return: zprop the subtree's multinomial proposal, ps_beg/ps_end and
 * p_beg/p_end the (sharp) momenta at its ends, rho += its momentum sum,
 * *lsw = log_sum_exp(*lsw, log of its total weight).  Returns 0 when the
 * subtree diverged or made a U-turn. */
static int build_tree(mcx_nuts_tree *t, int depth, mcx_nuts_point *zprop,
                      double *ps_beg, double *ps_end, double *rho,
                      double *p_beg, double *p_end, double sign, double *lsw)
{
    int d = t->d;
    if (depth == 0) {
        int ok = mcx_nuts_leapfrog(t, sign * t->eps);
        t->n_leapfrog++;
        double hv = ok ? mcx_nuts_energy(t, &t->z) : INFINITY;
        if (isnan(hv)) hv = INFINITY;
        if (hv - t->H0 > NUTS_MAX_DELTA_H) t->divergent = 1;
        *lsw = log_sum_exp(*lsw, t->H0 - hv);
        t->sum_metro += (t->H0 - hv > 0) ? 1.0 : exp(t->H0 - hv);
        if (t->divergent) return 0;
        point_copy(zprop, &t->z, d);
        sharp(t, t->z.p, ps_beg);
        vcopy(ps_end, ps_beg, d);
        for (int j = 0; j < d; j++) rho[j] += t->z.p[j];
        vcopy(p_beg, t->z.p, d);
        vcopy(p_end, t->z.p, d);
        return 1;
    }
    double *W = t->work + (size_t) (depth - 1) * LEVEL_VECS * d;
    double *p_init_end = W, *ps_init_end = W + d, *rho_init = W + 2 * d,
           *p_final_beg = W + 3 * d, *ps_final_beg = W + 4 * d,
           *rho_final = W + 5 * d, *rho_ext = W + 6 * d;
    mcx_nuts_point zfinal = {W + 7 * d, W + 8 * d, W + 9 * d, 0.0};

    memset(rho_init, 0, (size_t) d * sizeof(double));
    double lsw_init = -INFINITY;
    if (!build_tree(t, depth - 1, zprop, ps_beg, ps_init_end, rho_init,
                    p_beg, p_init_end, sign, &lsw_init))
        return 0;
    point_copy(&zfinal, &t->z, d);
    memset(rho_final, 0, (size_t) d * sizeof(double));
    double lsw_final = -INFINITY;
    if (!build_tree(t, depth - 1, &zfinal, ps_final_beg, ps_end, rho_final,
                    p_final_beg, p_end, sign, &lsw_final))
        return 0;

    double lsw_sub = log_sum_exp(lsw_init, lsw_final);
    *lsw = log_sum_exp(*lsw, lsw_sub);
    if (unif_rand() < exp(lsw_final - lsw_sub)) point_copy(zprop, &zfinal, d);

    vadd(rho_ext, rho_init, p_final_beg, d);
    int persist = criterion(ps_beg, ps_final_beg, rho_ext, d);
    vadd(rho_ext, rho_final, p_init_end, d);
    persist = persist && criterion(ps_init_end, ps_end, rho_ext, d);
    vadd(rho_ext, rho_init, rho_final, d);        /* the subtree's rho */
    for (int j = 0; j < d; j++) rho[j] += rho_ext[j];
    return persist && criterion(ps_beg, ps_end, rho_ext, d);
}

void mcx_nuts_transition(mcx_nuts_tree *t, double *theta, double *logd,
                         double *grad)
{
    int d = t->d;
    double *w = t->work + (size_t) LEVEL_VECS * t->max_depth * d + 3 * (size_t) d;
    mcx_nuts_point zf = {w, w + d, w + 2 * d, 0}, zb = {w + 3 * d, w + 4 * d, w + 5 * d, 0},
                   zs = {w + 6 * d, w + 7 * d, w + 8 * d, 0},
                   zp = {w + 9 * d, w + 10 * d, w + 11 * d, 0};
    double *v = w + 12 * d;
    double *p_ff = v, *ps_ff = v + d, *p_fb = v + 2 * d, *ps_fb = v + 3 * d,
           *p_bf = v + 4 * d, *ps_bf = v + 5 * d, *p_bb = v + 6 * d,
           *ps_bb = v + 7 * d, *rho = v + 8 * d, *rho_f = v + 9 * d,
           *rho_b = v + 10 * d, *rho_ext = v + 11 * d;

    mcx_nuts_point *z = &t->z;
    vcopy(z->q, theta, d);
    vcopy(z->g, grad, d);
    z->logd = *logd;
    mcx_nuts_momentum(t, z->p);
    point_copy(&zf, z, d);
    point_copy(&zb, z, d);
    point_copy(&zs, z, d);
    point_copy(&zp, z, d);
    sharp(t, z->p, ps_ff);
    vcopy(ps_fb, ps_ff, d); vcopy(ps_bf, ps_ff, d); vcopy(ps_bb, ps_ff, d);
    vcopy(p_ff, z->p, d); vcopy(p_fb, z->p, d);
    vcopy(p_bf, z->p, d); vcopy(p_bb, z->p, d);
    vcopy(rho, z->p, d);

    double lsw = 0.0;
    t->H0 = mcx_nuts_energy(t, z);
    t->n_leapfrog = 0;
    t->sum_metro = 0.0;
    t->divergent = 0;
    t->depth = 0;
    while (t->depth < t->max_depth) {
        memset(rho_f, 0, (size_t) d * sizeof(double));
        memset(rho_b, 0, (size_t) d * sizeof(double));
        double lsw_sub = -INFINITY;
        int valid;
        if (unif_rand() > 0.5) {
            /* forward: the old trajectory becomes the backward part */
            point_copy(z, &zf, d);
            vcopy(rho_b, rho, d);
            vcopy(p_bf, p_ff, d);
            vcopy(ps_bf, ps_ff, d);
            valid = build_tree(t, t->depth, &zp, ps_fb, ps_ff, rho_f, p_fb,
                               p_ff, 1.0, &lsw_sub);
            point_copy(&zf, z, d);
        } else {
            point_copy(z, &zb, d);
            vcopy(rho_f, rho, d);
            vcopy(p_fb, p_bb, d);
            vcopy(ps_fb, ps_bb, d);
            valid = build_tree(t, t->depth, &zp, ps_bf, ps_bb, rho_b, p_bf,
                               p_bb, -1.0, &lsw_sub);
            point_copy(&zb, z, d);
        }
        if (!valid) break;
        t->depth++;
        if (lsw_sub > lsw || unif_rand() < exp(lsw_sub - lsw))
            point_copy(&zs, &zp, d);
        lsw = log_sum_exp(lsw, lsw_sub);

        vadd(rho, rho_b, rho_f, d);
        int persist = criterion(ps_bb, ps_ff, rho, d);
        vadd(rho_ext, rho_b, p_fb, d);
        persist = persist && criterion(ps_bb, ps_fb, rho_ext, d);
        vadd(rho_ext, rho_f, p_bf, d);
        persist = persist && criterion(ps_bf, ps_ff, rho_ext, d);
        if (!persist) break;
    }
    vcopy(theta, zs.q, d);
    vcopy(grad, zs.g, d);
    *logd = zs.logd;
    t->energy = mcx_nuts_energy(t, &zs);
}
