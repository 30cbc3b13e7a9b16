/* The conv16 kernels' body, compiled once per variant (conv16.c, conv16_avx2.c,
 * conv16_avx512vnni.c) with CONV16_ATTR (the variant's target attribute) and CONV16_NAME
 * (its function name): the same C, vectorised by the compiler for each target; integer
 * arithmetic, so every variant gives the same bits. */
#include <string.h>

#include "ukernels/conv16.h"

static inline int64_t CONV16_ATTR conv16_wrap48(int64_t v)
{
    return (int64_t)((uint64_t)v << 16) >> 16;
}

/* The output stage of one pixel: acc[oc] (the exact sums) + bias, wrapped to 48 bits as the
 * reference's accumulator and output, apply_scale_16 (its int32 REQUIREs or-ed into the
 * result: false when one fails), + output_zp, the RESCALE and CLAMP ranges; OC values. */
#define CONV16_FINISH(TA, TO)                                                                  \
    static bool CONV16_ATTR finish_##TA##_##TO(const ukr_conv16 *p, const TA *acc, TO *out)    \
    {                                                                                          \
        uint64_t bad = 0;                                                                      \
        const int64_t ozp = p->rs.out_zp, lo = p->lo, hi = p->hi;                              \
        const int64_t *b = p->f_bias, *m = p->f_mul, *rd = p->f_rnd, *sh = p->f_sh;            \
        for (int64_t oc = 0; oc < p->OC; oc++) {                                               \
            int64_t v = conv16_wrap48(conv16_wrap48(acc[oc]) + b[oc]);                         \
            int64_t r = (int64_t)((uint64_t)v * (uint64_t)m[oc] + (uint64_t)rd[oc]) >> sh[oc]; \
            bad |= (uint64_t)(r - INT32_MIN) > (uint64_t)UINT32_MAX;                           \
            r += ozp;                                                                          \
            bad |= (uint64_t)(r - INT32_MIN) > (uint64_t)UINT32_MAX;                           \
            out[oc] = (TO)(r < lo ? lo : r > hi ? hi : r);                                     \
        }                                                                                      \
        return bad == 0;                                                                       \
    }
CONV16_FINISH(int64_t, int8_t)
CONV16_FINISH(int64_t, int16_t)
CONV16_FINISH(int32_t, int8_t)
CONV16_FINISH(int32_t, int16_t)

static inline bool CONV16_ATTR conv16_finish64(const ukr_conv16 *p, const int64_t *acc,
                                               void *out, int64_t i)
{
    return p->rs.out_bits == 8 ? finish_int64_t_int8_t(p, acc, (int8_t *)out + i)
                               : finish_int64_t_int16_t(p, acc, (int16_t *)out + i);
}

static inline bool CONV16_ATTR conv16_finish32(const ukr_conv16 *p, const int32_t *acc,
                                               void *out, int64_t i)
{
    return p->rs.out_bits == 8 ? finish_int32_t_int8_t(p, acc, (int8_t *)out + i)
                               : finish_int32_t_int16_t(p, acc, (int16_t *)out + i);
}

/* The patch (KH*KW*IC values, 0 outside the image) of output pixel (n, oy, ox). */
static void CONV16_ATTR conv16_patch(const ukr_conv16 *p, const int16_t *in, int64_t n,
                                     int64_t oy, int64_t ox, int16_t *patch)
{
    for (int64_t ky = 0; ky < p->KH; ky++) {
        int64_t iy = oy * p->sy - p->pt + ky * p->dy;
        if (p->transposed) { /* the input row landing on oy through tap ky, if any */
            int64_t ty = oy - p->pt - ky;
            iy = ty >= 0 && ty % p->sy == 0 ? ty / p->sy : -1;
        }
        for (int64_t kx = 0; kx < p->KW; kx++) {
            int64_t ix = ox * p->sx - p->pl + kx * p->dx;
            if (p->transposed) {
                int64_t tx = ox - p->pl - kx;
                ix = tx >= 0 && tx % p->sx == 0 ? tx / p->sx : -1;
            }
            int16_t *dst = patch + (ky * p->KW + kx) * p->IC;
            if (iy < 0 || iy >= p->IH || ix < 0 || ix >= p->IW)
                memset(dst, 0, sizeof(int16_t) * (size_t)p->IC);
            else
                memcpy(dst, in + ((n * p->IH + iy) * p->IW + ix) * p->IC,
                       sizeof(int16_t) * (size_t)p->IC);
        }
    }
}

/* a[j][l] = sum over k in [k0, k1) (even, k1 - k0 <= chunk) of pixel j's patch value k times
 * weight (k, output channel l of the block); wb pairs k, k+1 per lane: [k/2][16][2]. A variant
 * may define CONV16_BLOCK with intrinsics (vpdpwssd / vpmaddwd do exactly this). */
#ifndef CONV16_BLOCK
static inline void CONV16_ATTR conv16_block(const int16_t *wb, const int16_t *p0,
                                            const int16_t *p1, const int16_t *p2,
                                            const int16_t *p3, int64_t k0, int64_t k1,
                                            int32_t a[4][16])
{
    int32_t a0[16] = {0}, a1[16] = {0}, a2[16] = {0}, a3[16] = {0};
    for (int64_t k = k0; k < k1; k += 2) {
        const int16_t *wk = wb + k * 16;
        int32_t x0 = p0[k], y0 = p0[k + 1], x1 = p1[k], y1 = p1[k + 1];
        int32_t x2 = p2[k], y2 = p2[k + 1], x3 = p3[k], y3 = p3[k + 1];
        for (int l = 0; l < 16; l++) {
            int32_t u = wk[2 * l], v = wk[2 * l + 1];
            a0[l] += x0 * u + y0 * v;
            a1[l] += x1 * u + y1 * v;
            a2[l] += x2 * u + y2 * v;
            a3[l] += x3 * u + y3 * v;
        }
    }
    memcpy(a[0], a0, sizeof a0);
    memcpy(a[1], a1, sizeof a1);
    memcpy(a[2], a2, sizeof a2);
    memcpy(a[3], a3, sizeof a3);
}
#define CONV16_BLOCK conv16_block
#endif

static bool CONV16_ATTR conv16_direct(const ukr_conv16 *p, const int16_t *in, void *out,
                                      void *scratch, int64_t r0, int64_t r1)
{
    const int64_t K = p->Kp, K0 = p->KH * p->KW * p->IC, T = UKR_CONV16_TILE;
    int16_t *patch = scratch; /* T patches of K, then T rows of OC sums */
    int64_t *sums = (int64_t *)(void *)((unsigned char *)scratch +
                                        ((sizeof(int16_t) * (size_t)(T * K) + 15) & ~(size_t)15));
    bool ok = true;
    for (int64_t row = r0; row < r1; row++) {
        int64_t n = row / p->OH, oy = row % p->OH;
        for (int64_t ox0 = 0; ox0 < p->OW; ox0 += T) {
            int64_t np = p->OW - ox0 < T ? p->OW - ox0 : T;
            for (int64_t j = 0; j < T; j++) {
                if (j < np) {
                    conv16_patch(p, in, n, oy, ox0 + j, patch + j * K);
                    memset(patch + j * K + K0, 0, sizeof(int16_t) * (size_t)(K - K0));
                } else
                    memset(patch + j * K, 0, sizeof(int16_t) * (size_t)K);
            }
            const int16_t *p0 = patch, *p1 = patch + K, *p2 = patch + 2 * K,
                          *p3 = patch + 3 * K;
            int64_t obase = ((n * p->OH + oy) * p->OW + ox0) * p->OC;
            /* 16 output channels x 4 pixels at a time: the lanes are output channels */
            for (int64_t ob = 0; ob * 16 < p->OC; ob++) {
                const int16_t *wb = p->w + ob * K * 16;
                int64_t s[4][16];
                memset(s, 0, sizeof s);
                for (int64_t k0 = 0; k0 < K; k0 += p->chunk) {
                    int64_t k1 = K - k0 < p->chunk ? K : k0 + p->chunk;
                    int32_t a[4][16];
                    CONV16_BLOCK(wb, p0, p1, p2, p3, k0, k1, a);
                    for (int j = 0; j < 4; j++)
                        for (int l = 0; l < 16; l++)
                            s[j][l] += a[j][l];
                    if (p->w_hi) { /* a split operand: + 256 * the high bytes' sums */
                        CONV16_BLOCK(p->w_hi + ob * K * 16, p0, p1, p2, p3, k0, k1, a);
                        for (int j = 0; j < 4; j++)
                            for (int l = 0; l < 16; l++)
                                s[j][l] += (int64_t)a[j][l] * 256;
                    }
                }
                int64_t nl = p->OC - ob * 16 < 16 ? p->OC - ob * 16 : 16;
                for (int64_t j = 0; j < T; j++)
                    for (int64_t l = 0; l < nl; l++)
                        sums[j * p->OC + ob * 16 + l] = s[j][l];
            }
            for (int64_t j = 0; j < np; j++)
                ok &= conv16_finish64(p, sums + j * p->OC, out, obase + j * p->OC);
        }
    }
    return ok;
}

static bool CONV16_ATTR conv16_depthwise(const ukr_conv16 *p, const int16_t *in, void *out,
                                         void *scratch, int64_t r0, int64_t r1)
{
    const int64_t CM = p->IC * p->M;
    int32_t *acc = scratch; /* exact: KH*KW*32768*max|w| < 2^31 (checked at init) */
    bool ok = true;
    for (int64_t row = r0; row < r1; row++) {
        int64_t n = row / p->OH, oy = row % p->OH;
        for (int64_t ox = 0; ox < p->OW; ox++) {
            int64_t ky0 = 0, ky1 = p->KH, kx0 = 0, kx1 = p->KW; /* the taps inside the image */
            while (ky0 < ky1 && oy * p->sy - p->pt + ky0 * p->dy < 0)
                ky0++;
            while (ky1 > ky0 && oy * p->sy - p->pt + (ky1 - 1) * p->dy >= p->IH)
                ky1--;
            while (kx0 < kx1 && ox * p->sx - p->pl + kx0 * p->dx < 0)
                kx0++;
            while (kx1 > kx0 && ox * p->sx - p->pl + (kx1 - 1) * p->dx >= p->IW)
                kx1--;
            /* the window's origin as an index (outside the image when padded; only taps
             * inside it form pointers) */
            int64_t x0 = ((n * p->IH + oy * p->sy - p->pt) * p->IW + (ox * p->sx - p->pl)) * p->IC;
            if (p->M == 1) { /* 64 channels at a time, their sums in registers over the taps */
                for (int64_t c0 = 0; c0 < CM; c0 += 64) {
                    int32_t a[64] = {0};
                    int64_t len = CM - c0 < 64 ? CM - c0 : 64;
                    for (int64_t ky = ky0; ky < ky1; ky++)
                        for (int64_t kx = kx0; kx < kx1; kx++) {
                            const int16_t *x =
                                in + x0 + (ky * p->dy * p->IW + kx * p->dx) * p->IC + c0;
                            const int16_t *w = p->w + (ky * p->KW + kx) * CM + c0;
                            if (len == 64)
                                for (int l = 0; l < 64; l++)
                                    a[l] += x[l] * (int32_t)w[l];
                            else
                                for (int64_t l = 0; l < len; l++)
                                    a[l] += x[l] * (int32_t)w[l];
                        }
                    memcpy(acc + c0, a, sizeof(int32_t) * (size_t)len);
                }
            } else {
                memset(acc, 0, sizeof(int32_t) * (size_t)CM);
                for (int64_t ky = ky0; ky < ky1; ky++)
                    for (int64_t kx = kx0; kx < kx1; kx++) {
                        const int16_t *x = in + x0 + (ky * p->dy * p->IW + kx * p->dx) * p->IC;
                        const int16_t *w = p->w + (ky * p->KW + kx) * CM;
                        for (int64_t c = 0; c < p->IC; c++)
                            for (int64_t m = 0; m < p->M; m++)
                                acc[c * p->M + m] += x[c] * (int32_t)w[c * p->M + m];
                    }
            }
            ok &= conv16_finish32(p, acc, out, ((n * p->OH + oy) * p->OW + ox) * CM);
        }
    }
    return ok;
}

bool CONV16_ATTR CONV16_NAME(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch,
                             int64_t r0, int64_t r1)
{
    return p->M ? conv16_depthwise(p, in, out, scratch, r0, r1)
                : conv16_direct(p, in, out, scratch, r0, r1);
}
