/*
 * rng.c -- random variates on R's generator only (see rng.h).
 *
 * Every draw goes through unif_rand(), norm_rand(), exp_rand(),
 * R_unif_index() or an Rmath r*() function, so set.seed() reproduces it.
 * The caller brackets the .Call with GetRNGstate()/PutRNGstate().
 * Matrices are column-major; "chol" is the lower Cholesky factor.
 */
#include <float.h>
#include <math.h>
#include <R_ext/Random.h>
#include <Rmath.h>
#include "mcmix_engine.h"

#define M(A, i, j) ((A)[(size_t) (i) + (size_t) (j) * (size_t) d])

/* Index drawn from non-negative weights w[0..k-1] summing to `total`.
 * The last index with positive weight absorbs rounding in the running sum. */
int mcx_rcat(const double *w, int k, double total)
{
    if (k <= 0 || !(total > 0.0) || !isfinite(total))
        MCX_INTERNAL("categorical weights must have a positive finite sum");
    double u = unif_rand() * total, cum = 0.0;
    int last = -1;
    for (int i = 0; i < k; i++) {
        if (w[i] > 0.0) {
            cum += w[i];
            last = i;
            if (u < cum) return i;
        }
    }
    if (last < 0) MCX_INTERNAL("categorical weights are all zero");
    return last;
}

/*
 * Categorical draw from unnormalised log-weights: the maximum is subtracted
 * before exponentiating, so weights like -1000 or 1e300 do not underflow or
 * overflow to a 0/0.  logw is overwritten by the weights exp(logw - max)
 * (not normalised).  The fast path makes one pass for the maximum, one for
 * the exponentials and their sum and one partial pass for the draw; a NaN
 * or an all -Inf / +Inf vector shows up as a sum that is not positive and
 * finite, and only then are the entries inspected for the message.
 */
int mcx_rcat_log_unnorm(double *logw, int k)
{
    if (k <= 0) MCX_INTERNAL("categorical draw over no categories");
    double mx = logw[0];
    for (int i = 1; i < k; i++)
        if (logw[i] > mx) mx = logw[i];
    double total = 0.0;
    if (isfinite(mx))
        for (int i = 0; i < k; i++) total += (logw[i] = exp(logw[i] - mx));  /* exp(-Inf) = 0 */
    if (!(total >= 1.0) || !isfinite(total)) {   /* the maximum alone gives 1 */
        for (int i = 0; i < k; i++)
            if (isnan(logw[i])) MCX_INTERNAL("NaN log-weight in categorical draw");
        MCX_INTERNAL(mx > 0 ? "infinite log-weight in categorical draw"
                            : "all log-weights are -Inf in categorical draw");
    }
    double u = unif_rand() * total, cum = 0.0;
    int last = -1;
    for (int i = 0; i < k; i++) {
        if (logw[i] > 0.0) {
            cum += logw[i];
            last = i;
            if (u < cum) return i;
        }
    }
    return last;   /* rounding in the running sum: the last positive weight */
}

int mcx_rcat_log(double *logw, int k)
{
    int j = mcx_rcat_log_unnorm(logw, k);
    double total = 0.0;
    for (int i = 0; i < k; i++) total += logw[i];
    for (int i = 0; i < k; i++) logw[i] /= total;
    return j;
}

/* Gamma(shape, rate); Rmath's rgamma takes a scale. */
double mcx_rgamma(double shape, double rate)
{
    return rgamma(shape, 1.0 / rate);
}

double mcx_rbeta(double a, double b)
{
    return rbeta(a, b);
}

/*
 * log G with G ~ Gamma(shape, 1).  For shape < 1 a Gamma(shape) draw
 * underflows to 0 with positive probability (shape = 1e-3 gives values far
 * below 1e-308), so use G = G1 U^(1/shape) with G1 ~ Gamma(shape + 1) and
 * U ~ Unif(0, 1) independent (e.g. Marsaglia and Tsang 2000, sec. 6):
 * log G = log G1 + log(U) / shape, which never underflows.
 */
double mcx_rlog_gamma(double shape)
{
    if (shape >= 1.0) return log(rgamma(shape, 1.0));
    double g1 = rgamma(shape + 1.0, 1.0);
    double u = unif_rand();                 /* in (0, 1) */
    return log(g1) + log(u) / shape;
}

/*
 * A concentration parameter from Gamma(shape, rate). With a small shape (the
 * vague Gamma(0.001, 0.001) prior) a plain Gamma draw underflows to 0 with
 * probability near 1/2, and 0 is not a valid concentration: draw log G
 * (never underflows) and keep the value >= DBL_MIN (values moved there are
 * numerically zero anyway).
 */
double mcx_rgamma_conc(double shape, double rate)
{
    double lg = mcx_rlog_gamma(shape) - log(rate);
    return lg > log(DBL_MIN) ? exp(lg) : DBL_MIN;
}

/*
 * Dirichlet(alpha) as normalised Gamma draws, formed in logs (shifted by the
 * maximum) so tiny alpha gives a point near a vertex instead of 0/0.
 * alpha[i] == 0 gives p[i] = 0; at least one alpha must be positive.
 */
void mcx_rdirichlet(const double *alpha, int k, double *p)
{
    double mx = R_NegInf;
    for (int i = 0; i < k; i++) {
        if (alpha[i] > 0.0) p[i] = mcx_rlog_gamma(alpha[i]);
        else if (alpha[i] == 0.0) p[i] = R_NegInf;
        else MCX_INTERNAL("negative or NaN Dirichlet parameter");
        if (p[i] > mx) mx = p[i];
    }
    if (!isfinite(mx)) MCX_INTERNAL("Dirichlet parameters are all zero");
    double total = 0.0;
    for (int i = 0; i < k; i++) {
        p[i] = exp(p[i] - mx);
        total += p[i];
    }
    for (int i = 0; i < k; i++) p[i] /= total;
}

/*
 * z <- L z in place for lower-triangular L.  Columns are taken from the
 * last: when column j is used, z[j] still holds its original value.
 */
static void lower_times_inplace(const double *L, double *z, int d)
{
    for (int j = d - 1; j >= 0; j--) {
        double zj = z[j];
        z[j] = M(L, j, j) * zj;
        for (int i = j + 1; i < d; i++) z[i] += M(L, i, j) * zj;
    }
}

void mcx_rmvnorm_chol(const double *mu, const double *L, int d, double *out)
{
    for (int i = 0; i < d; i++) out[i] = norm_rand();
    lower_times_inplace(L, out, d);
    if (mu != NULL) for (int i = 0; i < d; i++) out[i] += mu[i];
}

/* Precision Q = L L': x = L^{-T} z has covariance L^{-T} L^{-1} = Q^{-1}. */
void mcx_rmvnorm_prec_chol(const double *mu, const double *L, int d, double *out)
{
    for (int i = 0; i < d; i++) out[i] = norm_rand();
    mcx_trsv_lower_t(L, out, d);
    if (mu != NULL) for (int i = 0; i < d; i++) out[i] += mu[i];
}

/*
 * Bartlett factor: A lower triangular with A_ii^2 ~ chi^2(nu - i)
 * (i = 0..d-1) and A_ij ~ N(0, 1) below the diagonal, so that
 * A A' ~ Wishart(nu, I_d) (Bartlett 1933; e.g. Smith and Hocking 1972).
 * Draw order: column by column, diagonal first.
 */
static void bartlett(double nu, int d, double *A)
{
    if (!(nu > d - 1)) MCX_INTERNAL("Wishart degrees of freedom must exceed d - 1");
    for (int j = 0; j < d; j++) {
        for (int i = 0; i < j; i++) M(A, i, j) = 0.0;
        M(A, j, j) = sqrt(rchisq(nu - j));
        for (int i = j + 1; i < d; i++) M(A, i, j) = norm_rand();
    }
}

/* W = (L A)(L A)' ~ Wishart(nu, L L'), E[W] = nu L L'. */
void mcx_rwishart_chol(double nu, const double *L, int d, double *W, double *work)
{
    double *A = work;
    bartlett(nu, d, A);
    /* B = L A is lower triangular; it overwrites A column by column:
     * B[i, j] = sum_{k = j..i} L[i, k] A[k, j], rows taken from the bottom. */
    for (int j = 0; j < d; j++)
        for (int i = d - 1; i >= j; i--) {
            double s = 0.0;
            for (int k = j; k <= i; k++) s += M(L, i, k) * M(A, k, j);
            M(A, i, j) = s;
        }
    /* W = B B' */
    for (int j = 0; j < d; j++)
        for (int i = j; i < d; i++) {
            double s = 0.0;
            int kmax = j;                      /* B[j, k] = 0 for k > j */
            for (int k = 0; k <= kmax; k++) s += M(A, i, k) * M(A, j, k);
            M(W, i, j) = s;
            M(W, j, i) = s;
        }
}

/*
 * Sigma ~ Inverse-Wishart(nu, Psi), Psi = L L': Sigma^{-1} ~ Wishart(nu,
 * Psi^{-1}) and Psi^{-1} = L^{-T} L^{-1}, so with the Bartlett factor A,
 * Sigma = (L^{-T} A A' L^{-1})^{-1} = L A^{-T} A^{-1} L' = X' X with
 * X = A^{-1} L' (forward substitution with A on each column of L').
 * E[Sigma] = Psi / (nu - d - 1).
 */
void mcx_rinvwishart_chol(double nu, const double *L, int d, double *Sigma, double *work)
{
    double *A = work, *X = work + (size_t) d * (size_t) d;
    bartlett(nu, d, A);
    for (int j = 0; j < d; j++) {
        double *x = X + (size_t) j * (size_t) d;
        for (int i = 0; i < d; i++) x[i] = M(L, j, i);   /* column j of L' */
        mcx_trsv_lower(A, x, d);
    }
    for (int j = 0; j < d; j++)
        for (int i = j; i < d; i++) {
            double s = 0.0;
            for (int k = 0; k < d; k++) s += M(X, k, i) * M(X, k, j);
            M(Sigma, i, j) = s;
            M(Sigma, j, i) = s;
        }
}

/*
 * Standard normal truncated to (alpha, Inf).
 * - alpha < 0.45: plain rejection from N(0, 1); acceptance >= 1 - Phi(0.45)
 *   = 0.33.
 * - otherwise Robert (1995, Statistics and Computing 5, 121-125, Prop. 2.3):
 *   propose z = alpha + E / lambda, E ~ Exp(1), with the optimal rate
 *   lambda = (alpha + sqrt(alpha^2 + 4)) / 2, and accept with probability
 *   exp(-(z - lambda)^2 / 2).  Exact at any depth (acceptance -> 1 as
 *   alpha grows), no use of the normal CDF.
 */
static double rtnorm_std_lower(double alpha)
{
    if (isnan(alpha)) MCX_INTERNAL("NaN truncation point");
    if (alpha == R_PosInf) MCX_INTERNAL("truncation to an empty interval");
    if (alpha < 0.45) {
        for (;;) {
            double z = norm_rand();
            if (z > alpha) return z;
        }
    }
    double lambda = 0.5 * (alpha + sqrt(alpha * alpha + 4.0));
    for (;;) {
        double z = alpha + exp_rand() / lambda;
        double t = z - lambda;
        if (unif_rand() <= exp(-0.5 * t * t)) return z;
    }
}

double mcx_rtnorm_lower(double mu, double sd, double a)
{
    if (!(sd > 0.0) || !isfinite(sd) || !isfinite(mu))
        MCX_INTERNAL("truncated normal needs a finite mean and a positive sd");
    return mu + sd * rtnorm_std_lower((a - mu) / sd);
}

/* X < b  <=>  -X > -b. */
double mcx_rtnorm_upper(double mu, double sd, double b)
{
    return -mcx_rtnorm_lower(-mu, sd, -b);
}

/* Fisher-Yates with R_unif_index (uniform on 0..n-1 under every sample.kind). */
void mcx_rperm(int *perm, int n)
{
    for (int i = 0; i < n; i++) perm[i] = i;
    mcx_rshuffle(perm, n);
}

void mcx_rshuffle(int *perm, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int) R_unif_index((double) (i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}
