/* The AVX2 per-channel requantization of dwconv.h's q8_requant, shared by the AVX2 twins of
 * the depthwise and transpose convolutions (include only inside #if KERN_HAVE_AVX2_TWIN). */
#ifndef TOSAC_UKERNELS_DWCONV_AVX2_H
#define TOSAC_UKERNELS_DWCONV_AVX2_H

#include <immintrin.h>

#include "ukernels/dwconv.h"

/* 8 accumulators (channels c..c+7, + bias) -> 8 clipped int32 results; *bad on a REQUIRE. */
KERN_AVX2_ATTR static inline __m256i q8_requant8(const q8_requant *q, int c, __m256i acc,
                                                 __m256i *bad)
{
    __m256i v = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(q->bias + c)));
    if (q->check) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(q->vlo + c));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(q->vhi + c));
        *bad = _mm256_or_si256(*bad, _mm256_or_si256(_mm256_cmpgt_epi32(lo, v),
                                                     _mm256_cmpgt_epi32(v, hi)));
    }
    __m256i v0 = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
    __m256i v1 = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
    __m256i x0 = _mm256_add_epi64(_mm256_mul_epi32(v0, _mm256_loadu_si256((const __m256i *)(q->mult + c))),
                                  _mm256_loadu_si256((const __m256i *)(q->round + c)));
    __m256i x1 = _mm256_add_epi64(_mm256_mul_epi32(v1, _mm256_loadu_si256((const __m256i *)(q->mult + c + 4))),
                                  _mm256_loadu_si256((const __m256i *)(q->round + c + 4)));
    if (q->dbl) {
        __m256i z = _mm256_setzero_si256();
        x0 = _mm256_sub_epi64(x0, _mm256_and_si256(_mm256_cmpgt_epi64(z, v0),
                                                   _mm256_loadu_si256((const __m256i *)(q->dadj + c))));
        x1 = _mm256_sub_epi64(x1, _mm256_and_si256(_mm256_cmpgt_epi64(z, v1),
                                                   _mm256_loadu_si256((const __m256i *)(q->dadj + c + 4))));
    }
    __m256i r0 = _mm256_sub_epi64(_mm256_srlv_epi64(x0, _mm256_loadu_si256((const __m256i *)(q->shift + c))),
                                  _mm256_loadu_si256((const __m256i *)(q->sub + c)));
    __m256i r1 = _mm256_sub_epi64(_mm256_srlv_epi64(x1, _mm256_loadu_si256((const __m256i *)(q->shift + c + 4))),
                                  _mm256_loadu_si256((const __m256i *)(q->sub + c + 4)));
    /* the low 32 bits of each 64-bit lane, in channel order */
    __m256i r = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(r0),
                                                      _mm256_castsi256_ps(r1), 0x88));
    r = _mm256_permute4x64_epi64(r, 0xD8);
    r = _mm256_add_epi32(r, _mm256_set1_epi32(q->ozp));
    r = _mm256_max_epi32(r, _mm256_set1_epi32(q->lo));
    return _mm256_min_epi32(r, _mm256_set1_epi32(q->hi));
}

#endif
