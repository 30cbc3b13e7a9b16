/* Resize: for each output element and each axis, up to 4 (index, weight) taps; the output is
 * the sum over the product of the taps of all axes (axes that keep their size have one tap). */
#include "kernels/resize.h"

#include <math.h>

typedef struct taps {
    int n;
    int64_t idx[4];
    double w[4];
    int outside; /* tf_crop_and_resize: the coordinate is outside the input */
} taps;

static double original_coord(const kern_resize_params *p, int d, int64_t xo)
{
    double s = p->scale[d], x = (double)xo;
    /* the spec's length_resized is in * scale before flooring (it differs from the output
     * size when scales are given) */
    double in = (double)p->in[d], out = (double)p->out[d], lr = in * s;
    switch (p->coord) {
    case KERN_COORD_HALF_PIXEL: return (x + 0.5) / s - 0.5;
    case KERN_COORD_HALF_PIXEL_SYMMETRIC: {
        double adj = out / lr; /* output_width_int / output_width */
        double center = in / 2.0, offset = center * (1.0 - adj);
        return offset + (x + 0.5) / s - 0.5;
    }
    case KERN_COORD_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case KERN_COORD_ALIGN_CORNERS: return out == 1 ? 0.0 : x * (in - 1) / (lr - 1);
    case KERN_COORD_ASYMMETRIC: return x / s;
    case KERN_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / s;
    case KERN_COORD_TF_CROP_AND_RESIZE: {
        double a = p->roi_start[d], b = p->roi_end[d];
        return out > 1 ? a * (in - 1) + x * (b - a) * (in - 1) / (out - 1) : 0.5 * (a + b) * (in - 1);
    }
    }
    return 0;
}

static int64_t clampi(int64_t v, int64_t n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static void cubic_coeffs(double t, double a, double *c)
{
    double t1 = t + 1, t2 = 1 - t, t3 = 2 - t;
    c[0] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;
    c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    c[2] = ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1;
    c[3] = ((a * t3 - 5 * a) * t3 + 8 * a) * t3 - 4 * a;
}

static void axis_taps(const kern_resize_params *p, int d, int64_t xo, taps *t)
{
    int64_t n = p->in[d];
    t->outside = 0;
    if (p->in[d] == p->out[d] && p->scale[d] == 1.0 && p->coord != KERN_COORD_TF_CROP_AND_RESIZE) {
        t->n = 1;
        t->idx[0] = xo;
        t->w[0] = 1;
        return;
    }
    double x = original_coord(p, d, xo);
    if (p->coord == KERN_COORD_TF_CROP_AND_RESIZE && (x < 0 || x > (double)(n - 1)))
        t->outside = 1;
    if (p->mode == KERN_RESIZE_NEAREST) {
        double r;
        switch (p->nearest) {
        case KERN_NEAREST_ROUND_PREFER_FLOOR: r = (x - floor(x) == 0.5) ? floor(x) : round(x); break;
        case KERN_NEAREST_ROUND_PREFER_CEIL: r = (x - floor(x) == 0.5) ? ceil(x) : round(x); break;
        case KERN_NEAREST_FLOOR: r = floor(x); break;
        default: r = ceil(x); break;
        }
        t->n = 1;
        t->idx[0] = clampi((int64_t)r, n);
        t->w[0] = 1;
        return;
    }
    double x0 = floor(x), f = x - x0;
    int64_t i0 = (int64_t)x0;
    if (p->mode == KERN_RESIZE_LINEAR) {
        t->n = 2;
        t->idx[0] = clampi(i0, n);
        t->idx[1] = clampi(i0 + 1, n);
        t->w[0] = 1 - f;
        t->w[1] = f;
        return;
    }
    double c[4], sum = 0;
    cubic_coeffs(f, p->cubic_a, c);
    t->n = 4;
    for (int k = 0; k < 4; k++) {
        int64_t i = i0 - 1 + k;
        if (p->exclude_outside && (i < 0 || i >= n))
            c[k] = 0;
        sum += c[k];
        t->idx[k] = clampi(i, n);
    }
    for (int k = 0; k < 4; k++)
        t->w[k] = p->exclude_outside && sum != 0 ? c[k] / sum : c[k];
}

void kern_resize(const kern_resize_params *p, tosac_dtype dt, const void *x, void *y)
{
    int r = p->rank;
    int64_t ist[TOSAC_MAX_RANK], oidx[TOSAC_MAX_RANK] = {0}, total = 1;
    kern_strides(r, p->in, ist);
    for (int d = 0; d < r; d++)
        total *= p->out[d];
    int is_int = !tosac_dtype_is_float(dt);
    for (int64_t o = 0; o < total; o++) {
        taps t[TOSAC_MAX_RANK];
        int outside = 0;
        for (int d = 0; d < r; d++) {
            axis_taps(p, d, oidx[d], &t[d]);
            outside |= t[d].outside;
        }
        double acc = 0;
        if (outside) {
            acc = p->extrapolation;
        } else {
            int k[TOSAC_MAX_RANK] = {0};
            for (;;) {
                double w = 1;
                int64_t off = 0;
                for (int d = 0; d < r; d++) {
                    w *= t[d].w[k[d]];
                    off += t[d].idx[k[d]] * ist[d];
                }
                acc += w * kern_get_f64(dt, x, off);
                int d = r - 1;
                for (; d >= 0; d--) {
                    if (++k[d] < t[d].n)
                        break;
                    k[d] = 0;
                }
                if (d < 0)
                    break;
            }
        }
        if (is_int)
            acc = nearbyint(acc);
        kern_set_f64(dt, y, o, acc);
        for (int d = r - 1; d >= 0; d--) {
            if (++oidx[d] < p->out[d])
                break;
            oidx[d] = 0;
        }
    }
}
