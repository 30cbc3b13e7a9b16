/* The conv16 kernels compiled for AVX-512 (VNNI: vpdpwssd); see conv16_body.h. */
#include "kernels/isa.h"

#if KERN_HAVE_AVX512VNNI_TWIN
#define CONV16_ATTR KERN_AVX512VNNI_ATTR
#define CONV16_NAME ukr_conv16_avx512vnni
#include "ukernels/conv16_body.h"
#endif
