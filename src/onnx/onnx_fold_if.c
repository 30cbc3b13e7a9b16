/* An If whose condition is a constant is replaced by the branch it takes: the branch's
 * tensors and nodes move into the enclosing graph (renamed when their names are taken), its
 * captures become the outer tensors they read, and its outputs become the If's outputs. */
#include "onnx_internal.h"

#include <stdlib.h>
#include <string.h>

static tosac_code fail_code(tosac_error *err)
{
    return err && err->code ? err->code : TOSAC_ERR_INPUT;
}

/* Copies branch tensor bt into g under a fresh name; returns the new id or -1. */
static int copy_tensor(ir_graph *g, const ir_graph *b, int bt, tosac_error *err)
{
    const ir_tensor *t = &b->tensors[bt];
    char name[512];
    ir_graph_unique_name(g, t->name, name, sizeof name);
    int id = t->data ? ir_graph_add_const(g, name, t->dtype, t->rank, t->shape, t->data,
                                          t->nbytes, err)
                     : ir_graph_add_tensor(g, name, t->dtype, t->rank, t->shape, err);
    if (id < 0)
        return -1;
    for (int d = 0; d < t->rank; d++)
        if (t->dim_param[d] && ir_tensor_set_dim_param(g, id, d, t->dim_param[d], err))
            return -1;
    const ir_quant *q = t->quant;
    if (q && ir_tensor_set_quant(g, id, q->scale, q->zero_point, q->n, q->axis, q->zp_dtype, err))
        return -1;
    return id;
}

static bool produced_in(const ir_graph *b, int bt)
{
    return b->tensors[bt].outer_id < 0 && !b->tensors[bt].data && ir_graph_producer(b, bt) >= 0;
}

static tosac_code inline_branch(ir_graph *g, int ifn, ir_graph *b, tosac_error *err)
{
    int n_out = g->nodes[ifn].n_outputs;
    if (b->n_outputs != n_out)
        return tosac_fail(err, TOSAC_ERR_INPUT, "If node '%s': branch '%s' has %d outputs, the If %d",
                          g->nodes[ifn].name, b->name, b->n_outputs, n_out);
    int *map = malloc((size_t)(b->n_tensors + 1) * sizeof *map);
    int *ifout = malloc((size_t)(n_out + 1) * sizeof *ifout);
    if (!map || !ifout) {
        free(map);
        free(ifout);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    memcpy(ifout, g->nodes[ifn].outputs, (size_t)n_out * sizeof *ifout);
    tosac_code rc = TOSAC_OK;
    for (int t = 0; t < b->n_tensors; t++)
        map[t] = b->tensors[t].outer_id >= 0 ? b->tensors[t].outer_id : -1;
    /* Branch outputs computed inside the branch write the If outputs directly. */
    for (int j = 0; j < n_out; j++) {
        int bt = b->outputs[j];
        if (ifout[j] >= 0 && produced_in(b, bt) && map[bt] < 0) {
            map[bt] = ifout[j];
            ifout[j] = -1; /* done */
        }
    }
    for (int t = 0; t < b->n_tensors && !rc; t++)
        if (map[t] < 0 && (map[t] = copy_tensor(g, b, t, err)) < 0)
            rc = fail_code(err);
    for (int i = 0; i < b->n_nodes && !rc; i++) {
        ir_node *bn = &b->nodes[i];
        for (int k = 0; k < bn->n_inputs; k++)
            bn->inputs[k] = bn->inputs[k] >= 0 ? map[bn->inputs[k]] : -1;
        for (int k = 0; k < bn->n_outputs; k++)
            bn->outputs[k] = bn->outputs[k] >= 0 ? map[bn->outputs[k]] : -1;
        int nn = ir_graph_add_node(g, bn->op_type, bn->domain, bn->name, bn->inputs,
                                   bn->n_inputs, bn->outputs, bn->n_outputs, err);
        if (nn < 0) {
            rc = fail_code(err);
            break;
        }
        /* Attributes move over; nested subgraphs now hang off g and read g's tensors. */
        g->nodes[nn].attrs = bn->attrs;
        g->nodes[nn].n_attrs = bn->n_attrs;
        bn->attrs = NULL;
        bn->n_attrs = 0;
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[nn], k)); k++) {
            sub->parent = g;
            for (int t = 0; t < sub->n_tensors; t++)
                if (sub->tensors[t].outer_id >= 0)
                    sub->tensors[t].outer_id = map[sub->tensors[t].outer_id];
        }
    }
    /* Outputs the branch passes through (captures, constants, repeats): an Identity each. */
    for (int j = 0; j < n_out && !rc; j++) {
        int src = map[b->outputs[j]];
        if (ifout[j] >= 0 &&
            ir_graph_add_node(g, "Identity", NULL, "", &src, 1, &ifout[j], 1, err) < 0)
            rc = fail_code(err);
    }
    free(map);
    free(ifout);
    return rc;
}

tosac_code onnx_fold_constant_if(ir_graph *g, tosac_error *err)
{
    bool changed = false;
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        tosac_tensor c;
        if (n->dead || !ir_node_is(n, "If") || n->n_inputs < 1 ||
            !ir_graph_const_value(g, n->inputs[0], &c) || tosac_tensor_numel(&c) != 1 ||
            c.dtype != TOSAC_DT_BOOL)
            continue;
        const ir_attr *a = ir_node_attr(n, ((uint8_t *)c.data)[0] ? "then_branch" : "else_branch");
        if (!a || a->kind != IR_ATTR_GRAPH || !a->g || a->g->n_inputs)
            continue;
        if (inline_branch(g, i, a->g, err))
            return fail_code(err);
        ir_node_kill(g, i);
        changed = true;
    }
    if (changed) {
        ir_graph_compact(g);
        if (ir_graph_toposort(g, err))
            return fail_code(err);
        return onnx_fold_constant_if(g, err); /* branches may hold constant Ifs too */
    }
    for (int i = 0; i < g->n_nodes; i++) {
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            if (onnx_fold_constant_if(sub, err))
                return fail_code(err);
    }
    return TOSAC_OK;
}
