/* Depthwise int8 convolution + requantization, AVX2 twin of dwconv.c: 16 channels per step,
 * a tap pair's inputs interleaved bytewise, widened to int16 and multiplied with vpmaddwd
 * (products of at most 255 * 255 in magnitude: no saturation), requantized on 64-bit lanes. */
#include "ukernels/dwconv.h"

#if KERN_HAVE_AVX2_TWIN
#include <immintrin.h>

/* 8 accumulators (channels c..c+7, + bias) -> 8 clipped int32 results; *bad on a REQUIRE. */
KERN_AVX2_ATTR static inline __m256i requant8(const q8_requant *q, int c, __m256i acc,
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

/* One pixel, channels [c, c+16): the sum over tap pairs of (x - izp) * w, in two halves. */
KERN_AVX2_ATTR static inline void mac16(const dwconv_q8_params *p, const int8_t *const *t,
                                        int np, int c, __m256i *acc0, __m256i *acc1)
{
    const __m256i izp = _mm256_set1_epi16(p->izp);
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    for (int j = 0; j < np; j++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(t[2 * j] + c));
        __m128i b = _mm_loadu_si128((const __m128i *)(t[2 * j + 1] + c));
        __m256i xl = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b)), izp);
        __m256i xh = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_unpackhi_epi8(a, b)), izp);
        const int16_t *w = p->w + ((size_t)j * (size_t)p->C + (size_t)c) * 2;
        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(xl, _mm256_loadu_si256((const __m256i *)w)));
        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(xh, _mm256_loadu_si256((const __m256i *)(w + 16))));
    }
    *acc0 = a0;
    *acc1 = a1;
}

KERN_AVX2_ATTR __attribute__((always_inline)) static inline int
dw_body(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix, int8_t *out, int np)
{
    const int C = p->C;
    __m256i bad = _mm256_setzero_si256();
    int c = 0;
    for (; c + 16 <= C; c += 16)
        for (int i = 0; i < n_pix; i++) {
            __m256i a0, a1;
            mac16(p, taps + (size_t)i * 2 * (size_t)np, np, c, &a0, &a1);
            __m256i r0 = requant8(&p->q, c, a0, &bad), r1 = requant8(&p->q, c + 8, a1, &bad);
            __m256i h = _mm256_permute4x64_epi64(_mm256_packs_epi32(r0, r1), 0xD8);
            __m128i b = _mm_packs_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
            _mm_storeu_si128((__m128i *)(out + (size_t)i * (size_t)C + (size_t)c), b);
        }
    int rc = !_mm256_testz_si256(bad, bad);
    if (c < C)
        rc |= dwconv_q8_channels(p, taps, n_pix, out, c);
    return rc;
}

KERN_AVX2_ATTR int dwconv_q8_avx2(const dwconv_q8_params *p, const int8_t *const *taps,
                                  int n_pix, int8_t *out)
{
    if (p->n_pairs == 5) /* 3x3: a constant trip count the compiler unrolls */
        return dw_body(p, taps, n_pix, out, 5);
    return dw_body(p, taps, n_pix, out, p->n_pairs);
}
#endif
