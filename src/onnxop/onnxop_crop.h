/* CenterCropPad (opset 18): each listed axis is cropped or zero-padded, centred, to the target
 * length; the one rule shape inference, the CPU operator and the lowering read. */
#ifndef TOSAC_ONNXOP_CROP_H
#define TOSAC_ONNXOP_CROP_H

#include "onnxop/onnxop.h"

typedef struct onnxop_crop_pad {
    int rank;
    int64_t out[TOSAC_MAX_RANK];   /* output shape */
    /* input index of output index 0 per axis: > 0 crops that many leading elements, < 0
     * pads that many zeros before (ONNX's reference: the odd element goes after) */
    int64_t start[TOSAC_MAX_RANK];
} onnxop_crop_pad;

/* Its `axes` attribute, parsed once (the CPU operator's prepare step keeps it). */
typedef struct onnxop_crop_axes {
    int given;                     /* 0: every axis of the input, in order */
    int n;
    int64_t axes[TOSAC_MAX_RANK];
} onnxop_crop_axes;

/* More axes than TOSAC_MAX_RANK is TOSAC_ERR_INPUT naming the node. */
tosac_code onnxop_crop_axes_parse(const ir_node *n, onnxop_crop_axes *ax, tosac_error *err);

/* The geometry of CenterCropPad node n on an input of shape in[rank] (a dim < 0 is unknown:
 * its start is 0, its output the target or unknown) for the n_target values of its `shape`
 * input, along the `axes` attribute (default every axis). A wrong count, an axis out of range
 * or repeated, or a negative target is TOSAC_ERR_INPUT naming the node. */
tosac_code onnxop_center_crop_pad(const ir_node *n, int rank, const int64_t *in,
                                  const int64_t *target, int n_target, onnxop_crop_pad *cp,
                                  tosac_error *err);
/* The same with the axes already parsed (n names the node in errors). */
tosac_code onnxop_center_crop_pad_at(const ir_node *n, const onnxop_crop_axes *ax, int rank,
                                     const int64_t *in, const int64_t *target, int n_target,
                                     onnxop_crop_pad *cp, tosac_error *err);

#endif
