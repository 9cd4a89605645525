/*
 * init.c -- the "exponential_gamma" component family, added to mcmix from
 * outside through its public plugin interface (mcmix.h).
 *
 *   x | lambda ~ Exponential(lambda)   (density lambda exp(-lambda x), x > 0)
 *   lambda     ~ Gamma(a, b)            (shape a, rate b)
 *
 * With n observations summing to s, the posterior is Gamma(a + n, b + s),
 *   log p(x_1..n) = a log b - lgamma(a) + lgamma(a + n) - (a + n) log(b + s),
 * and the posterior predictive is the Lomax density
 *   p(x | data) = a_n b_n^a_n / (b_n + x)^(a_n + 1),  a_n = a + n, b_n = b + s.
 *
 * The descriptor is registered in R_init_mcmixexpgamma; mcmix keeps a pointer
 * to it, so this shared library must stay loaded for the session (there is
 * no .onUnload that unloads it).
 */
#include <math.h>
#include <R.h>
#include <Rinternals.h>
#include <Rmath.h>
#include <R_ext/Rdynload.h>
#include <mcmix.h>

typedef struct { double a, b; } eg_hyper;
enum { EG_N, EG_SUM, EG_NSTATS };

static size_t eg_hyper_size(int dim) { (void) dim; return MCX_DOUBLES(sizeof(eg_hyper)); }

static int eg_hyper_init(void *hyper, int dim, const double *values, int n_values)
{
    eg_hyper *h = (eg_hyper *) hyper;
    if (dim != 1 || n_values != 2 || !(values[0] > 0) || !(values[1] > 0)) return 1;
    h->a = values[0];
    h->b = values[1];
    return 0;
}

static size_t eg_work_size(const void *hyper) { (void) hyper; return 0; }
static size_t eg_stats_size(const void *hyper) { (void) hyper; return EG_NSTATS; }

static void eg_stats_reset(const void *hyper, void *stats)
{
    double *s = (double *) stats;
    (void) hyper;
    s[EG_N] = 0.0;
    s[EG_SUM] = 0.0;
}

static void eg_stats_add(const void *hyper, void *stats, const double *x, double *work)
{
    double *s = (double *) stats;
    (void) hyper; (void) work;
    s[EG_N] += 1.0;
    s[EG_SUM] += x[0];
}

static void eg_stats_remove(const void *hyper, void *stats, const double *x, double *work)
{
    double *s = (double *) stats;
    (void) hyper; (void) work;
    s[EG_N] -= 1.0;
    s[EG_SUM] -= x[0];
    if (s[EG_N] <= 0.0) { s[EG_N] = 0.0; s[EG_SUM] = 0.0; }   /* exact empty cluster */
}

static double eg_log_predictive(const void *hyper, const void *stats, const double *x, double *work)
{
    const eg_hyper *h = (const eg_hyper *) hyper;
    const double *s = (const double *) stats;
    (void) work;
    if (!(x[0] > 0.0)) return R_NegInf;
    double an = h->a + s[EG_N], bn = h->b + s[EG_SUM];
    return log(an) + an * log(bn) - (an + 1.0) * log(bn + x[0]);
}

static double eg_log_marginal(const void *hyper, const void *stats, double *work)
{
    const eg_hyper *h = (const eg_hyper *) hyper;
    const double *s = (const double *) stats;
    (void) work;
    if (s[EG_N] <= 0.0) return 0.0;
    double an = h->a + s[EG_N];
    return h->a * log(h->b) - lgammafn(h->a) + lgammafn(an) - an * log(h->b + s[EG_SUM]);
}

static size_t eg_param_size(const void *hyper) { (void) hyper; return 1; }

static void eg_param_draw(const void *hyper, const void *stats, double *theta, double *work)
{
    const eg_hyper *h = (const eg_hyper *) hyper;
    const double *s = (const double *) stats;
    (void) work;
    theta[0] = rgamma(h->a + s[EG_N], 1.0 / (h->b + s[EG_SUM]));   /* scale = 1 / rate */
}

static double eg_log_lik(const void *hyper, const double *theta, const double *x, double *work)
{
    (void) hyper; (void) work;
    if (!(x[0] > 0.0)) return R_NegInf;
    return log(theta[0]) - theta[0] * x[0];
}

static const mcx_family exponential_gamma = {
    .abi_version = MCX_ABI_VERSION, .name = "exponential_gamma",
    .hyper_size = eg_hyper_size, .hyper_init = eg_hyper_init, .work_size = eg_work_size,
    .stats_size = eg_stats_size, .stats_reset = eg_stats_reset,
    .stats_add = eg_stats_add, .stats_remove = eg_stats_remove,
    .log_predictive = eg_log_predictive, .log_marginal = eg_log_marginal,
    .param_size = eg_param_size, .param_draw = eg_param_draw, .log_lik = eg_log_lik
    /* .param_update (ABI 2) left NULL: a conjugate family needs none */
};

/* The same family claiming a newer ABI than any mcmix knows: mcmix must
 * refuse it (tests the version check). */
static const mcx_family exponential_gamma_future = {
    .abi_version = MCX_ABI_VERSION + 1000, .name = "exponential_gamma_future",
    .hyper_size = eg_hyper_size, .hyper_init = eg_hyper_init, .work_size = eg_work_size,
    .stats_size = eg_stats_size, .stats_reset = eg_stats_reset,
    .stats_add = eg_stats_add, .stats_remove = eg_stats_remove,
    .log_predictive = eg_log_predictive, .log_marginal = eg_log_marginal,
    .param_size = eg_param_size, .param_draw = eg_param_draw, .log_lik = eg_log_lik
    /* .param_update (ABI 2) left NULL: a conjugate family needs none */
};

static SEXP expgamma_register_bad_abi(void)
{
    mcmix_register_family(&exponential_gamma_future);   /* raises an R error */
    return R_NilValue;
}

static const R_CallMethodDef call_methods[] = {
    {"expgamma_register_bad_abi", (DL_FUNC) &expgamma_register_bad_abi, 0},
    {NULL, NULL, 0}
};

void R_init_mcmixexpgamma(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
    mcmix_register_family(&exponential_gamma);
}
