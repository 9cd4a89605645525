/*
 * mixture_rcrp.c -- simulators of the prior over partitions (see mixture.h).
 *
 * Chinese restaurant process with discount d (Pitman-Yor; Pitman
 * 2006; Sudderth 2011, slides "Polya urn"): with i customers seated at K
 * tables of sizes n_1..n_K, customer i+1 sits at table k with probability
 * (n_k - d) / (i + alpha) and at a new table with probability
 * (alpha + d K) / (i + alpha).
 */
#include "mixture.h"

int mcx_rcrp(int n, double alpha, double d, int *labels, int *counts)
{
    if (!(d >= 0.0 && d < 1.0) || !(alpha > -d)) MCX_INTERNAL("invalid CRP parameters");
    int K = 0;
    for (int i = 0; i < n; i++) {
        double u = unif_rand() * (i + alpha);
        double cum = 0.0;
        int c = K;                      /* new table unless an old one is hit */
        for (int k = 0; k < K; k++) {
            cum += counts[k] - d;
            if (u < cum) {
                c = k;
                break;
            }
        }
        if (c == K) counts[K++] = 0;
        counts[c]++;
        labels[i] = c + 1;
    }
    return K;
}
