/* ffi_diag.h -- .Call prototypes of this area. */
#ifndef MCMIX_FFI_DIAG_H
#define MCMIX_FFI_DIAG_H
#include <R.h>
#include <Rinternals.h>

#endif
