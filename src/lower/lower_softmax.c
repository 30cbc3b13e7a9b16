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
 * Quantized LogSoftmax, y = s_in d - log(sum / 32767), works in int32 units of 2^-16:
 *   - the sum's log by normalisation: k = 31 - CLZ(sum) is its top bit (sum >= 32767, so
 *     k >= 14), m = sum >> (k - 14) in [2^14, 2^15) indexes an int16 TABLE of
 *     log(m / 2^15) (interpolated; 2^14 entries apart by at most 1/128 relative), and
 *     log(sum / 32767) = log(m / 2^15) + (32 - CLZ) ln 2 - ln 32767; int8 inputs (no int16
 *     TABLE without EXT-INT16) take m rounded to 8 bits through two int8 tables (the high
 *     and low byte of 2^14 log, as exp_i8 does);
 *   - s_in d by a RESCALE of d by s_in 2^16 (refused when the input range is 2^14 or wider:
 *     its units would leave int32);
 *   - their difference RESCALEd by 2^-16 / s_out to the output quantization. */
#include <math.h>
#include <string.h>

#include "lower/lower_act_util.h"
#include "lower/lower_table.h"

#define EXP_ONE 32767.0 /* e for d = 0 */
#define LN2 0.69314718055994530942

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

/* Table input m (the normalised sum, in [2^14, 2^15) when it matters) -> 2^15 log(m / 2^15) */
static double log_raw(int64_t v, const void *arg)
{
    (void)arg;
    double m = v < 16384 ? 16384.0 : (double)v;
    return 32768.0 * log(m / 32768.0);
}

/* Table input i (int8) -> 2^14 (-log((i + 256) / 256)) for i in [-128, 0], one byte of it:
 * the 16-bit value through two int8 tables as exp_raw does */
static double nlog8_raw(int64_t v, const void *arg)
{
    int byte = *(const int *)arg;
    double m = v > 0 ? 256.0 : (double)(v + 256);
    int64_t k = (int64_t)nearbyint(-16384.0 * log(m / 256.0)); /* 0 .. 11357 */
    return byte ? (double)(k >> 8) : (double)((k & 255) - 128);
}

/* log(sum / 32767) in units of 2^-16 (i32) from sum (i32, 32767 .. 2^31 - 1); int16 tables
 * when the profile has them (in16), else two int8 tables on an 8-bit mantissa */
static int log_sum16(lower_ctx *c, int sum, bool in16)
{
    int clz = la_unary(c, TOSA_OP_CLZ, sum, -1);
    int amount = la_binary(c, TOSA_OP_SUB, la_like(c, clz, 17.0), clz, -1); /* k - 14 */
    int m = la_binary(c, TOSA_OP_LOGICAL_RIGHT_SHIFT, sum, amount, -1); /* 2^14 .. 2^15-1 */
    int r;
    if (in16) {
        int idx = lx_rescale(c, m, 1.0, 0, 0, TOSAC_DT_I16, -1);
        lower_table_spec ts = {log_raw, NULL, 0, -32768, 0};
        int16_t tab[513];
        int shift;
        lower_table_values_i16(&ts, tab, &shift);
        /* 2^15 log(m / 2^15) with 7 fraction bits, times 2^-shift: to 2^-16 units */
        r = lx_rescale(c, lower_table_emit(c, idx, tab, -1), ldexp(1.0, shift - 6), 0, 0,
                       TOSAC_DT_I32, -1);
    } else {
        /* m8 = round(m / 2^7) in [128, 256] (relative error 2^-9: 0.002 in the log), as
         * int8 index m8 - 256 */
        int m8 = lx_rescale(c, m, ldexp(1.0, -7), 0, 0, TOSAC_DT_I32, -1);
        int idx = la_binary(c, TOSA_OP_SUB, m8, la_like(c, m8, 256.0), -1);
        idx = lx_rescale(c, idx, 1.0, 0, 0, TOSAC_DT_I8, -1);
        int part[2];
        for (int b = 0; b < 2; b++) {
            lower_table_spec ts = {nlog8_raw, &b, 0, -128, 127};
            int8_t tab[256];
            lower_table_values_i8(&ts, tab);
            part[b] = lower_table_emit(c, idx, tab, -1);
        }
        /* (hi 256 + lo + 128) 2^-14 = -log(m8 / 256): times 4 to 2^-16 units, negated */
        int hi = lx_rescale(c, part[1], 1024.0, 0, 0, TOSAC_DT_I32, -1);
        int lo = lx_rescale(c, part[0], 4.0, -128, 0, TOSAC_DT_I32, -1);
        int neg = la_binary(c, TOSA_OP_ADD, hi, lo, -1);
        r = la_binary(c, TOSA_OP_SUB, la_like(c, neg, 0.0), neg, -1);
    }
    /* + (32 - CLZ) ln 2 - ln 32767 (ln 2 rounded to 2^-16 is 0.09 units off: CLZ <= 17 times) */
    const double u = 65536.0;
    int k1 = la_binary(c, TOSA_OP_MUL, clz, la_like(c, clz, nearbyint(LN2 * u)), -1);
    double c0 = nearbyint(32.0 * LN2 * u) - nearbyint(log(EXP_ONE) * u);
    int t = la_binary(c, TOSA_OP_SUB, r, k1, -1);
    return la_binary(c, TOSA_OP_ADD, t, la_like(c, t, c0), -1);
}

static tosac_code lower_quantized(lower_ctx *c, const ir_node *n, int in, int y, int axis,
                                  bool log_form)
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
    if (log_form) {
        double s_in = lower_qscale(X), dmax = X->dtype == TOSAC_DT_I8 ? 255.0 : 65535.0;
        if (s_in * dmax >= 16384.0)
            return lx_unsupported(c, n, "LogSoftmax input range %g is 2^14 or wider (its "
                                  "2^-16 units leave int32)", s_in * dmax);
        int t1 = lx_rescale(c, d, s_in * 65536.0, 0, 0, TOSAC_DT_I32, -1);
        int diff = la_binary(c, TOSA_OP_SUB, t1,
                             log_sum16(c, s, X->dtype == TOSAC_DT_I16), -1);
        if (diff < 0 || y < 0)
            return lx_code(c);
        return lx_rescale(c, diff, ldexp(1.0, -16) / lower_qscale(Y), 0, lower_qzp(Y),
                          Y->dtype, y) < 0 ? lx_code(c) : TOSAC_OK;
    }
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
    rc = quant ? lower_quantized(c, n, x, y2, axis, log_form) : lower_float(c, x, y2, axis, log_form);
    if (!rc && y2 != y && lower_reshape(c, y2, Y->rank, Y->shape, y) < 0)
        rc = lx_code(c);
    return rc;
}

static tosac_code lower_softmax(lower_ctx *c, const ir_node *n) { return lower_any(c, n, false); }
static tosac_code lower_logsoftmax(lower_ctx *c, const ir_node *n) { return lower_any(c, n, true); }

const lower_rule lower_rules_softmax[] = {
    {IR_DOMAIN_ONNX, "Softmax", lower_softmax, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "LogSoftmax", lower_logsoftmax, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
