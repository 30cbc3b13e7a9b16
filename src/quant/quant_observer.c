/* Min/max observers: the range a tensor took over the calibration samples; the warning line
 * that names the tensors whose observations say little. */
#include "quant/quant_internal.h"

#include <math.h>
#include <stdio.h>

void quant_range_init(quant_range *r)
{
    r->lo = 0.0f;
    r->hi = 0.0f;
    r->seen = false;
}

int64_t quant_range_observe(quant_range *r, const float *x, int64_t n)
{
    float lo = r->lo, hi = r->hi;
    bool seen = r->seen;
    int64_t skipped = 0;
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        if (!isfinite(v)) {
            skipped++;
            continue;
        }
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
    return skipped;
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

void quant_names_add(quant_names *l, const char *name, const char *detail)
{
    l->n++;
    if (l->n > QUANT_NAMES_SHOWN)
        return;
    int w = snprintf(l->text + l->len, sizeof l->text - l->len, "%s'%s' (%s)",
                     l->n > 1 ? ", " : "", name, detail);
    if (w > 0)
        l->len += (size_t)w < sizeof l->text - l->len ? (size_t)w : sizeof l->text - l->len - 1;
}

void quant_names_warn(const quant_names *l, const char *what, const char *tail)
{
    if (l->n == 0)
        return;
    char more[40] = "";
    if (l->n > QUANT_NAMES_SHOWN)
        snprintf(more, sizeof more, " and %d more", l->n - QUANT_NAMES_SHOWN);
    tosac_warn("calibration: %s in %d tensor%s: %s%s%s", what, l->n, l->n == 1 ? "" : "s",
               l->text, more, tail);
}
