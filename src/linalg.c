/*
 * linalg.c -- small dense linear algebra for the engine (see linalg.h).
 *
 * Column-major d x d matrices, element (i, j) at A[i + j * d]; Cholesky
 * factors are lower triangular with a positive diagonal.  Hand-written loops
 * (no BLAS/LAPACK): the matrices of mixture components are small (d up to
 * about 20), where call overhead dominates.  Nothing here allocates.
 */
#include <math.h>
#include "mcmix_engine.h"

#define M(A, i, j) ((A)[(size_t) (i) + (size_t) (j) * (size_t) d])

/*
 * In-place Cholesky-Crout factorisation A = L L' by columns.  Only the lower
 * triangle of A is read.  Returns 0, or the 1-based column where a
 * non-positive (or NaN) pivot shows that A is not positive definite.
 */
int mcx_chol(double *A, int d)
{
    for (int j = 0; j < d; j++) {
        double s = M(A, j, j);
        for (int k = 0; k < j; k++) s -= M(A, j, k) * M(A, j, k);
        if (!(s > 0.0) || !isfinite(s)) return j + 1;
        double ljj = sqrt(s);
        M(A, j, j) = ljj;
        for (int i = j + 1; i < d; i++) {
            double t = M(A, i, j);
            for (int k = 0; k < j; k++) t -= M(A, i, k) * M(A, j, k);
            M(A, i, j) = t / ljj;
        }
        for (int i = 0; i < j; i++) M(A, i, j) = 0.0;   /* upper triangle */
    }
    return 0;
}

/*
 * Rank-one update L L' + x x' by a sequence of Givens-like rotations
 * (the LINPACK dchud scheme): column k is rotated against x so that the new
 * diagonal is hypot(L_kk, x_k), then x carries the remainder to the next
 * columns.  O(d^2), numerically stable.
 */
void mcx_chol_update(double *L, double *x, int d)
{
    for (int k = 0; k < d; k++) {
        double lkk = M(L, k, k);
        double r = hypot(lkk, x[k]);
        double c = r / lkk, s = x[k] / lkk;
        M(L, k, k) = r;
        for (int i = k + 1; i < d; i++) {
            double lik = (M(L, i, k) + s * x[i]) / c;
            M(L, i, k) = lik;
            x[i] = c * x[i] - s * lik;
        }
    }
}

/*
 * Rank-one downdate L L' - x x' by hyperbolic rotations (the inverse of
 * mcx_chol_update).  L_kk^2 - x_k^2 is formed as (L_kk - x_k)(L_kk + x_k)
 * to limit cancellation; when it is not positive the result is not positive
 * definite and the 1-based column is returned (L is then partly modified).
 */
int mcx_chol_downdate(double *L, double *x, int d)
{
    for (int k = 0; k < d; k++) {
        double lkk = M(L, k, k);
        double r2 = (lkk - x[k]) * (lkk + x[k]);
        if (!(r2 > 0.0) || !isfinite(r2)) return k + 1;
        double r = sqrt(r2);
        double c = r / lkk, s = x[k] / lkk;
        M(L, k, k) = r;
        for (int i = k + 1; i < d; i++) {
            double lik = (M(L, i, k) - s * x[i]) / c;
            M(L, i, k) = lik;
            x[i] = c * x[i] - s * lik;
        }
    }
    return 0;
}

/* Forward substitution L y = b, by columns (contiguous access). */
void mcx_trsv_lower(const double *L, double *b, int d)
{
    for (int j = 0; j < d; j++) {
        double bj = b[j] / M(L, j, j);
        b[j] = bj;
        if (bj != 0.0)
            for (int i = j + 1; i < d; i++) b[i] -= M(L, i, j) * bj;
    }
}

/* Back substitution L' y = b; row j of L' is column j of L. */
void mcx_trsv_lower_t(const double *L, double *b, int d)
{
    for (int j = d - 1; j >= 0; j--) {
        double s = b[j];
        for (int i = j + 1; i < d; i++) s -= M(L, i, j) * b[i];
        b[j] = s / M(L, j, j);
    }
}

double mcx_chol_logdet(const double *L, int d)
{
    double s = 0.0;
    for (int i = 0; i < d; i++) s += log(M(L, i, i));
    return 2.0 * s;
}

/* v' (L L')^{-1} v = || L^{-1} v ||^2. */
double mcx_chol_quad(const double *L, const double *v, int d, double *work)
{
    for (int i = 0; i < d; i++) work[i] = v[i];
    mcx_trsv_lower(L, work, d);
    double s = 0.0;
    for (int i = 0; i < d; i++) s += work[i] * work[i];
    return s;
}

/*
 * A^{-1} = L^{-T} L^{-1}.  L^{-1} (lower) is built in the lower triangle of
 * Ainv; the strict upper triangle of the product is then formed (it reads
 * only the lower triangle), then the diagonal (column i of L^{-1} is not
 * needed after its own diagonal), and finally mirrored.
 */
void mcx_chol_inverse(const double *L, int d, double *Ainv)
{
    /* X = L^{-1}, column by column: L X[, j] = e_j */
    for (int j = 0; j < d; j++) {
        M(Ainv, j, j) = 1.0 / M(L, j, j);
        for (int i = j + 1; i < d; i++) {
            double s = 0.0;
            for (int k = j; k < i; k++) s += M(L, i, k) * M(Ainv, k, j);
            M(Ainv, i, j) = -s / M(L, i, i);
        }
    }
    /* (X'X)[i, j] = sum_{k >= j} X[k, i] X[k, j] for i < j */
    for (int j = 1; j < d; j++)
        for (int i = 0; i < j; i++) {
            double s = 0.0;
            for (int k = j; k < d; k++) s += M(Ainv, k, i) * M(Ainv, k, j);
            M(Ainv, i, j) = s;
        }
    for (int i = 0; i < d; i++) {
        double s = 0.0;
        for (int k = i; k < d; k++) s += M(Ainv, k, i) * M(Ainv, k, i);
        M(Ainv, i, i) = s;
    }
    for (int j = 1; j < d; j++)
        for (int i = 0; i < j; i++) M(Ainv, j, i) = M(Ainv, i, j);
}

/* C = A B, loops ordered j, k, i for contiguous access to A and C. */
void mcx_matmul(const double *A, const double *B, int d, double *C)
{
    for (int j = 0; j < d; j++) {
        for (int i = 0; i < d; i++) M(C, i, j) = 0.0;
        for (int k = 0; k < d; k++) {
            double bkj = M(B, k, j);
            for (int i = 0; i < d; i++) M(C, i, j) += M(A, i, k) * bkj;
        }
    }
}
