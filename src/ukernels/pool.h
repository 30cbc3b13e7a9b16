/* Integer pooling windows (MAX_POOL2D, AVG_POOL2D on int8 / int16, NHWC): one output pixel
 * from a window of wy x wx input pixels (already clipped to the image; padding is never read)
 * starting at `win`, rows `row` elements apart, C contiguous channels per pixel.
 *
 * The loop bodies are written once here (always inline) and compiled twice: pool.c (portable)
 * and pool_avx2.c (the avx2 target attribute, the same C vectorised 32 bytes wide). Integer
 * max and sums are exact in any order, so the twins are bit-identical. */
#ifndef TOSAC_UKERNELS_POOL_H
#define TOSAC_UKERNELS_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

/* AVG_POOL2D's division of one pixel: apply_scale_32(sum - count * input_zp, mult, shift)
 * (single rounding) with reciprocal_scale(count)'s mult and shift (>= 30; the family bounds the
 * window so |sum| < 2^31), + output_zp, clipped to [lo, hi]. */
typedef struct pool_avg_params {
    int32_t izp, ozp, lo, hi;
    int32_t mult;
    int shift;
} pool_avg_params;

typedef struct pool_fns {
    void (*max_i8)(const int8_t *win, size_t row, int wy, int wx, int C, int8_t *out);
    void (*max_i16)(const int16_t *win, size_t row, int wy, int wx, int C, int16_t *out);
    /* acc: C int32 of scratch */
    void (*avg_i8)(const int8_t *win, size_t row, int wy, int wx, int C, int32_t *acc,
                   const pool_avg_params *p, int8_t *out);
    void (*avg_i16)(const int16_t *win, size_t row, int wy, int wx, int C, int32_t *acc,
                    const pool_avg_params *p, int16_t *out);
} pool_fns;

extern const pool_fns pool_fns_portable;
#if KERN_HAVE_AVX2_TWIN
extern const pool_fns pool_fns_avx2;
#endif
/* The variant of kern_isa_active() (avx512vnni runs the avx2 twin). */
const pool_fns *pool_select(void);

#define POOL_INLINE __attribute__((always_inline)) static inline

#define POOL_MAX_BODY(T)                                                                       \
    for (int c = 0; c < C; c++)                                                                \
        out[c] = win[c];                                                                       \
    for (int y = 0; y < wy; y++)                                                               \
        for (int x = y == 0 ? 1 : 0; x < wx; x++) {                                            \
            const T *p = win + (size_t)y * row + (size_t)x * (size_t)C;                        \
            for (int c = 0; c < C; c++)                                                        \
                out[c] = p[c] > out[c] ? p[c] : out[c];                                        \
        }

/* sum, then floor((sum * m + 2^(s-1)) / 2^s) as ((sum * m + 2^(s-1) + 2^62) >> s) - 2^(62-s)
 * on unsigned 64 bits: |sum * m| < 2^62, s <= 62. */
#define POOL_AVG_BODY(T)                                                                       \
    for (int c = 0; c < C; c++)                                                                \
        acc[c] = 0;                                                                            \
    for (int y = 0; y < wy; y++)                                                               \
        for (int x = 0; x < wx; x++) {                                                         \
            const T *q = win + (size_t)y * row + (size_t)x * (size_t)C;                        \
            for (int c = 0; c < C; c++)                                                        \
                acc[c] += q[c];                                                                \
        }                                                                                      \
    int64_t m = p->mult;                                                                       \
    int s = p->shift;                                                                          \
    int32_t off = wy * wx * p->izp;                                                            \
    uint64_t round = ((uint64_t)1 << (s - 1)) + ((uint64_t)1 << 62);                          \
    uint64_t sub = (uint64_t)1 << (62 - s);                                                    \
    for (int c = 0; c < C; c++) {                                                              \
        int64_t r = (int64_t)((((uint64_t)((int64_t)(acc[c] - off) * m)) + round) >> s) -      \
                    (int64_t)sub + p->ozp;                                                     \
        out[c] = (T)(r < p->lo ? p->lo : r > p->hi ? p->hi : r);                               \
    }

#endif
