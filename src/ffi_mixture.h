/* ffi_mixture.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_MIXTURE_H
#define MCMIX_FFI_MIXTURE_H
#include <R.h>
#include <Rinternals.h>

#endif
