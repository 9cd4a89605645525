/*
 * mixture_impute.c -- the imputation step for missing coordinates of a
 * joint Gaussian block (gaussian_niw, gaussian_mean) inside a mixture
 * sampler: the I-step and P-step of the imputation-posterior / data
 * augmentation algorithm (Tanner and Wong 1987; Murphy 2012, section
 * 24.2.7), run once per sweep after the partition update.
 *
 * Given the partition z and the current completed data, for every cluster
 * k holding a row with missing coordinates:
 *   P-step: theta_k ~ p(theta | completed block data of cluster k)
 *           (the family's conjugate param_draw on the cluster's stats);
 *   I-step: for each such row i, with observed set O and missing set M,
 *           x_M ~ N(mu_M + S_MO S_OO^{-1} (x_O - mu_O),
 *                   S_MM - S_MO S_OO^{-1} S_OM)
 *           (the conditional of a multivariate normal), mu, S from theta_k
 *           (gaussian_niw: theta = mean[d], cov[d x d]; gaussian_mean:
 *           theta = mean[d] and the known covariance given by the caller).
 * This is a two-block Gibbs sampler on (theta, x_M) given z, whose
 * marginal chain on x_M leaves p(x_M | x_O, z) invariant; theta is not
 * kept.  That is right for the samplers whose state is (z, x_M) alone
 * (they integrate theta out or redraw it given z before using it), but
 * not for a sampler that keeps theta across sweeps (Neal's algorithm 8):
 * the kept theta was drawn given the old x_M, and a new x_M drawn from
 * another theta breaks the joint p(z, theta, x_M | x_O).  For such a
 * sampler the caller passes the chain's own theta: no P-step, and the
 * I-step x_M ~ p(x_M | theta_k, x_O) is an exact Gibbs update of x_M in
 * the chain on (z, theta, x_M).
 *
 * Memory: everything from mcx_alloc() at the start of the call, sized by
 * the block dimension and the number of clusters; nothing in the loops.
 */
#include <string.h>
#include "mixture_impute.h"

/* Cholesky of the c x c submatrix S[idx, idx] of the d x d S into L. */
static int sub_chol(const double *S, int d, const int *idx, int c, double *L)
{
    for (int b = 0; b < c; b++)
        for (int a = 0; a < c; a++) L[a + (size_t) b * c] = S[idx[a] + (size_t) idx[b] * d];
    return mcx_chol(L, c);
}

/* Draw the missing coordinates of one row x (d values; miss[j] != 0 marks
 * a missing one) from their conditional given the observed ones under
 * N(mu, S).  w holds 3 d^2 + 3 d doubles of scratch, idx 2 d ints. */
static void draw_conditional(double *x, const int *miss, const double *mu, const double *S,
                             int d, double *w, int *idx)
{
    int *O = idx, *M = idx + d, no = 0, nm = 0;
    for (int j = 0; j < d; j++) {
        if (miss[j]) M[nm++] = j; else O[no++] = j;
    }
    if (nm == 0) return;
    double *L = w, *B = w + (size_t) d * d, *C = w + 2 * (size_t) d * d;
    double *r = w + 3 * (size_t) d * d, *mean = r + d, *e = mean + d;
    for (int a = 0; a < nm; a++) mean[a] = mu[M[a]];
    for (int b = 0; b < nm; b++)
        for (int a = 0; a < nm; a++) C[a + (size_t) b * nm] = S[M[a] + (size_t) M[b] * d];
    if (no > 0) {
        if (sub_chol(S, d, O, no, L) != 0)
            mcx_error("imputation: a drawn covariance matrix is not positive definite");
        for (int a = 0; a < no; a++) r[a] = x[O[a]] - mu[O[a]];
        mcx_trsv_lower(L, r, no);                      /* r = L^{-1} (x_O - mu_O) */
        for (int b = 0; b < nm; b++) {                 /* B[, b] = L^{-1} S_OM[, b] */
            double *col = B + (size_t) b * no;
            for (int a = 0; a < no; a++) col[a] = S[O[a] + (size_t) M[b] * d];
            mcx_trsv_lower(L, col, no);
            for (int a = 0; a < no; a++) mean[b] += col[a] * r[a];
        }
        for (int b = 0; b < nm; b++)                   /* C -= B' B */
            for (int a = 0; a < nm; a++) {
                double s = 0.0;
                for (int t = 0; t < no; t++) s += B[t + (size_t) a * no] * B[t + (size_t) b * no];
                C[a + (size_t) b * nm] -= s;
            }
    }
    if (mcx_chol(C, nm) != 0)
        mcx_error("imputation: a conditional covariance matrix is not positive definite");
    for (int a = 0; a < nm; a++) e[a] = norm_rand();
    for (int a = 0; a < nm; a++) {
        double s = mean[a];
        for (int t = 0; t <= a; t++) s += C[a + (size_t) t * nm] * e[t];
        x[M[a]] = s;
    }
}

void mcx_impute_block(const mcx_impute_block_spec *b, double *xt, int dim, int n,
                      const int *miss, const int *z, const double *theta_kept,
                      size_t pstride)
{
    const mcx_family *f = b->fam;
    int d = b->dim, K = 0;
    for (int i = 0; i < n; i++) if (z[i] + 1 > K) K = z[i] + 1;
    if (K < 1 || b->off + d > dim) MCX_INTERNAL("bad imputation block");
    size_t ss = mcx_family_stats_doubles(f, b->hyper);
    size_t ps = f->param_size(b->hyper), ws = f->work_size(b->hyper);
    double *stats = mcx_alloc((size_t) K * ss, sizeof(double));
    double *theta = mcx_alloc((size_t) K * ps + 1, sizeof(double));
    double *work = mcx_alloc(ws + 1, sizeof(double));
    double *w = mcx_alloc(3 * (size_t) d * d + 3 * (size_t) d, sizeof(double));
    int *idx = mcx_alloc(2 * (size_t) d, sizeof(int));
    int *need = mcx_alloc((size_t) K, sizeof(int));
    memset(need, 0, sizeof(int) * (size_t) K);
    for (int k = 0; k < K; k++) f->stats_reset(b->hyper, stats + (size_t) k * ss);
    for (int i = 0; i < n; i++) {
        if (z[i] < 0) MCX_INTERNAL("unassigned observation");
        if (theta_kept == NULL)
            f->stats_add(b->hyper, stats + (size_t) z[i] * ss, xt + (size_t) i * dim + b->off,
                         work);
        for (int j = 0; j < d; j++)
            if (miss[(size_t) i * dim + b->off + j]) { need[z[i]] = 1; break; }
    }
    /* P-step, clusters in index order (none with the chain's own theta) */
    if (theta_kept == NULL)
        for (int k = 0; k < K; k++)
            if (need[k])
                f->param_draw(b->hyper, stats + (size_t) k * ss, theta + (size_t) k * ps, work);
    /* I-step, rows in index order */
    for (int i = 0; i < n; i++) {
        if (!need[z[i]]) continue;
        const double *th = theta_kept != NULL
            ? theta_kept + (size_t) z[i] * pstride + b->poff
            : theta + (size_t) z[i] * ps;
        draw_conditional(xt + (size_t) i * dim + b->off, miss + (size_t) i * dim + b->off,
                         th, b->cov != NULL ? b->cov : th + d, d, w, idx);
    }
}
