/* Elementwise arithmetic: Add, Sub, Mul (float, plain integer, and quantized).
 *
 * Quantized Add/Sub work in int32 with headroom: each input is rescaled to the common scale
 * 2*max(sa, sb) / 2^shift (shift 20 for 8-bit inputs, 12 for 16-bit, so that the sum of two
 * rescaled values still fits in int32), added, and rescaled to the output's quantization.
 * Quantized Mul subtracts the zero points (rescale by 1 to int32), multiplies in int32 (the
 * product's scale is sa*sb) and rescales by sa*sb/sy. */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

/* Both inputs brought to the output's rank (ONNX broadcasting from the right). */
static tosac_code broadcast_pair(lower_ctx *c, int r, int *a, int *b)
{
    *a = lower_broadcast_rank(c, *a, r);
    *b = lower_broadcast_rank(c, *b, r);
    return *a < 0 || *b < 0 ? c->err->code : TOSAC_OK;
}

static tosac_code emit_binary(lower_ctx *c, tosa_op op, int a, int b, int out)
{
    if (op == TOSA_OP_MUL) {
        int sh = lower_scalar(c, "shift", TOSAC_DT_I8, 0);
        if (sh < 0)
            return c->err->code;
        int ins[3] = {a, b, sh};
        return lower_emit(c, op, NULL, ins, 3, &out, 1);
    }
    int ins[2] = {a, b};
    return lower_emit(c, op, NULL, ins, 2, &out, 1);
}

/* Unquantized: float, or integer arithmetic on plain values (shapes, indices). */
static tosac_code lower_plain(lower_ctx *c, const ir_node *n, tosa_op op)
{
    const ir_tensor *y = lower_out_ir(c, n, 0);
    int a = lower_in(c, n, 0), b = lower_in(c, n, 1);
    if (a < 0 || b < 0 || broadcast_pair(c, y->rank, &a, &b))
        return c->err->code;
    int out = lower_out(c, n, 0);
    return out < 0 ? c->err->code : emit_binary(c, op, a, b, out);
}

static tosac_code check_quant(lower_ctx *c, const ir_node *n, const ir_tensor *t)
{
    if (!lower_is_quantized(t) || t->quant->n != 1)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: '%s' is not quantized per tensor",
                          n->op_type, t->name);
    if (t->dtype != TOSAC_DT_I8 && t->dtype != TOSAC_DT_I16)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: quantized %s is not int8/int16",
                          n->op_type, tosac_dtype_name(t->dtype));
    return TOSAC_OK;
}

static int to_i32(lower_ctx *c, int t, double scale, int64_t zp)
{
    lower_rescale_args ra = {TOSAC_DT_I32, &scale, 1, zp, 0, -1, "rescale_in"};
    return lower_rescale(c, t, &ra);
}

static tosac_code lower_quantized(lower_ctx *c, const ir_node *n, tosa_op op)
{
    const ir_tensor *A = lower_in_ir(c, n, 0), *B = lower_in_ir(c, n, 1), *Y = lower_out_ir(c, n, 0);
    tosac_code rc;
    if ((rc = check_quant(c, n, A)) || (rc = check_quant(c, n, B)) || (rc = check_quant(c, n, Y)))
        return rc;
    double sa = lower_qscale(A), sb = lower_qscale(B), sy = lower_qscale(Y);
    double in_scale_a, in_scale_b, out_scale;
    if (op == TOSA_OP_MUL) {
        in_scale_a = in_scale_b = 1.0;
        out_scale = sa * sb / sy;
    } else {
        int shift = (A->dtype == TOSAC_DT_I16 || B->dtype == TOSAC_DT_I16) ? 12 : 20;
        double twice = 2.0 * fmax(sa, sb);
        in_scale_a = sa / twice * ldexp(1.0, shift);
        in_scale_b = sb / twice * ldexp(1.0, shift);
        out_scale = twice / (ldexp(1.0, shift) * sy);
    }
    int a = to_i32(c, lower_in(c, n, 0), in_scale_a, lower_qzp(A));
    int b = to_i32(c, lower_in(c, n, 1), in_scale_b, lower_qzp(B));
    if (a < 0 || b < 0 || broadcast_pair(c, Y->rank, &a, &b))
        return c->err->code;
    int acc = lower_tmp(c, "acc", TOSAC_DT_I32, Y->rank, Y->shape);
    if (acc < 0 || emit_binary(c, op, a, b, acc))
        return c->err->code;
    int out = lower_out(c, n, 0);
    if (out < 0)
        return c->err->code;
    lower_rescale_args ro = {Y->dtype, &out_scale, 1, 0, lower_qzp(Y), out, NULL};
    return lower_rescale(c, acc, &ro) < 0 ? c->err->code : TOSAC_OK;
}

static tosac_code lower_binary(lower_ctx *c, const ir_node *n, tosa_op op)
{
    const ir_tensor *y = lower_out_ir(c, n, 0);
    if (n->n_inputs != 2 || !lower_in_ir(c, n, 0) || !lower_in_ir(c, n, 1) || !y)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s needs two inputs and an output",
                          n->op_type);
    if (lower_is_quantized(y) || lower_is_quantized(lower_in_ir(c, n, 0)))
        return lower_quantized(c, n, op);
    return lower_plain(c, n, op);
}

static tosac_code lower_add(lower_ctx *c, const ir_node *n) { return lower_binary(c, n, TOSA_OP_ADD); }
static tosac_code lower_sub(lower_ctx *c, const ir_node *n) { return lower_binary(c, n, TOSA_OP_SUB); }
static tosac_code lower_mul(lower_ctx *c, const ir_node *n) { return lower_binary(c, n, TOSA_OP_MUL); }

const lower_rule lower_rules_elementwise[] = {
    {IR_DOMAIN_ONNX, "Add", lower_add, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Sub", lower_sub, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Mul", lower_mul, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
