/*
 * sampler_smc.c -- tempered sequential Monte Carlo and annealed importance
 * sampling on a prior and a likelihood target (Rogers and Girolami
 * 2016, section 9.5.4; Murphy 2012, sections 24.6.2 and 24.7.3).
 *
 * SMC sampler (Del Moral, Doucet and Jasra 2006) on the path
 * pi_beta ~ p(theta) L(theta)^beta, 0 = beta_0 < ... < beta_T = 1:
 *   reweight   W_i <- W_i L(theta_i)^(beta_t - beta_{t-1}), normalised; the
 *              log evidence gains log sum_i W_i L_i^(beta_t - beta_{t-1});
 *   resample   when ESS = 1 / sum W_i^2 < threshold * N (systematic for
 *              the pilot below, multinomial for the estimating population);
 *   move       MH moves leaving pi_{beta_t} invariant (random walk with the
 *              covariance of the weighted particles).
 * The adaptive schedule picks beta_t by bisection so that the conditional
 * ESS of the step (Zhou, Johansen and Aston 2016) is a fixed fraction of N.
 *
 * AIS (Neal 2001) runs the same path without resampling: each run carries
 * log w = sum_t (beta_t - beta_{t-1}) log L(theta_{t-1}) and
 * Z = E[w].  The stage loop lives in the glue (ffi_smc.c), which checks for
 * interrupts between stages.
 *
 * Unbiased evidence.  The estimates above are unbiased (Z-hat, not log Z-hat)
 * only when the Metropolis kernel of every stage is fixed before the
 * particles it moves are drawn.  A random-walk covariance estimated from the
 * particles being moved makes each particle's proposal depend on its own
 * position, so the move no longer leaves pi_beta invariant: outlying
 * particles get the larger steps, the population is pulled towards the mode
 * and the next increment sum W_i L_i^dbeta is too large (an upward bias of
 * order d / N per stage).  mcmix therefore tunes the kernels (covariance,
 * adaptive temperatures, resampling times) on an independent pilot
 * population that is moved alongside and discarded; conditionally on the
 * pilot the estimating population is a plain Feynman-Kac particle system
 * (AIS: independent runs), so Z-hat is unbiased and its variance can be
 * estimated from one run (mcx_smc_relvar()).
 */
#include <string.h>
#include <float.h>
#include "sampler_smc.h"

int mcx_tempered_rw_move(mcx_tgt *lik, mcx_tgt *prior, double beta,
                         const double *L, int d, double *theta, double *ll,
                         double *lp, double *work)
{
    double *y = work;
    for (int j = 0; j < d; j++) y[j] = norm_rand();
    /* y = theta + L z, computed from the last row up (L lower triangular) */
    for (int j = d - 1; j >= 0; j--) {
        double s = 0.0;
        for (int k = 0; k <= j; k++) s += L[j + (size_t) k * d] * y[k];
        y[j] = theta[j] + s;
    }
    double lpy = mcx_tgt_logd(prior, y);
    if (!isfinite(lpy)) return 0;
    double lly = mcx_tgt_logd(lik, y);
    double log_r;
    if (beta == 0.0) log_r = lpy - *lp;               /* 0 * (-Inf) is 0 here */
    else if (!isfinite(lly)) return 0;
    else log_r = beta * (lly - *ll) + (lpy - *lp);
    if (isnan(log_r)) log_r = INFINITY;                /* from ll = -Inf at theta */
    if (log(unif_rand()) < log_r) {
        memcpy(theta, y, (size_t) d * sizeof(double));
        *ll = lly;
        *lp = lpy;
        return 1;
    }
    return 0;
}

double mcx_ess_log(const double *logW, int N)
{
    double s2 = 0.0;
    for (int i = 0; i < N; i++) s2 += exp(2.0 * logW[i]);
    return s2 > 0.0 ? 1.0 / s2 : 0.0;
}

/* dbeta * ll with 0 * (-Inf) = 0 (a step of zero changes nothing). */
static double step_term(double dbeta, double ll)
{
    return dbeta == 0.0 ? 0.0 : dbeta * ll;
}

double mcx_smc_reweight(double *logW, const double *ll, int N, double dbeta)
{
    double mx = -INFINITY;
    for (int i = 0; i < N; i++) {
        logW[i] += step_term(dbeta, ll[i]);
        if (logW[i] > mx) mx = logW[i];
    }
    if (!isfinite(mx)) return -INFINITY;
    double s = 0.0;
    for (int i = 0; i < N; i++) s += exp(logW[i] - mx);
    double lse = mx + log(s);          /* = log sum W_i^old w_i, W^old normalised */
    for (int i = 0; i < N; i++) logW[i] -= lse;
    return lse;
}

/* conditional ESS fraction of a step dbeta; work: N doubles */
static double cess_frac(const double *logW, const double *ll, int N,
                        double dbeta, double *work)
{
    double mx = -INFINITY;
    for (int i = 0; i < N; i++) {
        work[i] = step_term(dbeta, ll[i]);
        if (isfinite(logW[i]) && work[i] > mx) mx = work[i];
    }
    if (!isfinite(mx)) return 0.0;
    double a = 0.0, b = 0.0;
    for (int i = 0; i < N; i++) {
        if (!isfinite(logW[i])) continue;
        double W = exp(logW[i]), w = exp(work[i] - mx);
        a += W * w;
        b += W * w * w;
    }
    return b > 0.0 ? a * a / b : 0.0;   /* fraction of N: sum W = 1 */
}

double mcx_smc_next_step(const double *logW, const double *ll, int N,
                         double beta, double cess, double *work)
{
    double hi = 1.0 - beta;
    if (hi <= 0.0) return 0.0;
    /* Particles with log likelihood -Inf drop out at any positive step, so
     * the conditional ESS cannot exceed the weight f0 of the others: aim at
     * cess * f0 (otherwise the schedule would stall on hard constraints). */
    double f0 = 0.0;
    for (int i = 0; i < N; i++) if (ll[i] > -INFINITY) f0 += exp(logW[i]);
    if (f0 < 1.0) cess *= f0;
    if (cess_frac(logW, ll, N, hi, work) >= cess) return hi;
    double lo = 0.0;
    for (int it = 0; it < 60 && hi - lo > 1e-12 * (1.0 + hi); it++) {
        double mid = 0.5 * (lo + hi);
        if (cess_frac(logW, ll, N, mid, work) >= cess) lo = mid;
        else hi = mid;
    }
    /* never stall: a tiny positive step at least */
    return lo > 0.0 ? lo : hi;
}

void mcx_resample_systematic(const double *logW, int N, int *idx, double *work)
{
    double *W = work, total = 0.0;
    for (int i = 0; i < N; i++) {
        W[i] = exp(logW[i]);
        total += W[i];
    }
    if (!(total > 0.0)) MCX_INTERNAL("all particle weights are zero");
    double u = unif_rand() / N, cum = W[0] / total;
    int j = 0;
    for (int i = 0; i < N; i++) {
        double pos = u + (double) i / N;
        while (pos > cum && j < N - 1) cum += W[++j] / total;
        idx[i] = j;
    }
}

void mcx_particle_chol(const double *theta, const double *logW, int d, int N,
                       double scale, double *L, double *work)
{
    double *mean = work, *W = work + d;
    double total = 0.0;
    for (int i = 0; i < N; i++) {
        W[i] = logW != NULL ? exp(logW[i]) : 1.0;
        total += W[i];
    }
    for (int j = 0; j < d; j++) {
        double s = 0.0;
        for (int i = 0; i < N; i++) s += W[i] * theta[j + (size_t) i * d];
        mean[j] = s / total;
    }
    for (int a = 0; a < d; a++)
        for (int b = 0; b <= a; b++) {
            double s = 0.0;
            for (int i = 0; i < N; i++)
                s += W[i] * (theta[a + (size_t) i * d] - mean[a]) *
                     (theta[b + (size_t) i * d] - mean[b]);
            s = scale * scale * s / total;
            L[a + (size_t) b * d] = s;
            L[b + (size_t) a * d] = s;
        }
    /* ridge: relative to the diagonal, or absolute when it is all zero */
    double dmax = 0.0;
    for (int a = 0; a < d; a++) if (L[a + (size_t) a * d] > dmax) dmax = L[a + (size_t) a * d];
    double ridge = dmax > 0.0 ? 1e-10 * dmax : 1e-8 * scale * scale;
    double *C = work + d + N;           /* d x d, after mean and W */
    for (int tries = 0; tries < 30; tries++) {
        memcpy(C, L, (size_t) d * d * sizeof(double));
        for (int a = 0; a < d; a++) C[a + (size_t) a * d] += tries ? ridge : 0.0;
        if (mcx_chol(C, d) == 0) {
            memcpy(L, C, (size_t) d * d * sizeof(double));
            return;
        }
        if (tries) ridge *= 10.0;
    }
    MCX_INTERNAL("particle covariance is not positive definite");
}

double mcx_ais_stage(mcx_tgt *lik, mcx_tgt *prior, double beta_prev,
                     double beta, const double *L, int n_moves, int d, int N,
                     double *theta, double *ll, double *lp, double *logw,
                     double *work)
{
    double acc = 0.0, db = beta - beta_prev;
    for (int i = 0; i < N; i++) {
        logw[i] += step_term(db, ll[i]);
        for (int m = 0; m < n_moves; m++)
            acc += mcx_tempered_rw_move(lik, prior, beta, L, d,
                                        theta + (size_t) i * d, ll + i, lp + i,
                                        work);
        /* one stage may be long (many runs and moves): stay interruptible */
        mcx_interrupt_point((double) n_moves * ((double) d * d + 16.0));
    }
    return acc;
}

void mcx_pop_init(mcx_pop *p, int d, int N, double *theta, int track_eve)
{
    p->d = d;
    p->N = N;
    p->th = theta;
    p->ll = mcx_alloc((size_t) N, sizeof(double));
    p->lp = mcx_alloc((size_t) N, sizeof(double));
    p->logW = mcx_alloc((size_t) N, sizeof(double));
    p->th2 = mcx_alloc((size_t) d * N, sizeof(double));
    p->ll2 = mcx_alloc((size_t) N, sizeof(double));
    p->lp2 = mcx_alloc((size_t) N, sizeof(double));
    p->idx = mcx_alloc((size_t) N, sizeof(int));
    p->eve = track_eve ? mcx_alloc((size_t) N, sizeof(int)) : NULL;
    p->eve2 = track_eve ? mcx_alloc((size_t) N, sizeof(int)) : NULL;
    for (int i = 0; i < N; i++) {
        p->logW[i] = -log((double) N);
        if (p->eve) p->eve[i] = i;
    }
}

void mcx_resample_multinomial(const double *logW, int N, int *idx, double *work)
{
    double *W = work, *u = work + N, total = 0.0;
    for (int i = 0; i < N; i++) {
        W[i] = exp(logW[i]);
        total += W[i];
    }
    if (!(total > 0.0)) MCX_INTERNAL("all particle weights are zero");
    /* N sorted uniforms, from the top: u_(N) = U^(1/N), u_(k) = u_(k+1) U^(1/k) */
    double v = 1.0;
    for (int k = N; k >= 1; k--) {
        v *= pow(unif_rand(), 1.0 / k);
        u[k - 1] = v * total;
    }
    double cum = W[0];
    int j = 0;
    for (int i = 0; i < N; i++) {
        while (u[i] > cum && j < N - 1) cum += W[++j];
        idx[i] = j;
    }
}

void mcx_pop_resample(mcx_pop *p, int multinomial, double *work)
{
    int d = p->d, N = p->N;
    if (multinomial) mcx_resample_multinomial(p->logW, N, p->idx, work);
    else mcx_resample_systematic(p->logW, N, p->idx, work);
    for (int i = 0; i < N; i++) {
        int a = p->idx[i];
        memcpy(p->th2 + (size_t) i * d, p->th + (size_t) a * d,
               (size_t) d * sizeof(double));
        p->ll2[i] = p->ll[a];
        p->lp2[i] = p->lp[a];
        if (p->eve) p->eve2[i] = p->eve[a];
    }
    memcpy(p->th, p->th2, (size_t) d * N * sizeof(double));
    memcpy(p->ll, p->ll2, (size_t) N * sizeof(double));
    memcpy(p->lp, p->lp2, (size_t) N * sizeof(double));
    if (p->eve) memcpy(p->eve, p->eve2, (size_t) N * sizeof(int));
    for (int i = 0; i < N; i++) p->logW[i] = -log((double) N);
}

double mcx_pop_move(mcx_tgt *lik, mcx_tgt *prior, double beta, const double *L,
                    int n_moves, mcx_pop *p, double *work)
{
    double a = 0.0;
    for (int i = 0; i < p->N; i++) {
        for (int m = 0; m < n_moves; m++)
            a += mcx_tempered_rw_move(lik, prior, beta, L, p->d,
                                      p->th + (size_t) i * p->d, p->ll + i,
                                      p->lp + i, work);
        mcx_interrupt_point((double) n_moves * ((double) p->d * p->d + 16.0));
    }
    return a;
}

/*
 * Lee and Whiteley (2018, Biometrika 105, 609-625, Theorem 1 and eq. 7):
 * with multinomial resampling, n resampling steps and Eve indices E_i (the
 * stage-0 ancestor of particle i), an unbiased estimate of Var(Z-hat)/Z^2 is
 *   1 - (N / (N - 1))^(n + 1) sum_{i, j: E_i != E_j} W_i W_j,
 * W the final normalised weights; sum_{E_i != E_j} W_i W_j = 1 - sum_e
 * (sum_{i: E_i = e} W_i)^2.  With n = 0 it is the usual variance of a mean
 * of independent weights over its squared mean.  work: N doubles.
 */
double mcx_smc_relvar(const double *logW, const int *eve, int N, int n_resampled,
                      double *work, int *n_eves)
{
    for (int i = 0; i < N; i++) work[i] = 0.0;
    for (int i = 0; i < N; i++) work[eve[i]] += exp(logW[i]);
    double same = 0.0;
    int k = 0;
    for (int e = 0; e < N; e++) {
        same += work[e] * work[e];
        k += work[e] > 0.0;
    }
    *n_eves = k;
    double f = exp((n_resampled + 1) * log((double) N / (N - 1.0)));
    return 1.0 - f * (1.0 - same);
}
