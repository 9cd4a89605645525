/*
 * ffi_testing.c -- test-only entry points (the production glue has none):
 * the RNG helpers (rng.c) and the linear algebra (linalg.c), compared by
 * the unit tests with exact distributions and with base R (through the
 * internal R helpers .rng_test() and .linalg_test(), R/testing.R); the
 * Escobar-West concentration update (test-mixture-prior.R); and a plugin
 * descriptor of ABI version 1 (test-dpx-api.R).
 */
#include <string.h>
#include <stdlib.h>
#include <math.h>
#include "mcmix_engine.h"
#include "mixture_dp.h"
#include "ffi.h"
#include "family_builtin.h"

/* d with d * d + extra == len, or -1. */
static int infer_dim(R_xlen_t len, int extra)
{
    R_xlen_t m = len - extra;
    if (m < 0) return -1;
    int d = (int) floor(sqrt((double) m) + 0.5);
    return ((R_xlen_t) d * d == m) ? d : -1;
}

/* d with d * d + d == len (a mean vector followed by a matrix), or -1. */
static int infer_dim_mean(R_xlen_t len)
{
    for (int d = 1; (R_xlen_t) d * d + d <= len; d++)
        if ((R_xlen_t) d * d + d == len) return d;
    return -1;
}

static const char *rng_kinds[] = {
    "cat_log", "dirichlet", "gamma", "beta", "mvnorm_chol", "mvnorm_prec_chol",
    "wishart", "invwishart", "tnorm_lower", "tnorm_upper", "perm", "log_gamma", NULL
};

static int lookup(const char *what, const char **kinds)
{
    for (int i = 0; kinds[i] != NULL; i++)
        if (strcmp(what, kinds[i]) == 0) return i;
    return -1;
}

/*
 * n draws of the helper named by `what`; `args` holds its parameters:
 *   cat_log: log-weights (k)            -> 1-based indices (n)
 *   dirichlet: alpha (k)                -> n x k
 *   gamma: shape, rate; beta: a, b; log_gamma: shape       -> n
 * (the multivariate ones always give a matrix, also when d = 1)
 *   mvnorm_chol / mvnorm_prec_chol: mu (d), L (d x d)      -> n x d
 *   wishart / invwishart: nu, L (d x d)                    -> n x d^2
 *   tnorm_lower: mu, sd, a; tnorm_upper: mu, sd, b         -> n
 *   perm: m                             -> n x m (1-based)
 */
SEXP ffi_test_rng(SEXP what, SEXP n_, SEXP args)
{
    if (!Rf_isString(what) || XLENGTH(what) != 1 || !Rf_isReal(args) ||
        !Rf_isInteger(n_) || XLENGTH(n_) != 1 || INTEGER(n_)[0] < 0)
        MCX_INTERNAL("bad argument types");
    int kind = lookup(CHAR(STRING_ELT(what, 0)), rng_kinds);
    if (kind < 0) mcx_error("unknown RNG test '%s'", CHAR(STRING_ELT(what, 0)));
    int n = INTEGER(n_)[0];
    R_xlen_t len = XLENGTH(args);
    const double *a = REAL(args);
    int ncol = 1, d = 0, k = 0;

    switch (kind) {
    case 0: case 1:
        k = (int) len;
        if (k < 1) MCX_INTERNAL("need at least one weight");
        ncol = kind == 0 ? 1 : k;
        break;
    case 2: case 3:
        if (len != 2) MCX_INTERNAL("need two parameters");
        break;
    case 4: case 5:
        d = infer_dim_mean(len);
        if (d < 1) MCX_INTERNAL("args must be mu (d) then L (d x d)");
        ncol = d;
        break;
    case 6: case 7:
        d = infer_dim(len, 1);
        if (d < 1) MCX_INTERNAL("args must be nu then L (d x d)");
        ncol = d * d;
        break;
    case 8: case 9:
        if (len != 3) MCX_INTERNAL("need three parameters");
        break;
    case 10:
        if (len != 1 || !(a[0] >= 1)) MCX_INTERNAL("need the permutation length");
        k = (int) a[0];
        ncol = k;
        break;
    case 11:
        if (len != 1) MCX_INTERNAL("need the shape");
        break;
    }

    /* helpers that fill buf with one multivariate draw give a matrix */
    int multi = kind == 1 || kind == 4 || kind == 5 || kind == 6 || kind == 7 || kind == 10;
    SEXP out = PROTECT(multi ? Rf_allocMatrix(REALSXP, n, ncol)
                             : Rf_allocVector(REALSXP, n));
    double *o = REAL(out);
    double *buf = (double *) mcx_alloc((size_t) (ncol > 0 ? ncol : 1) + (size_t) k, sizeof(double));
    double *work = (double *) mcx_alloc(2 * (size_t) d * (size_t) d + 1, sizeof(double));
    int *perm = (int *) mcx_alloc((size_t) k + 1, sizeof(int));

    GetRNGstate();
    for (int i = 0; i < n; i++) {
        switch (kind) {
        case 0:
            memcpy(buf, a, (size_t) k * sizeof(double));
            o[i] = mcx_rcat_log(buf, k) + 1;
            break;
        case 1:
            mcx_rdirichlet(a, k, buf);
            break;
        case 2: o[i] = mcx_rgamma(a[0], a[1]); break;
        case 3: o[i] = mcx_rbeta(a[0], a[1]); break;
        case 4: mcx_rmvnorm_chol(a, a + d, d, buf); break;
        case 5: mcx_rmvnorm_prec_chol(a, a + d, d, buf); break;
        case 6: mcx_rwishart_chol(a[0], a + 1, d, buf, work); break;
        case 7: mcx_rinvwishart_chol(a[0], a + 1, d, buf, work); break;
        case 8: o[i] = mcx_rtnorm_lower(a[0], a[1], a[2]); break;
        case 9: o[i] = mcx_rtnorm_upper(a[0], a[1], a[2]); break;
        case 10:
            mcx_rperm(perm, k);
            for (int j = 0; j < k; j++) buf[j] = perm[j] + 1;
            break;
        case 11: o[i] = mcx_rlog_gamma(a[0]); break;
        }
        if (multi)
            for (int j = 0; j < ncol; j++) o[i + (R_xlen_t) j * n] = buf[j];
    }
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

static const char *linalg_kinds[] = {
    "chol", "update", "downdate", "trsv", "trsv_t", "logdet", "quad",
    "inverse", "matmul", NULL
};

/*
 * One linear-algebra helper applied to a (a d x d matrix, usually a lower
 * Cholesky factor) and b (a vector of length d, or a second d x d matrix for
 * matmul).  chol and downdate return the matrix with an "info" attribute
 * (0, or the 1-based failing column).
 */
SEXP ffi_test_linalg(SEXP what, SEXP a_, SEXP b_)
{
    if (!Rf_isString(what) || XLENGTH(what) != 1 || !Rf_isReal(a_) || !Rf_isReal(b_))
        MCX_INTERNAL("bad argument types");
    int kind = lookup(CHAR(STRING_ELT(what, 0)), linalg_kinds);
    if (kind < 0) mcx_error("unknown linear algebra test '%s'", CHAR(STRING_ELT(what, 0)));
    int d = infer_dim(XLENGTH(a_), 0);
    if (d < 1) MCX_INTERNAL("`a` must be a square matrix");
    size_t dd = (size_t) d * (size_t) d;
    int needs_vec = kind == 1 || kind == 2 || kind == 3 || kind == 4 || kind == 6;
    if (needs_vec && XLENGTH(b_) != d) MCX_INTERNAL("`b` must have length d");
    if (kind == 8 && (size_t) XLENGTH(b_) != dd) MCX_INTERNAL("`b` must be d x d");

    int n_prot = 0;
    SEXP out;
    double *work = (double *) mcx_alloc((size_t) d, sizeof(double));
    double *x = (double *) mcx_alloc((size_t) d, sizeof(double));
    if (needs_vec) memcpy(x, REAL(b_), (size_t) d * sizeof(double));

    if (kind == 3 || kind == 4) {
        out = PROTECT(Rf_allocVector(REALSXP, d)); n_prot++;
        memcpy(REAL(out), x, (size_t) d * sizeof(double));
        if (kind == 3) mcx_trsv_lower(REAL(a_), REAL(out), d);
        else mcx_trsv_lower_t(REAL(a_), REAL(out), d);
    } else if (kind == 5 || kind == 6) {
        double v = kind == 5 ? mcx_chol_logdet(REAL(a_), d)
                             : mcx_chol_quad(REAL(a_), x, d, work);
        out = PROTECT(Rf_ScalarReal(v)); n_prot++;
    } else {
        out = PROTECT(Rf_allocMatrix(REALSXP, d, d)); n_prot++;
        double *o = REAL(out);
        int info = 0;
        switch (kind) {
        case 0:
            memcpy(o, REAL(a_), dd * sizeof(double));
            info = mcx_chol(o, d);
            break;
        case 1:
            memcpy(o, REAL(a_), dd * sizeof(double));
            mcx_chol_update(o, x, d);
            break;
        case 2:
            memcpy(o, REAL(a_), dd * sizeof(double));
            info = mcx_chol_downdate(o, x, d);
            break;
        case 7:
            mcx_chol_inverse(REAL(a_), d, o);
            break;
        case 8:
            mcx_matmul(REAL(a_), REAL(b_), d, o);
            break;
        }
        if (kind == 0 || kind == 2) {
            SEXP s_info = PROTECT(Rf_ScalarInteger(info)); n_prot++;
            Rf_setAttrib(out, Rf_install("info"), s_info);
        }
    }
    UNPROTECT(n_prot);
    return out;
}

/* `iters` Escobar-West updates applied to each alpha[j] (a test entry point):
 * prior = c(shape, rate). Returns the updated vector. */
SEXP ffi_dp_alpha_update(SEXP alpha, SEXP K_, SEXP n_, SEXP prior, SEXP iters_)
{
    int K = Rf_asInteger(K_), n = Rf_asInteger(n_), iters = Rf_asInteger(iters_);
    if (TYPEOF(alpha) != REALSXP || TYPEOF(prior) != REALSXP || XLENGTH(prior) != 2 ||
        K == NA_INTEGER || n == NA_INTEGER || iters == NA_INTEGER ||
        K < 1 || n < K || iters < 0)
        mcx_error("mcmix internal error: bad arguments to the alpha update");
    R_xlen_t m = XLENGTH(alpha);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, m));
    GetRNGstate();
    for (R_xlen_t j = 0; j < m; j++) {
        double a = REAL(alpha)[j];
        for (int t = 0; t < iters; t++)
            a = mcx_dp_alpha_update(a, K, n, REAL(prior)[0], REAL(prior)[1]);
        REAL(out)[j] = a;
    }
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* ---- test support: plugin descriptors of ABI versions 1 and 2 ----
 * The layout of mcx_family before ABI 2 (no param_update slot), filled with
 * the functions of the built-in poisson_gamma family and registered as
 * "poisson_gamma_abi1", and an ABI 2 descriptor "poisson_gamma_abi2" (the
 * full struct, param_update NULL).  Both count hyper_size and stats_size in
 * bytes, as ABI 1 and 2 did: the registry and the samplers must accept them
 * without reading past their end and must convert the sizes
 * (tests/testthat/test-dpx-api.R). */
typedef struct {
    int abi_version;
    const char *name;
    size_t (*hyper_size)(int);
    int (*hyper_init)(void *, int, const double *, int);
    size_t (*work_size)(const void *);
    size_t (*stats_size)(const void *);
    void (*stats_reset)(const void *, void *);
    void (*stats_add)(const void *, void *, const double *, double *);
    void (*stats_remove)(const void *, void *, const double *, double *);
    double (*log_predictive)(const void *, const void *, const double *, double *);
    double (*log_marginal)(const void *, const void *, double *);
    size_t (*param_size)(const void *);
    void (*param_draw)(const void *, const void *, double *, double *);
    double (*log_lik)(const void *, const double *, const double *, double *);
} mcx_family_v1;

static size_t bytes_hyper_size(int dim)
{
    return mcx_family_poisson_gamma.hyper_size(dim) * sizeof(double);
}
static size_t bytes_stats_size(const void *hyper)
{
    return mcx_family_poisson_gamma.stats_size(hyper) * sizeof(double);
}

static mcx_family_v1 *family_v1 = NULL;
static mcx_family *family_v2 = NULL;

SEXP ffi_dpx_register_abi1(void)
{
    if (family_v1 == NULL) {
        /* live for the session, like a plugin's static descriptors */
        family_v1 = (mcx_family_v1 *) malloc(sizeof *family_v1);
        family_v2 = (mcx_family *) malloc(sizeof *family_v2);
        if (family_v1 == NULL || family_v2 == NULL) mcx_error("out of memory");
    }
    const mcx_family *f = &mcx_family_poisson_gamma;
    mcx_family_v1 v = {
        1, "poisson_gamma_abi1", bytes_hyper_size, f->hyper_init, f->work_size,
        bytes_stats_size, f->stats_reset, f->stats_add, f->stats_remove,
        f->log_predictive, f->log_marginal, f->param_size, f->param_draw, f->log_lik
    };
    *family_v1 = v;
    mcx_register_family((const mcx_family *) (const void *) family_v1);
    *family_v2 = *f;
    family_v2->abi_version = 2;
    family_v2->name = "poisson_gamma_abi2";
    family_v2->hyper_size = bytes_hyper_size;
    family_v2->stats_size = bytes_stats_size;
    family_v2->param_update = NULL;
    mcx_register_family(family_v2);
    return R_NilValue;
}
