/*
 * mcmix_r.h -- the R-facing side of the mcmix plugin interface: the
 * functions mcmix exports through R_RegisterCCallable(), looked up lazily
 * with R_GetCCallable() on first use (valid C99: a static function pointer
 * per stub), so a plugin does not link against mcmix.so.  mcmix must be
 * loaded first, which `Imports: mcmix` ensures.
 *
 * Plugins include <mcmix.h>, which includes this header and the pure ABI
 * header mcmix_abi.h.
 */
#ifndef MCMIX_R_H
#define MCMIX_R_H

#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include "mcmix_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* MCMIX_R_H */
