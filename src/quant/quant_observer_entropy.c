/* Entropy observer (TensorRT's KL calibration, over an asymmetric range): for candidate
 * ranges shrunk towards 0, P is the histogram inside with the values outside folded into
 * the edge bins, Q the histogram inside merged into the scheme's levels and spread back
 * evenly over the bins P uses; the range of least KL(P || Q) wins. Clipping shows as the
 * edge mass Q lacks; coarse levels as Q's flattening. Zeros are exact and left out. */
#include "quant/quant_internal.h"

#include <math.h>

#define KL_STEPS 128        /* candidates: the min/max range times k / KL_STEPS */
#define KL_MIN_STEP 16      /* ... down to 1/8 of it */
#define KL_EPS 1e-12        /* q of a bin P uses but Q lacks */

static double kl(const quant_hist *h, int b0, int b1, double levels)
{
    double below = 0, above = 0, total = 0;
    for (int b = 0; b < b0; b++)
        below += h->bins[b];
    for (int b = b1; b < QUANT_HIST_BINS; b++)
        above += h->bins[b];
    for (int b = b0; b < b1; b++)
        total += h->bins[b];
    total += below + above;
    if (!(total > 0))
        return 0;
    int nb = b1 - b0;
    double d = 0;
    /* bins of one level are consecutive: level(b) = floor((b - b0) * levels / nb) */
    for (int start = b0; start < b1;) {
        double lv = floor((double)(start - b0) * levels / nb);
        int end = start + 1;
        while (end < b1 && floor((double)(end - b0) * levels / nb) == lv)
            end++;
        double sum = 0;
        int used = 0;
        for (int b = start; b < end; b++) {
            double p = h->bins[b] + (b == b0 ? below : 0) + (b == b1 - 1 ? above : 0);
            sum += h->bins[b];
            used += p > 0;
        }
        for (int b = start; b < end; b++) {
            double p = h->bins[b] + (b == b0 ? below : 0) + (b == b1 - 1 ? above : 0);
            if (p <= 0)
                continue;
            double q = sum / used / total;
            p /= total;
            d += p * log(p / (q > KL_EPS ? q : KL_EPS));
        }
        start = end;
    }
    return d;
}

void quant_hist_entropy(const quant_hist *h, quant_scheme s, quant_range *out)
{
    out->lo = (float)h->lo;
    out->hi = (float)h->hi;
    out->seen = true;
    double levels = s == QUANT_A16W8 ? 65536.0 : 256.0, best = INFINITY;
    for (int k = KL_STEPS; k >= KL_MIN_STEP; k--) { /* widest first: ties keep the wider */
        double a = h->lo * k / KL_STEPS, b = h->hi * k / KL_STEPS;
        int b0 = a < 0 ? quant_hist_bin(h, a) : quant_hist_bin(h, 0.0);
        int b1 = b > 0 ? quant_hist_bin(h, b) + 1 : quant_hist_bin(h, 0.0) + 1;
        if (k == KL_STEPS)
            b0 = a < 0 ? 0 : b0, b1 = b > 0 ? QUANT_HIST_BINS : b1;
        double e = kl(h, b0, b1, levels);
        if (e < best) {
            best = e;
            out->lo = (float)(a < 0 ? h->lo + b0 * h->width : 0.0);
            out->hi = (float)(b > 0 ? h->lo + b1 * h->width : 0.0);
        }
    }
}
