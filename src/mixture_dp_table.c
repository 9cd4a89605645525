/*
 * mixture_dp_table.c -- the table of DP / Pitman-Yor mixture algorithms
 * (mixture_dp.h), built from MCX_DP_ALGORITHMS, and its lookup by name.
 */
#include <string.h>
#include "mixture_dp.h"

#define MCX_DP_ROW(name) &mcx_dp_##name,
static const mcx_dp_algorithm *const table[] = {MCX_DP_ALGORITHMS(MCX_DP_ROW) NULL};
#undef MCX_DP_ROW

const mcx_dp_algorithm *mcx_dp_algorithm_find(const char *name)
{
    char known[256] = "";
    for (int i = 0; table[i] != NULL; i++) {
        if (strcmp(table[i]->name, name) == 0) return table[i];
        if (strlen(known) + strlen(table[i]->name) + 4 < sizeof known) {
            if (i > 0) strcat(known, ", ");
            strcat(known, table[i]->name);
        }
    }
    mcx_error("mcmix internal error: unknown DP algorithm '%s' (known: %s)", name, known);
}
