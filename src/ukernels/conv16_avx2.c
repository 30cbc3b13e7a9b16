/* The conv16 kernels compiled for AVX2; the CONV2D block is vpmaddwd + vpaddd (per lane: two
 * int16 products summed in int32, exact: |sum| <= 2 * 32768 * 255; then added within the chunk
 * bound), the same sums as the portable block; see conv16_body.h. */
#include "kernels/isa.h"

#if KERN_HAVE_AVX2_TWIN
#include <immintrin.h>
#include <string.h>

#include "ukernels/conv16.h"

static inline __m256i KERN_AVX2_ATTR conv16_pair(const int16_t *x)
{
    int32_t v;
    memcpy(&v, x, sizeof v);
    return _mm256_set1_epi32(v);
}

static inline void KERN_AVX2_ATTR conv16_block_avx2(const int16_t *wb, const int16_t *p0,
                                                    const int16_t *p1, const int16_t *p2,
                                                    const int16_t *p3, int64_t k0, int64_t k1,
                                                    int32_t a[4][16])
{
    __m256i z = _mm256_setzero_si256();
    __m256i a0l = z, a0h = z, a1l = z, a1h = z, a2l = z, a2h = z, a3l = z, a3h = z;
    for (int64_t k = k0; k < k1; k += 2) {
        __m256i wl = _mm256_loadu_si256((const void *)(wb + k * 16));      /* lanes 0..7 */
        __m256i wh = _mm256_loadu_si256((const void *)(wb + k * 16 + 16)); /* lanes 8..15 */
        __m256i x;
        x = conv16_pair(p0 + k);
        a0l = _mm256_add_epi32(a0l, _mm256_madd_epi16(x, wl));
        a0h = _mm256_add_epi32(a0h, _mm256_madd_epi16(x, wh));
        x = conv16_pair(p1 + k);
        a1l = _mm256_add_epi32(a1l, _mm256_madd_epi16(x, wl));
        a1h = _mm256_add_epi32(a1h, _mm256_madd_epi16(x, wh));
        x = conv16_pair(p2 + k);
        a2l = _mm256_add_epi32(a2l, _mm256_madd_epi16(x, wl));
        a2h = _mm256_add_epi32(a2h, _mm256_madd_epi16(x, wh));
        x = conv16_pair(p3 + k);
        a3l = _mm256_add_epi32(a3l, _mm256_madd_epi16(x, wl));
        a3h = _mm256_add_epi32(a3h, _mm256_madd_epi16(x, wh));
    }
    _mm256_storeu_si256((void *)a[0], a0l);
    _mm256_storeu_si256((void *)(a[0] + 8), a0h);
    _mm256_storeu_si256((void *)a[1], a1l);
    _mm256_storeu_si256((void *)(a[1] + 8), a1h);
    _mm256_storeu_si256((void *)a[2], a2l);
    _mm256_storeu_si256((void *)(a[2] + 8), a2h);
    _mm256_storeu_si256((void *)a[3], a3l);
    _mm256_storeu_si256((void *)(a[3] + 8), a3h);
}

#define CONV16_BLOCK conv16_block_avx2
#define CONV16_ATTR KERN_AVX2_ATTR
#define CONV16_NAME ukr_conv16_avx2
#include "ukernels/conv16_body.h"
#endif
