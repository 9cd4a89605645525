/*
 * ffi_smc.c -- .Call glue of sample_smc(), ais() and anneal() (R/smc.R,
 * R/anneal.R).  The stage loops run here so that interrupts are checked
 * between stages; every numerical step is in sampler_smc.c /
 * sampler_anneal.c.  Targets are opened with mcx_target_open() (R
 * functions and compiled targets alike); `io` is the error-context vector
 * of R/target.R's with_target_io().
 */
#include <string.h>
#include "sampler_smc.h"
#include "ffi_target_r.h"
#include "ffi.h"
#include "ffi_list.h"

/* Open the likelihood and prior targets (list(lik, prior)) for dim d. */
static int open_pair(SEXP targets, int d, SEXP io, mcx_tgt *lik, mcx_tgt *prior)
{
    if (TYPEOF(targets) != VECSXP || XLENGTH(targets) != 2)
        MCX_INTERNAL("targets must be list(log_lik, log_prior)");
    int nprot = mcx_target_open(VECTOR_ELT(targets, 0), d, io, MCX_CB_LOG_LIK,
                                "log_lik", lik);
    nprot += mcx_target_open(VECTOR_ELT(targets, 1), d, io, MCX_CB_LOG_PRIOR,
                             "log_prior", prior);
    return nprot;
}

/* Log prior and log likelihood of every particle (columns of theta). */
static void eval_particles(mcx_tgt *lik, mcx_tgt *prior, const double *theta,
                           int d, int N, double *ll, double *lp)
{
    lik->iter = prior->iter = 0;
    for (int i = 0; i < N; i++) {
        lp[i] = mcx_tgt_logd(prior, theta + (size_t) i * d);
        if (!isfinite(lp[i]))
            mcx_error("`prior_sampler` drew a point outside the support of "
                      "`log_prior` (draw %d has log prior -Inf).", i + 1);
        ll[i] = mcx_tgt_logd(lik, theta + (size_t) i * d);
    }
}

static SEXP real_copy(const double *x, R_xlen_t n)
{
    SEXP v = Rf_allocVector(REALSXP, n);
    if (n) memcpy(REAL(v), x, (size_t) n * sizeof(double));
    return v;
}

/*
 * Tempered SMC.  theta0: d x N prior draws.  spec: schedule (increasing
 * from 0 to 1, or length 0 for the adaptive schedule), cess,
 * resample_threshold, n_moves, scale, max_stages.
 */
SEXP ffi_smc_run(SEXP targets, SEXP io, SEXP theta0, SEXP spec)
{
    int nprot = 0;
    if (TYPEOF(theta0) != REALSXP || !Rf_isMatrix(theta0)) MCX_INTERNAL("theta0");
    int d = Rf_nrows(theta0), N = Rf_ncols(theta0);
    SEXP sched_ = mcx_list_elt(spec, "schedule");
    if (TYPEOF(sched_) != REALSXP) MCX_INTERNAL("schedule");
    int n_fixed = (int) XLENGTH(sched_);
    const double *sched = REAL(sched_);
    double cess = mcx_list_num(spec, "cess");
    double thr = mcx_list_num(spec, "resample_threshold");
    int n_moves = mcx_list_count(spec, "n_moves");
    double scale = mcx_list_num(spec, "scale");
    int max_stages = n_fixed > 0 ? n_fixed - 1 : mcx_list_count(spec, "max_stages");

    mcx_tgt lik, prior;
    nprot += open_pair(targets, d, io, &lik, &prior);
    SEXP theta = PROTECT(Rf_duplicate(theta0)); nprot++;
    double *th = REAL(theta);
    double *th2 = mcx_alloc((size_t) d * N, sizeof(double));
    double *ll = mcx_alloc((size_t) N, sizeof(double));
    double *lp = mcx_alloc((size_t) N, sizeof(double));
    double *ll2 = mcx_alloc((size_t) N, sizeof(double));
    double *lp2 = mcx_alloc((size_t) N, sizeof(double));
    double *logW = mcx_alloc((size_t) N, sizeof(double));
    /* d + N for the stage helpers, d * d more for mcx_particle_chol() */
    double *work = mcx_alloc((size_t) d + N + (size_t) d * d, sizeof(double));
    double *L = mcx_alloc((size_t) d * d, sizeof(double));
    int *idx = mcx_alloc((size_t) N, sizeof(int));
    double *betas = mcx_alloc((size_t) max_stages + 1, sizeof(double));
    double *ess = mcx_alloc((size_t) max_stages, sizeof(double));
    double *acc = mcx_alloc((size_t) max_stages, sizeof(double));
    double *logz_inc = mcx_alloc((size_t) max_stages, sizeof(double));
    int *resampled = mcx_alloc((size_t) max_stages, sizeof(int));

    GetRNGstate();
    eval_particles(&lik, &prior, th, d, N, ll, lp);
    for (int i = 0; i < N; i++) logW[i] = -log((double) N);
    double beta = 0.0, logz = 0.0;
    betas[0] = 0.0;
    int t = 0;
    while (beta < 1.0) {
        if (t >= max_stages)
            mcx_error("the adaptive schedule needed more than %d stages; raise "
                      "`max_stages` or lower `cess`.", max_stages);
        double next = n_fixed > 0 ? sched[t + 1]
                                  : beta + mcx_smc_next_step(logW, ll, N, beta, cess, work);
        if (next > 1.0 || 1.0 - next < 1e-12) next = 1.0;
        lik.iter = prior.iter = t + 1;
        double inc = mcx_smc_reweight(logW, ll, N, next - beta);
        if (!isfinite(inc))
            mcx_error("every particle has zero weight at stage %d (temperature "
                      "%g): the likelihood is -Inf at all of them.", t + 1, next);
        logz += inc;
        logz_inc[t] = inc;
        ess[t] = mcx_ess_log(logW, N);
        resampled[t] = ess[t] < thr * N;
        if (resampled[t]) {
            mcx_resample_systematic(logW, N, idx, work);
            for (int i = 0; i < N; i++) {
                memcpy(th2 + (size_t) i * d, th + (size_t) idx[i] * d,
                       (size_t) d * sizeof(double));
                ll2[i] = ll[idx[i]];
                lp2[i] = lp[idx[i]];
            }
            memcpy(th, th2, (size_t) d * N * sizeof(double));
            memcpy(ll, ll2, (size_t) N * sizeof(double));
            memcpy(lp, lp2, (size_t) N * sizeof(double));
            for (int i = 0; i < N; i++) logW[i] = -log((double) N);
        }
        beta = next;
        betas[t + 1] = beta;
        double a = 0.0;
        if (n_moves > 0) {
            mcx_particle_chol(th, logW, d, N, scale, L, work);
            for (int i = 0; i < N; i++)
                for (int m = 0; m < n_moves; m++)
                    a += mcx_tempered_rw_move(&lik, &prior, beta, L, d,
                                              th + (size_t) i * d, ll + i, lp + i, work);
            a /= (double) N * n_moves;
        }
        acc[t] = a;
        t++;
        R_CheckUserInterrupt();
    }
    PutRNGstate();

    SEXP ires = PROTECT(Rf_allocVector(INTSXP, t)); nprot++;
    if (t) memcpy(INTEGER(ires), resampled, (size_t) t * sizeof(int));
    const char *nms[] = {"theta", "log_weights", "log_lik", "log_prior",
                         "log_evidence", "schedule", "ess", "accept",
                         "log_evidence_increments", "resampled", NULL};
    SEXP vals[10];
    vals[0] = theta;
    vals[1] = PROTECT(real_copy(logW, N)); nprot++;
    vals[2] = PROTECT(real_copy(ll, N)); nprot++;
    vals[3] = PROTECT(real_copy(lp, N)); nprot++;
    vals[4] = PROTECT(Rf_ScalarReal(logz)); nprot++;
    vals[5] = PROTECT(real_copy(betas, t + 1)); nprot++;
    vals[6] = PROTECT(real_copy(ess, t)); nprot++;
    vals[7] = PROTECT(real_copy(acc, t)); nprot++;
    vals[8] = PROTECT(real_copy(logz_inc, t)); nprot++;
    vals[9] = ires;
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(nprot);
    return out;
}

/*
 * Annealed importance sampling.  theta0: d x N prior draws (one per run).
 * spec: temperatures (0 = b_0 < ... < b_K = 1), n_moves, scale (> 0: the
 * proposal is scale times the Cholesky factor of the runs' covariance,
 * recomputed at every stage), chol (d x d fixed factor, used when scale <= 0).
 */
SEXP ffi_ais_run(SEXP targets, SEXP io, SEXP theta0, SEXP spec)
{
    int nprot = 0;
    if (TYPEOF(theta0) != REALSXP || !Rf_isMatrix(theta0)) MCX_INTERNAL("theta0");
    int d = Rf_nrows(theta0), N = Rf_ncols(theta0);
    SEXP temps_ = mcx_list_elt(spec, "temperatures");
    if (TYPEOF(temps_) != REALSXP || XLENGTH(temps_) < 2) MCX_INTERNAL("temperatures");
    int K = (int) XLENGTH(temps_) - 1;
    const double *temps = REAL(temps_);
    int n_moves = mcx_list_count(spec, "n_moves");
    double scale = mcx_list_num(spec, "scale");
    const double *chol = mcx_list_real(spec, "chol", (R_xlen_t) d * d);

    mcx_tgt lik, prior;
    nprot += open_pair(targets, d, io, &lik, &prior);
    SEXP theta = PROTECT(Rf_duplicate(theta0)); nprot++;
    SEXP logw = PROTECT(Rf_allocVector(REALSXP, N)); nprot++;
    SEXP ll = PROTECT(Rf_allocVector(REALSXP, N)); nprot++;
    SEXP lp = PROTECT(Rf_allocVector(REALSXP, N)); nprot++;
    SEXP acc = PROTECT(Rf_allocVector(REALSXP, K)); nprot++;
    double *th = REAL(theta);
    double *L = mcx_alloc((size_t) d * d, sizeof(double));
    /* d + N for the stage helpers, d * d more for mcx_particle_chol() */
    double *work = mcx_alloc((size_t) d + N + (size_t) d * d, sizeof(double));
    for (int i = 0; i < N; i++) REAL(logw)[i] = 0.0;

    GetRNGstate();
    eval_particles(&lik, &prior, th, d, N, REAL(ll), REAL(lp));
    if (scale <= 0.0) memcpy(L, chol, (size_t) d * d * sizeof(double));
    for (int k = 1; k <= K; k++) {
        lik.iter = prior.iter = k;
        if (scale > 0.0 && n_moves > 0) mcx_particle_chol(th, NULL, d, N, scale, L, work);
        double a = mcx_ais_stage(&lik, &prior, temps[k - 1], temps[k], L, n_moves,
                                 d, N, th, REAL(ll), REAL(lp), REAL(logw), work);
        REAL(acc)[k - 1] = n_moves > 0 ? a / ((double) N * n_moves) : 0.0;
        R_CheckUserInterrupt();
    }
    PutRNGstate();

    const char *nms[] = {"theta", "log_weights", "log_lik", "log_prior", "accept", NULL};
    const SEXP vals[] = {theta, logw, ll, lp, acc};
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(nprot);
    return out;
}

/*
 * Simulated annealing.  theta0: start (d); spec: temperatures (n), scale (d).
 * The iterations run in blocks with an interrupt check between blocks.
 */
#define ANNEAL_BLOCK 256

SEXP ffi_anneal_run(SEXP target, SEXP io, SEXP theta0, SEXP spec)
{
    int nprot = 0;
    if (TYPEOF(theta0) != REALSXP) MCX_INTERNAL("theta0");
    int d = (int) XLENGTH(theta0);
    SEXP temps_ = mcx_list_elt(spec, "temperatures");
    if (TYPEOF(temps_) != REALSXP) MCX_INTERNAL("temperatures");
    int n = (int) XLENGTH(temps_);
    const double *scale = mcx_list_real(spec, "scale", d);
    mcx_tgt h;
    nprot += mcx_target_open(target, d, io, MCX_CB_LOG_DENSITY, "log_density", &h);
    SEXP theta = PROTECT(Rf_duplicate(theta0)); nprot++;
    SEXP best = PROTECT(Rf_duplicate(theta0)); nprot++;
    SEXP path = PROTECT(Rf_allocMatrix(REALSXP, n, d)); nprot++;
    SEXP values = PROTECT(Rf_allocVector(REALSXP, n)); nprot++;
    double *work = mcx_alloc((size_t) d, sizeof(double));
    h.iter = 0;
    double value = mcx_tgt_logd(&h, REAL(theta));
    if (!isfinite(value)) mcx_error("`init` is outside the support of the target.");
    double best_value = value;
    GetRNGstate();
    double acc = 0.0;
    for (int k0 = 0; k0 < n; k0 += ANNEAL_BLOCK) {
        int k1 = n - k0 > ANNEAL_BLOCK ? k0 + ANNEAL_BLOCK : n;
        acc += mcx_anneal_run(&h, REAL(temps_), n, k0, k1, scale, REAL(theta),
                              &value, REAL(best), &best_value, REAL(path),
                              REAL(values), work);
        if (k1 < n) R_CheckUserInterrupt();
    }
    PutRNGstate();
    SEXP bv = PROTECT(Rf_ScalarReal(best_value)); nprot++;
    SEXP ac = PROTECT(Rf_ScalarReal(acc)); nprot++;
    const char *nms[] = {"par", "value", "path", "values", "accepted", NULL};
    const SEXP vals[] = {best, bv, path, values, ac};
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(nprot);
    return out;
}
