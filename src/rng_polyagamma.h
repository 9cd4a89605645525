/*
 * rng_polyagamma.h -- Polya-Gamma and Holmes-Held mixing variates (engine).
 */
#ifndef MCMIX_RNG_POLYAGAMMA_H
#define MCMIX_RNG_POLYAGAMMA_H

/* One draw of PG(1, z) (Polson, Scott and Windle 2013). */
double mcx_rpolyagamma(double z);

/* One draw of lambda from p(lambda | r) propto lambda^{-1/2}
 * exp(-r^2 / (2 lambda)) pi(lambda), lambda = (2 psi)^2 with psi
 * Kolmogorov-Smirnov distributed (Holmes and Held 2006, appendix A4). */
double mcx_rks_mixing(double r);

#endif
