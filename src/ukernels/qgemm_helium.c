/* qgemm, Arm Helium (MVE) twin for the Cortex-M55 (KN16 layout, as portable; see qgemm.h).
 * Each column's K weights are contiguous and zero-padded to 16k, so one VMLADAVA.S8 sums 16
 * products of a row of A and a column into a 32-bit scalar, wrapping mod 2^32 as the
 * reference's i32 accumulator does; A's last partial vector is a predicated load (the lanes
 * past K are not read and read as 0). Four columns per pass over a row; column groups outside
 * and rows inside, so a group's weight pointers and epilogue parameters are set up once for
 * all rows (2 rows x 4 columns does not pay: VMLADAVA's accumulator must be an even register,
 * and 8 of them do not fit).
 *
 * The epilogue handles 4 columns per vector, exactly as qgemm_epilogue1: the 64-bit product
 * v * mult is kept as (hi, lo) 32-bit halves (VMULH, VMUL), the rounding terms are added with
 * a carry, and the floor shift by s (2..62) is (hi << (32 - s)) | (lo >> s) with MVE's
 * per-lane shifts (a negative amount shifts right: arithmetic for hi, logical for lo, and
 * 0 for 32 or more); the result fits 32 bits because |v * mult| < 2^(s + 30) once the
 * REQUIRE on v holds (s <= 31), and < 2^62 always. */
#include "ukernels/qgemm.h"

#if KERN_HAVE_HELIUM
#include <arm_mve.h>

/* (hi, lo) += (ahi, alo) as 64-bit lanes. */
static inline void add64(int32x4_t *hi, uint32x4_t *lo, int32x4_t ahi, uint32x4_t alo)
{
    uint32x4_t l = vaddq_u32(*lo, alo);
    mve_pred16_t carry = vcmphiq_u32(alo, l); /* l < alo: the low half wrapped */
    int32x4_t h = vaddq_s32(*hi, ahi);
    *hi = vaddq_m_n_s32(h, h, 1, carry);
    *lo = l;
}

/* One 4-column group's epilogue parameters, loaded once for all the rows of a call. */
typedef struct epi_cols {
    int32x4_t bias, m, s, lsh, rsh; /* lsh = 32 - s, rsh = -s */
    int32x4_t vmin, vmax, d;
    int32x4_t zp, lo, hi;           /* out_zp and the clamp */
    mve_pred16_t keep;              /* the columns stored */
} epi_cols;

static inline void epi_load(const qgemm_packed *p, int n, int cnt, int check, int dbl,
                            epi_cols *e)
{
    e->keep = vctp32q((uint32_t)cnt);
    e->bias = vld1q_s32(p->bias + n);
    e->m = vld1q_s32(p->mult + n);
    e->s = vld1q_s32(p->shift + n);
    e->lsh = vsubq_s32(vdupq_n_s32(32), e->s);
    e->rsh = vnegq_s32(e->s);
    e->vmin = check ? vld1q_s32(p->vmin + n) : vdupq_n_s32(0);
    e->vmax = check ? vld1q_s32(p->vmax + n) : vdupq_n_s32(0);
    e->d = dbl ? vld1q_s32(p->rdbl + n) : vdupq_n_s32(0);
    e->zp = vdupq_n_s32(p->out_zp);
    e->lo = vdupq_n_s32(p->lo);
    e->hi = vdupq_n_s32(p->hi);
}

/* One row of the group from its raw sums; returns the lanes whose value fails the REQUIRE
 * (nonzero: QGEMM_ERR_RANGE). check / dbl: some column of the call has a shift <= 31 (a
 * REQUIRE to test) / a DOUBLE_ROUND term; without, those steps add nothing and are skipped.
 * big: every shift of the call is above 32, so the result is the rounding shift of the
 * product's high half alone (VRSHL): the low half, below 2^32, cannot move
 * floor((hi * 2^32 + lo + 2^(s-1)) / 2^s) = floor((hi + 2^(s-33)) / 2^(s-32)). */
static inline mve_pred16_t epi4(const epi_cols *e, int i32, int n, int32x4_t acc, void *crow,
                                int check, int dbl, int big)
{
    int32x4_t v = vaddq_s32(acc, e->bias);
    if (i32) {
        vstrwq_p_s32((int32_t *)crow + n, v, e->keep);
        return 0;
    }
    mve_pred16_t bad = 0;
    if (check)
        bad = (vcmpltq_s32(v, e->vmin) | vcmpgtq_s32(v, e->vmax)) & e->keep;
    int32x4_t hi = vmulhq_s32(v, e->m), r;
    if (big && !dbl) {
        r = vrshlq_s32(hi, e->lsh);
    } else {
        uint32x4_t lo = vreinterpretq_u32_s32(vmulq_s32(v, e->m));
        /* + 2^(s-1): (0, 2^(s-1)) for s <= 32, (2^(s-33), 0) above */
        int32x4_t one = vdupq_n_s32(1);
        uint32x4_t rlo = vreinterpretq_u32_s32(vshlq_s32(one, vsubq_n_s32(e->s, 1)));
        int32x4_t rhi = vshlq_s32(one, vsubq_n_s32(e->s, 33)); /* 0 when s - 33 < 0 */
        add64(&hi, &lo, rhi, rlo);
        /* DOUBLE_ROUND: + 2^30 (v >= 0) or - 2^30 (v < 0), sign-extended to 64 bits */
        if (dbl) {
            int32x4_t d = vpselq_s32(vnegq_s32(e->d), e->d, vcmpltq_n_s32(v, 0));
            add64(&hi, &lo, vshrq_n_s32(d, 31), vreinterpretq_u32_s32(d));
        }
        r = vorrq_s32(vshlq_s32(hi, e->lsh), vreinterpretq_s32_u32(vshlq_u32(lo, e->rsh)));
    }
    r = vminq_s32(vmaxq_s32(vaddq_s32(r, e->zp), e->lo), e->hi);
    vstrbq_p_s32((int8_t *)crow + n, r, e->keep);
    return bad;
}

int qgemm_run_helium(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0, int n1,
                     void *C, size_t ldc)
{
    int i32 = p->out == QGEMM_OUT_I32;
    size_t esz = i32 ? 4 : 1, kp = (size_t)p->Kp;
    int K = p->K, kfull = K & ~15, ktail = K - kfull;
    mve_pred16_t tail = vctp8q((uint32_t)ktail);
    mve_pred16_t bad = 0;
    int check = 0, dbl = 0, big = 1; /* over the call's columns (the padding is neutral) */
    for (int n = n0; n < n1; n++) {
        check |= p->vmin[n] != INT32_MIN;
        dbl |= p->rdbl[n] != 0;
        big &= p->shift[n] > 32;
    }
    /* Column groups outside, rows inside: a group's weights and epilogue parameters once. */
    for (int n = n0; n < n1; n += 4) {
        /* Columns past n1 (up to Np) are zero weights: summed, never stored. */
        const int8_t *w0 = p->w + (size_t)n * kp, *w1 = w0 + kp, *w2 = w1 + kp, *w3 = w2 + kp;
        epi_cols e;
        epi_load(p, n, n1 - n < 4 ? n1 - n : 4, check, dbl, &e);
        for (int m = 0; m < M; m++) {
            const int8_t *a = A + (size_t)m * lda;
            int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            int k = 0;
            for (; k < kfull; k += 16) {
                int8x16_t x = vld1q_s8(a + k);
                s0 = vmladavaq_s8(s0, x, vld1q_s8(w0 + k));
                s1 = vmladavaq_s8(s1, x, vld1q_s8(w1 + k));
                s2 = vmladavaq_s8(s2, x, vld1q_s8(w2 + k));
                s3 = vmladavaq_s8(s3, x, vld1q_s8(w3 + k));
            }
            if (ktail) { /* predicated: A's bytes past K are not read */
                int8x16_t x = vldrbq_z_s8(a + k, tail);
                s0 = vmladavaq_s8(s0, x, vld1q_s8(w0 + k));
                s1 = vmladavaq_s8(s1, x, vld1q_s8(w1 + k));
                s2 = vmladavaq_s8(s2, x, vld1q_s8(w2 + k));
                s3 = vmladavaq_s8(s3, x, vld1q_s8(w3 + k));
            }
            int32x4_t acc = vdupq_n_s32(s0);
            acc = vsetq_lane_s32(s1, acc, 1);
            acc = vsetq_lane_s32(s2, acc, 2);
            acc = vsetq_lane_s32(s3, acc, 3);
            bad |= epi4(&e, i32, n, acc, (unsigned char *)C + (size_t)m * ldc * esz, check, dbl,
                        big);
        }
    }
    return bad ? QGEMM_ERR_RANGE : QGEMM_OK;
}

#endif
