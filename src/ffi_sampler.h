/* ffi_sampler.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_SAMPLER_H
#define MCMIX_FFI_SAMPLER_H
#include <R.h>
#include <Rinternals.h>

#endif
