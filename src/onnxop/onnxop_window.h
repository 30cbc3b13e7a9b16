/* Windowed operators (Conv, ConvInteger, QLinearConv, ConvTranspose, MaxPool, AveragePool, LpPool):
 * kernel_shape, strides, dilations, pads, auto_pad and ceil_mode, and the output size rule of
 * the ONNX operator docs. One parse, one rule, for shape inference, the CPU operators and the
 * lowering (which then fits the pads to TOSA's exact window arithmetic). */
#ifndef TOSAC_ONNXOP_WINDOW_H
#define TOSAC_ONNXOP_WINDOW_H

#include "onnxop/onnxop.h"
#include "tosac/tensor.h"

#define ONNX_WIN_MAX_SP (TOSAC_MAX_RANK - 2)

typedef enum onnx_auto_pad {
    ONNX_PAD_NOTSET,
    ONNX_PAD_SAME_UPPER,
    ONNX_PAD_SAME_LOWER,
    ONNX_PAD_VALID,
} onnx_auto_pad;

typedef struct onnx_window {
    int nsp;                                 /* spatial dims */
    int has_k;                               /* kernel_shape given (else the weight's) */
    int64_t k[ONNX_WIN_MAX_SP], s[ONNX_WIN_MAX_SP], d[ONNX_WIN_MAX_SP];
    int64_t pb[ONNX_WIN_MAX_SP], pe[ONNX_WIN_MAX_SP]; /* pads as given (0 when absent) */
    onnx_auto_pad auto_pad;
    int ceil_mode;
    /* ConvTranspose */
    int64_t opad[ONNX_WIN_MAX_SP];           /* output_padding (0 when absent) */
    int has_oshape;
    int64_t oshape[ONNX_WIN_MAX_SP];         /* output_shape's spatial sizes */
} onnx_window;

/* Every value is bounded by IR_SHAPE_LIMIT, so the output-size arithmetic cannot overflow. */

/* The window attributes of n for nsp (>= 1) spatial dims: lengths must match, strides,
 * dilations and kernel sizes in [1, IR_SHAPE_LIMIT], pads in [0, IR_SHAPE_LIMIT], auto_pad one
 * of the four spellings; ConvTranspose's output_padding (each below its stride or dilation)
 * and output_shape (the spatial sizes, or the full shape) when present. Fails with
 * TOSAC_ERR_INPUT naming the node. */
tosac_code onnx_window_parse(const ir_node *n, int nsp, onnx_window *w, tosac_error *err);

/* Output sizes out[nsp] and the pads in effect pb/pe[nsp] (auto_pad resolved) over the input
 * sizes in[nsp]; kernel sizes from kshape (a weight's spatial dims) or, when NULL, the
 * kernel_shape attribute (required then). */
tosac_code onnx_window_forward(const ir_node *n, const onnx_window *w, const int64_t *in,
                               const int64_t *kshape, int64_t *out, int64_t *pb, int64_t *pe,
                               tosac_error *err);

/* ConvTranspose: out = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1
 * - pads; with auto_pad SAME_* (out = in * stride) or output_shape (which wins) the total
 * padding is split, SAME_UPPER putting the larger half at the end, the others at the begin;
 * VALID has none. kshape: the weight's spatial dims. */
tosac_code onnx_window_transpose(const ir_node *n, const onnx_window *w, const int64_t *in,
                                 const int64_t *kshape, int64_t *out, int64_t *pb, int64_t *pe,
                                 tosac_error *err);

#endif
