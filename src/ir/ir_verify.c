/* The verifier: every pass may run it; a failure names the graph, the node or tensor, and the
 * reason. Recurses into subgraphs. */
#include "ir_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static tosac_code verify_tensor(const ir_graph *g, int id, tosac_error *err)
{
    const ir_tensor *t = &g->tensors[id];
    if (!t->name)
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': tensor %d has no name", g->name, id);
    if (ir_graph_find_tensor(g, t->name) != id)
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': tensor name '%s' is used twice",
                          g->name, t->name);
    if ((unsigned)t->dtype >= TOSAC_DT_COUNT)
        return tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': invalid dtype %d", t->name,
                          (int)t->dtype);
    if (t->rank < -1 || t->rank > TOSAC_MAX_RANK)
        return tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': invalid rank %d", t->name, t->rank);
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < -1)
            return tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': dimension %d is %lld", t->name,
                              d, (long long)t->shape[d]);
    if (t->data) {
        size_t want = 0;
        tosac_error e2;
        tosac_error_clear(&e2);
        if (t->dtype == TOSAC_DT_UNKNOWN || t->rank < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "constant '%s' has no dtype or shape",
                              t->name);
        if (tosac_shape_check(t->dtype, t->rank, t->shape, &want, &e2))
            return tosac_fail(err, TOSAC_ERR_INPUT, "constant '%s': %s", t->name, e2.msg);
        if (want != t->nbytes)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "constant '%s': %zu bytes of data for a shape of %zu bytes",
                              t->name, t->nbytes, want);
    }
    if (t->outer_id >= 0) {
        if (!g->parent || t->outer_id >= g->parent->n_tensors)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "graph '%s': tensor '%s' captures outer tensor %d, which does not exist",
                              g->name, t->name, t->outer_id);
        if (t->data)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "graph '%s': tensor '%s' is both a capture and a constant", g->name,
                              t->name);
    } else if (t->outer_id != -1) {
        return tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': invalid outer_id %d", t->name,
                          t->outer_id);
    }
    const ir_quant *q = t->quant;
    if (q) {
        if (q->n < 1 || !q->scale || !q->zero_point || q->axis < -1 ||
            (q->axis == -1 && q->n != 1 && q->block_size == 0))
            return tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': malformed quantization",
                              t->name);
        if (q->axis >= 0 && t->rank >= 0) {
            if (q->axis >= t->rank)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "tensor '%s': quantization axis %d for rank %d", t->name,
                                  q->axis, t->rank);
            if (q->block_size == 0 && t->shape[q->axis] >= 0 && t->shape[q->axis] != q->n)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "tensor '%s': %d scales for dimension %d of size %lld",
                                  t->name, q->n, q->axis, (long long)t->shape[q->axis]);
        }
        for (int i = 0; i < q->n; i++)
            if (!isfinite(q->scale[i]))
                return tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': scale %d is not finite",
                                  t->name, i);
    }
    return TOSAC_OK;
}

static tosac_code verify_attr(const ir_graph *g, int node, const ir_attr *a, tosac_error *err)
{
    char buf[160];
    const ir_node *n = &g->nodes[node];
    if (!a->name)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: attribute without a name",
                          ir_node_desc(g, node, buf, sizeof buf));
    if (ir_node_attr(n, a->name) != a)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: attribute '%s' appears twice",
                          ir_node_desc(g, node, buf, sizeof buf), a->name);
    if (a->kind < IR_ATTR_FLOAT || a->kind > IR_ATTR_GRAPHS)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: attribute '%s' has invalid kind %d",
                          ir_node_desc(g, node, buf, sizeof buf), a->name, (int)a->kind);
    if (a->kind == IR_ATTR_GRAPH || a->kind == IR_ATTR_GRAPHS) {
        int count = a->kind == IR_ATTR_GRAPH ? 1 : a->n;
        for (int k = 0; k < count; k++) {
            const ir_graph *sub = a->kind == IR_ATTR_GRAPH ? a->g : a->graphs[k];
            if (!sub || sub->parent != g)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "%s: subgraph '%s' is missing or has the wrong parent",
                                  ir_node_desc(g, node, buf, sizeof buf), a->name);
            if (ir_graph_verify(sub, err))
                return err ? err->code : TOSAC_ERR_INPUT;
        }
    }
    return TOSAC_OK;
}

static tosac_code verify_node(const ir_graph *g, int i, unsigned char *source, tosac_error *err)
{
    char buf[160];
    const ir_node *n = &g->nodes[i];
    if (!n->op_type || !n->op_type[0] || !n->domain)
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': node %d has no op_type", g->name, i);
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] < -1 || n->inputs[k] >= g->n_tensors)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: input %d is tensor %d, out of range",
                              ir_node_desc(g, i, buf, sizeof buf), k, n->inputs[k]);
    for (int k = 0; k < n->n_outputs; k++) {
        int t = n->outputs[k];
        if (t < -1 || t >= g->n_tensors)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: output %d is tensor %d, out of range",
                              ir_node_desc(g, i, buf, sizeof buf), k, t);
        if (t < 0)
            continue;
        if (source[t])
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "%s: output '%s' is already produced (by another node, a graph "
                              "input, a constant or a capture)",
                              ir_node_desc(g, i, buf, sizeof buf), g->tensors[t].name);
        source[t] = 1;
    }
    for (int a = 0; a < n->n_attrs; a++)
        if (verify_attr(g, i, &n->attrs[a], err))
            return err ? err->code : TOSAC_ERR_INPUT;
    return TOSAC_OK;
}

tosac_code ir_graph_verify(const ir_graph *g, tosac_error *err)
{
    char buf[160];
    if (!g)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no graph");
    int nt = g->n_tensors;
    unsigned char *source = calloc((size_t)(nt ? nt : 1), 1);
    if (!source)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < nt && !rc; i++) {
        rc = verify_tensor(g, i, err);
        source[i] = g->tensors[i].data != NULL || g->tensors[i].outer_id >= 0;
    }
    for (int i = 0; i < g->n_inputs && !rc; i++) {
        int t = g->inputs[i];
        if (t < 0 || t >= nt)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': input %d is tensor %d, out of range",
                            g->name, i, t);
        else if (source[t] && !g->tensors[t].data) /* an input with a default initializer is fine */
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': input '%s' is listed twice",
                            g->name, g->tensors[t].name);
        else
            source[t] = 1;
    }
    for (int i = 0; i < g->n_nodes && !rc; i++)
        if (!g->nodes[i].dead)
            rc = verify_node(g, i, source, err);
    /* Every tensor read must come from somewhere. */
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs && !rc; k++)
            if (n->inputs[k] >= 0 && !source[n->inputs[k]])
                rc = tosac_fail(err, TOSAC_ERR_INPUT,
                                "%s: input %d '%s' is not produced by any node, input or constant",
                                ir_node_desc(g, i, buf, sizeof buf), k,
                                g->tensors[n->inputs[k]].name);
    }
    /* ... and so must every tensor a body captures (a pass that drops or re-wires a captured
     * value without updating the capture leaves the body reading nothing). */
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        const ir_node *n = &g->nodes[i];
        const ir_graph *sub;
        for (int k = 0; !n->dead && !rc && (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors && !rc; t++) {
                int o = sub->tensors[t].outer_id;
                if (o >= 0 && o < nt && !source[o])
                    rc = tosac_fail(err, TOSAC_ERR_INPUT,
                                    "%s: subgraph '%s' captures '%s', which is not produced by "
                                    "any node, input or constant",
                                    ir_node_desc(g, i, buf, sizeof buf), sub->name,
                                    g->tensors[o].name);
            }
    }
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        int t = g->outputs[i];
        if (t < 0 || t >= nt)
            rc = tosac_fail(err, TOSAC_ERR_INPUT,
                            "graph '%s': output %d is tensor %d, out of range", g->name, i, t);
        else if (!source[t])
            rc = tosac_fail(err, TOSAC_ERR_INPUT,
                            "graph '%s': output '%s' is not produced by any node, input or constant",
                            g->name, g->tensors[t].name);
    }
    free(source);
    if (rc)
        return rc;
    int *order = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *order);
    if (!order)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    int n_order;
    rc = ir_graph_topo_order(g, order, &n_order, err);
    free(order);
    return rc;
}

tosac_code ir_model_verify(const ir_model *m, tosac_error *err)
{
    if (!m || !m->graph)
        return tosac_fail(err, TOSAC_ERR_INPUT, "model has no graph");
    if (m->graph->parent)
        return tosac_fail(err, TOSAC_ERR_INPUT, "top-level graph has a parent");
    return ir_graph_verify(m->graph, err);
}
