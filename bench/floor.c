/*
 * floor.c -- the floor of one collapsed Gibbs sweep (bench/bench-scale.R):
 * for each of n bivariate points, the log Student-t predictive of each of
 * K clusters plus the prior's (K + 1 in all) from cached factors (mean,
 * inverse Cholesky factor, constant, exponent), the log weights, one
 * categorical draw.  No sufficient statistics are updated and no
 * permutation is drawn: what any collapsed sweep must at least do.
 * Built with R CMD SHLIB and called through .C (benchmark only, not part
 * of the package).
 */
#include <math.h>
#include <R_ext/Random.h>

void floor_sweep(const double *x, int *n_, int *K_, const double *par, int *sweeps_,
                 int *z)
{
    int n = *n_, K = *K_ + 1;
    double lw[64];
    GetRNGstate();
    for (int s = 0; s < *sweeps_; s++)
        for (int i = 0; i < n; i++) {
            double x0 = x[2 * i], x1 = x[2 * i + 1], mx = -INFINITY;
            for (int k = 0; k < K; k++) {
                /* par: mu0, mu1, L00, L10, L11 (inverse factor), const, exponent, log count */
                const double *p = par + 8 * k;
                double a = p[2] * (x0 - p[0]);
                double b = p[3] * (x0 - p[0]) + p[4] * (x1 - p[1]);
                lw[k] = p[7] + p[5] - p[6] * log1p(a * a + b * b);
                if (lw[k] > mx) mx = lw[k];
            }
            double tot = 0.0;
            for (int k = 0; k < K; k++) tot += (lw[k] = exp(lw[k] - mx));
            double u = unif_rand() * tot;
            int k = 0;
            while (k < K - 1 && u >= lw[k]) u -= lw[k++];
            z[i] = k;
        }
    PutRNGstate();
}
