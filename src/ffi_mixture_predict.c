/*
 * ffi_mixture_predict.c -- .Call glue of the posterior predictive of
 * conjugate mixture fits (R/predict.R).
 */
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "mixture_state.h"
#include "ffi.h"

/*
 * ffi_mixture_predict(family, dim, hyper, xt, labels, weights, newx, est)
 * Posterior predictive of a conjugate mixture fit at new points.
 *   labels  S x N integer matrix (kept draws; labels >= 1, any numbering);
 *   weights S x 3 matrix: per draw (alpha, discount, finite K or 0): the
 *           predictive weights are (n_k - d) / (alpha + N) for the clusters
 *           and (alpha + d K) / (alpha + N) for a new one (DP / Pitman-Yor;
 *           Pitman 2006 eq. 3.1); for a finite mixture of K components with
 *           symmetric Dirichlet(alpha / K) weights, (n_k + alpha / K) /
 *           (alpha + N) for each of the K components (empty ones with the
 *           prior predictive);
 *   newx    dim x M new points;
 *   est     NULL: returns the S x M matrix of predictive densities
 *           p(x_new | x, z^(s)) = sum_k w_k p(x_new | x_k) + w_0 p(x_new);
 *           else an integer vector of N labels 1..C (a point estimate of
 *           the partition): returns the M x C matrix, averaged over draws,
 *           of sum_k q_k n_ck / n_k, with q_k the probability that x_new
 *           joins the draw's cluster k and n_ck / n_k the share of that
 *           cluster's members in estimated cluster c: the probability that
 *           x_new joins the cluster of a member of c drawn at random from
 *           its own cluster's members. A row sums to one minus the
 *           probability of a new (or, finite mixtures, empty) cluster.
 */
SEXP ffi_mixture_predict(SEXP family, SEXP dim_, SEXP hyper_, SEXP xt, SEXP labels,
                         SEXP weights, SEXP newx, SEXP est)
{
    int dim = Rf_asInteger(dim_);
    const mcx_family *fam = mcx_get_family(CHAR(STRING_ELT(family, 0)));
    if (!mcx_family_conjugate(fam))
        mcx_error("mcmix internal error: predictive densities need a conjugate family");
    if (TYPEOF(hyper_) != REALSXP || TYPEOF(xt) != REALSXP || TYPEOF(newx) != REALSXP ||
        TYPEOF(labels) != INTSXP || TYPEOF(weights) != REALSXP || dim < 1)
        MCX_INTERNAL("bad arguments");
    const void *hyper = mcx_family_hyper(fam, dim, REAL(hyper_), (int) XLENGTH(hyper_));
    int N = (int) (XLENGTH(xt) / dim), M = (int) (XLENGTH(newx) / dim);
    int S = Rf_nrows(labels);
    if (Rf_ncols(labels) != N || Rf_nrows(weights) != S || Rf_ncols(weights) != 3)
        MCX_INTERNAL("labels / weights do not match");
    int C = 0;
    if (est != R_NilValue) {
        if (TYPEOF(est) != INTSXP || XLENGTH(est) != N) MCX_INTERNAL("bad estimate");
        for (int i = 0; i < N; i++) {
            if (INTEGER(est)[i] < 1) MCX_INTERNAL("bad estimate");
            if (INTEGER(est)[i] > C) C = INTEGER(est)[i];
        }
    }
    const int *L = INTEGER(labels);
    const double *W = REAL(weights);
    int *z = mcx_alloc((size_t) N, sizeof(int));
    int *code = mcx_alloc((size_t) N + 1, sizeof(int));
    double *prior = mcx_alloc((size_t) (M > 0 ? M : 1), sizeof(double));
    int kmax = N;
    for (int s = 0; s < S; s++)
        if (W[s + 2 * (size_t) S] > kmax) kmax = (int) W[s + 2 * (size_t) S];
    double *lp = mcx_alloc((size_t) kmax + 2, sizeof(double));
    double *lv = mcx_alloc((size_t) kmax + 2, sizeof(double));
    double *share = mcx_alloc((size_t) (C > 0 ? C : 1) * ((size_t) kmax + 1), sizeof(double));
    mcx_mix m;
    int *none = mcx_alloc((size_t) N, sizeof(int));
    for (int i = 0; i < N; i++) none[i] = -1;
    mcx_mix_build(&m, fam, hyper, REAL(xt), N, dim, none, 0);
    for (int j = 0; j < M; j++)
        prior[j] = fam->log_predictive(hyper, m.empty, REAL(newx) + (size_t) j * dim, m.work);

    SEXP out = PROTECT(est == R_NilValue ? Rf_allocMatrix(REALSXP, S, M)
                                         : Rf_allocMatrix(REALSXP, M, C));
    double *o = REAL(out);
    memset(o, 0, (size_t) XLENGTH(out) * sizeof(double));
    for (int s = 0; s < S; s++) {
        /* relabel the draw 0..K-1 and rebuild the clusters */
        for (int i = 0; i <= N; i++) code[i] = -1;
        int K = 0;
        for (int i = 0; i < N; i++) {
            int l = L[s + (size_t) i * S];
            if (l < 1 || l > N) MCX_INTERNAL("label out of range");
            if (code[l] < 0) code[l] = K++;
            z[i] = code[l];
        }
        int Kfin = (int) W[s + 2 * (size_t) S];
        double alpha = W[s], d = W[s + (size_t) S];
        /* rebuild the clusters in the same buffers (no allocation per draw,
         * except the amortised growth of the cluster buffers) */
        m.K = 0;
        int Kneed = Kfin > K ? Kfin : K;
        while (m.K < Kneed) mcx_mix_new_cluster(&m);
        for (int i = 0; i < N; i++) {
            m.z[i] = -1;
            mcx_mix_add(&m, i, z[i]);
        }
        int Kc = m.K;
        double denom = log(alpha + N);
        for (int k = 0; k < Kc; k++)
            lp[k] = Kfin > 0 ? log(m.size[k] + alpha / Kfin) - denom
                             : log(m.size[k] - d) - denom;
        double lnew = Kfin > 0 ? R_NegInf : log(alpha + d * K) - denom;
        if (C > 0) {
            /* share[c * (K+1) + k]: fraction of draw cluster k's members
             * that are in estimated cluster c (sums to 1 over c) */
            memset(share, 0, (size_t) C * (Kc + 1) * sizeof(double));
            for (int i = 0; i < N; i++) {
                int c = INTEGER(est)[i] - 1;
                share[(size_t) c * (Kc + 1) + z[i]] += 1.0 / m.size[z[i]];
            }
        }
        for (int j = 0; j < M; j++) {
            const double *xj = REAL(newx) + (size_t) j * dim;
            double best = lnew + prior[j];
            for (int k = 0; k < Kc; k++) {
                lv[k] = lp[k] + fam->log_predictive(hyper, mcx_mix_stats(&m, k), xj, m.work);
                if (lv[k] > best) best = lv[k];
            }
            double tot = lnew > R_NegInf ? exp(lnew + prior[j] - best) : 0.0;
            for (int k = 0; k < Kc; k++) tot += exp(lv[k] - best);
            if (est == R_NilValue) {
                o[s + (size_t) j * S] = exp(best) * tot;
                continue;
            }
            for (int k = 0; k < Kc; k++) {
                double pk = exp(lv[k] - best) / tot / (double) S;
                for (int c = 0; c < C; c++)
                    o[j + (size_t) c * M] += pk * share[(size_t) c * (Kc + 1) + k];
            }
        }
        if (s + 1 < S) R_CheckUserInterrupt();
    }
    UNPROTECT(1);
    return out;
}

