/* Operator group: image (RESIZE).
 *
 * Output pixel (oy, ox) samples input position y = oy * scale_y_d + offset_y in units of
 * 1/scale_y_n of an input pixel (likewise x). Integer BILINEAR keeps the weights in those
 * units, so its result is scaled by scale_y_n * scale_x_n (i8 -> i32, i16 -> i48);
 * floating point uses fractions in [0, 1). NEAREST rounds the fraction half up. */
#include "interp/interp_nn_util.h"

/* floor(a / b) for b > 0. */
static int64_t idiv_floor(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static bool resize_types_ok(tosac_dtype in, tosac_dtype out, uint32_t mode)
{
    bool bilinear = mode == TOSA_RESIZE_BILINEAR;
    switch (in) {
    case TOSAC_DT_I8: return out == (bilinear ? TOSAC_DT_I32 : TOSAC_DT_I8);
    case TOSAC_DT_I16: return out == (bilinear ? TOSAC_DT_I48 : TOSAC_DT_I16);
    case TOSAC_DT_F16:
    case TOSAC_DT_BF16:
    case TOSAC_DT_F32:
    case TOSAC_DT_FP8E4M3: /* TOSA 1.1 fp8 rows */
    case TOSAC_DT_FP8E5M2: return out == in;
    default: return false;
    }
}

/* The scale/offset/border shape operands: n int64 values. */
static tosac_code resize_params(interp_ctx *c, const tosac_tensor *t, int64_t n,
                                const char *what, int64_t *v)
{
    if (tosac_tensor_numel(t) != n || (t->dtype != TOSAC_DT_SHAPE && !nn_is_sint(t->dtype)))
        return interp_error(c, "%s must hold %lld shape values", what, (long long)n);
    for (int64_t i = 0; i < n; i++)
        v[i] = interp_get_int(t, i);
    return TOSAC_OK;
}

typedef struct resize_axis {
    int64_t n, d, offset, border, in, out;
} resize_axis;

static tosac_code resize_check_axis(interp_ctx *c, const resize_axis *a, const char *oname)
{
    INTERP_ERROR_IF(c, a->n <= 0 || a->d <= 0);
    INTERP_ERROR_IF(c, a->n > (1 << 11));
    INTERP_ERROR_IF(c, a->d >= 16 * a->n);
    INTERP_ERROR_IF(c, a->offset < -a->n || a->offset >= 16 * a->n);
    INTERP_ERROR_IF(c, a->border < -16 * a->n || a->border >= a->n);
    return nn_check_out_dim(c, (a->in - 1) * a->n - a->offset + a->border, a->d, a->out,
                            oname);
}

/* Position of output index o along one axis: the two input indices (clamped to the
 * image) and the remainder in units of 1/n. */
typedef struct resize_pos {
    int64_t i0, i1, r;
} resize_pos;

static resize_pos resize_locate(const resize_axis *a, int64_t o)
{
    int64_t p = o * a->d + a->offset;
    int64_t i = idiv_floor(p, a->n), last = a->in - 1;
    /* the ERROR_IFs keep -1 <= i < in; clamping both keeps reads in bounds regardless */
    resize_pos r = {i < 0 ? 0 : i > last ? last : i, i + 1 < 0 ? 0 : i + 1 > last ? last : i + 1,
                    p - i * a->n};
    return r;
}

tosac_code interp_op_resize(interp_ctx *c)
{
    tosac_code rc = nn_check_arity(c, 4, 1);
    if (rc)
        return rc;
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    int64_t scale[4] = {0}, offset[2] = {0}, border[2] = {0};
    uint32_t mode = c->op->attr.mode;
    if ((rc = nn_check_rank(c, in, 4, "input")) || (rc = nn_check_rank(c, out, 4, "output")) ||
        (rc = resize_params(c, c->in[1], 4, "scale", scale)) ||
        (rc = resize_params(c, c->in[2], 2, "offset", offset)) ||
        (rc = resize_params(c, c->in[3], 2, "border", border)))
        return rc;
    if (mode != TOSA_RESIZE_NEAREST && mode != TOSA_RESIZE_BILINEAR)
        return interp_error(c, "unknown resize mode %u", (unsigned)mode);
    if (!resize_types_ok(in->dtype, out->dtype, mode))
        return interp_error(c, "unsupported type combination input %s, output %s for %s",
                            tosac_dtype_name(in->dtype), tosac_dtype_name(out->dtype),
                            mode == TOSA_RESIZE_BILINEAR ? "BILINEAR" : "NEAREST_NEIGHBOR");
    int64_t N = in->shape[0], IH = in->shape[1], IW = in->shape[2], C = in->shape[3];
    int64_t OH = out->shape[1], OW = out->shape[2];
    if (out->shape[0] != N || out->shape[3] != C)
        return interp_error(c, "output batch/channels differ from the input's");
    INTERP_ERROR_IF(c, OH >= 16384 || OW >= 16384 || IH >= 16384 || IW >= 16384);
    resize_axis ay = {scale[0], scale[1], offset[0], border[0], IH, OH};
    resize_axis ax = {scale[2], scale[3], offset[1], border[1], IW, OW};
    if ((rc = resize_check_axis(c, &ay, "OH")) || (rc = resize_check_axis(c, &ax, "OW")))
        return rc;
    if ((IH == 0 || IW == 0) && tosac_tensor_numel(out) > 0)
        return interp_error(c, "empty input image for a non-empty output");
    bool is_float = tosac_dtype_is_float(in->dtype);
    for (int64_t n = 0; n < N; n++)
        for (int64_t oy = 0; oy < OH; oy++) {
            resize_pos py = resize_locate(&ay, oy);
            for (int64_t ox = 0; ox < OW; ox++) {
                resize_pos px = resize_locate(&ax, ox);
                int64_t obase = ((n * OH + oy) * OW + ox) * C;
                int64_t r0 = (n * IH + py.i0) * IW, r1 = (n * IH + py.i1) * IW;
                int64_t i00 = (r0 + px.i0) * C, i01 = (r0 + px.i1) * C;
                int64_t i10 = (r1 + px.i0) * C, i11 = (r1 + px.i1) * C;
                if (mode == TOSA_RESIZE_NEAREST) {
                    int64_t src = 2 * py.r >= ay.n ? (2 * px.r >= ax.n ? i11 : i10)
                                                   : (2 * px.r >= ax.n ? i01 : i00);
                    for (int64_t ch = 0; ch < C; ch++) {
                        if (is_float)
                            interp_set_float(out, obase + ch, interp_get_float(in, src + ch));
                        else
                            interp_set_int(out, obase + ch, interp_get_int(in, src + ch));
                    }
                } else if (is_float) {
                    float dy = (float)py.r / (float)ay.n, dx = (float)px.r / (float)ax.n;
                    for (int64_t ch = 0; ch < C; ch++) {
                        double acc = (double)interp_get_float(in, i00 + ch) * (1 - dy) * (1 - dx) +
                                     (double)interp_get_float(in, i01 + ch) * (1 - dy) * dx +
                                     (double)interp_get_float(in, i10 + ch) * dy * (1 - dx) +
                                     (double)interp_get_float(in, i11 + ch) * dy * dx;
                        interp_set_float(out, obase + ch, (float)acc);
                    }
                } else {
                    int64_t wy0 = ay.n - py.r, wy1 = py.r, wx0 = ax.n - px.r, wx1 = px.r;
                    for (int64_t ch = 0; ch < C; ch++) {
                        int64_t acc = interp_get_int(in, i00 + ch) * wy0 * wx0 +
                                      interp_get_int(in, i01 + ch) * wy0 * wx1 +
                                      interp_get_int(in, i10 + ch) * wy1 * wx0 +
                                      interp_get_int(in, i11 + ch) * wy1 * wx1;
                        interp_set_int(out, obase + ch, nn_wrap_int(out->dtype, acc));
                    }
                }
            }
        }
    return TOSAC_OK;
}

const interp_op_entry interp_ops_image[] = {
    {TOSA_OP_RESIZE, interp_op_resize},
    {TOSA_OP_UNKNOWN, NULL},
};
