/* qgemm, AVX-512 VNNI twin (P16K4 layout, see qgemm.h): vpdpbusd sums four (A ^ 0x80) x B
 * products into each int32 lane (no saturation: wraps like the reference's accumulator; the
 * +128 of the u8 reading is folded into the bias at pack time). Tiles of 6 rows x up to 64
 * columns (24 accumulators); the epilogue is vectorised 16 columns at a time, in int64 as
 * apply_scale_32 is. */
#include "ukernels/qgemm.h"

#if KERN_HAVE_AVX512VNNI_TWIN
#include <immintrin.h>
#include <string.h>

#define MR 6

/* GCC's -O3 partial redundancy elimination (Release builds) spills half the accumulators of
 * the unrolled tile to the stack: 2x slower. */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_PARTIAL_PRE __attribute__((optimize("no-tree-partial-pre")))
#else
#define NO_PARTIAL_PRE
#endif

/* Four bytes of A at a (only `len` of them exist; the rest read as 0) ^ 0x80, broadcast. */
KERN_AVX512VNNI_ATTR static inline __m512i bcast_a(const int8_t *a, int len)
{
    int32_t v = 0;
    if (len >= 4) { /* a broadcast load and a vector xor: no general-register round trip */
        memcpy(&v, a, 4);
        return _mm512_xor_si512(_mm512_set1_epi32(v), _mm512_set1_epi32((int32_t)0x80808080u));
    }
    memcpy(&v, a, (size_t)len);
    return _mm512_set1_epi32((int32_t)((uint32_t)v ^ 0x80808080u));
}

/* Epilogue of 16 columns [n, n + cnt) of one row; bad collects the REQUIRE failures. */
KERN_AVX512VNNI_ATTR static inline void epi16(const qgemm_packed *p, int n, int cnt, __m512i acc,
                                              void *crow, __mmask16 *bad)
{
    __mmask16 km = cnt >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << cnt) - 1);
    __m512i v = _mm512_add_epi32(acc, _mm512_loadu_si512(p->bias + n));
    if (p->out == QGEMM_OUT_I32) {
        _mm512_mask_storeu_epi32((int32_t *)crow + n, km, v);
        return;
    }
    if (p->check)
        *bad |= (_mm512_cmplt_epi32_mask(v, _mm512_loadu_si512(p->vmin + n)) |
                 _mm512_cmpgt_epi32_mask(v, _mm512_loadu_si512(p->vmax + n))) & km;
    /* even columns in the low halves of the 64-bit lanes (te), odd ones in the high (to) */
    __m512i m = _mm512_loadu_si512(p->mult + n);
    __m512i te = _mm512_mul_epi32(v, m);
    __m512i to = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), _mm512_srli_epi64(m, 32));
    te = _mm512_add_epi64(te, _mm512_loadu_si512(p->rnd64 + n));
    to = _mm512_add_epi64(to, _mm512_loadu_si512(p->rnd64 + n + 8));
    if (p->dbl) { /* DOUBLE_ROUND: 2^30 less than 2^30 more for v < 0 */
        __m512i z = _mm512_setzero_si512();
        te = _mm512_mask_sub_epi64(te, _mm512_cmplt_epi64_mask(_mm512_slli_epi64(v, 32), z), te,
                                   _mm512_loadu_si512(p->dneg64 + n));
        to = _mm512_mask_sub_epi64(to, _mm512_cmplt_epi64_mask(v, z), to,
                                   _mm512_loadu_si512(p->dneg64 + n + 8));
    }
    te = _mm512_srav_epi64(te, _mm512_loadu_si512(p->sh64 + n));
    to = _mm512_srav_epi64(to, _mm512_loadu_si512(p->sh64 + n + 8));
    /* the low halves back in column order: even columns from te, odd ones from to */
    const __m512i order = _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2,
                                           16, 0);
    __m512i r = _mm512_permutex2var_epi32(te, order, to);
    if (!p->zp_in_rnd)
        r = _mm512_add_epi32(r, _mm512_set1_epi32(p->out_zp));
    __m128i b = _mm512_cvtsepi32_epi8(r); /* saturating: the int8 range */
    if (p->lo > -128 || p->hi < 127) /* a fused CLAMP: on 16 bytes, not 16 int32 */
        b = _mm_min_epi8(_mm_max_epi8(b, _mm_set1_epi8((char)p->lo)), _mm_set1_epi8((char)p->hi));
    _mm_mask_storeu_epi8((int8_t *)crow + n, km, b);
}

/* Rows a[0..mr) x nv panels of 16 columns from column n (cnt of them stored). mr and nv are
 * constants at every call, so the accumulators stay in registers. */
KERN_AVX512VNNI_ATTR static inline __attribute__((always_inline)) void
tile(const qgemm_packed *p, const int8_t *a, size_t lda, int mr, int nv, int n, int cnt,
     unsigned char *c, size_t crow_bytes, __mmask16 *bad)
{
    __m512i acc[MR][4];
    _Pragma("GCC unroll 8")
    for (int r = 0; r < mr; r++)
        _Pragma("GCC unroll 8")
        for (int j = 0; j < nv; j++)
            acc[r][j] = _mm512_setzero_si512();
    size_t pstride = (size_t)p->Kp * 16; /* bytes per panel */
    const int8_t *w = p->w + (size_t)(n / 16) * pstride;
    int K = p->K, k = 0;
    for (; k + 4 <= K; k += 4, w += 64) {
        __m512i b[4];
        _Pragma("GCC unroll 8")
        for (int j = 0; j < nv; j++)
            b[j] = _mm512_loadu_si512(w + j * pstride);
        _Pragma("GCC unroll 8")
        for (int r = 0; r < mr; r++) {
            __m512i x = bcast_a(a + (size_t)r * lda + k, 4);
            _Pragma("GCC unroll 8")
            for (int j = 0; j < nv; j++)
                acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], x, b[j]);
        }
    }
    if (k < K) {
        _Pragma("GCC unroll 8")
        for (int r = 0; r < mr; r++) {
            __m512i x = bcast_a(a + (size_t)r * lda + k, K - k);
            _Pragma("GCC unroll 8")
            for (int j = 0; j < nv; j++)
                acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], x, _mm512_loadu_si512(w + j * pstride));
        }
    }
    _Pragma("GCC unroll 8")
    for (int r = 0; r < mr; r++)
        _Pragma("GCC unroll 8")
        for (int j = 0; j < nv; j++) {
            int left = cnt - 16 * j;
            epi16(p, n + 16 * j, left > 16 ? 16 : left, acc[r][j], c + (size_t)r * crow_bytes,
                  bad);
        }
}

#define TILE_NV(mr_)                                                                            \
    switch (nv) {                                                                               \
    case 1: tile(p, a, lda, mr_, 1, n, cnt, c, crow, &bad); break;                              \
    case 2: tile(p, a, lda, mr_, 2, n, cnt, c, crow, &bad); break;                              \
    case 3: tile(p, a, lda, mr_, 3, n, cnt, c, crow, &bad); break;                              \
    default: tile(p, a, lda, mr_, 4, n, cnt, c, crow, &bad); break;                             \
    }

KERN_AVX512VNNI_ATTR NO_PARTIAL_PRE int qgemm_run_avx512vnni(const qgemm_packed *p, const int8_t *A, size_t lda,
                                              int M, int n0, int n1, void *C, size_t ldc)
{
    size_t crow = ldc * (p->out == QGEMM_OUT_I32 ? 4 : 1);
    __mmask16 bad = 0;
    for (int n = n0; n < n1; n += 64) {
        int cnt = n1 - n < 64 ? n1 - n : 64, nv = (cnt + 15) / 16;
        int m = 0;
        for (; m + MR <= M; m += MR) {
            const int8_t *a = A + (size_t)m * lda;
            unsigned char *c = (unsigned char *)C + (size_t)m * crow;
            TILE_NV(MR)
        }
        for (; m < M; m++) {
            const int8_t *a = A + (size_t)m * lda;
            unsigned char *c = (unsigned char *)C + (size_t)m * crow;
            TILE_NV(1)
        }
    }
    return bad ? QGEMM_ERR_RANGE : QGEMM_OK;
}
#endif
