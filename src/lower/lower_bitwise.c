/* Bitwise operators: BitwiseNot/And/Or/Xor as BITWISE_NOT/AND/OR/XOR, BitShift as
 * LOGICAL_LEFT_SHIFT / LOGICAL_RIGHT_SHIFT.
 *
 * The TOSA operators work on the bits of i8/i16/i32 (and i64 under EXT-INT64): the same bits
 * the ONNX operators compute on (a right shift is logical, as for ONNX's unsigned types).
 * Which types are legal under which profile is the validator's business: BITWISE_* are
 * PRO-INT only, the logical shifts PRO-INT or PRO-FP.
 *   - TOSA has no unsigned tensors, and BitShift's ONNX types are all unsigned: an unsigned
 *     operand is refused here, so the node stays on the CPU with that reason (its values
 *     would cross the delegate boundary as a type the program does not have).
 *   - ONNX defines a shift by the bit width or more as 0; TOSA REQUIREs 0 <= shift <= width-1
 *     (the result is unpredictable otherwise). Only constant shift amounts all inside that
 *     range are lowered: a runtime amount cannot be proven in range, so it stays on the CPU. */
#include <string.h>

#include "lower/lower_extra.h"

static bool is_unsigned(tosac_dtype dt)
{
    return dt == TOSAC_DT_U8 || dt == TOSAC_DT_U16 || dt == TOSAC_DT_U32 || dt == TOSAC_DT_U64;
}

/* Plain integer operands only: no unsigned type, no quantization (bits of a quantized value
 * are not what the ONNX node computes on). */
static tosac_code check_operands(lower_ctx *c, const ir_node *n)
{
    for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
        const ir_tensor *t = i < n->n_inputs ? lower_in_ir(c, n, i)
                                             : lower_out_ir(c, n, i - n->n_inputs);
        if (!t)
            continue;
        if (is_unsigned(t->dtype))
            return lx_unsupported(c, n, "TOSA has no unsigned integer types (%s '%s')",
                                  tosac_dtype_name(t->dtype), t->name);
        if (lower_is_quantized(t))
            return lx_unsupported(c, n, "'%s' is quantized", t->name);
    }
    return TOSAC_OK;
}

static tosac_code emit(lower_ctx *c, const ir_node *n, tosa_op op)
{
    tosac_code rc = check_operands(c, n);
    if (rc)
        return rc;
    int r = lower_out_ir(c, n, 0)->rank;
    int ins[2] = {lower_broadcast_rank(c, lower_in(c, n, 0), r), -1};
    if (n->n_inputs > 1)
        ins[1] = lower_broadcast_rank(c, lower_in(c, n, 1), r);
    int out = lower_out(c, n, 0);
    if (ins[0] < 0 || (n->n_inputs > 1 && ins[1] < 0) || out < 0)
        return lx_code(c);
    return lower_emit(c, op, NULL, ins, n->n_inputs > 1 ? 2 : 1, &out, 1);
}

static tosac_code lower_not(lower_ctx *c, const ir_node *n)
{
    return emit(c, n, TOSA_OP_BITWISE_NOT);
}

static tosac_code lower_and(lower_ctx *c, const ir_node *n)
{
    return emit(c, n, TOSA_OP_BITWISE_AND);
}

static tosac_code lower_or(lower_ctx *c, const ir_node *n)
{
    return emit(c, n, TOSA_OP_BITWISE_OR);
}

static tosac_code lower_xor(lower_ctx *c, const ir_node *n)
{
    return emit(c, n, TOSA_OP_BITWISE_XOR);
}

static tosac_code lower_shift(lower_ctx *c, const ir_node *n)
{
    const char *dir = ir_node_attr_string(n, "direction", "");
    bool left = strcmp(dir, "LEFT") == 0;
    if (!left && strcmp(dir, "RIGHT") != 0)
        return lx_unsupported(c, n, "direction '%s' is neither LEFT nor RIGHT", dir);
    const ir_tensor *x = lower_in_ir(c, n, 0);
    tosac_tensor amount;
    if (x && !is_unsigned(x->dtype)) {
        if (!lower_in_const(c, n, 1, &amount))
            return lx_unsupported(c, n, "a runtime shift amount may be %d or more, which ONNX "
                                  "defines (0) and TOSA does not", tosac_dtype_bits(x->dtype));
        int bits = tosac_dtype_bits(x->dtype);
        int64_t count = tosac_tensor_numel(&amount);
        for (int64_t i = 0; i < count; i++) {
            int64_t s = tosac_tensor_int_at(&amount, i);
            if (s < 0 || s >= bits)
                return lx_unsupported(c, n, "constant shift amount %lld is outside 0..%d, "
                                      "where TOSA's result is undefined", (long long)s, bits - 1);
        }
    }
    return emit(c, n, left ? TOSA_OP_LOGICAL_LEFT_SHIFT : TOSA_OP_LOGICAL_RIGHT_SHIFT);
}

const lower_rule lower_rules_bitwise[] = {
    {IR_DOMAIN_ONNX, "BitwiseNot", lower_not, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "BitwiseAnd", lower_and, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "BitwiseOr", lower_or, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "BitwiseXor", lower_xor, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "BitShift", lower_shift, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
