/* Depthwise int8 convolution + requantization, Arm Helium (MVE) twin of dwconv.c for the
 * Cortex-M55: 8 channels per step. A tap pair's inputs are loaded widened to int16 (the input
 * zero point is folded into the start of the sums), its interleaved weights de-interleaved by
 * VLD2, and the products widened to int32 by VMULLB/VMULLT, so the accumulators hold the even
 * and the odd channels of the step; sums wrap mod 2^32 as the reference's accumulator does. The requantization (dwconv.h)
 * runs on those 4-lane halves with the per-channel arrays gathered at stride 2, on exact
 * 64-bit values kept as (hi, lo) 32-bit halves; the two halves are narrowed back to channel
 * order (VMOVNB/VMOVNT) and stored as int8. Channels past the last whole step: the portable
 * dwconv_q8_channels. */
#include "ukernels/dwconv.h"

#if KERN_HAVE_HELIUM
#include <arm_mve.h>

/* (hi, lo) += (ahi, alo), 64-bit lanes. */
static inline void add64(uint32x4_t *hi, uint32x4_t *lo, uint32x4_t ahi, uint32x4_t alo)
{
    uint32x4_t l = vaddq_u32(*lo, alo);
    uint32x4_t h = vaddq_u32(*hi, ahi);
    *hi = vaddq_m_n_u32(h, h, 1, vcmphiq_u32(alo, l)); /* l < alo: the low half carried */
    *lo = l;
}

/* 4 channels c + 2i (i < 4) of the step at c (odd: c + 1 + 2i) from their sums: the int32
 * results of q8_requant_one, the REQUIRE failures in *bad. big: every channel's shift is
 * above 32 and none rounds twice, so the result is the rounding shift (VRSHL) of the
 * product's high half alone: a low half below 2^32 cannot move floor((v * m + 2^(s-1)) / 2^s). */
static inline int32x4_t requant4(const q8_requant *q, int c, int32x4_t acc, mve_pred16_t *bad,
                                 int big)
{
    /* word offsets of channels c, c+2, c+4, c+6 in int32 and in int64 (low word) arrays */
    const uint32x4_t o32 = {0, 2, 4, 6}, o64 = {0, 4, 8, 12}, o64h = {1, 5, 9, 13};
    int32x4_t v = vaddq_s32(acc, vldrwq_gather_shifted_offset_s32(q->bias + c, o32));
    if (q->check)
        *bad |= vcmpltq_s32(v, vldrwq_gather_shifted_offset_s32(q->vlo + c, o32)) |
                vcmpgtq_s32(v, vldrwq_gather_shifted_offset_s32(q->vhi + c, o32));
    const uint32_t *m64 = (const uint32_t *)(q->mult + c), *r64 = (const uint32_t *)(q->round + c);
    /* multiplier in [0, 2^31): its low word; v * m as a signed 64-bit (hi, lo) */
    int32x4_t m = vreinterpretq_s32_u32(vldrwq_gather_shifted_offset_u32(m64, o64));
    int32x4_t s = vreinterpretq_s32_u32(
        vldrwq_gather_shifted_offset_u32((const uint32_t *)(q->shift + c), o64));
    int32x4_t r;
    if (big) {
        r = vrshlq_s32(vmulhq_s32(v, m), vsubq_s32(vdupq_n_s32(32), s));
        goto out;
    }
    uint32x4_t hi = vreinterpretq_u32_s32(vmulhq_s32(v, m));
    uint32x4_t lo = vreinterpretq_u32_s32(vmulq_s32(v, m));
    add64(&hi, &lo, vldrwq_gather_shifted_offset_u32(r64, o64h),
          vldrwq_gather_shifted_offset_u32(r64, o64));
    if (q->dbl) { /* - dadj (0 or 2^31: its low word) for v < 0 */
        uint32x4_t d = vldrwq_gather_shifted_offset_u32((const uint32_t *)(q->dadj + c), o64);
        d = vpselq_u32(d, vdupq_n_u32(0), vcmpltq_n_s32(v, 0));
        add64(&hi, &lo, vreinterpretq_u32_s32(vnegq_s32(vreinterpretq_s32_u32(
                            vminq_u32(d, vdupq_n_u32(1))))), /* -1 when d != 0: hi of -d */
              vreinterpretq_u32_s32(vnegq_s32(vreinterpretq_s32_u32(d))));
    }
    /* (x >> s) mod 2^32, logical; minus sub mod 2^32 (the result fits int32) */
    uint32x4_t x = vorrq_u32(vshlq_u32(hi, vsubq_s32(vdupq_n_s32(32), s)),
                             vshlq_u32(lo, vnegq_s32(s)));
    x = vsubq_u32(x, vldrwq_gather_shifted_offset_u32((const uint32_t *)(q->sub + c), o64));
    r = vreinterpretq_s32_u32(x);
out:
    r = vaddq_n_s32(r, q->ozp);
    r = vmaxq_s32(r, vdupq_n_s32(q->lo));
    return vminq_s32(r, vdupq_n_s32(q->hi));
}

int dwconv_q8_helium(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                     int8_t *out)
{
    const int C = p->C, np = p->n_pairs;
    mve_pred16_t bad = 0;
    int c = 0, big = !p->q.dbl;
    for (int k = 0; k < C; k++)
        big &= p->q.shift[k] > 32;
    for (; c + 8 <= C; c += 8) {
        /* input_zp is folded into the bias at init (dwconv_q8_fold_zp): raw taps here */
        int32x4_t ze = vdupq_n_s32(0), zo = vdupq_n_s32(0);
        for (int i = 0; i < n_pix; i++) {
            const int8_t *const *t = taps + (size_t)i * 2 * (size_t)np;
            int32x4_t ev = ze, od = zo;
            for (int j = 0; j < np; j++) {
                int16x8_t a = vldrbq_s16(t[2 * j] + c), b = vldrbq_s16(t[2 * j + 1] + c);
                int16x8x2_t w = vld2q_s16(p->w + ((size_t)j * (size_t)C + (size_t)c) * 2);
                ev = vaddq_s32(ev, vaddq_s32(vmullbq_int_s16(a, w.val[0]),
                                             vmullbq_int_s16(b, w.val[1])));
                od = vaddq_s32(od, vaddq_s32(vmulltq_int_s16(a, w.val[0]),
                                             vmulltq_int_s16(b, w.val[1])));
            }
            int32x4_t re = requant4(&p->q, c, ev, &bad, big),
                      ro = requant4(&p->q, c + 1, od, &bad, big);
            int16x8_t r = vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), re), ro);
            vstrbq_s16(out + (size_t)i * (size_t)C + (size_t)c, r);
        }
    }
    int rc = bad != 0;
    if (c < C)
        rc |= dwconv_q8_channels(p, taps, n_pix, out, c);
    return rc;
}
#endif
