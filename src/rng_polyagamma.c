/*
 * rng_polyagamma.c -- exact samplers for the logistic scale mixtures.
 *
 * Polya-Gamma PG(1, z) (Polson, Scott and Windle 2013, JASA 108, 1339-1349,
 * section 4 and appendix: the sampler of J*(1, c) with PG(1, z) =
 * J*(1, z/2) / 4).  J*(1, c) has the density
 *     f(x | c) = cosh(c) exp(-c^2 x / 2) sum_n (-1)^n a_n(x),
 *     a_n(x) = pi (n + 1/2) (2 / (pi x))^{3/2} exp(-2 (n + 1/2)^2 / x), x <= t,
 *     a_n(x) = pi (n + 1/2) exp(-(n + 1/2)^2 pi^2 x / 2),               x > t,
 * whose partial sums alternate around it (Devroye 1986, section IV.5: the
 * alternating series method).  Proposals are a mixture of an inverse
 * Gaussian truncated to (0, t] and an exponential on (t, Inf), with
 * t = 0.64 (the truncation point that nearly maximises acceptance); the
 * proposal is accepted when a uniform below a_0 falls under the series.
 *
 * Holmes and Held (2006, Bayesian Analysis 1, 145-168, appendix A4): the
 * mixing variance lambda of the logistic distribution as a normal scale
 * mixture, lambda = (2 psi)^2 with psi Kolmogorov-Smirnov, given a
 * residual r: propose from GIG(1/2, 1, r^2) (the reciprocal of an inverse
 * Gaussian with mean 1/|r| and shape 1, drawn by Michael, Schucany and Haas
 * 1976) and accept by the alternating series of the KS density, one for
 * lambda > 4/3 and one (after Jacobi's theta transform) for lambda <= 4/3.
 * Murphy (2012), section 24.5.1.
 */
#include <Rmath.h>
#include "mcmix_engine.h"
#include "rng_polyagamma.h"

#define PG_T 0.64

/* The n-th term a_n(x) of the series of J*(1, 0). */
static double pg_a(int n, double x)
{
    double k = (n + 0.5) * M_PI;
    if (x > PG_T) return k * exp(-0.5 * k * k * x);
    if (x <= 0) return 0.0;
    return exp(log(k) - 1.5 * (log(0.5 * M_PI) + log(x))
               - 2.0 * (n + 0.5) * (n + 0.5) / x);
}

/* Probability of the exponential part of the proposal for J*(1, c). */
static double pg_mass_exp(double c)
{
    double fz = M_PI * M_PI / 8.0 + 0.5 * c * c;
    double rt = sqrt(1.0 / PG_T);
    double b = rt * (PG_T * c - 1.0), a = -rt * (PG_T * c + 1.0);
    double x0 = log(fz) + fz * PG_T;
    double xb = x0 - c + pnorm(b, 0.0, 1.0, 1, 1);
    double xa = x0 + c + pnorm(a, 0.0, 1.0, 1, 1);
    double qdivp = 4.0 / M_PI * (exp(xb) + exp(xa));
    return 1.0 / (1.0 + qdivp);
}

/* Inverse Gaussian IG(mu = 1/c, shape 1) truncated to (0, t]. */
static double pg_rtigauss(double c)
{
    double mu = 1.0 / c, x = PG_T + 1.0;
    if (c <= 0 || mu > PG_T) {
        /* mean beyond t: 1/X from a truncated chi-square-like proposal,
         * accepted with probability exp(-c^2 x / 2) */
        for (;;) {
            double e1 = exp_rand(), e2 = exp_rand();
            while (e1 * e1 > 2.0 * e2 / PG_T) { e1 = exp_rand(); e2 = exp_rand(); }
            x = PG_T / ((1.0 + PG_T * e1) * (1.0 + PG_T * e1));
            if (unif_rand() <= exp(-0.5 * c * c * x)) return x;
        }
    }
    while (x > PG_T) {
        double y = norm_rand(), a;
        a = mu * y * y;
        /* mu + mu a / 2 - mu sqrt(4 a + a^2) / 2, without cancellation */
        x = 2.0 * mu / (2.0 + a + sqrt(a * a + 4.0 * a));
        if (unif_rand() > mu / (mu + x)) x = mu * mu / x;
    }
    return x;
}

double mcx_rpolyagamma(double z)
{
    double c = 0.5 * fabs(z);
    double fz = M_PI * M_PI / 8.0 + 0.5 * c * c;
    double p_exp = pg_mass_exp(c);
    for (int tries = 0; tries < 100000; tries++) {
        double x = unif_rand() < p_exp ? PG_T + exp_rand() / fz : pg_rtigauss(c);
        double s = pg_a(0, x), y = unif_rand() * s;
        for (int n = 1; n < 1000; n++) {
            if (n % 2 == 1) {
                s -= pg_a(n, x);
                if (y <= s) return 0.25 * x;
            } else {
                s += pg_a(n, x);
                if (y > s) break;
            }
        }
    }
    mcx_error("the Polya-Gamma sampler did not accept a draw (z = %g).", z);
}

/* Acceptance test of Holmes and Held for lambda > 4/3. */
static int ks_right(double u, double lambda)
{
    double z = 1.0, x = exp(-0.5 * lambda);
    for (int j = 1; j < 10000; j += 2) {
        double a = (double) (j + 1), b = (double) (j + 2);
        z -= a * a * pow(x, a * a - 1.0);
        if (z > u) return 1;
        z += b * b * pow(x, b * b - 1.0);
        if (z < u) return 0;
    }
    return 0;
}

/* Acceptance test of Holmes and Held for lambda <= 4/3. */
static int ks_left(double u, double lambda)
{
    double h = 0.5 * log(2.0) + 2.5 * log(M_PI) - 2.5 * log(lambda)
               - M_PI * M_PI / (2.0 * lambda) + 0.5 * lambda;
    double lu = log(u), z = 1.0, x = exp(-M_PI * M_PI / (2.0 * lambda));
    double k = lambda / (M_PI * M_PI);
    for (int j = 1; j < 10000; j += 2) {
        z -= k * pow(x, (double) j * j - 1.0);
        if (h + log(z) > lu) return 1;
        double b = (double) (j + 2);
        z += b * b * pow(x, b * b - 1.0);
        if (h + log(z) < lu) return 0;
    }
    return 0;
}

double mcx_rks_mixing(double r)
{
    r = fabs(r);
    if (r < 1e-10) r = 1e-10;  /* the density is continuous at r = 0 */
    for (int tries = 0; tries < 100000; tries++) {
        double y = norm_rand(), sq;
        y *= y;
        /* 1 + (y - sqrt(y (4 r + y))) / (2 r), without cancellation */
        sq = y + sqrt(y * (4.0 * r + y));
        y = 4.0 * r * y / (sq * sq);
        double lambda = unif_rand() <= 1.0 / (1.0 + y) ? r / y : r * y;
        double u = unif_rand();
        if (lambda > 4.0 / 3.0 ? ks_right(u, lambda) : ks_left(u, lambda))
            return lambda;
    }
    mcx_error("the Kolmogorov-Smirnov mixing sampler did not accept a draw (r = %g).", r);
}
