/* Depthwise int8 convolution fused with its per-channel requantization (DEPTHWISE_CONV2D
 * i8 x i8 -> i32, + bias, RESCALE i32 -> i8 scale32, optional CLAMP), channel multiplier 1.
 *
 * The kernel knows no geometry: for every output pixel the caller passes the input rows of its
 * kernel taps as pointers, grouped in pairs; weights are packed once as int16 (w - weight_zp)
 * pairs [pair][channel][2] (an odd tap count's last pair has weight 0). The kernel multiplies
 * the raw inputs: the caller folds -input_zp * sum(w - weight_zp) into the bias
 * (dwconv_q8_fold_zp) and points taps outside the image at a row holding input_zp, so they add
 * zero, as the reference's skipped taps do. Every variant uses this one layout, sums modulo 2^32
 * as the reference's accumulator does, and the requantization below, so all are bit-identical
 * to the interpreter. */
#ifndef TOSAC_UKERNELS_DWCONV_H
#define TOSAC_UKERNELS_DWCONV_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

/* Per-channel requantization, apply_scale_32 with a 64-bit product: floor((v * m + round) /
 * 2^s) is computed as ((v * m + round + 2^62) >> s) - 2^(62-s) on unsigned 64 bits (the sum is
 * in [0, 2^64) for every int32 v, multiplier < 2^31 and shift 2..62), so vector variants can
 * use a logical per-lane shift. DOUBLE_ROUND with s > 31 rounds negative values 2^31 lower. */
typedef struct q8_requant {
    const int32_t *bias;      /* [C] (BC == 1 broadcast at prepare) */
    const int64_t *mult;      /* [C] multiplier, 0 .. 2^31-1 */
    const int64_t *round;     /* [C] 2^(s-1) (+ 2^30 DOUBLE_ROUND, s > 31) + 2^62 */
    const int64_t *dadj;      /* [C] 2^31 for DOUBLE_ROUND and s > 31, else 0 */
    const int64_t *shift;     /* [C] s */
    const int64_t *sub;       /* [C] 2^(62-s) */
    const int32_t *vlo, *vhi; /* [C] apply_scale_32's REQUIRE on v; whole int32 for s >= 32 */
    int32_t ozp, lo, hi;      /* output zero point; result clipped to [lo, hi] (int8 & CLAMP) */
    int check;                /* some channel has s < 32: test v against [vlo, vhi] */
    int dbl;                  /* some channel has dadj != 0 */
    /* mult, round, dadj, shift, sub again, each [C rounded up to 16] with every 16 channels
     * as their 8 even then 8 odd ones (the 64-bit lanes of vpmuldq's even/odd products; the
     * padding neutral), or NULL: the AVX-512 twin's requantization without widening moves */
    const int64_t *eo;
    int eo_stride;            /* C rounded up to 16: the distance between those arrays */
} q8_requant;

/* One channel: v = accumulator (already + bias, modulo 2^32). Sets *bad when v breaks the
 * REQUIRE (the reference then fails; the result written is meaningless). */
static inline int8_t q8_requant_one(const q8_requant *q, int c, int32_t v, int *bad)
{
    if (v < q->vlo[c] || v > q->vhi[c])
        *bad = 1;
    uint64_t x = (uint64_t)((int64_t)v * q->mult[c]) + (uint64_t)q->round[c];
    if (v < 0)
        x -= (uint64_t)q->dadj[c];
    int64_t r = (int64_t)(x >> q->shift[c]) - q->sub[c];
    int64_t o = r + q->ozp;
    return (int8_t)(o < q->lo ? q->lo : o > q->hi ? q->hi : o);
}

typedef struct dwconv_q8_params {
    int C;              /* channels (input = output, multiplier 1) */
    int n_pairs;        /* tap pairs per pixel: ceil(KH * KW / 2) */
    const int16_t *w;   /* [n_pairs][C][2] */
    q8_requant q;
} dwconv_q8_params;

/* n_pix output pixels: pixel i reads taps[i * 2 * n_pairs + k] (k < 2 * n_pairs, each C
 * int8 values) and writes out[i * C .. +C). Returns 1 when a value broke the RESCALE REQUIRE. */
typedef int (*dwconv_q8_fn)(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                            int8_t *out);

int dwconv_q8_portable(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                       int8_t *out);
/* bias[c] -= izp * sum over taps of the packed w (modulo 2^32, like the accumulator): every
 * variant multiplies raw inputs, padding taps read an izp row and so add 0. */
void dwconv_q8_fold_zp(int32_t *bias, const int16_t *w, int C, int n_pairs, int32_t izp);
#if KERN_HAVE_AVX2_TWIN
int dwconv_q8_avx2(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                   int8_t *out);
#endif
#if KERN_HAVE_AVX512VNNI_TWIN
int dwconv_q8_avx512vnni(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                         int8_t *out);
#endif
#if KERN_HAVE_HELIUM
int dwconv_q8_helium(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                     int8_t *out);
#endif
/* Channels [c0, C) of n_pix pixels, portable (the vector variants' tail). */
int dwconv_q8_channels(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                       int8_t *out, int c0);

/* The variant of kern_isa_active(). */
dwconv_q8_fn dwconv_q8_select(void);

/* Bytes of the packed weights (every variant: one layout). */
size_t dwconv_q8_packed_bytes(int C, int n_taps);
/* w: [n_taps][C] int8 (DEPTHWISE_CONV2D's [KH, KW, C, 1]) into dst [n_pairs][C][2]. */
void dwconv_q8_pack(int16_t *dst, const int8_t *w, int C, int n_taps, int32_t wzp);

#endif
