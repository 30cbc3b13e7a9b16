/* Min and Max (variadic, with broadcasting): chains of MINIMUM / MAXIMUM.
 *
 * MINIMUM/MAXIMUM exist for int32 and floats. Quantized inputs are rescaled to int32 at the
 * output's scale (zero points removed) so they compare as real values; the final RESCALE
 * only adds the output zero point and clamps. Rounding to the output grid is monotonic, so
 * max(round(a), round(b)) == round(max(a, b)): one rounding, as in the float reference.
 * Plain int8/int16 values are CAST to int32 and back (exact). */
#include <string.h>

#include "lower/lower_extra.h"

static tosac_code lower_extremum(lower_ctx *c, const ir_node *n, tosa_op op)
{
    const ir_tensor *z = lower_out_ir(c, n, 0);
    if (n->n_inputs < 1 || !z)
        return lx_unsupported(c, n, "needs at least one input and an output");
    for (int i = 0; i < n->n_inputs; i++)
        if (!lower_in_ir(c, n, i))
            return lx_unsupported(c, n, "input %d is missing", i);
    bool quant = lower_is_quantized(z);
    bool narrow = !quant && (z->dtype == TOSAC_DT_I8 || z->dtype == TOSAC_DT_I16);
    if (quant && lx_check_quant(c, n, z))
        return lx_code(c);
    if (n->n_inputs == 1 && (!quant || lx_same_quant(lower_in_ir(c, n, 0), z)))
        return lx_identity(c, lower_in(c, n, 0), lower_out(c, n, 0)) < 0 ? lx_code(c) : TOSAC_OK;
    int acc = -1;
    for (int i = 0; i < n->n_inputs; i++) {
        const ir_tensor *t = lower_in_ir(c, n, i);
        int v = lower_in(c, n, i);
        if (quant) {
            if (lx_check_quant(c, n, t))
                return lx_code(c);
            v = lx_rescale(c, v, lower_qscale(t) / lower_qscale(z), lower_qzp(t), 0,
                           TOSAC_DT_I32, -1);
        } else if (narrow) {
            v = lx_cast(c, v, TOSAC_DT_I32, -1);
        }
        v = lower_broadcast_rank(c, v, z->rank);
        bool last = i == n->n_inputs - 1 && !quant && !narrow;
        acc = i == 0 ? v
                     : lx_binary(c, op, acc, v, TOSAC_DT_UNKNOWN, last ? lower_out(c, n, 0) : -1);
        if (acc < 0)
            return lx_code(c);
    }
    if (!quant && !narrow) /* the last MINIMUM/MAXIMUM wrote the output */
        return TOSAC_OK;
    /* Broadcasting against every input already gave acc the output shape. */
    int out = lower_out(c, n, 0);
    if (quant)
        return lx_rescale(c, acc, 1.0, 0, lower_qzp(z), z->dtype, out) < 0 ? lx_code(c) : TOSAC_OK;
    return lx_cast(c, acc, z->dtype, out) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_min(lower_ctx *c, const ir_node *n) { return lower_extremum(c, n, TOSA_OP_MINIMUM); }
static tosac_code lower_max(lower_ctx *c, const ir_node *n) { return lower_extremum(c, n, TOSA_OP_MAXIMUM); }

const lower_rule lower_rules_minmax[] = {
    {IR_DOMAIN_ONNX, "Min", lower_min, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Max", lower_max, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
