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
        for (int64_t kx = 0; kx < p->KW; kx++) {
            int64_t ix = ox * p->sx - p->pl + kx * p->dx;
            int16_t *dst = patch + (ky * p->KW + kx) * p->IC;
            if (iy < 0 || iy >= p->IH || ix < 0 || ix >= p->IW)
                memset(dst, 0, sizeof(int16_t) * (size_t)p->IC);
            else
                memcpy(dst, in + ((n * p->IH + iy) * p->IW + ix) * p->IC,
                       sizeof(int16_t) * (size_t)p->IC);
        }
    }
}

static bool CONV16_ATTR conv16_direct(const ukr_conv16 *p, const int16_t *in, void *out,
                                      void *scratch)
{
    const int64_t K = p->Kp, K0 = p->KH * p->KW * p->IC, T = UKR_CONV16_TILE;
    int16_t *patch = scratch; /* T patches of K, then T rows of OC sums */
    int64_t *sums = (int64_t *)(void *)((unsigned char *)scratch +
                                        ((sizeof(int16_t) * (size_t)(T * K) + 15) & ~(size_t)15));
    bool ok = true;
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t oy = 0; oy < p->OH; oy++)
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
                for (int64_t oc = 0; oc < p->OC; oc++) {
                    const int16_t *w = p->w + oc * K;
                    int64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                    for (int64_t k0 = 0; k0 < K; k0 += p->chunk) {
                        int64_t k1 = K - k0 < p->chunk ? K : k0 + p->chunk;
                        int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                        for (int64_t k = k0; k < k1; k++) {
                            int32_t wk = w[k];
                            s0 += p0[k] * wk;
                            s1 += p1[k] * wk;
                            s2 += p2[k] * wk;
                            s3 += p3[k] * wk;
                        }
                        a0 += s0;
                        a1 += s1;
                        a2 += s2;
                        a3 += s3;
                    }
                    sums[oc] = a0;
                    sums[p->OC + oc] = a1;
                    sums[2 * p->OC + oc] = a2;
                    sums[3 * p->OC + oc] = a3;
                }
                for (int64_t j = 0; j < np; j++)
                    ok &= conv16_finish64(p, sums + j * p->OC, out, obase + j * p->OC);
            }
    return ok;
}

static bool CONV16_ATTR conv16_depthwise(const ukr_conv16 *p, const int16_t *in, void *out,
                                         void *scratch)
{
    const int64_t CM = p->IC * p->M;
    int32_t *acc = scratch; /* exact: KH*KW*32768*max|w| < 2^31 (checked at init) */
    bool ok = true;
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t oy = 0; oy < p->OH; oy++)
            for (int64_t ox = 0; ox < p->OW; ox++) {
                memset(acc, 0, sizeof(int32_t) * (size_t)CM);
                for (int64_t ky = 0; ky < p->KH; ky++) {
                    int64_t iy = oy * p->sy - p->pt + ky * p->dy;
                    if (iy < 0 || iy >= p->IH)
                        continue;
                    for (int64_t kx = 0; kx < p->KW; kx++) {
                        int64_t ix = ox * p->sx - p->pl + kx * p->dx;
                        if (ix < 0 || ix >= p->IW)
                            continue;
                        const int16_t *x = in + ((n * p->IH + iy) * p->IW + ix) * p->IC;
                        const int16_t *w = p->w + (ky * p->KW + kx) * CM;
                        if (p->M == 1) {
                            for (int64_t c = 0; c < CM; c++)
                                acc[c] += x[c] * (int32_t)w[c];
                        } else {
                            for (int64_t c = 0; c < p->IC; c++)
                                for (int64_t m = 0; m < p->M; m++)
                                    acc[c * p->M + m] += x[c] * (int32_t)w[c * p->M + m];
                        }
                    }
                }
                ok &= conv16_finish32(p, acc, out, ((n * p->OH + oy) * p->OW + ox) * CM);
            }
    return ok;
}

bool CONV16_ATTR CONV16_NAME(const ukr_conv16 *p, const int16_t *in, void *out, void *scratch)
{
    return p->M ? conv16_depthwise(p, in, out, scratch) : conv16_direct(p, in, out, scratch);
}
