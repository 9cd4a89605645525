/* target_r.h -- kept for existing includes: the glue header is ffi_target_r.h. */
#include "ffi_target_r.h"
