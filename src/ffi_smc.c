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
#include "ffi_target.h"
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

/* Open a population on a copy of the prior draws x (d x N) and evaluate it. */
static SEXP pop_open(mcx_pop *p, mcx_tgt *lik, mcx_tgt *prior, SEXP x, int track_eve)
{
    if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x)) MCX_INTERNAL("prior draws");
    SEXP theta = PROTECT(Rf_duplicate(x));
    mcx_pop_init(p, Rf_nrows(x), Rf_ncols(x), REAL(theta), track_eve);
    eval_particles(lik, prior, p->th, p->d, p->N, p->ll, p->lp);
    UNPROTECT(1);
    return theta;
}

/*
 * Tempered SMC.  theta0: d x N prior draws of the estimating population;
 * spec: pilot (d x N_pilot prior draws of the tuning population), schedule
 * (increasing from 0 to 1, or length 0 for the adaptive schedule), cess,
 * resample_threshold, n_moves, scale, max_stages.  The pilot chooses the
 * temperatures, the resampling times and the proposal covariance of every
 * stage (see sampler_smc.c); the estimating population follows them with
 * multinomial resampling and Eve indices for the variance estimate.
 */
SEXP ffi_smc_run(SEXP targets, SEXP io, SEXP theta0, SEXP spec)
{
    int nprot = 0;
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
    mcx_pop P, M;
    if (TYPEOF(theta0) != REALSXP || !Rf_isMatrix(theta0)) MCX_INTERNAL("theta0");
    int d = Rf_nrows(theta0), N = Rf_ncols(theta0);
    nprot += open_pair(targets, d, io, &lik, &prior);
    GetRNGstate();
    SEXP theta = PROTECT(pop_open(&M, &lik, &prior, theta0, 1)); nprot++;
    SEXP pilot = PROTECT(pop_open(&P, &lik, &prior, mcx_list_elt(spec, "pilot"), 0)); nprot++;
    if (P.d != d) MCX_INTERNAL("pilot dimension");
    int Nw = N > P.N ? N : P.N;
    /* 2 Nw for resampling and the stage helpers, d * d more for mcx_particle_chol() */
    double *work = mcx_alloc((size_t) d + 2 * (size_t) Nw + (size_t) d * d, sizeof(double));
    double *L = mcx_alloc((size_t) d * d, sizeof(double));
    double *betas = mcx_alloc((size_t) max_stages + 1, sizeof(double));
    double *ess = mcx_alloc((size_t) max_stages, sizeof(double));
    double *acc = mcx_alloc((size_t) max_stages, sizeof(double));
    double *logz_inc = mcx_alloc((size_t) max_stages, sizeof(double));
    int *resampled = mcx_alloc((size_t) max_stages, sizeof(int));

    double beta = 0.0, logz = 0.0, logz_pilot = 0.0;
    betas[0] = 0.0;
    int t = 0, n_res = 0;
    while (beta < 1.0) {
        if (t >= max_stages)
            mcx_error("the adaptive schedule needed more than %d stages; raise "
                      "`max_stages` or lower `cess`.", max_stages);
        double next = n_fixed > 0 ? sched[t + 1]
                                  : beta + mcx_smc_next_step(P.logW, P.ll, P.N, beta, cess, work);
        if (next > 1.0 || 1.0 - next < 1e-12) next = 1.0;
        lik.iter = prior.iter = t + 1;
        double inc_p = mcx_smc_reweight(P.logW, P.ll, P.N, next - beta);
        double inc = mcx_smc_reweight(M.logW, M.ll, N, next - beta);
        if (!isfinite(inc) || !isfinite(inc_p))
            mcx_error("every particle has zero weight at stage %d (temperature "
                      "%g): the likelihood is -Inf at all of them.", t + 1, next);
        logz += inc;
        logz_pilot += inc_p;
        logz_inc[t] = inc;
        ess[t] = mcx_ess_log(M.logW, N);
        resampled[t] = mcx_ess_log(P.logW, P.N) < thr * P.N;
        if (resampled[t]) {
            mcx_pop_resample(&P, 0, work);
            mcx_pop_resample(&M, 1, work);
            n_res++;
        }
        beta = next;
        betas[t + 1] = beta;
        double a = 0.0;
        if (n_moves > 0) {
            mcx_particle_chol(P.th, P.logW, d, P.N, scale, L, work);
            mcx_pop_move(&lik, &prior, beta, L, n_moves, &P, work);
            a = mcx_pop_move(&lik, &prior, beta, L, n_moves, &M, work) /
                ((double) N * n_moves);
        }
        acc[t] = a;
        t++;
        R_CheckUserInterrupt();
    }
    PutRNGstate();
    int n_eves = 0;
    double relvar = mcx_smc_relvar(M.logW, M.eve, N, n_res, work, &n_eves);

    SEXP ires = PROTECT(Rf_allocVector(INTSXP, t)); nprot++;
    if (t) memcpy(INTEGER(ires), resampled, (size_t) t * sizeof(int));
    const char *nms[] = {"theta", "log_weights", "log_lik", "log_prior",
                         "log_evidence", "schedule", "ess", "accept",
                         "log_evidence_increments", "resampled", "relvar",
                         "n_eves", "pilot_log_evidence", NULL};
    SEXP vals[13];
    vals[0] = theta;
    vals[1] = PROTECT(real_copy(M.logW, N)); nprot++;
    vals[2] = PROTECT(real_copy(M.ll, N)); nprot++;
    vals[3] = PROTECT(real_copy(M.lp, N)); nprot++;
    vals[4] = PROTECT(Rf_ScalarReal(logz)); nprot++;
    vals[5] = PROTECT(real_copy(betas, t + 1)); nprot++;
    vals[6] = PROTECT(real_copy(ess, t)); nprot++;
    vals[7] = PROTECT(real_copy(acc, t)); nprot++;
    vals[8] = PROTECT(real_copy(logz_inc, t)); nprot++;
    vals[9] = ires;
    vals[10] = PROTECT(Rf_ScalarReal(relvar)); nprot++;
    vals[11] = PROTECT(Rf_ScalarInteger(n_eves)); nprot++;
    vals[12] = PROTECT(Rf_ScalarReal(logz_pilot)); nprot++;
    (void) pilot;
    SEXP out = mcx_named_list(nms, vals);
    UNPROTECT(nprot);
    return out;
}

/*
 * Annealed importance sampling.  theta0: d x N prior draws (one per run).
 * spec: temperatures (0 = b_0 < ... < b_K = 1), n_moves, scale (> 0: the
 * proposal at each stage is scale times the Cholesky factor of the
 * covariance of the pilot runs spec$pilot, a separate set of prior draws
 * annealed alongside and discarded, so the estimating runs stay
 * independent), chol (d x d fixed factor, used when scale <= 0).
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
    mcx_pop M, P;
    nprot += open_pair(targets, d, io, &lik, &prior);
    SEXP acc = PROTECT(Rf_allocVector(REALSXP, K)); nprot++;
    double *logw = mcx_alloc((size_t) N, sizeof(double));
    double *L = mcx_alloc((size_t) d * d, sizeof(double));
    for (int i = 0; i < N; i++) logw[i] = 0.0;

    GetRNGstate();
    SEXP theta = PROTECT(pop_open(&M, &lik, &prior, theta0, 0)); nprot++;
    int adapt = scale > 0.0 && n_moves > 0;
    if (adapt) {
        PROTECT(pop_open(&P, &lik, &prior, mcx_list_elt(spec, "pilot"), 0)); nprot++;
        if (P.d != d) MCX_INTERNAL("pilot dimension");
    }
    int Nw = adapt && P.N > N ? P.N : N;
    /* d + Nw for the stage helpers, d * d more for mcx_particle_chol() */
    double *work = mcx_alloc((size_t) d + Nw + (size_t) d * d, sizeof(double));
    if (!adapt) memcpy(L, chol, (size_t) d * d * sizeof(double));
    for (int k = 1; k <= K; k++) {
        lik.iter = prior.iter = k;
        if (adapt) {
            mcx_particle_chol(P.th, NULL, d, P.N, scale, L, work);
            mcx_ais_stage(&lik, &prior, temps[k - 1], temps[k], L, n_moves, d, P.N,
                          P.th, P.ll, P.lp, P.logW, work);
        }
        double a = mcx_ais_stage(&lik, &prior, temps[k - 1], temps[k], L, n_moves,
                                 d, N, M.th, M.ll, M.lp, logw, work);
        REAL(acc)[k - 1] = n_moves > 0 ? a / ((double) N * n_moves) : 0.0;
        R_CheckUserInterrupt();
    }
    PutRNGstate();

    SEXP lw = PROTECT(real_copy(logw, N)); nprot++;
    SEXP ll = PROTECT(real_copy(M.ll, N)); nprot++;
    SEXP lp = PROTECT(real_copy(M.lp, N)); nprot++;
    const char *nms[] = {"theta", "log_weights", "log_lik", "log_prior", "accept", NULL};
    const SEXP vals[] = {theta, lw, ll, lp, acc};
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
