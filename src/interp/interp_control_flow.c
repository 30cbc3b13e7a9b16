/* Operator group: control flow (COND_IF, WHILE_LOOP). The sub-graphs are blocks prepared by
 * interp_prepare one nesting level down; their buffers are reused on every iteration. */
#include "interp/interp_state.h"

/* ERROR_IF(tensor_list_shape(list) != tosa_input_shape(graph)) and friends: the tensors
 * in list[0..n) must match the declarations idx[0..n) of block b one by one. */
static tosac_code check_list(interp_ctx *c, tosac_tensor *const *list, int n, const tosa_block *b,
                             const int *idx, int n_decl, const char *what)
{
    if (n != n_decl)
        return interp_error(c, "ERROR_IF(%s: %d tensors, block '%s' declares %d)", what, n,
                            b->name, n_decl);
    for (int i = 0; i < n; i++) {
        const tosa_tensor *d = &b->tensors[idx[i]];
        if (!interp_matches_decl(list[i], d)) {
            char a[200], e[200];
            return interp_error(c, "ERROR_IF(%s %d is %s, block '%s' declares '%s' as %s)", what, i,
                                interp_type_str(list[i]->dtype, list[i]->rank, list[i]->shape, a,
                                                sizeof a),
                                b->name, d->name,
                                interp_type_str(d->dtype, d->rank, d->shape, e, sizeof e));
        }
    }
    return TOSAC_OK;
}

static const tosa_block *sub_block(interp_ctx *c, const char *name)
{
    return name ? tosa_graph_find_block(c->graph, name) : NULL;
}

/* A size-1 bool tensor's value. */
static tosac_code read_cond(interp_ctx *c, const tosac_tensor *t, const char *what, bool *v)
{
    if (t->dtype != TOSAC_DT_BOOL || tosac_tensor_numel(t) != 1)
        return interp_error(c, "ERROR_IF(%s is not a size-1 bool tensor)", what);
    *v = ((const uint8_t *)t->data)[0] != 0;
    return TOSAC_OK;
}

static void copy_outputs(interp_ctx *c, const interp_block_state *bs)
{
    for (int i = 0; i < c->n_out; i++)
        interp_copy_tensor(c->out[i], interp_block_output(bs, i));
}

tosac_code interp_op_cond_if(interp_ctx *c)
{
    const tosa_block *then_b = sub_block(c, c->op->attr.then_graph);
    const tosa_block *else_b = sub_block(c, c->op->attr.else_graph);
    if (!then_b || !else_b)
        return interp_error(c, "then_graph/else_graph not found");
    tosac_code rc;
    if ((rc = check_list(c, c->in + 1, c->n_in - 1, then_b, then_b->inputs, then_b->n_inputs,
                         "input_list")) ||
        (rc = check_list(c, c->in + 1, c->n_in - 1, else_b, else_b->inputs, else_b->n_inputs,
                         "input_list")) ||
        (rc = check_list(c, c->out, c->n_out, then_b, then_b->outputs, then_b->n_outputs,
                         "output_list")) ||
        (rc = check_list(c, c->out, c->n_out, else_b, else_b->outputs, else_b->n_outputs,
                         "output_list")))
        return rc;
    bool cond = false;
    if ((rc = read_cond(c, c->in[0], "condition", &cond)))
        return rc;
    const interp_block_state *bs;
    rc = interp_exec_block(c->st, cond ? then_b : else_b, c->in + 1, c->n_in - 1, &bs, c->err);
    if (rc)
        return rc;
    copy_outputs(c, bs);
    return TOSAC_OK;
}

tosac_code interp_op_while_loop(interp_ctx *c)
{
    const tosa_block *cond_b = sub_block(c, c->op->attr.cond_graph);
    const tosa_block *body_b = sub_block(c, c->op->attr.body_graph);
    if (!cond_b || !body_b)
        return interp_error(c, "cond_graph/body_graph not found");
    int n = c->n_in;
    tosac_code rc;
    if ((rc = check_list(c, c->out, c->n_out, body_b, body_b->inputs, body_b->n_inputs,
                         "output_list")) ||
        (rc = check_list(c, c->in, n, body_b, body_b->inputs, body_b->n_inputs, "input_list")) ||
        (rc = check_list(c, c->in, n, body_b, body_b->outputs, body_b->n_outputs,
                         "input_list (body outputs)")) ||
        (rc = check_list(c, c->in, n, cond_b, cond_b->inputs, cond_b->n_inputs, "input_list")))
        return rc;
    if (cond_b->n_outputs != 1)
        return interp_error(c, "ERROR_IF(cond_graph '%s' has %d outputs, not one bool)",
                            cond_b->name, cond_b->n_outputs);
    /* The loop-carried values live in the outputs: out = in; while (cond(out)) out = body(out). */
    for (int i = 0; i < n; i++)
        interp_copy_tensor(c->out[i], c->in[i]);
    for (;;) {
        const interp_block_state *bs;
        bool go = false;
        if ((rc = interp_exec_block(c->st, cond_b, c->out, n, &bs, c->err)))
            return rc;
        if ((rc = read_cond(c, interp_block_output(bs, 0), "cond_graph output", &go)))
            return rc;
        if (!go)
            return TOSAC_OK;
        if ((rc = interp_exec_block(c->st, body_b, c->out, n, &bs, c->err)))
            return rc;
        copy_outputs(c, bs);
    }
}

const interp_op_entry interp_ops_control_flow[] = {
    {TOSA_OP_COND_IF, interp_op_cond_if},
    {TOSA_OP_WHILE_LOOP, interp_op_while_loop},
    {TOSA_OP_UNKNOWN, NULL},
};
