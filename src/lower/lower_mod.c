/* Mod.
 *
 * Integers (int32; int8/int16 through CAST to int32 and back; int64 with EXT-INT64):
 *   r = a - INTDIV(a, b) * b, the remainder with the sign of a (INTDIV truncates, as C does),
 *   which is fmod=1; fmod=0 (Python's %, the sign of b) adds b where r != 0 and the signs of
 *   r and b differ.
 * Float (fmod=1, the only float form ONNX allows): r = a - trunc(a * (1/b)) * b, then one
 * correction step where the rounded quotient crossed an integer (r outside [0, |b|) once
 * signed like a: add or subtract |b|); the product and difference round, so r is within a
 * few ulps of max(|a|, |b|) of fmodf.
 * Quantized Mod stays on the CPU: the remainder of two real values has no integer form. */
#include "lower/lower_act_util.h"

static int sel_lt0(lower_ctx *c, int x, int a, int b)
{
    return lx_select(c, la_compare(c, TOSA_OP_GREATER, la_like(c, x, 0.0), x), a, b, -1);
}

static int int_mod(lower_ctx *c, int a, int b, bool fmod, int out)
{
    int q = lx_binary(c, TOSA_OP_INTDIV, a, b, TOSAC_DT_UNKNOWN, -1);
    int r = la_binary(c, TOSA_OP_SUB, a, la_binary(c, TOSA_OP_MUL, q, b, -1), fmod ? out : -1);
    if (fmod)
        return r;
    int rneg = la_compare(c, TOSA_OP_GREATER, la_like(c, r, 0.0), r);
    int bneg = la_compare(c, TOSA_OP_GREATER, la_like(c, b, 0.0), b);
    int differ = la_binary(c, TOSA_OP_LOGICAL_XOR, rneg, bneg, -1);
    int nz = lx_unary(c, TOSA_OP_LOGICAL_NOT, la_compare(c, TOSA_OP_EQUAL, r, la_like(c, r, 0.0)),
                      TOSAC_DT_BOOL, -1);
    int fix = la_binary(c, TOSA_OP_LOGICAL_AND, differ, nz, -1);
    return lx_select(c, fix, la_binary(c, TOSA_OP_ADD, r, b, -1), r, out);
}

static int float_fmod(lower_ctx *c, int a, int b, int out)
{
    int q = la_binary(c, TOSA_OP_MUL, a, la_unary(c, TOSA_OP_RECIPROCAL, b, -1), -1);
    int ge = la_compare(c, TOSA_OP_GREATER_EQUAL, q, la_like(c, q, 0.0));
    int t = lx_select(c, ge, la_unary(c, TOSA_OP_FLOOR, q, -1), la_unary(c, TOSA_OP_CEIL, q, -1),
                      -1);
    int r = la_binary(c, TOSA_OP_SUB, a, la_binary(c, TOSA_OP_MUL, t, b, -1), -1);
    /* u = r signed like a, wanted in [0, |b|) */
    int ab = la_unary(c, TOSA_OP_ABS, b, -1);
    int u = sel_lt0(c, a, lx_negate(c, r, -1), r);
    u = sel_lt0(c, u, la_binary(c, TOSA_OP_ADD, u, ab, -1), u);
    int big = la_compare(c, TOSA_OP_GREATER_EQUAL, u, ab);
    u = lx_select(c, big, la_binary(c, TOSA_OP_SUB, u, ab, -1), u, -1);
    int neg_a = la_compare(c, TOSA_OP_GREATER, la_like(c, a, 0.0), a);
    return lx_select(c, neg_a, lx_negate(c, u, -1), u, out);
}

static tosac_code lower_mod(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *A = lower_in_ir(c, n, 0), *B = lower_in_ir(c, n, 1);
    const ir_tensor *Y = lower_out_ir(c, n, 0);
    if (!A || !B || !Y)
        return lx_unsupported(c, n, "needs two inputs and an output");
    if (lower_is_quantized(A) || lower_is_quantized(B) || lower_is_quantized(Y))
        return lx_unsupported(c, n, "quantized operands: the remainder of two real values has "
                              "no integer form");
    bool fmod = ir_node_attr_int(n, "fmod", 0) != 0;
    tosac_dtype dt = Y->dtype;
    if (A->dtype != dt || B->dtype != dt)
        return lx_unsupported(c, n, "inputs and output types differ");
    bool flt = tosac_dtype_is_float(dt);
    bool narrow = dt == TOSAC_DT_I8 || dt == TOSAC_DT_I16;
    if (flt && !fmod)
        return lx_unsupported(c, n, "fmod=0 on %s (ONNX requires fmod=1 for floats)",
                              tosac_dtype_name(dt));
    if (!flt && !narrow && dt != TOSAC_DT_I32 && dt != TOSAC_DT_I64)
        return lx_unsupported(c, n, "%s operands", tosac_dtype_name(dt));
    int a = lower_broadcast_rank(c, lower_in(c, n, 0), Y->rank);
    int b = a < 0 ? -1 : lower_broadcast_rank(c, lower_in(c, n, 1), Y->rank);
    int out = b < 0 ? -1 : lower_out(c, n, 0);
    if (out < 0)
        return lx_code(c);
    int r;
    if (flt)
        r = float_fmod(c, a, b, out);
    else if (!narrow)
        r = int_mod(c, a, b, fmod, out);
    else
        r = lx_cast(c, int_mod(c, lx_cast(c, a, TOSAC_DT_I32, -1), lx_cast(c, b, TOSAC_DT_I32, -1),
                               fmod, -1), dt, out);
    return r < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_mod[] = {
    {IR_DOMAIN_ONNX, "Mod", lower_mod, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
