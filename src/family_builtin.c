/*
 * family_builtin.c -- registers the built-in families of
 * MCX_BUILTIN_FAMILIES (family_builtin.h) with their capabilities.  It
 * sits above the family files and the registry: neither calls it.
 */
#include "family_builtin.h"

void mcx_register_builtin_families(void)
{
#define MCX_FAMILY_REGISTER(name) mcx_register_family_caps(&mcx_family_##name, &mcx_caps_##name);
    MCX_BUILTIN_FAMILIES(MCX_FAMILY_REGISTER)
#undef MCX_FAMILY_REGISTER
}
