/* GridSample as ONNX defines it (and onnxruntime computes it): grid coordinates are
 * denormalised to pixels (align_corners: -1 and 1 are the corner pixel centres, else the
 * image edges); a point outside the image is clamped (border) or reflected (reflection)
 * before sampling, and every tap outside the image reads 0 (zeros), the nearest edge pixel
 * (border) or its reflection. Nearest rounds half to even; cubic uses A = -0.75. */
#include "kernels/grid_sample.h"

#include <math.h>

static float denormalize(float v, int64_t len, int align)
{
    return align ? (v + 1) / 2 * (float)(len - 1) : ((v + 1) * (float)len - 1) / 2;
}

/* Reflects v into [lo, hi] (repeatedly, like a mirror pair); doubles and fmod keep huge
 * values away from integer casts. */
static float reflect(float v, float lo, float hi)
{
    double span = (double)hi - lo;
    if (span <= 0 || !isfinite(v))
        return lo;
    if (v < lo || v > hi) {
        double d = v < lo ? (double)lo - v : (double)v - hi;
        double n = floor(d / span), r = d - n * span;
        int even = fmod(n, 2.0) == 0.0;
        if (v < lo)
            return (float)(even ? lo + r : hi - r);
        return (float)(even ? hi - r : lo + r);
    }
    return v;
}

typedef struct plane {
    const float *px;
    int64_t h, w;
    kern_gs_pad pad;
    float lo[2], hi[2]; /* reflection bounds for (x, y) */
} plane;

static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static float at(const plane *p, int64_t r, int64_t c)
{
    if (p->pad == KERN_GS_ZEROS)
        return r >= 0 && r < p->h && c >= 0 && c < p->w ? p->px[r * p->w + c] : 0.0f;
    if (p->pad == KERN_GS_REFLECTION) {
        c = (int64_t)reflect((float)c, p->lo[0], p->hi[0]);
        r = (int64_t)reflect((float)r, p->lo[1], p->hi[1]);
    }
    return p->px[clampi(r, 0, p->h - 1) * p->w + clampi(c, 0, p->w - 1)];
}

static void cubic_coeffs(float t, float *w)
{
    const float a = -0.75f;
    float x = t + 1;
    w[0] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    x = t;
    w[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
    x = 1 - t;
    w[2] = ((a + 2) * x - (a + 3)) * x * x + 1;
    w[3] = 1 - w[0] - w[1] - w[2];
}

static float sample(const plane *p, kern_gs_mode mode, float x, float y)
{
    if (mode == KERN_GS_NEAREST)
        return at(p, (int64_t)nearbyintf(y), (int64_t)nearbyintf(x));
    if (mode == KERN_GS_LINEAR) {
        float fx = floorf(x), fy = floorf(y), dx = x - fx, dy = y - fy;
        int64_t c0 = (int64_t)fx, r0 = (int64_t)fy;
        return (1 - dy) * ((1 - dx) * at(p, r0, c0) + dx * at(p, r0, c0 + 1)) +
               dy * ((1 - dx) * at(p, r0 + 1, c0) + dx * at(p, r0 + 1, c0 + 1));
    }
    float fx = floorf(x), fy = floorf(y), wx[4], wy[4], acc = 0;
    cubic_coeffs(x - fx, wx);
    cubic_coeffs(y - fy, wy);
    for (int i = 0; i < 4; i++) {
        float row = 0;
        for (int j = 0; j < 4; j++)
            row += wx[j] * at(p, (int64_t)fy - 1 + i, (int64_t)fx - 1 + j);
        acc += wy[i] * row;
    }
    return acc;
}

void kern_grid_sample(const kern_grid_sample_params *p, const float *x, const float *grid, float *y)
{
    const float lo_x = p->align_corners ? 0 : -0.5f, lo_y = lo_x;
    const float hi_x = p->align_corners ? (float)(p->w - 1) : (float)p->w - 0.5f;
    const float hi_y = p->align_corners ? (float)(p->h - 1) : (float)p->h - 0.5f;
    const int64_t n_out = p->out_h * p->out_w;
    for (int64_t b = 0; b < p->n; b++)
        for (int64_t ch = 0; ch < p->c; ch++) {
            plane pl = {x + (b * p->c + ch) * p->h * p->w, p->h, p->w, p->padding,
                        {lo_x, lo_y}, {hi_x, hi_y}};
            float *out = y + (b * p->c + ch) * n_out;
            for (int64_t i = 0; i < n_out; i++) {
                const float *g = grid + (b * n_out + i) * 2;
                float gx = denormalize(g[0], p->w, p->align_corners);
                float gy = denormalize(g[1], p->h, p->align_corners);
                if (isnan(gx) || isnan(gy)) {
                    out[i] = NAN;
                    continue;
                }
                if (p->padding == KERN_GS_BORDER) {
                    gx = fminf(fmaxf(gx, 0), (float)(p->w - 1));
                    gy = fminf(fmaxf(gy, 0), (float)(p->h - 1));
                } else if (p->padding == KERN_GS_REFLECTION) {
                    gx = reflect(gx, lo_x, hi_x);
                    gy = reflect(gy, lo_y, hi_y);
                }
                /* past 4 pixels outside every tap reads outside (zeros): clamping there keeps
                 * the tap indices small without changing the result */
                gx = fminf(fmaxf(gx, -4.0f), (float)p->w + 4.0f);
                gy = fminf(fmaxf(gy, -4.0f), (float)p->h + 4.0f);
                out[i] = sample(&pl, p->mode, gx, gy);
            }
        }
}
