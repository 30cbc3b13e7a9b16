/* qgemm, AVX2 twin (P8K2 layout, see qgemm.h): A and B widened to int16, vpmaddwd sums each
 * pair of products into an int32 lane (|a * b| <= 2^14: never saturates), vpaddd wraps like
 * the reference's accumulator. Tiles of 4 rows x 16 columns; the epilogue is vectorised 8
 * columns at a time, in 64 bits as apply_scale_32 is (AVX2 has no 64-bit arithmetic shift:
 * floor(t / 2^s) = ((t + 2^62) >>> s) - 2^(62 - s), t + 2^62 >= 0 as in qgemm_epilogue1). */
#include "ukernels/qgemm.h"

#if KERN_HAVE_AVX2_TWIN
#include <immintrin.h>
#include <string.h>

#define MR 4

/* A[k], A[k + 1] (last: A[k + 1] does not exist, reads as 0) as int16, broadcast to 8
 * pairs. */
KERN_AVX2_ATTR static inline __m256i bcast_pair(const int8_t *a, int last)
{
    int16_t v;
    if (last)
        v = (int16_t)(uint8_t)a[0];
    else
        memcpy(&v, a, 2);
    return _mm256_cvtepi8_epi16(_mm_set1_epi16(v));
}

/* Epilogue of 8 columns [n, n + cnt) of one row; bad collects the REQUIRE failures. */
KERN_AVX2_ATTR static inline void epi8(const qgemm_packed *p, int n, int cnt, __m256i acc,
                                       void *crow, int *bad)
{
    __m256i v = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(p->bias + n)));
    if (p->out == QGEMM_OUT_I32) {
        if (cnt >= 8) {
            _mm256_storeu_si256((__m256i *)((int32_t *)crow + n), v);
        } else {
            int32_t t[8];
            _mm256_storeu_si256((__m256i *)t, v);
            memcpy((int32_t *)crow + n, t, (size_t)cnt * 4);
        }
        return;
    }
    __m256i outside = _mm256_or_si256(
        _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i *)(p->vmin + n)), v),
        _mm256_cmpgt_epi32(v, _mm256_loadu_si256((const __m256i *)(p->vmax + n))));
    *bad |= _mm256_movemask_ps(_mm256_castsi256_ps(outside)) & ((1 << cnt) - 1);
    __m256i m = _mm256_loadu_si256((const __m256i *)(p->mult + n));
    __m256i s = _mm256_loadu_si256((const __m256i *)(p->shift + n));
    __m256i d = _mm256_loadu_si256((const __m256i *)(p->rdbl + n));
    const __m256i lo32 = _mm256_set1_epi64x(0xffffffff), one = _mm256_set1_epi64x(1);
    const __m256i off = _mm256_set1_epi64x((int64_t)1 << 62), zero = _mm256_setzero_si256();
    const __m256i s62 = _mm256_set1_epi64x(62);
    __m256i r2[2];
    for (int h = 0; h < 2; h++) { /* even lanes, then odd lanes */
        __m256i vh = h ? _mm256_srli_epi64(v, 32) : v, mh = h ? _mm256_srli_epi64(m, 32) : m;
        __m256i sh = h ? _mm256_srli_epi64(s, 32) : _mm256_and_si256(s, lo32);
        __m256i dh = h ? _mm256_srli_epi64(d, 32) : _mm256_and_si256(d, lo32);
        __m256i t = _mm256_mul_epi32(vh, mh);
        /* the product's sign is v's, except when it is 0, where +-2^30 gives the same r */
        __m256i neg = _mm256_cmpgt_epi64(zero, t);
        dh = _mm256_sub_epi64(_mm256_xor_si256(dh, neg), neg);
        t = _mm256_add_epi64(t, _mm256_sllv_epi64(one, _mm256_sub_epi64(sh, one)));
        t = _mm256_add_epi64(_mm256_add_epi64(t, dh), off);
        r2[h] = _mm256_sub_epi64(_mm256_srlv_epi64(t, sh),
                                 _mm256_sllv_epi64(one, _mm256_sub_epi64(s62, sh)));
    }
    __m256i r = _mm256_blend_epi32(r2[0], _mm256_slli_epi64(r2[1], 32), 0xAA);
    r = _mm256_add_epi32(r, _mm256_set1_epi32(p->out_zp));
    r = _mm256_max_epi32(r, _mm256_set1_epi32(p->lo));
    r = _mm256_min_epi32(r, _mm256_set1_epi32(p->hi));
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, -1, -1);
    r = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(r, pick), _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    int8_t *c = (int8_t *)crow + n;
    if (cnt >= 8) {
        _mm_storel_epi64((__m128i *)c, _mm256_castsi256_si128(r));
    } else {
        int8_t t[16];
        _mm_storeu_si128((__m128i *)t, _mm256_castsi256_si128(r));
        memcpy(c, t, (size_t)cnt);
    }
}

/* Rows a[0..mr) x nv panels of 8 columns from column n (cnt of them stored); mr, nv are
 * constants at every call. */
KERN_AVX2_ATTR static inline __attribute__((always_inline)) void
tile(const qgemm_packed *p, const int8_t *a, size_t lda, int mr, int nv, int n, int cnt,
     unsigned char *c, size_t crow_bytes, int *bad)
{
    __m256i acc[MR][2];
    _Pragma("GCC unroll 8")
    for (int r = 0; r < mr; r++)
        _Pragma("GCC unroll 8")
        for (int j = 0; j < nv; j++)
            acc[r][j] = _mm256_setzero_si256();
    size_t pstride = (size_t)p->Kp * 8; /* bytes per panel */
    const int8_t *w = p->w + (size_t)(n / 8) * pstride;
    int K = p->K;
    for (int k = 0; k < K; k += 2, w += 16) {
        int last = k + 1 == K;
        __m256i b[2];
        _Pragma("GCC unroll 8")
        for (int j = 0; j < nv; j++)
            b[j] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + j * pstride)));
        _Pragma("GCC unroll 8")
        for (int r = 0; r < mr; r++) {
            __m256i x = bcast_pair(a + (size_t)r * lda + k, last);
            _Pragma("GCC unroll 8")
            for (int j = 0; j < nv; j++)
                acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(x, b[j]));
        }
    }
    _Pragma("GCC unroll 8")
    for (int r = 0; r < mr; r++)
        _Pragma("GCC unroll 8")
        for (int j = 0; j < nv; j++) {
            int left = cnt - 8 * j;
            epi8(p, n + 8 * j, left > 8 ? 8 : left, acc[r][j], c + (size_t)r * crow_bytes, bad);
        }
}

KERN_AVX2_ATTR int qgemm_run_avx2(const qgemm_packed *p, const int8_t *A, size_t lda, int M,
                                  int n0, int n1, void *C, size_t ldc)
{
    size_t crow = ldc * (p->out == QGEMM_OUT_I32 ? 4 : 1);
    int bad = 0;
    for (int n = n0; n < n1; n += 16) {
        int cnt = n1 - n < 16 ? n1 - n : 16;
        int m = 0;
        for (; m + MR <= M; m += MR) {
            unsigned char *c = (unsigned char *)C + (size_t)m * crow;
            if (cnt > 8)
                tile(p, A + (size_t)m * lda, lda, MR, 2, n, cnt, c, crow, &bad);
            else
                tile(p, A + (size_t)m * lda, lda, MR, 1, n, cnt, c, crow, &bad);
        }
        for (; m < M; m++) {
            unsigned char *c = (unsigned char *)C + (size_t)m * crow;
            if (cnt > 8)
                tile(p, A + (size_t)m * lda, lda, 1, 2, n, cnt, c, crow, &bad);
            else
                tile(p, A + (size_t)m * lda, lda, 1, 1, n, cnt, c, crow, &bad);
        }
    }
    return bad ? QGEMM_ERR_RANGE : QGEMM_OK;
}
#endif
