/*
 * mcmix.h -- the public plugin interface of the mcmix package.
 *
 * Another package adds a component family (for the mixture samplers) or a
 * target density (for the generic samplers) by filling one of the two
 * descriptor tables below and handing it to mcmix at load time:
 *
 *   In DESCRIPTION:  LinkingTo: mcmix      Imports: mcmix
 *   In src/init.c:
 *
 *     #include <mcmix.h>
 *     static const mcx_family my_family = { MCX_ABI_VERSION, "my_family", ... };
 *     void R_init_mypkg(DllInfo *dll) {
 *         ...
 *         mcmix_register_family(&my_family);
 *     }
 *
 * The functions are looked up lazily with R_GetCCallable(), so this header
 * is all a plugin needs (no linking against mcmix.so); mcmix must be
 * loaded first, which `Imports: mcmix` ensures.  mcmix keeps a pointer to
 * each family descriptor: it must stay alive (static storage) for the life
 * of the R session.  Registering a name again replaces the entry (so a
 * plugin package can be reloaded); at most 128 families can be registered.
 *
 * ABI: the structs only ever grow at the end.  MCX_ABI_VERSION is bumped
 * when a slot is appended; mcmix refuses descriptors whose abi_version is
 * newer than its own or older than MCX_ABI_MIN_VERSION.
 */
#ifndef MCMIX_H
#define MCMIX_H

#include <stddef.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCX_ABI_VERSION 2
#define MCX_ABI_MIN_VERSION 1

/* ------------------------------------------------------------------ */
/* Component family: a likelihood with its prior (conjugate, or       */
/* non-conjugate with param_update: see the ABI version 2 slot).      */
/* ------------------------------------------------------------------ */

/*
 * Conventions
 * - `dim` is the length of one observation x (a row of the data matrix).
 * - `hyper` is an opaque block of hyper_size(dim) bytes, filled once by
 *   hyper_init() from the numeric vector built by the family's R
 *   constructor (for a plugin family, the `hyper` argument of
 *   mcmix_family(), unchecked by R); afterwards it is read-only.
 * - `stats` is an opaque block of stats_size(hyper) bytes holding the
 *   sufficient statistics of one cluster and any cache that makes
 *   log_predictive cheap.  stats_reset() makes it the empty cluster.
 * - `work` is caller-owned scratch of work_size(hyper) doubles, so the
 *   family never allocates.  Families must not keep pointers into it.
 * - Every function must be safe to call with an empty cluster: then
 *   log_predictive is the prior predictive, log_marginal is 0 and
 *   param_draw draws from the prior.
 * - Randomness only through R's RNG (unif_rand, norm_rand, Rmath r*()).
 */
typedef struct mcx_family {
    int         abi_version;      /* MCX_ABI_VERSION at compile time */
    const char *name;             /* registry key, e.g. "gaussian_niw" */

    size_t (*hyper_size)(int dim);
    /* Parse and check the hyperparameter vector; return 0 on success,
     * non-zero when the values do not fit `dim` (wrong n_values, values
     * out of range).  This is how a plugin family's `hyper` is validated:
     * mcmix_family() (when given `dim`) or else the samplers (once the
     * data give `dim`) call hyper_init() first and turn a non-zero return
     * into an R error about `hyper` (quoting the code returned), so return
     * a code rather than calling Rf_error().  For the built-in families
     * the R constructors check first, so there it is an internal error. */
    int    (*hyper_init)(void *hyper, int dim, const double *values, int n_values);
    size_t (*work_size)(const void *hyper);          /* in doubles */

    size_t (*stats_size)(const void *hyper);
    void   (*stats_reset)(const void *hyper, void *stats);
    void   (*stats_add)(const void *hyper, void *stats, const double *x, double *work);
    void   (*stats_remove)(const void *hyper, void *stats, const double *x, double *work);
    /* log p(x | data in the cluster), the collapsed (posterior) predictive */
    double (*log_predictive)(const void *hyper, const void *stats, const double *x, double *work);
    /* log p(data in the cluster), the marginal likelihood */
    double (*log_marginal)(const void *hyper, const void *stats, double *work);

    size_t (*param_size)(const void *hyper);         /* in doubles */
    /* theta ~ p(theta | data in the cluster); the prior when empty */
    void   (*param_draw)(const void *hyper, const void *stats, double *theta, double *work);
    /* log p(x | theta) */
    double (*log_lik)(const void *hyper, const double *theta, const double *x, double *work);

    /* ---- ABI version >= 2 (read only when abi_version >= 2) ---- */
    /* Optional (NULL for conjugate families, whose param_draw is exact):
     * one Markov move of theta (param_size doubles, updated in place) that
     * leaves p(theta | the cluster's data) invariant.  x holds the n
     * members of the cluster (dim x n, column-major) and stats their
     * sufficient statistics.  A family with param_update may leave
     * log_predictive and log_marginal NULL (a non-conjugate family): it is
     * then accepted only by samplers that instantiate the component
     * parameters (the DP sampler "neal8"); param_draw must still draw from
     * the prior when the cluster is empty. */
    void   (*param_update)(const void *hyper, const void *stats, double *theta,
                           const double *x, int n, double *work);
} mcx_family;

/* ------------------------------------------------------------------ */
/* Target: an unnormalised log density for the generic samplers.       */
/* ------------------------------------------------------------------ */
typedef struct mcx_target {
    int    abi_version;
    int    dim;
    /* log density at theta; -INFINITY outside the support */
    double (*log_density)(const double *theta, void *ctx);
    /* gradient of the log density; may be NULL (Hamiltonian Monte Carlo
     * then uses central finite differences of log_density) */
    void   (*gradient)(const double *theta, double *grad, void *ctx);
    void   *ctx;
} mcx_target;

/* ------------------------------------------------------------------ */
/* Functions exported by mcmix through R_RegisterCCallable().           */
/* ------------------------------------------------------------------ */

/* Register a family (call it from R_init_<pkg>).  Returns 0: a descriptor
 * it cannot accept raises an R error (Rf_error) instead, when the name is
 * NULL or empty, when abi_version is outside MCX_ABI_MIN_VERSION ..
 * MCX_ABI_VERSION, when a required slot is NULL (every slot but
 * param_update; log_predictive and log_marginal may be NULL only when
 * param_update is set), or when the registry is full. */
static inline int mcmix_register_family(const mcx_family *family)
{
    static int (*fn)(const mcx_family *) = NULL;
    if (fn == NULL)
        fn = (int (*)(const mcx_family *)) (void (*)(void)) R_GetCCallable("mcmix", "mcx_register_family");
    return fn(family);
}

/* Look a family up by name; NULL when unknown. */
static inline const mcx_family *mcmix_find_family(const char *name)
{
    static const mcx_family *(*fn)(const char *) = NULL;
    if (fn == NULL)
        fn = (const mcx_family *(*)(const char *)) (void (*)(void)) R_GetCCallable("mcmix", "mcx_find_family");
    return fn(name);
}

/* The ABI version of the loaded mcmix. */
static inline int mcmix_abi_version(void)
{
    static int (*fn)(void) = NULL;
    if (fn == NULL)
        fn = (int (*)(void)) (void (*)(void)) R_GetCCallable("mcmix", "mcx_abi_version");
    return fn();
}

/* Wrap a target descriptor (static storage, or owned by `prot`) into an
 * external pointer of class "mcmix_target_ptr" that mcmix's samplers accept
 * as a compiled target.  `prot` is kept alive with the pointer.  Raises an
 * R error when the descriptor is NULL, its abi_version is unsupported, dim
 * < 1 or log_density is NULL.  The pointer does not survive saveRDS() or a
 * new session: create it again there. */
static inline SEXP mcmix_target_xptr(const mcx_target *target, SEXP prot)
{
    static SEXP (*fn)(const mcx_target *, SEXP) = NULL;
    if (fn == NULL)
        fn = (SEXP (*)(const mcx_target *, SEXP)) (void (*)(void)) R_GetCCallable("mcmix", "mcx_target_xptr");
    return fn(target, prot);
}

#ifdef __cplusplus
}
#endif

#endif /* MCMIX_H */
