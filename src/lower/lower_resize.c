/* Resize (opset 10+) and Upsample -> RESIZE in NHWC, between TRANSPOSEs.
 *
 * RESIZE samples input position (o * D + O) / N along each axis (scale N/D, offset O) and
 * its output size satisfies (in - 1) * N - O + border = (out - 1) * D. The ONNX coordinate
 * transformations map exactly when the scale is a small rational n/d:
 *   asymmetric          x_in = x_out * d/n                  -> N = n,  D = d,  O = 0
 *   half_pixel          x_in = (x_out + 1/2) * d/n - 1/2    -> N = 2n, D = 2d, O = d - n
 *   pytorch_half_pixel  the same when out > 1
 *   align_corners       x_in = x_out * (in-1)/(out-1)        -> N = out-1, D = in-1, O = 0
 * RESIZE's NEAREST rounds half up (ONNX round_prefer_ceil); the other nearest modes shift
 * the sampling position in doubled units: floor O' = 2O - N, round_prefer_floor 2O - 1,
 * ceil 2O + N - 2 (all with N, D doubled). Linear is BILINEAR (RESIZE clamps at the edges
 * as ONNX's linear does). Cubic, tf_crop_and_resize, half_pixel_symmetric, antialias,
 * aspect-ratio policies and scales that are no small rational are refused.
 * Integer BILINEAR results carry N_y * N_x times the input scale (i8 -> i32, i16 -> i48):
 * the input zero point is removed with an ADD (int8) and one RESCALE brings the result to
 * the output's quantization. Opset-10 Resize and Upsample are asymmetric with floor. */
#include <math.h>
#include <string.h>

#include "lower/lower_extra.h"

typedef struct axis_map {
    int64_t n, d, offset, border;
} axis_map;

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* scale -> n/d with d <= 1024; false if no such fraction matches the float. */
static bool small_rational(double s, int64_t *n, int64_t *d)
{
    if (!(s > 0.0) || !isfinite(s) || s > 2048.0)
        return false;
    for (int64_t den = 1; den <= 1024; den++) {
        double num = nearbyint(s * (double)den);
        if (num >= 1 && (float)(num / (double)den) == (float)s) {
            *n = (int64_t)num;
            *d = den;
            return true;
        }
    }
    return false;
}

typedef struct resize_opts {
    bool linear;
    const char *coord, *nearest;
} resize_opts;

static tosac_code map_axis(lower_ctx *c, const ir_node *n, const resize_opts *o, double scale,
                           int64_t in, int64_t out, axis_map *m)
{
    int64_t sn, sd;
    if (strcmp(o->coord, "align_corners") == 0) {
        if (in < 2 || out < 2)
            return lx_unsupported(c, n, "align_corners with a size-1 axis");
        sn = out - 1;
        sd = in - 1;
    } else if (!small_rational(scale, &sn, &sd)) {
        return lx_unsupported(c, n, "scale %g is not a ratio of small integers", scale);
    }
    int64_t g = gcd64(sn, sd);
    m->n = sn / g;
    m->d = sd / g;
    m->offset = 0;
    if (strcmp(o->coord, "half_pixel") == 0 || strcmp(o->coord, "pytorch_half_pixel") == 0) {
        if (strcmp(o->coord, "pytorch_half_pixel") == 0 && out < 2)
            return lx_unsupported(c, n, "pytorch_half_pixel with output size 1");
        m->offset = m->d - m->n;
        m->n *= 2;
        m->d *= 2;
    } else if (strcmp(o->coord, "asymmetric") != 0 && strcmp(o->coord, "align_corners") != 0) {
        return lx_unsupported(c, n, "coordinate_transformation_mode '%s'", o->coord);
    }
    if (!o->linear && strcmp(o->nearest, "round_prefer_ceil") != 0) {
        int64_t shift;
        if (strcmp(o->nearest, "floor") == 0)
            shift = -m->n;
        else if (strcmp(o->nearest, "round_prefer_floor") == 0)
            shift = -1;
        else if (strcmp(o->nearest, "ceil") == 0)
            shift = m->n - 2;
        else
            return lx_unsupported(c, n, "nearest_mode '%s'", o->nearest);
        m->offset = 2 * m->offset + shift;
        m->n *= 2;
        m->d *= 2;
    }
    m->border = (out - 1) * m->d - (in - 1) * m->n + m->offset;
    if (m->n > 2048 || m->d >= 16 * m->n || m->offset < -m->n || m->offset >= 16 * m->n ||
        m->border < -16 * m->n || m->border >= m->n)
        return lx_unsupported(c, n, "scale %lld/%lld offset %lld border %lld outside RESIZE's "
                              "limits", (long long)m->n, (long long)m->d, (long long)m->offset,
                              (long long)m->border);
    return TOSAC_OK;
}

/* Float scales of the 4 axes: from a constant input, an attribute, or sizes / input dims. */
static tosac_code read_scales(lower_ctx *c, const ir_node *n, int slot, const ir_tensor *x,
                              const ir_tensor *y, double *scales)
{
    int cnt = 0;
    const ir_attr *a = ir_node_attr(n, "scales");
    tosac_tensor t;
    if (a && a->kind == IR_ATTR_FLOATS) {
        cnt = a->n;
        for (int i = 0; i < cnt && i < 4; i++)
            scales[i] = a->floats[i];
    } else if (slot >= 0 && slot < n->n_inputs && n->inputs[slot] >= 0) {
        if (!lower_in_const(c, n, slot, &t) || t.dtype != TOSAC_DT_F32)
            return lx_unsupported(c, n, "scales must be a constant float tensor");
        cnt = (int)tosac_tensor_numel(&t);
        for (int i = 0; i < cnt && i < 4; i++)
            scales[i] = ((const float *)t.data)[i];
    }
    if (cnt == 0) { /* sizes given (or empty scales): ONNX then uses out / in */
        for (int i = 0; i < 4; i++)
            scales[i] = (double)y->shape[i] / (double)x->shape[i];
        return TOSAC_OK;
    }
    if (cnt != 4)
        return lx_unsupported(c, n, "%d scales for a rank-4 input", cnt);
    return TOSAC_OK;
}

static tosac_code check_attrs(lower_ctx *c, const ir_node *n)
{
    if (ir_node_attr_int(n, "antialias", 0))
        return lx_unsupported(c, n, "antialias");
    if (ir_node_attr(n, "axes"))
        return lx_unsupported(c, n, "the axes attribute");
    const char *policy = ir_node_attr_string(n, "keep_aspect_ratio_policy", "stretch");
    if (strcmp(policy, "stretch") != 0)
        return lx_unsupported(c, n, "keep_aspect_ratio_policy '%s'", policy);
    return TOSAC_OK;
}

/* The RESIZE result (NHWC) brought to the output's quantization. factor is 0 for NEAREST
 * (same integers as the input), else the BILINEAR weight scale N_y * N_x of an i32/i48
 * result, whose RESCALE must have input zero point 0. */
static int requantize(lower_ctx *c, const ir_node *n, int r, const ir_tensor *x,
                      const ir_tensor *y, int64_t factor)
{
    if (r < 0 || !lower_is_quantized(x))
        return r;
    if (lx_check_quant(c, n, x) || lx_check_quant(c, n, y))
        return -1;
    int64_t zp = lower_qzp(x);
    if (factor == 0)
        return lx_same_quant(x, y) ? r : lx_rescale(c, r, lower_qscale(x) / lower_qscale(y), zp,
                                                    lower_qzp(y), y->dtype, -1);
    if (zp != 0) {
        if (lower_dtype(c, r) != TOSAC_DT_I32) {
            lx_unsupported(c, n, "int16 bilinear with a nonzero input zero point");
            return -1;
        }
        r = lx_binary(c, TOSA_OP_ADD, r, lx_fill(c, "minus_zp", TOSAC_DT_I32, 4,
                                                 -(double)zp * (double)factor),
                      TOSAC_DT_UNKNOWN, -1);
    }
    double scale = lower_qscale(x) / (lower_qscale(y) * (double)factor);
    return lx_rescale(c, r, scale, 0, lower_qzp(y), y->dtype, -1);
}

static tosac_code lower_resize_common(lower_ctx *c, const ir_node *n, int scales_slot,
                                      const resize_opts *o)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y || x->rank != 4 || y->rank != 4)
        return lx_unsupported(c, n, "needs rank-4 NCHW input and output");
    double s[4];
    tosac_code rc;
    if ((rc = check_attrs(c, n)) || (rc = read_scales(c, n, scales_slot, x, y, s)))
        return rc;
    if (s[0] != 1.0 || s[1] != 1.0 || y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1])
        return lx_unsupported(c, n, "resizing the batch or channel axis");
    axis_map my, mx;
    if ((rc = map_axis(c, n, o, s[2], x->shape[2], y->shape[2], &my)) ||
        (rc = map_axis(c, n, o, s[3], x->shape[3], y->shape[3], &mx)))
        return rc;
    bool quant = lower_is_quantized(x);
    tosac_dtype rdt = x->dtype;
    int64_t factor = 0;
    if (o->linear && !tosac_dtype_is_float(x->dtype)) {
        if (!quant)
            return lx_unsupported(c, n, "linear resize of unquantized %s",
                                  tosac_dtype_name(x->dtype));
        rdt = x->dtype == TOSAC_DT_I16 ? TOSAC_DT_I48 : TOSAC_DT_I32;
        factor = my.n * mx.n;
    }
    const int64_t scale[4] = {my.n, my.d, mx.n, mx.d}, offset[2] = {my.offset, mx.offset},
                  border[2] = {my.border, mx.border};
    int t = lower_transpose(c, lower_in(c, n, 0), lower_nchw_to_nhwc, -1);
    int sc = lower_const_shape(c, "scale", 4, scale);
    int of = lower_const_shape(c, "offset", 2, offset);
    int bo = lower_const_shape(c, "border", 2, border);
    const int64_t oshape[4] = {y->shape[0], y->shape[2], y->shape[3], y->shape[1]};
    int r = lower_tmp(c, "resize", rdt, 4, oshape);
    if (t < 0 || sc < 0 || of < 0 || bo < 0 || r < 0)
        return lx_code(c);
    tosa_attr at;
    memset(&at, 0, sizeof at);
    at.mode = o->linear ? TOSA_RESIZE_BILINEAR : TOSA_RESIZE_NEAREST;
    int ins[4] = {t, sc, of, bo};
    if (lower_emit(c, TOSA_OP_RESIZE, &at, ins, 4, &r, 1))
        return lx_code(c);
    r = requantize(c, n, r, x, y, factor);
    int out = r < 0 ? -1 : lower_out(c, n, 0);
    return out < 0 || lower_transpose(c, r, lower_nhwc_to_nchw, out) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code parse_mode(lower_ctx *c, const ir_node *n, resize_opts *o)
{
    const char *mode = ir_node_attr_string(n, "mode", "nearest");
    if (strcmp(mode, "nearest") == 0)
        o->linear = false;
    else if (strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0)
        o->linear = true;
    else
        return lx_unsupported(c, n, "mode '%s'", mode);
    return TOSAC_OK;
}

static tosac_code lower_resize(lower_ctx *c, const ir_node *n)
{
    resize_opts o;
    tosac_code rc = parse_mode(c, n, &o);
    if (rc)
        return rc;
    if (n->n_inputs == 2) { /* opset 10: (X, scales), asymmetric and floor */
        o.coord = "asymmetric";
        o.nearest = "floor";
        return lower_resize_common(c, n, 1, &o);
    }
    o.coord = ir_node_attr_string(n, "coordinate_transformation_mode", "half_pixel");
    o.nearest = ir_node_attr_string(n, "nearest_mode", "round_prefer_floor");
    return lower_resize_common(c, n, 2, &o);
}

static tosac_code lower_upsample(lower_ctx *c, const ir_node *n)
{
    resize_opts o;
    tosac_code rc = parse_mode(c, n, &o);
    if (rc)
        return rc;
    o.coord = "asymmetric";
    o.nearest = "floor";
    return lower_resize_common(c, n, 1, &o);
}

const lower_rule lower_rules_resize[] = {
    {IR_DOMAIN_ONNX, "Resize", lower_resize, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Upsample", lower_upsample, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
