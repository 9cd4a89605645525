/*
 * model_lda_table.c -- the table of LDA samplers (model_lda.h), built from
 * MCX_LDA_SAMPLERS, and its lookup by code.  It sits above the sampler
 * files: none of them calls it.
 */
#include "model_lda.h"

#define MCX_LDA_ROW(name) &mcx_lda_##name,
static const mcx_lda_sampler *const table[] = {MCX_LDA_SAMPLERS(MCX_LDA_ROW) NULL};
#undef MCX_LDA_ROW

int mcx_lda_sampler_count(void)
{
    return (int) (sizeof table / sizeof table[0]) - 1;
}

const mcx_lda_sampler *mcx_lda_sampler_at(int code)
{
    return code >= 0 && code < mcx_lda_sampler_count() ? table[code] : NULL;
}
