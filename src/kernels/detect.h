/* Object-detection operators: NonMaxSuppression and RoiAlign (f32). */
#ifndef TOSAC_KERNELS_DETECT_H
#define TOSAC_KERNELS_DETECT_H

#include "kernels/kern.h"

/* NonMaxSuppression over boxes [batches, n, 4] and scores [batches, classes, n]. Per batch and
 * class, boxes scoring above score_threshold (when has_score_threshold) are taken by
 * descending score (ties: lower index first); a box is dropped when its IoU with an already
 * selected box exceeds iou_threshold; at most max_per_class are selected. Boxes are
 * [y1, x1, y2, x2] (any two opposite corners) or, with center_point_box, [xc, yc, w, h].
 * out receives (batch, class, box) triples, at most batches * classes * min(n, max_per_class);
 * scratch holds 2 * n int64. Returns the number of triples. */
typedef struct kern_nms_params {
    int64_t batches, classes, n, max_per_class;
    float iou_threshold, score_threshold;
    int has_score_threshold, center_point_box;
} kern_nms_params;
int64_t kern_nms(const kern_nms_params *p, const float *boxes, const float *scores, int64_t *out,
                 int64_t *scratch);

/* RoiAlign of x [N, C, H, W] over rois [n_rois, 4] (x1, y1, x2, y2, scaled by spatial_scale)
 * into y [n_rois, C, out_h, out_w]: each bin averages (or takes the max of) bilinear samples on
 * a sampling_ratio^2 grid (0: adaptive, ceil(roi size / bins)). half_pixel shifts the
 * coordinates by -0.5 (opset 16's default); without it rois are at least 1x1 (opset 10).
 * batch_idx must be in [0, N) (checked by the caller). */
typedef struct kern_roi_align_params {
    int64_t n, c, h, w, n_rois, out_h, out_w, sampling_ratio;
    float spatial_scale;
    int max_mode, half_pixel;
} kern_roi_align_params;
void kern_roi_align(const kern_roi_align_params *p, const float *x, const float *rois,
                    const int64_t *batch_idx, float *y);

#endif
