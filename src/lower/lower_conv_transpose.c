/* ConvTranspose (2-D, dilations 1) -> TRANSPOSE, TRANSPOSE_CONV2D, RESCALE, TRANSPOSE; with
 * groups (depthwise included) one SLICE + TRANSPOSE_CONV2D (+ RESCALE) per group and a CONCAT
 * of their channels (TOSA's TRANSPOSE_CONV2D has no groups).
 *
 * TOSA's TRANSPOSE_CONV2D writes in[iy] * w[ky] to out[iy * stride + out_pad_top + ky], which
 * is ONNX's ConvTranspose with out_pad_top = -pad_begin; the bottom/right out_pad takes the
 * rest of the output size (output_padding, pad_end, output_shape). The begin pads come from
 * `pads`, or for auto_pad SAME_* / output_shape from the total padding as the CPU executor
 * splits it. TOSA requires out_pad > -kernel, so a pad of the kernel's size or more is
 * refused. Weights are constant and laid out at compile time: ONNX [IC, OC, KH, KW] ->
 * [OC, KH, KW, IC] (no flip: both write forward). Quantized: int8 -> i32 and int16 -> i48
 * accumulators with the bias at sx*sw[oc] (weights per channel along ONNX axis 1), then a
 * per-channel RESCALE by sx*sw[oc]/sy, as for Conv. */
#include <stdlib.h>
#include <string.h>

#include "lower/lower_extra.h"
#include "onnxop/onnxop_window.h"

typedef struct tc_geom {
    int64_t n, ic, h, w, oc, kh, kw, oh, ow;
    int64_t group, icg, ocg;   /* groups and channels per group */
    int32_t out_pad[4], stride[2];
} tc_geom;

static tosac_code geometry(lower_ctx *c, const ir_node *n, const ir_tensor *X,
                           const ir_tensor *W, const ir_tensor *Y, tc_geom *g)
{
    if (X->rank != 4 || W->rank != 4 || Y->rank != 4)
        return lx_unsupported(c, n, "only 2-D transposed convolutions are lowered "
                              "(TRANSPOSE_CONV2D)");
    g->n = X->shape[0]; g->ic = X->shape[1]; g->h = X->shape[2]; g->w = X->shape[3];
    g->group = ir_node_attr_int(n, "group", 1);
    if (g->group < 1 || g->group > 4096 || g->ic % g->group != 0)
        return lx_unsupported(c, n, "group %lld for %lld input channels", (long long)g->group,
                              (long long)g->ic);
    g->icg = g->ic / g->group;
    g->ocg = W->shape[1];
    g->oc = g->ocg * g->group; g->kh = W->shape[2]; g->kw = W->shape[3];
    g->oh = Y->shape[2]; g->ow = Y->shape[3];
    if (W->shape[0] != g->ic || Y->shape[1] != g->oc)
        return lx_unsupported(c, n, "weight channels do not match the input/output");
    int cnt;
    const int64_t *dl = ir_node_attr_ints(n, "dilations", &cnt);
    for (int i = 0; dl && i < cnt; i++)
        if (dl[i] != 1)
            return lx_unsupported(c, n, "dilations other than 1 (TOSA's TRANSPOSE_CONV2D has "
                                  "no dilation)");
    /* the ONNX rule (onnxop_window.c): strides and the begin pads in effect */
    onnx_window win;
    int64_t in[2] = {g->h, g->w}, k[2] = {g->kh, g->kw}, out[2] = {g->oh, g->ow};
    int64_t osp[2], pbs[2], pes[2];
    tosac_error le;
    tosac_error_clear(&le);
    if (onnx_window_parse(n, 2, &win, &le) ||
        onnx_window_transpose(n, &win, in, k, osp, pbs, pes, &le))
        return lx_unsupported(c, n, "%s", le.msg);
    int64_t *s = win.s;
    for (int d = 0; d < 2; d++) {
        if (s[d] < 1 || s[d] > 8192)
            return lx_unsupported(c, n, "stride %lld", (long long)s[d]);
        int64_t pb = pbs[d];
        int64_t top = -pb, bottom = out[d] - (in[d] - 1) * s[d] - k[d] - top;
        if (top <= -k[d] || bottom <= -k[d] || top > INT32_MAX || bottom > INT32_MAX)
            return lx_unsupported(c, n, "padding of the kernel's size or more (TOSA's "
                                  "TRANSPOSE_CONV2D needs out_pad > -kernel)");
        g->out_pad[2 * d] = (int32_t)top;
        g->out_pad[2 * d + 1] = (int32_t)bottom;
        g->stride[d] = (int32_t)s[d];
    }
    return TOSAC_OK;
}

/* Group gi's weights: [IC, OCg, KH, KW] rows gi*ICg.. -> [OCg, KH, KW, ICg] as a CONST. */
static int weights(lower_ctx *c, const tc_geom *g, const tosac_tensor *wv, int64_t gi)
{
    size_t es = tosac_dtype_size(wv->dtype);
    int64_t total = g->icg * g->ocg * g->kh * g->kw;
    char *dst = malloc((size_t)(total ? total : 1) * es);
    if (!dst) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory laying out weights");
        return -1;
    }
    const char *src = wv->data;
    for (int64_t i = 0; i < g->icg; i++)
        for (int64_t o = 0; o < g->ocg; o++)
            for (int64_t y = 0; y < g->kh; y++)
                for (int64_t x = 0; x < g->kw; x++) {
                    int64_t s = (((gi * g->icg + i) * g->ocg + o) * g->kh + y) * g->kw + x;
                    int64_t d = ((o * g->kh + y) * g->kw + x) * g->icg + i;
                    memcpy(dst + d * (int64_t)es, src + s * (int64_t)es, es);
                }
    int64_t shape[4] = {g->ocg, g->kh, g->kw, g->icg};
    int k = lower_const(c, "weight", wv->dtype, 4, shape, dst);
    free(dst);
    return k;
}

/* Everything one group's TRANSPOSE_CONV2D needs. */
typedef struct tc_emit {
    const tc_geom *g;
    const ir_tensor *X, *W, *Y;
    const tosac_tensor *wv;
    bool quant;
    tosac_dtype acc;
    int64_t wzp;
    int x;                     /* the NHWC input */
    const char *bias;          /* the [OC] bias in accumulator units */
    const double *scales;      /* [OC] accumulator scale / output scale (quantized) */
} tc_emit;

/* Group gi: its input channels (SLICE unless one group), TRANSPOSE_CONV2D, and for quantized
 * operands the per-channel RESCALE to the output type. Returns the NHWC result. */
static int one_group(lower_ctx *c, const tc_emit *e, int64_t gi)
{
    const tc_geom *g = e->g;
    int x = e->x;
    if (g->group > 1) {
        int64_t start[4] = {0, 0, 0, gi * g->icg}, size[4] = {g->n, g->h, g->w, g->icg};
        int st = lower_const_shape(c, "slice_start", 4, start);
        int sz = lower_const_shape(c, "slice_size", 4, size);
        int xs = lower_tmp(c, "group_in", e->X->dtype, 4, size);
        int sin[3] = {x, st, sz};
        if (st < 0 || sz < 0 || xs < 0 || lower_emit(c, TOSA_OP_SLICE, NULL, sin, 3, &xs, 1))
            return -1;
        x = xs;
    }
    int64_t bn = g->ocg;
    size_t es = tosac_dtype_size(e->acc);
    int w = weights(c, g, e->wv, gi);
    int b = lower_const(c, "bias", e->acc, 1, &bn, e->bias + (size_t)(gi * g->ocg) * es);
    int izp = lower_scalar(c, "input_zp", e->X->dtype, e->quant ? lower_qzp(e->X) : 0);
    int wz = lower_scalar(c, "weight_zp", e->W->dtype, e->wzp);
    int64_t nhwc[4] = {g->n, g->oh, g->ow, g->ocg};
    int conv = lower_tmp(c, "transpose_conv", e->acc, 4, nhwc);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    memcpy(a.out_pad, g->out_pad, sizeof g->out_pad);
    a.n_out_pad = 4;
    a.stride[0] = g->stride[0]; a.stride[1] = g->stride[1]; a.n_stride = 2;
    a.acc_type = e->acc;
    int ins[5] = {x, w, b, izp, wz};
    if (w < 0 || b < 0 || izp < 0 || wz < 0 || conv < 0 ||
        lower_emit(c, TOSA_OP_TRANSPOSE_CONV2D, &a, ins, 5, &conv, 1))
        return -1;
    if (!e->quant)
        return conv;
    lower_rescale_args ra = {e->Y->dtype, e->scales + gi * g->ocg, (int)g->ocg, 0,
                             lower_qzp(e->Y), -1, "tconv_q"};
    return lower_rescale(c, conv, &ra);
}

static tosac_code lower_conv_transpose(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *W = lower_in_ir(c, n, 1);
    const ir_tensor *Y = lower_out_ir(c, n, 0);
    if (!X || !W || !Y)
        return lx_unsupported(c, n, "missing input or output");
    tc_geom g;
    memset(&g, 0, sizeof g);
    tosac_code rc = geometry(c, n, X, W, Y, &g);
    if (rc)
        return rc;
    tosac_tensor wv;
    if (!lower_in_const(c, n, 1, &wv) || wv.dtype != W->dtype)
        return lx_unsupported(c, n, "weights are not constant");
    tc_emit e = {&g, X, W, Y, &wv, lower_is_quantized(X), X->dtype, 0, -1, NULL, NULL};
    if (e.quant) {
        if (!lower_is_quantized(W) || !lower_is_quantized(Y))
            return lx_unsupported(c, n, "input is quantized but the weights or output are not");
        /* per channel along ONNX axis 1: the OC/group channels of each group */
        if (W->quant->n > 1 && (W->quant->axis != 1 || W->quant->n != g.ocg))
            return lx_unsupported(c, n, "weights quantized per channel along an axis other "
                                  "than the output channels (1)");
        e.wzp = lower_qzp(W);
        for (int i = 1; i < W->quant->n; i++)
            if (W->quant->zero_point[i] != e.wzp)
                return lx_unsupported(c, n, "per-channel weight zero points differ");
        e.acc = X->dtype == TOSAC_DT_I16 ? TOSAC_DT_I48 : TOSAC_DT_I32;
    } else if (!tosac_dtype_is_float(X->dtype) || W->dtype != X->dtype) {
        return lx_unsupported(c, n, "%s input with %s weights", tosac_dtype_name(X->dtype),
                              tosac_dtype_name(W->dtype));
    }
    double *scales = malloc((size_t)(g.oc > 0 ? g.oc : 1) * sizeof *scales);
    int *parts = malloc((size_t)g.group * sizeof *parts);
    if (!scales || !parts) {
        free(scales);
        free(parts);
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int64_t o = 0; o < g.oc; o++)
        scales[o] = e.quant ? lower_qscale(X) *
                                  (double)W->quant->scale[W->quant->n > 1 ? o % g.ocg : 0]
                            : 1.0;
    /* the whole [OC] bias once (lower_bias quantizes or requantizes it), sliced per group
     * from its data; the unread CONST is dropped by the cleanup */
    e.x = lower_transpose(c, lower_in(c, n, 0), lower_nchw_to_nhwc, -1);
    int b = e.x < 0 ? -1 : lower_bias(c, n, n->n_inputs > 2 ? 2 : -1, e.acc, g.oc, scales, 1.0);
    if (b >= 0) {
        e.bias = c->b->tensors[b].data;
        for (int64_t o = 0; o < g.oc; o++)
            scales[o] /= e.quant ? lower_qscale(Y) : 1.0;
        e.scales = scales;
    }
    int res = b < 0 ? -1 : 0;
    for (int64_t gi = 0; gi < g.group && res >= 0; gi++)
        res = parts[gi] = one_group(c, &e, gi);
    if (res >= 0 && g.group > 1) {
        const int64_t nhwc[4] = {g.n, g.oh, g.ow, g.oc};
        res = lower_concat_groups(c, "tconv_groups", parts, (int)g.group, nhwc);
    }
    free(scales);
    free(parts);
    int out = res < 0 ? -1 : lower_out(c, n, 0);
    return out < 0 || lower_transpose(c, res, lower_nhwc_to_nchw, out) < 0 ? lx_code(c)
                                                                          : TOSAC_OK;
}

const lower_rule lower_rules_conv_transpose[] = {
    {IR_DOMAIN_ONNX, "ConvTranspose", lower_conv_transpose, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
