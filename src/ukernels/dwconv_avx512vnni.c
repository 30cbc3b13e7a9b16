/* Depthwise int8 convolution + requantization, AVX-512 VNNI twin of dwconv.c: 16 channels per
 * zmm (32 per step while they last), a tap pair's inputs widened to int16 and interleaved,
 * vpdpwssd accumulating the
 * pair products (at most 2 * 255 * 255: exact), requantized on 64-bit lanes (vpsrlvq). */
#include "ukernels/dwconv.h"

#if KERN_HAVE_AVX512VNNI_TWIN
#include <immintrin.h>

KERN_AVX512VNNI_ATTR static inline __m128i requant16(const q8_requant *q, int c, __m512i acc,
                                                     __mmask16 *bad)
{
    __m512i v = _mm512_add_epi32(acc, _mm512_loadu_si512(q->bias + c));
    if (q->check)
        *bad |= _mm512_cmpgt_epi32_mask(_mm512_loadu_si512(q->vlo + c), v) |
                _mm512_cmpgt_epi32_mask(v, _mm512_loadu_si512(q->vhi + c));
    if (q->eo) { /* even channels in the low halves of the 64-bit lanes, odd in the high */
        size_t n16 = (size_t)q->eo_stride;
        const int64_t *e = q->eo + c;
        __m512i xe = _mm512_add_epi64(_mm512_mul_epi32(v, _mm512_loadu_si512(e)),
                                      _mm512_loadu_si512(e + n16));
        __m512i xo = _mm512_add_epi64(
            _mm512_mul_epi32(_mm512_srli_epi64(v, 32), _mm512_loadu_si512(e + 8)),
            _mm512_loadu_si512(e + n16 + 8));
        if (q->dbl) {
            __m512i z = _mm512_setzero_si512();
            xe = _mm512_mask_sub_epi64(xe, _mm512_cmplt_epi64_mask(_mm512_slli_epi64(v, 32), z),
                                       xe, _mm512_loadu_si512(e + 2 * n16));
            xo = _mm512_mask_sub_epi64(xo, _mm512_cmplt_epi64_mask(v, z), xo,
                                       _mm512_loadu_si512(e + 2 * n16 + 8));
        }
        __m512i re = _mm512_sub_epi64(_mm512_srlv_epi64(xe, _mm512_loadu_si512(e + 3 * n16)),
                                      _mm512_loadu_si512(e + 4 * n16));
        __m512i ro = _mm512_sub_epi64(_mm512_srlv_epi64(xo, _mm512_loadu_si512(e + 3 * n16 + 8)),
                                      _mm512_loadu_si512(e + 4 * n16 + 8));
        __m512i r = _mm512_mask_blend_epi32((__mmask16)0xAAAA, re, _mm512_slli_epi64(ro, 32));
        r = _mm512_add_epi32(r, _mm512_set1_epi32(q->ozp));
        r = _mm512_max_epi32(r, _mm512_set1_epi32(q->lo));
        r = _mm512_min_epi32(r, _mm512_set1_epi32(q->hi));
        return _mm512_cvtepi32_epi8(r);
    }
    __m512i v0 = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
    __m512i v1 = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
    __m512i x0 = _mm512_add_epi64(_mm512_mul_epi32(v0, _mm512_loadu_si512(q->mult + c)),
                                  _mm512_loadu_si512(q->round + c));
    __m512i x1 = _mm512_add_epi64(_mm512_mul_epi32(v1, _mm512_loadu_si512(q->mult + c + 8)),
                                  _mm512_loadu_si512(q->round + c + 8));
    if (q->dbl) {
        __m512i z = _mm512_setzero_si512();
        x0 = _mm512_mask_sub_epi64(x0, _mm512_cmpgt_epi64_mask(z, v0), x0,
                                   _mm512_loadu_si512(q->dadj + c));
        x1 = _mm512_mask_sub_epi64(x1, _mm512_cmpgt_epi64_mask(z, v1), x1,
                                   _mm512_loadu_si512(q->dadj + c + 8));
    }
    __m512i r0 = _mm512_sub_epi64(_mm512_srlv_epi64(x0, _mm512_loadu_si512(q->shift + c)),
                                  _mm512_loadu_si512(q->sub + c));
    __m512i r1 = _mm512_sub_epi64(_mm512_srlv_epi64(x1, _mm512_loadu_si512(q->shift + c + 8)),
                                  _mm512_loadu_si512(q->sub + c + 8));
    __m512i r = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(r0)),
                                   _mm512_cvtepi64_epi32(r1), 1);
    r = _mm512_add_epi32(r, _mm512_set1_epi32(q->ozp));
    r = _mm512_max_epi32(r, _mm512_set1_epi32(q->lo));
    r = _mm512_min_epi32(r, _mm512_set1_epi32(q->hi));
    return _mm512_cvtepi32_epi8(r); /* already within int8 */
}

KERN_AVX512VNNI_ATTR __attribute__((always_inline)) static inline int
dw_body(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix, int8_t *out, int np)
{
    const int C = p->C;
    __mmask16 bad = 0;
    int c = 0;
    /* 32 channels: both taps of a pair widened to int16 straight from memory and interleaved
     * by one vpermt2w per 16 channels (fewer shuffles than the byte interleave below) */
    const __m512i ilo = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9,
                                         40, 8, 39, 7, 38, 6, 37, 5, 36, 4, 35, 3, 34, 2, 33, 1,
                                         32, 0);
    const __m512i ihi = _mm512_add_epi16(ilo, _mm512_set1_epi16(16));
    for (; c + 32 <= C; c += 32)
        for (int i = 0; i < n_pix; i++) {
            const int8_t *const *t = taps + (size_t)i * 2 * (size_t)np;
            __m512i acc0 = _mm512_setzero_si512(), acc1 = acc0;
            for (int j = 0; j < np; j++) {
                __m512i a = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(t[2 * j] + c)));
                __m512i b =
                    _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(t[2 * j + 1] + c)));
                const int16_t *w = p->w + ((size_t)j * (size_t)C + (size_t)c) * 2;
                acc0 = _mm512_dpwssd_epi32(acc0, _mm512_permutex2var_epi16(a, ilo, b),
                                           _mm512_loadu_si512(w));
                acc1 = _mm512_dpwssd_epi32(acc1, _mm512_permutex2var_epi16(a, ihi, b),
                                           _mm512_loadu_si512(w + 32));
            }
            int8_t *o = out + (size_t)i * (size_t)C + (size_t)c;
            _mm_storeu_si128((__m128i *)o, requant16(&p->q, c, acc0, &bad));
            _mm_storeu_si128((__m128i *)(o + 16), requant16(&p->q, c + 16, acc1, &bad));
        }
    for (; c + 16 <= C; c += 16)
        for (int i = 0; i < n_pix; i++) {
            const int8_t *const *t = taps + (size_t)i * 2 * (size_t)np;
            __m512i acc = _mm512_setzero_si512();
            for (int j = 0; j < np; j++) {
                __m128i a = _mm_loadu_si128((const __m128i *)(t[2 * j] + c));
                __m128i b = _mm_loadu_si128((const __m128i *)(t[2 * j + 1] + c));
                __m256i ab = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(a, b)),
                                                     _mm_unpackhi_epi8(a, b), 1);
                __m512i x = _mm512_cvtepi8_epi16(ab);
                const int16_t *w = p->w + ((size_t)j * (size_t)C + (size_t)c) * 2;
                acc = _mm512_dpwssd_epi32(acc, x, _mm512_loadu_si512(w));
            }
            _mm_storeu_si128((__m128i *)(out + (size_t)i * (size_t)C + (size_t)c),
                             requant16(&p->q, c, acc, &bad));
        }
    int rc = bad != 0;
    if (c < C)
        rc |= dwconv_q8_channels(p, taps, n_pix, out, c);
    return rc;
}

KERN_AVX512VNNI_ATTR int dwconv_q8_avx512vnni(const dwconv_q8_params *p,
                                              const int8_t *const *taps, int n_pix,
                                              int8_t *out)
{
    if (p->n_pairs == 5) /* 3x3: a constant trip count the compiler unrolls */
        return dw_body(p, taps, n_pix, out, 5);
    return dw_body(p, taps, n_pix, out, p->n_pairs);
}
#endif
