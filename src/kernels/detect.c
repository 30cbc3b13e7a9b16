/* NonMaxSuppression and RoiAlign, following the ONNX definitions as onnxruntime computes
 * them (box corners normalised, IoU strictly above the threshold suppresses; RoiAlign's
 * bilinear sampling clamps to the image and drops samples more than one pixel outside). */
#include "kernels/detect.h"

#include <math.h>

/* Corners (ymin, xmin, ymax, xmax) of box b. */
static void corners(const float *b, int center, float *c)
{
    if (center) {
        c[0] = b[1] - b[3] / 2;
        c[1] = b[0] - b[2] / 2;
        c[2] = b[1] + b[3] / 2;
        c[3] = b[0] + b[2] / 2;
    } else {
        c[0] = fminf(b[0], b[2]);
        c[1] = fminf(b[1], b[3]);
        c[2] = fmaxf(b[0], b[2]);
        c[3] = fmaxf(b[1], b[3]);
    }
}

static int suppresses(const float *a, const float *b, int center, float threshold)
{
    float ca[4], cb[4];
    corners(a, center, ca);
    corners(b, center, cb);
    float area_a = (ca[2] - ca[0]) * (ca[3] - ca[1]), area_b = (cb[2] - cb[0]) * (cb[3] - cb[1]);
    if (area_a <= 0 || area_b <= 0)
        return 0;
    float ih = fminf(ca[2], cb[2]) - fmaxf(ca[0], cb[0]);
    float iw = fminf(ca[3], cb[3]) - fmaxf(ca[1], cb[1]);
    if (ih <= 0 || iw <= 0)
        return 0;
    float inter = ih * iw;
    return inter / (area_a + area_b - inter) > threshold;
}

int64_t kern_nms(const kern_nms_params *p, const float *boxes, const float *scores, int64_t *out,
                 int64_t *scratch)
{
    int64_t count = 0, *cand = scratch, *sel = scratch + p->n;
    for (int64_t b = 0; b < p->batches; b++)
        for (int64_t cl = 0; cl < p->classes; cl++) {
            const float *s = scores + (b * p->classes + cl) * p->n;
            const float *bx = boxes + b * p->n * 4;
            int64_t nc = 0, ns = 0;
            for (int64_t i = 0; i < p->n; i++)
                if (!p->has_score_threshold || s[i] > p->score_threshold)
                    cand[nc++] = i;
            /* insertion sort by descending score, stable (lower index first on ties) */
            for (int64_t i = 1; i < nc; i++) {
                int64_t v = cand[i], j = i;
                for (; j > 0 && s[cand[j - 1]] < s[v]; j--)
                    cand[j] = cand[j - 1];
                cand[j] = v;
            }
            for (int64_t i = 0; i < nc && ns < p->max_per_class; i++) {
                int keep = 1;
                for (int64_t k = 0; k < ns && keep; k++)
                    keep = !suppresses(bx + cand[i] * 4, bx + sel[k] * 4, p->center_point_box,
                                       p->iou_threshold);
                if (!keep)
                    continue;
                sel[ns++] = cand[i];
                out[count * 3] = b;
                out[count * 3 + 1] = cl;
                out[count * 3 + 2] = cand[i];
                count++;
            }
        }
    return count;
}

/* Bilinear sample of plane [h, w] at (y, x); 0 more than one pixel outside. max_mode gives the
 * largest of the four weighted taps instead of their sum. */
static float sample(const float *plane, int64_t h, int64_t w, float y, float x, int max_mode)
{
    if (y < -1.0f || y > (float)h || x < -1.0f || x > (float)w)
        return 0.0f;
    y = y <= 0 ? 0 : y;
    x = x <= 0 ? 0 : x;
    int64_t y0 = (int64_t)y, x0 = (int64_t)x, y1, x1;
    if (y0 >= h - 1) {
        y0 = y1 = h - 1;
        y = (float)y0;
    } else {
        y1 = y0 + 1;
    }
    if (x0 >= w - 1) {
        x0 = x1 = w - 1;
        x = (float)x0;
    } else {
        x1 = x0 + 1;
    }
    float ly = y - (float)y0, lx = x - (float)x0, hy = 1 - ly, hx = 1 - lx;
    float v1 = hy * hx * plane[y0 * w + x0], v2 = hy * lx * plane[y0 * w + x1];
    float v3 = ly * hx * plane[y1 * w + x0], v4 = ly * lx * plane[y1 * w + x1];
    if (max_mode)
        return fmaxf(fmaxf(v1, v2), fmaxf(v3, v4));
    return v1 + v2 + v3 + v4;
}

void kern_roi_align(const kern_roi_align_params *p, const float *x, const float *rois,
                    const int64_t *batch_idx, float *y)
{
    const float off = p->half_pixel ? 0.5f : 0.0f;
    for (int64_t r = 0; r < p->n_rois; r++) {
        const float *roi = rois + r * 4;
        float x0 = roi[0] * p->spatial_scale - off, y0 = roi[1] * p->spatial_scale - off;
        float rw = roi[2] * p->spatial_scale - off - x0, rh = roi[3] * p->spatial_scale - off - y0;
        if (!p->half_pixel) {
            rw = fmaxf(rw, 1.0f);
            rh = fmaxf(rh, 1.0f);
        }
        float bh = rh / (float)p->out_h, bw = rw / (float)p->out_w;
        int64_t gh = p->sampling_ratio > 0 ? p->sampling_ratio : (int64_t)ceilf(rh / (float)p->out_h);
        int64_t gw = p->sampling_ratio > 0 ? p->sampling_ratio : (int64_t)ceilf(rw / (float)p->out_w);
        float count = (float)(gh * gw > 0 ? gh * gw : 1);
        for (int64_t ch = 0; ch < p->c; ch++) {
            const float *plane = x + (batch_idx[r] * p->c + ch) * p->h * p->w;
            float *out = y + (r * p->c + ch) * p->out_h * p->out_w;
            for (int64_t ph = 0; ph < p->out_h; ph++)
                for (int64_t pw = 0; pw < p->out_w; pw++) {
                    float acc = 0;
                    int first = 1;
                    for (int64_t iy = 0; iy < gh; iy++) {
                        float sy = y0 + (float)ph * bh + ((float)iy + 0.5f) * bh / (float)gh;
                        for (int64_t ix = 0; ix < gw; ix++) {
                            float sx = x0 + (float)pw * bw + ((float)ix + 0.5f) * bw / (float)gw;
                            float v = sample(plane, p->h, p->w, sy, sx, p->max_mode);
                            acc = p->max_mode ? (first || v > acc ? v : acc) : acc + v;
                            first = 0;
                        }
                    }
                    out[ph * p->out_w + pw] = p->max_mode ? acc : acc / count;
                }
        }
    }
}
