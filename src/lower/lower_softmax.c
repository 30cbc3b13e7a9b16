/* Softmax and LogSoftmax.
 *
 * Axis, by the model's opset (lower_ctx.opset): from 13 the function runs along one axis
 * (default -1); before 13 the input is coerced to 2-D at `axis` (default 1) and the function
 * runs over all the dimensions from axis on: a RESHAPE to [outer, inner], the function along
 * axis 1, a RESHAPE back (none when a single dimension of the tail is larger than 1).
 *
 * Float: REDUCE_MAX, SUB, EXP, REDUCE_SUM, then RECIPROCAL and MUL (Softmax) or LOG and SUB
 * (LogSoftmax).
 *
 * Quantized Softmax works on d = x - max(x) in int32 (d is in [-255, 0] for int8 inputs,
 * [-65535, 0] for int16):
 *   - e = round(32767 * exp(s_in * d)) by table: int8 inputs index two 256-entry tables with
 *     d + 127 (high and low byte of e, since an int8 table holds 8 bits); int16 inputs index
 *     one interpolated 513-entry table with d + 32640 (entries 128 apart, d = 0 on an entry);
 *   - sum = REDUCE_SUM(e) in int32 (at most 65536 elements: no overflow);
 *   - r = INTDIV(e * 2^16, sum): the softmax value with 16 fraction bits;
 *   - RESCALE r by 2^-16 / s_out to the output quantization.
 * Quantized LogSoftmax is refused (the log of an int32 sum has no table). */
#include <math.h>
#include <string.h>

#include "lower/lower_act_util.h"
#include "lower/lower_table.h"

#define EXP_ONE 32767.0 /* e for d = 0 */

/* The axis to run along (see above); *coerce when the opset-<13 2-D view is needed (the
 * function then runs along axis 1 of [prod(shape[:axis]), prod(shape[axis:])]). */
static tosac_code pick_axis(lower_ctx *c, const ir_node *n, const ir_tensor *x, int *axis,
                            bool *coerce)
{
    int r = x->rank;
    bool old = c->opset < 13;
    int64_t a = ir_node_attr_int(n, "axis", old ? 1 : -1);
    if (a < -r || a >= r)
        return lx_unsupported(c, n, "axis %lld out of range for rank %d", (long long)a, r);
    if (a < 0)
        a += r;
    *axis = (int)a;
    *coerce = false;
    if (!old)
        return TOSAC_OK;
    /* [a, r) with one non-trivial dimension d is the single axis d */
    int big = -1, n_big = 0;
    for (int d = (int)a; d < r; d++)
        if (x->shape[d] > 1) {
            big = d;
            n_big++;
        }
    if (n_big <= 1)
        *axis = n_big ? big : (int)a;
    else
        *coerce = true;
    return TOSAC_OK;
}

/* x, y: the block tensors to read and write (the node's own, or their 2-D views) */
static tosac_code lower_float(lower_ctx *c, int x, int y, int axis, bool log_form)
{
    int d = la_binary(c, TOSA_OP_SUB, x, la_reduce(c, TOSA_OP_REDUCE_MAX, x, axis, -1), -1);
    int e = la_unary(c, TOSA_OP_EXP, d, -1);
    int s = la_reduce(c, TOSA_OP_REDUCE_SUM, e, axis, -1);
    int r = log_form ? la_binary(c, TOSA_OP_SUB, d, la_unary(c, TOSA_OP_LOG, s, -1), y)
                     : la_binary(c, TOSA_OP_MUL, e, la_unary(c, TOSA_OP_RECIPROCAL, s, -1), y);
    return y < 0 || r < 0 ? lx_code(c) : TOSAC_OK;
}

/* Table input v -> 32767 exp(s_in * (v - offset)), capped at d = 0. */
typedef struct exp_arg {
    double s_in;
    int64_t offset;
    int byte;              /* int8 tables: 1 high byte, 0 low byte (minus 128); -1 whole */
} exp_arg;

static double exp_value(int64_t v, const exp_arg *a)
{
    int64_t d = v - a->offset;
    return d >= 0 ? EXP_ONE : nearbyint(EXP_ONE * exp(a->s_in * (double)d));
}

static double exp_raw(int64_t v, const void *arg)
{
    const exp_arg *a = arg;
    double e = exp_value(v, a);
    if (a->byte < 0)
        return e;
    int64_t k = (int64_t)e;
    return a->byte ? (double)(k >> 8) : (double)((k & 255) - 128);
}

/* e (i32, 0..32767) from d (i32, <= 0) for int8 inputs: two int8 tables on d + 127 */
static int exp_i8(lower_ctx *c, int d, double s_in)
{
    int idx = lx_rescale(c, d, 1.0, 0, 127, TOSAC_DT_I8, -1);
    int part[2];
    for (int b = 0; b < 2; b++) {
        exp_arg a = {s_in, 127, b};
        lower_table_spec ts = {exp_raw, &a, 0, -128, 127};
        int8_t tab[256];
        lower_table_values_i8(&ts, tab);
        part[b] = lower_table_emit(c, idx, tab, -1);
    }
    int hi = lx_rescale(c, part[1], 256.0, 0, 0, TOSAC_DT_I32, -1);
    int lo = lx_rescale(c, part[0], 1.0, -128, 0, TOSAC_DT_I32, -1);
    return la_binary(c, TOSA_OP_ADD, hi, lo, -1);
}

/* Same for int16 inputs: one interpolated table on d + 32640 (d = 0 is entry 511) */
static int exp_i16(lower_ctx *c, int d, double s_in)
{
    const int64_t offset = 32640;
    int idx = la_binary(c, TOSA_OP_ADD, d, la_like(c, d, (double)offset), -1);
    idx = lx_rescale(c, idx, 1.0, 0, 0, TOSAC_DT_I16, -1); /* saturates d below -65408 */
    exp_arg a = {s_in, offset, -1};
    lower_table_spec ts = {exp_raw, &a, 0, 0, 32767};
    int16_t tab[513];
    int shift;
    lower_table_values_i16(&ts, tab, &shift); /* entries in 0..32767: shift is 0 */
    int t = lower_table_emit(c, idx, tab, -1);
    return lx_rescale(c, t, ldexp(1.0, shift - 7), 0, 0, TOSAC_DT_I32, -1);
}

static tosac_code lower_quantized(lower_ctx *c, const ir_node *n, int in, int y, int axis)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    tosac_code rc;
    if ((rc = lx_check_quant(c, n, X)) || (rc = lx_check_quant(c, n, Y)))
        return rc;
    int64_t len = in < 0 ? 0 : lower_shape(c, in)[axis];
    if (len > 65536)
        return lx_unsupported(c, n, "%lld elements along the axis (at most 65536)",
                              (long long)len);
    int x = lx_cast(c, in, TOSAC_DT_I32, -1);
    int d = la_binary(c, TOSA_OP_SUB, x, la_reduce(c, TOSA_OP_REDUCE_MAX, x, axis, -1), -1);
    if (d < 0)
        return lx_code(c);
    int e = X->dtype == TOSAC_DT_I8 ? exp_i8(c, d, lower_qscale(X))
                                    : exp_i16(c, d, lower_qscale(X));
    int s = la_reduce(c, TOSA_OP_REDUCE_SUM, e, axis, -1);
    int num = la_binary(c, TOSA_OP_MUL, e, la_like(c, e, 65536.0), -1);
    int r = la_binary(c, TOSA_OP_INTDIV, num, s, -1);
    if (r < 0 || y < 0)
        return lx_code(c);
    double scale = ldexp(1.0, -16) / lower_qscale(Y);
    return lx_rescale(c, r, scale, 0, lower_qzp(Y), Y->dtype, y) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_any(lower_ctx *c, const ir_node *n, bool log_form)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    if (!X || !Y)
        return lx_unsupported(c, n, "missing input or output");
    if (X->rank < 1)
        return lx_unsupported(c, n, "scalar input");
    int axis = 0;
    bool coerce = false;
    tosac_code rc = pick_axis(c, n, X, &axis, &coerce);
    if (rc)
        return rc;
    bool quant = lower_is_quantized(X) || lower_is_quantized(Y);
    if (quant && log_form)
        return lx_unsupported(c, n, "quantized LogSoftmax is not lowered (no integer log "
                              "of the sum)");
    if (!quant && !tosac_dtype_is_float(X->dtype))
        return lx_unsupported(c, n, "%s input", tosac_dtype_name(X->dtype));
    int x = lower_in(c, n, 0), y = x < 0 ? -1 : lower_out(c, n, 0), y2 = y;
    if (coerce && y >= 0) { /* opset < 13: the 2-D view [outer, inner], along axis 1 */
        int64_t v[2] = {1, 1};
        for (int d = 0; d < X->rank; d++)
            v[d >= axis] *= X->shape[d];
        x = lower_reshape(c, x, 2, v, -1);
        y2 = lower_tmp(c, "softmax_2d", lower_dtype(c, y), 2, v);
        axis = 1;
    }
    if (x < 0 || y2 < 0)
        return lx_code(c);
    rc = quant ? lower_quantized(c, n, x, y2, axis) : lower_float(c, x, y2, axis, log_form);
    if (!rc && y2 != y && lower_reshape(c, y2, Y->rank, Y->shape, y) < 0)
        rc = lx_code(c);
    return rc;
}

static tosac_code lower_softmax(lower_ctx *c, const ir_node *n) { return lower_any(c, n, false); }
static tosac_code lower_logsoftmax(lower_ctx *c, const ir_node *n) { return lower_any(c, n, true); }

const lower_rule lower_rules_softmax[] = {
    {IR_DOMAIN_ONNX, "Softmax", lower_softmax},
    {IR_DOMAIN_ONNX, "LogSoftmax", lower_logsoftmax},
    {NULL, NULL, NULL},
};
