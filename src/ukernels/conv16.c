/* Portable conv16 kernels (the twin the others are tested against) and the variant choice. */
#include "ukernels/conv16.h"

#define CONV16_ATTR
#define CONV16_NAME ukr_conv16_portable
#include "ukernels/conv16_body.h"

size_t ukr_conv16_scratch(const ukr_conv16 *p)
{
    if (p->M)
        return sizeof(int32_t) * (size_t)(p->IC * p->M);
    return sizeof(int16_t) * UKR_CONV16_TILE * (size_t)(p->KH * p->KW * p->IC);
}

ukr_conv16_fn ukr_conv16_select(kern_isa isa)
{
    switch (isa) {
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2: return ukr_conv16_avx2;
#endif
#if KERN_HAVE_AVX512VNNI_TWIN
    case KERN_ISA_AVX512VNNI: return ukr_conv16_avx512vnni;
#endif
    default: return ukr_conv16_portable;
    }
}
