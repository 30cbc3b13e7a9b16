/* Quantization parameter math: activation scales and zero points per scheme, symmetric
 * per-channel int8 weights, int32 bias (a8w8). Rounding is half to even, as ONNX QuantizeLinear. */
#include "quant/quant_internal.h"

#include <float.h>
#include <math.h>

static void act_params(quant_scheme s, double lo, double hi, quant_qparams *out)
{
    out->zero_point = 0;
    if (s == QUANT_A16W8) {
        out->dtype = TOSAC_DT_I16;
        out->scale = (float)(fmax(-lo, hi) / 32767.0);
        return;
    }
    out->dtype = TOSAC_DT_I8;
    out->scale = (float)((hi - lo) / 255.0);
    if (!(out->scale >= FLT_MIN))
        return;
    /* zp = qmin - round(lo / scale), with the scale actually stored */
    double zp = -128.0 - nearbyint(lo / (double)out->scale);
    out->zero_point = (int64_t)fmin(127.0, fmax(-128.0, zp));
}

bool quant_act_params(quant_scheme s, const quant_range *r, quant_qparams *out)
{
    /* The range always includes 0 so that zero (padding, ReLU floors) is exact. */
    double lo = r->seen && r->lo < 0 ? r->lo : 0.0;
    double hi = r->seen && r->hi > 0 ? r->hi : 0.0;
    act_params(s, lo, hi, out);
    if (out->scale >= FLT_MIN) /* a normal float: its reciprocal and rescales are finite */
        return false;
    act_params(s, -1.0, 1.0, out);
    return true;
}

int64_t quant_value(float x, float scale, int64_t zp, int64_t qmin, int64_t qmax)
{
    float v = nearbyintf(x / scale);
    if (isnan(v))
        return zp < qmin ? qmin : zp > qmax ? qmax : zp;
    double q = (double)v + (double)zp;
    if (q < (double)qmin)
        return qmin;
    if (q > (double)qmax)
        return qmax;
    return (int64_t)q;
}

void quant_weight_scales(const float *w, int64_t outer, int64_t n, int64_t inner, float *scales)
{
    for (int64_t c = 0; c < n; c++) {
        float amax = 0.0f;
        for (int64_t o = 0; o < outer; o++) {
            const float *p = w + (o * n + c) * inner;
            for (int64_t i = 0; i < inner; i++) {
                float a = fabsf(p[i]);
                if (a > amax && isfinite(a))
                    amax = a;
            }
        }
        float s = (float)((double)amax / 127.0);
        scales[c] = s > 0 ? s : 1.0f;
    }
}

void quant_weight_values(const float *w, int64_t outer, int64_t n, int64_t inner,
                         const float *scales, int8_t *q)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < n; c++) {
            int64_t base = (o * n + c) * inner;
            for (int64_t i = 0; i < inner; i++)
                q[base + i] = (int8_t)quant_value(w[base + i], scales[c], 0, -127, 127);
        }
}

int64_t quant_bias_values(const float *b, int64_t n, float s_in, const float *s_w, int n_sw,
                          float *scales, int32_t *q)
{
    for (int64_t c = 0; c < n; c++) {
        float s = s_in * s_w[n_sw == 1 ? 0 : c];
        if (!(s > 0))
            s = 1.0f;
        scales[c] = s;
        /* as QuantizeLinear: the quotient in float, rounded half to even; no saturation */
        float v = nearbyintf(b[c] / s);
        if (!(v >= -2147483648.0f && v < 2147483648.0f))
            return c;
        q[c] = (int32_t)v;
    }
    return -1;
}
