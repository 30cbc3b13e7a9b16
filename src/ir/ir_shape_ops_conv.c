/* Static shape rules of the transposed windows (ONNX semantics): ConvTranspose (geometry in
 * onnxop_window.c) and MaxUnpool. */
#include "ir_shape.h"
#include "onnxop/onnxop_window.h"

#include <string.h>

#define NODE (&c->g->nodes[node])

/* Bound on sizes multiplied together, so the products stay far inside int64. */
#define BIG ((int64_t)1 << 30)

/* Every pad within [0, BIG] (ONNX pads are non-negative). */
static bool pads_ok(const int64_t *pads, int n)
{
    for (int i = 0; pads && i < n; i++)
        if (pads[i] < 0 || pads[i] > BIG)
            return false;
    return true;
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
        return sh_bad(c, node, "inconsistent shapes: weight and input ranks");
    int64_t group = ir_node_attr_int(NODE, "group", 1);
    if (group < 1 || w->shape[0] < 1 || x->shape[1] != w->shape[0] || w->shape[0] % group)
        return sh_bad(c, node, "inconsistent shapes: input channels, weight and group");
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
            return sh_bad(c, node, "output_shape length differs from the input rank");
        return sh_set(c, node, 0, x->dtype, n, os);
    }
    int ns = x->rank - 2, nk, n_str, n_pad;
    const int64_t *ks = ir_node_attr_ints(NODE, "kernel_shape", &nk);
    const int64_t *str = ir_node_attr_ints(NODE, "strides", &n_str);
    const int64_t *pads = ir_node_attr_ints(NODE, "pads", &n_pad);
    if (ns < 1 || !ks || nk != ns || (str && n_str != ns) || (pads && n_pad != 2 * ns))
        return sh_bad(c, node, "kernel_shape/strides/pads lengths do not match the rank");
    if (!pads_ok(pads, n_pad))
        return sh_bad(c, node, "pads must be in [0, 2^30]");
    int64_t out[TOSAC_MAX_RANK] = {x->shape[0], x->shape[1]};
    for (int i = 0; i < ns; i++) {
        int64_t s = str ? str[i] : 1;
        if (s > BIG || ks[i] > BIG || x->shape[i + 2] > BIG)
            return sh_bad(c, node, "stride, kernel or input size too large");
        out[i + 2] = (x->shape[i + 2] - 1) * s + ks[i] - (pads ? pads[i] + pads[i + ns] : 0);
        if (s < 1 || out[i + 2] < 1)
            return sh_bad(c, node, "invalid stride or the output would be empty");
    }
    return sh_set(c, node, 0, x->dtype, x->rank, out);
}

const shape_rule_row ir_shape_rules_conv[] = {
    {"ConvTranspose", r_conv_transpose}, {"MaxUnpool", r_max_unpool},
    {NULL, NULL},
};
