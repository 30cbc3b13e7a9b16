/* Resize (ONNX Resize / Upsample): nearest, linear and cubic interpolation over any axes,
 * separable, with every coordinate transformation mode of the ONNX spec. */
#ifndef TOSAC_KERNELS_RESIZE_H
#define TOSAC_KERNELS_RESIZE_H

#include "kernels/kern.h"

typedef enum kern_resize_mode { KERN_RESIZE_NEAREST, KERN_RESIZE_LINEAR, KERN_RESIZE_CUBIC } kern_resize_mode;

typedef enum kern_resize_coord {
    KERN_COORD_HALF_PIXEL, KERN_COORD_HALF_PIXEL_SYMMETRIC, KERN_COORD_PYTORCH_HALF_PIXEL,
    KERN_COORD_ALIGN_CORNERS, KERN_COORD_ASYMMETRIC, KERN_COORD_TF_HALF_PIXEL_FOR_NN,
    KERN_COORD_TF_CROP_AND_RESIZE,
} kern_resize_coord;

typedef enum kern_nearest_mode {
    KERN_NEAREST_ROUND_PREFER_FLOOR, KERN_NEAREST_ROUND_PREFER_CEIL, KERN_NEAREST_FLOOR,
    KERN_NEAREST_CEIL,
} kern_nearest_mode;

typedef struct kern_resize_params {
    int rank;
    int64_t in[TOSAC_MAX_RANK], out[TOSAC_MAX_RANK];
    double scale[TOSAC_MAX_RANK];                         /* out / in as the model gives it */
    double roi_start[TOSAC_MAX_RANK], roi_end[TOSAC_MAX_RANK]; /* tf_crop_and_resize only */
    kern_resize_mode mode;
    kern_resize_coord coord;
    kern_nearest_mode nearest;
    double cubic_a;
    int exclude_outside;
    double extrapolation;
} kern_resize_params;

/* x and y of dt (f32, f64 or an integer type; integers are rounded to nearest after
 * interpolation and saturated by kern_set_f64). */
void kern_resize(const kern_resize_params *p, tosac_dtype dt, const void *x, void *y);

#endif
