/* Quantization arithmetic in f32 with round-half-to-even, as the ONNX reference and
 * onnxruntime compute it. */
#include "kernels/quant.h"

#include <float.h>
#include <math.h>
#include <string.h>

void kern_qrange(tosac_dtype qdt, int64_t *lo, int64_t *hi)
{
    int bits = qdt == TOSAC_DT_I4 ? 4 : (int)tosac_dtype_size(qdt) * 8;
    if (tosac_dtype_is_signed(qdt)) {
        *lo = -((int64_t)1 << (bits - 1));
        *hi = ((int64_t)1 << (bits - 1)) - 1;
    } else {
        *lo = 0;
        *hi = bits >= 64 ? INT64_MAX : ((int64_t)1 << bits) - 1;
    }
}

static int64_t saturate_round(float v, int64_t lo, int64_t hi)
{
    if (isnan(v))
        return 0;
    double r = nearbyint((double)v);
    if (r < (double)lo)
        return lo;
    if (r > (double)hi)
        return hi;
    return (int64_t)r;
}

/* Quantization to an 8- or 16-bit type, typed so gcc vectorises it; the result equals the
 * general loop's. round(x / s) is done by adding and removing 1.5 * 2^23 in float: for
 * |x / s| < 2^22 the addition itself rounds half to even to an integer (float spacing 1
 * there); beyond that the error is below |x / s| * 2^-23 and the value saturates to the
 * same bound anyway (the types' ranges are far below 2^22). NaN passes through and
 * becomes 0. Needs float arithmetic in float (FLT_EVAL_METHOD 0), else the general loop. */
#define QUANT_TYPED(T)                                                                         \
    {                                                                                          \
        T *Y = y;                                                                              \
        const float flo = (float)lo, fhi = (float)hi, magic = 12582912.0f;                     \
        for (int64_t o = 0; o < outer; o++)                                                    \
            for (int64_t c = 0; c < n; c++) {                                                  \
                const float s = scale[c], z = (float)(zp ? ((const T *)zp)[c] : 0);            \
                const float *X = x + (o * n + c) * inner;                                      \
                T *Yc = Y + (o * n + c) * inner;                                               \
                for (int64_t i = 0; i < inner; i++) {                                          \
                    float v = (X[i] / s + magic) - magic + z;                                  \
                    v = v < flo ? flo : v;                                                     \
                    v = v > fhi ? fhi : v;                                                     \
                    Yc[i] = (T)(int32_t)(v != v ? 0.0f : v);                                   \
                }                                                                              \
            }                                                                                  \
        return;                                                                                \
    }

void kern_quantize_f32(int64_t outer, int64_t n, int64_t inner, const float *x, const float *scale,
                       tosac_dtype qdt, const void *zp, void *y)
{
    int64_t lo, hi;
    kern_qrange(qdt, &lo, &hi);
#if FLT_EVAL_METHOD == 0
    switch (qdt) {
    case TOSAC_DT_U8: QUANT_TYPED(uint8_t)
    case TOSAC_DT_I8: QUANT_TYPED(int8_t)
    case TOSAC_DT_U16: QUANT_TYPED(uint16_t)
    case TOSAC_DT_I16: QUANT_TYPED(int16_t)
    default: break;
    }
#endif
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < n; c++) {
            float s = scale[c];
            int64_t z = zp ? kern_get_i64(qdt, zp, c) : 0;
            for (int64_t i = 0; i < inner; i++) {
                int64_t at = (o * n + c) * inner + i;
                /* round(x / s) first, then add the zero point, then saturate */
                float q = nearbyintf(x[at] / s);
                kern_set_i64(qdt, y, at, saturate_round(q + (float)z, lo, hi));
            }
        }
}

/* Dequantization of a type whose values and zero-point differences fit int32 (all but
 * 32-bit types): typed loop, the same arithmetic as the general one. */
#define DEQUANT_TYPED(T)                                                                       \
    {                                                                                          \
        const T *X = x;                                                                        \
        for (int64_t o = 0; o < outer; o++)                                                    \
            for (int64_t c = 0; c < n; c++) {                                                  \
                const float s = scale[c];                                                      \
                const int32_t z = zp ? ((const T *)zp)[c] : 0;                                 \
                const T *Xc = X + (o * n + c) * inner;                                         \
                float *Yc = y + (o * n + c) * inner;                                           \
                for (int64_t i = 0; i < inner; i++)                                            \
                    Yc[i] = (float)((int32_t)Xc[i] - z) * s;                                   \
            }                                                                                  \
        return;                                                                                \
    }

void kern_dequantize_f32(int64_t outer, int64_t n, int64_t inner, tosac_dtype qdt, const void *x,
                         const float *scale, const void *zp, float *y)
{
    switch (qdt) {
    case TOSAC_DT_U8: DEQUANT_TYPED(uint8_t)
    case TOSAC_DT_I8: DEQUANT_TYPED(int8_t)
    case TOSAC_DT_U16: DEQUANT_TYPED(uint16_t)
    case TOSAC_DT_I16: DEQUANT_TYPED(int16_t)
    default: break;
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < n; c++) {
            float s = scale[c];
            int64_t z = zp ? kern_get_i64(qdt, zp, c) : 0;
            for (int64_t i = 0; i < inner; i++) {
                int64_t at = (o * n + c) * inner + i;
                y[at] = (float)(kern_get_i64(qdt, x, at) - z) * s;
            }
        }
}

void kern_requantize(int64_t outer, int64_t n, int64_t inner, const int32_t *acc,
                     const float *mult, tosac_dtype qdt, int32_t zp, void *y)
{
    int64_t lo, hi;
    kern_qrange(qdt, &lo, &hi);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < n; c++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t at = (o * n + c) * inner + i;
                float q = nearbyintf((float)acc[at] * mult[c]);
                kern_set_i64(qdt, y, at, saturate_round(q + (float)zp, lo, hi));
            }
}

void kern_dynamic_qparams(int64_t n, const float *x, float *scale, uint8_t *zp)
{
    float mn = 0, mx = 0;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] < mn)
            mn = x[i];
        if (x[i] > mx)
            mx = x[i];
    }
    float s = (mx - mn) / 255.0f;
    *scale = s;
    float z = s == 0 ? 0 : nearbyintf(0 - mn / s);
    *zp = (uint8_t)(z < 0 ? 0 : z > 255 ? 255 : z);
}

void kern_cast(tosac_dtype from, tosac_dtype to, int64_t n, const void *x, void *y)
{
    if (from == TOSAC_DT_F32 && to == TOSAC_DT_F64) {
        for (int64_t i = 0; i < n; i++)
            ((double *)y)[i] = ((const float *)x)[i];
        return;
    }
    int to_float = tosac_dtype_is_float(to), from_float = tosac_dtype_is_float(from);
    for (int64_t i = 0; i < n; i++) {
        if (to == TOSAC_DT_BOOL)
            kern_set_i64(to, y, i, from_float ? kern_get_f64(from, x, i) != 0 : kern_get_i64(from, x, i) != 0);
        else if (from == TOSAC_DT_U64 && !to_float)
            kern_set_i64(to, y, i, (int64_t)((const uint64_t *)x)[i]);
        else if (to_float || from_float)
            kern_set_f64(to, y, i, kern_get_f64(from, x, i));
        else
            kern_set_i64(to, y, i, kern_get_i64(from, x, i));
    }
}
