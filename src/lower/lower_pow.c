/* Pow.
 *
 * Float with a constant scalar exponent e: products instead of POW where that is exact or
 * closer (TOSA's POW is undefined for x < 0, and its precision bound is loose):
 *   e = 0: ones (pow(x, 0) is 1 even for NaN);  integer 1 <= |e| <= 16: square-and-multiply
 *   MULs, RECIPROCAL of them for e < 0;  e = 0.5: 1 / RSQRT(x);  e = -0.5: RSQRT(x).
 * Other float exponents (constant or not, same float type): POW, so only x > 0 (or x = 0
 * with e > 0) is defined, as the spec says.
 * Quantized x (int8/int16 per tensor) with a constant scalar exponent: a TABLE of x^e
 * (lower_table_unary); a runtime exponent has no integer form. Integer Pow stays on the CPU
 * (TOSA has no integer POW). */
#include <math.h>
#include <stdlib.h>

#include "lower/lower_act_util.h"
#include "lower/lower_table.h"

/* The exponent when it is a constant holding one value (dequantized if quantized). */
static bool const_exponent(const lower_ctx *c, const ir_node *n, double *e)
{
    tosac_tensor t;
    const ir_tensor *it = lower_in_ir(c, n, 1);
    if (!it || !lower_in_const(c, n, 1, &t) || tosac_tensor_numel(&t) < 1)
        return false;
    for (int64_t i = 0; i < tosac_tensor_numel(&t); i++) {
        double v;
        switch (t.dtype) {
        case TOSAC_DT_F32: v = ((const float *)t.data)[i]; break;
        case TOSAC_DT_F64: v = ((const double *)t.data)[i]; break;
        case TOSAC_DT_I8: v = ((const int8_t *)t.data)[i]; break;
        case TOSAC_DT_I16: v = ((const int16_t *)t.data)[i]; break;
        case TOSAC_DT_I32: v = ((const int32_t *)t.data)[i]; break;
        case TOSAC_DT_I64: v = (double)((const int64_t *)t.data)[i]; break;
        default: return false;
        }
        if (lower_is_quantized(it)) /* in float32, as DequantizeLinear computes it: 127 *
                                     * (2/127 in float32) is then exactly 2 */
            v = (double)((float)(v - (double)lower_qzp(it)) * (float)lower_qscale(it));
        if (i > 0 && v != *e)
            return false;
        *e = v;
    }
    return true;
}

static double f_pow(double x, const void *e) { return pow(x, *(const double *)e); }

/* x^m for an integer m >= 1 by square and multiply (the IDENTITY into out is rewired by
 * the cleanup). */
static int int_power(lower_ctx *c, int x, int64_t m, int out)
{
    int acc = -1, sq = x;
    while (m > 0) {
        if (m & 1)
            acc = acc < 0 ? sq : la_binary(c, TOSA_OP_MUL, acc, sq, -1);
        m >>= 1;
        if (m)
            sq = la_binary(c, TOSA_OP_MUL, sq, sq, -1);
    }
    return out >= 0 ? lx_identity(c, acc, out) : acc;
}

static int ones_like(lower_ctx *c, const ir_tensor *y, int out)
{
    int64_t cnt = 1;
    for (int i = 0; i < y->rank; i++)
        cnt *= y->shape[i];
    float *v = malloc((size_t)(cnt > 0 ? cnt : 1) * sizeof *v);
    if (!v) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < cnt; i++)
        v[i] = 1.0f;
    int k = lower_const(c, "ones", TOSAC_DT_F32, y->rank, y->shape, v);
    free(v);
    return lx_identity(c, k, out);
}

static tosac_code lower_pow(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *E = lower_in_ir(c, n, 1);
    const ir_tensor *Y = lower_out_ir(c, n, 0);
    if (!X || !E || !Y)
        return lx_unsupported(c, n, "needs two inputs and an output");
    double e = 0;
    bool ce = const_exponent(c, n, &e);
    if (lower_is_quantized(X) || lower_is_quantized(Y)) {
        if (!ce)
            return lx_unsupported(c, n, "quantized with an exponent that is not one constant");
        return lower_table_unary(c, n, f_pow, &e);
    }
    if (!tosac_dtype_is_float(X->dtype) || X->dtype != Y->dtype)
        return lx_unsupported(c, n, "%s base (TOSA has no integer POW)",
                              tosac_dtype_name(X->dtype));
    int x = lower_broadcast_rank(c, lower_in(c, n, 0), Y->rank);
    int res;
    if (ce && e == 0 && X->dtype == TOSAC_DT_F32) {
        int out = lower_out(c, n, 0);
        res = out < 0 ? -1 : ones_like(c, Y, out);
    } else if (ce && e == nearbyint(e) && fabs(e) >= 1 && fabs(e) <= 16) {
        int out = x < 0 ? -1 : lower_out(c, n, 0);
        if (e > 0)
            res = out < 0 ? -1 : int_power(c, x, (int64_t)e, out);
        else
            res = out < 0 ? -1 : la_unary(c, TOSA_OP_RECIPROCAL, int_power(c, x, (int64_t)-e, -1),
                                          out);
    } else if (ce && fabs(e) == 0.5) {
        int out = x < 0 ? -1 : lower_out(c, n, 0);
        int r = la_unary(c, TOSA_OP_RSQRT, x, e < 0 ? out : -1);
        res = e < 0 ? r : la_unary(c, TOSA_OP_RECIPROCAL, r, out);
    } else {
        if (E->dtype != X->dtype)
            return lx_unsupported(c, n, "%s exponent of a %s base (POW needs one type)",
                                  tosac_dtype_name(E->dtype), tosac_dtype_name(X->dtype));
        int ex = x < 0 ? -1 : lower_broadcast_rank(c, lower_in(c, n, 1), Y->rank);
        int out = ex < 0 ? -1 : lower_out(c, n, 0);
        res = out < 0 ? -1 : lx_binary(c, TOSA_OP_POW, x, ex, TOSAC_DT_UNKNOWN, out);
    }
    return res < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_pow[] = {
    {IR_DOMAIN_ONNX, "Pow", lower_pow, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
