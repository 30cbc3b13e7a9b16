/* Pad (mode "constant") -> PAD with a padding shape and a pad_const operand.
 *
 * ONNX lists pads as [begin of each axis..., end of each axis...] for the axes given (all,
 * or the "axes" input of opset 18); TOSA wants [before, after] per dimension. The pad value
 * comes from the constant_value input (opset 11+; a quantized one read as its real value) or
 * the "value" attribute; for quantized
 * data it is quantized with the input's scale and zero point (0.0 -> the zero point), so the
 * padded integers mean the same real value. Negative pads (cropping) and the reflect / edge
 * / wrap modes have no PAD form and are refused.
 *
 * CenterCropPad -> SLICE of the cropped axes, then PAD of the padded ones with zero (the zero
 * point for quantized data, whose output shares the input's parameters), by onnxop_crop.c's
 * geometry; neither: IDENTITY. */
#include <math.h>
#include <string.h>

#include "lower/lower_extra.h"
#include "onnxop/onnxop_crop.h"

static tosac_code read_pads(lower_ctx *c, const ir_node *n, int rank, int64_t *padding)
{
    int64_t raw[2 * TOSAC_MAX_RANK];
    int cnt = 0;
    int n_attr = 0;
    const int64_t *attr = ir_node_attr_ints(n, "pads", &n_attr);
    if (attr) {
        if (n_attr > 2 * TOSAC_MAX_RANK)
            return lx_unsupported(c, n, "%d pads", n_attr);
        memcpy(raw, attr, (size_t)n_attr * sizeof *raw);
        cnt = n_attr;
    } else if (!lx_const_ints(c, n, 1, raw, 2 * TOSAC_MAX_RANK, &cnt)) {
        return lx_unsupported(c, n, "pads must be a constant integer tensor");
    }
    int axes[TOSAC_MAX_RANK], n_axes = rank;
    for (int d = 0; d < rank; d++)
        axes[d] = d;
    if (n->n_inputs >= 4 && n->inputs[3] >= 0) {
        int64_t a[TOSAC_MAX_RANK];
        if (!lx_const_ints(c, n, 3, a, TOSAC_MAX_RANK, &n_axes))
            return lx_unsupported(c, n, "axes must be a constant integer tensor");
        for (int i = 0; i < n_axes; i++)
            if ((axes[i] = lx_axis(a[i], rank)) < 0)
                return lx_unsupported(c, n, "axis %lld out of range", (long long)a[i]);
    }
    if (cnt != 2 * n_axes)
        return lx_unsupported(c, n, "%d pads for %d axes", cnt, n_axes);
    memset(padding, 0, 2 * (size_t)rank * sizeof *padding);
    for (int i = 0; i < n_axes; i++) {
        if (raw[i] < 0 || raw[n_axes + i] < 0)
            return lx_unsupported(c, n, "negative pads (cropping)");
        padding[2 * axes[i]] = raw[i];
        padding[2 * axes[i] + 1] = raw[n_axes + i];
    }
    return TOSAC_OK;
}

/* The pad value as a real number: input 2 (a constant scalar) or the "value" attribute. */
static tosac_code read_value(lower_ctx *c, const ir_node *n, double *v)
{
    *v = ir_node_attr_float(n, "value", 0.0f);
    if (n->n_inputs < 3 || n->inputs[2] < 0)
        return TOSAC_OK;
    tosac_tensor t;
    if (!lower_in_const(c, n, 2, &t) || tosac_tensor_numel(&t) != 1)
        return lx_unsupported(c, n, "constant_value must be a constant scalar");
    int64_t iv;
    int cnt;
    switch (t.dtype) {
    case TOSAC_DT_F32: *v = *(const float *)t.data; return TOSAC_OK;
    case TOSAC_DT_F64: *v = *(const double *)t.data; return TOSAC_OK;
    case TOSAC_DT_BOOL: *v = *(const uint8_t *)t.data; return TOSAC_OK;
    default:
        if (!lx_const_ints(c, n, 2, &iv, 1, &cnt))
            return lx_unsupported(c, n, "constant_value of type %s", tosac_dtype_name(t.dtype));
        /* a quantized value (a folded DequantizeLinear, as tosac's quantizer writes it) is
         * the real number it stands for */
        const ir_tensor *vt = lower_in_ir(c, n, 2);
        *v = lower_is_quantized(vt) ? (double)(iv - lower_qzp(vt)) * lower_qscale(vt)
                                    : (double)iv;
        return TOSAC_OK;
    }
}

static tosac_code lower_pad(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    const char *mode = ir_node_attr_string(n, "mode", "constant");
    if (strcmp(mode, "constant") != 0)
        return lx_unsupported(c, n, "mode '%s' (only constant)", mode);
    int64_t padding[2 * TOSAC_MAX_RANK];
    double v;
    tosac_code rc;
    if ((rc = read_pads(c, n, x->rank, padding)) || (rc = read_value(c, n, &v)))
        return rc;
    bool quant = lower_is_quantized(x);
    if (quant) {
        if ((rc = lx_check_quant(c, n, x)))
            return rc;
        double lo = -ldexp(1.0, tosac_dtype_bits(x->dtype) - 1), hi = -lo - 1;
        v = fmin(hi, fmax(lo, nearbyint(v / lower_qscale(x)) + (double)lower_qzp(x)));
    } else if (tosac_dtype_is_int(x->dtype) && v != nearbyint(v)) {
        return lx_unsupported(c, n, "pad value %g for %s data", v, tosac_dtype_name(x->dtype));
    }
    int in = lower_in(c, n, 0);
    int pads = lower_const_shape(c, "padding", 2 * x->rank, padding);
    int pc = lx_fill(c, "pad_const", x->dtype, 1, v);
    bool rescale = quant && lower_is_quantized(y) && !lx_same_quant(x, y);
    int out = rescale ? lower_tmp(c, "pad", x->dtype, y->rank, y->shape) : lower_out(c, n, 0);
    int ins[3] = {in, pads, pc};
    if (in < 0 || pads < 0 || pc < 0 || out < 0 || lower_emit(c, TOSA_OP_PAD, NULL, ins, 3, &out, 1))
        return lx_code(c);
    if (rescale && ((rc = lx_check_quant(c, n, y)) ||
                    lx_rescale(c, out, lower_qscale(x) / lower_qscale(y), lower_qzp(x),
                               lower_qzp(y), y->dtype, lower_out(c, n, 0)) < 0))
        return lx_code(c);
    return TOSAC_OK;
}

static tosac_code lower_center_crop_pad(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    int64_t target[TOSAC_MAX_RANK];
    int nt = 0;
    if (!x || !y || !lx_const_ints(c, n, 1, target, TOSAC_MAX_RANK, &nt))
        return lx_unsupported(c, n, "needs an input, a constant shape and an output");
    onnxop_crop_pad cp;
    tosac_code rc = onnxop_center_crop_pad(n, x->rank, x->shape, target, nt, &cp, c->err);
    if (rc)
        return rc;
    bool quant = lower_is_quantized(x);
    if (quant != lower_is_quantized(y) || (quant && !lx_same_quant(x, y)))
        return lx_unsupported(c, n, "input and output quantization differ");
    if (quant && (rc = lx_check_quant(c, n, x)))
        return rc;
    int r = x->rank;
    int64_t start[TOSAC_MAX_RANK], size[TOSAC_MAX_RANK], padding[2 * TOSAC_MAX_RANK];
    bool crop = false, pad = false;
    for (int d = 0; d < r; d++) {
        start[d] = cp.start[d] > 0 ? cp.start[d] : 0;
        size[d] = cp.out[d] < x->shape[d] ? cp.out[d] : x->shape[d];
        padding[2 * d] = cp.start[d] < 0 ? -cp.start[d] : 0;
        padding[2 * d + 1] = cp.out[d] - size[d] - padding[2 * d];
        crop |= size[d] != x->shape[d];
        pad |= size[d] != cp.out[d];
    }
    int t = lower_in(c, n, 0);
    if (crop) {
        int st = lower_const_shape(c, "crop_start", r, start);
        int sz = lower_const_shape(c, "crop_size", r, size);
        int out = pad ? lower_tmp(c, "crop", x->dtype, r, size) : lower_out(c, n, 0);
        int ins[3] = {t, st, sz};
        if (t < 0 || st < 0 || sz < 0 || out < 0 ||
            lower_emit(c, TOSA_OP_SLICE, NULL, ins, 3, &out, 1))
            return lx_code(c);
        t = out;
    }
    if (pad) {
        int pads = lower_const_shape(c, "padding", 2 * r, padding);
        int pc = lx_fill(c, "pad_const", x->dtype, 1, quant ? (double)lower_qzp(x) : 0.0);
        int out = lower_out(c, n, 0);
        int ins[3] = {t, pads, pc};
        if (t < 0 || pads < 0 || pc < 0 || out < 0 ||
            lower_emit(c, TOSA_OP_PAD, NULL, ins, 3, &out, 1))
            return lx_code(c);
    }
    if (!crop && !pad)
        return lx_identity(c, t, lower_out(c, n, 0)) < 0 ? lx_code(c) : TOSAC_OK;
    return TOSAC_OK;
}

const lower_rule lower_rules_pad[] = {
    {IR_DOMAIN_ONNX, "Pad", lower_pad, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "CenterCropPad", lower_center_crop_pad, LOWER_PRE_STATIC, LOWER_CONST_IN1},
    {NULL, NULL, NULL, 0, 0},
};
