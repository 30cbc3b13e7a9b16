/* Comparisons, logic and Where: Equal, Greater, GreaterOrEqual, Less, LessOrEqual, And, Or,
 * Xor, Not, Where.
 *
 * TOSA has EQUAL, GREATER and GREATER_EQUAL on int32 and floats; Less / LessOrEqual swap
 * the operands. Quantized operands are compared as real values: each is rescaled to int32 at
 * a common scale (the larger input scale, times 2^(29 - bits) so rounding cannot merge
 * distinct values of the finer input more than its own resolution allows; not 2^(30 - bits):
 * RESCALE requires |x - zp| < 2^(shift - 1), and x - zp spans bits + 1 bits). Plain int8/int16
 * operands are CAST to int32 first. Equal on booleans is NOT(XOR). Where is SELECT, with the
 * quantized branches rescaled to the output's quantization when it differs. */
#include <math.h>
#include <string.h>

#include "lower/lower_extra.h"

/* Operand i of n as an int32 comparable value at scale `common` (quantized) or CAST. */
static int comparable(lower_ctx *c, const ir_node *n, int i, double common, int bits)
{
    const ir_tensor *t = lower_in_ir(c, n, i);
    int v = lower_in(c, n, i);
    if (v < 0)
        return -1;
    if (lower_is_quantized(t))
        return lx_rescale(c, v, lower_qscale(t) / common * ldexp(1.0, 29 - bits), lower_qzp(t),
                          0, TOSAC_DT_I32, -1);
    if (t->dtype == TOSAC_DT_I8 || t->dtype == TOSAC_DT_I16)
        return lx_cast(c, v, TOSAC_DT_I32, -1);
    return v;
}

static tosac_code lower_cmp(lower_ctx *c, const ir_node *n, tosa_op op, bool swap)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_in_ir(c, n, 1), *z = lower_out_ir(c, n, 0);
    if (n->n_inputs != 2 || !x || !y || !z)
        return lx_unsupported(c, n, "needs two inputs and an output");
    int a, b;
    if (x->dtype == TOSAC_DT_BOOL || y->dtype == TOSAC_DT_BOOL) {
        if (op != TOSA_OP_EQUAL)
            return lx_unsupported(c, n, "ordering booleans");
        a = lower_broadcast_rank(c, lower_in(c, n, 0), z->rank);
        b = lower_broadcast_rank(c, lower_in(c, n, 1), z->rank);
        int ne = lx_binary(c, TOSA_OP_LOGICAL_XOR, a, b, TOSAC_DT_BOOL, -1);
        return lx_unary(c, TOSA_OP_LOGICAL_NOT, ne, TOSAC_DT_BOOL, lower_out(c, n, 0)) < 0
                   ? lx_code(c) : TOSAC_OK;
    }
    bool qx = lower_is_quantized(x), qy = lower_is_quantized(y);
    double common = 1.0;
    int bits = 0;
    if (qx || qy) {
        tosac_code rc;
        if ((rc = lx_check_quant(c, n, x)) || (rc = lx_check_quant(c, n, y)))
            return rc;
        common = fmax(lower_qscale(x), lower_qscale(y));
        bits = tosac_dtype_bits(x->dtype) > tosac_dtype_bits(y->dtype)
                   ? tosac_dtype_bits(x->dtype) : tosac_dtype_bits(y->dtype);
    }
    a = lower_broadcast_rank(c, comparable(c, n, 0, common, bits), z->rank);
    b = lower_broadcast_rank(c, comparable(c, n, 1, common, bits), z->rank);
    if (swap) {
        int t = a;
        a = b;
        b = t;
    }
    int out = a < 0 || b < 0 ? -1 : lower_out(c, n, 0);
    return lx_binary(c, op, a, b, TOSAC_DT_BOOL, out) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_logic(lower_ctx *c, const ir_node *n, tosa_op op)
{
    const ir_tensor *z = lower_out_ir(c, n, 0);
    if (!z || !lower_in_ir(c, n, 0))
        return lx_unsupported(c, n, "needs an input and an output");
    if (op == TOSA_OP_LOGICAL_NOT)
        return lx_unary(c, op, lower_in(c, n, 0), TOSAC_DT_BOOL, lower_out(c, n, 0)) < 0
                   ? lx_code(c) : TOSAC_OK;
    if (n->n_inputs != 2 || !lower_in_ir(c, n, 1))
        return lx_unsupported(c, n, "needs two inputs");
    int a = lower_broadcast_rank(c, lower_in(c, n, 0), z->rank);
    int b = lower_broadcast_rank(c, lower_in(c, n, 1), z->rank);
    int out = a < 0 || b < 0 ? -1 : lower_out(c, n, 0);
    return lx_binary(c, op, a, b, TOSAC_DT_BOOL, out) < 0 ? lx_code(c) : TOSAC_OK;
}

/* Where branch i (1 or 2) in the output's quantization and rank. */
static int branch(lower_ctx *c, const ir_node *n, int i, const ir_tensor *z)
{
    const ir_tensor *t = lower_in_ir(c, n, i);
    int v = lower_in(c, n, i);
    if (v >= 0 && lower_is_quantized(z) && !lx_same_quant(t, z)) {
        if (lx_check_quant(c, n, t))
            return -1;
        v = lx_rescale(c, v, lower_qscale(t) / lower_qscale(z), lower_qzp(t), lower_qzp(z),
                       z->dtype, -1);
    }
    return lower_broadcast_rank(c, v, z->rank);
}

static tosac_code lower_where(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *z = lower_out_ir(c, n, 0);
    if (n->n_inputs != 3 || !z || !lower_in_ir(c, n, 0) || !lower_in_ir(c, n, 1) ||
        !lower_in_ir(c, n, 2))
        return lx_unsupported(c, n, "needs three inputs and an output");
    if (lower_is_quantized(z) && lx_check_quant(c, n, z))
        return lx_code(c);
    int cond = lower_broadcast_rank(c, lower_in(c, n, 0), z->rank);
    int a = branch(c, n, 1, z), b = branch(c, n, 2, z);
    int out = cond < 0 || a < 0 || b < 0 ? -1 : lower_out(c, n, 0);
    return lx_select(c, cond, a, b, out) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_equal(lower_ctx *c, const ir_node *n) { return lower_cmp(c, n, TOSA_OP_EQUAL, false); }
static tosac_code lower_greater(lower_ctx *c, const ir_node *n) { return lower_cmp(c, n, TOSA_OP_GREATER, false); }
static tosac_code lower_greater_eq(lower_ctx *c, const ir_node *n) { return lower_cmp(c, n, TOSA_OP_GREATER_EQUAL, false); }
static tosac_code lower_less(lower_ctx *c, const ir_node *n) { return lower_cmp(c, n, TOSA_OP_GREATER, true); }
static tosac_code lower_less_eq(lower_ctx *c, const ir_node *n) { return lower_cmp(c, n, TOSA_OP_GREATER_EQUAL, true); }
static tosac_code lower_and(lower_ctx *c, const ir_node *n) { return lower_logic(c, n, TOSA_OP_LOGICAL_AND); }
static tosac_code lower_or(lower_ctx *c, const ir_node *n) { return lower_logic(c, n, TOSA_OP_LOGICAL_OR); }
static tosac_code lower_xor(lower_ctx *c, const ir_node *n) { return lower_logic(c, n, TOSA_OP_LOGICAL_XOR); }
static tosac_code lower_not(lower_ctx *c, const ir_node *n) { return lower_logic(c, n, TOSA_OP_LOGICAL_NOT); }

const lower_rule lower_rules_compare[] = {
    {IR_DOMAIN_ONNX, "Equal", lower_equal, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Greater", lower_greater, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "GreaterOrEqual", lower_greater_eq, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Less", lower_less, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "LessOrEqual", lower_less_eq, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "And", lower_and, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Or", lower_or, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Xor", lower_xor, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Not", lower_not, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Where", lower_where, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
