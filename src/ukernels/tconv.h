/* Transpose int8 convolution fused with its requantization (TRANSPOSE_CONV2D i8 x i8 -> i32,
 * + bias, RESCALE i32 -> i8, optional CLAMP; see dwconv.h for q8_requant), one output pixel
 * at a time: the caller lists the kernel taps that land on it (tap index, input pixel), the
 * kernel sums W[tap] (OC x IC) times (x - input_zp) over them.
 *
 * Weights are packed once as int16 (w - weight_zp) [tap][IC/2 pairs][OC][2] (an odd IC's last
 * pair has weight 0): one input pair broadcast against 8 output channels per vpmaddwd. Sums are
 * modulo 2^32 like the reference's accumulator, in every variant. */
#ifndef TOSAC_UKERNELS_TCONV_H
#define TOSAC_UKERNELS_TCONV_H

#include "ukernels/dwconv.h"

typedef struct tconv_q8_params {
    int IC, OC;
    int ic_pairs;       /* (IC + 1) / 2 */
    const int16_t *w;   /* [taps][ic_pairs][OC][2] */
    int16_t izp;
    q8_requant q;
} tconv_q8_params;

/* One output pixel: taps tap[0..n) reading input pixels x[0..n) (IC values each); acc: OC
 * int32 of scratch. Returns 1 when a value broke the RESCALE REQUIRE. */
typedef int (*tconv_q8_fn)(const tconv_q8_params *p, const int *tap, const int8_t *const *x,
                           int n, int32_t *acc, int8_t *out);

int tconv_q8_portable(const tconv_q8_params *p, const int *tap, const int8_t *const *x, int n,
                      int32_t *acc, int8_t *out);
#if KERN_HAVE_AVX2_TWIN
int tconv_q8_avx2(const tconv_q8_params *p, const int *tap, const int8_t *const *x, int n,
                  int32_t *acc, int8_t *out);
#endif
/* Output channels [oc0, OC), portable (the vector variant's tail). */
int tconv_q8_channels(const tconv_q8_params *p, const int *tap, const int8_t *const *x, int n,
                      int32_t *acc, int8_t *out, int oc0);
/* The variant of kern_isa_active() (avx512vnni runs the avx2 twin). */
tconv_q8_fn tconv_q8_select(void);

size_t tconv_q8_packed_bytes(int OC, int taps, int IC);
/* w: TRANSPOSE_CONV2D's [OC, KH, KW, IC] into dst [taps][ic_pairs][OC][2]. */
void tconv_q8_pack(int16_t *dst, const int8_t *w, int OC, int taps, int IC, int32_t wzp);

#endif
