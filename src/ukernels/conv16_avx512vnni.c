/* The conv16 kernels compiled for AVX-512; the CONV2D block is vpdpwssd (per lane: two
 * int16 products added to an int32, no saturation: the same sum as the portable block, exact
 * within the chunk bound); see conv16_body.h. */
#include "kernels/isa.h"

#if KERN_HAVE_AVX512VNNI_TWIN
#include <immintrin.h>
#include <string.h>

#include "ukernels/conv16.h"

static inline __m512i KERN_AVX512VNNI_ATTR conv16_pair(const int16_t *x)
{
    int32_t v;
    memcpy(&v, x, sizeof v); /* x[0] in the low half, x[1] in the high half */
    return _mm512_set1_epi32(v);
}

static inline void KERN_AVX512VNNI_ATTR conv16_block_vnni(const int16_t *wb, const int16_t *p0,
                                                          const int16_t *p1, const int16_t *p2,
                                                          const int16_t *p3, int64_t k0,
                                                          int64_t k1, int32_t a[4][16])
{
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = k0; k < k1; k += 2) {
        __m512i w = _mm512_loadu_si512((const void *)(wb + k * 16));
        a0 = _mm512_dpwssd_epi32(a0, conv16_pair(p0 + k), w);
        a1 = _mm512_dpwssd_epi32(a1, conv16_pair(p1 + k), w);
        a2 = _mm512_dpwssd_epi32(a2, conv16_pair(p2 + k), w);
        a3 = _mm512_dpwssd_epi32(a3, conv16_pair(p3 + k), w);
    }
    _mm512_storeu_si512((void *)a[0], a0);
    _mm512_storeu_si512((void *)a[1], a1);
    _mm512_storeu_si512((void *)a[2], a2);
    _mm512_storeu_si512((void *)a[3], a3);
}

#define CONV16_BLOCK conv16_block_vnni
#define CONV16_ATTR KERN_AVX512VNNI_ATTR
#define CONV16_NAME ukr_conv16_avx512vnni
#include "ukernels/conv16_body.h"
#endif
