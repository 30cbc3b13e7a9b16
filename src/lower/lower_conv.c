/* Conv (1-D or 2-D) -> TRANSPOSE, CONV2D / DEPTHWISE_CONV2D, RESCALE, TRANSPOSE.
 *
 * A 1-D Conv [N,C,L] is the 2-D one on [N,C,1,L] (RESHAPEs around it, unit kernel height).
 * A grouped Conv that is not depthwise is one CONV2D per group on a SLICE of the input
 * channels (its weights, bias and per-channel scales the group's share), each rescaled to
 * the output, then a CONCAT of the groups along the channels.
 * A 3-D Conv (group 1) is CONV3D on NDHWC, weights [OC,KD,KH,KW,IC]; its pads must make the
 * output size exact (no trimming there).
 *
 * Weights must be constant: they are laid out for TOSA at compile time (OIHW -> OHWI, or
 * [C*M,1,KH,KW] -> [KH,KW,C,M] for depthwise). Quantized int8: i8 x i8 -> i32 accumulator with
 * the i32 bias, then a per-channel RESCALE by sx*sw[oc]/sy. int16 activations (a16w8): i16 x i8
 * -> i48 accumulator with an i48 bias, RESCALE from i48 (16-bit multipliers). A float bias
 * (left float by the QDQ model) is quantized here at sx*sw[oc] (lower_bias).
 * Float: f32 in, f32 accumulator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/lower_extra.h"
#include "onnxop/onnxop_window.h"

typedef struct conv_geom {
    int64_t n, c, h, w;      /* input NCHW */
    int64_t oc, kh, kw;
    int64_t oh, ow;
    int32_t pad[4];          /* TOSA order: top, bottom, left, right */
    int32_t stride[2], dil[2];
    bool depthwise;
    int64_t mult;            /* depthwise channel multiplier */
    int64_t groups;          /* > 1: grouped (not depthwise), c and oc per group */
    int64_t crop[2];         /* trailing input rows / columns no window reads (sliced off) */
} conv_geom;

/* ONNX pads/auto_pad -> TOSA pads, trimmed (and the input cropped) so the output size
 * divides exactly (TOSA requires (in - 1 + pads - (k - 1) * d) % stride == 0; ONNX floors). */
static tosac_code geometry(lower_ctx *c, const ir_node *n, const ir_tensor *x, const ir_tensor *w,
                           const ir_tensor *y, conv_geom *g)
{
    int r = x->rank;
    if ((r != 4 && r != 3) || w->rank != r || y->rank != r)
        return lx_unsupported(c, n, "only 1-D and 2-D convolutions are lowered");
    int sp = r - 2, o = 2 - sp; /* spatial dims; a 1-D one is the width (o: first 2-D dim) */
    g->n = x->shape[0]; g->c = x->shape[1];
    g->h = sp == 2 ? x->shape[2] : 1; g->w = x->shape[r - 1];
    g->oc = w->shape[0]; g->kh = sp == 2 ? w->shape[2] : 1; g->kw = w->shape[r - 1];
    g->oh = sp == 2 ? y->shape[2] : 1; g->ow = y->shape[r - 1];
    int64_t group = ir_node_attr_int(n, "group", 1);
    g->depthwise = group != 1 && group == g->c && w->shape[1] == 1;
    g->groups = 1;
    if (g->depthwise) {
        if (g->oc % g->c != 0)
            return lx_unsupported(c, n, "depthwise output channels not a multiple of the input's");
        g->mult = g->oc / g->c;
    } else if (group > 1) {
        if (g->c % group != 0 || g->oc % group != 0 || w->shape[1] != g->c / group)
            return lx_unsupported(c, n, "group does not divide the channels");
        g->groups = group;
    } else if (w->shape[1] != g->c) {
        return lx_unsupported(c, n, "weight channels do not match the input");
    }
    /* the ONNX window (onnxop_window.c): pads in effect, auto_pad resolved */
    onnx_window win;
    int64_t insp[2], ksp[2], osp[2], pbsp[2], pesp[2];
    for (int d = 0; d < sp; d++) {
        insp[d] = x->shape[2 + d];
        ksp[d] = w->shape[2 + d];
    }
    tosac_error le;
    tosac_error_clear(&le);
    if (onnx_window_parse(n, sp, &win, &le) ||
        onnx_window_forward(n, &win, insp, ksp, osp, pbsp, pesp, &le))
        return lx_unsupported(c, n, "%s", le.msg);
    g->stride[0] = g->stride[1] = g->dil[0] = g->dil[1] = 1;
    int64_t in[2] = {g->h, g->w}, k[2] = {g->kh, g->kw}, pb[2] = {0, 0}, pe[2] = {0, 0};
    for (int d = 0; d < sp; d++) {
        if (win.s[d] > INT32_MAX || win.d[d] > INT32_MAX)
            return lx_unsupported(c, n, "stride or dilation beyond int32");
        g->stride[o + d] = (int32_t)win.s[d];
        g->dil[o + d] = (int32_t)win.d[d];
        pb[o + d] = pbsp[d];
        pe[o + d] = pesp[d];
    }
    int64_t out[2] = {g->oh, g->ow};
    for (int d = 0; d < 2; d++) {
        int64_t span = in[d] - 1 + pb[d] + pe[d] - (k[d] - 1) * g->dil[d];
        if (span < 0 || g->stride[d] < 1 || g->dil[d] < 1)
            return lx_unsupported(c, n, "kernel larger than the padded input");
        int64_t rem = span % g->stride[d];
        /* The last `rem` rows of the padded input are past every window: trim them from the
         * end padding first, then slice the rest off the input itself (a 1x1 stride-2 conv on
         * an even size, as in ResNet's downsample path). */
        g->crop[d] = rem > pe[d] ? rem - pe[d] : 0;
        pe[d] = rem > pe[d] ? 0 : pe[d] - rem;
        if ((span - rem) / g->stride[d] + 1 != out[d])
            return lx_unsupported(c, n, "output size does not match the attributes");
    }
    g->pad[0] = (int32_t)pb[0]; g->pad[1] = (int32_t)pe[0];
    g->pad[2] = (int32_t)pb[1]; g->pad[3] = (int32_t)pe[1];
    return TOSAC_OK;
}

/* dst[dmap(o, k, yx)] = src[(o * nk + k) * khw + yx] over o < no, k < nk, yx < khw, for
 * dst index (o * khw + yx) * nk + k (OHWI; transpose per output channel) or, depthwise
 * (nk = 1), yx * no + o ([KH,KW,C,M] with o = c*M + m). Typed loops: a memcpy call per
 * element was the hot spot. */
#define RELAYOUT(T)                                                                         \
    do {                                                                                    \
        const T *s_ = (const void *)src;                                                    \
        T *d_ = (void *)dst;                                                                \
        for (int64_t o = 0; o < no; o++, s_ += nk * khw)                                    \
            if (dw)                                                                         \
                for (int64_t yx = 0; yx < khw; yx++)                                        \
                    d_[yx * no + o] = s_[yx];                                               \
            else /* source order: reads stream, the writes stay in one channel's block */ \
                for (int64_t k = 0; k < nk; k++)                                            \
                    for (int64_t yx = 0; yx < khw; yx++)                                    \
                        d_[(o * khw + yx) * nk + k] = s_[k * khw + yx];                     \
    } while (0)

static void relayout(char *dst, const char *src, size_t es, bool dw, int64_t no, int64_t nk,
                     int64_t khw)
{
    if (khw == 1) { /* 1x1 kernels: both orders are the same (most of mobilenet_v2's weights) */
        memcpy(dst, src, (size_t)(no * nk) * es);
        return;
    }
    switch (es) {
    case 1: RELAYOUT(uint8_t); break;
    case 2: RELAYOUT(uint16_t); break;
    case 4: RELAYOUT(uint32_t); break;
    case 8: RELAYOUT(uint64_t); break;
    default:
        for (int64_t o = 0; o < no; o++)
            for (int64_t k = 0; k < nk; k++)
                for (int64_t yx = 0; yx < khw; yx++) {
                    int64_t d = dw ? yx * no + o : (o * khw + yx) * nk + k;
                    memcpy(dst + d * (int64_t)es, src + ((o * nk + k) * khw + yx) * (int64_t)es,
                           es);
                }
    }
}

/* Weights re-laid for TOSA, as a CONST of dtype dt (element size es). A trial lowering leaves
 * them zero: validation reads no weight values, and the relayout was a tenth of compile. */
static int weights(lower_ctx *c, const conv_geom *g, const tosac_tensor *wv, size_t es)
{
    int64_t ci = g->depthwise ? 1 : g->c, total = g->oc * ci * g->kh * g->kw;
    size_t n = (size_t)(total ? total : 1);
    char *dst = c->trial ? calloc(n, es) : malloc(n * es);
    if (!dst) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory laying out weights");
        return -1;
    }
    if (!c->trial)
        relayout(dst, wv->data, es, g->depthwise, g->oc, ci, g->kh * g->kw);
    int64_t shape[4];
    if (g->depthwise) {
        shape[0] = g->kh; shape[1] = g->kw; shape[2] = g->c; shape[3] = g->mult;
    } else {
        shape[0] = g->oc; shape[1] = g->kh; shape[2] = g->kw; shape[3] = ci;
    }
    return lower_const_owned(c, "weight", wv->dtype, 4, shape, dst);
}

/* The weights' single zero point (TOSA has one per tensor). */
static bool weight_zp(const ir_tensor *w, int64_t *zp)
{
    *zp = lower_qzp(w);
    for (int i = 1; w->quant && i < w->quant->n; i++)
        if (w->quant->zero_point[i] != *zp)
            return false;
    return true;
}

/* SLICE of x (NHWC) along the channels: [c0, c0 + cn). */
static int slice_channels(lower_ctx *c, int x, int64_t c0, int64_t cn)
{
    const int64_t *xs = lower_shape(c, x);
    int64_t start[4] = {0, 0, 0, c0}, size[4] = {xs[0], xs[1], xs[2], cn};
    int st = lower_const_shape(c, "slice_start", 4, start);
    int sz = lower_const_shape(c, "slice_size", 4, size);
    int out = lower_tmp(c, "conv_group_in", lower_dtype(c, x), 4, size);
    int sin[3] = {x, st, sz};
    if (st < 0 || sz < 0 || out < 0 || lower_emit(c, TOSA_OP_SLICE, NULL, sin, 3, &out, 1))
        return -1;
    return out;
}

/* One CONV2D / DEPTHWISE_CONV2D of group k on x (NHWC, the group's channels) with the group's
 * weights and bias (constant b_all, all output channels), rescaled to Y when quantized:
 * returns the NHWC result of Y's type (the accumulator's for float). */
static int conv_one(lower_ctx *c, const ir_tensor *X, const ir_tensor *W, const ir_tensor *Y,
                    const conv_geom *gg, const tosac_tensor *wv_all, int64_t k, int b_all,
                    const double *scales_all, tosac_dtype acc, int64_t wzp, int x)
{
    conv_geom g = *gg;
    size_t es = tosac_dtype_size(wv_all->dtype);
    int64_t oc0 = 0;
    tosac_tensor wv = *wv_all;
    if (g.groups > 1) {
        g.c /= g.groups;
        g.oc /= g.groups;
        oc0 = k * g.oc;
        wv.data = (char *)wv_all->data + (size_t)(oc0 * g.c * g.kh * g.kw) * es;
    }
    int w = weights(c, &g, &wv, es);
    int b = b_all;
    if (g.groups > 1 && b_all >= 0) {
        const tosa_tensor *bt = &c->b->tensors[b_all];
        size_t bes = tosac_dtype_size(bt->dtype);
        b = lower_const(c, "bias", bt->dtype, 1, &g.oc, (const char *)bt->data + oc0 * bes);
    }
    int izp = lower_scalar(c, "input_zp", X->dtype, lower_is_quantized(X) ? lower_qzp(X) : 0);
    int wz = lower_scalar(c, "weight_zp", W->dtype, wzp);
    int64_t nhwc[4] = {g.n, g.oh, g.ow, g.oc};
    int conv = lower_tmp(c, "conv", acc, 4, nhwc);
    if (x < 0 || w < 0 || b < 0 || izp < 0 || wz < 0 || conv < 0)
        return -1;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    memcpy(a.pad, g.pad, sizeof g.pad);
    a.n_pad = 4;
    a.stride[0] = g.stride[0]; a.stride[1] = g.stride[1]; a.n_stride = 2;
    a.dilation[0] = g.dil[0]; a.dilation[1] = g.dil[1]; a.n_dilation = 2;
    a.acc_type = acc;
    int ins[5] = {x, w, b, izp, wz};
    tosa_op op = g.depthwise ? TOSA_OP_DEPTHWISE_CONV2D : TOSA_OP_CONV2D;
    if (lower_emit(c, op, &a, ins, 5, &conv, 1))
        return -1;
    if (!lower_is_quantized(X))
        return conv;
    double *scales = malloc((size_t)(g.oc > 0 ? g.oc : 1) * sizeof *scales);
    if (!scales) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    for (int64_t o = 0; o < g.oc; o++)
        scales[o] = scales_all[oc0 + o] / lower_qscale(Y);
    /* named after Y ("_pre": Y's value before the layout TRANSPOSE, as the layout
     * propagation names what it moves), so a dump maps it back (tosac run --dump-intermediates) */
    char name[300];
    snprintf(name, sizeof name, "%s_pre", Y->name);
    lower_rescale_args ra = {Y->dtype, scales, (int)g.oc, 0, lower_qzp(Y), -1, name};
    int res = lower_rescale(c, conv, &ra);
    free(scales);
    return res;
}

/* 3-D Conv, group 1 (see the top). */
static tosac_code lower_conv3d(lower_ctx *c, const ir_node *n, const ir_tensor *X,
                               const ir_tensor *W, const ir_tensor *Y)
{
    if (W->rank != 5 || Y->rank != 5 || W->shape[1] != X->shape[1] ||
        ir_node_attr_int(n, "group", 1) != 1)
        return lx_unsupported(c, n, "grouped 3-D convolution");
    if (strcmp(ir_node_attr_string(n, "auto_pad", "NOTSET"), "NOTSET") != 0)
        return lx_unsupported(c, n, "3-D convolution with auto_pad");
    int cnt;
    int32_t st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pad[6] = {0};
    const int64_t *v = ir_node_attr_ints(n, "strides", &cnt);
    for (int d = 0; v && cnt == 3 && d < 3; d++)
        st[d] = (int32_t)v[d];
    v = ir_node_attr_ints(n, "dilations", &cnt);
    for (int d = 0; v && cnt == 3 && d < 3; d++)
        dl[d] = (int32_t)v[d];
    v = ir_node_attr_ints(n, "pads", &cnt);
    for (int d = 0; v && cnt == 6 && d < 3; d++) {
        pad[2 * d] = (int32_t)v[d];
        pad[2 * d + 1] = (int32_t)v[3 + d];
    }
    for (int d = 0; d < 3; d++) {
        int64_t span = X->shape[2 + d] - 1 + pad[2 * d] + pad[2 * d + 1] -
                       (W->shape[2 + d] - 1) * dl[d];
        if (st[d] < 1 || dl[d] < 1 || span < 0 || span % st[d] != 0 ||
            span / st[d] + 1 != Y->shape[2 + d])
            return lx_unsupported(c, n, "3-D convolution whose padding does not fit the output exactly");
    }
    tosac_tensor wv;
    if (!lower_in_const(c, n, 1, &wv) || wv.dtype != W->dtype)
        return lx_unsupported(c, n, "weights are not constant");
    bool quant = lower_is_quantized(X);
    if (quant && (!lower_is_quantized(W) || !lower_is_quantized(Y)))
        return lx_unsupported(c, n, "input is quantized but the weights or output are not");
    int64_t wzp = 0;
    if (quant && !weight_zp(W, &wzp))
        return lx_unsupported(c, n, "per-channel weight zero points differ");
    tosac_dtype acc = !quant ? X->dtype : X->dtype == TOSAC_DT_I16 ? TOSAC_DT_I48 : TOSAC_DT_I32;
    int64_t oc = W->shape[0], ic = W->shape[1], kk = W->shape[2] * W->shape[3] * W->shape[4];
    size_t es = tosac_dtype_size(wv.dtype);
    char *wt = malloc((size_t)(oc * ic * kk > 0 ? oc * ic * kk : 1) * es);
    double *scales = malloc((size_t)(oc > 0 ? oc : 1) * sizeof *scales);
    if (!wt || !scales) {
        free(wt);
        free(scales);
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int64_t o = 0; o < oc; o++) /* [OC,IC,K...] -> [OC,K...,IC] */
        for (int64_t i = 0; i < ic; i++)
            for (int64_t k = 0; k < kk; k++)
                memcpy(wt + ((o * kk + k) * ic + i) * (int64_t)es,
                       (const char *)wv.data + ((o * ic + i) * kk + k) * (int64_t)es, es);
    for (int64_t o = 0; o < oc; o++)
        scales[o] = quant ? lower_qscale(X) * (double)W->quant->scale[W->quant->n > 1 ? o : 0]
                          : 1.0;
    int64_t ws[5] = {oc, W->shape[2], W->shape[3], W->shape[4], ic};
    int w = lower_const(c, "weight", wv.dtype, 5, ws, wt);
    free(wt);
    static const int32_t to_ndhwc[5] = {0, 2, 3, 4, 1}, to_ncdhw[5] = {0, 4, 1, 2, 3};
    int x = lower_transpose(c, lower_in(c, n, 0), to_ndhwc, -1);
    int b = lower_bias(c, n, n->n_inputs > 2 ? 2 : -1, acc, oc, scales, 1.0);
    int izp = lower_scalar(c, "input_zp", X->dtype, quant ? lower_qzp(X) : 0);
    int wz = lower_scalar(c, "weight_zp", W->dtype, wzp);
    int64_t ys[5] = {Y->shape[0], Y->shape[2], Y->shape[3], Y->shape[4], oc};
    int conv = lower_tmp(c, "conv3d", acc, 5, ys);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    memcpy(a.pad, pad, sizeof pad);
    a.n_pad = 6;
    memcpy(a.stride, st, sizeof st);
    a.n_stride = 3;
    memcpy(a.dilation, dl, sizeof dl);
    a.n_dilation = 3;
    a.acc_type = acc;
    int ins[5] = {x, w, b, izp, wz};
    int res = x < 0 || w < 0 || b < 0 || izp < 0 || wz < 0 || conv < 0 ||
                      lower_emit(c, TOSA_OP_CONV3D, &a, ins, 5, &conv, 1)
                  ? -1 : conv;
    if (res >= 0 && quant) {
        for (int64_t o = 0; o < oc; o++)
            scales[o] /= lower_qscale(Y);
        char name[300];
        snprintf(name, sizeof name, "%s_pre", Y->name);
        lower_rescale_args ra = {Y->dtype, scales, (int)oc, 0, lower_qzp(Y), -1, name};
        res = lower_rescale(c, conv, &ra);
    }
    free(scales);
    int out = res < 0 ? -1 : lower_out(c, n, 0);
    return out < 0 || lower_transpose(c, res, to_ncdhw, out) < 0 ? c->err->code : TOSAC_OK;
}

static tosac_code lower_conv(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *W = lower_in_ir(c, n, 1), *Y = lower_out_ir(c, n, 0);
    if (!X || !W || !Y)
        return lx_unsupported(c, n, "missing input or output");
    if (X->rank == 5)
        return lower_conv3d(c, n, X, W, Y);
    conv_geom g;
    memset(&g, 0, sizeof g);
    tosac_code rc = geometry(c, n, X, W, Y, &g);
    if (rc)
        return rc;
    tosac_tensor wv;
    if (!lower_in_const(c, n, 1, &wv) || wv.dtype != W->dtype)
        return lx_unsupported(c, n, "weights are not constant");
    bool quant = lower_is_quantized(X);
    tosac_dtype acc;
    if (!quant)
        acc = X->dtype == TOSAC_DT_F32 ? TOSAC_DT_F32 : X->dtype;
    else if (!lower_is_quantized(W) || !lower_is_quantized(Y))
        return lx_unsupported(c, n, "input is quantized but the weights or output are not");
    else
        acc = X->dtype == TOSAC_DT_I16 ? TOSAC_DT_I48 : TOSAC_DT_I32;
    int64_t wzp = 0;
    if (quant && !weight_zp(W, &wzp))
        return lx_unsupported(c, n, "per-channel weight zero points differ");

    int x = lower_in(c, n, 0);
    int64_t nchw[4] = {g.n, g.c, g.h, g.w};
    if (X->rank == 3) /* 1-D: [N,C,L] as [N,C,1,L] */
        x = lower_reshape(c, x, 4, nchw, -1);
    x = lower_transpose(c, x, lower_nchw_to_nhwc, -1);
    if (x >= 0 && (g.crop[0] || g.crop[1])) {
        int64_t start[4] = {0, 0, 0, 0}, size[4] = {g.n, g.h - g.crop[0], g.w - g.crop[1], g.c};
        int st = lower_const_shape(c, "slice_start", 4, start);
        int sz = lower_const_shape(c, "slice_size", 4, size);
        int cropped = lower_tmp(c, "conv_in", X->dtype, 4, size);
        int sin[3] = {x, st, sz};
        if (st < 0 || sz < 0 || cropped < 0 ||
            lower_emit(c, TOSA_OP_SLICE, NULL, sin, 3, &cropped, 1))
            return c->err->code;
        x = cropped;
    }
    /* per output channel: the accumulator's scale sx*sw[oc] (bias units; RESCALE by it / sy) */
    double *scales = malloc((size_t)(g.oc > 0 ? g.oc : 1) * sizeof *scales);
    int *parts = calloc((size_t)g.groups, sizeof *parts);
    if (!scales || !parts) {
        free(scales);
        free(parts);
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int64_t o = 0; o < g.oc; o++)
        scales[o] = quant ? lower_qscale(X) * (double)W->quant->scale[W->quant->n > 1 ? o : 0]
                          : 1.0;
    int b = x < 0 ? -1 : lower_bias(c, n, n->n_inputs > 2 ? 2 : -1, acc, g.oc, scales, 1.0);
    int res = b;
    for (int64_t k = 0; k < g.groups && res >= 0; k++) {
        int xg = g.groups > 1 ? slice_channels(c, x, k * (g.c / g.groups), g.c / g.groups) : x;
        res = parts[k] = conv_one(c, X, W, Y, &g, &wv, k, b, scales, acc, wzp, xg);
    }
    free(scales);
    if (res >= 0 && g.groups > 1) {
        const int64_t nhwc[4] = {g.n, g.oh, g.ow, g.oc};
        res = lower_concat_groups(c, "conv_groups", parts, (int)g.groups, nhwc);
    }
    free(parts);
    if (res < 0)
        return c->err->code;
    int out = lower_out(c, n, 0);
    if (out < 0)
        return c->err->code;
    if (Y->rank == 3) { /* back from [N,OC,1,OL] */
        res = lower_transpose(c, res, lower_nhwc_to_nchw, -1);
        return res < 0 || lower_reshape(c, res, 3, Y->shape, out) < 0 ? c->err->code : TOSAC_OK;
    }
    return lower_transpose(c, res, lower_nhwc_to_nchw, out) < 0 ? c->err->code : TOSAC_OK;
}

const lower_rule lower_rules_conv[] = {
    {IR_DOMAIN_ONNX, "Conv", lower_conv, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
