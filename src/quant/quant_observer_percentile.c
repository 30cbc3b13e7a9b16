/* Percentile observer: clips each tail of the histogram at (100 - pct) percent of all values,
 * so rare outliers do not stretch the step of every other value. */
#include "quant/quant_internal.h"

/* The value below which a fraction f of the values lie, linear inside its bin; the zeros
 * count in the bin holding 0. */
static double quantile(const quant_hist *h, double f, double total)
{
    int zb = quant_hist_bin(h, 0.0);
    double want = f * total, cum = 0;
    for (int b = 0; b < QUANT_HIST_BINS; b++) {
        double c = h->bins[b] + (b == zb ? h->zeros : 0);
        if (c > 0 && cum + c >= want)
            return h->lo + ((double)b + (want - cum) / c) * h->width;
        cum += c;
    }
    return h->hi;
}

void quant_hist_percentile(const quant_hist *h, double pct, quant_range *out)
{
    double total = h->zeros;
    for (int b = 0; b < QUANT_HIST_BINS; b++)
        total += h->bins[b];
    double tail = (100.0 - pct) / 100.0;
    double lo = quantile(h, tail, total), hi = quantile(h, 1.0 - tail, total);
    out->lo = (float)(lo < 0 ? lo : 0.0);
    out->hi = (float)(hi > 0 ? hi : 0.0);
    out->seen = true;
}
