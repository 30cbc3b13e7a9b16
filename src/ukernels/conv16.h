/* int16 x int8 -> int48 convolutions (the a16w8 path), CONV2D, DEPTHWISE_CONV2D and
 * TRANSPOSE_CONV2D, and MATMUL int16 x int16 -> int48 as a 1x1 CONV2D (the rows of A the
 * pixels, B the weights), fused with the RESCALE i48 -> i16/i8 that follows (and a CLAMP
 * after it): bit for bit the
 * interpreter's sums (exact, wrapped to 48 bits, + bias wrapped again) and apply_scale_16.
 * The input zero point of an int16 operand is 0 (ERROR_IF otherwise), so padding taps add
 * nothing. Weights are packed once as int16 (w - weight_zp). Sums are exact in int32 over
 * chunks of at most `chunk` products (chunk * 32768 * max|w - weight_zp| < 2^31), added to
 * int64: the vectorised int16 dot product (vpmaddwd) gives the same bits. A MATMUL B of
 * values too wide for a useful chunk is split as b = 256 * hi + lo (lo in [0, 255], hi in
 * [-128, 127]): two passes of narrow products, hi's sums times 256 added exactly in int64. */
#ifndef TOSAC_UKERNELS_CONV16_H
#define TOSAC_UKERNELS_CONV16_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"
#include "ukernels/ewise.h"

#define UKR_CONV16_TILE 4    /* output pixels per weight pass (CONV2D) */
#define UKR_CONV16_KALIGN 32 /* CONV2D rows padded with zeros: no scalar tails */

typedef struct ukr_conv16 {
    int64_t N, IH, IW, IC, OH, OW, OC, KH, KW;
    int64_t M;                  /* DEPTHWISE: channel multiplier (OC = IC * M); 0: CONV2D */
    int64_t sy, sx, dy, dx, pt, pl; /* TRANSPOSE: pt, pl are out_pad top/left, dy = dx = 1 */
    bool transposed;            /* TRANSPOSE_CONV2D: output (oy, ox) reads input
                                 * ((oy - pt - ky) / sy, (ox - pl - kx) / sx) where exact */
    int64_t Kp;                 /* CONV2D: KH*KW*IC rounded up to UKR_CONV16_KALIGN */
    const int16_t *w;           /* CONV2D [ceil(OC/16)][Kp/2][16][2] (zeros past OC and K);
                                 * DEPTHWISE [KH*KW][IC*M] */
    const int16_t *w_hi;        /* CONV2D layout, or NULL: w holds the low bytes of a split
                                 * operand (0..255), w_hi the high ones (sum = 256*hi + lo) */
    const int64_t *bias;        /* n_bias values (1 or OC) */
    int64_t n_bias;
    int64_t chunk;              /* CONV2D: products summed in int32 before int64 */
    ukr_rescale rs;             /* the RESCALE (scale16, in 48 bits) */
    int64_t lo, hi;             /* its output range narrowed by the CLAMP (if any) */
    /* per output channel (OC each, ukr_conv16_finish_arrays): bias, multiplier, rounding,
     * shift, so the output stage of a pixel vectorises */
    const int64_t *f_bias, *f_mul, *f_rnd, *f_sh;
} ukr_conv16;

/* Fills the f_ arrays in mem (4 * OC int64). */
void ukr_conv16_finish_arrays(ukr_conv16 *p, int64_t *mem);
/* Scratch bytes per thread (the same for every variant). */
size_t ukr_conv16_scratch(const ukr_conv16 *p);

/* Runs the group into out (i8 or i16 by rs.out_bits) for the output rows [r0, r1) of the
 * N*OH rows (row n*OH + oy); false when apply_scale_16's int32 REQUIRE fails somewhere (out
 * is then unspecified). Disjoint row ranges may run in parallel (own scratch each). */
typedef bool (*ukr_conv16_fn)(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch,
                              int64_t r0, int64_t r1);
#define UKR_CONV16_VARIANT(name)                                                               \
    bool name(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch, int64_t r0,    \
              int64_t r1);
UKR_CONV16_VARIANT(ukr_conv16_portable)
UKR_CONV16_VARIANT(ukr_conv16_avx2)
UKR_CONV16_VARIANT(ukr_conv16_avx512vnni)
/* The variant's kernel (isa must be available). */
ukr_conv16_fn ukr_conv16_select(kern_isa isa);

#endif
