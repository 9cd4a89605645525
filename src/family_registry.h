/* family_registry.h -- families registered by name (DESIGN 2.1). */
#ifndef MCMIX_FAMILY_REGISTRY_H
#define MCMIX_FAMILY_REGISTRY_H
#include "mcmix_abi.h"

int mcx_register_family(const mcx_family *family);
const mcx_family *mcx_find_family(const char *name);
/* Like mcx_find_family, but an unknown name is an R error listing the valid names. */
const mcx_family *mcx_get_family(const char *name);
int mcx_n_families(void);
const mcx_family *mcx_family_at(int i);
int mcx_abi_version(void);

/* Cheap bounds for the collapsed Gibbs scan's stay test (mixture_dp.c),
 * for the built-in families that have them (gaussian_niw, in
 * family_gaussian_niw.c); NULL for the others.  Not plugin slots: capabilities
 * (mcx_family_caps below).
 * A lower bound on the family's log_predictive_loo without a
 * transcendental function (gaussian_niw: mcx_niw_log_predictive_loo_lower()). */
typedef double (*mcx_predictive_loo_lower_fn)(const void *hyper, const void *stats,
                                              const double *x, double *work);
/* max(init, max over clusters k != skip of log_count[size[k]] + the bound
 * at x of the k-th of K stats blocks `stride` doubles apart), an upper
 * bound on log_predictive without a logarithm, over all clusters but a
 * point's own in one call (gaussian_niw: mcx_niw_log_predictive_bound_max()). */
typedef double (*mcx_predictive_bound_max_fn)(const void *hyper, const double *stats,
                                              size_t stride, int K, int skip, const int *size,
                                              const double *log_count, const double *x,
                                              double init, double *work);
/* The statistics of a group from its raw moments (count, mean, scatter:
 * stats_moments.h, finished), for the built-in families whose statistics
 * are a function of them (gaussian_niw: mcx_niw_stats_moments() in
 * family_gaussian_niw.c); NULL for the others, which add the members one
 * by one.  Not a plugin slot: the sub-cluster sampler sums the moments of
 * many members in a plain loop and converts them once per group
 * (mixture_subcluster_stats.c). */
typedef void (*mcx_stats_moments_fn)(const void *hyper, double *stats, const double *mo);
/* out[k] = add[k] + log_lik(theta_k, x) for K parameter vectors theta +
 * k psize and x's coordinate t at x[t * xstep], equal bit for bit to the
 * log_lik slot, for the built-in families that have it (gaussian_niw:
 * mcx_niw_log_lik_all()); NULL for the others.  Not a plugin slot: the
 * label pass of the sub-cluster sampler reads the data in place with it
 * (mixture_subcluster.c). */
typedef void (*mcx_log_lik_all_fn)(const void *hyper, const double *theta, size_t psize, int K,
                                   const double *x, size_t xstep, const double *add,
                                   double *out, double *work);

/* What the engine may use of a family beyond its descriptor: capability
 * flags and fast paths that are not plugin slots.  A built-in family
 * declares its own next to its descriptor (mcx_caps_<name>, listed in
 * family_builtin.h) and is registered with them; a plugin family has
 * none (every flag 0, every pointer NULL).  The registry stores them and
 * knows no family by name. */
typedef struct mcx_family_caps {
    /* pure C: safe to call from several threads at once with separate
     * `work` (0 for plugins and for the product family, whose parts may be
     * plugins) */
    int thread_safe;
    /* whether stats_combine may be used with these hyperparameters (the
     * product family: only when every part combines); NULL: whenever the
     * slot is set */
    int (*combinable)(const void *hyper);
    mcx_predictive_bound_max_fn predictive_bound_max;
    mcx_predictive_loo_lower_fn predictive_loo_lower;
    mcx_stats_moments_fn stats_moments;
    mcx_log_lik_all_fn log_lik_all;
    /* the split-merge proposals' surrogate (mixture_splitmerge.c, dim >= 2):
     * a family and its hyperparameter vector (4 dim values) computed from
     * this family's hyperparameters; NULL: none */
    const mcx_family *surrogate;
    void (*surrogate_hyper)(const void *hyper, double *values);
} mcx_family_caps;

/* Register `family` with its capabilities (copied by reference: static
 * storage); mcx_register_family() registers one with none. */
int mcx_register_family_caps(const mcx_family *family, const mcx_family_caps *caps);
/* The capabilities registered with f (none for an unregistered one). */
const mcx_family_caps *mcx_family_caps_of(const mcx_family *f);

static inline int mcx_family_thread_safe(const mcx_family *f)
{
    return mcx_family_caps_of(f)->thread_safe;
}

/* The optional parameter move of a family (mcmix.h, ABI >= 2); NULL for a
 * version-1 descriptor, which ends before the slot. */
typedef void (*mcx_param_update_fn)(const void *hyper, const void *stats, double *theta,
                                    const double *x, int n, double *work);
static inline mcx_param_update_fn mcx_family_param_update(const mcx_family *f)
{
    return f->abi_version >= 2 ? f->param_update : NULL;
}
/* The optional ABI 4 slots (NULL for older descriptors, which end before
 * them, and for families that leave them empty). */
typedef void (*mcx_stats_combine_fn)(const void *hyper, void *stats, const void *other,
                                     double *work);
typedef double (*mcx_predictive_loo_fn)(const void *hyper, const void *stats,
                                        const double *x, double *work);
static inline mcx_stats_combine_fn mcx_family_stats_combine(const mcx_family *f)
{
    return f->abi_version >= 4 ? f->stats_combine : NULL;
}
static inline mcx_predictive_loo_fn mcx_family_predictive_loo(const mcx_family *f)
{
    return f->abi_version >= 4 ? f->log_predictive_loo : NULL;
}
/* The combine function a host may use for family f with hyperparameters
 * `hyper` (the product family combines only when every part does). */
static inline mcx_stats_combine_fn mcx_family_combiner(const mcx_family *f, const void *hyper)
{
    const mcx_family_caps *c = mcx_family_caps_of(f);
    if (c->combinable != NULL && !c->combinable(hyper)) return NULL;
    return mcx_family_stats_combine(f);
}
/* The sizes of a family's hyper and stats blocks in doubles, whatever its
 * ABI version (before ABI 3 these two slots counted bytes).  Every host
 * allocation goes through these. */
static inline size_t mcx_family_hyper_doubles(const mcx_family *f, int dim)
{
    size_t s = f->hyper_size(dim);
    return f->abi_version >= 3 ? s : MCX_DOUBLES(s);
}
static inline size_t mcx_family_stats_doubles(const mcx_family *f, const void *hyper)
{
    size_t s = f->stats_size(hyper);
    return f->abi_version >= 3 ? s : MCX_DOUBLES(s);
}
static inline mcx_predictive_bound_max_fn mcx_family_predictive_bound_max(const mcx_family *f)
{
    return mcx_family_caps_of(f)->predictive_bound_max;
}
static inline mcx_predictive_loo_lower_fn mcx_family_predictive_loo_lower(const mcx_family *f)
{
    return mcx_family_caps_of(f)->predictive_loo_lower;
}
static inline mcx_stats_moments_fn mcx_family_stats_moments(const mcx_family *f)
{
    return mcx_family_caps_of(f)->stats_moments;
}
static inline mcx_log_lik_all_fn mcx_family_log_lik_all(const mcx_family *f)
{
    return mcx_family_caps_of(f)->log_lik_all;
}
/* Conjugate: the collapsed predictive and marginal likelihood exist. */
static inline int mcx_family_conjugate(const mcx_family *f)
{
    return f->log_predictive != NULL && f->log_marginal != NULL;
}
#endif
