/* Cast, CastLike, Identity and Dropout (inference).
 *
 * CAST covers most conversions, with three ONNX differences handled here:
 *   float -> int   ONNX truncates toward zero, TOSA rounds half to even: the value is first
 *                  truncated (CEIL below zero, FLOOR otherwise), which CAST then keeps exact;
 *   float -> bool  TOSA has no such CAST: NOT(EQUAL(x, 0)) (NaN is true, as in ONNX);
 *   bool -> float  likewise: SELECT(x, 1, 0).
 * int64 is emitted as is: whether a CAST to or from i64 is legal is the spec tables' call
 * (TOSA 1.1 EXT-INT64); int8/int16 -> int64, which has no CAST, widens through int32. Identity and Dropout become IDENTITY (a RESCALE when quantization
 * parameters change); Dropout's optional mask output is a constant all-true tensor. */
#include <stdlib.h>
#include <string.h>

#include "lower/lower_extra.h"

static int float_to_int(lower_ctx *c, int x, int rank, tosac_dtype dt, int out)
{
    tosac_dtype ft = lower_dtype(c, x);
    int neg = lx_binary(c, TOSA_OP_GREATER, lx_fill(c, "zero", ft, rank, 0.0), x, TOSAC_DT_BOOL, -1);
    int up = lx_unary(c, TOSA_OP_CEIL, x, TOSAC_DT_UNKNOWN, -1);
    int down = lx_unary(c, TOSA_OP_FLOOR, x, TOSAC_DT_UNKNOWN, -1);
    return lx_cast(c, lx_select(c, neg, up, down, -1), dt, out);
}

static tosac_code lower_cast(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    if (lower_is_quantized(x) || lower_is_quantized(y))
        return lx_unsupported(c, n, "on quantized tensors");
    tosac_dtype from = x->dtype, to = y->dtype;
    int in = lower_in(c, n, 0);
    int out = in < 0 ? -1 : lower_out(c, n, 0);
    int res;
    if (from == to)
        res = lx_identity(c, in, out);
    else if (tosac_dtype_is_float(from) && to == TOSAC_DT_BOOL)
        res = lx_unary(c, TOSA_OP_LOGICAL_NOT,
                       lx_binary(c, TOSA_OP_EQUAL, in, lx_fill(c, "zero", from, x->rank, 0.0),
                                 TOSAC_DT_BOOL, -1),
                       TOSAC_DT_BOOL, out);
    else if (from == TOSAC_DT_BOOL && tosac_dtype_is_float(to))
        res = lx_select(c, in, lx_fill(c, "one", to, x->rank, 1.0),
                        lx_fill(c, "zero", to, x->rank, 0.0), out);
    else if (tosac_dtype_is_float(from) && tosac_dtype_is_int(to))
        res = float_to_int(c, in, x->rank, to, out);
    else if ((from == TOSAC_DT_I8 || from == TOSAC_DT_I16) && to == TOSAC_DT_I64)
        res = lx_cast(c, lx_cast(c, in, TOSAC_DT_I32, -1), to, out); /* exact; TOSA has no
                                                                       * CAST i8/i16 -> i64 */
    else
        res = lx_cast(c, in, to, out);
    return res < 0 ? lx_code(c) : TOSAC_OK;
}

/* Output slot i gets the input, unchanged in real value. */
static tosac_code pass_through(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    int in = lower_in(c, n, 0);
    if (in < 0)
        return lx_code(c);
    if (lower_is_quantized(y) && !lx_same_quant(x, y)) {
        tosac_code rc;
        if ((rc = lx_check_quant(c, n, x)) || (rc = lx_check_quant(c, n, y)))
            return rc;
        return lx_rescale(c, in, lower_qscale(x) / lower_qscale(y), lower_qzp(x), lower_qzp(y),
                          y->dtype, lower_out(c, n, 0)) < 0 ? lx_code(c) : TOSAC_OK;
    }
    return lx_identity(c, in, lower_out(c, n, 0)) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_dropout(lower_ctx *c, const ir_node *n)
{
    if (n->n_inputs >= 3 && n->inputs[2] >= 0) {
        tosac_tensor t;
        if (!lower_in_const(c, n, 2, &t) || t.dtype != TOSAC_DT_BOOL ||
            tosac_tensor_numel(&t) != 1 || *(const uint8_t *)t.data)
            return lx_unsupported(c, n, "training_mode is not a constant false");
    }
    if (ir_node_attr_int(n, "is_test", 1) == 0) /* opset < 7 */
        return lx_unsupported(c, n, "is_test=0 (training)");
    tosac_code rc = pass_through(c, n);
    const ir_tensor *mask = lower_out_ir(c, n, 1);
    if (rc || !mask)
        return rc;
    int64_t numel = tosac_shape_numel(mask->rank, mask->shape);
    size_t es = tosac_dtype_size(mask->dtype);
    if (mask->dtype != TOSAC_DT_BOOL)
        return lx_unsupported(c, n, "mask of type %s", tosac_dtype_name(mask->dtype));
    uint8_t *ones = malloc((size_t)(numel > 0 ? numel : 1) * es);
    if (!ones)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering Dropout");
    memset(ones, 1, (size_t)numel * es);
    int t = lower_const(c, mask->name, TOSAC_DT_BOOL, mask->rank, mask->shape, ones);
    free(ones);
    if (t < 0)
        return lx_code(c);
    c->tmap[n->outputs[1]] = t;
    return TOSAC_OK;
}

const lower_rule lower_rules_cast[] = {
    {IR_DOMAIN_ONNX, "Cast", lower_cast, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "CastLike", lower_cast, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Identity", pass_through, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Dropout", lower_dropout, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
