/* registry.h -- families registered by name (DESIGN 2.1). */
#ifndef MCMIX_REGISTRY_H
#define MCMIX_REGISTRY_H
#include "mcmix.h"

int mcx_register_family(const mcx_family *family);
const mcx_family *mcx_find_family(const char *name);
/* Like mcx_find_family, but an unknown name is an R error listing the valid names. */
const mcx_family *mcx_get_family(const char *name);
int mcx_n_families(void);
const mcx_family *mcx_family_at(int i);
int mcx_abi_version(void);

/* Built-in families (one file each, family_*.c). */
extern const mcx_family mcx_family_gaussian_mean;
extern const mcx_family mcx_family_gaussian_niw;
extern const mcx_family mcx_family_gaussian_diag;
extern const mcx_family mcx_family_bernoulli_beta;
extern const mcx_family mcx_family_categorical_dirichlet;
extern const mcx_family mcx_family_poisson_gamma;
void mcx_register_builtin_families(void);
#endif
