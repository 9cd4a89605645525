/*
 * linalg.h -- small dense linear algebra for the engine (column-major,
 * d x d, lower-triangular Cholesky factors), written for the small
 * dimensions of mixture components where BLAS call overhead dominates.
 */
#ifndef MCMIX_LINALG_H
#define MCMIX_LINALG_H

/* In-place lower Cholesky A = L L' (upper triangle set to 0).
 * Returns 0, or the 1-based column where A is not positive definite. */
int    mcx_chol(double *A, int d);
/* L L' + x x' -> L L' (rank-one update). x is overwritten. */
void   mcx_chol_update(double *L, double *x, int d);
/* L L' - x x' -> L L' (rank-one downdate). x is overwritten.
 * Returns 0, or non-zero when the result would not be positive definite
 * (L is then unspecified and must be recomputed). */
int    mcx_chol_downdate(double *L, double *x, int d);
/* Solve L y = b in place (forward substitution). */
void   mcx_trsv_lower(const double *L, double *b, int d);
/* Solve L' y = b in place (back substitution). */
void   mcx_trsv_lower_t(const double *L, double *b, int d);
/* log det(L L') = 2 sum log L_ii. */
double mcx_chol_logdet(const double *L, int d);
/* || L^{-1} v ||^2 with v copied into work (d doubles). */
double mcx_chol_quad(const double *L, const double *v, int d, double *work);
/* A^{-1} from its Cholesky factor into Ainv (d x d, full symmetric). */
void   mcx_chol_inverse(const double *L, int d, double *Ainv);
/* C = A B for d x d matrices (C distinct from A and B). */
void   mcx_matmul(const double *A, const double *B, int d, double *C);
#endif
