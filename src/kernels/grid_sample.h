/* GridSample over 2 spatial dims: x [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in
 * [-1, 1]) into y [N, C, Ho, Wo], f32. */
#ifndef TOSAC_KERNELS_GRID_SAMPLE_H
#define TOSAC_KERNELS_GRID_SAMPLE_H

#include "kernels/kern.h"

typedef enum kern_gs_mode { KERN_GS_LINEAR, KERN_GS_NEAREST, KERN_GS_CUBIC } kern_gs_mode;
typedef enum kern_gs_pad { KERN_GS_ZEROS, KERN_GS_BORDER, KERN_GS_REFLECTION } kern_gs_pad;

typedef struct kern_grid_sample_params {
    int64_t n, c, h, w, out_h, out_w;
    kern_gs_mode mode;
    kern_gs_pad padding;
    int align_corners;
} kern_grid_sample_params;

void kern_grid_sample(const kern_grid_sample_params *p, const float *x, const float *grid, float *y);

#endif
