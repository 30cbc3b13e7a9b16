/* Min/max observers: the range a tensor took over the calibration samples. */
#include "quant/quant_internal.h"

#include <math.h>

void quant_range_init(quant_range *r)
{
    r->lo = 0.0f;
    r->hi = 0.0f;
    r->seen = false;
}

void quant_range_observe(quant_range *r, const float *x, int64_t n)
{
    float lo = r->lo, hi = r->hi;
    bool seen = r->seen;
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        if (!isfinite(v))
            continue;
        if (!seen) {
            lo = hi = v;
            seen = true;
        } else if (v < lo) {
            lo = v;
        } else if (v > hi) {
            hi = v;
        }
    }
    r->lo = lo;
    r->hi = hi;
    r->seen = seen;
}

void quant_range_merge(quant_range *dst, const quant_range *src)
{
    if (!src->seen)
        return;
    if (!dst->seen) {
        *dst = *src;
        return;
    }
    if (src->lo < dst->lo)
        dst->lo = src->lo;
    if (src->hi > dst->hi)
        dst->hi = src->hi;
}
