/*
 * family_registry.c -- the table of component families, looked up by name.
 *
 * Built-in families are registered in R_init_mcmix, with their capabilities
 * (family_builtin.c); other packages add theirs through the C-callable
 * mcx_register_family (see inst/include/mcmix.h), without capabilities.
 * Re-registering a name replaces the entry, so a plugin package can be
 * reloaded in the same session.  The registry knows no family by name:
 * what the engine may do with a family beyond its slots is in the
 * capabilities registered with it (mcx_family_caps, family_registry.h).
 */
#include <string.h>
#include <stdio.h>
#include "mcmix_engine.h"

#define MCX_MAX_FAMILIES 128

static const mcx_family *families[MCX_MAX_FAMILIES];
static const mcx_family_caps *caps[MCX_MAX_FAMILIES];   /* NULL: none */
static int n_families = 0;
static const mcx_family_caps no_caps;      /* every flag 0, every pointer NULL */

int mcx_abi_version(void) { return MCX_ABI_VERSION; }

int mcx_register_family(const mcx_family *f)
{
    return mcx_register_family_caps(f, NULL);
}

int mcx_register_family_caps(const mcx_family *f, const mcx_family_caps *c)
{
    if (f == NULL || f->name == NULL || f->name[0] == '\0')
        mcx_error("mcmix: a family descriptor needs a name");
    if (f->abi_version < MCX_ABI_MIN_VERSION || f->abi_version > MCX_ABI_VERSION)
        mcx_error("mcmix: family '%s' was built for plugin ABI version %d, "
                  "but this mcmix supports versions %d to %d; rebuild the plugin "
                  "package against the installed mcmix",
                  f->name, f->abi_version, MCX_ABI_MIN_VERSION, MCX_ABI_VERSION);
    /* v1 descriptors end before param_update: never read it from them */
    int nonconj = mcx_family_param_update(f) != NULL;
    if (!f->hyper_size || !f->hyper_init || !f->work_size || !f->stats_size ||
        !f->stats_reset || !f->stats_add || !f->stats_remove ||
        (!nonconj && (!f->log_predictive || !f->log_marginal)) ||
        !f->param_size || !f->param_draw || !f->log_lik)
        mcx_error("mcmix: family '%s' leaves a required function slot empty", f->name);
    for (int i = 0; i < n_families; i++) {
        if (strcmp(families[i]->name, f->name) == 0) {
            families[i] = f;
            caps[i] = c;
            return 0;
        }
    }
    if (n_families >= MCX_MAX_FAMILIES)
        mcx_error("mcmix: too many families registered (at most %d)", MCX_MAX_FAMILIES);
    caps[n_families] = c;
    families[n_families++] = f;
    return 0;
}

const mcx_family *mcx_find_family(const char *name)
{
    for (int i = 0; i < n_families; i++)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

const mcx_family *mcx_get_family(const char *name)
{
    const mcx_family *f = mcx_find_family(name);
    if (f == NULL) {
        char list[2048] = "";
        size_t used = 0;
        for (int i = 0; i < n_families; i++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s",
                             i ? ", " : "", families[i]->name);
            if (w < 0 || (size_t) w >= sizeof list - used) break;
            used += (size_t) w;
        }
        mcx_error("unknown family '%s'; registered families are: %s", name, list);
    }
    return f;
}

int mcx_n_families(void) { return n_families; }
const mcx_family *mcx_family_at(int i) { return families[i]; }

const mcx_family_caps *mcx_family_caps_of(const mcx_family *f)
{
    for (int i = 0; i < n_families; i++)
        if (families[i] == f) return caps[i] != NULL ? caps[i] : &no_caps;
    return &no_caps;
}
