/* Integer Div -> TOSA INTDIV. ONNX integer Div truncates toward zero (C semantics, as the CPU
 * kernel does) and so does INTDIV (the spec's integer divide), so int32 (and int64 with
 * EXT-INT64) map one to one; int8/int16 plain integers are widened to int32 by CAST, divided,
 * and CAST back (the quotient of two narrow values fits, except MIN / -1 which wraps like
 * the CPU kernel). Float and quantized Div never reach here: pass_decompose_div turns them
 * into a multiplication by a reciprocal. A constant divisor holding a zero is refused: the
 * result is undefined in ONNX and a violated REQUIRE in TOSA. */
#include "lower/lower_extra.h"

static bool const_has_zero(const lower_ctx *c, const ir_node *n)
{
    tosac_tensor v;
    if (!lower_in_const(c, n, 1, &v))
        return false;
    int64_t cnt = tosac_tensor_numel(&v);
    size_t es = tosac_dtype_size(v.dtype);
    for (int64_t i = 0; i < cnt; i++) {
        const unsigned char *p = (const unsigned char *)v.data + (size_t)i * es;
        bool zero = true;
        for (size_t k = 0; k < es; k++)
            zero = zero && p[k] == 0;
        if (zero)
            return true;
    }
    return false;
}

static tosac_code lower_int_div(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *A = lower_in_ir(c, n, 0), *B = lower_in_ir(c, n, 1);
    const ir_tensor *Y = lower_out_ir(c, n, 0);
    if (!A || !B || !Y || n->n_inputs != 2)
        return lx_unsupported(c, n, "needs two inputs and one output");
    if (lower_is_quantized(A) || lower_is_quantized(B) || lower_is_quantized(Y))
        return lx_unsupported(c, n, "quantized Div is decomposed before lowering");
    tosac_dtype dt = Y->dtype;
    bool narrow = dt == TOSAC_DT_I8 || dt == TOSAC_DT_I16;
    if (!narrow && dt != TOSAC_DT_I32 && dt != TOSAC_DT_I64)
        return lx_unsupported(c, n, "%s Div has no integer lowering", tosac_dtype_name(dt));
    if (A->dtype != dt || B->dtype != dt)
        return lx_unsupported(c, n, "inputs and output types differ");
    if (const_has_zero(c, n))
        return lx_unsupported(c, n, "division by a constant zero");
    int a = lower_broadcast_rank(c, lower_in(c, n, 0), Y->rank);
    int b = a < 0 ? -1 : lower_broadcast_rank(c, lower_in(c, n, 1), Y->rank);
    int out = b < 0 ? -1 : lower_out(c, n, 0);
    if (out < 0)
        return lx_code(c);
    if (!narrow)
        return lx_binary(c, TOSA_OP_INTDIV, a, b, TOSAC_DT_UNKNOWN, out) < 0 ? lx_code(c) : TOSAC_OK;
    a = lx_cast(c, a, TOSAC_DT_I32, -1);
    b = lx_cast(c, b, TOSAC_DT_I32, -1);
    int q = lx_binary(c, TOSA_OP_INTDIV, a, b, TOSAC_DT_UNKNOWN, -1);
    return lx_cast(c, q, dt, out) < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_div[] = {
    {IR_DOMAIN_ONNX, "Div", lower_int_div, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
