/* Operator group: data nodes (CONST, CONST_SHAPE, IDENTITY). */
#include <string.h>

#include "interp/interp_state.h"

/* CONST / CONST_SHAPE: the value is the output tensor's data in the graph. */
static tosac_code const_value(interp_ctx *c)
{
    const tosa_tensor *decl = &c->block->tensors[c->op->outputs[0]];
    tosac_tensor *out = c->out[0];
    if (!decl->data)
        return interp_error(c, "the constant has no data");
    if (c->op->op == TOSA_OP_CONST_SHAPE)
        INTERP_ERROR_IF(c, out->dtype != TOSAC_DT_SHAPE);
    else
        INTERP_ERROR_IF(c, out->dtype == TOSAC_DT_SHAPE);
    INTERP_ERROR_IF(c, decl->data_size < out->nbytes);
    if (out->nbytes && out->data != decl->data) /* prepare uses constants in place */
        memcpy(out->data, decl->data, out->nbytes);
    return TOSAC_OK;
}

tosac_code interp_op_identity(interp_ctx *c)
{
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    if (!interp_same_type(in, out)) {
        char a[200], b[200];
        return interp_error(c, "ERROR_IF(input %s differs from output %s)",
                            interp_type_str(in->dtype, in->rank, in->shape, a, sizeof a),
                            interp_type_str(out->dtype, out->rank, out->shape, b, sizeof b));
    }
    interp_copy_tensor(out, in);
    return TOSAC_OK;
}

/* One function per operator, named interp_op_<name> (the Cortex-M55 port's per-program table
 * relies on it), each linked only when used. */
tosac_code interp_op_const(interp_ctx *c) { return const_value(c); }
tosac_code interp_op_const_shape(interp_ctx *c) { return const_value(c); }

const interp_op_entry interp_ops_data_node[] = {
    {TOSA_OP_CONST, interp_op_const},
    {TOSA_OP_CONST_SHAPE, interp_op_const_shape},
    {TOSA_OP_IDENTITY, interp_op_identity},
    {TOSA_OP_UNKNOWN, NULL},
};
