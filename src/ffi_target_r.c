/*
 * ffi_target_r.c -- the R-function target adapter and safe calls of user R
 * functions from C loops (see ffi_target_r.h).
 *
 * Each user function is called through a call object f(x) built once; the
 * argument vector x is reused from call to call unless the user's function
 * kept a reference to it (MAYBE_SHARED after the call), in which case a
 * fresh vector replaces it so that the kept value never changes under the
 * user's feet.  Values are checked here for type and length (with a message
 * that says what came back); non-finite values (a NaN or +Inf log density,
 * a non-finite gradient) are left to the engine (sampler_target.h), which rejects
 * them during sampling or reports them with the same context.
 */
#include <stdio.h>
#include <string.h>
#include "mcmix_engine.h"
#include "ffi_target_r.h"
#include "ffi_list.h"

int mcx_rfun_open(mcx_rfun *f, SEXP fun, int nargs, int dim, SEXP io,
                  int code, const char *label, const long *iter, int rng)
{
    if (!Rf_isFunction(fun) || dim < 1 || nargs < 1 || nargs > 2)
        MCX_INTERNAL("bad user function");
    SEXP x = PROTECT(Rf_allocVector(REALSXP, dim));
    SEXP y = nargs == 2 ? PROTECT(Rf_allocVector(REALSXP, dim)) : NULL;
    *f = (mcx_rfun) {y ? Rf_lang3(fun, x, y) : Rf_lang2(fun, x), x, y, io, code, dim, rng,
                     iter, label};
    UNPROTECT(nargs);
    PROTECT(f->call);  /* x and y are reachable from the call */
    return 1;
}

static void io_enter(const mcx_rfun *f, const double *x)
{
    if (f->io == R_NilValue) return;
    double *io = REAL(f->io);
    io[0] = f->code;
    io[1] = (double) *f->iter;
    memcpy(io + 2, x, (size_t) f->dim * sizeof(double));
}

SEXP mcx_rfun_eval(mcx_rfun *f, const double *x, const double *y)
{
    memcpy(REAL(f->x), x, (size_t) f->dim * sizeof(double));
    if (y != NULL) memcpy(REAL(f->y), y, (size_t) f->dim * sizeof(double));
    io_enter(f, x);
    if (f->rng) PutRNGstate();
    SEXP v = Rf_eval(f->call, R_GlobalEnv);
    if (f->rng) {
        PROTECT(v);
        GetRNGstate();
        UNPROTECT(1);
    }
    if (f->io != R_NilValue) REAL(f->io)[0] = MCX_CB_NONE;
    /* the user kept the argument: give the next call a fresh one */
    if (MAYBE_SHARED(f->x)) {
        PROTECT(v);
        f->x = Rf_allocVector(REALSXP, f->dim);
        SETCADR(f->call, f->x);
        UNPROTECT(1);
    }
    if (f->y != NULL && MAYBE_SHARED(f->y)) {
        PROTECT(v);
        f->y = Rf_allocVector(REALSXP, f->dim);
        SETCADDR(f->call, f->y);
        UNPROTECT(1);
    }
    return v;
}

/* Append the further arguments `args` (a list, names optional; R_NilValue
 * for none) to the call of f: f(x, a = args$a, ...) evaluates as
 * do.call(f, c(list(x), args)) would, without an R wrapper around f (no
 * closure, no list built per call).  Symbols and calls among the values are
 * quoted, so that every value is passed as it is. */
static void rfun_append_args(mcx_rfun *f, SEXP args)
{
    if (args == R_NilValue || XLENGTH(args) == 0) return;
    if (TYPEOF(args) != VECSXP) MCX_INTERNAL("bad further arguments of a target");
    SEXP nms = Rf_getAttrib(args, R_NamesSymbol);
    SEXP tail = f->call;
    while (CDR(tail) != R_NilValue) tail = CDR(tail);
    for (R_xlen_t i = 0; i < XLENGTH(args); i++) {
        SEXP v = VECTOR_ELT(args, i);
        if (TYPEOF(v) == SYMSXP || TYPEOF(v) == LANGSXP || TYPEOF(v) == PROMSXP)
            v = Rf_lang2(Rf_install("quote"), v);
        PROTECT(v);
        SETCDR(tail, Rf_cons(v, R_NilValue));  /* reachable from the call */
        UNPROTECT(1);
        tail = CDR(tail);
        if (nms != R_NilValue && STRING_ELT(nms, i) != NA_STRING &&
            CHAR(STRING_ELT(nms, i))[0] != '\0')
            SET_TAG(tail, Rf_installTrChar(STRING_ELT(nms, i)));
    }
}

/* "a character string \"a\"", "a numeric vector of length 2", "NULL", ... */
static void describe_value(SEXP v, char *buf, size_t size)
{
    R_xlen_t n = Rf_xlength(v);
    if (v == R_NilValue) {
        snprintf(buf, size, "NULL");
    } else if (TYPEOF(v) == STRSXP && n == 1) {
        const char *s = STRING_ELT(v, 0) == NA_STRING ? "NA" : CHAR(STRING_ELT(v, 0));
        snprintf(buf, size, "a character string \"%.40s\"", s);
    } else if ((TYPEOF(v) == REALSXP || TYPEOF(v) == INTSXP ||
                TYPEOF(v) == LGLSXP) && n == 1) {
        snprintf(buf, size, "NA");
    } else if (Rf_isVector(v) && n == 0) {
        snprintf(buf, size, "a zero-length %s vector", Rf_type2char(TYPEOF(v)));
    } else if (TYPEOF(v) == REALSXP || TYPEOF(v) == INTSXP) {
        snprintf(buf, size, "a numeric vector of length %lld", (long long) n);
    } else if (Rf_isVector(v)) {
        snprintf(buf, size, "a %s vector of length %lld",
                 Rf_type2char(TYPEOF(v)), (long long) n);
    } else {
        snprintf(buf, size, "an object of type '%s'", Rf_type2char(TYPEOF(v)));
    }
}

static void bad_return(const mcx_rfun *f, const double *x, SEXP v,
                       const char *expected)
{
    char got[128], th[256], where[64];
    describe_value(v, got, sizeof got);
    mcx_format_theta(th, sizeof th, x, f->dim);
    mcx_format_where(where, sizeof where, *f->iter);
    mcx_error("`%s` must return %s, but returned %s %s (theta = %s).",
              f->label, expected, got, where, th);
}

double mcx_rfun_number(mcx_rfun *f, const double *x, const double *y)
{
    SEXP v = mcx_rfun_eval(f, x, y);
    if (Rf_xlength(v) == 1) {
        if (TYPEOF(v) == REALSXP && !R_IsNA(REAL(v)[0])) return REAL(v)[0];
        if (TYPEOF(v) == INTSXP && INTEGER(v)[0] != NA_INTEGER)
            return (double) INTEGER(v)[0];
    }
    bad_return(f, x, v, "a single number");
    return NAN; /* not reached */
}

void mcx_rfun_vector(mcx_rfun *f, const double *x, const double *y,
                     double *out, int n)
{
    SEXP v = mcx_rfun_eval(f, x, y);
    char expected[64];
    snprintf(expected, sizeof expected, "a numeric vector of length %d", n);
    if ((TYPEOF(v) != REALSXP && TYPEOF(v) != INTSXP) || Rf_xlength(v) != n)
        bad_return(f, x, v, expected);
    for (int j = 0; j < n; j++) {
        double vj = TYPEOF(v) == REALSXP ? REAL(v)[j] :
            (INTEGER(v)[j] == NA_INTEGER ? NAN : (double) INTEGER(v)[j]);
        if (!isfinite(vj)) {
            char th[256], where[64];
            mcx_format_theta(th, sizeof th, x, f->dim);
            mcx_format_where(where, sizeof where, *f->iter);
            mcx_error("`%s` returned a non-finite value (%g in position %d) %s "
                      "(theta = %s).", f->label, vj, j + 1, where, th);
        }
        out[j] = vj;
    }
}

/* Copy v, a numeric vector of length n, into out (non-finite values
 * included: the engine checks them); 0 when v has another type or length. */
static int copy_numeric(SEXP v, double *out, int n)
{
    if ((TYPEOF(v) != REALSXP && TYPEOF(v) != INTSXP) || Rf_xlength(v) != n) return 0;
    if (TYPEOF(v) == REALSXP) {
        memcpy(out, REAL(v), (size_t) n * sizeof(double));
    } else {
        const int *iv = INTEGER(v);
        for (int j = 0; j < n; j++) out[j] = iv[j] == NA_INTEGER ? NAN : (double) iv[j];
    }
    return 1;
}

/* The number in v (numeric, length one, not NA), or NA_REAL. */
static double number_of(SEXP v)
{
    if (Rf_xlength(v) == 1) {
        if (TYPEOF(v) == REALSXP && !R_IsNA(REAL(v)[0])) return REAL(v)[0];
        if (TYPEOF(v) == INTSXP && INTEGER(v)[0] != NA_INTEGER)
            return (double) INTEGER(v)[0];
    }
    return NA_REAL;
}

/* Element `name` of a list returned by a user function (R_NilValue when
 * it has none, or no names).  `cname` is mkChar(name): R keeps one CHARSXP
 * per ASCII string, so the usual name is found by its address, at the
 * position where it is usually written (`at`), without comparing strings
 * (the comparison remains for names marked with another encoding). */
static SEXP user_elt(SEXP v, SEXP nms, SEXP cname, R_xlen_t at)
{
    if (TYPEOF(nms) != STRSXP) return R_NilValue;
    R_xlen_t n = XLENGTH(v);
    if (at < n && STRING_ELT(nms, at) == cname) return VECTOR_ELT(v, at);
    for (R_xlen_t i = 0; i < n; i++)
        if (STRING_ELT(nms, i) == cname) return VECTOR_ELT(v, i);
    const char *name = CHAR(cname);
    for (R_xlen_t i = 0; i < n; i++)
        if (strcmp(CHAR(STRING_ELT(nms, i)), name) == 0) return VECTOR_ELT(v, i);
    return R_NilValue;
}

/* Attribute `sym` of v (R_NilValue when absent): the attribute list read
 * directly, as Rf_getAttrib() does for a name that is not special. */
static SEXP user_attr(SEXP v, SEXP sym)
{
    for (SEXP a = ATTRIB(v); a != R_NilValue; a = CDR(a))
        if (TAG(a) == sym) return CAR(a);
    return R_NilValue;
}

/* ---- the R-function target: an mcx_target whose ctx is an adapter ---- */

typedef struct r_target {
    mcx_target desc;
    mcx_rfun   ld;
    mcx_rfun   gr;
    int        has_gr;
    int        combined;   /* ld returns the value with its gradient */
    SEXP       gradient_sym;          /* install("gradient") */
    SEXP       value_chr, gradient_chr;  /* mkChar("value"), mkChar("gradient") */
    char       gr_label[64];
} r_target;

static double r_target_logd(const double *theta, void *ctx)
{
    r_target *t = (r_target *) ctx;
    return mcx_rfun_number(&t->ld, theta, NULL);
}

static void r_target_grad(const double *theta, double *grad, void *ctx)
{
    r_target *t = (r_target *) ctx;
    SEXP v = mcx_rfun_eval(&t->gr, theta, NULL);
    if (!copy_numeric(v, grad, t->desc.dim)) {
        char expected[64];
        snprintf(expected, sizeof expected, "a numeric vector of length %d", t->desc.dim);
        bad_return(&t->gr, theta, v, expected);
    }
}

/* The combined form: ld(theta) returns the log density with its gradient,
 * as a number with attribute "gradient" (as for nlm()) or as
 * list(value = , gradient = ).  The value is returned; the gradient is
 * copied into grad when grad != NULL and the value is finite (elsewhere it
 * may be absent). */
static double r_combined_eval(r_target *t, const double *theta, double *grad)
{
    int d = t->desc.dim;
    SEXP v = PROTECT(mcx_rfun_eval(&t->ld, theta, NULL));
    SEXP val = v, g = R_NilValue;
    if (TYPEOF(v) == VECSXP) {
        SEXP nms = user_attr(v, R_NamesSymbol);
        val = user_elt(v, nms, t->value_chr, 0);
        g = user_elt(v, nms, t->gradient_chr, 1);
    } else {
        g = user_attr(v, t->gradient_sym);
    }
    double lp = number_of(val);
    if (R_IsNA(lp)) goto bad;
    /* no gradient needed where the value is -Inf, NaN or +Inf */
    if (grad != NULL && isfinite(lp) && !copy_numeric(g, grad, d)) goto bad;
    UNPROTECT(1);
    return lp;
bad: {
        char expected[160];
        snprintf(expected, sizeof expected, "a number with attribute \"gradient\" (a numeric "
                 "vector of length %d), or list(value = , gradient = )", d);
        bad_return(&t->ld, theta, v, expected);
        return NAN; /* not reached */
    }
}

static double r_combined_logd(const double *theta, void *ctx)
{
    return r_combined_eval((r_target *) ctx, theta, NULL);
}

static void r_combined_grad(const double *theta, double *grad, void *ctx)
{
    r_target *t = (r_target *) ctx;
    double lp = r_combined_eval(t, theta, grad);
    if (!isfinite(lp))   /* no gradient there */
        for (int j = 0; j < t->desc.dim; j++) grad[j] = NAN;
}

static double r_combined_logd_grad(const double *theta, double *grad, void *ctx)
{
    return r_combined_eval((r_target *) ctx, theta, grad);
}

int mcx_r_target_open(SEXP target, int dim, SEXP io, int code,
                      const char *label, mcx_tgt *h)
{
    SEXP ld = mcx_list_get(target, "log_density"), gr = mcx_list_get(target, "gradient");
    SEXP comb = mcx_list_get(target, "combined");
    r_target *t = (r_target *) mcx_alloc(1, sizeof(r_target));
    memset(t, 0, sizeof *t);
    t->desc.abi_version = MCX_ABI_VERSION;
    t->desc.dim = dim;
    t->desc.ctx = t;
    t->combined = TYPEOF(comb) == LGLSXP && XLENGTH(comb) == 1 && LOGICAL(comb)[0] == 1;
    t->has_gr = gr != R_NilValue;
    if (t->combined) {
        t->gradient_sym = Rf_install("gradient");
        /* CHARSXPs of ASCII strings are cached for the session: no PROTECT */
        t->value_chr = Rf_mkChar("value");
        t->gradient_chr = Rf_mkChar("gradient");
        if (t->has_gr) MCX_INTERNAL("a combined target with a gradient function");
        t->desc.log_density = r_combined_logd;
        t->desc.gradient = r_combined_grad;
        t->desc.log_density_gradient = r_combined_logd_grad;
    } else {
        t->desc.log_density = r_target_logd;
        t->desc.gradient = t->has_gr ? r_target_grad : NULL;
    }
    /* h->iter is read through a pointer; set the handle up first */
    mcx_tgt_init(h, &t->desc, label);
    SEXP args = mcx_list_get(target, "args");   /* target(f, ...)'s `...` */
    int nprot = mcx_rfun_open(&t->ld, ld, 1, dim, io, code, label, &h->iter, 0);
    rfun_append_args(&t->ld, args);
    if (t->has_gr) {
        snprintf(t->gr_label, sizeof t->gr_label, "gradient");
        if (strcmp(label, "log_density") != 0)
            snprintf(t->gr_label, sizeof t->gr_label, "%s_gradient", label);
        nprot += mcx_rfun_open(&t->gr, gr, 1, dim, io, code + 1, t->gr_label,
                               &h->iter, 0);
        rfun_append_args(&t->gr, args);
    }
    return nprot;
}
