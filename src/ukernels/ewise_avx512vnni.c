/* The RESCALE kernels compiled for AVX-512 (64-bit lanes: vpmullq, vpsravq); see
 * ewise_body.h. */
#include "kernels/isa.h"

#if KERN_HAVE_AVX512VNNI_TWIN
#define EW_ATTR KERN_AVX512VNNI_ATTR
#define EW_SUFFIX(name) name##_avx512vnni
#include "ukernels/ewise_body.h"
#endif
