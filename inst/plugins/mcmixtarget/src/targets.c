/* Compiled targets handed to mcmix through mcmix_target_xptr() (mcmix.h).
 * The parameterised targets keep their descriptor and parameters in a raw
 * vector that the external pointer keeps alive (`prot`). */
#include <string.h>
#include <math.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <mcmix.h>

typedef struct gauss2 {
    mcx_target desc;
    double mu[2], P[4];
} gauss2;

static double gauss2_logd(const double *x, void *ctx)
{
    const gauss2 *g = (const gauss2 *) ctx;
    double a = x[0] - g->mu[0], b = x[1] - g->mu[1];
    return -0.5 * (g->P[0] * a * a + 2.0 * g->P[1] * a * b + g->P[3] * b * b);
}

static void gauss2_grad(const double *x, double *grad, void *ctx)
{
    const gauss2 *g = (const gauss2 *) ctx;
    double a = x[0] - g->mu[0], b = x[1] - g->mu[1];
    grad[0] = -(g->P[0] * a + g->P[2] * b);
    grad[1] = -(g->P[1] * a + g->P[3] * b);
}

static SEXP gauss2_xptr(SEXP mu, SEXP P)
{
    SEXP raw = PROTECT(Rf_allocVector(RAWSXP, sizeof(gauss2)));
    gauss2 *g = (gauss2 *) RAW(raw);
    memset(g, 0, sizeof *g);   /* slots this code does not set are NULL */
    g->desc.abi_version = MCX_ABI_VERSION;
    g->desc.dim = 2;
    g->desc.log_density = gauss2_logd;
    g->desc.gradient = gauss2_grad;
    g->desc.ctx = g;
    memcpy(g->mu, REAL(mu), 2 * sizeof(double));
    memcpy(g->P, REAL(P), 4 * sizeof(double));
    SEXP out = mcmix_target_xptr(&g->desc, raw);
    UNPROTECT(1);
    return out;
}

typedef struct banana {
    mcx_target desc;
    double a, b;
} banana;

static double banana_logd(const double *x, void *ctx)
{
    const banana *p = (const banana *) ctx;
    double u = x[0] / p->a, v = x[1] - p->b * x[0] * x[0] + p->a * p->a * p->b;
    return -0.5 * (u * u + v * v);
}

static SEXP banana_xptr(SEXP a, SEXP b)
{
    SEXP raw = PROTECT(Rf_allocVector(RAWSXP, sizeof(banana)));
    banana *p = (banana *) RAW(raw);
    memset(p, 0, sizeof *p);   /* slots this code does not set are NULL */
    p->desc.abi_version = MCX_ABI_VERSION;
    p->desc.dim = 2;
    p->desc.log_density = banana_logd;
    p->desc.gradient = NULL;
    p->desc.ctx = p;
    p->a = REAL(a)[0];
    p->b = REAL(b)[0];
    SEXP out = mcmix_target_xptr(&p->desc, raw);
    UNPROTECT(1);
    return out;
}

/* Normal data y_1..y_n with unknown mean mu and log standard deviation
 * eta = log sigma, flat priors: log p = -n eta - sum (y_i - mu)^2 / (2 e^{2 eta}).
 * Loops over the data like the R version does (no sufficient statistics). */
typedef struct normal_data {
    mcx_target desc;
    int n;
    double y[];   /* n values */
} normal_data;

static double normal_data_logd(const double *x, void *ctx)
{
    const normal_data *p = (const normal_data *) ctx;
    double mu = x[0], eta = x[1], ss = 0.0;
    for (int i = 0; i < p->n; i++) {
        double r = p->y[i] - mu;
        ss += r * r;
    }
    return -p->n * eta - 0.5 * ss * exp(-2.0 * eta);
}

static SEXP normal_data_xptr(SEXP y)
{
    int n = LENGTH(y);
    SEXP raw = PROTECT(Rf_allocVector(RAWSXP, sizeof(normal_data) + (size_t) n * sizeof(double)));
    normal_data *p = (normal_data *) RAW(raw);
    memset(p, 0, sizeof *p);   /* slots this code does not set are NULL */
    p->desc.abi_version = MCX_ABI_VERSION;
    p->desc.dim = 2;
    p->desc.log_density = normal_data_logd;
    p->desc.gradient = NULL;
    p->desc.ctx = p;
    p->n = n;
    memcpy(p->y, REAL(y), (size_t) n * sizeof(double));
    SEXP out = mcmix_target_xptr(&p->desc, raw);
    UNPROTECT(1);
    return out;
}

/* GARCH(1,1) log likelihood of returns y_1..y_n (flat prior on the region
 * omega > 0, alpha >= 0, beta >= 0, alpha + beta < 1):
 *   s2_1 = var(y),  s2_t = omega + alpha y_{t-1}^2 + beta s2_{t-1},
 *   log p = -1/2 sum_t (log s2_t + y_t^2 / s2_t).
 * The recursion cannot be vectorised in R: the case where a compiled target
 * pays off most. */
static double garch_logd(const double *x, void *ctx)
{
    const normal_data *p = (const normal_data *) ctx;
    double omega = x[0], alpha = x[1], beta = x[2];
    if (omega <= 0 || alpha < 0 || beta < 0 || alpha + beta >= 1) return -INFINITY;
    int n = p->n - 1;               /* y[n] holds var(y) */
    const double *y = p->y;
    double s2 = y[n], ll = 0.0;
    for (int t = 0; t < n; t++) {
        if (t > 0) s2 = omega + alpha * y[t - 1] * y[t - 1] + beta * s2;
        ll -= 0.5 * (log(s2) + y[t] * y[t] / s2);
    }
    return ll;
}

static SEXP garch_xptr(SEXP y, SEXP v0)
{
    int n = LENGTH(y);
    SEXP raw = PROTECT(Rf_allocVector(RAWSXP, sizeof(normal_data) + (size_t) (n + 1) * sizeof(double)));
    normal_data *p = (normal_data *) RAW(raw);
    memset(p, 0, sizeof *p);   /* slots this code does not set are NULL */
    p->desc.abi_version = MCX_ABI_VERSION;
    p->desc.dim = 3;
    p->desc.log_density = garch_logd;
    p->desc.gradient = NULL;
    p->desc.ctx = p;
    p->n = n + 1;
    memcpy(p->y, REAL(y), (size_t) n * sizeof(double));
    p->y[n] = REAL(v0)[0];
    SEXP out = mcmix_target_xptr(&p->desc, raw);
    UNPROTECT(1);
    return out;
}

/* Logistic regression: y_i ~ Bernoulli(plogis(x_i' beta)), X n x p
 * (column-major), prior beta ~ N(0, 10^2 I):
 *   log p = sum_i [y_i eta_i - log(1 + e^eta_i)] - |beta|^2 / 200,
 *   grad  = X' (y - plogis(eta)) - beta / 100.
 * With a gradient, either as two functions (each computes eta = X beta)
 * or, in addition, as the one-call slot log_density_gradient (ABI 5),
 * which computes eta once for both. */
typedef struct logistic {
    mcx_target desc;
    int n, p;
    double v[];   /* X (n * p), then y (n) */
} logistic;

static double logistic_logd(const double *b, void *ctx)
{
    const logistic *m = (const logistic *) ctx;
    const double *X = m->v, *y = m->v + (size_t) m->n * m->p;
    double ll = 0.0, pr = 0.0;
    for (int i = 0; i < m->n; i++) {
        double eta = 0.0;
        for (int j = 0; j < m->p; j++) eta += X[i + (size_t) j * m->n] * b[j];
        ll += y[i] * eta - (eta > 0 ? eta + log1p(exp(-eta)) : log1p(exp(eta)));
    }
    for (int j = 0; j < m->p; j++) pr += b[j] * b[j];
    return ll - pr / 200.0;
}

static double logistic_logd_grad(const double *b, double *grad, void *ctx)
{
    const logistic *m = (const logistic *) ctx;
    const double *X = m->v, *y = m->v + (size_t) m->n * m->p;
    double ll = 0.0, pr = 0.0;
    for (int j = 0; j < m->p; j++) {
        grad[j] = -b[j] / 100.0;
        pr += b[j] * b[j];
    }
    for (int i = 0; i < m->n; i++) {
        double eta = 0.0;
        for (int j = 0; j < m->p; j++) eta += X[i + (size_t) j * m->n] * b[j];
        ll += y[i] * eta - (eta > 0 ? eta + log1p(exp(-eta)) : log1p(exp(eta)));
        double r = y[i] - 1.0 / (1.0 + exp(-eta));
        for (int j = 0; j < m->p; j++) grad[j] += X[i + (size_t) j * m->n] * r;
    }
    return ll - pr / 200.0;
}

static void logistic_grad(const double *b, double *grad, void *ctx)
{
    (void) logistic_logd_grad(b, grad, ctx);
}

/* mode: 0 no gradient, 1 log_density and gradient, 2 also the one-call slot */
static SEXP logistic_xptr(SEXP X, SEXP y, SEXP mode)
{
    int md = Rf_asInteger(mode);
    int n = LENGTH(y), p = LENGTH(X) / n;
    SEXP raw = PROTECT(Rf_allocVector(RAWSXP, sizeof(logistic) +
                                      (size_t) n * (p + 1) * sizeof(double)));
    logistic *m = (logistic *) RAW(raw);
    memset(m, 0, sizeof *m);   /* slots this code does not set are NULL */
    m->desc.abi_version = MCX_ABI_VERSION;
    m->desc.dim = p;
    m->desc.log_density = logistic_logd;
    m->desc.gradient = md >= 1 ? logistic_grad : NULL;
    m->desc.log_density_gradient = md == 2 ? logistic_logd_grad : NULL;
    m->desc.ctx = m;
    m->n = n;
    m->p = p;
    memcpy(m->v, REAL(X), (size_t) n * p * sizeof(double));
    memcpy(m->v + (size_t) n * p, REAL(y), (size_t) n * sizeof(double));
    SEXP out = mcmix_target_xptr(&m->desc, raw);
    UNPROTECT(1);
    return out;
}

static double bad_logd(const double *x, void *ctx)
{
    (void) ctx;
    return x[0] > 1 ? NAN : -0.5 * (x[0] * x[0] + x[1] * x[1]);
}

static const mcx_target bad_desc = { MCX_ABI_VERSION, 2, bad_logd, NULL, NULL };

static SEXP bad_xptr(void)
{
    return mcmix_target_xptr(&bad_desc, R_NilValue);
}

static const R_CallMethodDef calls[] = {
    {"gauss2_xptr", (DL_FUNC) &gauss2_xptr, 2},
    {"banana_xptr", (DL_FUNC) &banana_xptr, 2},
    {"bad_xptr", (DL_FUNC) &bad_xptr, 0},
    {"normal_data_xptr", (DL_FUNC) &normal_data_xptr, 1},
    {"garch_xptr", (DL_FUNC) &garch_xptr, 2},
    {"logistic_xptr", (DL_FUNC) &logistic_xptr, 3},
    {NULL, NULL, 0}
};

void R_init_mcmixtarget(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, calls, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
}
