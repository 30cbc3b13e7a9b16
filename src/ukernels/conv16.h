/* int16 x int8 -> int48 convolutions (the a16w8 path), CONV2D and DEPTHWISE_CONV2D fused
 * with the RESCALE i48 -> i16/i8 that follows (and a CLAMP after it): bit for bit the
 * interpreter's sums (exact, wrapped to 48 bits, + bias wrapped again) and apply_scale_16.
 * The input zero point of an int16 operand is 0 (ERROR_IF otherwise), so padding taps add
 * nothing. Weights are packed once as int16 (w - weight_zp). Sums are exact in int32 over
 * chunks of at most `chunk` products (chunk * 32768 * max|w - weight_zp| < 2^31), added to
 * int64: the vectorised int16 dot product (vpmaddwd) gives the same bits. */
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
    int64_t sy, sx, dy, dx, pt, pl;
    int64_t Kp;                 /* CONV2D: KH*KW*IC rounded up to UKR_CONV16_KALIGN */
    const int16_t *w;           /* CONV2D [OC][Kp] (zero tail); DEPTHWISE [KH*KW][IC*M] */
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

/* Runs the group into out (i8 or i16 by rs.out_bits); false when apply_scale_16's int32
 * REQUIRE fails somewhere (out is then unspecified). */
typedef bool (*ukr_conv16_fn)(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch);
bool ukr_conv16_portable(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch);
bool ukr_conv16_avx2(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch);
bool ukr_conv16_avx512vnni(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch);
/* The variant's kernel (isa must be available). */
ukr_conv16_fn ukr_conv16_select(kern_isa isa);

#endif
