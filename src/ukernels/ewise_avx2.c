/* The RESCALE kernels compiled for AVX2; see ewise_body.h. */
#include "kernels/isa.h"

#if KERN_HAVE_AVX2_TWIN
#define EW_ATTR KERN_AVX2_ATTR
#define EW_SUFFIX(name) name##_avx2
#include "ukernels/ewise_body.h"
#endif
