/* Elementwise kernels, Arm Helium (MVE) twins for the Cortex-M55 (see ewise.h), 4 int32 lanes
 * per vector with predicated tails (VCTP):
 * - RESCALE scale32 with one channel and every REQUIRE statically true: int8/int16/int32 in
 *   (widening loads), v = x - input_zp, apply_scale_32 for shift 33..62 as the rounding shift
 *   of the product's high half alone (VMULH, VRSHL: floor((hi * 2^32 + lo + 2^(s-1)) / 2^s) =
 *   floor((hi + 2^(s-33)) / 2^(s-32)), the low half below 2^32 cannot move it), + output_zp,
 *   the clamp, narrowing stores. Everything else (per channel, shifts up to 32, DOUBLE_ROUND's
 *   2^30 term, scale16, int48) runs the portable kernel.
 * - int32 ADD / SUB: wrapping and saturating results side by side; a lane where they differ
 *   left int32 (the REQUIRE). MUL with shift 0: the low 32 bits (VMUL); other shifts portable.
 * - integer CLAMP of int8 (16 lanes) and int16 (8 lanes): VMAX / VMIN. */
#include "kernels/isa.h"
#include "ukernels/ewise.h"

#if KERN_HAVE_HELIUM
#include <arm_mve.h>

/* The rescale p runs here: one channel, shift 33..62, one rounding both ways, v in int32. */
static bool rescale_fast(const ukr_rescale *p)
{
    if (p->scale16 || p->n_ch != 1 || p->in_bits > 32 || p->out_bits > 32)
        return false;
    const ukr_rescale_ch *c = &p->ch[0];
    if (c->shift < 33 || c->shift > 62 || c->round_pos != c->round_neg || c->mul < 0 ||
        c->mul > INT32_MAX)
        return false;
    /* int32 in: x - input_zp must stay in int32 (else the portable kernel's 64-bit v) */
    return p->in_bits < 32 || p->in_zp == 0;
}

static inline int32x4_t load4(int bits, const void *in, int64_t i, mve_pred16_t k)
{
    switch (bits) {
    case 8: return vldrbq_z_s32((const int8_t *)in + i, k);
    case 16: return vldrhq_z_s32((const int16_t *)in + i, k);
    default: return vldrwq_z_s32((const int32_t *)in + i, k);
    }
}

static inline void store4(int bits, void *out, int64_t i, int32x4_t v, mve_pred16_t k)
{
    switch (bits) {
    case 8: vstrbq_p_s32((int8_t *)out + i, v, k); break;
    case 16: vstrhq_p_s32((int16_t *)out + i, v, k); break;
    default: vstrwq_p_s32((int32_t *)out + i, v, k); break;
    }
}

bool ukr_rescale_helium(const ukr_rescale *p, const void *in, void *out, int64_t n)
{
    if (!rescale_fast(p))
        return ukr_rescale_portable(p, in, out, n);
    const ukr_rescale_ch *c = &p->ch[0];
    const int32_t izp = (int32_t)p->in_zp, ozp = (int32_t)p->out_zp;
    const int32_t lo = (int32_t)p->lo, hi = (int32_t)p->hi, m = (int32_t)c->mul;
    const int32_t rsh = -(c->shift - 32); /* VRSHL: a negative amount rounds right */
    for (int64_t i = 0; i < n; i += 4) {
        mve_pred16_t k = vctp32q((uint32_t)(n - i < 4 ? n - i : 4));
        int32x4_t v = vsubq_n_s32(load4(p->in_bits, in, i, k), izp);
        int32x4_t r = vrshlq_n_s32(vmulhq_s32(v, vdupq_n_s32(m)), rsh);
        r = vaddq_n_s32(r, ozp); /* |r| < 2^29: no wrap */
        r = vminq_s32(vmaxq_s32(r, vdupq_n_s32(lo)), vdupq_n_s32(hi));
        store4(p->out_bits, out, i, r, k);
    }
    return true; /* v * m < 2^62 and |v| < 2^31 <= lim: no REQUIRE can fail */
}

bool ukr_arith_i32_helium(int what, int shift, const int32_t *a, const int32_t *b, int32_t *o,
                          int64_t n)
{
    if (what == UKR_MUL && shift != 0)
        return ukr_arith_i32_portable(what, shift, a, b, o, n);
    int32x4_t bad = vdupq_n_s32(0);
    for (int64_t i = 0; i < n; i += 4) {
        mve_pred16_t k = vctp32q((uint32_t)(n - i < 4 ? n - i : 4));
        int32x4_t x = vldrwq_z_s32(a + i, k), y = vldrwq_z_s32(b + i, k), r;
        if (what == UKR_ADD) {
            r = vaddq_s32(x, y);
            bad = vorrq_s32(bad, veorq_s32(r, vqaddq_s32(x, y)));
        } else if (what == UKR_SUB) {
            r = vsubq_s32(x, y);
            bad = vorrq_s32(bad, veorq_s32(r, vqsubq_s32(x, y)));
        } else {
            r = vmulq_s32(x, y); /* the low 32 bits of the product */
        }
        vstrwq_p_s32(o + i, r, k);
    }
    return vcmpneq_n_s32(bad, 0) == 0;
}

void ukr_clamp_int_helium(int bits, int64_t lo, int64_t hi, const void *in, void *out,
                          int64_t n)
{
    if (bits == 8) {
        const int8_t *x = in;
        int8_t *y = out;
        int8x16_t l = vdupq_n_s8((int8_t)lo), h = vdupq_n_s8((int8_t)hi);
        for (int64_t i = 0; i < n; i += 16) {
            mve_pred16_t k = vctp8q((uint32_t)(n - i < 16 ? n - i : 16));
            vstrbq_p_s8(y + i, vminq_s8(vmaxq_s8(vldrbq_z_s8(x + i, k), l), h), k);
        }
    } else {
        const int16_t *x = in;
        int16_t *y = out;
        int16x8_t l = vdupq_n_s16((int16_t)lo), h = vdupq_n_s16((int16_t)hi);
        for (int64_t i = 0; i < n; i += 8) {
            mve_pred16_t k = vctp16q((uint32_t)(n - i < 8 ? n - i : 8));
            vstrhq_p_s16(y + i, vminq_s16(vmaxq_s16(vldrhq_z_s16(x + i, k), l), h), k);
        }
    }
}
#endif
