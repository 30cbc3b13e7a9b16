/* The conv16 kernels compiled for AVX2 (vpmaddwd dot products); see conv16_body.h. */
#include "kernels/isa.h"

#if KERN_HAVE_AVX2_TWIN
#define CONV16_ATTR KERN_AVX2_ATTR
#define CONV16_NAME ukr_conv16_avx2
#include "ukernels/conv16_body.h"
#endif
