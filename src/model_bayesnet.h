/*
 * model_bayesnet.h -- Gibbs sampling, annealing and ICM on discrete
 * models given as a product of factors (a Bayesian network is the case
 * where the factors are the conditional probability tables).  SEXP-free.
 *
 * Variables 0..nvar-1 take values 0..card[v]-1; the state x holds every
 * variable (the observed ones stay fixed).  Factor f has the scope
 * scope[fac_ptr[f] .. fac_ptr[f+1]-1] with strides stride[...] into its
 * table of logarithms logtab + tab_ptr[f] (column-major, as an R array).
 * The hidden variables are updated in blocks: block b holds the variables
 * blk_var[blk_ptr[b] .. blk_ptr[b+1]-1] and touches the factors
 * blk_fac[blk_fac_ptr[b] .. blk_fac_ptr[b+1]-1] (its Markov blanket's
 * factors; Koller and Friedman 2009, section 12.3).  Its feasible joint
 * values (those that no factor rules out whatever the other variables,
 * found in R) are the blk_nval[b] rows of blk_val + blk_val_ptr[b], each
 * a value (0-based) for every variable of the block in order, so that a
 * block of many variables tied by structural zeros (a chain of
 * deterministic copies) costs its few feasible values, not the product
 * of its cardinalities.
 */
#ifndef MCMIX_MODEL_BAYESNET_H
#define MCMIX_MODEL_BAYESNET_H

#include "mcmix_engine.h"

typedef struct {
    int nvar;
    const int *card;
    int nfac;
    const int *fac_ptr, *scope, *stride, *tab_ptr;
    const double *logtab;
    int nblock;
    const int *blk_ptr, *blk_var, *blk_fac_ptr, *blk_fac;
    const int *blk_nval, *blk_val_ptr, *blk_val;
    /* scratch */
    double *lw;          /* max over blocks of the number of joint values */
    int *perm;           /* nblock */
    double sweep_work;   /* units of work of one sweep (mcx_interrupt_point) */
} mcx_bn;

/* Allocate the scratch (mcx_alloc) and set sweep_work. */
void mcx_bn_setup(mcx_bn *m);
/* log of the product of all factors at x. */
double mcx_bn_log_joint(const mcx_bn *m, const int *x);
/* One sweep over the blocks in a random order, each drawn from its
 * conditional raised to `power` (R_PosInf: its mode, ICM). */
void mcx_bn_sweep(const mcx_bn *m, int *x, double power);

#endif
