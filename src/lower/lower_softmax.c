/* Softmax and LogSoftmax.
 *
 * Axis: from opset 13 the function runs along one axis (default -1); before 13 the input is
 * coerced to 2-D at `axis` (default 1) and the function runs over all the dimensions from
 * axis on. The lowering context does not carry the model's opset, so a node is lowered when
 * both readings reduce the same non-trivial (size > 1) dimensions -- e.g. the last axis, or a
 * rank-2 input -- and is refused (left on the CPU) when they differ.
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

/* The single axis to run along (see above), or UNSUPPORTED when the opsets disagree. */
static tosac_code pick_axis(lower_ctx *c, const ir_node *n, const ir_tensor *x, int *axis)
{
    int r = x->rank;
    bool has = ir_node_attr(n, "axis") != NULL;
    int64_t a = ir_node_attr_int(n, "axis", 0);
    int64_t a_new = has ? a : -1, a_old = has ? a : 1;
    if (a_new < -r || a_new >= r || a_old < -r || a_old >= r)
        return lx_unsupported(c, n, "axis %lld out of range for rank %d", (long long)a, r);
    if (a_new < 0)
        a_new += r;
    if (a_old < 0)
        a_old += r;
    /* opset >= 13 reduces {a_new}; before, [a_old, r): compare their non-trivial dims */
    for (int d = 0; d < r; d++) {
        bool in_new = d == a_new, in_old = d >= a_old;
        if (x->shape[d] > 1 && in_new != in_old)
            return lx_unsupported(c, n, "axis semantics differ between opsets (before 13 the "
                                  "input is coerced to 2-D) for this shape");
    }
    *axis = (int)a_new;
    return TOSAC_OK;
}

static tosac_code lower_float(lower_ctx *c, const ir_node *n, int axis, bool log_form)
{
    int x = lower_in(c, n, 0);
    int y = x < 0 ? -1 : lower_out(c, n, 0);
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

static tosac_code lower_quantized(lower_ctx *c, const ir_node *n, int axis)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    tosac_code rc;
    if ((rc = lx_check_quant(c, n, X)) || (rc = lx_check_quant(c, n, Y)))
        return rc;
    if (X->shape[axis] > 65536)
        return lx_unsupported(c, n, "%lld elements along the axis (at most 65536)",
                              (long long)X->shape[axis]);
    int x = lx_cast(c, lower_in(c, n, 0), TOSAC_DT_I32, -1);
    int d = la_binary(c, TOSA_OP_SUB, x, la_reduce(c, TOSA_OP_REDUCE_MAX, x, axis, -1), -1);
    if (d < 0)
        return lx_code(c);
    int e = X->dtype == TOSAC_DT_I8 ? exp_i8(c, d, lower_qscale(X))
                                    : exp_i16(c, d, lower_qscale(X));
    int s = la_reduce(c, TOSA_OP_REDUCE_SUM, e, axis, -1);
    int num = la_binary(c, TOSA_OP_MUL, e, la_like(c, e, 65536.0), -1);
    int r = la_binary(c, TOSA_OP_INTDIV, num, s, -1);
    int y = r < 0 ? -1 : lower_out(c, n, 0);
    if (y < 0)
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
    tosac_code rc = pick_axis(c, n, X, &axis);
    if (rc)
        return rc;
    if (lower_is_quantized(X) || lower_is_quantized(Y)) {
        if (log_form)
            return lx_unsupported(c, n, "quantized LogSoftmax is not lowered (no integer log "
                                  "of the sum)");
        return lower_quantized(c, n, axis);
    }
    if (!tosac_dtype_is_float(X->dtype))
        return lx_unsupported(c, n, "%s input", tosac_dtype_name(X->dtype));
    return lower_float(c, n, axis, log_form);
}

static tosac_code lower_softmax(lower_ctx *c, const ir_node *n) { return lower_any(c, n, false); }
static tosac_code lower_logsoftmax(lower_ctx *c, const ir_node *n) { return lower_any(c, n, true); }

const lower_rule lower_rules_softmax[] = {
    {IR_DOMAIN_ONNX, "Softmax", lower_softmax},
    {IR_DOMAIN_ONNX, "LogSoftmax", lower_logsoftmax},
    {NULL, NULL, NULL},
};
