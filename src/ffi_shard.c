/*
 * ffi_shard.c -- glue of the sharded mixture chain (shard_mixture.h):
 * the passes a worker runs on its shard, and the session's parameters and
 * moves.  R/mixture_sharded.R calls these through .Call; the shard's
 * vectors (x, z, znew, side) are the worker's, created fresh and referred
 * to only by its shard environment, so they are written in place.
 *
 * A shard's `info` is c(K, block0, has_na, threads); seeds travel as two
 * doubles (the high and low 32 bits).
 */
#include <string.h>
#include <limits.h>
#include <R.h>
#include <Rinternals.h>
#include "shard_mixture.h"
#include "mixture_warm.h"
#include "ffi_list.h"
#include "ffi.h"
#include "family_registry.h"

static void need(SEXP v, SEXPTYPE type, R_xlen_t len, const char *what)
{
    if ((SEXPTYPE) TYPEOF(v) != type || (len >= 0 && XLENGTH(v) != len)) MCX_INTERNAL(what);
}

/* The shard of (spec, x, z, info) opened into sh; returns nprot. */
static int shard_open(mcx_shard *sh, SEXP spec, SEXP x, SEXP z, SEXP info)
{
    int nprot = 0, dim = mcx_list_count(spec, "dim");
    need(info, REALSXP, 4, "bad shard info");
    need(x, REALSXP, -1, "shard data must be a double matrix");
    need(z, INTSXP, -1, "shard labels must be integers");
    R_xlen_t n = XLENGTH(z);
    if (XLENGTH(x) != n * dim) MCX_INTERNAL("shard data and labels differ in size");
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    double *in = REAL(info);
    mcx_shard_open(sh, fam, hyper, REAL(x), (int) n, dim, INTEGER(z), (int) in[0],
                   (int) in[3], (long) in[1], in[2] != 0.0);
    return nprot;
}

/* list(risk = c(least, total), stats = ss x K matrix, size = K counts) of
 * the proposals written into znew (z NULL: no risk, labels not read). */
SEXP ffi_shard_propose(SEXP spec, SEXP x, SEXP z, SEXP znew, SEXP info, SEXP theta,
                       SEXP logpi, SEXP seed)
{
    mcx_shard sh;
    int risk = z != R_NilValue;
    SEXP zz = risk ? z : znew;
    int nprot = shard_open(&sh, spec, x, zz, info), K = sh.K;
    need(znew, INTSXP, XLENGTH(zz), "bad proposal labels");
    need(theta, REALSXP, (R_xlen_t) sh.s.psize * K, "bad cluster parameters");
    need(logpi, REALSXP, K, "bad cluster weights");
    SEXP rk = PROTECT(allocVector(INTSXP, risk ? 2 * (R_xlen_t) K : 0));
    SEXP st = PROTECT(allocMatrix(REALSXP, (int) sh.m.sstride, K));
    SEXP size = PROTECT(allocVector(INTSXP, K));
    nprot += 3;
    mcx_shard_propose(&sh, REAL(theta), REAL(logpi), mcx_seed_read(seed), INTEGER(znew),
                      risk ? INTEGER(rk) : NULL, risk ? INTEGER(rk) + K : NULL, REAL(st),
                      INTEGER(size));
    const char *names[] = {"risk", "stats", "size", NULL};
    SEXP vals[] = {rk, st, size};
    SEXP out = mcx_named_list(names, vals);
    UNPROTECT(nprot);
    return out;
}

SEXP ffi_shard_accept(SEXP z, SEXP znew, SEXP cnt)
{
    need(z, INTSXP, -1, "bad shard labels");
    need(znew, INTSXP, XLENGTH(z), "bad proposal labels");
    need(cnt, INTSXP, -1, "bad counts");
    SEXP out = PROTECT(duplicate(cnt));
    mcx_shard sh;
    memset(&sh, 0, sizeof sh);
    sh.m.z = INTEGER(z);
    sh.m.n = (int) XLENGTH(z);
    int K = (int) XLENGTH(cnt);
    for (R_xlen_t i = 0; i < XLENGTH(z); i++)
        if (INTEGER(z)[i] < 0 || INTEGER(z)[i] >= K || INTEGER(znew)[i] < 0 ||
            INTEGER(znew)[i] >= K)
            MCX_INTERNAL("shard label out of range");
    mcx_shard_accept(&sh, INTEGER(znew), INTEGER(out));
    UNPROTECT(1);
    return out;
}

/* list(stats = ss x K matrix, size = K counts) of the labels z. */
SEXP ffi_shard_stats(SEXP spec, SEXP x, SEXP z, SEXP info)
{
    mcx_shard sh;
    int nprot = shard_open(&sh, spec, x, z, info), K = sh.K;
    SEXP st = PROTECT(allocMatrix(REALSXP, (int) sh.m.sstride, K));
    SEXP size = PROTECT(allocVector(INTSXP, K));
    nprot += 2;
    mcx_shard_stats(&sh, REAL(st), INTEGER(size));
    const char *names[] = {"stats", "size", NULL};
    SEXP vals[] = {st, size};
    SEXP out = mcx_named_list(names, vals);
    UNPROTECT(nprot);
    return out;
}

/* args = c(a, b, skip0, skip1, discount, score, lq0, bound); st the two
 * sides' stats (ss x 2), n their sizes: list(st, n, lq). */
SEXP ffi_shard_sams(SEXP spec, SEXP x, SEXP z, SEXP side, SEXP info, SEXP args, SEXP seed,
                    SEXP st, SEXP n)
{
    mcx_shard sh;
    int nprot = shard_open(&sh, spec, x, z, info);
    need(args, REALSXP, 8, "bad pass arguments");
    need(side, RAWSXP, XLENGTH(z), "bad sides");
    need(st, REALSXP, 2 * (R_xlen_t) sh.m.sstride, "bad side statistics");
    need(n, REALSXP, 2, "bad side sizes");
    double *a = REAL(args);
    SEXP st2 = PROTECT(duplicate(st)), n2 = PROTECT(duplicate(n));
    nprot += 2;
    double *sp[2] = {REAL(st2), REAL(st2) + sh.m.sstride};
    long skip[2] = {(long) a[2], (long) a[3]};
    double lq = mcx_shard_sams(&sh, (int) a[0], (int) a[1], skip, sp, REAL(n2), a[4],
                               a[5] != 0.0, a[5] != 0.0 ? 0 : mcx_seed_read(seed), a[6], a[7],
                               RAW(side));
    const char *names[] = {"st", "n", "lq", NULL};
    SEXP vals[] = {st2, n2, PROTECT(ScalarReal(lq))};
    nprot++;
    SEXP out = mcx_named_list(names, vals);
    UNPROTECT(nprot);
    return out;
}

/* op 1: split of a (new label b) along side; 2: merge of b into a, the last
 * slot c moved to b; 3: relabel through the map `side` is not: map given
 * as args[-]. */
SEXP ffi_shard_apply(SEXP z, SEXP side, SEXP args, SEXP map)
{
    need(z, INTSXP, -1, "bad shard labels");
    need(args, REALSXP, 4, "bad apply arguments");
    mcx_shard sh;
    memset(&sh, 0, sizeof sh);
    sh.m.z = INTEGER(z);
    sh.m.n = (int) XLENGTH(z);
    double *a = REAL(args);
    int op = (int) a[0];
    if (op == 1) {
        need(side, RAWSXP, XLENGTH(z), "bad sides");
        mcx_shard_apply_split(&sh, (int) a[1], (int) a[2], RAW(side));
    } else if (op == 2) {
        mcx_shard_apply_merge(&sh, (int) a[1], (int) a[2], (int) a[3]);
    } else if (op == 3) {
        need(map, INTSXP, -1, "bad label map");
        for (R_xlen_t i = 0; i < XLENGTH(z); i++)
            if (INTEGER(z)[i] < 0 || INTEGER(z)[i] >= XLENGTH(map))
                MCX_INTERNAL("shard label out of range");
        mcx_shard_relabel(&sh, INTEGER(map));
    } else {
        MCX_INTERNAL("bad apply operation");
    }
    return R_NilValue;
}

/* The 0-based local index of the r-th (0-based) member of cluster k, -1 if
 * the shard has fewer. */
SEXP ffi_shard_nth(SEXP z, SEXP k, SEXP r)
{
    need(z, INTSXP, -1, "bad shard labels");
    int kk = asInteger(k);
    double rr = asReal(r), c = 0;
    const int *zz = INTEGER(z);
    for (R_xlen_t i = 0; i < XLENGTH(z); i++)
        if (zz[i] == kk && c++ == rr) return ScalarReal((double) i);
    return ScalarReal(-1.0);
}

/* The warm start on a shard: its observations to the clusters of the
 * subsample xs (m x dim, labels lab in 0 .. K-1), written into z. */
SEXP ffi_shard_warm(SEXP spec, SEXP x, SEXP z, SEXP info, SEXP xs, SEXP lab)
{
    int nprot = 0, dim = mcx_list_count(spec, "dim");
    need(info, REALSXP, 4, "bad shard info");
    need(lab, INTSXP, -1, "bad subsample labels");
    need(xs, REALSXP, XLENGTH(lab) * dim, "bad subsample");
    need(z, INTSXP, -1, "bad shard labels");
    if (XLENGTH(x) != XLENGTH(z) * dim) MCX_INTERNAL("shard data and labels differ in size");
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    int threads = (int) REAL(info)[3];
    if (threads < 1 || !mcx_family_thread_safe(fam)) threads = 1;
    int m = (int) XLENGTH(lab), K = 0;
    for (int r = 0; r < m; r++)
        if (INTEGER(lab)[r] + 1 > K) K = INTEGER(lab)[r] + 1;
    int *sub = mcx_alloc((size_t) m, sizeof(int));
    for (int r = 0; r < m; r++) sub[r] = r;
    mcx_warm_data ds = {REAL(xs), m, dim, 1};
    mcx_warm_data d = {REAL(x), (long) XLENGTH(z), dim, 1};
    size_t stride = fam->stats_size(hyper), wsz = fam->work_size(hyper);
    if (wsz < 1) wsz = 1;
    size_t tstride = (((size_t) dim + wsz + 7) / 8) * 8 + 8;
    double *stats = mcx_alloc((size_t) K * stride, sizeof(double));
    int *size = mcx_alloc((size_t) K, sizeof(int));
    double *logn = mcx_alloc((size_t) K, sizeof(double));
    double *tscr = mcx_alloc((size_t) threads * tstride, sizeof(double));
    mcx_warm_stats(fam, hyper, &ds, sub, INTEGER(lab), m, K, stats, stride, size, tscr,
                   tscr + dim);
    mcx_warm_allocate(fam, hyper, &d, stats, stride, size, K, 0, (long) XLENGTH(z), threads,
                      tscr, tstride, logn, INTEGER(z));
    UNPROTECT(nprot);
    return R_NilValue;
}

/* ---------------- the session ---------------- */

/* The partition prior of spec with alpha, discount = prior[0], prior[1]. */
static void prior_read(mcx_partition_prior *pr, SEXP spec, SEXP prior, int n)
{
    SEXP ap = mcx_list_elt(spec, "alpha_prior"), dp = mcx_list_elt(spec, "discount_prior");
    need(prior, REALSXP, 2, "bad alpha and discount");
    memset(pr, 0, sizeof *pr);
    pr->alpha = REAL(prior)[0];
    pr->discount = REAL(prior)[1];
    pr->alpha_random = XLENGTH(ap) == 2;
    pr->discount_random = XLENGTH(dp) == 2;
    if (pr->alpha_random) { pr->shape = REAL(ap)[0]; pr->rate = REAL(ap)[1]; }
    if (pr->discount_random) { pr->da = REAL(dp)[0]; pr->db = REAL(dp)[1]; }
    mcx_partition_prior_setup(pr, n);
}

/* The session of (spec, stats, size, prior, thin); returns nprot. */
static int session_open(mcx_shard_session *ss, mcx_partition_prior *pr, SEXP spec, SEXP stats,
                        SEXP size, SEXP prior, SEXP thin)
{
    int nprot = 0, dim = mcx_list_count(spec, "dim");
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    need(size, INTSXP, -1, "bad cluster sizes");
    int K = (int) XLENGTH(size);
    double N = 0;
    for (int k = 0; k < K; k++) N += INTEGER(size)[k];
    if (N > INT_MAX) MCX_INTERNAL("too many observations for one chain");
    need(stats, REALSXP, (R_xlen_t) mcx_family_stats_doubles(fam, hyper) * K,
         "bad cluster statistics");
    prior_read(pr, spec, prior, (int) N);
    mcx_shard_session_init(ss, fam, hyper, dim, K, REAL(stats), INTEGER(size), pr,
                           asInteger(thin));
    return nprot;
}

SEXP ffi_shard_params(SEXP spec, SEXP stats, SEXP size, SEXP prior)
{
    mcx_shard_session ss;
    mcx_partition_prior pr;
    int nprot = session_open(&ss, &pr, spec, stats, size, prior, ScalarInteger(0));
    size_t ps = ss.fam->param_size(ss.hyper);
    SEXP theta = PROTECT(allocVector(REALSXP, (R_xlen_t) ps * ss.K));
    SEXP logpi = PROTECT(allocVector(REALSXP, ss.K));
    nprot += 2;
    GetRNGstate();
    mcx_shard_params(&ss, REAL(theta), REAL(logpi));
    uint64_t master = mcx_stream_master();
    PutRNGstate();
    const char *names[] = {"theta", "logpi", "seed", NULL};
    SEXP vals[] = {theta, logpi, PROTECT(mcx_seed_new(master))};
    nprot++;
    SEXP out = mcx_named_list(names, vals);
    UNPROTECT(nprot);
    return out;
}

/* A planned move: list(type, a, b, ri, rj, lr, bound, seed) (0-based). */
SEXP ffi_shard_plan(SEXP spec, SEXP stats, SEXP size, SEXP prior, SEXP thin)
{
    mcx_shard_session ss;
    mcx_partition_prior pr;
    int nprot = session_open(&ss, &pr, spec, stats, size, prior, thin);
    mcx_shard_move mv;
    GetRNGstate();
    mcx_shard_plan(&ss, &mv);
    PutRNGstate();
    SEXP v = PROTECT(allocVector(REALSXP, 7));
    nprot++;
    double *p = REAL(v);
    p[0] = mv.type; p[1] = mv.a; p[2] = mv.b; p[3] = mv.ri; p[4] = mv.rj; p[5] = mv.lr;
    p[6] = mv.bound;
    const char *names[] = {"move", "seed", NULL};
    SEXP vals[] = {v, PROTECT(mcx_seed_new(mv.seed))};
    nprot++;
    SEXP out = mcx_named_list(names, vals);
    UNPROTECT(nprot);
    return out;
}

/* The decision on a planned move given the passes' st (ss x 2), n (2) and
 * lq: TRUE / FALSE (a split draws its uniform from R's generator). */
SEXP ffi_shard_decide(SEXP spec, SEXP stats, SEXP size, SEXP prior, SEXP thin, SEXP move,
                      SEXP st, SEXP n, SEXP lq)
{
    mcx_shard_session ss;
    mcx_partition_prior pr;
    int nprot = session_open(&ss, &pr, spec, stats, size, prior, thin);
    need(move, REALSXP, 7, "bad move");
    need(st, REALSXP, 2 * (R_xlen_t) ss.ss, "bad side statistics");
    need(n, REALSXP, 2, "bad side sizes");
    double *p = REAL(move);
    mcx_shard_move mv = {(int) p[0], (int) p[1], (int) p[2], p[3], p[4], p[5], p[6], 0};
    double *sp[2] = {REAL(st), REAL(st) + ss.ss};
    GetRNGstate();
    int acc = mcx_shard_decide(&ss, &mv, sp, REAL(n), asReal(lq));
    PutRNGstate();
    UNPROTECT(nprot);
    return ScalarLogical(acc);
}

/* The stats of the rows of the matrix xr (nx x dim), or of two stats
 * blocks combined (xr NULL, a and b given): one stats block. */
SEXP ffi_shard_stats_of(SEXP spec, SEXP xr, SEXP a, SEXP b)
{
    int nprot = 0, dim = mcx_list_count(spec, "dim");
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    mcx_shard_session ss;
    mcx_partition_prior pr;
    memset(&pr, 0, sizeof pr);
    pr.alpha = 1;
    int sz = 0;
    double dummy = 0;
    mcx_shard_session_init(&ss, fam, hyper, dim, 0, &dummy, &sz, &pr, 0);
    SEXP out = PROTECT(allocVector(REALSXP, (R_xlen_t) ss.ss));
    nprot++;
    if (xr != R_NilValue) {
        need(xr, REALSXP, -1, "bad rows");
        int nx = (int) (XLENGTH(xr) / dim);
        mcx_shard_stats_of(&ss, REAL(xr), nx, dim, REAL(out));
    } else {
        need(a, REALSXP, (R_xlen_t) ss.ss, "bad stats");
        need(b, REALSXP, (R_xlen_t) ss.ss, "bad stats");
        memcpy(REAL(out), REAL(a), ss.ss * sizeof(double));
        ss.combine(hyper, REAL(out), REAL(b), ss.work);
    }
    UNPROTECT(nprot);
    return out;
}

/* Sum of the clusters' log marginal likelihoods (the log_lik trace) and
 * the prior's update: c(log_lik, alpha, discount). */
SEXP ffi_shard_finish_sweep(SEXP spec, SEXP stats, SEXP size, SEXP prior)
{
    mcx_shard_session ss;
    mcx_partition_prior pr;
    int nprot = session_open(&ss, &pr, spec, stats, size, prior, ScalarInteger(0));
    mcx_mix m;
    memset(&m, 0, sizeof m);
    m.K = ss.K;
    m.size = ss.size;
    m.n = pr.n;
    GetRNGstate();
    mcx_partition_prior_update(&pr, &m);
    PutRNGstate();
    double ll = 0.0;
    for (int k = 0; k < ss.K; k++) ll += ss.lm[k];
    SEXP out = PROTECT(allocVector(REALSXP, 3));
    REAL(out)[0] = ll;
    REAL(out)[1] = pr.alpha;
    REAL(out)[2] = pr.discount;
    UNPROTECT(nprot + 1);
    return out;
}

/* The per-shard stats matrices (a list, each ss x K) combined in list
 * order: one ss x K matrix. */
SEXP ffi_shard_combine(SEXP spec, SEXP parts)
{
    int nprot = 0, dim = mcx_list_count(spec, "dim");
    const void *hyper;
    const mcx_family *fam = ffi_family_open(spec, dim, &hyper, &nprot);
    mcx_stats_combine_fn comb = mcx_family_combiner(fam, hyper);
    if (comb == NULL) MCX_INTERNAL("a sharded chain needs a family with stats_combine");
    if (TYPEOF(parts) != VECSXP || XLENGTH(parts) < 1) MCX_INTERNAL("bad shard stats");
    SEXP first = VECTOR_ELT(parts, 0);
    need(first, REALSXP, -1, "bad shard stats");
    size_t ss = mcx_family_stats_doubles(fam, hyper);
    R_xlen_t len = XLENGTH(first);
    if (ss == 0 || len % (R_xlen_t) ss != 0) MCX_INTERNAL("bad shard stats");
    SEXP out = PROTECT(allocMatrix(REALSXP, (int) ss, (int) (len / (R_xlen_t) ss)));
    nprot++;
    memcpy(REAL(out), REAL(first), (size_t) len * sizeof(double));
    size_t ws = fam->work_size(hyper);
    double *work = mcx_alloc(ws > 0 ? ws : 1, sizeof(double));
    for (R_xlen_t s = 1; s < XLENGTH(parts); s++) {
        SEXP p = VECTOR_ELT(parts, s);
        need(p, REALSXP, len, "bad shard stats");
        for (R_xlen_t k = 0; k < len / (R_xlen_t) ss; k++)
            comb(hyper, REAL(out) + (size_t) k * ss, REAL(p) + (size_t) k * ss, work);
    }
    UNPROTECT(nprot);
    return out;
}
