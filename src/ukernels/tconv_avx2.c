/* Transpose int8 convolution + requantization, AVX2 twin of tconv.c: 32 output channels per
 * step in four accumulators, each input channel pair broadcast as one int32 and multiplied
 * with vpmaddwd (products of at most 255 * 255 in magnitude: exact), requantized like the
 * depthwise twin. */
#include "ukernels/tconv.h"

#if KERN_HAVE_AVX2_TWIN
#include "ukernels/dwconv_avx2.h"

/* The input pair (x[2j] - izp, x[2j+1] - izp) as one int32 of two int16. */
KERN_AVX2_ATTR static inline __m256i pair(const tconv_q8_params *p, const int8_t *x, int j)
{
    int32_t a = x[2 * j] - p->izp, b = 2 * j + 1 < p->IC ? x[2 * j + 1] - p->izp : 0;
    return _mm256_set1_epi32((int32_t)(((uint32_t)(uint16_t)b << 16) | (uint16_t)a));
}

KERN_AVX2_ATTR int tconv_q8_avx2(const tconv_q8_params *p, const int *tap,
                                 const int8_t *const *x, int n, int32_t *acc, int8_t *out)
{
    const int OC = p->OC, np = p->ic_pairs;
    int oc = 0;
    __m256i bad = _mm256_setzero_si256();
    for (; oc + 32 <= OC; oc += 32) {
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
        for (int t = 0; t < n; t++) {
            const int16_t *w = p->w + ((size_t)tap[t] * (size_t)np * (size_t)OC + (size_t)oc) * 2;
            for (int j = 0; j < np; j++, w += (size_t)OC * 2) {
                __m256i xv = pair(p, x[t], j);
                const __m256i *wv = (const __m256i *)w;
                a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(xv, _mm256_loadu_si256(wv)));
                a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(xv, _mm256_loadu_si256(wv + 1)));
                a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(xv, _mm256_loadu_si256(wv + 2)));
                a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(xv, _mm256_loadu_si256(wv + 3)));
            }
        }
        __m256i r0 = q8_requant8(&p->q, oc, a0, &bad);
        __m256i r1 = q8_requant8(&p->q, oc + 8, a1, &bad);
        __m256i r2 = q8_requant8(&p->q, oc + 16, a2, &bad);
        __m256i r3 = q8_requant8(&p->q, oc + 24, a3, &bad);
        __m256i h0 = _mm256_permute4x64_epi64(_mm256_packs_epi32(r0, r1), 0xD8);
        __m256i h1 = _mm256_permute4x64_epi64(_mm256_packs_epi32(r2, r3), 0xD8);
        __m256i b = _mm256_permute4x64_epi64(_mm256_packs_epi16(h0, h1), 0xD8);
        _mm256_storeu_si256((__m256i *)(out + oc), b);
    }
    int rc = !_mm256_testz_si256(bad, bad);
    if (oc < OC)
        rc |= tconv_q8_channels(p, tap, x, n, acc, out, oc);
    return rc;
}
#endif
