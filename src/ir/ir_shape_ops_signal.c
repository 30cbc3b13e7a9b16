/* Static shape rules of the signal operators (ONNX semantics): Hann/Hamming/Blackman windows,
 * MelWeightMatrix, DFT, STFT. */
#include "ir_shape.h"

#include <string.h>

#define NODE (&c->g->nodes[node])

static tosac_dtype out_datatype(shape_ctx *c, int node)
{
    return sh_onnx_dtype(ir_node_attr_int(NODE, "output_datatype", 1));
}

static tosac_code r_window(shape_ctx *c, int node)
{
    int64_t n;
    if (sh_scalar_int(c, node, 0, &n))
        return c->err->code;
    if (n == SH_UNKNOWN)
        return TOSAC_OK; /* declared output kept */
    if (n < 0)
        return sh_bad(c, node, "negative window size");
    return sh_set(c, node, 0, out_datatype(c, node), 1, &n);
}

/* [floor(dft_length / 2) + 1, num_mel_bins] */
static tosac_code r_mel(shape_ctx *c, int node)
{
    int64_t bins, len;
    if (sh_scalar_int(c, node, 0, &bins) || sh_scalar_int(c, node, 1, &len))
        return c->err->code;
    if (bins == SH_UNKNOWN || len == SH_UNKNOWN)
        return TOSAC_OK;
    if (bins < 1 || len < 1)
        return sh_bad(c, node, "num_mel_bins and dft_length must be positive");
    int64_t out[2] = {len / 2 + 1, bins};
    return sh_set(c, node, 0, out_datatype(c, node), 2, out);
}

/* [batch, n..., 1|2] -> [..., 2], the axis dim dft_length (halved + 1 when onesided). */
static tosac_code r_dft(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int r = x->rank;
    if (r < 3 || (x->shape[r - 1] != 1 && x->shape[r - 1] != 2))
        return sh_bad(c, node, "signal must be [batch, n..., 1 or 2]");
    int64_t axis = c->opset >= 20 ? -2 : ir_node_attr_int(NODE, "axis", 1);
    int n;
    if (c->opset >= 20 && NODE->n_inputs > 2 && NODE->inputs[2] >= 0 &&
        !sh_ints(c, node, 2, &axis, &n, 1))
        return sh_declared_or_fail(c, node, 0, "axis is not a known constant");
    int ax = (int)(axis < 0 ? axis + r : axis);
    if (ax < 1 || ax > r - 2)
        return sh_bad(c, node, "axis is not a signal axis");
    int64_t len = x->shape[ax];
    if (NODE->n_inputs > 1 && NODE->inputs[1] >= 0) {
        if (!sh_ints(c, node, 1, &len, &n, 1))
            return sh_declared_or_fail(c, node, 0, "dft_length is not a known constant");
    }
    if (len < 1)
        return sh_bad(c, node, "dft_length must be positive");
    int64_t out[TOSAC_MAX_RANK];
    memcpy(out, x->shape, sizeof(int64_t) * (size_t)r);
    out[ax] = ir_node_attr_int(NODE, "onesided", 0) ? len / 2 + 1 : len;
    out[r - 1] = 2;
    return sh_set(c, node, 0, x->dtype, r, out);
}

/* [batch, frames, bins, 2], frames = (length - frame_length) / step + 1. */
static tosac_code r_stft(shape_ctx *c, int node)
{
    const ir_tensor *x, *win = sh_in(c, node, 2);
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    if (x->rank != 3 || (x->shape[2] != 1 && x->shape[2] != 2))
        return sh_bad(c, node, "signal must be [batch, length, 1 or 2]");
    int64_t step, fl = -1;
    if (sh_scalar_int(c, node, 1, &step))
        return c->err->code;
    if (win && sh_static(win) && win->rank == 1)
        fl = win->shape[0];
    else if (NODE->n_inputs > 3 && NODE->inputs[3] >= 0 && sh_scalar_int(c, node, 3, &fl))
        return c->err->code;
    if (step == SH_UNKNOWN || fl == SH_UNKNOWN)
        return TOSAC_OK;
    if (step < 1 || fl < 1 || fl > x->shape[1])
        return sh_bad(c, node, "frame_step or frame_length out of range");
    int64_t out[4] = {x->shape[0], (x->shape[1] - fl) / step + 1,
                      ir_node_attr_int(NODE, "onesided", 1) ? fl / 2 + 1 : fl, 2};
    return sh_set(c, node, 0, x->dtype, 4, out);
}

const shape_rule_row ir_shape_rules_signal[] = {
    {"HannWindow", r_window}, {"HammingWindow", r_window}, {"BlackmanWindow", r_window},
    {"MelWeightMatrix", r_mel}, {"DFT", r_dft}, {"STFT", r_stft},
    {NULL, NULL},
};
