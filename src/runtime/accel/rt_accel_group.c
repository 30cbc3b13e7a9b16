/* See rt_accel_group.h. */
#include <string.h>

#include "interp/interp_registry.h"
#include "runtime/accel/rt_accel_group.h"

int rt_accel_group_install(rt_accel_block *ab, rt_accel_group *g, const int *ops, int n_ops,
                           const int *inputs, int n_inputs, int stage, interp_op_fn fn,
                           void *data)
{
    if (n_ops < 1 || n_ops > 4)
        return 0;
    const tosa_operator *last = &ab->b->ops[ops[n_ops - 1]];
    if (last->n_outputs != 1)
        return 0;
    g->bs = ab->bs;
    memcpy(g->ops, ops, sizeof(int) * (size_t)n_ops);
    g->n_ops = n_ops;
    g->final = rt_accel_tensor(ab, last->outputs[0]);
    return rt_accel_install(ab, ops, n_ops, inputs, n_inputs, stage, last->outputs[0], fn, data,
                            &g->dst);
}

tosac_code rt_accel_group_reference(interp_ctx *c, const rt_accel_group *g)
{
    for (int k = 0; k < g->n_ops; k++) {
        interp_ctx oc = *c;
        int op = g->ops[k];
        oc.op = &g->bs->block->ops[op];
        oc.in = g->bs->operands + g->bs->operand_off[op];
        oc.n_in = oc.op->n_inputs;
        oc.out = oc.in + oc.n_in;
        oc.n_out = oc.op->n_outputs;
        oc.op_data = NULL;
        tosac_code rc = interp_find_op(oc.op->op)(&oc);
        if (rc != TOSAC_OK)
            return rc;
    }
    if (g->dst != g->final->data && g->final->nbytes)
        memmove(g->dst, g->final->data, g->final->nbytes);
    return TOSAC_OK;
}
