/*
 * ffi_hdp.c -- .Call glue of the HDP mixture (model_hdp.c,
 * model_hdp_splitmerge.c; R/hdp.R).  Unwraps and re-checks the SEXPs
 * (mismatches are internal errors: R/hdp.R validated the user input),
 * copies the state, runs the engine inside one GetRNGstate()/PutRNGstate()
 * bracket and returns the new state with the draws of the chunk.
 *
 * ffi_hdp_step(spec, x, group, state, chunk)
 *   spec   list(family, hyper (double: the family's hyperparameters),
 *          J (integer: groups), gamma_prior, alpha_prior (c(shape, rate),
 *          or numeric(0) for a fixed value), moves, kind, t, sams
 *          (integers: split-merge proposals per sweep, their kind -- 1
 *          restricted passes, 2 sub-clusters (model_hdp.h) -- and for kind
 *          1 the restricted Gibbs scans of the launch and 1 for sequential
 *          allocation), keep_labels (logical),
 *          optionally gibbs (0: no Gibbs scan of z, the moves alone; tests))
 *   x      double dim x n matrix, one observation per column, overall order
 *   group  integer, n groups (0-based)
 *   state  the list HDP_STATE below: z (integer, n clusters, 0-based,
 *          internal order), beta (K + 1 global weights, beta_u last),
 *          gamma, alpha, stats (raw: the clusters' stats blocks exported by
 *          the previous chunk, NULL when fresh, so that a continued chain
 *          goes on bit for bit as one long run, mixture_state.h), n_accept
 *          and n_prop (split-merge counters)
 *   chunk  c(n, thin, offset, warmup) (mcmix_chunk.h)
 * Returns the new state's fields followed by traces (kept x 4: n_clusters,
 * gamma, alpha, log_lik) and labels (kept x n, 1-based; NULL unless
 * keep_labels), all by name.
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "model_hdp.h"
#include "ffi_list.h"
#include "ffi_hdp.h"
#include "ffi.h"

#define HDP_STATE(X) X(z) X(beta) X(gamma) X(alpha) X(stats) X(n_accept) X(n_prop)
#define HDP_OUT(X) HDP_STATE(X) X(traces) X(labels)
enum { HDP_OUT(MCX_FIELD_ENUM) HDP_OUT_N };
static const char *const hdp_state[] = {HDP_STATE(MCX_FIELD_NAME) NULL};
static const char *const hdp_out[] = {HDP_OUT(MCX_FIELD_NAME) NULL};
static const char *const hdp_traces[] = {"n_clusters", "gamma", "alpha", "log_lik"};

/* A concentration: its current value and spec$<prior> (c(shape, rate) or
 * empty: fixed). */
static mcx_hdp_conc read_conc(SEXP spec, const char *prior, SEXP value)
{
    SEXP p = mcx_list_elt(spec, prior);
    if (TYPEOF(p) != REALSXP || (XLENGTH(p) != 0 && XLENGTH(p) != 2) ||
        TYPEOF(value) != REALSXP || XLENGTH(value) != 1 || !(REAL(value)[0] > 0))
        MCX_INTERNAL("bad HDP concentration or prior");
    mcx_hdp_conc c = {REAL(value)[0], XLENGTH(p) == 0, 0.0, 0.0};
    if (!c.fixed) {
        c.shape = REAL(p)[0];
        c.rate = REAL(p)[1];
    }
    return c;
}

SEXP ffi_hdp_step(SEXP spec, SEXP x, SEXP group, SEXP state, SEXP chunk)
{
    mcx_context(NULL);          /* none left over from an interrupted chunk */
    mcx_chunk c = mcx_chunk_read(chunk);
    int nprot = 0;
    SEXP dims = Rf_getAttrib(x, R_DimSymbol);
    if (!Rf_isReal(x) || Rf_length(dims) != 2) MCX_INTERNAL("`x` must be a double matrix");
    int dim = INTEGER(dims)[0], n = INTEGER(dims)[1];
    int J = mcx_list_count(spec, "J"), moves = mcx_list_count(spec, "moves"),
        t = mcx_list_count(spec, "t"), sams = mcx_list_count(spec, "sams"),
        kind = mcx_list_count(spec, "kind");
    int keep_labels = Rf_asLogical(mcx_list_elt(spec, "keep_labels")) == TRUE;
    if (J < 1 || n < 1 || moves < 0 || t < 0 ||
        (kind != MCX_HDP_SAMS && kind != MCX_HDP_SUBCLUSTER))
        MCX_INTERNAL("bad HDP settings");
    if (TYPEOF(group) != INTSXP || XLENGTH(group) != n) MCX_INTERNAL("bad `group`");
    SEXP in[HDP_OUT_N];
    mcx_list_fields(state, hdp_state, in);
    int *z0 = mcx_list_int(state, "z", n);
    int K = 0;
    for (int i = 0; i < n; i++) if (z0[i] + 1 > K) K = z0[i] + 1;
    const double *beta0 = mcx_list_real(state, "beta", (R_xlen_t) K + 1);
    mcx_hdp_conc gamma = read_conc(spec, "gamma_prior", in[F_gamma]),
                 alpha = read_conc(spec, "alpha_prior", in[F_alpha]);

    const void *hy;
    const mcx_family *fam = ffi_family_open(spec, dim, &hy, &nprot);
    if (!mcx_family_conjugate(fam))
        mcx_error("family '%s' is not conjugate: the HDP sampler needs a conjugate family",
                  fam->name);

    SEXP out[HDP_OUT_N];
    for (int f = 0; f < HDP_OUT_N; f++) out[f] = R_NilValue;
    out[F_traces] = PROTECT(mcx_chunk_matrix(&c, REALSXP, 4, hdp_traces)); nprot++;
    if (keep_labels) {
        out[F_labels] = PROTECT(mcx_chunk_matrix(&c, INTSXP, n, NULL));
        nprot++;
    }

    mcx_hdp h;
    mcx_hdp_build(&h, fam, hy, REAL(x), n, dim, INTEGER(group), J, z0, beta0, gamma, alpha,
                  moves, kind, t, sams);
    if (!Rf_isNull(in[F_stats])) {
        if (TYPEOF(in[F_stats]) != RAWSXP) MCX_INTERNAL("`stats` must be raw");
        mcx_mix_restore_stats(&h.mix, RAW(in[F_stats]), (size_t) XLENGTH(in[F_stats]));
    }
    SEXP gs = mcx_list_get(spec, "gibbs");   /* optional: 0 in tests of the moves alone */
    if (gs != R_NilValue) h.gibbs = Rf_asInteger(gs) != 0;
    h.sm_counts[0] = mcx_list_num(state, "n_accept");
    h.sm_counts[1] = mcx_list_num(state, "n_prop");
    GetRNGstate();
    mcx_hdp_run(&h, &c, REAL(out[F_traces]), keep_labels ? INTEGER(out[F_labels]) : NULL);
    PutRNGstate();

    int Kn = h.mix.K;
    out[F_z] = PROTECT(Rf_allocVector(INTSXP, n)); nprot++;
    memcpy(INTEGER(out[F_z]), h.mix.z, (size_t) n * sizeof(int));
    out[F_beta] = PROTECT(Rf_allocVector(REALSXP, Kn + 1)); nprot++;
    memcpy(REAL(out[F_beta]), h.beta, ((size_t) Kn + 1) * sizeof(double));
    out[F_gamma] = PROTECT(Rf_ScalarReal(h.top.alpha)); nprot++;
    out[F_alpha] = PROTECT(Rf_ScalarReal(h.grp.alpha)); nprot++;
    out[F_stats] = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t) mcx_mix_stats_bytes(&h.mix))); nprot++;
    memcpy(RAW(out[F_stats]), h.mix.stats, mcx_mix_stats_bytes(&h.mix));
    out[F_n_accept] = PROTECT(Rf_ScalarReal(h.sm_counts[0])); nprot++;
    out[F_n_prop] = PROTECT(Rf_ScalarReal(h.sm_counts[1])); nprot++;
    SEXP res = mcx_named_list(hdp_out, out);
    UNPROTECT(nprot);
    return res;
}
