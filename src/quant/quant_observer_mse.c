/* MSE observer: searches candidate ranges for the least expected squared quantization error
 * over the histogram. With prefix sums of count, sum and sum of squares of the bin centres,
 * each candidate costs O(1): clipping error of the values outside (at their bin centre),
 * step^2 / 12 per value inside (uniform rounding error; zeros are exact and left out). */
#include "quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>

#define MSE_STEPS 128     /* candidate edges per side: edge * k / MSE_STEPS */
#define MSE_STEPS16 1024  /* candidate thresholds of the symmetric int16 grid */

typedef struct sums {
    double c[QUANT_HIST_BINS + 1], m1[QUANT_HIST_BINS + 1], m2[QUANT_HIST_BINS + 1];
} sums;

/* Number of bins whose centre lies below v. */
static int below(const quant_hist *h, double v)
{
    double k = ceil((v - h->lo) / h->width - 0.5);
    return k < 0 ? 0 : k > QUANT_HIST_BINS ? QUANT_HIST_BINS : (int)k;
}

/* Number of bins whose centre is at most v. */
static int upto(const quant_hist *h, double v)
{
    double k = floor((v - h->lo) / h->width - 0.5) + 1;
    return k < 0 ? 0 : k > QUANT_HIST_BINS ? QUANT_HIST_BINS : (int)k;
}

static double error(const quant_hist *h, const sums *s, double a, double b, double step)
{
    int ka = below(h, a), kb = upto(h, b);
    if (kb < ka)
        kb = ka;
    const int n = QUANT_HIST_BINS;
    double lo = s->m2[ka] - 2 * a * s->m1[ka] + a * a * s->c[ka];
    double hi = (s->m2[n] - s->m2[kb]) - 2 * b * (s->m1[n] - s->m1[kb]) +
                b * b * (s->c[n] - s->c[kb]);
    return lo + hi + (s->c[kb] - s->c[ka]) * step * step / 12.0;
}

void quant_hist_mse(const quant_hist *h, quant_scheme sch, quant_range *out)
{
    out->lo = (float)h->lo;
    out->hi = (float)h->hi;
    out->seen = true;
    sums *s = malloc(sizeof *s);
    if (!s)
        return; /* the min/max range: no search without memory */
    s->c[0] = s->m1[0] = s->m2[0] = 0;
    for (int b = 0; b < QUANT_HIST_BINS; b++) {
        double x = quant_hist_center(h, b), n = h->bins[b];
        s->c[b + 1] = s->c[b] + n;
        s->m1[b + 1] = s->m1[b] + n * x;
        s->m2[b + 1] = s->m2[b] + n * x * x;
    }
    double best = INFINITY;
    if (sch == QUANT_A16W8) {
        double t0 = fmax(-h->lo, h->hi);
        for (int k = MSE_STEPS16; k >= 1; k--) { /* widest first: ties keep the wider */
            double t = t0 * k / MSE_STEPS16, e = error(h, s, -t, t, t / 32767.0);
            if (e < best) {
                best = e;
                out->lo = (float)(h->lo < 0 ? -t : 0.0);
                out->hi = (float)(h->hi > 0 ? t : 0.0);
            }
        }
    } else {
        int na = h->lo < 0 ? MSE_STEPS : 0, nb = h->hi > 0 ? MSE_STEPS : 0;
        for (int i = na; i >= (na ? 1 : 0); i--)
            for (int j = nb; j >= (nb ? 1 : 0); j--) {
                double a = na ? h->lo * i / na : 0.0, b = nb ? h->hi * j / nb : 0.0;
                double e = error(h, s, a, b, (b - a) / 255.0);
                if (e < best) {
                    best = e;
                    out->lo = (float)a;
                    out->hi = (float)b;
                }
            }
    }
    free(s);
}
