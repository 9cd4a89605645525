/*
 * ffi_family.c -- .Call glue for the family registry and a generic
 * evaluation entry point that exercises any registered family (built-in or
 * plugin) through its descriptor only.  Used by mcmix_families(), by the
 * family unit tests and by the plugin test.
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "mcmix_engine.h"
#include "mixture_state.h"
#include "ffi_list.h"
#include "ffi.h"
#include "stats_moments.h"

/* Families whose hyper block holds R objects (their `hyper` arrives as a
 * list, not as numbers): descriptor and builder, one row each. */
static const struct {
    const mcx_family *family;
    const void *(*hyper)(SEXP values, int dim, int *nprot);
} r_hyper_table[] = {
    {&mcx_family_r_family, ffi_family_r_hyper},
};

const mcx_family *ffi_family_open(SEXP spec, int dim, const void **hyper, int *nprot)
{
    const mcx_family *fam = mcx_get_family(mcx_list_str(spec, "family"));
    SEXP h = mcx_list_elt(spec, "hyper");
    if (TYPEOF(h) == REALSXP) {
        *hyper = mcx_family_hyper(fam, dim, REAL(h), (int) XLENGTH(h));
        return fam;
    }
    int n = (int) (sizeof r_hyper_table / sizeof r_hyper_table[0]);
    for (int i = 0; i < n; i++)
        if (r_hyper_table[i].family == fam && TYPEOF(h) == VECSXP) {
            *hyper = r_hyper_table[i].hyper(h, dim, nprot);
            return fam;
        }
    mcx_error("mcmix internal error: the hyperparameters of family '%s' must be a "
              "double vector", fam->name);
}

/* TRUE when the registered family `name` has a closed-form predictive and
 * marginal likelihood (conjugate), FALSE when it only has a parameter
 * update (plugin ABI 2, e.g. gaussian_nonconj). */
SEXP ffi_family_conjugate(SEXP name)
{
    if (!Rf_isString(name) || XLENGTH(name) != 1) MCX_INTERNAL("bad family name");
    return Rf_ScalarLogical(mcx_family_conjugate(mcx_get_family(CHAR(STRING_ELT(name, 0)))));
}

SEXP ffi_families(void)
{
    int n = mcx_n_families();
    SEXP out = PROTECT(Rf_allocVector(STRSXP, n));
    for (int i = 0; i < n; i++)
        SET_STRING_ELT(out, i, Rf_mkChar(mcx_family_at(i)->name));
    UNPROTECT(1);
    return out;
}

/* A family bound to its parsed hyperparameters plus scratch. */
typedef struct {
    const mcx_family *f;
    void *hyper;
    double *work;
    int dim;
} bound_family;

static void bind_family(bound_family *b, SEXP name, SEXP hyper, int dim)
{
    if (!Rf_isString(name) || XLENGTH(name) != 1 || !Rf_isReal(hyper))
        MCX_INTERNAL("`name` must be a string and `hyper` a double vector");
    b->f = mcx_get_family(CHAR(STRING_ELT(name, 0)));
    b->dim = dim;
    b->hyper = mcx_alloc(mcx_family_hyper_doubles(b->f, dim) + 1, sizeof(double));
    int rc = b->f->hyper_init(b->hyper, dim, REAL(hyper), (int) XLENGTH(hyper));
    if (rc != 0)
        mcx_error("mcmix internal error: family '%s' refused its hyperparameter "
                  "vector (length %d, dim %d, code %d)",
                  b->f->name, (int) XLENGTH(hyper), dim, rc);
    b->work = mcx_alloc(b->f->work_size(b->hyper) + 1, sizeof(double));
}

/* Row-major copy of an n x d column-major matrix. */
static double *rows_of(SEXP x, int *n, int *d)
{
    SEXP dims = Rf_getAttrib(x, R_DimSymbol);
    if (!Rf_isReal(x) || Rf_length(dims) != 2)
        MCX_INTERNAL("`x` must be a double matrix");
    *n = INTEGER(dims)[0];
    *d = INTEGER(dims)[1];
    const double *px = REAL(x);
    double *r = mcx_alloc((size_t) *n * (size_t) *d, sizeof(double));
    for (int i = 0; i < *n; i++)
        for (int j = 0; j < *d; j++)
            r[(size_t) i * *d + j] = px[i + (size_t) j * *n];
    return r;
}

static void *new_stats(const bound_family *b)
{
    void *s = mcx_alloc(mcx_family_stats_doubles(b->f, b->hyper) + 1, sizeof(double));
    b->f->stats_reset(b->hyper, s);
    return s;
}

static void add_rows(const bound_family *b, void *s, const double *rows, int n)
{
    for (int i = 0; i < n; i++)
        b->f->stats_add(b->hyper, s, rows + (size_t) i * b->dim, b->work);
}

/* Random add/remove operations on top of the stats of all rows, then undo
 * them; see ffi_family_eval. */
static SEXP add_remove(const bound_family *b, const double *rows, int n, int n_ops)
{
    const mcx_family *f = b->f;
    int d = b->dim, n_probe = n < 10 ? n : 10;
    void *s = new_stats(b);
    add_rows(b, s, rows, n);
    double lm0 = f->log_marginal(b->hyper, s, b->work);
    double *lp0 = mcx_alloc((size_t) n_probe, sizeof(double));
    for (int i = 0; i < n_probe; i++)
        lp0[i] = f->log_predictive(b->hyper, s, rows + (size_t) i * d, b->work);

    /* the cluster holds the multiset {row i with multiplicity count[i]} */
    int *count = mcx_alloc((size_t) n, sizeof(int));
    for (int i = 0; i < n; i++) count[i] = 1;
    double size = n, n_empty = 0, max_size = n;
    for (int op = 0; op < n_ops; op++) {
        if (size > 0 && unif_rand() < 0.5) {
            /* remove a uniformly chosen member of the multiset */
            double u = unif_rand() * size;
            int i = 0;
            double cum = count[0];
            while (cum <= u && i < n - 1) cum += count[++i];
            while (count[i] == 0) i = (i + 1) % n;
            f->stats_remove(b->hyper, s, rows + (size_t) i * d, b->work);
            count[i]--;
            size--;
            if (size == 0) n_empty++;
        } else {
            int i = (int) (unif_rand() * n);
            if (i >= n) i = n - 1;
            f->stats_add(b->hyper, s, rows + (size_t) i * d, b->work);
            count[i]++;
            size++;
            if (size > max_size) max_size = size;
        }
    }
    /* restore the start multiset */
    for (int i = 0; i < n; i++) {
        while (count[i] > 1) {
            f->stats_remove(b->hyper, s, rows + (size_t) i * d, b->work);
            count[i]--;
        }
        if (count[i] == 0) {
            f->stats_add(b->hyper, s, rows + (size_t) i * d, b->work);
            count[i]++;
        }
    }
    double dlm = fabs(f->log_marginal(b->hyper, s, b->work) - lm0), dlp = 0.0;
    for (int i = 0; i < n_probe; i++) {
        double e = fabs(f->log_predictive(b->hyper, s, rows + (size_t) i * d, b->work) - lp0[i]);
        if (e > dlp || ISNAN(e)) dlp = e;
    }
    SEXP out = PROTECT(Rf_allocVector(REALSXP, 4));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, 4));
    double vals[4] = { dlm, dlp, n_empty, max_size };
    const char *names[4] = { "log_marginal", "log_predictive", "n_empty", "max_size" };
    for (int k = 0; k < 4; k++) {
        REAL(out)[k] = vals[k];
        SET_STRING_ELT(nms, k, Rf_mkChar(names[k]));
    }
    Rf_setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(2);
    return out;
}

/* The "loo" operation of ffi_family_eval. */
static SEXP leave_one_out(const bound_family *b, const double *rows, int n)
{
    const mcx_family *f = b->f;
    mcx_predictive_loo_fn loo = mcx_family_predictive_loo(f);
    size_t ns = mcx_family_stats_doubles(f, b->hyper) + 1;
    void *s = new_stats(b), *t = new_stats(b);
    add_rows(b, s, rows, n);
    mcx_predictive_loo_lower_fn lower = mcx_family_predictive_loo_lower(f);
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, n, 3));
    double *po = REAL(out);
    for (int i = 0; i < n; i++) {
        const double *xi = rows + (size_t) i * b->dim;
        po[i] = loo != NULL ? loo(b->hyper, s, xi, b->work) : NA_REAL;
        memcpy(t, s, ns * sizeof(double));
        f->stats_remove(b->hyper, t, xi, b->work);
        po[i + n] = f->log_predictive(b->hyper, t, xi, b->work);
        po[i + 2 * (size_t) n] = lower != NULL ? lower(b->hyper, s, xi, b->work) : NA_REAL;
    }
    UNPROTECT(1);
    return out;
}

/* The "moments" operation of ffi_family_eval. */
static SEXP from_moments(const bound_family *b, const double *rows, int n, SEXP arg)
{
    const mcx_family *f = b->f;
    mcx_stats_moments_fn mom = mcx_family_stats_moments(f);
    if (mom == NULL) mcx_error("family '%s' has no statistics from raw moments", f->name);
    if (!Rf_isReal(arg) || XLENGTH(arg) != 1 || !(REAL(arg)[0] >= 1))
        MCX_INTERNAL("`arg` must be a block size");
    int d = b->dim, blk = (int) REAL(arg)[0];
    size_t ms = mcx_moments_size(d), len = mcx_family_stats_doubles(f, b->hyper);
    double *tot = mcx_alloc(ms, sizeof(double)), *part = mcx_alloc(ms, sizeof(double));
    double *one = new_stats(b), *sm = new_stats(b);
    add_rows(b, one, rows, n);
    mcx_moments_clear(tot, d);
    for (int lo = 0; lo < n; lo += blk) {
        mcx_moments_clear(part, d);
        for (int i = lo; i < n && i < lo + blk; i++)
            mcx_moments_add(part, rows + (size_t) i * d, 1, d);
        mcx_moments_finish(part, d);
        mcx_moments_pool(tot, part, d);
    }
    mom(b->hyper, sm, tot);
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, 2, (int) len + 2));
    double *po = REAL(out), *sets[2] = { one, sm };
    for (int r = 0; r < 2; r++) {
        po[r] = f->log_marginal(b->hyper, sets[r], b->work);
        po[r + 2] = n > 0 ? f->log_predictive(b->hyper, sets[r], rows, b->work) : 0.0;
        for (size_t j = 0; j < len; j++) po[r + 2 * (j + 2)] = sets[r][j];
    }
    UNPROTECT(1);
    return out;
}

/* The "log_lik_all" operation of ffi_family_eval. */
static SEXP log_lik_all(const bound_family *b, const double *rows, int n, SEXP arg)
{
    const mcx_family *f = b->f;
    mcx_log_lik_all_fn all = mcx_family_log_lik_all(f);
    if (all == NULL) mcx_error("family '%s' has no batched log-likelihood", f->name);
    size_t p = f->param_size(b->hyper);
    if (!Rf_isReal(arg) || XLENGTH(arg) % p != 0 || XLENGTH(arg) == 0)
        MCX_INTERNAL("`arg` must hold whole parameter vectors");
    int K = (int) (XLENGTH(arg) / p);
    const double *theta = REAL(arg);
    double *add = mcx_alloc((size_t) K, sizeof(double));
    double *lw = mcx_alloc((size_t) K, sizeof(double));
    for (int k = 0; k < K; k++) add[k] = 0.25 * k - 1.0;
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, n, 2 * K));
    double *po = REAL(out);
    for (int i = 0; i < n; i++) {
        const double *xi = rows + (size_t) i * b->dim;
        all(b->hyper, theta, p, K, xi, 1, add, lw, b->work);
        for (int k = 0; k < K; k++) {
            po[i + (size_t) k * n] = add[k] + f->log_lik(b->hyper, theta + (size_t) k * p, xi,
                                                         b->work);
            po[i + (size_t) (K + k) * n] = lw[k];
        }
    }
    UNPROTECT(1);
    return out;
}

/*
 * ffi_family_eval(name, hyper, x, op, arg): evaluate family `name` with
 * hyperparameter vector `hyper` on the data matrix `x` (n x dim, double).
 *   "log_marginal"   log p(all rows of x)                      -> scalar
 *   "log_predictive" log p(row | all rows of x) for each row of the
 *                    matrix `arg` (m x dim)                    -> length m
 *   "add_remove"     `arg` = number of random operations: starting from the
 *                    stats of x, add random rows of x or remove random
 *                    members (R's RNG), then restore the start multiset;
 *                    returns c(log_marginal, log_predictive, n_empty,
 *                    max_size): the absolute changes in the log marginal and
 *                    (max over the first 10 rows) the log predictive, how
 *                    often the cluster became empty and its largest size
 *   "param_draw"     `arg` draws from the posterior given x (the prior when
 *                    x has 0 rows)                     -> arg x param_size
 *   "log_lik"        log p(row | theta = arg) for each row    -> length n
 *   "combine"        `arg` = m: the stats of rows 1..m and of the other
 *                    rows combined (stats_combine), against all rows
 *                    added one by one; a 2-row matrix, each row
 *                    c(log_marginal, log_predictive of the first row,
 *                    the stats block)
 *   "info"           c(hyper_size, stats_size, work_size, param_size), all
 *                    in doubles (mcmix_abi.h, ABI 3)
 *   "loo"            for each row i, log p(row i | the other rows) two ways:
 *                    column 1 by the family's log_predictive_loo slot on the
 *                    stats of all rows (NA when the family has none),
 *                    column 2 by copying those stats, removing row i and
 *                    calling log_predictive; column 3 the family's cheap
 *                    lower bound on it (NA without one)      -> n x 3
 *   "moments"        `arg` = a block size: the statistics from raw moments
 *                    (family_registry.h: the rows' moments summed per block of
 *                    `arg` rows, blocks pooled in order) against all rows
 *                    added one by one; a 2-row matrix as for "combine"
 *                    (built-in families with the hook only)
 *   "log_lik_all"    `arg` = K parameter vectors (concatenated): add[k] +
 *                    log p(row | theta_k), add[k] = k / 4 - 1 (0-based k),
 *                    by the log_lik slot (columns 1..K) and by the batched
 *                    hook (columns K+1..2K; built-in families with it)
 *   "bound"          for each row of the matrix `arg` (m x dim), the
 *                    family's cheap upper bound on log p(row | all rows of
 *                    x) (the batched bound for one cluster of count weight
 *                    0) and log_predictive itself (built-in families with
 *                    a bound only, family_registry.h)                -> m x 2
 */
SEXP ffi_family_eval(SEXP name, SEXP hyper, SEXP x, SEXP op, SEXP arg)
{
    int n, d;
    if (!Rf_isString(op) || XLENGTH(op) != 1) MCX_INTERNAL("`op` must be a string");
    const char *what = CHAR(STRING_ELT(op, 0));
    double *rows = rows_of(x, &n, &d);
    bound_family b;
    bind_family(&b, name, hyper, d);
    const mcx_family *f = b.f;
    SEXP out = R_NilValue;
    if (!mcx_family_conjugate(f) && (strcmp(what, "log_marginal") == 0 ||
                                     strcmp(what, "log_predictive") == 0 ||
                                     strcmp(what, "add_remove") == 0 ||
                                     strcmp(what, "loo") == 0))
        mcx_error("family '%s' is not conjugate: it has no closed-form marginal "
                  "likelihood or predictive", f->name);

    if (strcmp(what, "info") == 0) {
        out = PROTECT(Rf_allocVector(REALSXP, 4));
        REAL(out)[0] = (double) mcx_family_hyper_doubles(f, d);
        REAL(out)[1] = (double) mcx_family_stats_doubles(f, b.hyper);
        REAL(out)[2] = (double) f->work_size(b.hyper);
        REAL(out)[3] = (double) f->param_size(b.hyper);
    } else if (strcmp(what, "log_marginal") == 0) {
        void *s = new_stats(&b);
        add_rows(&b, s, rows, n);
        out = PROTECT(Rf_ScalarReal(f->log_marginal(b.hyper, s, b.work)));
    } else if (strcmp(what, "log_predictive") == 0) {
        int m, d2;
        double *newx = rows_of(arg, &m, &d2);
        if (d2 != d) MCX_INTERNAL("`arg` must have as many columns as `x`");
        void *s = new_stats(&b);
        add_rows(&b, s, rows, n);
        out = PROTECT(Rf_allocVector(REALSXP, m));
        for (int i = 0; i < m; i++)
            REAL(out)[i] = f->log_predictive(b.hyper, s, newx + (size_t) i * d, b.work);
    } else if (strcmp(what, "bound") == 0) {
        mcx_predictive_bound_max_fn bmax = mcx_family_predictive_bound_max(f);
        if (bmax == NULL) mcx_error("family '%s' has no predictive bound", f->name);
        int m, d2;
        double *newx = rows_of(arg, &m, &d2);
        if (d2 != d) MCX_INTERNAL("`arg` must have as many columns as `x`");
        void *s = new_stats(&b);
        add_rows(&b, s, rows, n);
        const int size0 = 0;           /* one cluster, its count weight 0 */
        const double count0 = 0.0;
        out = PROTECT(Rf_allocMatrix(REALSXP, m, 2));
        for (int i = 0; i < m; i++) {
            const double *xi = newx + (size_t) i * d;
            REAL(out)[i] = bmax(b.hyper, s, 0, 1, -1, &size0, &count0, xi, -HUGE_VAL, b.work);
            REAL(out)[i + m] = f->log_predictive(b.hyper, s, xi, b.work);
        }
    } else if (strcmp(what, "combine") == 0) {
        mcx_stats_combine_fn comb = mcx_family_combiner(f, b.hyper);
        if (comb == NULL) mcx_error("family '%s' has no stats_combine", f->name);
        if (!Rf_isReal(arg) || XLENGTH(arg) != 1 || !(REAL(arg)[0] >= 0 && REAL(arg)[0] <= n))
            MCX_INTERNAL("`arg` must be a row count");
        int m = (int) REAL(arg)[0];
        size_t len = mcx_family_stats_doubles(f, b.hyper);
        double *one = new_stats(&b), *sa = new_stats(&b), *sb = new_stats(&b);
        add_rows(&b, one, rows, n);
        add_rows(&b, sa, rows, m);
        add_rows(&b, sb, rows + (size_t) m * d, n - m);
        comb(b.hyper, sa, sb, b.work);
        out = PROTECT(Rf_allocMatrix(REALSXP, 2, (int) len + 2));
        double *po = REAL(out), *sets[2] = { one, sa };
        for (int r = 0; r < 2; r++) {
            po[r] = f->log_marginal(b.hyper, sets[r], b.work);
            po[r + 2] = n > 0 ? f->log_predictive(b.hyper, sets[r], rows, b.work) : 0.0;
            for (size_t j = 0; j < len; j++) po[r + 2 * (j + 2)] = sets[r][j];
        }
    } else if (strcmp(what, "add_remove") == 0) {
        if (!Rf_isReal(arg) || XLENGTH(arg) != 1 || n < 1)
            MCX_INTERNAL("`arg` must be the number of operations and `x` non-empty");
        int n_ops = (int) REAL(arg)[0];
        GetRNGstate();
        out = PROTECT(add_remove(&b, rows, n, n_ops));
        PutRNGstate();
    } else if (strcmp(what, "param_draw") == 0) {
        if (!Rf_isReal(arg) || XLENGTH(arg) != 1) MCX_INTERNAL("`arg` must be a count");
        int m = (int) REAL(arg)[0];
        size_t p = f->param_size(b.hyper);
        void *s = new_stats(&b);
        add_rows(&b, s, rows, n);
        double *theta = mcx_alloc(p, sizeof(double));
        out = PROTECT(Rf_allocMatrix(REALSXP, m, (int) p));
        double *po = REAL(out);
        GetRNGstate();
        for (int i = 0; i < m; i++) {
            f->param_draw(b.hyper, s, theta, b.work);
            for (size_t j = 0; j < p; j++) po[i + j * (size_t) m] = theta[j];
        }
        PutRNGstate();
    } else if (strcmp(what, "log_lik") == 0) {
        if (!Rf_isReal(arg) || (size_t) XLENGTH(arg) != f->param_size(b.hyper))
            MCX_INTERNAL("`arg` must be a parameter vector of length param_size");
        out = PROTECT(Rf_allocVector(REALSXP, n));
        for (int i = 0; i < n; i++)
            REAL(out)[i] = f->log_lik(b.hyper, REAL(arg), rows + (size_t) i * d, b.work);
    } else if (strcmp(what, "loo") == 0) {
        out = PROTECT(leave_one_out(&b, rows, n));
    } else if (strcmp(what, "moments") == 0) {
        out = PROTECT(from_moments(&b, rows, n, arg));
    } else if (strcmp(what, "log_lik_all") == 0) {
        out = PROTECT(log_lik_all(&b, rows, n, arg));
    } else {
        mcx_error("mcmix internal error: unknown family operation '%s'", what);
    }
    UNPROTECT(1);
    return out;
}
