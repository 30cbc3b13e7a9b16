/* Pooling: MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool -> TRANSPOSE, MAX_POOL2D /
 * AVG_POOL2D, TRANSPOSE.
 *
 * TOSA needs exact window arithmetic, (IH + pads - K) % stride == 0, and pads smaller than the
 * kernel. The padding is derived from the output's static shape (which ONNX fixed from pads,
 * auto_pad and ceil_mode): the end padding grows for ceil_mode, and input rows no window
 * reads are sliced off. AVG_POOL2D divides by the number of input (non-pad) cells, which is
 * ONNX's count_include_pad=0; count_include_pad=1 pads explicitly with the zero value (PAD)
 * and pools without padding. Quantized pooling keeps the input's scale: AVG_POOL2D takes the
 * zero points, MAX_POOL2D compares raw values; a RESCALE follows when the output's
 * quantization differs. A quantized global average whose output scale differs from its input's
 * sums in int32 instead (REDUCE_SUM) and rescales once by sx / (H*W*sy): AVG_POOL2D would round
 * the mean to the input's (often much coarser) scale first. A 1-D pool [N,C,L] is the 2-D
 * one on [N,C,1,L] (RESHAPEs around it, unit window height). */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/lower_extra.h"
#include "onnxop/onnxop_window.h"

typedef struct pool_geom {
    int64_t k[2], s[2], pb[2], pe[2];
    int64_t keep[2];     /* input rows/cols windows read (a SLICE when < the input's) */
} pool_geom;

/* x, y: 4-D (a 1-D pool's [N,C,L] viewed as [N,C,1,L]); sp: the node's spatial rank */
static tosac_code geometry(lower_ctx *c, const ir_node *n, const ir_tensor *x,
                           const ir_tensor *y, bool global, int sp, pool_geom *g)
{
    int o = 2 - sp; /* a 1-D pool's attributes are the width's */
    int64_t in[2] = {x->shape[2], x->shape[3]}, out[2] = {y->shape[2], y->shape[3]};
    memset(g, 0, sizeof *g);
    for (int d = 0; d < 2; d++) {
        g->k[d] = global ? in[d] : 0;
        g->s[d] = 1;
    }
    if (!global) {
        /* the ONNX window (onnxop_window.c): kernel, strides and the pads in effect */
        onnx_window w;
        int64_t insp[2], osp[2], pb[2], pe[2];
        for (int d = 0; d < sp; d++)
            insp[d] = in[o + d];
        tosac_error le;
        tosac_error_clear(&le);
        if (onnx_window_parse(n, sp, &w, &le) ||
            onnx_window_forward(n, &w, insp, NULL, osp, pb, pe, &le))
            return lx_unsupported(c, n, "%s", le.msg);
        for (int d = 0; d < sp; d++)
            if (w.d[d] != 1)
                return lx_unsupported(c, n, "dilations other than 1");
        g->k[0] = 1;
        for (int d = 0; d < sp; d++) {
            g->k[o + d] = w.k[d];
            g->s[o + d] = w.s[d];
            g->pb[o + d] = pb[d];
            g->pe[o + d] = pe[d];
        }
    }
    for (int d = 0; d < 2; d++) {
        if (g->k[d] < 1 || g->s[d] < 1 || out[d] < 1)
            return lx_unsupported(c, n, "empty kernel, stride or output");
        /* the input extent the output's windows span, padding included */
        int64_t span = (out[d] - 1) * g->s[d] + g->k[d];
        int64_t end = span - g->pb[d] - in[d]; /* end padding needed; < 0: rows unread */
        g->keep[d] = end < 0 ? in[d] + end : in[d];
        g->pe[d] = end < 0 ? 0 : end;
        if (g->pb[d] >= g->k[d] || g->pe[d] >= g->k[d])
            return lx_unsupported(c, n, "padding as large as the kernel");
    }
    return TOSAC_OK;
}

static bool same_quant(const ir_tensor *a, const ir_tensor *b)
{
    return a->quant->n == 1 && b->quant->n == 1 && a->dtype == b->dtype &&
           a->quant->scale[0] == b->quant->scale[0] &&
           a->quant->zero_point[0] == b->quant->zero_point[0];
}

/* x (NHWC) trimmed to the rows and columns the windows read. */
static int trim(lower_ctx *c, int x, const pool_geom *g)
{
    const int64_t *s = lower_shape(c, x);
    if (g->keep[0] == s[1] && g->keep[1] == s[2])
        return x;
    int64_t start[4] = {0, 0, 0, 0}, size[4] = {s[0], g->keep[0], g->keep[1], s[3]};
    int st = lower_const_shape(c, "start", 4, start);
    int sz = lower_const_shape(c, "size", 4, size);
    int o = lower_tmp(c, "trim", lower_dtype(c, x), 4, size);
    int ins[3] = {x, st, sz};
    return st < 0 || sz < 0 || o < 0 || lower_emit(c, TOSA_OP_SLICE, NULL, ins, 3, &o, 1) ? -1 : o;
}

/* count_include_pad=1: the padding becomes real zero-valued cells (PAD). */
static int pad_explicit(lower_ctx *c, int x, pool_geom *g, int64_t zero)
{
    const int64_t *s = lower_shape(c, x);
    int64_t p[8] = {0, 0, g->pb[0], g->pe[0], g->pb[1], g->pe[1], 0, 0};
    int64_t shape[4] = {s[0], s[1] + g->pb[0] + g->pe[0], s[2] + g->pb[1] + g->pe[1], s[3]};
    int pads = lower_const_shape(c, "padding", 8, p);
    int pv = lower_scalar(c, "pad_const", lower_dtype(c, x), zero);
    int o = lower_tmp(c, "padded", lower_dtype(c, x), 4, shape);
    int ins[3] = {x, pads, pv};
    if (pads < 0 || pv < 0 || o < 0 || lower_emit(c, TOSA_OP_PAD, NULL, ins, 3, &o, 1))
        return -1;
    memset(g->pb, 0, sizeof g->pb);
    memset(g->pe, 0, sizeof g->pe);
    return o;
}

/* The NHWC result q into the node's output (NCHW; a 1-D pool's [N,C,L] by a RESHAPE). */
static tosac_code finish(lower_ctx *c, const ir_node *n, int q)
{
    const ir_tensor *y = lower_out_ir(c, n, 0);
    int out = q < 0 ? -1 : lower_out(c, n, 0);
    if (out >= 0 && y->rank == 3) {
        int t = lower_transpose(c, q, lower_nhwc_to_nchw, -1);
        return t < 0 || lower_reshape(c, t, 3, y->shape, out) < 0 ? c->err->code : TOSAC_OK;
    }
    return out < 0 || lower_transpose(c, q, lower_nhwc_to_nchw, out) < 0 ? c->err->code
                                                                          : TOSAC_OK;
}

/* Quantized global average: RESCALE to i32 (zero point removed), REDUCE_SUM over H and W in
 * NCHW, one RESCALE to the output. */
static tosac_code global_avg_sum(lower_ctx *c, const ir_node *n, const ir_tensor *x,
                                 const ir_tensor *y)
{
    int64_t count = x->shape[2] * x->shape[3];
    if (count > (x->dtype == TOSAC_DT_I8 ? (1 << 23) : (1 << 15)))
        return lx_unsupported(c, n, "too many values to sum in int32");
    double one = 1.0;
    lower_rescale_args ri = {TOSAC_DT_I32, &one, 1, lower_qzp(x), 0, -1, "widened"};
    int t = lower_rescale(c, lower_in(c, n, 0), &ri);
    for (int axis = 2; axis < 4 && t >= 0; axis++) {
        int64_t shape[4];
        memcpy(shape, lower_shape(c, t), sizeof shape);
        shape[axis] = 1;
        int o = lower_tmp(c, "sum", TOSAC_DT_I32, 4, shape);
        tosa_attr a;
        memset(&a, 0, sizeof a);
        a.axis = axis;
        t = o < 0 || lower_emit(c, TOSA_OP_REDUCE_SUM, &a, &t, 1, &o, 1) ? -1 : o;
    }
    double s = lower_qscale(x) / ((double)count * lower_qscale(y));
    int out = t < 0 ? -1 : lower_out(c, n, 0);
    lower_rescale_args ro = {y->dtype, &s, 1, 0, lower_qzp(y), out, NULL};
    return out < 0 || lower_rescale(c, t, &ro) < 0 ? c->err->code : TOSAC_OK;
}

/* Per-position multipliers round(2^30 / count) of the windows of an exclude-pad average
 * ([1, OH, OW, 1]): count is the window's number of input cells (padding not counted). */
static int reciprocal_counts(lower_ctx *c, const pool_geom *g, int64_t ih, int64_t iw,
                             int64_t oh, int64_t ow)
{
    int32_t *m = malloc((size_t)(oh * ow) * sizeof *m);
    if (!m) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < ow; x++) {
            int64_t y0 = y * g->s[0] - g->pb[0], x0 = x * g->s[1] - g->pb[1];
            int64_t y1 = y0 + g->k[0] > ih ? ih : y0 + g->k[0];
            int64_t x1 = x0 + g->k[1] > iw ? iw : x0 + g->k[1];
            int64_t cnt = (y1 - (y0 < 0 ? 0 : y0)) * (x1 - (x0 < 0 ? 0 : x0));
            m[y * ow + x] = (int32_t)(((int64_t)1 << 30) / cnt +
                                      (((int64_t)1 << 30) % cnt * 2 >= cnt));
        }
    int64_t shape[4] = {1, oh, ow, 1};
    int k = lower_const(c, "recip_count", TOSAC_DT_I32, 4, shape, m);
    free(m);
    return k;
}

/* Quantized average whose output quantization differs from its input's: the window sums in
 * int32 (DEPTHWISE_CONV2D with ones; padding contributes 0 after the zero point, as ONNX's
 * excluded or zero-valued cells do), then one rounding to the output: a RESCALE by
 * sx / (count * sy) when every window counts the same, else a MUL by round(2^30 / count) per
 * position (the mean with F fraction bits) and a RESCALE by sx / (2^F * sy). AVG_POOL2D would
 * round the mean to the input's scale first, and a pooled mean's scale is often many times
 * finer than its input's: half an input step is then several output steps. t is the trimmed
 * NHWC input; include_pad says the padding cells count. */
static tosac_code avg_sum(lower_ctx *c, const ir_node *n, const ir_tensor *x, const ir_tensor *y,
                          int t, const pool_geom *g, bool include_pad)
{
    bool i16 = x->dtype == TOSAC_DT_I16;
    int bits = i16 ? 16 : 8; /* |q - zp| < 2^bits */
    int64_t ih = lower_shape(c, t)[1], iw = lower_shape(c, t)[2], ch = lower_shape(c, t)[3];
    int64_t oh = y->shape[2], ow = y->shape[3], kk = g->k[0] * g->k[1];
    if (kk >= ((int64_t)1 << (31 - bits)))
        return lx_unsupported(c, n, "too many values to sum in int32");
    bool padded = g->pb[0] || g->pb[1] || g->pe[0] || g->pe[1];
    bool uniform = include_pad || !padded;
    tosac_dtype acc = i16 ? TOSAC_DT_I48 : TOSAC_DT_I32;
    int8_t *ones = malloc((size_t)(kk * ch));
    void *zeros = calloc((size_t)ch, tosac_dtype_size(acc));
    if (!ones || !zeros) {
        free(ones);
        free(zeros);
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    memset(ones, 1, (size_t)(kk * ch));
    int64_t wshape[4] = {g->k[0], g->k[1], ch, 1};
    int w = lower_const(c, "ones", TOSAC_DT_I8, 4, wshape, ones);
    int b = lower_const(c, "zero_bias", acc, 1, &ch, zeros);
    free(ones);
    free(zeros);
    int izp = lower_scalar(c, "input_zp", x->dtype, lower_qzp(x));
    int wzp = lower_scalar(c, "weight_zp", TOSAC_DT_I8, 0);
    int64_t nhwc[4] = {y->shape[0], oh, ow, y->shape[1]};
    int sum = lower_tmp(c, "window_sum", acc, 4, nhwc);
    if (w < 0 || b < 0 || izp < 0 || wzp < 0 || sum < 0)
        return c->err->code;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.pad[0] = (int32_t)g->pb[0]; a.pad[1] = (int32_t)g->pe[0];
    a.pad[2] = (int32_t)g->pb[1]; a.pad[3] = (int32_t)g->pe[1];
    a.n_pad = 4;
    a.stride[0] = (int32_t)g->s[0]; a.stride[1] = (int32_t)g->s[1]; a.n_stride = 2;
    a.dilation[0] = a.dilation[1] = 1; a.n_dilation = 2;
    a.acc_type = acc;
    int ins[5] = {t, w, b, izp, wzp};
    if (lower_emit(c, TOSA_OP_DEPTHWISE_CONV2D, &a, ins, 5, &sum, 1))
        return c->err->code;
    double s = lower_qscale(x) / (kk * lower_qscale(y));
    if (!uniform) {
        if (i16) { /* MUL takes i32 */
            double one = 1.0;
            lower_rescale_args rw = {TOSAC_DT_I32, &one, 1, 0, 0, -1, "window_sum32"};
            if ((sum = lower_rescale(c, sum, &rw)) < 0)
                return c->err->code;
        }
        int frac = 30 - bits;
        int m = reciprocal_counts(c, g, ih, iw, oh, ow);
        int sh = lower_scalar(c, "shift", TOSAC_DT_I8, 30 - frac);
        int mean = lower_tmp(c, "window_mean", TOSAC_DT_I32, 4, nhwc);
        int mins[3] = {sum, m, sh};
        if (m < 0 || sh < 0 || mean < 0 || lower_emit(c, TOSA_OP_MUL, NULL, mins, 3, &mean, 1))
            return c->err->code;
        sum = mean;
        s = lower_qscale(x) / (ldexp(1.0, frac) * lower_qscale(y));
    }
    char yname[300];
    snprintf(yname, sizeof yname, "%s_pre", y->name);
    lower_rescale_args ro = {y->dtype, &s, 1, 0, lower_qzp(y), -1, yname};
    return finish(c, n, lower_rescale(c, sum, &ro));
}

static tosac_code lower_pool(lower_ctx *c, const ir_node *n, bool avg, bool global)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y || x->rank != y->rank || (x->rank != 4 && (global || x->rank != 3)))
        return lx_unsupported(c, n, "only 1-D and 2-D pooling (NCHW) is lowered");
    int sp = x->rank - 2;
    ir_tensor xv, yv; /* 1-D: [N,C,L] viewed as [N,C,1,L] */
    if (sp == 1) {
        xv = *x;
        yv = *y;
        xv.rank = yv.rank = 4;
        xv.shape[3] = x->shape[2];
        yv.shape[3] = y->shape[2];
        xv.shape[2] = yv.shape[2] = 1;
        x = &xv;
        y = &yv;
    }
    if (n->n_outputs > 1 && n->outputs[1] >= 0)
        return lx_unsupported(c, n, "the Indices output");
    bool quant = lower_is_quantized(x);
    if (quant != lower_is_quantized(y))
        return lx_unsupported(c, n, "input and output are not both quantized");
    if (quant && (x->dtype != TOSAC_DT_I8 && x->dtype != TOSAC_DT_I16))
        return lx_unsupported(c, n, "quantized type is not int8/int16");
    if (quant && (x->quant->n != 1 || y->quant->n != 1))
        return lx_unsupported(c, n, "quantized per axis");
    if (avg && global && quant && !same_quant(x, y))
        return global_avg_sum(c, n, x, y);
    pool_geom g;
    tosac_code rc = geometry(c, n, x, y, global, sp, &g);
    if (rc)
        return rc;
    int64_t zp = quant ? lower_qzp(x) : 0;
    bool include_pad = avg && !global && ir_node_attr_int(n, "count_include_pad", 0) != 0;
    if (include_pad && !global) {
        int cnt;
        const int64_t *pads = ir_node_attr_ints(n, "pads", &cnt);
        /* ceil_mode overhang beyond the declared pads is not counted by ONNX either */
        for (int d = 0; pads && cnt == 2 * sp && d < sp; d++)
            if (g.pe[2 - sp + d] > pads[d + sp])
                return lx_unsupported(c, n, "count_include_pad with ceil_mode overhang");
    }
    int t = lower_in(c, n, 0);
    if (sp == 1)
        t = lower_reshape(c, t, 4, x->shape, -1);
    t = lower_transpose(c, t, lower_nchw_to_nhwc, -1);
    if (t >= 0)
        t = trim(c, t, &g);
    bool padded = g.pb[0] || g.pb[1] || g.pe[0] || g.pe[1];
    /* Ethos-U55 fuses no RESCALE after the per-position MUL: its own AVG_POOL2D there */
    bool u55_keep = tosa_spec_is_u55_subset(c->spec) && padded && !include_pad;
    if (t >= 0 && avg && quant && !same_quant(x, y) && !u55_keep)
        return avg_sum(c, n, x, y, t, &g, include_pad);
    if (t >= 0 && include_pad && padded)
        t = pad_explicit(c, t, &g, zp);
    if (t < 0)
        return c->err->code;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.kernel[0] = (int32_t)g.k[0];
    a.kernel[1] = (int32_t)g.k[1];
    a.n_kernel = 2;
    a.stride[0] = (int32_t)g.s[0];
    a.stride[1] = (int32_t)g.s[1];
    a.n_stride = 2;
    a.pad[0] = (int32_t)g.pb[0]; a.pad[1] = (int32_t)g.pe[0];
    a.pad[2] = (int32_t)g.pb[1]; a.pad[3] = (int32_t)g.pe[1];
    a.n_pad = 4;
    int64_t nhwc[4] = {y->shape[0], y->shape[2], y->shape[3], y->shape[1]};
    /* the value of y, channels last, is named after it (as conv's): tosac run
     * --dump-intermediates maps it back */
    bool rescale = quant && !same_quant(x, y);
    char yname[300];
    snprintf(yname, sizeof yname, "%s_pre", y->name);
    int pooled = lower_tmp(c, rescale ? "pool" : yname, x->dtype, 4, nhwc);
    if (pooled < 0)
        return c->err->code;
    if (avg) {
        a.acc_type = x->dtype == TOSAC_DT_F32 || !tosac_dtype_is_int(x->dtype) ? x->dtype
                                                                             : TOSAC_DT_I32;
        int izp = lower_scalar(c, "input_zp", x->dtype, zp);
        int ozp = lower_scalar(c, "output_zp", x->dtype, zp);
        int ins[3] = {t, izp, ozp};
        if (izp < 0 || ozp < 0 || lower_emit(c, TOSA_OP_AVG_POOL2D, &a, ins, 3, &pooled, 1))
            return c->err->code;
    } else {
        a.nan_mode = TOSA_NAN_PROPAGATE; /* ONNX max propagates NaN */
        if (lower_emit(c, TOSA_OP_MAX_POOL2D, &a, &t, 1, &pooled, 1))
            return c->err->code;
    }
    if (rescale) {
        double s = lower_qscale(x) / lower_qscale(y);
        lower_rescale_args ra = {y->dtype, &s, 1, zp, lower_qzp(y), -1, yname};
        pooled = lower_rescale(c, pooled, &ra);
    }
    return finish(c, n, pooled);
}

static tosac_code lower_maxpool(lower_ctx *c, const ir_node *n)
{
    return lower_pool(c, n, false, false);
}
static tosac_code lower_avgpool(lower_ctx *c, const ir_node *n)
{
    return lower_pool(c, n, true, false);
}
static tosac_code lower_gmaxpool(lower_ctx *c, const ir_node *n)
{
    return lower_pool(c, n, false, true);
}
static tosac_code lower_gavgpool(lower_ctx *c, const ir_node *n)
{
    return lower_pool(c, n, true, true);
}

const lower_rule lower_rules_pool[] = {
    {IR_DOMAIN_ONNX, "MaxPool", lower_maxpool, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "AveragePool", lower_avgpool, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "GlobalMaxPool", lower_gmaxpool, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "GlobalAveragePool", lower_gavgpool, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
