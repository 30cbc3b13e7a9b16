/* The histogram the percentile, MSE and entropy observers search: QUANT_HIST_BINS equal bins
 * over the min/max range (extended to include 0), exact zeros counted apart. */
#include "quant/quant_internal.h"

#include <math.h>
#include <string.h>

bool quant_hist_init(quant_hist *h, const quant_range *r)
{
    memset(h, 0, sizeof *h);
    h->lo = r->seen && r->lo < 0 ? r->lo : 0.0;
    h->hi = r->seen && r->hi > 0 ? r->hi : 0.0;
    h->width = (h->hi - h->lo) / QUANT_HIST_BINS;
    return h->width > 0;
}

int quant_hist_bin(const quant_hist *h, double v)
{
    double b = floor((v - h->lo) / h->width);
    return b < 0 ? 0 : b >= QUANT_HIST_BINS ? QUANT_HIST_BINS - 1 : (int)b;
}

double quant_hist_center(const quant_hist *h, int bin)
{
    return h->lo + ((double)bin + 0.5) * h->width;
}

void quant_hist_observe(quant_hist *h, const float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        if (!isfinite(v))
            continue;
        if (v == 0.0f)
            h->zeros += 1;
        else
            h->bins[quant_hist_bin(h, v)] += 1;
    }
}
