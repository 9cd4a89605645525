/*
 * family_r.h -- a component family defined by R functions (r_family() in
 * R/family_r.R): the non-conjugate plugin descriptor (ABI 2) whose slots
 * call back into R, for the DP sampler "neal8".
 */
#ifndef MCMIX_FAMILY_R_H
#define MCMIX_FAMILY_R_H
#include <R.h>
#include <Rinternals.h>
#include "mcmix_engine.h"

/* Build the descriptor and its context (returned through *hyper) from the
 * list rfam = list(log_lik, log_prior, prior_draw, psize, dim, method,
 * width, n_update) made by R (log_lik takes c(theta, x), prior_draw one
 * dummy number).  Returns the number of objects PROTECTed. */
int mcx_r_family_open(SEXP rfam, int dim, const mcx_family **fam, const void **hyper);

#endif
