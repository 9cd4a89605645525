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
 * Layout: mcmix_abi.h holds the descriptor structs and the ABI version
 * (pure C99, no R headers; the package's engine compiles against it
 * alone); mcmix_r.h the R-facing functions below (lazy R_GetCCallable()
 * stubs); this header includes both (and <R.h>, as before).
 *
 * ABI: the structs only ever grow at the end (mcmix_abi.h lists the
 * versions).  mcmix refuses descriptors whose abi_version is newer than
 * its own or older than MCX_ABI_MIN_VERSION, and reads older descriptors
 * with their own conventions.
 */
#ifndef MCMIX_H
#define MCMIX_H

#include <R.h>
#include "mcmix_abi.h"
#include "mcmix_r.h"

#endif /* MCMIX_H */
