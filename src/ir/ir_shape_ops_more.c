/* Static shape rules for the operators added with the CPU runtime (ONNX semantics): layout
 * (DepthToSpace, SpaceToDepth), gathers, ConvTranspose, MaxUnpool, Einsum, signal ops, image
 * sampling, Det, OneHot. Data-dependent outputs (Unique, NonMaxSuppression, NonZero, Compress)
 * keep a declared static shape or fail naming the reason. */
#include "ir_shape.h"
#include "onnxop/onnxop_einsum.h"
#include "onnxop/onnxop_window.h"

#include <stdio.h>
#include <string.h>

#define NODE (&c->g->nodes[node])
/* Bound on sizes multiplied together, so the products stay far inside int64. */
#define BIG ((int64_t)1 << 30)

static tosac_code bad(shape_ctx *c, int node, const char *what)
{
    return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': %s", NODE->name, what);
}

/* Every pad within [0, BIG] (ONNX pads are non-negative). */
static bool pads_ok(const int64_t *pads, int n)
{
    for (int i = 0; pads && i < n; i++)
        if (pads[i] < 0 || pads[i] > BIG)
            return false;
    return true;
}

static tosac_code r_depth_space(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t b = ir_node_attr_int(NODE, "blocksize", 0);
    if (x->rank != 4)
        return bad(c, node, "input must be 4-D");
    if (b < 1 || b > 4096)
        return bad(c, node, "blocksize must be positive");
    int64_t out[4] = {x->shape[0], 0, 0, 0};
    bool fits;
    if (strcmp(NODE->op_type, "DepthToSpace") == 0) {
        if (x->shape[1] % (b * b))
            return bad(c, node, "inconsistent shapes: channels not divisible by blocksize^2");
        out[1] = x->shape[1] / (b * b);
        fits = sh_mul(x->shape[2], b, &out[2]) && sh_mul(x->shape[3], b, &out[3]);
    } else {
        if (x->shape[2] % b || x->shape[3] % b)
            return bad(c, node, "inconsistent shapes: height/width not divisible by blocksize");
        fits = sh_mul(x->shape[1], b * b, &out[1]);
        out[2] = x->shape[2] / b;
        out[3] = x->shape[3] / b;
    }
    if (!fits)
        return sh_overflow(c, node, "the output size");
    return sh_set(c, node, 0, x->dtype, 4, out);
}

/* Output = indices' shape, data's type. */
static tosac_code r_gather_elements(shape_ctx *c, int node)
{
    const ir_tensor *x, *idx;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &idx))
        return c->err->code;
    if (idx->rank != x->rank)
        return bad(c, node, "inconsistent shapes: indices rank differs from data rank");
    return sh_set(c, node, 0, x->dtype, idx->rank, idx->shape);
}

/* indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:] */
static tosac_code r_gather_nd(shape_ctx *c, int node)
{
    const ir_tensor *x, *idx;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &idx))
        return c->err->code;
    int64_t b = ir_node_attr_int(NODE, "batch_dims", 0);
    if (idx->rank < 1 || b < 0 || b >= idx->rank || b >= x->rank)
        return bad(c, node, "batch_dims out of range");
    int64_t k = idx->shape[idx->rank - 1];
    if (k < 1 || b + k > x->rank)
        return bad(c, node, "indices' last dimension exceeds the data rank");
    int64_t out[TOSAC_MAX_RANK * 2];
    int r = 0;
    for (int d = 0; d < idx->rank - 1; d++)
        out[r++] = idx->shape[d];
    for (int64_t d = b + k; d < x->rank; d++)
        out[r++] = x->shape[d];
    return sh_set(c, node, 0, x->dtype, r, out);
}

/* out = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - pads; SAME_*:
 * in * stride; output_shape, when given, wins (onnx_window_transpose). */
static tosac_code r_conv_transpose(shape_ctx *c, int node)
{
    const ir_tensor *x, *w;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &w))
        return c->err->code;
    int ns = x->rank - 2;
    if (ns < 1 || w->rank != x->rank)
        return bad(c, node, "inconsistent shapes: weight and input ranks");
    int64_t group = ir_node_attr_int(NODE, "group", 1);
    if (group < 1 || w->shape[0] < 1 || x->shape[1] != w->shape[0] || w->shape[0] % group)
        return bad(c, node, "inconsistent shapes: input channels, weight and group");
    int64_t out[TOSAC_MAX_RANK], pb[ONNX_WIN_MAX_SP], pe[ONNX_WIN_MAX_SP];
    out[0] = x->shape[0];
    if (!sh_mul(w->shape[1], group, &out[1]))
        return sh_overflow(c, node, "the output channels");
    /* the rule is the layer's (onnxop_window.c); kernel_shape, when given, over the weight's */
    onnx_window win;
    if (onnx_window_parse(NODE, ns, &win, c->err) ||
        onnx_window_transpose(NODE, &win, x->shape + 2, win.has_k ? NULL : w->shape + 2,
                              out + 2, pb, pe, c->err))
        return c->err->code;
    return sh_set(c, node, 0, x->dtype, x->rank, out);
}

/* out = (in - 1) * stride + kernel - pads, unless the output_shape input is known. */
static tosac_code r_max_unpool(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t os[TOSAC_MAX_RANK];
    int n;
    if (NODE->n_inputs > 2 && NODE->inputs[2] >= 0) {
        if (!sh_ints(c, node, 2, os, &n, TOSAC_MAX_RANK))
            return sh_declared_or_fail(c, node, 0, "output_shape is not a known constant");
        if (n != x->rank)
            return bad(c, node, "output_shape length differs from the input rank");
        return sh_set(c, node, 0, x->dtype, n, os);
    }
    int ns = x->rank - 2, nk, n_str, n_pad;
    const int64_t *ks = ir_node_attr_ints(NODE, "kernel_shape", &nk);
    const int64_t *str = ir_node_attr_ints(NODE, "strides", &n_str);
    const int64_t *pads = ir_node_attr_ints(NODE, "pads", &n_pad);
    if (ns < 1 || !ks || nk != ns || (str && n_str != ns) || (pads && n_pad != 2 * ns))
        return bad(c, node, "kernel_shape/strides/pads lengths do not match the rank");
    if (!pads_ok(pads, n_pad))
        return bad(c, node, "pads must be in [0, 2^30]");
    int64_t out[TOSAC_MAX_RANK] = {x->shape[0], x->shape[1]};
    for (int i = 0; i < ns; i++) {
        int64_t s = str ? str[i] : 1;
        if (s > BIG || ks[i] > BIG || x->shape[i + 2] > BIG)
            return bad(c, node, "stride, kernel or input size too large");
        out[i + 2] = (x->shape[i + 2] - 1) * s + ks[i] - (pads ? pads[i] + pads[i + ns] : 0);
        if (s < 1 || out[i + 2] < 1)
            return bad(c, node, "invalid stride or the output would be empty");
    }
    return sh_set(c, node, 0, x->dtype, x->rank, out);
}

/* ---- Einsum ---- */

static tosac_code r_einsum(shape_ctx *c, int node)
{
    int n_in = NODE->n_inputs, ranks[ONNX_EINSUM_MAX_IN];
    const int64_t *shapes[ONNX_EINSUM_MAX_IN];
    if (n_in < 1 || n_in > ONNX_EINSUM_MAX_IN)
        return bad(c, node, "Einsum takes 1 to 8 inputs");
    const ir_tensor *t = NULL;
    for (int k = 0; k < n_in; k++) {
        if (sh_need(c, node, k, &t))
            return c->err->code;
        ranks[k] = t->rank;
        shapes[k] = t->shape;
    }
    onnx_einsum e;
    if (onnx_einsum_of(NODE, n_in, ranks, shapes, &e, c->err))
        return c->err->code;
    return sh_set(c, node, 0, t->dtype, e.n_out, e.y);
}

/* ---- signal ---- */

/* A scalar size input; *v = UNKNOWN (and OK) when it is not known but output 0 is declared. */
#define UNKNOWN INT64_MIN
static tosac_code scalar_int(shape_ctx *c, int node, int k, int64_t *v)
{
    int n;
    *v = UNKNOWN;
    if (sh_ints(c, node, k, v, &n, 1) && n == 1)
        return TOSAC_OK;
    *v = UNKNOWN;
    return sh_declared_or_fail(c, node, 0, "a size input is not a known constant");
}

static tosac_dtype out_datatype(shape_ctx *c, int node)
{
    return sh_onnx_dtype(ir_node_attr_int(NODE, "output_datatype", 1));
}

static tosac_code r_window(shape_ctx *c, int node)
{
    int64_t n;
    if (scalar_int(c, node, 0, &n))
        return c->err->code;
    if (n == UNKNOWN)
        return TOSAC_OK; /* declared output kept */
    if (n < 0)
        return bad(c, node, "negative window size");
    return sh_set(c, node, 0, out_datatype(c, node), 1, &n);
}

/* [floor(dft_length / 2) + 1, num_mel_bins] */
static tosac_code r_mel(shape_ctx *c, int node)
{
    int64_t bins, len;
    if (scalar_int(c, node, 0, &bins) || scalar_int(c, node, 1, &len))
        return c->err->code;
    if (bins == UNKNOWN || len == UNKNOWN)
        return TOSAC_OK;
    if (bins < 1 || len < 1)
        return bad(c, node, "num_mel_bins and dft_length must be positive");
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
        return bad(c, node, "signal must be [batch, n..., 1 or 2]");
    int64_t axis = c->opset >= 20 ? -2 : ir_node_attr_int(NODE, "axis", 1);
    int n;
    if (c->opset >= 20 && NODE->n_inputs > 2 && NODE->inputs[2] >= 0 &&
        !sh_ints(c, node, 2, &axis, &n, 1))
        return sh_declared_or_fail(c, node, 0, "axis is not a known constant");
    int ax = (int)(axis < 0 ? axis + r : axis);
    if (ax < 1 || ax > r - 2)
        return bad(c, node, "axis is not a signal axis");
    int64_t len = x->shape[ax];
    if (NODE->n_inputs > 1 && NODE->inputs[1] >= 0) {
        if (!sh_ints(c, node, 1, &len, &n, 1))
            return sh_declared_or_fail(c, node, 0, "dft_length is not a known constant");
    }
    if (len < 1)
        return bad(c, node, "dft_length must be positive");
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
        return bad(c, node, "signal must be [batch, length, 1 or 2]");
    int64_t step, fl = -1;
    if (scalar_int(c, node, 1, &step))
        return c->err->code;
    if (win && sh_static(win) && win->rank == 1)
        fl = win->shape[0];
    else if (NODE->n_inputs > 3 && NODE->inputs[3] >= 0 && scalar_int(c, node, 3, &fl))
        return c->err->code;
    if (step == UNKNOWN || fl == UNKNOWN)
        return TOSAC_OK;
    if (step < 1 || fl < 1 || fl > x->shape[1])
        return bad(c, node, "frame_step or frame_length out of range");
    int64_t out[4] = {x->shape[0], (x->shape[1] - fl) / step + 1,
                      ir_node_attr_int(NODE, "onesided", 1) ? fl / 2 + 1 : fl, 2};
    return sh_set(c, node, 0, x->dtype, 4, out);
}

/* ---- image sampling, linear algebra, encodings ---- */

/* X [N, C, D...], grid [N, D_out..., r] -> [N, C, D_out...] */
static tosac_code r_grid_sample(shape_ctx *c, int node)
{
    const ir_tensor *x, *g;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &g))
        return c->err->code;
    if (x->rank < 3 || g->rank != x->rank || g->shape[0] != x->shape[0] ||
        g->shape[g->rank - 1] != x->rank - 2)
        return bad(c, node, "inconsistent shapes: grid must be [N, D_out..., rank - 2]");
    int64_t out[TOSAC_MAX_RANK] = {x->shape[0], x->shape[1]};
    for (int d = 1; d < g->rank - 1; d++)
        out[d + 1] = g->shape[d];
    return sh_set(c, node, 0, x->dtype, x->rank, out);
}

/* [num_rois, C, output_height, output_width] */
static tosac_code r_roi_align(shape_ctx *c, int node)
{
    const ir_tensor *x, *rois;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &rois))
        return c->err->code;
    if (x->rank != 4 || rois->rank != 2 || rois->shape[1] != 4)
        return bad(c, node, "X must be 4-D and rois [num_rois, 4]");
    int64_t oh = ir_node_attr_int(NODE, "output_height", 1);
    int64_t ow = ir_node_attr_int(NODE, "output_width", 1);
    if (oh < 1 || ow < 1)
        return bad(c, node, "output_height/output_width must be positive");
    int64_t out[4] = {rois->shape[0], x->shape[1], oh, ow};
    return sh_set(c, node, 0, x->dtype, 4, out);
}

/* [*, M, M] -> [*] */
static tosac_code r_det(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    if (x->rank < 2 || x->shape[x->rank - 1] != x->shape[x->rank - 2])
        return bad(c, node, "input must be [*, M, M]");
    return sh_set(c, node, 0, x->dtype, x->rank - 2, x->shape);
}

/* indices' shape with depth inserted at axis; the values' type. */
static tosac_code r_one_hot(shape_ctx *c, int node)
{
    const ir_tensor *idx, *vals;
    int64_t depth;
    if (sh_need(c, node, 0, &idx) || sh_need(c, node, 2, &vals) || scalar_int(c, node, 1, &depth))
        return c->err->code;
    if (depth == UNKNOWN)
        return TOSAC_OK;
    if (depth < 1)
        return bad(c, node, "depth must be positive");
    int r = idx->rank + 1;
    int64_t axis = ir_node_attr_int(NODE, "axis", -1);
    int ax = (int)(axis < 0 ? axis + r : axis);
    if (ax < 0 || ax >= r || r > TOSAC_MAX_RANK)
        return bad(c, node, "axis out of range");
    int64_t out[TOSAC_MAX_RANK];
    for (int d = 0, s = 0; d < r; d++)
        out[d] = d == ax ? depth : idx->shape[s++];
    return sh_set(c, node, 0, vals->dtype, r, out);
}

static tosac_code r_eye_like(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    if (x->rank != 2)
        return bad(c, node, "input must be 2-D");
    int64_t code = ir_node_attr_int(NODE, "dtype", 0);
    tosac_dtype dt = code ? sh_onnx_dtype(code) : x->dtype;
    if (dt == TOSAC_DT_UNKNOWN)
        return sh_fail(c, node, "unsupported 'dtype'");
    return sh_set(c, node, 0, dt, 2, x->shape);
}

/* The output sizes depend on the input values: only declared shapes can be used. */
static tosac_code r_data_dependent(shape_ctx *c, int node)
{
    for (int k = 0; k < NODE->n_outputs; k++)
        if (sh_declared_or_fail(c, node, k, "the output size depends on the input values"))
            return c->err->code;
    return TOSAC_OK;
}

static const struct {
    const char *op;
    shape_rule fn;
} rules[] = {
    {"DepthToSpace", r_depth_space}, {"SpaceToDepth", r_depth_space},
    {"GatherElements", r_gather_elements}, {"GatherND", r_gather_nd},
    {"ConvTranspose", r_conv_transpose}, {"MaxUnpool", r_max_unpool}, {"Einsum", r_einsum},
    {"HannWindow", r_window}, {"HammingWindow", r_window}, {"BlackmanWindow", r_window},
    {"MelWeightMatrix", r_mel}, {"DFT", r_dft}, {"STFT", r_stft},
    {"GridSample", r_grid_sample}, {"RoiAlign", r_roi_align}, {"Det", r_det},
    {"OneHot", r_one_hot}, {"EyeLike", r_eye_like},
    {"Unique", r_data_dependent}, {"NonMaxSuppression", r_data_dependent},
    {"NonZero", r_data_dependent}, {"Compress", r_data_dependent},
};

shape_rule ir_shape_rule_more(const char *op_type)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].op, op_type) == 0)
            return rules[i].fn;
    return ir_shape_rule_seq(op_type);
}
