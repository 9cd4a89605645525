/*
 * family_builtin.h -- the built-in component families, one row each: the
 * descriptor mcx_family_<name> and the capabilities mcx_caps_<name>, both
 * defined in the family's own file (family_<name>.c), listed once in
 * MCX_BUILTIN_FAMILIES and registered by mcx_register_builtin_families()
 * (family_builtin.c) at load time, in this order.
 *
 * Adding a built-in family (inst/design.md, "How to add"): its file
 * src/family_<name>.c with the two definitions, one X(<name>) here, the R
 * constructor and simulator, and the rows the completeness tests ask for
 * (tests/testthat/test-recipes.R).
 */
#ifndef MCMIX_FAMILY_BUILTIN_H
#define MCMIX_FAMILY_BUILTIN_H

#include "mcmix_engine.h"

#define MCX_BUILTIN_FAMILIES(X) \
    X(gaussian_mean)            \
    X(gaussian_niw)             \
    X(gaussian_diag)            \
    X(gaussian_iso)             \
    X(bernoulli_beta)           \
    X(categorical_dirichlet)    \
    X(poisson_gamma)            \
    X(gaussian_nonconj)         \
    X(product)

#define MCX_FAMILY_DECLARE(name)                    \
    extern const mcx_family mcx_family_##name;      \
    extern const mcx_family_caps mcx_caps_##name;
MCX_BUILTIN_FAMILIES(MCX_FAMILY_DECLARE)
#undef MCX_FAMILY_DECLARE

/* Register every row (R_init_mcmix, before any plugin). */
void mcx_register_builtin_families(void);

#endif
